"""The scanner (govcore/detection/scanner.py): ``terms`` and ``regex`` rules, offsets into the
original text whatever normalisation changes, default explanations, values held back by a
neighbouring match, and which policies' matches free them (contract §2, docs/detection.md).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.detection.scanner import Scanner, compile_rules, explain
from govcore.policy import PolicyDocument
from tests.detection.scanning import (
    CARD,
    EMAIL,
    IBAN,
    IP,
    PHONE,
    RLO,
    SECRET,
    SOFT_HYPHEN,
    SSN,
    TAG_A,
    ZWSP,
    found,
    scanner,
)
from tests.support import policy

TERMS = {"terms": ["refund", "money back guarantee", "C++", "naïve", "risk-free"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("REFUND now", ["REFUND"]),
        ("a Refund.", ["Refund"]),
        ("x-refund-y", ["refund"]),
        ("(refund)", ["refund"]),
        ("Money Back Guarantee!", ["Money Back Guarantee"]),
        ("I use C++ daily", ["C++"]),
        ("Naïve idea, NAÏVE plan", ["Naïve", "NAÏVE"]),
        ("ＲＥＦＵＮＤ", ["ＲＥＦＵＮＤ"]),
        (f"re{ZWSP}fund", [f"re{ZWSP}fund"]),
        ("totally RISK-FREE", ["RISK-FREE"]),
        ("refund, refund", ["refund", "refund"]),
    ],
)
def test_terms_match_case_insensitively_on_word_boundaries(text: str, expected: list[str]) -> None:
    """Terms and phrases match in any case and width when they stand on word boundaries."""
    assert found(TERMS, text) == expected


@pytest.mark.parametrize(
    "text", ["refunds", "refunded", "nonrefundable", "refund_x", "xrefund", "ßrefund", "money back"]
)
def test_terms_do_not_match_inside_other_words(text: str) -> None:
    """A term inside a longer word, or half a phrase, is not a match."""
    assert found(TERMS, text) == []


def test_many_terms_are_matched_at_once() -> None:
    """A rule with thousands of terms finds exactly the listed ones that occur."""
    rule = {"terms": [f"codeword{i}" for i in range(3000)] + ["alpha beta"]}
    text = "use codeword2999, codeword0 and codeword30000 or Alpha Beta but not codeword"
    assert found(rule, text) == ["codeword2999", "codeword0", "Alpha Beta"]


_VOCABULARY = [f"word{i}" for i in range(24)] + ["ab", "abc", "b c", "c++", "x-ray", "ray"]


def _reference_terms(terms: list[str], text: str) -> list[tuple[int, int]]:
    """Every occurrence of each term on word boundaries, by Python ``re`` with lookarounds."""
    spans = set()
    for term in terms:
        before = r"(?<!\w)" if term[0].isalnum() else ""
        after = r"(?!\w)" if term[-1].isalnum() else ""
        pattern = re.compile(f"(?=({before}{re.escape(term)}{after}))", re.IGNORECASE)
        spans |= {(m.start(1), m.end(1)) for m in pattern.finditer(text)}
    return _leftmost_longest_spans(spans)


def _leftmost_longest_spans(spans: set[tuple[int, int]]) -> list[tuple[int, int]]:
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([*_VOCABULARY, "filler", "WORD3", "Abc", "xword1", "word1x"]),
            st.sampled_from([" ", "", "-", ", ", "_", "\n"]),
        ),
        max_size=40,
    ),
    st.booleans(),
)
def test_terms_match_a_reference_however_many_occur(
    pieces: list[tuple[str, str]], all_present: bool
) -> None:
    """Few terms present (found one by one) or many (one automaton pass): the same matches as
    a reference search with lookarounds."""
    text = "".join(word + separator for word, separator in pieces)
    if all_present:
        text = " ".join(_VOCABULARY) + ", " + text
    hits = scanner({"terms": _VOCABULARY}).scan(text)
    assert [(h.start, h.end) for h in hits] == _reference_terms(_VOCABULARY, text)


def test_terms_of_several_rules_are_reported_per_rule() -> None:
    """Two terms rules of one policy each report their own matches."""
    rules = scanner({"terms": ["refund"]}, {"terms": ["lawsuit", "refund"]})
    hits = rules.scan("a refund or a lawsuit")
    assert sorted((h.rule.index, h.start, h.end) for h in hits) == [
        (0, 2, 8),
        (1, 2, 8),
        (1, 14, 21),
    ]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"secret\s+plan", "the SECRET   Plan", ["SECRET   Plan"]),
        (r"proj-[0-9]{4}", "PROJ-1234 and proj-99", ["PROJ-1234"]),
        (r"\p{Greek}+", "say αβγ now", ["αβγ"]),
        (r"[[:digit:]]{3}", "12 345", ["345"]),
        (r"(?-i:ABC)", "abc ABC", ["ABC"]),
        (r"\bfoo\b", "food foo", ["foo"]),
        (r"(?P<word>cat)s?", "CATS", ["CATS"]),
        (r"café", "CAFÉ", ["CAFÉ"]),
        (r"σοφια", "ΣΟΦΙΑ", ["ΣΟΦΙΑ"]),
        (r"fo+", "ＦＯＯＯ", ["ＦＯＯＯ"]),
    ],
)
def test_regex_rules_match_case_insensitively_in_re2_syntax(
    pattern: str, text: str, expected: list[str]
) -> None:
    """Author regexes use RE2 syntax, match case-insensitively and report original text."""
    assert found({"regex": pattern}, text) == expected


@pytest.mark.parametrize("word", ["groß", "Straße"])
def test_regex_rule_matches_its_own_literal_text(word: str) -> None:
    """A regex that is a plain word matches that word, also when it has a letter like ß."""
    assert found({"regex": word}, f"it is {word} here") == [word]


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=x)y", r"(?<!a)b", "a{1001}"])
def test_non_re2_patterns_are_a_config_error(pattern: str) -> None:
    """Backreferences, lookaround and other non-RE2 syntax are refused when the config loads."""
    config = {
        "tenants": {"t": {"policies": [policy("p", detect=[{"regex": pattern}])]}},
        "keys": [{"key": "gk_test_regex_000001", "tenant": "t"}],
    }
    with pytest.raises(govcore.ConfigError, match="p"):
        govcore.Governance.from_config(config)


ODD_PREFIX = st.lists(
    st.sampled_from(
        [
            "ß",
            "ﬁ",
            "ﬃ",
            "é",
            "e\u0301",
            "İ",
            "Ａ",
            "①",
            "㍱",
            ZWSP,
            SOFT_HYPHEN,
            RLO,
            TAG_A,
            "x",
            " ",
            "\n",
        ]
    ),
    max_size=12,
).map("".join)


PLANTED = [
    (CARD, "4111 1111 1111 1111"),
    (IBAN, "GB82 WEST 1234 5698 7654 32"),
    (EMAIL, "jane.doe@example.com"),
    (SSN, "123-45-6789"),
    (IP, "10.20.30.40"),
    (SECRET, "AKIAZ4QW7RT2LX5PJN3K"),
    (TERMS, "money back guarantee"),
    ({"regex": r"proj-[0-9]{4}"}, "proj-1234"),
]


@settings(max_examples=60, deadline=None)
@given(prefix=ODD_PREFIX, suffix=ODD_PREFIX, planted=st.sampled_from(PLANTED))
def test_hits_are_spans_of_the_original_text(
    prefix: str, suffix: str, planted: tuple[dict[str, Any], str]
) -> None:
    """Whatever normalisation changes before or after a match, the hit's span is the original."""
    rule, value = planted
    text = f"{prefix} ; {value} ; {suffix}"
    start = len(prefix) + 3
    hits = scanner(rule).scan(text)
    assert (start, start + len(value)) in [(h.start, h.end) for h in hits]
    for hit in hits:
        assert 0 <= hit.start < hit.end <= len(text)


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=300), start=st.integers(min_value=0, max_value=310))
def test_scan_from_a_start_reports_offsets_in_the_whole_text(text: str, start: int) -> None:
    """``scan(text, start)`` finds what ``scan(text[start:])`` finds, shifted by ``start``."""
    every = scanner(CARD, EMAIL, SECRET, TERMS)
    shifted = [(h.rule.index, h.start - start, h.end - start) for h in every.scan(text, start)]
    assert shifted == [(h.rule.index, h.start, h.end) for h in every.scan(text[start:])]


