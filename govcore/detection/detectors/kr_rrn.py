"""The ``kr_rrn`` detector: Korean resident registration numbers, the holder's birth date
(YYMMDD), a digit of sex and century, six more digits, the last a weighted mod-11 check digit;
printed ``YYMMDD-NNNNNNN``.

Numbers issued since October 2020 end in random digits without that check: those are missed,
since thirteen digits without a check are as often something else."""

from __future__ import annotations

from govcore.detection.detectors._printed import digit_id_validator, label_pattern
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector
from govcore.detection.detectors.national import valid_date

__all__ = ["DETECTOR", "rrn_valid"]

_WEIGHTS = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
# The seventh digit's century: 9 and 0 for the 1800s, 1, 2 (citizens) and 5, 6 (foreign
# residents) for the 1900s, 3, 4, 7, 8 for the 2000s.
_CENTURY = {
    9: 1800,
    0: 1800,
    1: 1900,
    2: 1900,
    5: 1900,
    6: 1900,
    3: 2000,
    4: 2000,
    7: 2000,
    8: 2000,
}


def rrn_valid(digits: list[int]) -> bool:
    """A real birth date, and the check digit: 11 less the weighted sum mod 11, mod 10."""
    if len(digits) != 13:
        return False
    year = _CENTURY[digits[6]] + digits[0] * 10 + digits[1]
    if not valid_date(year, digits[2] * 10 + digits[3], digits[4] * 10 + digits[5]):
        return False
    total = sum(w * d for w, d in zip(_WEIGHTS, digits, strict=False))
    return (11 - total % 11) % 10 == digits[12]


_LABEL = label_pattern(r"rrn|resident\s+registration\s+(?:number|no\.?)", "주민등록번호|주민번호")
_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="kr_rrn",
    explanation="contains a Korean resident registration number",
    replacement="[RRN removed]",
    example="900101-1234568",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{6}}-?{_ND}{{7}}",
            # A date and a check digit: printed with its hyphen it is an RRN; as thirteen bare
            # digits, weaker.
            digit_id_validator(
                length=13,
                printed=((6, 7),),
                check=rrn_valid,
                label=_LABEL,
                printed_factor=1.0,
                bare_factor=0.7,
                separators="-",
            ),
        ),
    ),
)
