"""The ``aba_routing`` detector: US ABA routing transit numbers, nine digits, the first two a
Federal Reserve routing symbol (00-12, 21-32, 61-72, 80), passing the 3-7-1 check. One nine-digit
number in twenty passes both, so a routing number is reported only after its name ("routing
number", "ABA", "RTN"), or, weaker, in the ``XXXX-XXXX-X`` form of the check's MICR fraction."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "aba_valid"]

_ROUTING_SYMBOLS = frozenset((*range(13), *range(21, 33), *range(61, 73), 80))


def aba_valid(digits: list[int]) -> bool:
    """A routing symbol and the checksum 3, 7, 1 (repeated) whose weighted sum divides by 10."""
    if len(digits) != 9 or digits[0] * 10 + digits[1] not in _ROUTING_SYMBOLS:
        return False
    total = 3 * sum(digits[0::3]) + 7 * sum(digits[1::3]) + sum(digits[2::3])
    return total % 10 == 0


_LABEL = label_pattern(
    r"aba|rtn|routing(?:\s+(?:transit\s+)?(?:number|no\.?|#))?|routing\s+and\s+transit"
    r"|transit\s+(?:number|no\.?)|bank\s+routing"
)
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="aba_routing",
    explanation="contains a US bank routing number",
    replacement="[routing number removed]",
    example="0260-0959-3",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{4}}-?{_ND}{{4}}-?{_ND}",
            digit_id_validator(
                length=9,
                printed=((4, 4, 1),),
                check=aba_valid,
                label=_LABEL,
                printed_factor=0.7,
                bare_factor=None,
                separators="-",
            ),
        ),
    ),
)
