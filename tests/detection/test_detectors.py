"""Unit tests of each built-in detector, ``terms`` and ``regex`` rules (contract §2, docs/detection.md).

Each detector is compiled on its own with ``govcore.detection.scanner.compile_rules`` and run on valid
values and on near misses. Every hit is checked to be a span of the original text:
``text[start:end]`` is what the caller sent, invisible and full-width characters included.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.detection.detectors.iban import mod97_valid
from govcore.detection.scanner import Scanner, compile_rules, explain
from govcore.policy import PolicyDocument
from tests.support import policy

ZWSP, SOFT_HYPHEN, RLO, TAG_A, WORD_JOINER = "\u200b", "\u00ad", "\u202e", "\U000e0041", "\u2060"


@cache
def _scanner(rules_json: str) -> Scanner:
    document = PolicyDocument.model_validate(policy("p", detect=json.loads(rules_json)))
    return compile_rules((document, rule) for rule in document.detect)


def scanner(*rules: dict[str, Any]) -> Scanner:
    """A scanner of one policy with ``rules`` (cached per rule set)."""
    return _scanner(json.dumps(rules, sort_keys=True))


def found(rule: dict[str, Any], text: str) -> list[str]:
    """The original text of every hit of ``rule`` in ``text``, in order."""
    return [text[hit.start : hit.end] for hit in scanner(rule).scan(text)]


CARD = {"pii": "credit_card"}
IBAN = {"pii": "iban"}
EMAIL = {"pii": "email"}
PHONE = {"pii": "phone"}
SSN = {"pii": "us_ssn"}
IP = {"pii": "ip_address"}
SECRET = {"pii": "secret"}


# --- credit_card ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "card",
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111111111111111",
        "4111.1111.1111.1111",
        "4111\u20131111\u20131111\u20131111",
        "５５００ ００００ ００００ ０００４",
        "٤١١١١١١١١١١١١١١١",
        "४१११११११११११११११",
        "378282246310005",
        "3782 822463 10005",
        "4222222222222",
        "6011111111111117",
        f"4111{ZWSP}1111{ZWSP}1111{ZWSP}1111",
        f"4111{SOFT_HYPHEN}1111 1111 1111",
    ],
)
def test_luhn_valid_card_numbers_are_found_whole(card: str) -> None:
    """A Luhn-valid card number in any script and with any usual separators is one match."""
    assert found(CARD, f"my card is {card}, thanks") == [card]


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",
        "4111-1111-1111-1113",
        "4111111111111112",
        "0000 0000 0000 0000",
        "1234 5678 9012 3456",
        "4111 1111 1111 11",
        "12345678901234567890123",
        "41111111111111110000000",
        "x4111111111111111",
        "4111111111111111x",
        "order 99999999999999999999999 shipped",
        "٤١١١١١١١١١١١١١١٢",
    ],
)
def test_card_near_misses_are_not_found(text: str) -> None:
    """Luhn-invalid numbers, one-digit runs, too short or too long runs and glued digits are no cards."""
    assert found(CARD, text) == []


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("card 4111111111111111 2025", "4111111111111111"),
        ("card 4111 1111 1111 1111 2025", "4111 1111 1111 1111"),
        ("card 4111-1111-1111-1111-2025", "4111-1111-1111-1111"),
        ("card 4111111111111111 12/26", "4111111111111111"),
        ("card 4111111111111111/2025", "4111111111111111"),
        ("card 4111 1111 1111 1111 12345678", "4111 1111 1111 1111"),
    ],
)
def test_card_followed_by_a_year_is_shortened_to_the_card(text: str, card: str) -> None:
    """A card number followed by an expiry year or more digits matches only the card."""
    assert found(CARD, text) == [card]


@pytest.mark.parametrize(
    "separator",
    [" ", ", ", " and ", "\n", ",", " / "],
    ids=["sp", "comma-sp", "and", "nl", ",", "/"],
)
def test_two_cards_in_a_row_are_two_matches(separator: str) -> None:
    """Two cards one after the other are reported as two matches, each whole."""
    text = f"4111111111111111{separator}5500 0000 0000 0004"
    assert found(CARD, text) == ["4111111111111111", "5500 0000 0000 0004"]


# --- iban -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "iban",
    [
        "GB82 WEST 1234 5698 7654 32",
        "GB82WEST12345698765432",
        "gb82west12345698765432",
        "gb82 west 1234 5698 7654 32",
        "DE89370400440532013000",
        "DE89 3704 0044 0532 0130 00",
        "FR14 2004 1010 0505 0001 3M02 606",
        "NL91ABNA0417164300",
        f"GB82{ZWSP}WEST12345698765432",
    ],
)
def test_checksum_valid_ibans_are_found(iban: str) -> None:
    """An IBAN with a valid mod-97 checksum is found with and without spaces, in any case."""
    assert found(IBAN, f"IBAN: {iban}.") == [iban]


@pytest.mark.parametrize(
    "text",
    [
        "GB83 WEST 1234 5698 7654 32",
        "GB82WEST12345698765433",
        "DE88370400440532013000",
        "XGB82WEST12345698765432",
        "GB82WEST12345698765432X",
        "GB82 WEST 1234",
    ],
)
def test_ibans_with_wrong_checksum_or_glued_are_not_found(text: str) -> None:
    """A wrong check digit, a glued letter or a truncated IBAN is not an IBAN."""
    assert found(IBAN, text) == []


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet="0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ٣۷", max_size=80
    )
)
def test_mod97_agrees_with_base36_arithmetic(candidate: str) -> None:
    """The IBAN checksum (fast path for ASCII, digit by digit otherwise) equals the ISO 13616
    definition: letters as 10..35, the first four characters moved to the end, mod 97 is 1."""
    rearranged = candidate[4:] + candidate[:4]
    digits = "".join(
        str(int(c, 36)) if c.isascii() else str(unicodedata.digit(c)) for c in rearranged
    )
    expected = bool(digits) and int(digits) % 97 == 1
    assert mod97_valid(candidate) is expected


# --- email ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "email",
    [
        "a+tag@x.com",
        "john.doe@mail.sub.example.co.uk",
        "first_last@ex-ample.io",
        '"john doe"@example.com',
        '"odd..dots"@example.com',
        "user@[192.168.0.1]",
        "josé@exämple.de",
        "Ünïcödé@Bücher.de",
        "用户@例子.广告",
        "UPPER.Case@Example.COM",
        f"jane{ZWSP}.doe@example.com",
    ],
)
def test_legal_emails_are_found_whole(email: str) -> None:
    """Plus addressing, subdomains, quoted local parts, IP literals and Unicode are emails."""
    assert found(EMAIL, f"write to {email} today") == [email]


@pytest.mark.parametrize(
    "text",
    ["a..b@x.com", "@x.com", "a.@x.com", ".a@x.com", "x@y", "user@-x.com", "user@x-.com", "@"],
)
def test_non_emails_are_not_found(text: str) -> None:
    """Double or edge dots, a missing local part, no top-level domain or bad labels are no email."""
    assert found(EMAIL, text) == []


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("请联系jane@example.com谢谢", "jane@example.com"),
        ("请联系jane.doe@mail.example.co.uk。谢谢", "jane.doe@mail.example.co.uk"),
        ("メールはtaro@example.jpまで", "taro@example.jp"),
        ("연락처john@example.com입니다", "john@example.com"),
        ("ติดต่อsomchai@example.co.thครับ", "somchai@example.co.th"),
        ("用户@例子.广告", "用户@例子.广告"),
        ("请联系用户@例子.广告", "请联系用户@例子.广告"),
    ],
)
def test_email_glued_to_spaceless_script_is_cut_at_the_script_change(text: str, email: str) -> None:
    """Chinese, Japanese, Korean or Thai prose runs into an address without a space; the words
    are not part of the address, so they are neither reported nor redacted. An address wholly in
    such a script cannot be told from its neighbours and is kept whole."""
    assert found(EMAIL, text) == [email]


def test_email_with_ipv6_literal_domain_is_found() -> None:
    """An RFC 5321 IPv6 address literal (`user@[IPv6:2001:db8::1]`) is an IP-literal email."""
    email = "user@[IPv6:2001:db8::1]"
    assert found(EMAIL, f"write to {email} today") == [email]


# --- phone ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "phone",
    [
        "+44 20 7946 0958",
        "+1 415 555 2671",
        "+1 415-555-2671",
        "+1 (415) 555 2671",
        "(415) 555-2671",
        "020 7946 0958",
        "+1\u00a0415\u00a0555\u00a02671",
    ],
)
def test_phone_numbers_are_found_with_shape_confidence(phone: str) -> None:
    """International and national numbers are found, at 0.7 of the rule's confidence."""
    hits = scanner(PHONE).scan(f"call {phone} now")
    assert [f"call {phone} now"[h.start : h.end] for h in hits] == [phone]
    assert hits[0].confidence == pytest.approx(0.9 * 0.7)


