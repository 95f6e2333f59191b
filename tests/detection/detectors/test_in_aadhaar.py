"""The ``in_aadhaar`` detector (govcore/detection/detectors/in_aadhaar.py): twelve digits, the
first 2 to 9, the Verhoeff check; groups of four at full confidence, a bare run weaker."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_verhoeff, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "in_aadhaar"}
NUMBERS = [
    complete_verhoeff(b) for b in ("23456789012", "49183027561", "87650012349", "50000000001")
]


def _grouped(number: str, sep: str = " ") -> str:
    return sep.join((number[:4], number[4:8], number[8:]))


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize(
    ("template", "form", "factor"),
    [
        ("ID {} verified", "spaces", 1.0),
        ("ID {} verified", "hyphens", 1.0),
        ("ID {} verified", "colons", 1.0),
        ("ID {} verified", "bare", 0.7),
        ("Aadhaar: {}", "bare", 1.0),
        ("मेरा आधार नंबर {} है", "spaces", 1.0),
        ('{{"uid": "{}"}}', "bare", 1.0),
    ],
)
def test_valid_numbers_are_found(number: str, template: str, form: str, factor: float) -> None:
    """Valid numbers are found grouped, hyphenated, bare (weaker) and after their name in English or Hindi."""
    value = {
        "spaces": _grouped(number),
        "hyphens": _grouped(number, "-"),
        "colons": _grouped(number, ":"),
    }.get(form, number)
    text = template.format(value)
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == value
    assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        f"Aadhaar {wrong_last(NUMBERS[0])}",
        f"Aadhaar {_grouped(wrong_last(NUMBERS[1]))}",
        f"Aadhaar {complete_verhoeff('12345678901')}",  # first digit 1
        f"Aadhaar {complete_verhoeff('03456789012')}",  # first digit 0
        f"Aadhaar {NUMBERS[0]}4",
        f"Aadhaar {NUMBERS[0][:11]}",
        f"Aadhaar {NUMBERS[0][:4]} {NUMBERS[0][4:8]}-{NUMBERS[0][8:]}",
        f"Aadhaar {NUMBERS[0][:3]} {NUMBERS[0][3:8]} {NUMBERS[0][8:]}",
        f"Aadhaar x{NUMBERS[2]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A failed Verhoeff check, a first digit 0 or 1, a wrong length, other groups or mixed separators are no Aadhaar number."""
    assert found(RULE, text) == []


def test_the_last_twelve_digits_of_a_longer_grouped_number_are_not_one() -> None:
    """Groups of four continuing a card number or an account number hold no Aadhaar number."""
    number = NUMBERS[0]
    assert found(RULE, f"card 4111 {_grouped(number)} exp") == []
    assert found(RULE, f"account {_grouped(number)} 0042") == []


def test_a_colon_joined_run_of_more_groups_is_no_aadhaar_number() -> None:
    """Colons join the groups of a longer run too (an IPv6 address, a key): one more group on
    either side and the twelve digits are a part of it."""
    grouped = _grouped(NUMBERS[0], ":")
    assert found(RULE, f"key {grouped}:1234") == []
    assert found(RULE, f"key 1234:{grouped}") == []
    assert found(RULE, f"key {grouped[:9]} {grouped[10:]}") == []  # mixed separators


@pytest.mark.parametrize(
    "template",
    [
        '{{"name": "R. Sharma", "aadhaar":{}}}',
        "UID:{}",
        "Aadhaar:{}",
        "Aadhaar is {}: please verify",
    ],
)
def test_a_colon_after_a_key_or_ending_a_clause_is_no_run(template: str) -> None:
    for value in (NUMBERS[0], _grouped(NUMBERS[0])):
        assert found(RULE, template.format(value)) == [value]


def test_an_account_id_inside_an_arn_is_no_aadhaar_number() -> None:
    assert found(RULE, f"arn:aws:iam::{NUMBERS[0]}:role/deploy") == []
