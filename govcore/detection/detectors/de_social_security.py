"""The ``de_social_security`` detector: German pension insurance numbers
(Versicherungsnummer, the social security number), twelve characters (``65 170839 J 003``):
the area number, the date of birth, the surname's initial, a serial number and a check digit
(weights 2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1 over the digits with the letter as its two-digit
rank, the products' digit sums added, modulo 10).

The check digit and the date are validated and the shape is distinctive, so the number is
found anywhere at 1.0 of the rule's confidence.
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
from govcore.detection.detectors.national import valid_date

__all__ = ["DETECTOR", "pension_number_check"]

_WEIGHTS = (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)


def pension_number_check(digits: list[int], letter: str) -> int:
    """The check digit of the first eleven characters: ten digits around ``letter``."""
    rank = ord(letter) - 64
    spread = [*digits[:8], rank // 10, rank % 10, *digits[8:10]]
    total = 0
    for value, weight in zip(spread, _WEIGHTS, strict=True):
        product = value * weight
        total += product // 10 + product % 10
    return total % 10


def _pension_number(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    letters = [c for c in candidate if c.isalpha()]
    if len(letters) != 1 or not ("A" <= letters[0] <= "Z"):
        return None
    digits = digits_of(candidate)
    day, month = digits[2] * 10 + digits[3], digits[4] * 10 + digits[5]
    # The year's century is not in the number; 2000 is a leap year, so 29 February passes.
    if not valid_date(2000 + digits[6] * 10 + digits[7], month, day):
        return None
    if pension_number_check(digits, letters[0]) != digits[10]:
        return None
    return start, end, 1.0


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="de_social_security",
    explanation="contains a German social security number",
    replacement="[social security number removed]",
    example="65 170839 J 003",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{2}} ?{_ND}{{6}} ?[A-Za-z] ?{_ND}{{2}} ?{_ND}",
            _pension_number,
        ),
    ),
    contains_other_kinds=True,
)