@pytest.mark.parametrize("phone", ["+14155552671", "+442079460958", "+4930901820"])
def test_e164_phone_numbers_without_separators_are_found(phone: str) -> None:
    """A number in canonical E.164 form (plus sign and digits only) is a phone number."""
    assert found(PHONE, f"call {phone} now") == [phone]


@pytest.mark.parametrize(
    "text",
    [
        "on 2023-01-15 at noon",
        "due 15.01.2023",
        "due 01/15/2023",
        "due 1/5/23",
        "host 192.168.1.1",
        "host 10.0.0.1",
        "version 1.2.3.4",
        "at 12:30:45",
        "call 123 45",
    ],
)
def test_dates_and_ip_addresses_are_not_phone_numbers(text: str) -> None:
    """Dates, dotted quads, times and too-short digit groups are not phone numbers."""
    assert found(PHONE, text) == []


@pytest.mark.parametrize("text", ["meet on 2023-01-15 10:30 please", "released 2023.01.15"])
def test_dates_with_a_time_or_dots_are_not_phone_numbers(text: str) -> None:
    """An ISO date followed by a time, or a year-first date with dots, is not a phone number."""
    assert found(PHONE, text) == []


# --- us_ssn ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ssn", "factor"),
    [
        ("123-45-6789", 1.0),
        ("078-05-1120", 1.0),
        ("219 09 9999", 1.0),
        ("219.09.9999", 1.0),
        ("899-12-3456", 1.0),
        ("123456789", 0.8),
    ],
)
def test_valid_ssns_are_found(ssn: str, factor: float) -> None:
    """Valid area, group and serial are an SSN; without separators at 0.8 of the confidence."""
    text = f"reference {ssn}."
    hits = scanner(SSN).scan(text)
    assert [text[h.start : h.end] for h in hits] == [ssn]
    assert hits[0].confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        "000-12-3456",
        "666-12-3456",
        "900-12-3456",
        "999-12-3456",
        "123-00-4567",
        "123-45-0000",
        "123-45 6789",
        "123-45-67890",
        "1234-5-6789",
        "a123-45-6789",
    ],
)
def test_invalid_ssns_are_not_found(text: str) -> None:
    """Area 000, 666 or 9xx, group 00, serial 0000, mixed separators or glued digits are no SSN."""
    assert found(SSN, text) == []