@pytest.mark.parametrize(
    "invisible", ["\u034f", "\u115f", "\u1160", "\u3164", "\uffa0", "\u17b4", "\u180b"]
)
def test_default_ignorable_characters_do_not_split_a_match(invisible: str) -> None:
    """The combining grapheme joiner, Hangul fillers, Khmer inherent vowels and Mongolian
    variation selectors are invisible like zero-width spaces, and are ignored like them."""
    card = f"4111{invisible}1111 1111 1111"
    assert found(CARD, f"card {card} end") == [card]
    assert found({"terms": ["wire transfer"]}, f"a wire{invisible} transfer") == [
        f"wire{invisible} transfer"
    ]


@pytest.mark.parametrize("dash", ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2212"])
def test_unicode_dashes_read_as_hyphens(dash: str) -> None:
    """A phone number with non-breaking hyphens is found whole, and a hyphenated term matches
    whichever dash joins it."""
    phone = f"+1 (415) 555{dash}0123"
    assert found(PHONE, f"call {phone} today") == [phone]
    assert found({"terms": ["risk-free"]}, f"a risk{dash}free offer") == [f"risk{dash}free"]


@pytest.mark.parametrize(
    ("rule", "text", "explanation"),
    [
        (SECRET, "key AKIAZ4QW7RT2LX5PJN3K", "Contains a secret (a private key, an API key,"),
        (CARD, "card 4111 1111 1111 1111", "Contains a payment card number (Luhn-valid)"),
        ({"terms": ["refund"]}, "a refund", "Uses wording that policy p does not allow."),
    ],
)
def test_default_explanations_say_what_was_found(
    rule: dict[str, Any], text: str, explanation: str
) -> None:
    """Without an explanation of its own, a violation says what kind of thing was found, in a
    sentence (acronyms kept)."""
    [hit] = scanner(rule).scan(text)
    assert explain(hit).startswith(explanation)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x a@b.com4111111111111111 y", ["a@b.com", "4111111111111111"]),
        (
            "DE89 3704 0044 0532 0130 00. 4111 1111 1111 1111",
            ["DE89 3704 0044 0532 0130 00", "4111 1111 1111 1111"],
        ),
        (
            "john.doe@example.com\u200b4111 1111 1111 1111",
            ["john.doe@example.com", "4111 1111 1111 1111"],
        ),
        (
            "a@b.com123-45-6789 4111 1111 1111 1111",
            ["a@b.com", "123-45-6789", "4111 1111 1111 1111"],
        ),
        ("mail a@b.com, card 4111 1111 1111 1111.", ["a@b.com", "4111 1111 1111 1111"]),
    ],
)
def test_a_value_held_back_by_a_neighbouring_match_is_found(text: str, expected: list[str]) -> None:
    """A validator refuses a card number glued to letters or digits; when those belong to
    another match (an email's domain, an IBAN), the number stands alone and is found."""
    rules = ({"pii": "email"}, CARD, IBAN, SSN)
    assert [text[h.start : h.end] for h in scanner(*rules).scan(text)] == expected


