"""The ``mac_address`` detector: IEEE 802 MAC addresses (EUI-48) as operating systems print them:
six pairs of hex digits joined by colons or by hyphens (``00:1A:2B:3C:4D:5E``,
``00-1a-2b-3c-4d-5e``), or three groups of four joined by dots (``001a.2b3c.4d5e``, Cisco)."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR"]

_HEX = frozenset("0123456789abcdefABCDEF")


def _continues(text: str, start: int, end: int, separator: str) -> bool:
    """Whether the address's separator joins it to more hex digits on either side: then it is
    a part of a longer colon- or dot-separated run (an IPv6 address, a fingerprint, an OID)."""
    before = start >= 2 and text[start - 1] == separator and text[start - 2] in _HEX
    after = end + 1 < len(text) and text[end] == separator and text[end + 1] in _HEX
    return before or after


def _mac(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    separator = candidate[4] if candidate[4] == "." else candidate[2]
    if candidate.count(separator) != (2 if separator == "." else 5):
        return None  # "00:1a-2b:..." mixes separators: not an address as printed
    if _continues(text, start, end, separator):
        return None
    return start, end, 1.0


_H = "[0-9a-f]"  # the scanner's patterns fold case

DETECTOR = Detector(
    kind="mac_address",
    explanation="contains a MAC address",
    replacement="[MAC address removed]",
    example="00:1A:2B:3C:4D:5E",
    patterns=(
        CandidatePattern(rf"{_H}{{2}}(?:[:-]{_H}{{2}}){{5}}|{_H}{{4}}\.{_H}{{4}}\.{_H}{{4}}", _mac),
    ),
)
