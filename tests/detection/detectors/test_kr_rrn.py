"""The ``kr_rrn`` detector (govcore/detection/detectors/kr_rrn.py): a real birth date, the
century digit and the mod-11 check digit; the hyphenated form at full confidence."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_rrn, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "kr_rrn"}
RRNS = [complete_rrn(b) for b in ("900101123456", "851231234567", "040229412345", "991015534501")]


def _hyphenated(rrn: str) -> str:
    return f"{rrn[:6]}-{rrn[6:]}"


@pytest.mark.parametrize("rrn", RRNS)
@pytest.mark.parametrize(
    ("template", "hyphen", "factor"),
    [
        ("번호 {} 확인", True, 1.0),
        ("주민등록번호: {}", False, 1.0),
        ("record {} closed", False, 0.7),
        ('{{"rrn": "{}"}}', True, 1.0),
    ],
)
def test_valid_rrns_are_found(rrn: str, template: str, hyphen: bool, factor: float) -> None:
    """Valid RRNs are found with their hyphen or after their name at the rule's confidence, bare runs weaker."""
    value = _hyphenated(rrn) if hyphen else rrn
    text = template.format(value)
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == value
    assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        f"RRN {_hyphenated(wrong_last(RRNS[0]))}",
        f"RRN {_hyphenated(complete_rrn('901301123456'))}",  # month 13
        f"RRN {_hyphenated(complete_rrn('010229312345'))}",  # 29 February 2001
        f"RRN {_hyphenated(RRNS[0])}1",
        f"RRN {RRNS[0][:6]} {RRNS[0][6:]}",  # a space where the hyphen goes
        f"RRN a{RRNS[1]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A failed check, an impossible date, a wrong length, a space for the hyphen or glue are no RRN."""
    assert found(RULE, text) == []
