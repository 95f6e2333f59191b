"""The ``th_tnin`` detector: Thai national identification numbers, thirteen digits, the first
the holder's category (1 to 8), the last a weighted mod-11 check digit; printed
``1-2345-67890-12-1``."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "tnin_valid"]


def tnin_valid(digits: list[int]) -> bool:
    """The check of the Department of Provincial Administration: the first twelve digits
    weighted 13 down to 2; the thirteenth is 11 less the sum mod 11, mod 10."""
    if len(digits) != 13 or not 1 <= digits[0] <= 8:
        return False
    total = sum(weight * value for weight, value in zip(range(13, 1, -1), digits, strict=False))
    return (11 - total % 11) % 10 == digits[12]


_LABEL = label_pattern(
    r"thai\s+(?:national\s+)?id(?:entification)?(?:\s+(?:card|number|no\.?))*|tnin",
    "เลขประจำตัวประชาชน|บัตรประชาชน|เลขบัตร",
)
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="th_tnin",
    explanation="contains a Thai national ID number",
    replacement="[Thai ID removed]",
    example="1-1017-00230-70-8",
    patterns=(
        CandidatePattern(
            rf"{_ND}[ -]?{_ND}{{4}}[ -]?{_ND}{{5}}[ -]?{_ND}{{2}}[ -]?{_ND}",
            digit_id_validator(
                length=13,
                printed=((1, 4, 5, 2, 1),),
                check=tnin_valid,
                label=_LABEL,
                printed_factor=1.0,
                bare_factor=0.7,
            ),
        ),
    ),
)
