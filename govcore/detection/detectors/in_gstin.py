"""The ``in_gstin`` detector: Indian GST identification numbers, fifteen characters (a state
code, the holder's PAN, an entity number, ``Z`` and a mod-36 check character), per the GST
Network's format."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR", "gstin_valid"]

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# State and territory codes of the GST registry: 01 to 38, 97 (other territory), 99 (centre).
_STATE_CODES = frozenset(range(1, 39)) | {97, 99}


def gstin_valid(gstin: str) -> bool:
    """The GSTIN check character: each of the first 14 characters' value (0-9, A-Z as 10-35)
    times 1 and 2 alternately, each product's quotient and remainder by 36 summed; the check is
    what brings the sum to a multiple of 36."""
    if len(gstin) != 15 or int(gstin[:2]) not in _STATE_CODES:
        return False
    total = 0
    for position, char in enumerate(gstin[:14]):
        product = _ALPHABET.index(char) * (1 + position % 2)
        total += product // 36 + product % 36
    return _ALPHABET[(36 - total % 36) % 36] == gstin[14]


def _gstin(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    if not candidate.isupper() or not gstin_valid(candidate):
        return None
    return start, end, 1.0


DETECTOR = Detector(
    kind="in_gstin",
    explanation="contains an Indian GSTIN",
    replacement="[GSTIN removed]",
    example="27AAPFU0939F1ZV",
    patterns=(
        # The PAN inside (AAPFU0939F) is glued to the state code and entity number around it,
        # so the in_pan detector, which wants a PAN standing alone, does not also report it.
        CandidatePattern(
            r"(?-i:[0-9]{2}[A-Z]{3}[ABCFGHJLPT][A-Z][0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z])", _gstin
        ),
    ),
)