# --- ip_address -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "192.168.1.1",
        "10.0.0.255",
        "8.8.8.8",
        "2001:db8::1",
        "::1",
        "fe80::1ff:fe23:4567:890a",
        "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
        "１９２.１６８.１.１",
    ],
)
def test_ip_addresses_are_found(address: str) -> None:
    """Dotted quads and IPv6 addresses (also in full-width digits) are IP addresses."""
    assert found(IP, f"host {address} is up") == [address]


@pytest.mark.parametrize(
    "text",
    ["999.1.1.1", "256.1.1.1", "1.2.3", "1.2.3.4.5", "gggg::1", "12:30:45", "std::vector"],
)
def test_invalid_ip_addresses_are_not_found(text: str) -> None:
    """Octets above 255, too few or too many parts and non-hex groups are no IP address."""
    assert found(IP, text) == []


def test_ipv4_mapped_ipv6_address_is_found() -> None:
    """An IPv4-mapped IPv6 address (`::ffff:192.168.1.1`) is found as an IP address."""
    assert found(IP, "host ::ffff:192.168.1.1 is up") == ["::ffff:192.168.1.1"]


# --- secret ---------------------------------------------------------------------------------

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA4f5wg5l2hKsTeNem/V41fGnJm6gOdrj8ym3rFkEU/wT8RDtn\n"
    "SgFEZOQpHEgQ7JL38xUfU0Y3g6aYw9QT0hJ7mCpz9Er5qLaMXJwZxzHzAahlfA0i\n"
    "-----END RSA PRIVATE KEY-----"
)
SECRETS = [
    "AKIAZ4QW7RT2LX5PJN3K",
    "ghp_" + "a1B2c3D4e5" * 4,
    "github_pat_" + "A" * 30,
    "xoxb-1234567890-abcdefghij",
    "xoxp-123456789012-abcdefghijkl",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "rk_test_" + "a" * 20,
    "glpat-" + "x7Rq" * 5,
    "AIza" + "B" * 35,
    JWT,
    PRIVATE_KEY,
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
]


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s[:12])
def test_secrets_of_common_formats_are_found_whole(secret: str) -> None:
    """AWS, GitHub, Slack, Stripe, GitLab, Google keys, JWTs and private-key blocks are secrets."""
    assert found(SECRET, f"use {secret} to log in") == [secret]


