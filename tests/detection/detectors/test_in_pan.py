"""The ``in_pan`` detector (govcore/detection/detectors/in_pan.py): the PAN's shape, the holder
type, one case throughout, and the weight of the word "PAN"."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

RULE = {"pii": "in_pan"}


@pytest.mark.parametrize(
    ("text", "value", "factor"),
    [
        ("PAN: ABCPD1234E", "ABCPD1234E", 1.0),
        ("Permanent Account Number AAACR5055K", "AAACR5055K", 1.0),
        ("पैन BNZPM2501F", "BNZPM2501F", 1.0),
        ("holder AFZPK7190K signed", "AFZPK7190K", 0.8),
        ("holder afzpk7190k signed", "afzpk7190k", 0.7),
        ('{"pan":"AAAFT1234A"}', "AAAFT1234A", 1.0),
        ("Trust ABCTY1234D, HUF AAAHG1234K", "ABCTY1234D", 0.8),
    ],
)
def test_pans_are_found(text: str, value: str, factor: float) -> None:
    """A PAN is found after its name at the rule's confidence, otherwise by its shape, weaker in lower case."""
    hits = scanner(RULE).scan(text)
    assert text[hits[0].start : hits[0].end] == value
    assert hits[0].confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        "PAN ABCXD1234E",  # X is no holder type
        "PAN ABCPD12345",  # a digit where the last letter goes
        "PAN ABCPD1234EF",  # one letter too many
        "PAN AbcPd1234E",  # mixed case
        "GSTIN 27AAPFU0939F1ZV",  # the PAN inside a GSTIN is not a PAN standing alone
        "PAN 1ABCPD1234E",
        "PAN ABCPD0000E",  # serials start at 0001
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """Another holder type, a digit for the last letter, an extra letter, mixed case or the PAN inside a GSTIN are no PAN."""
    assert found(RULE, text) == []
