"""The ``de_tax_id`` detector (govcore/detection/detectors/de_tax_id.py): the digit-repetition
rule, ISO/IEC 7064 MOD 11,10, the printed grouping, and the weight of the word "Steuer-ID"."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

TAX_ID = {"pii": "de_tax_id"}


def complete(ten: str) -> str:
    """Reference: ISO/IEC 7064 MOD 11,10 as the Federal Central Tax Office describes it."""
    carry = 10
    for char in ten:
        subtotal = (int(char) + carry) % 10
        if subtotal == 0:
            subtotal = 10
        carry = (2 * subtotal) % 11
    check = 11 - carry
    return ten + ("0" if check == 10 else str(check))


VALID = [
    complete(t) for t in ("8609574271", "4715308924", "1234567891", "9080716253", "5207193843")
]


def test_the_reference_values() -> None:
    assert VALID[0] == "86095742719"  # the Federal Central Tax Office's example


def printed(number: str) -> str:
    return f"{number[:2]} {number[2:5]} {number[5:8]} {number[8:]}"


@pytest.mark.parametrize("number", VALID)
def test_after_its_name_at_full_confidence(number: str) -> None:
    for written in (number, printed(number)):
        for text in (f"Steuer-ID: {written}", f"Ihre steuerliche Identifikationsnummer {written}"):
            [hit] = scanner(TAX_ID).scan(text)
            assert text[hit.start : hit.end] == written
            assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("number", VALID)
def test_without_its_name_weighed(number: str) -> None:
    [hit] = scanner(TAX_ID).scan(f"Nr. {printed(number)} liegt vor")
    assert hit.confidence == pytest.approx(0.9 * 0.8)


@pytest.mark.parametrize(
    "ten",
    [
        "0860957427",  # a leading 0
        "1234567890",  # every digit once: no repeated digit
        "1122345678",  # two digits repeated
        "1111234567",  # one digit four times
        "1112345678",  # three times side by side
    ],
)
def test_the_repetition_rule(ten: str) -> None:
    assert found(TAX_ID, f"Steuer-ID {complete(ten)}") == []


def test_three_times_apart_is_allowed() -> None:
    number = complete("1121345678")  # 1 three times, two of them side by side
    assert found(TAX_ID, f"Steuer-ID {number}") == [number]


@pytest.mark.parametrize(
    "text",
    [
        VALID[0][:10] + str((int(VALID[0][10]) + 1) % 10),
        VALID[0] + "3",
        VALID[0][:10],
        "ID" + VALID[0],
        f"{VALID[0][:2]}-{VALID[0][2:5]}-{VALID[0][5:8]}-{VALID[0][8:]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(TAX_ID, f"Steuer-ID {text}") == []
