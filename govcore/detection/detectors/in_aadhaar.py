"""The ``in_aadhaar`` detector: Indian Aadhaar numbers, twelve digits, the first 2 to 9, the last
a Verhoeff check digit (UIDAI), printed in three groups of four (``2345 6789 0124``; forms and
exports also join them with hyphens or colons)."""

from __future__ import annotations

from govcore.detection.detectors._printed import (
    digit_id_validator,
    label_pattern,
    verhoeff_valid,
)
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector

__all__ = ["DETECTOR", "aadhaar_valid"]


def aadhaar_valid(digits: list[int]) -> bool:
    """UIDAI's rules: twelve digits, the first neither 0 nor 1, passing the Verhoeff check."""
    return len(digits) == 12 and digits[0] >= 2 and verhoeff_valid(digits)


_LABEL = label_pattern(
    r"aadhaar|aadhar|adhaar|uidai|uid(?:\s+(?:number|no\.?))?", r"आधार|ஆதார்|ఆధార్|আধার"
)
_ND = DECIMAL_DIGIT

# One twelve-digit number in ten passes Verhoeff: in UIDAI's groups of four it is an Aadhaar
# number; as a bare run, weaker.
_GROUPED = digit_id_validator(
    length=12,
    printed=((4, 4, 4),),
    check=aadhaar_valid,
    label=_LABEL,
    printed_factor=1.0,
    bare_factor=0.7,
    separators=" -:",
)


def _aadhaar(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    # A colon that joins the number to more of a run (an ARN's account id in
    # "iam::234567890124:role", one more colon-joined group) makes it a part of that run; a
    # colon after a key ("UID:", "aadhaar":) or ending a sentence does not.
    if (
        start >= 2
        and text[start - 1] == ":"
        and (text[start - 2].isdigit() or text[start - 2] == ":")
    ):
        return None
    if text[end : end + 1] == ":" and text[end + 1 : end + 2].isalnum():
        return None
    return _GROUPED(text, start, end)


DETECTOR = Detector(
    kind="in_aadhaar",
    explanation="contains an Indian Aadhaar number",
    replacement="[Aadhaar number removed]",
    example="2345 6789 0124",
    patterns=(
        CandidatePattern(
            rf"{_ND}{{4}}[ :-]?{_ND}{{4}}[ :-]?{_ND}{{4}}",
            _aadhaar,
        ),
    ),
)
