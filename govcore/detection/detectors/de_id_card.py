"""The ``de_id_card`` detector: numbers of German identity cards (Personalausweis) issued since
November 2010: nine characters of the digits and the consonants C, F to H, J to N, P, R, T and
V to Z, the first a letter of the issuing authority, and the check digit of ICAO Doc 9303
(weights 7, 3, 1) that the card prints after them in its machine-readable zone.

With the check digit (ten characters) it is found at 0.85 of the rule's confidence, 1.0 after a
word such as "Personalausweis" or "Ausweisnummer"; the nine characters alone only after such a
word, at 0.9 (nothing to check). Cards issued before November 2010 (numbers of digits only) are
not covered.
"""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded
from govcore.detection.detectors.national import context_words, named_before

__all__ = ["DETECTOR", "icao_check"]

_ALPHABET = "0123456789CFGHJKLMNPRTVWXYZ"
_FIRST = "CFGHJKLMNPRTVWXYZ"
_WEIGHTS = (7, 3, 1)
_WORDS = context_words(
    "Personalausweis",
    "Personalausweisnummer",
    "Personalausweis-Nr",
    "Ausweis",
    "Ausweisnummer",
    "Ausweis-Nr",
    "Ausweisnr",
    "Dokumentennummer",
    "ID card",
    "ID card number",
    "identity card",
    "identity card number",
    "carte d'identité",
)


def icao_check(characters: str) -> int:
    """The ICAO Doc 9303 check digit: digits by value, letters A to Z as 10 to 35, weights 7,
    3, 1 repeated, modulo 10."""
    total = 0
    for position, char in enumerate(characters):
        value = ord(char) - 48 if char.isdigit() else ord(char) - 55
        total += value * _WEIGHTS[position % 3]
    return total % 10


def _id_card(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    number = text[start:end]
    serial = number[:9]
    if not number.isascii() or not number.isupper():
        return None
    if not any(c.isdigit() for c in serial[1:]) or any(c not in _ALPHABET for c in serial):
        return None
    named = named_before(text, start, _WORDS)
    if len(number) == 9:
        return (start, end, 0.9) if named else None
    if icao_check(serial) != ord(number[9]) - 48:
        return None
    return start, end, 1.0 if named else 0.85


DETECTOR = Detector(
    kind="de_id_card",
    explanation="contains a German identity card number",
    replacement="[ID card number removed]",
    example="T220001293",
    patterns=(
        CandidatePattern(
            # Capitals only: lower-case hex digests are full of c and f.
            rf"(?-i:\b[{_FIRST}][{_ALPHABET}]{{8}}[0-9]?)",
            _id_card,
        ),
    ),
    contains_other_kinds=True,
)
