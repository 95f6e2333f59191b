"""The ``tr_national_id`` detector (govcore/detection/detectors/tr_national_id.py): eleven
digits, no leading 0, both check digits; weaker without "T.C. Kimlik No"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_tckn
from tests.detection.scanning import found, scanner

RULE = {"pii": "tr_national_id"}
IDS = [complete_tckn(b) for b in ("100000001", "123456789", "384920175", "567012398")]


@pytest.mark.parametrize("number", IDS)
@pytest.mark.parametrize(
    ("template", "factor"),
    [
        ("T.C. Kimlik No: {}", 1.0),
        ("TC kimlik numarası {}", 1.0),
        ("TCKN {}", 1.0),
        ("müşteri {} kayıtlı", 0.8),
        ('{{"tckn":"{}"}}', 1.0),
    ],
)
def test_valid_ids_are_found(number: str, template: str, factor: float) -> None:
    """Valid numbers are found after their Turkish or English name at the rule's confidence, alone slightly weaker."""
    text = template.format(number)
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == number
    assert hit.confidence == pytest.approx(0.9 * factor)


def _tenth_changed(number: str) -> str:
    return number[:9] + str((int(number[9]) + 1) % 10) + number[10]


@pytest.mark.parametrize(
    "text",
    [
        f"TCKN {_tenth_changed(IDS[0])}",
        f"TCKN {IDS[1][:10]}{(int(IDS[1][10]) + 1) % 10}",
        f"TCKN {complete_tckn('012345678')}",  # a leading 0
        f"TCKN {IDS[0]}5",
        f"TCKN {IDS[0][:10]}",
        f"TCKN no{IDS[2]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """Either check digit wrong, a leading 0, a wrong length or glue are no identity number."""
    assert found(RULE, text) == []
