"""What the national identifier detectors share: the words that name an identifier before its
value, dates of birth inside identifiers, and the common check-digit schemes.

A bare run of digits is many things; the name of the identifier just before it ("NHS number",
"Steuer-ID", "PESEL") says which. :func:`context_words` builds the test each detector uses.
"""

from __future__ import annotations

import re
from datetime import date

__all__ = ["context_words", "named_before", "valid_date", "weighted_sum"]

# How far before a value its name may stand, and how many characters (no digits, no line break)
# may come between them: "NHS number (England): " is 22.
_LOOK_BACK = 80
_GAP = 32
_SEPARATORS = r"[\s_\-]+"


def context_words(*words: str) -> re.Pattern[str]:
    """A pattern that finds one of ``words`` (case-insensitive, whole words) followed by at most
    32 characters that are neither digits nor line breaks, at the end of the searched slice.

    An underscore or a hyphen separates words as a space does, so the names of fields
    (``nhs_number``, ``"steuer-id":``) count as the words."""
    alternatives = "|".join(sorted((_separated(word) for word in words), key=len, reverse=True))
    return re.compile(rf"(?i)(?<![^\W_])(?:{alternatives})(?![^\W_])[^\d\n]{{0,{_GAP}}}$")


def _separated(word: str) -> str:
    """``word`` as a pattern whose spaces and hyphens each match a run of spaces, ``_`` or
    ``-``."""
    return _SEPARATORS.join(re.escape(part) for part in re.split(r"[ \-]+", word))


def named_before(text: str, start: int, words: re.Pattern[str]) -> bool:
    """Whether the value at ``start`` comes right after one of the words of ``words``."""
    return words.search(text, max(0, start - _LOOK_BACK), start) is not None


def valid_date(year: int, month: int, day: int) -> bool:
    """Whether the day exists in the calendar (29 February only in leap years)."""
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def weighted_sum(digits: list[int], weights: tuple[int, ...]) -> int:
    """The sum of each digit times its weight (as many as there are weights)."""
    return sum(d * w for d, w in zip(digits, weights, strict=False))
