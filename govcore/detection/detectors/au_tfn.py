"""The ``au_tfn`` detector: Australian tax file numbers, nine digits passing the ATO's weighted
mod-11 check. Nine digits are also a phone number or an order number, so a TFN is reported only
after its name ("TFN", "tax file number"), or, weaker, when printed in the ATO's three groups."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "tfn_valid"]

_WEIGHTS = (1, 4, 3, 7, 5, 8, 6, 9, 10)


def tfn_valid(digits: list[int]) -> bool:
    """The ATO's check of a nine-digit TFN: the weighted sum is a multiple of 11."""
    return len(digits) == 9 and sum(w * d for w, d in zip(_WEIGHTS, digits, strict=True)) % 11 == 0


_LABEL = label_pattern(r"tfns?|tax\s+file\s+(?:number|no\.?|#)")
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="au_tfn",
    explanation="contains an Australian tax file number",
    replacement="[TFN removed]",
    example="123 456 782",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{3}}[ -]?{_ND}{{3}}[ -]?{_ND}{{3}}",
            digit_id_validator(
                length=9,
                printed=((3, 3, 3),),
                check=tfn_valid,
                label=_LABEL,
                printed_factor=0.7,
                bare_factor=None,
            ),
        ),
    ),
)