@pytest.mark.parametrize("hidden", [ZWSP, SOFT_HYPHEN, RLO, TAG_A, WORD_JOINER, "\ufeff"])
@pytest.mark.parametrize(
    "secret",
    ["AKIAZ4QW7RT2LX5PJN3K", "ghp_" + "a1B2c3D4e5" * 4, "xoxb-1234567890-abcdefghij", JWT],
    ids=lambda s: s[:6],
)
def test_secrets_split_by_invisible_characters_are_found(secret: str, hidden: str) -> None:
    """A secret with an invisible character inside is found, the invisible character included."""
    split = secret[:4] + hidden + secret[4:9] + hidden + secret[9:]
    assert found(SECRET, f"key: {split} ok") == [split]


def test_private_key_split_by_invisible_characters_is_found() -> None:
    """A private-key block with zero-width characters in its header is found whole."""
    block = PRIVATE_KEY.replace("PRIVATE KEY", f"PRI{ZWSP}VATE{SOFT_HYPHEN} KEY", 1)
    assert found(SECRET, f"here:\n{block}\nbye") == [block]


@pytest.mark.parametrize(
    "secret",
    ["ｇｈｐ＿" + "ａ１ｂ２" * 9, "ＡＫＩＡＺ４ＱＷ７ＲＴ２ＬＸ５ＰＪＮ３Ｋ", "ｅｙＪ" + JWT[3:]],
    ids=["github", "aws", "jwt"],
)
def test_secrets_in_full_width_letters_are_found(secret: str) -> None:
    """A secret written in full-width letters and digits is found like its ASCII form."""
    assert found(SECRET, f"key {secret} ok") == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "AKIA1234",
        "akiaiosfodnn7example",
        "xAKIAZ4QW7RT2LX5PJN3K",
        "ghp_short",
        "sk_live_short",
        "-----BEGIN RSA PRIVATE KEY-----\nshort\n",
        "the header -----BEGIN PRIVATE KEY----- on its own",
        "eyJhbGciOiJIUzI1NiJ9",
    ],
)
def test_secret_near_misses_are_not_found(text: str) -> None:
    """Too-short keys, wrong case, glued prefixes and a key header without key lines are no
    secret."""
    assert found(SECRET, text) == []


KEY_LINES = "MIIEowIBAAKCAQEAx7u0Xj2yqVZp\nQ3k9vY2nB8s7T6f5eR4w3q2p1o0n"


@pytest.mark.parametrize(
    ("block", "after"),
    [
        (f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINES}", ""),
        (f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINES}", "\nThanks, that is all"),
        (f"-----BEGIN PRIVATE KEY-----\r\n{KEY_LINES.replace(chr(10), chr(13) + chr(10))}", " ok"),
        ("-----BEGIN PRIVATE KEY-----\\nMIIEowIBAAKCAQEAx7u0Xj2yqVZp\\nQ3k9vY2nB8s7T6f5eR4", '"}'),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B"
            f"\n\n{KEY_LINES}",
            "",
        ),
    ],
)
def test_private_key_block_cut_short_is_found(block: str, after: str) -> None:
    """A block whose END line never comes (an output cut short, or JSON with escaped line
    breaks) is a secret up to its last line of key material; the prose after it is not."""
    assert found(SECRET, f"here:\n{block}{after}") == [block]


