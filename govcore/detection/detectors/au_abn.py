"""The ``au_abn`` detector: Australian business numbers, eleven digits passing the ABR's
weighted mod-89 check, printed ``51 824 753 556`` or as one run, or with the ``AU`` country
prefix of a VAT-style number (``AU51824753556``)."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import (
    DECIMAL_DIGIT,
    CandidatePattern,
    Detector,
    bounded,
    digits_of,
)

__all__ = ["DETECTOR", "abn_valid"]

_WEIGHTS = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)


def abn_valid(digits: list[int]) -> bool:
    """The ABR's check: one less the first digit, weight each digit, the sum divides by 89."""
    if len(digits) != 11 or digits[0] == 0:
        return False
    total = sum(w * d for w, d in zip(_WEIGHTS, [digits[0] - 1, *digits[1:]], strict=True))
    return total % 89 == 0


_LABEL = label_pattern(r"abns?|australian\s+business\s+(?:number|no\.?)")
_ND = DECIMAL_DIGIT


def _prefixed(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    """``AU`` and the eleven digits in one run: the prefix names the number as a label would."""
    if text[start : start + 2] != "AU" or not bounded(text, start, end, glues):
        return None
    digits = digits_of(text[start + 2 : end])
    return (start, end, 1.0) if abn_valid(digits) else None


DETECTOR = Detector(
    kind="au_abn",
    explanation="contains an Australian business number",
    replacement="[ABN removed]",
    example="51 824 753 556",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{2}}[ -]?{_ND}{{3}}[ -]?{_ND}{{3}}[ -]?{_ND}{{3}}",
            # One number in 89 passes the check: printed in the ABR's groups it is an ABN; as a
            # bare run of eleven digits, weaker.
            digit_id_validator(
                length=11,
                printed=((2, 3, 3, 3),),
                check=abn_valid,
                label=_LABEL,
                printed_factor=1.0,
                bare_factor=0.7,
            ),
        ),
        CandidatePattern(rf"\bAU{_ND}{{11}}", _prefixed),
    ),
)
