"""The ``ng_nin`` detector: Nigerian national identification numbers (NIMC), eleven digits, the
last a Verhoeff check digit.

Eleven digits are also a Nigerian phone number in its national form (``0803 123 4567``), so a NIN
is a NIN after its name ("NIN", "National Identification Number", "NIMC"). Without it, a run of
eleven digits that passes the check and does not start with 0, as phone numbers written
nationally do, is reported at half the confidence: never enough to block on its own.
"""

from __future__ import annotations

from govcore.detection.detectors._printed import (
    digit_id_validator,
    label_pattern,
    verhoeff_valid,
)
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "nin_valid"]


def nin_valid(digits: list[int]) -> bool:
    """Eleven digits passing the Verhoeff check."""
    return len(digits) == 11 and verhoeff_valid(digits)


_LABEL = label_pattern(
    r"nin|nimc|national\s+identi(?:fication|ty)\s+(?:number|no\.?)|nin\s+(?:slip|number|no\.?)"
)
_ND = DECIMAL_DIGIT
_labelled_or_bare = digit_id_validator(
    length=11,
    printed=(),
    check=nin_valid,
    label=_LABEL,
    printed_factor=None,
    bare_factor=0.5,
)


def _nin(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    accepted = _labelled_or_bare(text, start, end)
    if accepted is not None and accepted[2] < 1.0 and text[start] == "0":
        return None  # unlabelled and starting with the trunk prefix of a phone number
    return accepted


DETECTOR = Detector(
    kind="ng_nin",
    explanation="contains a Nigerian national identification number",
    replacement="[NIN removed]",
    example="12345678902",
    patterns=(CandidatePattern(rf"{_ND}{{11}}", _nin),),
)
