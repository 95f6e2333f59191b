"""The ``th_tnin`` detector (govcore/detection/detectors/th_tnin.py): thirteen digits, the first
1 to 8, the mod-11 check digit; the 1-4-5-2-1 printed groups at full confidence."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_tnin, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "th_tnin"}
IDS = [complete_tnin(b) for b in ("110170023070", "310040012345", "850990001234", "234567890123")]


def _printed(number: str, sep: str = "-") -> str:
    n = number
    return sep.join((n[0], n[1:5], n[5:10], n[10:12], n[12]))


@pytest.mark.parametrize("number", IDS)
@pytest.mark.parametrize(
    ("template", "form", "factor"),
    [
        ("card {} issued", "hyphens", 1.0),
        ("card {} issued", "spaces", 1.0),
        ("card {} issued", "bare", 0.7),
        ("เลขประจำตัวประชาชน {}", "bare", 1.0),
        ('{{"thai_id":"{}"}}', "hyphens", 1.0),
    ],
)
def test_valid_ids_are_found(number: str, template: str, form: str, factor: float) -> None:
    """Valid Thai IDs are found in their printed groups or after their name at the rule's confidence, bare runs weaker."""
    value = {"hyphens": _printed(number), "spaces": _printed(number, " ")}.get(form, number)
    text = template.format(value)
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == value
    assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        f"ID {_printed(wrong_last(IDS[0]))}",
        f"ID {wrong_last(IDS[1])}",
        f"ID {complete_tnin('910170023070')}",  # category 9
        f"ID {complete_tnin('010170023070')}",  # category 0
        f"ID {IDS[0]}1",
        f"ID {IDS[0][:4]}-{IDS[0][4:9]}-{IDS[0][9:]}",  # not the printed groups
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A failed check, category 0 or 9, a wrong length or other groups are no Thai ID."""
    assert found(RULE, text) == []
