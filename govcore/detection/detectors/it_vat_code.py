"""The ``it_vat_code`` detector: Italian VAT numbers (partita IVA), eleven digits: the
company's number, the provincial office's code (001 to 100, 120, 121, 888 or 999) and a check
digit computed as Luhn's.

With the ``IT`` prefix of the EU VAT number (``IT01234560017``, ``IT 01234560017``,
``IT-01234560017``, ``IT: 01234560017``) it is found anywhere at 1.0 of the rule's
confidence. Eleven bare digits are also a Polish PESEL, a German tax ID or a phone number, so
without the prefix it is found only after a word such as "partita IVA", "P.IVA" or "VAT".
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
from govcore.detection.detectors.national import context_words, named_before

__all__ = ["DETECTOR", "vat_code_valid"]

_VAT_WORDS = context_words(
    "partita IVA",
    "partita I.V.A.",
    "P.IVA",
    "P. IVA",
    "P.I.",
    "PIVA",
    "IVA",
    "VAT",
    "VAT no",
    "VAT number",
    "VAT ID",
    "USt-IdNr",
    "USt-ID",
    "numéro de TVA",
    "TVA",
)
_OFFICES = frozenset((*range(1, 101), 120, 121, 888, 999))


def vat_code_valid(digits: list[int]) -> bool:
    """Eleven digits, a provincial office that exists, and Luhn's check."""
    if len(digits) != 11 or len(set(digits[:7])) == 1:
        return False
    office = digits[7] * 100 + digits[8] * 10 + digits[9]
    return office in _OFFICES and luhn_valid(digits)


def _vat(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    if not vat_code_valid(digits_of(text[start:end])):
        return None
    if text[start].isalpha():
        return (start, end, 1.0) if text[start : start + 2] == "IT" else None
    return (start, end, 1.0) if named_before(text, start, _VAT_WORDS) else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="it_vat_code",
    explanation="contains an Italian VAT number",
    replacement="[VAT number removed]",
    example="IT01234560017",
    patterns=(CandidatePattern(rf"(?:\bIT(?: ?[-:] ?| )?)?{_ND}{{11}}", _vat),),
    contains_other_kinds=True,
)
