"""The ``au_acn`` detector: Australian company numbers, nine digits whose last is ASIC's
weighted mod-10 check digit. Nine digits are also a TFN or a phone number, so an ACN is reported
only after its name ("ACN", "Australian company number"), or, weaker, printed in three groups."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "acn_valid"]


def acn_valid(digits: list[int]) -> bool:
    """ASIC's check: the first eight digits weighted 8 down to 1; the ninth is the complement of
    the sum modulo 10."""
    if len(digits) != 9:
        return False
    total = sum(weight * value for weight, value in zip(range(8, 0, -1), digits, strict=False))
    return (10 - total % 10) % 10 == digits[8]


_LABEL = label_pattern(r"acns?|arbn|australian\s+company\s+(?:number|no\.?)")
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="au_acn",
    explanation="contains an Australian company number",
    replacement="[ACN removed]",
    example="004 085 616",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{3}}[ -]?{_ND}{{3}}[ -]?{_ND}{{3}}",
            digit_id_validator(
                length=9,
                printed=((3, 3, 3),),
                check=acn_valid,
                label=_LABEL,
                printed_factor=0.7,
                bare_factor=None,
            ),
        ),
    ),
)
