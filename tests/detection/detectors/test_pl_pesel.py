"""The ``pl_pesel`` detector (govcore/detection/detectors/pl_pesel.py): the check digit, the
date with its century in the month, and the weight of the word "PESEL"."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

PESEL = {"pii": "pl_pesel"}


def pesel(year: int, month: int, day: int, serial: str) -> str:
    """Reference: the month is shifted by 80, 0, 20, 40 or 60 for the centuries 1800 to 2200;
    the check digit is 10 minus the last digit of the weighted sum (weights 1 3 7 9 ...)."""
    shift = {18: 80, 19: 0, 20: 20, 21: 40, 22: 60}[year // 100]
    body = f"{year % 100:02d}{month + shift:02d}{day:02d}{serial}"
    total = sum(int(c) * w for c, w in zip(body, [1, 3, 7, 9] * 3, strict=False))
    return body + str((10 - total % 10) % 10)


VALID = [
    pesel(1944, 5, 14, "0135"),
    pesel(2002, 7, 31, "4562"),
    pesel(1899, 12, 1, "1111"),
    pesel(2000, 2, 29, "0007"),
    pesel(1987, 11, 30, "9870"),
]


def test_the_reference_values() -> None:
    assert VALID[0] == "44051401359"  # the Ministry of Digital Affairs' example
    assert VALID[1][2:4] == "27"


@pytest.mark.parametrize("number", VALID)
def test_after_the_word_it_is_found_at_full_confidence(number: str) -> None:
    for text in (f"PESEL: {number}", f"Numer PESEL pacjenta {number}."):
        [hit] = scanner(PESEL).scan(text)
        assert text[hit.start : hit.end] == number
        assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("number", VALID)
def test_without_the_word_it_is_weighed(number: str) -> None:
    [hit] = scanner(PESEL).scan(f"id {number} ok")
    assert hit.confidence == pytest.approx(0.9 * 0.8)


def wrong_check(number: str) -> str:
    return number[:10] + str((int(number[10]) + 1) % 10)


@pytest.mark.parametrize(
    "number",
    [
        wrong_check(VALID[0]),
        pesel(2001, 2, 29, "0001"),  # 2001 is no leap year
        pesel(1950, 4, 31, "1234"),  # 31 April
        pesel(2100, 2, 29, "1234"),  # 2100 is no leap year (2000 was)
        "44131401358",  # month 13
        VALID[0][:10],
        VALID[0] + "1",
    ],
)
def test_near_misses_are_not_found(number: str) -> None:
    assert found(PESEL, f"PESEL {number}") == []


def test_glued_and_in_json() -> None:
    assert found(PESEL, f"x{VALID[0]}") == []
    assert found(PESEL, f'{{"pesel": "{VALID[1]}"}}') == [VALID[1]]
