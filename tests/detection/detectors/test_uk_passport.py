"""The ``uk_passport`` detector (govcore/detection/detectors/uk_passport.py): nine digits, only
after a word that names a passport."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

PASSPORT = {"pii": "uk_passport"}


@pytest.mark.parametrize(
    "text",
    [
        "Passport number: 533380006",
        "passport no. 107185703 issued in London",
        "UK Passport No (GBR): 925076473",
        "Reisepassnummer 533380006",
        "numéro de passeport 533380006",
        "número de pasaporte: 533380006",
        '{"passport": "533380006"}',
    ],
)
def test_after_a_passport_word_nine_digits_are_found(text: str) -> None:
    [hit] = scanner(PASSPORT).scan(text)
    assert text[hit.start : hit.end].isdigit()
    assert len(text[hit.start : hit.end]) == 9
    assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize(
    "text",
    [
        "order 533380006 shipped",  # no passport word
        "passport 53338000",  # eight digits
        "passport 5333800061",  # ten digits
        "passport A533380006",
        "passport holders: 3 adults\n533380006",  # another line
        "passport expired in 2019, file 533380006",  # other digits between
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(PASSPORT, text) == []
