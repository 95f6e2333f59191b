"""The ``es_nif`` detector: Spanish NIF of people, the DNI's eight digits and its check letter
(``12345678Z``), and the K, L and M forms (seven digits between the letters), with the
checksum letter of the Ministry of the Interior's table.

The check letter is validated, so the number is found anywhere at 1.0 of the rule's confidence.
Company NIFs (the former CIF, a letter first and a control digit or letter last) are not
covered, and neither is the foreigners' NIE (``es_nie``).
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

__all__ = ["DETECTOR", "dni_letter"]

_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_letter(number: int) -> str:
    """The check letter of a DNI or NIE number: the number modulo 23 indexes the table."""
    return _LETTERS[number % 23]


def _number(digits: list[int]) -> int:
    value = 0
    for d in digits:
        value = value * 10 + d
    return value


def _nif(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    letter = candidate[-1].upper()
    digits = digits_of(candidate)
    if not any(digits):
        # 00000000T is the form-filler's placeholder, no one's number. Other repeated digits
        # (55555555K) are numbers the Ministry issues like any other.
        return None
    if candidate[0].isalpha() and candidate[0].upper() not in "KLM":
        return None
    return (start, end, 1.0) if dni_letter(_number(digits)) == letter else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="es_nif",
    explanation="contains a Spanish NIF",
    replacement="[NIF removed]",
    example="12345678Z",
    patterns=(
        CandidatePattern(
            # "12345678Z", "12345678-Z", "12.345.678-Z", "K1234567L", "M-1234567-L".
            rf"(?:{_ND}{{8}}|{_ND}{{2}}\.{_ND}{{3}}\.{_ND}{{3}}|[KLMklm]-?{_ND}{{7}})[ \-]?[A-Za-z]",
            _nif,
        ),
    ),
    contains_other_kinds=True,
)
