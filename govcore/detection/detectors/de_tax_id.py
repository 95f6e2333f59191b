"""The ``de_tax_id`` detector: German tax identification numbers (steuerliche
Identifikationsnummer, IdNr), eleven digits: the first never 0; among the first ten, one digit
appears twice or three times (three times never all side by side) and each other at most once;
the last is the check digit of ISO/IEC 7064 MOD 11,10.

With its rules met it is found at 1.0 of the rule's confidence after a word such as "Steuer-ID"
or "IdNr", and at 0.8 without one (eleven digits are also other countries' identifiers).
"""

from __future__ import annotations

from collections import Counter

from govcore.detection.chars import glues
from govcore.detection.detectors.base import (
    DECIMAL_DIGIT,
    CandidatePattern,
    Detector,
    bounded,
    digits_of,
)
from govcore.detection.detectors.national import context_words, named_before

__all__ = ["DETECTOR", "mod_11_10_check", "tax_id_valid"]

_WORDS = context_words(
    "Steuer-ID",
    "Steuer-IdNr",
    "Steuer-Identifikationsnummer",
    "Steueridentifikationsnummer",
    "steuerliche Identifikationsnummer",
    "Identifikationsnummer",
    "IdNr",
    "IdNr.",
    "Steuernummer",
    "tax ID",
    "tax identification number",
    "TIN",
)


def mod_11_10_check(digits: list[int]) -> int:
    """The ISO/IEC 7064 MOD 11,10 check digit of ``digits``."""
    product = 10
    for value in digits:
        total = (value + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10


def tax_id_valid(digits: list[int]) -> bool:
    """The Federal Central Tax Office's rules for an IdNr (eleven digits)."""
    if len(digits) != 11 or digits[0] == 0:
        return False
    counts = Counter(digits[:10])
    repeated = [d for d, n in counts.items() if n > 1]
    if len(repeated) != 1 or counts[repeated[0]] > 3:
        return False
    if counts[repeated[0]] == 3:
        twice_over = repeated[0]
        if any(digits[i] == digits[i + 1] == digits[i + 2] == twice_over for i in range(8)):
            return False
    return mod_11_10_check(digits[:10]) == digits[10]


def _tax_id(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues) or not tax_id_valid(digits_of(text[start:end])):
        return None
    return start, end, 1.0 if named_before(text, start, _WORDS) else 0.8


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="de_tax_id",
    explanation="contains a German tax identification number",
    replacement="[tax ID removed]",
    example="86 095 742 719",
    patterns=(
        CandidatePattern(
            # Eleven digits, or as printed on the notices: 2, 3, 3 and 3 digits.
            rf"{_ND}{{11}}|{_ND}{{2}} {_ND}{{3}} {_ND}{{3}} {_ND}{{3}}",
            _tax_id,
        ),
    ),
    contains_other_kinds=True,
)
