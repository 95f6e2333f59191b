"""The ``se_personnummer`` detector: Swedish personal identity numbers (personnummer) and
coordination numbers (samordningsnummer, the day plus 60): ``YYMMDD-NNNC`` (``+`` from the
100th birthday on), or with the century, ``YYYYMMDD-NNNC``; the last digit is Luhn's check of
the ten others.

With a separator it is found anywhere at 1.0 of the rule's confidence; twelve digits without
one at 0.8; ten bare digits (also a phone number) only after a word such as "personnummer".
After such a word every form is found at 1.0.
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
from govcore.detection.detectors.credit_card import luhn_valid
from govcore.detection.detectors.national import context_words, named_before, valid_date

__all__ = ["DETECTOR"]

_WORDS = context_words(
    "personnummer",
    "personnumret",
    "personnr",
    "pers.nr",
    "pnr",
    "samordningsnummer",
    "personal identity number",
    "Swedish ID",
)


def _date_ok(century: int | None, yy: int, month: int, day: int) -> bool:
    if day > 60:
        day -= 60  # a coordination number
    years = [century * 100 + yy] if century is not None else [1900 + yy, 2000 + yy]
    return any(valid_date(year, month, day) for year in years)


def _personnummer(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    digits = digits_of(candidate)
    separated = not candidate[-5].isdigit() and not candidate[-5].isalpha()
    century: int | None = None
    if len(digits) == 12:
        century = digits[0] * 10 + digits[1]
        if century not in (18, 19, 20):
            return None
        digits = digits[2:]
        if separated and candidate[-5] == "+":
            return None  # "+" stands for the century the twelve-digit form already gives
    if len(digits) != 10 or len(set(digits)) == 1:
        return None
    yy, month, day = (
        digits[0] * 10 + digits[1],
        digits[2] * 10 + digits[3],
        digits[4] * 10 + digits[5],
    )
    if not _date_ok(century, yy, month, day) or not luhn_valid(digits):
        return None
    if named_before(text, start, _WORDS):
        return start, end, 1.0
    if separated:
        return start, end, 1.0
    return (start, end, 0.8) if century is not None else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="se_personnummer",
    explanation="contains a Swedish personal identity number",
    replacement="[personnummer removed]",
    example="811228-9874",
    patterns=(CandidatePattern(rf"(?:{_ND}{{2}})?{_ND}{{6}}[\-+]?{_ND}{{4}}", _personnummer),),
    contains_other_kinds=True,
)
