"""The ``us_ssn`` detector: US social security numbers, nine digits with the area, group and
serial rules; weaker without separators unless a word such as "SSN" comes just before."""

from __future__ import annotations

import re

from govcore.detection.chars import glues
from govcore.detection.detectors.base import (
    DECIMAL_DIGIT,
    CandidatePattern,
    Detector,
    bounded,
    digits_of,
)

__all__ = ["DETECTOR"]

_SSN_WORDS = re.compile(r"(?i)\b(?:ssn|ssns|social security|soc\.? sec\.?|ss#)[^\d\n]{0,24}$")


def _ssn(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    digits = digits_of(candidate)
    if len(digits) != 9:
        return None
    area = digits[0] * 100 + digits[1] * 10 + digits[2]
    group = digits[3] * 10 + digits[4]
    serial = digits[5] * 1000 + digits[6] * 100 + digits[7] * 10 + digits[8]
    if area in (0, 666) or area >= 900 or group == 0 or serial == 0:
        return None
    separated = len(candidate) == 11 and candidate[3] == candidate[6] and candidate[3] in "- ."
    if len(candidate) != 9 and not separated:
        return None  # mixed or odd separators: not the SSN shape
    if separated or _SSN_WORDS.search(text[max(0, start - 48) : start]) is not None:
        return start, end, 1.0
    return start, end, 0.8


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="us_ssn",
    explanation="contains a US social security number",
    replacement="[SSN removed]",
    example="123-45-6789",
    patterns=(CandidatePattern(rf"{_ND}{{3}}[- .]?{_ND}{{2}}[- .]?{_ND}{{4}}", _ssn),),
)
