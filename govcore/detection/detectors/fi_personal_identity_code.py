"""The ``fi_personal_identity_code`` detector: Finnish personal identity codes (henkilötunnus),
``131052-308T``: the date of birth, a century sign (``+`` for the 1800s; ``-``, ``Y``, ``X``,
``W``, ``V``, ``U`` for the 1900s; ``A`` to ``F`` for the 2000s), an individual number and a
check character, the nine digits modulo 31 in the Digital and Population Data Services
Agency's table.

The check is validated and the shape is distinctive, so the code is found anywhere at 1.0 of
the rule's confidence, in capitals or, as some forms and databases store it, in lower case
(``131052a308t``); a code whose two letters mix cases is refused.
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
from govcore.detection.detectors.national import valid_date

__all__ = ["DETECTOR", "finnish_check"]

_CHECK_CHARACTERS = "0123456789ABCDEFHJKLMNPRSTUVWXY"
_CENTURIES = {
    "+": 1800,
    **dict.fromkeys("-YXWVU", 1900),
    **dict.fromkeys("ABCDEF", 2000),
}


def finnish_check(nine_digits: int) -> str:
    """The check character of the date and individual number read as one number."""
    return _CHECK_CHARACTERS[nine_digits % 31]


def _identity_code(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    code = text[start:end]
    sign, check = code[6], code[10]
    letters = [char for char in (sign, check) if char.isalpha()]
    if not check.isascii() or len({char.isupper() for char in letters}) > 1:
        # Mixed cases ("131052a308T"): a token, not a code as anyone writes it.
        return None
    sign, check = sign.upper(), check.upper()
    if sign not in _CENTURIES:
        return None
    digits = digits_of(code[:6] + code[7:10])
    day, month, year = (digits[0] * 10 + digits[1], digits[2] * 10 + digits[3],
                        _CENTURIES[sign] + digits[4] * 10 + digits[5])  # fmt: skip
    individual = digits[6] * 100 + digits[7] * 10 + digits[8]
    if individual < 2 or not valid_date(year, month, day):
        return None
    number = 0
    for d in digits:
        number = number * 10 + d
    return (start, end, 1.0) if finnish_check(number) == check else None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="fi_personal_identity_code",
    explanation="contains a Finnish personal identity code",
    replacement="[personal identity code removed]",
    example="131052-308T",
    patterns=(
        CandidatePattern(rf"{_ND}{{6}}[+\-A-FU-Ya-fu-y]{_ND}{{3}}[0-9A-Ya-y]", _identity_code),
    ),
    contains_other_kinds=True,
)