@pytest.mark.parametrize(
    "spaced",
    [
        "money back guarantee",
        "money  back guarantee",
        "money\nback\tguarantee",
        "money back\n\n   guarantee",
        "money\u00a0back\u2003guarantee",
        "MONEY  Back\r\nGuarantee",
    ],
)
def test_a_phrase_matches_whatever_whitespace_separates_its_words(spaced: str) -> None:
    """Two spaces, a line break or a tab between the words of a term do not hide it."""
    assert found({"terms": ["money back guarantee"]}, f"a {spaced}!") == [spaced]


def test_a_phrase_is_not_found_across_a_long_gap_or_glued_words() -> None:
    """More than 16 whitespace characters separate the words for good, and words written
    together are another word."""
    rule = {"terms": ["money back"]}
    assert found(rule, "money" + " " * 17 + "back") == []
    assert found(rule, "moneyback") == []


def test_phrases_are_found_however_spaced_when_many_terms_occur() -> None:
    """Past 16 distinct terms in a text the automaton takes over, on a single-spaced copy."""
    terms = [f"term{i} word" for i in range(20)]
    text = " ".join(f"term{i}{'  ' if i % 2 else chr(10)}word" for i in range(20))
    assert len(found({"terms": terms}, text)) == 20


def test_a_term_written_with_odd_whitespace_matches_single_spaced_text() -> None:
    assert found({"terms": ["money \n back"]}, "a money back offer") == ["money back"]


