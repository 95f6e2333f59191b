"""The ``tr_national_id`` detector: Turkish identity numbers (T.C. Kimlik No), eleven digits not
starting with 0, the last two check digits (NVI's rules)."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "tckn_valid"]


def tckn_valid(digits: list[int]) -> bool:
    """The two check digits: the tenth is seven times the sum of the odd places less the sum of
    the even places (of the first nine), mod 10; the eleventh the sum of the first ten, mod 10."""
    if len(digits) != 11 or digits[0] == 0:
        return False
    odd, even = sum(digits[0:9:2]), sum(digits[1:8:2])
    return (odd * 7 - even) % 10 == digits[9] and sum(digits[:10]) % 10 == digits[10]


_LABEL = label_pattern(
    r"t\.?\s?c\.?\s+kimlik(?:\s+(?:no|numarası|numarasi))?\.?|kimlik\s+(?:no|numarası|numarasi)\.?"
    r"|tckn|tc\s+no|turkish\s+(?:national\s+)?id(?:entity)?(?:\s+(?:card|number|no\.?))*"
)
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="tr_national_id",
    explanation="contains a Turkish identity number",
    replacement="[T.C. Kimlik No removed]",
    example="10000000146",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{11}}",
            # Two check digits pass one number in a hundred: bare (as it is printed), a little
            # weaker than after its name.
            digit_id_validator(
                length=11,
                printed=(),
                check=tckn_valid,
                label=_LABEL,
                printed_factor=None,
                bare_factor=0.8,
            ),
        ),
    ),
)
