"""The ``it_fiscal_code`` detector: Italian fiscal codes (codice fiscale) of people, sixteen
characters (``RSSMRA85T10A562S``): three letters of the surname and three of the name, the
year, a month letter, the day (plus 40 for women), the place of birth and a check letter
computed by the Agenzia delle Entrate's odd and even tables. Codes made distinct by omocodia
(digits replaced by the letters L to V) are read too.

The check letter is validated, so the code is found anywhere at 1.0 of the rule's confidence.
"""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR", "fiscal_code_check"]

# The value of a character in an odd position (first, third, ...): digits and letters alike by
# their rank, 0/A, 1/B, ... 9/J, then K to Z.
_ODD = (
    1,
    0,
    5,
    7,
    9,
    13,
    15,
    17,
    19,
    21,
    2,
    4,
    18,
    20,
    11,
    3,
    6,
    8,
    12,
    14,
    16,
    10,
    22,
    25,
    24,
    23,
)
_MONTHS = "ABCDEHLMPRST"
# Omocodia: a digit of the year, day or place replaced by a letter, 0 to 9 as L M N P Q R S T U V.
_OMOCODE = {letter: str(value) for value, letter in enumerate("LMNPQRSTUV")}
_NUMERIC_POSITIONS = (6, 7, 9, 10, 12, 13, 14)


def _rank(char: str) -> int:
    return ord(char) - 48 if char.isdigit() else ord(char) - 65


def fiscal_code_check(first_fifteen: str) -> str:
    """The check letter of the first fifteen characters (upper case) of a fiscal code."""
    total = 0
    for position, char in enumerate(first_fifteen):
        total += _ODD[_rank(char)] if position % 2 == 0 else _rank(char)
    return chr(65 + total % 26)


def _fiscal_code(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    code = text[start:end]
    if not code.isascii() or not (code.isupper() or code.islower()):
        return None
    code = code.upper()
    plain = list(code)
    for position in _NUMERIC_POSITIONS:
        plain[position] = _OMOCODE.get(plain[position], plain[position])
    if not all(plain[p].isdigit() for p in _NUMERIC_POSITIONS):
        return None
    day = int(plain[9] + plain[10])
    if code[8] not in _MONTHS or not (1 <= day <= 31 or 41 <= day <= 71):
        return None
    return (start, end, 1.0) if fiscal_code_check(code[:15]) == code[15] else None


_DIGIT_OR_OMOCODE = "[0-9LMNPQRSTUVlmnpqrstuv]"

DETECTOR = Detector(
    kind="it_fiscal_code",
    explanation="contains an Italian fiscal code",
    replacement="[fiscal code removed]",
    example="RSSMRA85T10A562S",
    patterns=(
        CandidatePattern(
            rf"[A-Za-z]{{6}}{_DIGIT_OR_OMOCODE}{{2}}[A-Za-z]{_DIGIT_OR_OMOCODE}{{2}}"
            rf"[A-Za-z]{_DIGIT_OR_OMOCODE}{{3}}[A-Za-z]",
            _fiscal_code,
        ),
    ),
    contains_other_kinds=True,
)