def test_credential_assignment_is_a_weaker_secret() -> None:
    """`password: ...` is found at 0.7 of the rule's confidence: the value, not the key."""
    text = "config: password: hunter2hunter2 done"
    hits = scanner(SECRET).scan(text)
    assert [text[h.start : h.end] for h in hits] == ["hunter2hunter2"]
    assert hits[0].confidence == pytest.approx(0.9 * 0.7)


# --- terms ----------------------------------------------------------------------------------

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


# --- regex ----------------------------------------------------------------------------------


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


# --- offsets into the original text ----------------------------------------------------------

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
    ("text", "address"),
    [
        ("connect to 10.1.2.3:8080 now", "10.1.2.3"),
        ("see http://10.1.2.3:8080/x", "10.1.2.3"),
        ("ip:10.1.2.3", "10.1.2.3"),
        ("::ffff:10.1.2.3", "::ffff:10.1.2.3"),
    ],
)
def test_ipv4_address_next_to_a_colon_is_found(text: str, address: str) -> None:
    """A port after a dotted quad, or a label before it, does not hide the address."""
    assert found(IP, text) == [address]


def test_version_numbers_are_not_ip_addresses() -> None:
    assert found(IP, "release 1.2.3.4.5 and v1.2.3.4") == []


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
    ("text", "emails"),
    [
        ("https://john@example.com/", []),
        ("postgres://app:S3cr3t-pw@db.example.com:5432/x", []),
        ("https://ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u@github.com/o/r.git", []),
        ("ftp://files.example/b@example.com", ["b@example.com"]),
        ("mailto:jane@example.com", ["jane@example.com"]),
        ("https://x.example/contact?email=jane@example.com&x=1", ["jane@example.com"]),
    ],
)
def test_a_urls_login_is_not_an_email_address(text: str, emails: list[str]) -> None:
    """``scheme://user@host`` and ``scheme://user:password@host`` are a URL's login (a password
    there is a secret); an address in a path, a query or after ``mailto:`` is an address."""
    assert found(EMAIL, text) == emails


@pytest.mark.parametrize(
    ("text", "emails"),
    [
        ("see logo@2x.png and icon@3x.jpg", []),
        ("write to team@studio.photography", ["team@studio.photography"]),
        ("write to a@xn--d1acufc.xn--p1ai", ["a@xn--d1acufc.xn--p1ai"]),
        (
            "docs use jane@corp.example and ops@db.internal",
            ["jane@corp.example", "ops@db.internal"],
        ),
        ("email@domain.web is no address", []),
        ("user=hiro+billing@studio.example.fr", ["hiro+billing@studio.example.fr"]),
        ("root@192.0.2.7 and x@111.222.333.44444", ["root@192.0.2.7"]),
    ],
)
def test_email_domains_that_exist(text: str, emails: list[str]) -> None:
    """An ASCII top-level domain must exist (or be a special-use name such as ``example``,
    ``test``, ``local`` or ``internal``); a bare IPv4 domain must be an address; a ``key=``
    before the address is the setting's, not the address's."""
    assert found(EMAIL, text) == emails


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


def test_a_value_glued_to_plain_text_stays_refused() -> None:
    """The card number in an order reference is still no card number."""
    assert found(CARD, "ref ORDER4111111111111111 ok") == []


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


def test_iban_right_after_a_key_is_found() -> None:
    """An IBAN candidate that starts inside the key before it must not swallow the IBAN."""
    text = "sk_live_4eC39HqLyjWDarjtT1zdp7dc GB82 WEST 1234 5698 7654 32 now"
    assert found(IBAN, text) == ["GB82 WEST 1234 5698 7654 32"]


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


@pytest.mark.parametrize(
    ("block", "after"),
    [
        (f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINES}\nabc=", "\nThanks"),
        (
            "-----BEGIN PRIVATE KEY-----\\r\\nMIIEowIBAAKCAQEAx7u0Xj2yqVZp\\r\\nQ3k9vY2nB8s7T6f5eR4w",
            '"',
        ),
    ],
    ids=["short-padded-last-line", "json-escaped-crlf"],
)
def test_private_key_block_cut_short_keeps_its_last_line_and_escaped_breaks(
    block: str, after: str
) -> None:
    assert found(SECRET, f"key: {block}{after}") == [block]
