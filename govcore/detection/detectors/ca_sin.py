"""The ``ca_sin`` detector: Canadian social insurance numbers, nine digits passing the Luhn
check, the first naming the issuing region (never 0 or 8, which are not issued to people).
Nine digits are also a phone or an order number, so a SIN is reported only after its name
("SIN", "social insurance number", "NAS"), or, weaker, printed in three groups."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector
from govcore.detection.detectors.credit_card import luhn_valid

__all__ = ["DETECTOR", "sin_valid"]


def sin_valid(digits: list[int]) -> bool:
    """Nine digits, the first neither 0 nor 8, passing Luhn."""
    return len(digits) == 9 and digits[0] not in (0, 8) and luhn_valid(digits)


_LABEL = label_pattern(
    r"sin|social\s+insurance\s+(?:number|no\.?|#)|nas"
    r"|num[ée]ro\s+d['’]assurance\s+sociale"
)
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="ca_sin",
    explanation="contains a Canadian social insurance number",
    replacement="[SIN removed]",
    example="130 692 544",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{3}}[ -]?{_ND}{{3}}[ -]?{_ND}{{3}}",
            digit_id_validator(
                length=9,
                printed=((3, 3, 3),),
                check=sin_valid,
                label=_LABEL,
                printed_factor=0.7,
                bare_factor=None,
            ),
        ),
    ),
)
