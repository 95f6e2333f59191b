"""The ``ip_address`` detector: IPv4 dotted quads and IPv6 in every written form, with a zone
and a CIDR prefix length; not part of a longer dotted or colon-separated run."""

from __future__ import annotations

import ipaddress
import re

from govcore.detection.chars import digit, glues, is_digit, is_word
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "ipv4_valid"]

_ZONE = re.compile(r"%[A-Za-z0-9_\-]+")
_PREFIX_LENGTH = re.compile(r"/(\d{1,3})(?![\w.])")


def ipv4_valid(candidate: str) -> bool:
    """Four decimal parts of at most 255; zero-padded parts ("010") are accepted, as logs
    and configuration files write them."""
    parts = candidate.split(".")
    return len(parts) == 4 and all(
        part.isdigit() and len(part) <= 3 and int(part) <= 255 for part in parts
    )


def _ip(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    """An IPv4 or IPv6 address. The span is the address, with an IPv6 zone (``fe80::1%eth0``)
    and a CIDR prefix length (``10.0.0.0/8``), without a port or brackets."""
    candidate = text[start:end]
    if not any(c.isalnum() for c in candidate):
        return None  # "::" in prose ("x :: Int") is punctuation, not the unspecified address
    six = ":" in candidate
    size = len(text)
    # Glued to more of a dotted or colon-separated run ("1.2.3.4.5", "v1.2.3.4", a piece of a
    # longer IPv6 address), the candidate is part of something else. A full stop or colon
    # that ends a sentence is not glue: "IP: 192.168.1.1." is an address.
    if start > 0:
        before = text[start - 1]
        if glues(before) or (six and before == ":"):
            return None
        if before == "." and start > 1 and is_word(text[start - 2]):
            return None
    if end < size:
        after = text[end]
        if glues(after):
            return None
        if (after == "." or (six and after == ":")) and end + 1 < size and is_word(text[end + 1]):
            return None
    if not candidate.isascii():
        candidate = "".join(
            str(digit(c)) if is_digit(c) and not c.isascii() else c for c in candidate
        )
    if six:
        try:
            ipaddress.IPv6Address(candidate)
        except ValueError:
            return None
        zone = _ZONE.match(text, end)
        if zone is not None:
            end = zone.end()
    elif not ipv4_valid(candidate):
        return None
    prefix = _PREFIX_LENGTH.match(text, end)
    if prefix is not None and int(prefix.group(1)) <= (128 if six else 32):
        end = prefix.end()
    return start, end, 1.0


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="ip_address",
    explanation="contains an IP address",
    replacement="[IP address removed]",
    example="192.0.2.7",
    patterns=(
        CandidatePattern(
            rf"(?:[0-9a-fA-F]{{0,4}}:){{2,6}}{_ND}{{1,3}}(?:\.{_ND}{{1,3}}){{3}}"
            rf"|{_ND}{{1,3}}(?:\.{_ND}{{1,3}}){{3}}"
            rf"|(?:[0-9a-fA-F]{{0,4}}:){{2,7}}[0-9a-fA-F]{{0,4}}",
            _ip,
        ),
    ),
    contains_other_kinds=True,
)
