"""The ``uk_passport`` detector: UK passport numbers, nine digits, after a word such as
"passport" (in English and the other languages of the corpora).

The number has no check digit of its own (the machine-readable zone adds one, which is not
printed with it), and nine bare digits are anything, so the word is required: after it the
number is found at 1.0 of the rule's confidence.
"""

from __future__ import annotations

import re

from govcore.detection.chars import glues
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector, bounded

__all__ = ["DETECTOR"]

_PASSPORT_WORDS = (
    "passport|passports|passport no|passport number|reisepass|reisepassnummer|passnummer|"
    "pass-nr|passeport|pasaporte|passaporto|paszport|paspoort|passaporte"
)
_NUMBER = re.compile(r"\d{9}$")


def _passport(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    number = _NUMBER.search(text, start, end)
    if number is None or not bounded(text, number.start(), end, glues):
        return None
    return number.start(), end, 1.0


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="uk_passport",
    explanation="contains a UK passport number",
    replacement="[passport number removed]",
    example="533380006",
    example_after="passport number",
    patterns=(
        CandidatePattern(
            # The word is part of the candidate (the span reported is the number's), so the
            # pattern occurs only where a passport is named; at most 32 characters that are
            # neither digits nor line breaks between them ("Passport No. (GBR): ").
            rf"\b(?:{_PASSPORT_WORDS})\b[^\p{{Nd}}\n]{{0,32}}{_ND}{{9}}",
            _passport,
            restart_inside=False,
        ),
    ),
    contains_other_kinds=True,
)
