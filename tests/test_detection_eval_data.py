"""The labelled detection corpora are well formed and their labels keep the span conventions of
benchmarks/data/detection/README.md: the development corpus (benchmarks/data/detection/) and the
held-out one (benchmarks/data/detection-holdout/). The checks here are written independently of
govcore's detectors and of the scripts that generated the corpora; only the list of kinds is the
registry's, so that every built-in kind is labelled and measured."""

from __future__ import annotations

import ipaddress
import itertools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from govcore.detection.detectors import DETECTORS

BENCH_DATA = Path(__file__).resolve().parent.parent / "benchmarks" / "data"
ENTITIES = set(DETECTORS)  # the labels are the built-in kinds, and nothing else
CONTEXTS = {"prose", "code", "config", "log", "url", "table", "email-body", "json", "csv",
            "chat", "form", "html", "sql", "http", "markdown"}  # fmt: skip
LANGUAGES = {"en", "de", "fr", "es", "it", "ja", "pt", "nl", "ru", "pl", "zh", "ko", "ar", "he",
             "fi", "sv", "tr", "th", "hi", "ms", "tl", "cy", "ca"}  # fmt: skip
# Country -> IBAN length (ISO 13616 registry), for the countries the corpora use.
IBAN_LENGTHS = {"DE": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "GB": 22, "BE": 16, "CH": 21,
                "AT": 20, "PL": 28, "PT": 25, "IE": 22, "LU": 20, "NO": 15, "DK": 18, "SE": 24,
                "FI": 18, "CZ": 24, "SK": 24, "HU": 28, "RO": 24, "GR": 27, "HR": 21, "SI": 19,
                "LT": 20, "LV": 21, "EE": 20, "BG": 22, "MT": 31, "CY": 28, "SA": 24, "AE": 23,
                "IL": 23, "TR": 26, "BR": 29, "MC": 27, "LI": 21, "IS": 26, "QA": 29, "KW": 30,
                "UA": 29}  # fmt: skip


@dataclass(frozen=True)
class Corpus:
    """One corpus directory and the size it must keep."""

    name: str
    directory: Path
    expected_spans: tuple[int, int]  # inclusive bounds on the number of labelled spans
    min_families: int  # distinct secret families
    min_secrets: int
    min_per_family: int  # labelled spans of each secret family

    def cases(self) -> list[dict[str, Any]]:
        cases = []
        for path in sorted(self.directory.glob("*.yaml")):
            cases += yaml.safe_load(path.read_text(encoding="utf-8"))
        return cases


CORPORA = [
    Corpus("development", BENCH_DATA / "detection", (600, 4000), 40, 80, 3),
    # The held-out corpus is written blind, after the detectors.
    Corpus("held-out", BENCH_DATA / "detection-holdout", (1300, 3000), 25, 80, 2),
]
CASES_OF = {corpus.name: corpus.cases() for corpus in CORPORA}


@pytest.fixture(params=[corpus.name for corpus in CORPORA])
def corpus(request: pytest.FixtureRequest) -> Corpus:
    return next(c for c in CORPORA if c.name == request.param)


@pytest.fixture
def cases(corpus: Corpus) -> list[dict[str, Any]]:
    return CASES_OF[corpus.name]


@pytest.fixture
def expected(cases: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(case, item) for case in cases for item in case["expect"]]


def start_of(case: dict[str, Any], item: dict[str, Any]) -> int:
    start = -1
    for _ in range(item.get("occurrence", 1)):
        start = case["text"].find(item["text"], start + 1)
    return start


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def issuer_accepts(digits: str) -> bool:
    """A real issuer prefix with a length that issuer uses."""
    n = len(digits)

    def prefix_in(low: int, high: int) -> bool:
        width = len(str(low))
        return low <= int(digits[:width]) <= high

    rules = [
        (prefix_in(4, 4), {13, 16, 19}),
        (prefix_in(51, 55) or prefix_in(2221, 2720), {16}),
        (prefix_in(34, 34) or prefix_in(37, 37), {15}),
        (prefix_in(6011, 6011) or prefix_in(644, 649) or prefix_in(65, 65), set(range(16, 20))),
        (prefix_in(3528, 3589), set(range(16, 20))),
        (prefix_in(36, 36) or prefix_in(300, 305) or prefix_in(38, 39), set(range(14, 20))),
        (prefix_in(62, 62), set(range(16, 20))),
        (prefix_in(50, 50) or prefix_in(56, 69), set(range(12, 20))),
    ]
    return any(matches and n in lengths for matches, lengths in rules)


