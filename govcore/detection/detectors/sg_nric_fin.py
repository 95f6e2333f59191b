"""The ``sg_nric_fin`` detector: Singapore NRIC and FIN numbers, a prefix letter (S, T for
citizens and permanent residents; F, G, M for foreigners), seven digits and a check letter."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded, digits_of

__all__ = ["DETECTOR", "nric_valid"]

_WEIGHTS = (2, 7, 6, 5, 4, 3, 2)
# Per prefix: the constant added to the weighted sum, and the check letters by remainder mod 11.
_SERIES = {
    "S": (0, "JZIHGFEDCBA"),
    "T": (4, "JZIHGFEDCBA"),
    "F": (0, "XWUTRQPNMLK"),
    "G": (4, "XWUTRQPNMLK"),
    "M": (3, "XWUTRQPNJLK"),  # the M series (2022): "KLJNPQRTUWX" read from the remainder 10 down
}


def nric_valid(nric: str) -> bool:
    """The ICA's check letter of an NRIC or FIN (upper case)."""
    series = _SERIES.get(nric[:1])
    digits = digits_of(nric[1:8])
    if series is None or len(nric) != 9 or len(digits) != 7:
        return False
    constant, letters = series
    total = constant + sum(w * d for w, d in zip(_WEIGHTS, digits, strict=True))
    return letters[total % 11] == nric[8]


def _nric(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    if candidate[0].isupper() != candidate[8].isupper():
        return None  # "s1234567D": as written on the card, both letters share their case
    return (start, end, 1.0) if nric_valid(candidate.upper()) else None


DETECTOR = Detector(
    kind="sg_nric_fin",
    explanation="contains a Singapore NRIC or FIN",
    replacement="[NRIC removed]",
    example="S1234567D",
    patterns=(CandidatePattern(r"[STFGM][0-9]{7}[A-Z]", _nric),),
)
