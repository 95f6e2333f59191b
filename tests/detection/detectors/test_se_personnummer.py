"""The ``se_personnummer`` detector (govcore/detection/detectors/se_personnummer.py): Luhn over
ten digits, the date (and coordination numbers), the separators, and the word before bare
digits."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

PNR = {"pii": "se_personnummer"}


def personnummer(yymmdd: str, serial: str) -> str:
    """Reference: the Swedish Tax Agency's check, Luhn with weights 2 1 2 1 ... over nine digits."""
    body = yymmdd + serial
    total = 0
    for index, char in enumerate(body):
        product = int(char) * (2 if index % 2 == 0 else 1)
        total += product // 10 + product % 10
    return body + str((10 - total % 10) % 10)


VALID = [
    personnummer("811228", "987"),
    personnummer("121212", "121"),
    personnummer("000229", "456"),
    personnummer("700771", "238"),  # a coordination number: day 11 + 60
    personnummer("701291", "238"),  # and day 31 + 60
]


def test_the_reference_values() -> None:
    assert VALID[0] == "8112289874"  # the Tax Agency's example
    assert VALID[1] == "1212121212"


def dashed(number: str, sep: str = "-") -> str:
    return f"{number[:6]}{sep}{number[6:]}"


@pytest.mark.parametrize("number", VALID)
def test_with_a_separator_it_is_found_anywhere(number: str) -> None:
    century = "20" if number.startswith("00") else "19"  # 29 February 1900 did not exist
    for written in (dashed(number), dashed(number, "+"), century + dashed(number)):
        text = f"Kund {written} registrerad."
        [hit] = scanner(PNR).scan(text)
        assert text[hit.start : hit.end] == written
        assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("number", VALID)
def test_twelve_bare_digits_are_weighed_and_ten_need_the_word(number: str) -> None:
    century = "20" if number.startswith("00") else "19"
    [hit] = scanner(PNR).scan(f"id {century}{number} ok")
    assert hit.confidence == pytest.approx(0.9 * 0.8)
    assert found(PNR, f"order {number} ok") == []
    assert found(PNR, f"Personnummer: {number}") == [number]


@pytest.mark.parametrize(
    "text",
    [
        dashed(VALID[0][:9] + str((int(VALID[0][9]) + 1) % 10)),  # wrong check
        dashed(personnummer("811328", "987")),  # month 13
        dashed(personnummer("010229", "987")),  # 29 February 2001 and 1901
        "17" + dashed(VALID[0]),  # no such century
        "19" + dashed(VALID[0], "+"),  # + with a century written
        dashed(VALID[0], "/"),
        "0000000000",
        dashed(personnummer("701292", "238")),  # a coordination day 32
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(PNR, f"personnummer {text}") == []
