"""The ``sg_uen`` detector: Singapore unique entity numbers (ACRA), in their three forms, each
ending in a check letter:

- businesses: eight digits and a check letter (``53312345C``);
- local companies: the year of registration, five digits and a check letter (``200012345W``);
- other entities: ``T`` (2000s), ``S`` (1900s) or ``R`` (1800s), the year's last two digits, an
  entity type (``LL``, ``LP``, ``CC``...), four digits and a check letter (``T09LL0001D``).

The first two are digits and a letter, like many a reference number, so without the word "UEN"
before them they are weaker; the third carries its structure and is reported at full confidence.
"""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors._printed import label_pattern, labelled
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR", "uen_valid"]

_BUSINESS: tuple[tuple[int, ...], str] = ((10, 4, 9, 3, 8, 2, 7, 1), "XMKECAWLJDB")
_LOCAL_COMPANY: tuple[tuple[int, ...], str] = ((10, 8, 6, 4, 9, 7, 5, 3, 1), "ZKCMDNERGWH")
_OTHER_WEIGHTS = (4, 3, 5, 3, 10, 2, 2, 5, 7)
_OTHER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWX0123456789"
# ACRA's entity type indicators of the third form.
_ENTITY_TYPES = frozenset(
    "LP LL FC PF RF MQ MM NB CC CS MB FM GS DP CP NR CM CD MD HS VH CH MH CL XL CX HC RP TU TC FB"
    " FN PA PB SS MC SM GA GB".split()
)


def uen_valid(uen: str) -> bool:
    """The check letter of a UEN (upper case) in any of its three forms."""
    body, check = uen[:-1], uen[-1:]
    if len(uen) == 9 and body.isdigit():
        weights, letters = _BUSINESS
        return letters[sum(w * int(c) for w, c in zip(weights, body, strict=True)) % 11] == check
    if len(uen) == 10 and body.isdigit():
        if not 1800 <= int(body[:4]) <= 2099:
            return False
        weights, letters = _LOCAL_COMPANY
        return letters[sum(w * int(c) for w, c in zip(weights, body, strict=True)) % 11] == check
    if len(uen) == 10 and body[0] in "TSR" and body[3:5] in _ENTITY_TYPES:
        total = sum(w * _OTHER_ALPHABET.index(c) for w, c in zip(_OTHER_WEIGHTS, body, strict=True))
        return _OTHER_ALPHABET[(total - 5) % 11] == check
    return False


_LABEL = label_pattern(r"uens?|unique\s+entity\s+(?:number|no\.?)|acra|business\s+registration")


def _uen(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    if not candidate.isupper() or not uen_valid(candidate):
        return None
    if candidate[0].isalpha() or labelled(text, start, _LABEL):
        return start, end, 1.0
    return start, end, 0.8


DETECTOR = Detector(
    kind="sg_uen",
    explanation="contains a Singapore UEN",
    replacement="[UEN removed]",
    example="T09LL0001D",
    patterns=(CandidatePattern(r"(?-i:[0-9]{8,9}[A-Z]|[TSR][0-9]{2}[A-Z]{2}[0-9]{4}[A-Z])", _uen),),
)
