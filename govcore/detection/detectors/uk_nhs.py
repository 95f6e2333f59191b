"""The ``uk_nhs`` detector: NHS numbers of England, Wales and the Isle of Man, ten digits whose
last is a modulus 11 check digit.

One ten-digit number in eleven passes the check, and ``943 476 5919`` is also how US phone
numbers are written, so the number's name decides: after a word such as "NHS" it is found at
1.0 of the rule's confidence; written in the NHS's 3-3-4 groups with spaces without the word, at
0.7; with dashes or as ten bare digits without the word, not at all.
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
from govcore.detection.detectors.national import context_words, named_before, weighted_sum

__all__ = ["DETECTOR"]

_NHS_WORDS = context_words("NHS", "NHS number", "NHS no", "NHS no.", "NHS #", "NHS-Nummer")


def nhs_check_ok(digits: list[int]) -> bool:
    """The NHS modulus 11 check: weights 10 down to 2 on the first nine digits; the check digit
    is 11 minus the remainder (11 reads as 0, and a number whose check would be 10 is never
    issued)."""
    check = 11 - weighted_sum(digits, (10, 9, 8, 7, 6, 5, 4, 3, 2)) % 11
    if check == 11:
        check = 0
    return check != 10 and check == digits[9]


def _nhs(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    digits = digits_of(candidate)
    if len(digits) != 10 or len(set(digits)) == 1 or not nhs_check_ok(digits):
        return None
    grouped = len(candidate) == 12 and candidate[3] == candidate[7] and candidate[3] in " -"
    if len(candidate) != 10 and not grouped:
        return None  # one separator, or two different ones: not how the number is written
    if named_before(text, start, _NHS_WORDS):
        return start, end, 1.0
    # Without the word, only as the NHS prints it, with spaces: 3-3-4 with dashes is how US phone
    # numbers are written, and one in eleven of them passes the check.
    return (start, end, 0.7) if grouped and candidate[3] == " " else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="uk_nhs",
    explanation="contains an NHS number",
    replacement="[NHS number removed]",
    example="943 476 5919",
    patterns=(CandidatePattern(rf"{_ND}{{3}}[ \-]?{_ND}{{3}}[ \-]?{_ND}{{4}}", _nhs),),
    contains_other_kinds=True,
)
