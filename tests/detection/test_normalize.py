"""The normalisation (govcore/detection/normalize.py) against Unicode evasion of ``terms`` and
``regex`` rules (docs/detection.md, Evasion).

Terms match on a skeleton view: composed, full case folding, confusable prototypes outside
ASCII. Every hit must be a slice of the original text, whatever was folded, composed or mapped.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from govcore.core.violations import redact
from govcore.detection.normalize import normalize, skeleton_view
from govcore.detection.scanner import Scanner, compile_rules
from govcore.policy import PolicyDocument
from tests.support import policy

ACUTE, DIAERESIS, ZWSP, ZWJ, CGJ = "\u0301", "\u0308", "\u200b", "\u200d", "\u034f"


@cache
def _scanner(rules_json: str) -> Scanner:
    document = PolicyDocument.model_validate(policy("p", detect=json.loads(rules_json)))
    return compile_rules((document, rule) for rule in document.detect)


def found(rule: dict[str, Any], text: str) -> list[str]:
    """The original text of every hit of ``rule`` in ``text``; each hit is checked to be a span
    of ``text``."""
    hits = _scanner(json.dumps([rule], sort_keys=True)).scan(text)
    for hit in hits:
        assert 0 <= hit.start < hit.end <= len(text)
    return [text[hit.start : hit.end] for hit in hits]


def terms(*words: str) -> dict[str, Any]:
    return {"terms": list(words)}


# --- full case folding ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "text", "matched"),
    [
        ("straße", "Go down the STRASSE now", "STRASSE"),
        ("straße", "go down the strasse now", "strasse"),
        ("strasse", "go down the Straße now", "Straße"),
        ("STRASSE", "die straße.", "straße"),
        ("ﬁnal offer", "this is our FINAL OFFER", "FINAL OFFER"),
        ("final offer", "this is our ﬁnal offer", "ﬁnal offer"),
        ("σοφία", "ΣΟΦΊΑ", "ΣΟΦΊΑ"),  # final sigma and capital accented iota fold alike
    ],
)
def test_full_case_folding_both_ways(term: str, text: str, matched: str) -> None:
    assert found(terms(term), text) == [matched]


@pytest.mark.parametrize(
    "text",
    ["a strass e", "strasses", "strase", "the street"],
    ids=["split", "longer", "short", "other"],
)
def test_case_folding_near_misses(text: str) -> None:
    assert found(terms("straße"), text) == []


def test_turkish_dotted_capital_i_reads_as_i() -> None:
    """``İ`` folds to ``i`` (not i + a combining dot, which would make every such word a word of
    its own) and keeps one character for one in offsets."""
    assert found(terms("istanbul"), "İSTANBUL and İstanbul") == ["İSTANBUL", "İstanbul"]
    assert found(terms("İstanbul"), "from istanbul") == ["istanbul"]
    assert found(terms("dotless ıı"), "DOTLESS II") == ["DOTLESS II"]
    assert found(terms("istanbul"), "konstantinopel") == []


# --- canonical composition --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "text", "matched"),
    [
        ("café", "un cafe" + ACUTE + " noir", "cafe" + ACUTE),
        ("cafe" + ACUTE, "un café noir", "café"),
        ("ÉTÉ", "l'e" + ACUTE + "te" + ACUTE, "e" + ACUTE + "te" + ACUTE),
        ("naïve", "so nai" + DIAERESIS + "ve", "nai" + DIAERESIS + "ve"),
        # Invisible characters between a letter and its mark do not stop the composition.
        ("café", "un cafe" + ZWSP + ACUTE + " noir", "cafe" + ZWSP + ACUTE),
        ("café", "un cafe" + CGJ + ACUTE + " noir", "cafe" + CGJ + ACUTE),
    ],
)
def test_combining_and_precomposed_match_each_other(term: str, text: str, matched: str) -> None:
    assert found(terms(term), text) == [matched]


def test_a_mark_makes_another_letter() -> None:
    """``cafe`` is not ``café``, however the accent is written; and a mark that composes with
    nothing still belongs to its letter, so ``q`` + U+0301 is no ``q``."""
    assert found(terms("cafe"), "un café noir") == []
    assert found(terms("cafe"), "un cafe" + ACUTE + " noir") == []
    assert found(terms("cafe"), "un cafe noir") == ["cafe"]
    assert found(terms("q"), "q" + ACUTE) == []


@pytest.mark.parametrize(
    ("pattern", "text", "matched"),
    [
        (r"caf[eé] ", "un cafe" + ACUTE + " noir", "cafe" + ACUTE + " "),
        ("cafe" + ACUTE + r" [a-z]+", "un CAFÉ noir", "CAFÉ noir"),
        (r"é[a-z]+", "e" + ACUTE + "te", "e" + ACUTE + "te"),
    ],
)
def test_regex_rules_see_composed_text(pattern: str, text: str, matched: str) -> None:
    assert found({"regex": pattern}, text) == [matched]


def test_composition_offsets_cover_the_whole_sequence() -> None:
    normalized = normalize("x E" + ACUTE + "y")
    assert normalized.text == "x Éy"
    assert [normalized.original_span(p, p + 1) for p in range(4)] == [
        (0, 1),
        (1, 2),
        (2, 4),
        (4, 5),
    ]
    # No single character is E with acute and diaeresis: both characters of the composed form
    # stand for the whole sequence.
    normalized = normalize("x E" + ACUTE + DIAERESIS + "y")
    assert normalized.text == unicodedata.normalize("NFC", "x E" + ACUTE + DIAERESIS + "y")
    assert [normalized.original_span(p, p + 1) for p in (2, 3, 4)] == [(2, 5), (2, 5), (5, 6)]


# --- confusables ------------------------------------------------------------------------------

CYRILLIC_PAYPAL = "\u0440\u0430\u0443\u0440\u0430l"  # р а у р а + Latin l


@pytest.mark.parametrize(
    ("term", "text", "matched"),
    [
        ("paypal", f"log in to {CYRILLIC_PAYPAL} now", CYRILLIC_PAYPAL),
        (
            "paypal",
            "log in to \u0420\u0410\u0423\u0420\u0410L now",
            "\u0420\u0410\u0423\u0420\u0410L",
        ),
        ("open", "the \u043epen door", "\u043epen"),  # Cyrillic о
        ("open", "the \u03bfpen door", "\u03bfpen"),  # Greek omicron
        ("paypal", "log in to ｐａｙｐａｌ now", "ｐａｙｐａｌ"),  # full-width
        ("paypal", "log in to 𝐩𝐚𝐲𝐩𝐚𝐥 now", "𝐩𝐚𝐲𝐩𝐚𝐥"),  # mathematical bold
        ("paypal", "log in to 𝚙𝚊𝚢𝚙𝚊𝚕 now", "𝚙𝚊𝚢𝚙𝚊𝚕"),  # mathematical monospace
        (
            "guaranteed refund",
            "a gu\u0430r\u0430nteed r\u0435fund",
            "gu\u0430r\u0430nteed r\u0435fund",
        ),
        # A genuine non-Latin term still matches itself, and its look-alikes.
        ("привет", "скажи привет", "привет"),
        ("привет", "скажи ПРИВЕТ", "ПРИВЕТ"),
        # Both sides are skeletons: a term written with look-alikes matches plain text.
        (CYRILLIC_PAYPAL, "log in to paypal now", "paypal"),
    ],
)
def test_look_alikes_match_the_term(term: str, text: str, matched: str) -> None:
    assert found(terms(term), text) == [matched]


@pytest.mark.parametrize(
    ("term", "text"),
    [
        ("paypal", "log in to paypa1 now"),  # ASCII digit one: ASCII is left alone
        ("paypal", "log in to paypaI now"),  # ASCII capital i
        ("modern", "a rnodern house"),  # rn is not m in ASCII
        ("open", "the 0pen door"),
        ("open", "the \u043e\u043f\u0435\u043d door"),  # Cyrillic опен: п and н are no p and n
        ("paypal", "скажи привет"),  # a real Russian word
        ("hello", "скажи привет"),
        ("paypal", f"{CYRILLIC_PAYPAL}s"),  # still on word boundaries
    ],
)
def test_confusable_near_misses(term: str, text: str) -> None:
    assert found(terms(term), text) == []


def test_a_russian_word_matches_an_english_term_only_with_the_same_skeleton() -> None:
    """``сор`` (Russian: litter) is written with letters whose prototypes are c, o, p: its
    skeleton is ``cop`` and it reads as that word; ``мир`` has none and does not."""
    assert found(terms("cop"), "убери сор") == ["сор"]
    assert found(terms("mир"), "мир") == []  # Latin m is not Cyrillic м
    assert found(terms("mir"), "мир") == []


def test_skeleton_view_maps_back_to_the_original() -> None:
    text = "Log in: \u0420\u0430\u0443\u0440\u0430\u200bl, STRAẞE"
    view = skeleton_view(text)
    assert view.text == "log in: paypal, strasse"
    start = view.text.index("paypal")
    assert view.original_span(start, start + 6) == (8, 15)
    start = view.text.index("strasse")
    begin, end = view.original_span(start, start + 7)
    assert text[begin:end] == "STRAẞE"
    # Plain ASCII is only lower-cased: the look-alikes inside ASCII stay apart.
    assert skeleton_view("I l 1 0 O rn m").text == "i l 1 0 o rn m"


def test_redaction_of_a_confusable_match() -> None:
    scanner = _scanner(json.dumps([{"terms": ["paypal"], "replacement": "[brand]"}]))
    text = f"Log in to {CYRILLIC_PAYPAL}\u200b today"
    hits = scanner.scan(text)
    assert [text[h.start : h.end] for h in hits] == [CYRILLIC_PAYPAL]
    assert redact(text, hits, scanner) == "Log in to [brand]\u200b today"


def test_patterns_and_pii_are_not_skeletons() -> None:
    """Confusable prototypes are for terms: an email with Cyrillic letters is still found as
    written, and a card number is not made of look-alike letters."""
    email = "\u0430lice@example.com"
    assert found({"pii": "email"}, f"write to {email} today") == [email]
    assert found({"regex": "alice"}, f"write to {email}") == []


# --- properties -------------------------------------------------------------------------------

# Characters that may be slipped into a term without changing what it reads as.
INVISIBLE = [ZWSP, ZWJ, "\u00ad", "\u2060", "\ufeff", CGJ, "\ufe0f"]
LOOK_ALIKES = {
    "a": ["\u0430", "\u03b1", "ａ", "𝐚"],
    "e": ["\u0435", "ｅ", "𝐞"],
    "o": ["\u043e", "\u03bf", "ｏ", "𝐨"],
    "p": ["\u0440", "\u03c1", "ｐ"],
    "c": ["\u0441", "ｃ"],
    "y": ["\u0443", "ｙ"],
    "i": ["\u0456", "ｉ"],
    "r": ["ｒ", "𝐫"],
    "f": ["ｆ", "𝐟"],
    "d": ["ｄ", "\u0501"],
    "n": ["ｎ", "𝐧"],
    "u": ["ｕ", "𝐮"],
    "g": ["ｇ", "𝐠"],
    "t": ["ｔ", "𝐭"],
}
TERMS = ["paypal", "refund policy", "creditcard", "guaranteed"]
FILLER = st.lists(st.sampled_from(["the", "order", "is", "late,", "ok", "\n", "straße", "naïve"]))


@st.composite
def disguised(draw: st.DrawFn) -> tuple[str, str, str]:
    """A term, and that term disguised: letters swapped for look-alikes or upper case, and
    invisible characters or a composable mark's pieces slipped in between letters."""
    term = draw(st.sampled_from(TERMS))
    pieces: list[str] = []
    for index, char in enumerate(term):
        options = [char, char.upper(), *LOOK_ALIKES.get(char, [])]
        pieces.append(draw(st.sampled_from(options)))
        if 0 < index < len(term) - 1 and char != " " and term[index + 1] != " ":
            pieces.append("".join(draw(st.lists(st.sampled_from(INVISIBLE), max_size=2))))
    return term, "".join(pieces), draw(st.sampled_from(["", "x" + ACUTE + " "]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=disguised(), before=FILLER, after=FILLER)
def test_a_disguised_term_is_found_at_its_original_offsets(
    case: tuple[str, str, str], before: list[str], after: list[str]
) -> None:
    term, disguise, lead = case
    prefix = " ".join(before) + " " + lead
    text = prefix + disguise + " " + " ".join(after)
    hits = _scanner(json.dumps([terms(term)], sort_keys=True)).scan(text)
    assert [(h.start, h.end) for h in hits] == [(len(prefix), len(prefix) + len(disguise))]


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40))
def test_every_view_maps_each_character_into_the_original(text: str) -> None:
    """Whatever the text, each character of the normalised and skeleton views maps to a
    non-empty span of the original, in order."""
    for view in (normalize(text), skeleton_view(text)):
        previous = 0
        for position in range(len(view.text)):
            begin, end = view.original_span(position, position + 1)
            assert 0 <= begin < end <= len(text)
            assert begin >= previous
            previous = begin
