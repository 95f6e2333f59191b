"""The ``uk_nhs`` detector (govcore/detection/detectors/uk_nhs.py): the modulus 11 check, and
the weight of the name "NHS" before a number that is also a phone number's shape."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

NHS = {"pii": "uk_nhs"}


def with_check(nine: str) -> str | None:
    """Reference: NHS Digital's modulus 11 algorithm, the check appended (None if it is 10)."""
    total = sum(int(char) * weight for char, weight in zip(nine, range(10, 1, -1), strict=True))
    check = (11 - total % 11) % 11
    return None if check == 10 else nine + str(check)


VALID = [
    n for n in (with_check(s) for s in ("943476591", "401023213", "485777345", "629384712")) if n
]


def spaced(number: str, sep: str = " ") -> str:
    return f"{number[:3]}{sep}{number[3:6]}{sep}{number[6:]}"


def test_the_reference_values_are_ten_digits() -> None:
    assert len(VALID) == 4
    assert VALID[0] == "9434765919"  # NHS Digital's published example


@pytest.mark.parametrize("number", VALID)
def test_after_its_name_every_form_is_found_at_full_confidence(number: str) -> None:
    for written in (number, spaced(number), spaced(number, "-")):
        text = f"Patient NHS number: {written}, seen today."
        [hit] = scanner(NHS).scan(text)
        assert text[hit.start : hit.end] == written
        assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("number", VALID)
def test_grouped_without_its_name_it_is_weighed(number: str) -> None:
    text = f"reference {spaced(number)} on file"
    [hit] = scanner(NHS).scan(text)
    assert text[hit.start : hit.end] == spaced(number)
    assert hit.confidence == pytest.approx(0.9 * 0.7)


@pytest.mark.parametrize("number", VALID)
def test_bare_or_dashed_without_its_name_it_is_not_found(number: str) -> None:
    """Ten bare digits are anything; 3-3-4 with dashes is a US phone number's shape."""
    assert found(NHS, f"order {number} shipped") == []
    assert found(NHS, f"call {spaced(number, '-')} now") == []


def wrong_check(number: str) -> str:
    return number[:9] + str((int(number[9]) + 1) % 10)


@pytest.mark.parametrize(
    "text",
    [
        f"NHS number {wrong_check(VALID[0])}",
        f"NHS number {VALID[0]}1",  # eleven digits
        f"NHS number {VALID[0][:9]}",
        "NHS number 000 000 0000",  # passes the arithmetic, never issued
        "NHS number 943 476-5919",  # mixed separators
        f"NHS number A{VALID[0]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(NHS, text) == []


def test_a_check_that_would_be_ten_is_never_valid() -> None:
    nine = next(
        s for s in (f"{n:09d}" for n in range(100000000, 100001000)) if with_check(s) is None
    )
    for last in "0123456789":
        assert found(NHS, f"NHS number {nine}{last}") == []


def test_in_json_and_other_languages() -> None:
    assert found(NHS, '{"nhsNumber": "9434765919", "nhs": true}') == []  # the key is not a word
    assert found(NHS, '{"NHS number": "9434765919"}') == ["9434765919"]
    assert found(NHS, "Meine NHS-Nummer ist 943 476 5919.") == ["943 476 5919"]
