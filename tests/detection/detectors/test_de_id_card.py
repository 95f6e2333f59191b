"""The ``de_id_card`` detector (govcore/detection/detectors/de_id_card.py): the card's
alphabet, the ICAO 7-3-1 check digit and the word "Personalausweis"."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

CARD = {"pii": "de_id_card"}


def with_check(serial: str) -> str:
    """Reference: ICAO Doc 9303 part 3, weights 7 3 1, letters A=10 ... Z=35."""
    values = [int(c) if c.isdigit() else 10 + ord(c) - ord("A") for c in serial]
    return serial + str(sum(v * (7, 3, 1)[i % 3] for i, v in enumerate(values)) % 10)


VALID = [with_check(s) for s in ("T22000129", "L01X00T47", "CZ6311T47", "M4H7NL2R3", "F9G8H7J6K")]


def test_the_reference_values() -> None:
    assert VALID[0] == "T220001293"  # the specimen card of the Federal Ministry of the Interior


@pytest.mark.parametrize("number", VALID)
def test_with_its_check_digit_found_anywhere(number: str) -> None:
    [hit] = scanner(CARD).scan(f"Dokument {number} liegt vor")
    assert hit.confidence == pytest.approx(0.9 * 0.85)
    text = f"Personalausweisnummer: {number}"
    [hit] = scanner(CARD).scan(text)
    assert text[hit.start : hit.end] == number
    assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("number", VALID)
def test_nine_characters_only_after_the_word(number: str) -> None:
    assert found(CARD, f"Ausweisnummer {number[:9]}") == [number[:9]]
    assert found(CARD, f"Artikel {number[:9]} im Lager") == []


@pytest.mark.parametrize(
    "number",
    [
        VALID[0][:9] + str((int(VALID[0][9]) + 1) % 10),  # wrong check
        with_check("A22000129"),  # A is not in the alphabet
        with_check("T22E00129"),  # neither is E
        with_check("TCFGHJKLM"),  # no digit
        "t220001293",
        VALID[0] + "1",
        "X" + VALID[0],
    ],
)
def test_near_misses_are_not_found(number: str) -> None:
    assert found(CARD, f"Ausweis {number} ok") == []
