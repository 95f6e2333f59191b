"""The ``us_ssn`` detector (govcore/detection/detectors/us_ssn.py): the area, group and serial
rules, separators, and the weaker factor of nine bare digits.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import pytest

from tests.detection.scanning import (
    SSN,
    found,
    scanner,
)


@pytest.mark.parametrize(
    ("ssn", "factor"),
    [
        ("123-45-6789", 1.0),
        ("078-05-1120", 1.0),
        ("219 09 9999", 1.0),
        ("219.09.9999", 1.0),
        ("899-12-3456", 1.0),
        ("123456789", 0.8),
    ],
)
def test_valid_ssns_are_found(ssn: str, factor: float) -> None:
    """Valid area, group and serial are an SSN; without separators at 0.8 of the confidence."""
    text = f"reference {ssn}."
    hits = scanner(SSN).scan(text)
    assert [text[h.start : h.end] for h in hits] == [ssn]
    assert hits[0].confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        "000-12-3456",
        "666-12-3456",
        "900-12-3456",
        "999-12-3456",
        "123-00-4567",
        "123-45-0000",
        "123-45 6789",
        "123-45-67890",
        "1234-5-6789",
        "a123-45-6789",
    ],
)
def test_invalid_ssns_are_not_found(text: str) -> None:
    """Area 000, 666 or 9xx, group 00, serial 0000, mixed separators or glued digits are no SSN."""
    assert found(SSN, text) == []


@pytest.mark.parametrize(
    "label", ["TFN", "SIN:", "routing number", "ABN no.", "Taxpayer identification number:"]
)
def test_another_identifiers_name_does_not_hide_an_ssn(label: str) -> None:
    """A word of another country's identifier before nine digits does not hide them from a rule
    that asks for SSNs: the author of the text chooses its words."""
    assert found(SSN, f"{label} 078-05-1120") == ["078-05-1120"]
    assert found(SSN, f"{label} 123456782") == ["123456782"]
