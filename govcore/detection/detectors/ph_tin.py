"""The ``ph_tin`` detector: Philippine taxpayer identification numbers (BIR), nine digits and a
branch code of three digits (``123-456-789-000``; five in some printings), the ninth digit a
weighted mod-11 check digit (weights 9 down to 2 over the first eight, the remainder is the
digit). BIR does not publish the rule; it is the one public validators apply.

Nine or twelve bare digits are as often something else, so a TIN is reported after its name
("TIN", "taxpayer identification number", "BIR"), or, weaker, printed in groups of three with
hyphens."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors._printed import (
    continues_a_number,
    digit_groups,
    label_pattern,
    labelled,
)
from govcore.detection.detectors.base import (
    DECIMAL_DIGIT,
    CandidatePattern,
    Detector,
    bounded,
    digits_of,
)

__all__ = ["DETECTOR", "tin_valid"]

_WEIGHTS = (9, 8, 7, 6, 5, 4, 3, 2)


def tin_valid(digits: list[int]) -> bool:
    """The check digit of the nine-digit TIN (a branch code after it is not checked)."""
    if len(digits) not in (9, 12, 14):
        return False
    return sum(w * d for w, d in zip(_WEIGHTS, digits, strict=False)) % 11 == digits[8]


_LABEL = label_pattern(r"tins?|taxpayer\s+identification\s+(?:number|no\.?)|bir\s+tin|bir")
_PRINTED = frozenset(((3, 3, 3), (3, 3, 3, 3), (3, 3, 3, 5)))


def _tin(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues) or continues_a_number(text, start, end):
        return None
    groups = digit_groups(text[start:end], "-")
    if groups is None or (len(groups) > 1 and groups not in _PRINTED):
        return None
    if not tin_valid(digits_of(text[start:end])):
        return None
    if labelled(text, start, _LABEL):
        return start, end, 1.0
    return (start, end, 0.7) if len(groups) > 1 else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="ph_tin",
    explanation="contains a Philippine taxpayer identification number",
    replacement="[TIN removed]",
    example="123-456-782-000",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{3}}-?{_ND}{{3}}-?{_ND}{{3}}(?:-?{_ND}{{5}}|-?{_ND}{{3}})?",
            _tin,
            restart_inside=False,
        ),
    ),
)