def test_a_match_of_a_policy_that_does_not_apply_frees_nothing() -> None:
    """A value held back by another policy's match is freed only when that policy applies:
    a match that will not be redacted sets nothing free."""
    both = _scanner_of(("a", {"regex": "ref"}), ("b", CARD))
    text = "ref4111111111111111"
    assert [h.rule.policy.id for h in both.scan(text)] == ["a", "b"]
    assert both.scan(text, applicable=frozenset({"b"})) == []
    assert [h.rule.policy.id for h in both.scan(text, applicable=frozenset({"a"}))] == ["a"]


def _scanner_of(*rules: tuple[str, dict[str, Any]]) -> Scanner:
    documents = [PolicyDocument.model_validate(policy(pid, detect=[rule])) for pid, rule in rules]
    return compile_rules((document, document.detect[0]) for document in documents)


# Kinds whose candidates are one pattern, searched once for all of them (none of them contains
# another kind's match, so each finds together exactly what it finds alone).
SHARED_SHAPES = (("au_tfn", "au_acn", "ca_sin"), ("tr_national_id", "ng_nin"))
_SHAPE_PIECES = (
    "123 456 782",  # a TFN
    "004 085 616",  # an ACN
    "130 692 544",  # a SIN
    "10000000146",  # a T.C. Kimlik No
    "12345678902",  # a NIN
    "TFN ",
    "ACN: ",
    "SIN ",
    "T.C. Kimlik No ",
    "NIN ",
    "123",
    "456",
    "0",
    "7",
    " ",
    "-",
    "\n",
    "x",
)


@settings(max_examples=150, deadline=None)
@given(
    group=st.sampled_from(SHARED_SHAPES),
    pieces=st.lists(st.sampled_from(_SHAPE_PIECES), min_size=1, max_size=40),
)
def test_kinds_of_one_shape_find_together_what_each_finds_alone(
    group: tuple[str, ...], pieces: list[str]
) -> None:
    """The candidates of kinds with the same pattern are searched once per text and shared:
    each kind still walks its own candidates (its validator refuses some, or keeps a shorter
    span), and finds exactly what a scanner of that kind alone finds."""
    text = "".join(pieces)
    together = scanner(*({"pii": kind} for kind in group)).scan(text)
    for kind in group:
        alone = [(h.start, h.end, h.confidence) for h in scanner({"pii": kind}).scan(text)]
        shared = [(h.start, h.end, h.confidence) for h in together if h.rule.label == kind]
        assert shared == alone, kind


def test_kinds_of_one_shape_each_report_their_own_values() -> None:
    """A TFN, an ACN and a SIN after their names, in one text: each of the three kinds that
    share the candidate pattern reports its own value (a value that passes another kind's check
    digit too, printed in its groups, is that kind's weaker match as well)."""
    text = "TFN 123 456 782, ACN: 004 085 616 and SIN 130 692 544."
    hits = scanner(*({"pii": kind} for kind in SHARED_SHAPES[0])).scan(text)
    reported = {(h.rule.label, text[h.start : h.end]) for h in hits}
    assert {("au_tfn", "123 456 782"), ("au_acn", "004 085 616"), ("ca_sin", "130 692 544")} <= (
        reported
    )


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="12 -x\n", max_size=60),
    positions=st.lists(st.integers(0, 60), min_size=1, max_size=30),
    pattern=st.sampled_from([r"\p{Nd}{3}[ -]?\p{Nd}{3}", r"\b\d+\b", r"x?\d", r"(?:1|12)2*"]),
)
def test_a_remembered_search_answers_as_re2_does_from_every_position(
    text: str, positions: list[int], pattern: str
) -> None:
    """The shared search of a shape answers every search, in any order, as RE2 does: what it
    remembers from one position settles only the positions before that search's match."""
    import re2  # type: ignore[import-untyped]

    from govcore.detection.scanner import _UNANCHORED, _RememberedSearch

    data = text.encode()
    regexp = re2.compile(pattern)._regexp
    remembered = _RememberedSearch(regexp.Match)
    # The random searches first, then one from every position: each asked after answers
    # from positions before and after it are remembered.
    asked = [min(p, len(data)) for p in positions] + list(range(len(data) + 1))
    for position in asked:
        direct = regexp.Match(_UNANCHORED, data, position, len(data))[0]
        assert remembered(_UNANCHORED, data, position, len(data))[0] == direct, position
