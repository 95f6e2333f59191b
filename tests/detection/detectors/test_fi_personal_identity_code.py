"""The ``fi_personal_identity_code`` detector
(govcore/detection/detectors/fi_personal_identity_code.py): the century signs, the date, the
individual number and the check character."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

HETU = {"pii": "fi_personal_identity_code"}


def hetu(day: int, month: int, year: int, sign: str, individual: int) -> str:
    """Reference: the nine digits modulo 31 index "0123456789ABCDEFHJKLMNPRSTUVWXY"."""
    number = f"{day:02d}{month:02d}{year % 100:02d}{individual:03d}"
    check = "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(number) % 31]
    return f"{number[:6]}{sign}{number[6:]}{check}"


VALID = [
    hetu(13, 10, 1952, "-", 308),
    hetu(1, 1, 2005, "A", 123),
    hetu(29, 2, 2000, "A", 45),
    hetu(31, 12, 1899, "+", 899),
    hetu(15, 6, 1990, "Y", 77),  # the new 1900s signs (2023)
    hetu(15, 6, 2010, "B", 77),
]


def test_the_reference_values() -> None:
    assert VALID[0] == "131052-308T"  # the Population Register Centre's example


@pytest.mark.parametrize("code", VALID)
def test_a_code_is_found_anywhere(code: str) -> None:
    text = f"Henkilötunnus {code} tarkistettu."
    [hit] = scanner(HETU).scan(text)
    assert text[hit.start : hit.end] == code
    assert hit.confidence == pytest.approx(0.9)
    assert found(HETU, f'{{"hetu": "{code}"}}') == [code]


@pytest.mark.parametrize(
    "code",
    [
        "131052-308A",  # wrong check
        hetu(30, 2, 1990, "-", 123),  # 30 February
        hetu(29, 2, 2001, "A", 123),  # not a leap year
        hetu(13, 10, 1952, "G", 308),  # G is no century sign
        hetu(13, 10, 1952, "-", 1),  # individual numbers start at 002
        "131052a308T",  # the two letters in different cases
        "131052A308t",
        "131052308T",
        "1131052-308T",
    ],
)
def test_near_misses_are_not_found(code: str) -> None:
    assert found(HETU, f"id {code} ok") == []


@pytest.mark.parametrize("code", ["131052a308t", "131052-308t"])
def test_in_lower_case_too(code: str) -> None:
    assert found(HETU, f"hetu {code} ok") == [code]
