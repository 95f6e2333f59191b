"""The ``au_medicare`` detector: Australian Medicare card numbers, ten digits (the first 2 to 6,
the ninth a weighted check digit, the tenth the card's issue number), printed ``2123 45670 1``.
Ten bare digits are as often a phone number, so that form needs the word "Medicare" before it."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "medicare_valid"]

_WEIGHTS = (1, 3, 7, 9, 1, 3, 7, 9)


def medicare_valid(digits: list[int]) -> bool:
    """Services Australia's check: the first digit 2 to 6, the first eight weighted 1, 3, 7, 9
    twice, the sum modulo 10 is the ninth digit."""
    if len(digits) != 10 or not 2 <= digits[0] <= 6:
        return False
    return sum(w * d for w, d in zip(_WEIGHTS, digits, strict=False)) % 10 == digits[8]


_LABEL = label_pattern(r"medicare(?:\s+(?:card|number|no\.?|#))*")
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="au_medicare",
    explanation="contains an Australian Medicare number",
    replacement="[Medicare number removed]",
    example="2123 45670 1",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{4}}[ -]?{_ND}{{5}}[ -]?{_ND}",
            digit_id_validator(
                length=10,
                printed=((4, 5, 1),),
                check=medicare_valid,
                label=_LABEL,
                printed_factor=0.7,
                bare_factor=None,
            ),
        ),
    ),
)
