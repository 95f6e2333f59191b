"""The ``pl_pesel`` detector: Polish PESEL numbers, eleven digits: the date of birth (the month
carries the century: plus 80 for the 1800s, 20 for the 2000s, 40, 60 for later ones), a serial
number and a check digit with the weights 1, 3, 7, 9.

With its check and its date valid it is found at 1.0 of the rule's confidence after a word such
as "PESEL", and at 0.8 without one: eleven digits are also other countries' identifiers.
"""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import (
    DECIMAL_DIGIT,
    CandidatePattern,
    Detector,
    bounded,
    digits_of,
)
from govcore.detection.detectors.national import (
    context_words,
    named_before,
    valid_date,
    weighted_sum,
)

__all__ = ["DETECTOR", "pesel_valid"]

_PESEL_WORDS = context_words("PESEL", "nr PESEL", "numer PESEL", "numerem PESEL")
_WEIGHTS = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
# The month's tens (as a number of 20s) and the century they stand for.
_CENTURIES = {0: 1900, 1: 2000, 2: 2100, 3: 2200, 4: 1800}


def pesel_valid(digits: list[int]) -> bool:
    """Eleven digits with a date of birth that exists and the PESEL check digit."""
    if len(digits) != 11:
        return False
    if (10 - weighted_sum(digits, _WEIGHTS) % 10) % 10 != digits[10]:
        return False
    month = digits[2] * 10 + digits[3]
    year = _CENTURIES[month // 20] + digits[0] * 10 + digits[1]
    return valid_date(year, month % 20, digits[4] * 10 + digits[5])


def _pesel(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues) or not pesel_valid(digits_of(text[start:end])):
        return None
    return start, end, 1.0 if named_before(text, start, _PESEL_WORDS) else 0.8


DETECTOR = Detector(
    kind="pl_pesel",
    explanation="contains a Polish PESEL number",
    replacement="[PESEL removed]",
    example="44051401359",
    patterns=(CandidatePattern(rf"{DECIMAL_DIGIT}{{11}}", _pesel),),
    contains_other_kinds=True,
)
