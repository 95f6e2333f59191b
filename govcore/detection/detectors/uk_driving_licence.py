"""The ``uk_driving_licence`` detector: driving licence numbers of Great Britain (DVLA),
sixteen characters (``MORGA753116SM9IJ``): the first five letters of the surname (padded with
9s), the decade of the year of birth, the month (plus 50 for women), the day, the year's last
digit, two initials (9 for none), an arbitrary digit and two check letters.

The DVLA does not publish its check letters' algorithm, so the number is a shape, a
distinctive one (the birth date inside it is validated): found anywhere at 0.85 of the rule's
confidence, 1.0 after a word such as "driving licence". Written in lower case (``morga753116sm9ij``)
it is found at 0.7 (a lower-case token is more often an identifier of some software), 1.0
after such a word. Northern Ireland's licences (eight
digits) are not covered.
"""

from __future__ import annotations

import re

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded
from govcore.detection.detectors.national import context_words, named_before, valid_date

__all__ = ["DETECTOR"]

_WORDS = context_words(
    "driving licence",
    "driving license",
    "driver's licence",
    "driver's license",
    "driver licence",
    "licence number",
    "licence no",
    "DVLA",
    "Führerschein",
    "Führerscheinnummer",
)
_SHAPE = re.compile(r"([A-Z][A-Z]{0,4}9{0,4}) ?(\d)(\d\d)(\d\d)(\d) ?([A-Z][A-Z9])\d([A-Z]{2})")


def _licence(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    return _checked(text, start, end, text[start:end], 0.85)


def _lower_case_licence(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    return _checked(text, start, end, text[start:end].upper(), 0.7)


def _checked(
    text: str, start: int, end: int, capitals: str, unnamed_factor: float
) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    shape = _SHAPE.fullmatch(capitals)
    if shape is None or len(shape.group(1)) != 5:
        return None
    month, day = int(shape.group(3)), int(shape.group(4))
    if month > 50:
        month -= 50
    # The decade is known, the century is not: 2000 is a leap year, so 29 February passes.
    if not valid_date(2000, month, day):
        return None
    return start, end, 1.0 if named_before(text, start, _WORDS) else unnamed_factor


DETECTOR = Detector(
    kind="uk_driving_licence",
    explanation="contains a UK driving licence number",
    replacement="[driving licence number removed]",
    example="MORGA753116SM9IJ",
    patterns=(
        CandidatePattern(r"(?-i:\b[A-Z9]{5} ?[0-9]{6} ?[A-Z9]{2}[0-9][A-Z]{2})", _licence),
        CandidatePattern(
            r"(?-i:\b[a-z9]{5} ?[0-9]{6} ?[a-z9]{2}[0-9][a-z]{2})", _lower_case_licence
        ),
    ),
    contains_other_kinds=True,
)
