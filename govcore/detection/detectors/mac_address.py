"""The ``mac_address`` detector: IEEE 802 MAC addresses (EUI-48, and the EUI-64 of FireWire,
ZigBee and IPv6 interface ids) as operating systems and tools print them: pairs of hex digits
joined by colons, hyphens or spaces (``00:1A:2B:3C:4D:5E``, ``00-1a-2b-3c-4d-5e``,
``A9 C5 D4 9F EB D3``), or groups of four joined by dots (``001a.2b3c.4d5e``, Cisco).

Not reported: the broadcast address ``FF:FF:FF:FF:FF:FF`` (it names no device), a run that
goes on with the same separator (an IPv6 address, ``::``, a fingerprint, an OID, a hex dump),
and a space-separated run without both a digit and a letter (``10 20 30 40 50 60`` is a list of
numbers, and hex dumps print bytes the same way: a space-joined run is reported at a lower
confidence)."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR"]

_HEX = frozenset("0123456789abcdefABCDEF")
_SPACED_FACTOR = 0.8


def _continues(text: str, start: int, end: int, separator: str) -> bool:
    """Whether the address's separator joins it to more of the run on either side: hex digits
    (an IPv6 address, a fingerprint, an OID) or the separator again (``::``). Spaces join words
    too, so there the run goes on only with a hex token (a hex dump's row, ``A9C5``), not with a
    word ("BSSID", "added")."""
    if separator == " ":
        return _hex_token(_token_before(text, start)) or _hex_token(_token_after(text, end))
    before = start >= 2 and text[start - 1] == separator and text[start - 2] in _HEX | {separator}
    after = end + 1 < len(text) and text[end] == separator and text[end + 1] in _HEX | {separator}
    return before or after


def _token_before(text: str, start: int) -> str:
    if start < 2 or text[start - 1] != " ":
        return ""
    first = start - 1
    while first > 0 and not text[first - 1].isspace() and start - first <= 9:
        first -= 1
    return text[first : start - 1]


def _token_after(text: str, end: int) -> str:
    if end >= len(text) - 1 or text[end] != " ":
        return ""
    last = end + 1
    while last < len(text) and not text[last].isspace() and last - end <= 9:
        last += 1
    return text[end + 1 : last]


def _hex_token(token: str) -> bool:
    """A token of hex digits that is a pair, or holds a digit: words spelt in a to f ("add",
    "face") hold none."""
    return (
        bool(token)
        and all(char in _HEX for char in token)
        and (len(token) == 2 or any(char.isdigit() for char in token))
    )


def _mac(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    separator = candidate[4] if candidate[4] == "." else candidate[2]
    groups = candidate.count(separator) + 1
    if groups != (3 if separator == "." else 6) and groups != (4 if separator == "." else 8):
        return None  # "00:1a-2b:..." mixes separators: not an address as printed
    if _continues(text, start, end, separator):
        return None
    hex_digits = candidate.replace(separator, "")
    if hex_digits.lower() == "f" * len(hex_digits):
        return None  # broadcast: every device's address, no device's
    if separator == " ":
        if hex_digits.isdigit() or hex_digits.isalpha():
            return None
        return start, end, _SPACED_FACTOR
    return start, end, 1.0


_H = "[0-9a-f]"  # the scanner's patterns fold case

DETECTOR = Detector(
    kind="mac_address",
    explanation="contains a MAC address",
    replacement="[MAC address removed]",
    example="00:1A:2B:3C:4D:5E",
    patterns=(
        CandidatePattern(
            # Six groups, or eight (EUI-64) when two more follow with the same separator.
            rf"{_H}{{2}}(?:[:\- ]{_H}{{2}}){{5}}(?:[:\- ]{_H}{{2}}[:\- ]{_H}{{2}})?"
            rf"|{_H}{{4}}\.{_H}{{4}}\.{_H}{{4}}(?:\.{_H}{{4}})?",
            _mac,
        ),
    ),
)