def mod97_valid(iban: str) -> bool:
    compact = iban.replace(" ", "")
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in moved)) % 97 == 1


def test_ids_are_unique_and_fields_are_known(cases: list[dict[str, Any]]) -> None:
    ids = Counter(case["id"] for case in cases)
    assert [i for i, n in ids.items() if n > 1] == []
    for case in cases:
        assert set(case) <= {"id", "text", "context", "language", "family", "expect"}, case["id"]
        assert case["context"] in CONTEXTS, case["id"]
        assert case["language"] in LANGUAGES, case["id"]
        assert isinstance(case["text"], str), case["id"]
        assert case["text"], case["id"]
        for item in case["expect"]:
            assert item["entity"] in ENTITIES, case["id"]
            assert set(item) <= {"entity", "family", "text", "occurrence"}, case["id"]
            assert ("family" in item) == (item["entity"] == "secret"), case["id"]


def test_every_expected_text_occurs_where_it_says(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for case, item in expected:
        text, needle = case["text"], item["text"]
        places = [i for i in range(len(text)) if text.startswith(needle, i)]
        assert places, f"{case['id']}: {needle!r} not in the text"
        if len(places) > 1:
            assert 1 <= item.get("occurrence", 0) <= len(places), f"{case['id']}: which {needle!r}?"
        else:
            assert item.get("occurrence", 1) == 1, case["id"]


def test_expected_spans_of_one_entity_do_not_overlap(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        spans = sorted(
            (item["entity"], start_of(case, item), start_of(case, item) + len(item["text"]))
            for item in case["expect"]
        )
        for (entity_a, _, end_a), (entity_b, start_b, _) in itertools.pairwise(spans):
            assert entity_a != entity_b or end_a <= start_b, case["id"]


def test_cards_are_luhn_valid_with_a_real_issuer_and_length(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    cards = [item["text"] for _, item in expected if item["entity"] == "credit_card"]
    for card in cards:
        assert re.fullmatch(r"\d+(?:[ -]\d+)*", card), card
        digits = re.sub(r"\D", "", card)
        assert luhn_valid(digits), card
        assert issuer_accepts(digits), card


def test_unlabelled_numbers_are_not_cards(cases: list[dict[str, Any]]) -> None:
    """A digit run outside every label that is a card by the conventions would be a missing
    label: near misses must really be near misses."""
    for case in cases:
        text = case["text"]
        labelled = [
            (start_of(case, item), start_of(case, item) + len(item["text"]))
            for item in case["expect"]
        ]
        for match in re.finditer(r"(?<![\w.-])\d(?:[ -]?\d){11,18}(?![\w])", text):
            if any(s < match.end() and match.start() < e for s, e in labelled):
                continue
            digits = re.sub(r"\D", "", match.group())
            assert not (luhn_valid(digits) and issuer_accepts(digits)), (case["id"], match.group())


def test_ibans_are_mod97_valid_with_their_country_length(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    ibans = [item["text"] for _, item in expected if item["entity"] == "iban"]
    for iban in ibans:
        assert re.fullmatch(r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]+)+", iban), iban
        compact = iban.replace(" ", "")
        assert len(compact) == IBAN_LENGTHS[compact[:2]], iban
        assert mod97_valid(iban), iban


def test_ssns_have_valid_area_group_and_serial(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for _, item in expected:
        if item["entity"] != "us_ssn":
            continue
        match = re.fullmatch(r"(\d{3})([- ]?)(\d{2})\2(\d{4})", item["text"])
        assert match, item["text"]
        area, group, serial = int(match[1]), int(match[3]), int(match[4])
        assert area not in (0, 666), item["text"]
        assert area < 900, item["text"]
        assert group != 0, item["text"]
        assert serial != 0, item["text"]


def test_ip_addresses_parse_without_port_or_brackets(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for _, item in expected:
        if item["entity"] != "ip_address":
            continue
        address = item["text"]
        assert not address.startswith("["), address
        assert not address.endswith((".", "]")), address
        if "/" in address:
            ipaddress.ip_network(address, strict=False)
        else:
            ipaddress.ip_address(address)  # a zone (fe80::1%eth0) parses too


def test_emails_are_the_address_alone(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for _, item in expected:
        if item["entity"] == "email":
            assert re.fullmatch(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", item["text"]), item["text"]
            assert not item["text"].lower().startswith("mailto:"), item["text"]


def test_phones_run_from_plus_paren_or_digit_to_a_digit(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for _, item in expected:
        if item["entity"] == "phone":
            # Full-width digits and dashes (Japanese forms) are checked in their ASCII form.
            number = unicodedata.normalize("NFKC", item["text"])
            assert re.fullmatch(r"[+(\d][\d ()./-]*\d", number), item["text"]
            assert len(re.sub(r"\D", "", number)) >= 7, item["text"]


def test_secret_values_have_no_quotes_and_key_blocks_are_whole(
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for case, item in expected:
        if item["entity"] != "secret":
            continue
        value = item["text"]
        assert value == value.strip(), value
        assert value[0] not in "'\"", value
        assert value[-1] not in "'\"", value
        if item["family"] in ("private_key_pem", "pgp_private_key_block"):
            assert re.match(r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----", value), case["id"]
            assert re.search(r"-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----$", value), case["id"]


def test_corpus_size_and_balance(
    corpus: Corpus,
    cases: list[dict[str, Any]],
    expected: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    counts = Counter(item["entity"] for _, item in expected)
    families = Counter(item["family"] for _, item in expected if item["entity"] == "secret")
    near_misses = sum(1 for case in cases if not case["expect"])
    low, high = corpus.expected_spans
    assert low <= len(expected) <= high
    assert near_misses * 3 >= len(cases)
    for entity in ENTITIES - {"secret"}:
        assert counts[entity] >= 30, entity
    assert counts["secret"] >= corpus.min_secrets
    assert all(n >= corpus.min_per_family for n in families.values()), families
    assert len(families) >= corpus.min_families


def test_unlabelled_text_holds_no_valid_iban(cases: list[dict[str, Any]]) -> None:
    """A mod-97-valid IBAN of its country's exact length outside every label would be a missing
    label (near misses are wrong check digits, wrong lengths, unknown countries)."""
    for case in cases:
        text = case["text"]
        labelled = [
            (start_of(case, item), start_of(case, item) + len(item["text"]))
            for item in case["expect"]
        ]
        for match in re.finditer(r"(?<![A-Za-z0-9])([A-Z]{2})\d\d", text):
            length = IBAN_LENGTHS.get(match[1])
            if length is None:
                continue
            # Read on over single spaces until the country's length is reached.
            compact, end = "", match.start()
            while end < len(text) and len(compact) < length:
                char = text[end]
                if char.isascii() and char.isalnum():
                    compact += char.upper() if char.isalpha() else char
                elif not (char == " " and compact and end + 1 < len(text) and text[end + 1] != " "):
                    break
                end += 1
            if len(compact) != length or any(s < end and match.start() < e for s, e in labelled):
                continue
            assert not (compact.isalnum() and mod97_valid(compact)), (case["id"], compact)


def test_ids_differ_between_the_corpora() -> None:
    ids = [case["id"] for corpus in CORPORA for case in CASES_OF[corpus.name]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("number", "is_card"),
    [
        ("4111111111111111", True),
        ("378282246310005", True),
        ("4111111111111112", False),  # Luhn-invalid
        ("341111111111100", False),  # Amex prefix, Luhn-invalid
        ("3411111111111102", False),  # Amex prefix, Luhn-valid, but 16 digits
        ("1700000000004", False),  # a Luhn-valid millisecond timestamp: no issuer
    ],
)
def test_the_card_check_itself(number: str, is_card: bool) -> None:
    """The checks above reject what they should (a check that accepts everything proves nothing)."""
    assert (luhn_valid(number) and issuer_accepts(number)) is is_card


def test_the_iban_check_itself() -> None:
    assert mod97_valid("DE89 3704 0044 0532 0130 00")
    assert not mod97_valid("DE88 3704 0044 0532 0130 00")
