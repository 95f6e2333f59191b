"""The ``es_nie`` detector: Spanish foreigners' identity numbers (NIE), X, Y or Z, seven digits
and a check letter (``X1234567L``), which the letter table of the DNI validates with X, Y and
Z read as 0, 1 and 2.

Found anywhere at 1.0 of the rule's confidence.
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
from govcore.detection.detectors.es_nif import dni_letter

__all__ = ["DETECTOR"]


def _nie(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    number = "XYZ".index(candidate[0].upper())
    for d in digits_of(candidate):
        number = number * 10 + d
    return (start, end, 1.0) if dni_letter(number) == candidate[-1].upper() else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="es_nie",
    explanation="contains a Spanish NIE",
    replacement="[NIE removed]",
    example="X1234567L",
    patterns=(CandidatePattern(rf"\b[XYZxyz][ \-]?{_ND}{{7}}[ \-]?[A-Za-z]", _nie),),
    contains_other_kinds=True,
)
