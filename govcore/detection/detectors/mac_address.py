"""The ``mac_address`` detector: IEEE 802 MAC addresses (EUI-48, and the EUI-64 of FireWire,
ZigBee and IPv6 interface ids) as operating systems and tools print them: pairs of hex digits
joined by colons or hyphens (``00:1A:2B:3C:4D:5E``, ``00-1a-2b-3c-4d-5e``, and eight pairs), or
groups of four joined by dots (``001a.2b3c.4d5e``, Cisco, and four groups).

Pairs joined by spaces (``A9 C5 D4 9F EB D3``) are an address only after a word that names one
("MAC", "BSSID", "HWaddr", "ether", ...): hex dumps, CAN and APDU logs, well plates and
vertebrae print pairs the same way.

Not reported: the broadcast address ``FF:FF:FF:FF:FF:FF`` (it names no device), and a run that
goes on with the same separator (an IPv6 address, ``::``, a fingerprint, an OID).
"""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors._printed import label_pattern, labelled
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR"]

_HEX = frozenset("0123456789abcdefABCDEF")
_LABEL = label_pattern(
    r"mac(?:\s+address)?|mac-adresse|adresse\s+mac|direcci[oó]n\s+mac|bssid|hwaddr|ether"
    r"|hardware\s+address|physical\s+address|station|sta|wi-?fi\s+address|bluetooth\s+address",
    "MACアドレス",
)


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
    # The pattern has one alternative per separator, so one separator runs throughout.
    separator = candidate[4] if candidate[4] == "." else candidate[2]
    if _continues(text, start, end, separator):
        return None
    hex_digits = candidate.replace(separator, "")
    if hex_digits.lower() == "f" * len(hex_digits):
        return None  # broadcast: every device's address, no device's
    if separator == " " and not labelled(text, start, _LABEL):
        return None
    return start, end, 1.0


_H = "[0-9a-f]"  # the scanner's patterns fold case

DETECTOR = Detector(
    kind="mac_address",
    explanation="contains a MAC address",
    replacement="[MAC address removed]",
    example="00:1A:2B:3C:4D:5E",
    patterns=(
        CandidatePattern(
            # Six pairs, or eight (EUI-64), one separator throughout: one alternative each.
            rf"{_H}{{2}}(?::{_H}{{2}}){{5}}(?::{_H}{{2}}:{_H}{{2}})?"
            rf"|{_H}{{2}}(?:-{_H}{{2}}){{5}}(?:-{_H}{{2}}-{_H}{{2}})?"
            rf"|{_H}{{2}}(?: {_H}{{2}}){{5}}(?: {_H}{{2}} {_H}{{2}})?"
            rf"|{_H}{{4}}\.{_H}{{4}}\.{_H}{{4}}(?:\.{_H}{{4}})?",
            _mac,
        ),
    ),
)
