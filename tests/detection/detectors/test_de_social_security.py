"""The ``de_social_security`` detector (govcore/detection/detectors/de_social_security.py): the
pension insurance number's check digit, the date inside it and its written forms."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

SVNR = {"pii": "de_social_security"}


def complete(area: str, ddmmyy: str, letter: str, serial: str) -> str:
    """Reference: the letter as its two-digit place in the alphabet; weights 2 1 2 5 7 1 2 1 2 1 2
    1; the digit sums of the products added; the last digit of the total is the check."""
    digits = area + ddmmyy + f"{ord(letter) - ord('A') + 1:02d}" + serial
    weights = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1]
    total = sum(sum(map(int, str(int(d) * w))) for d, w in zip(digits, weights, strict=True))
    return f"{area}{ddmmyy}{letter}{serial}{total % 10}"


VALID = [
    complete("65", "170839", "J", "00"),
    complete("12", "010190", "M", "51"),
    complete("53", "290200", "S", "07"),
    complete("04", "311275", "Z", "99"),
]


def test_the_reference_values() -> None:
    assert VALID[0] == "65170839J003"  # Deutsche Rentenversicherung's example


def spaced(number: str) -> str:
    return f"{number[:2]} {number[2:8]} {number[8]} {number[9:]}"


@pytest.mark.parametrize("number", VALID)
def test_found_anywhere_in_both_forms(number: str) -> None:
    for written in (number, spaced(number)):
        text = f"Versicherungsnummer {written} liegt vor"
        [hit] = scanner(SVNR).scan(text)
        assert text[hit.start : hit.end] == written
        assert hit.confidence == pytest.approx(0.9)
    assert found(SVNR, f'{{"svnr": "{number}"}}') == [number]


@pytest.mark.parametrize(
    "number",
    [
        VALID[0][:11] + str((int(VALID[0][11]) + 1) % 10),  # wrong check
        complete("65", "320839", "J", "00"),  # day 32
        complete("65", "171339", "J", "00"),  # month 13
        "65170839j003",  # lower-case letter
        "6517083J9003",
        VALID[0] + "7",
    ],
)
def test_near_misses_are_not_found(number: str) -> None:
    assert found(SVNR, f"Nr {number} ok") == []
