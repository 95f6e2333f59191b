"""How national identifiers are printed, shared by the country detectors: the groups of digits a
candidate is written in, the label that names it just before, and the check-digit schemes more
than one country uses (Verhoeff).

A country's number is often nine to thirteen bare digits, which a price, an order number or a
phone number can be too. What tells them apart is how the authority prints it ("123 456 782" for
a TFN, "1-2345-67890-12-1" for a Thai ID) and the word that names it ("TFN", "Aadhaar"), so each
detector reads both from here and weighs them the same way.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]

from govcore.detection.chars import glues, is_digit
from govcore.detection.detectors.base import Validator, bounded, digits_of

__all__ = [
    "Label",
    "continues_a_number",
    "digit_groups",
    "digit_id_validator",
    "label_pattern",
    "labelled",
    "verhoeff_valid",
]


def digit_groups(candidate: str, separators: str = " -") -> tuple[int, ...] | None:
    """The sizes of the runs of digits in ``candidate``, when they are joined by one and the same
    separator of ``separators`` each time; None for mixed, doubled or other separators."""
    sizes: list[int] = []
    run = 0
    separator = ""
    for char in candidate:
        if is_digit(char):
            run += 1
            continue
        if run == 0 or char not in separators or (separator and char != separator):
            return None
        separator = char
        sizes.append(run)
        run = 0
    if run == 0:
        return None
    sizes.append(run)
    return tuple(sizes)


# How far before a value its label may end: "Tax file number (TFN): 123 456 782" has 8
# characters between the label and the number.
_LABEL_GAP = 24
_LOOK_BACK = 96


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


@dataclass(frozen=True, slots=True)
class Label:
    """The words that name an identifier, ready to be looked for just before a value."""

    pattern: Any
    """An RE2 pattern of the words, then up to 24 characters without a digit or line break,
    then the end of the text. RE2 rather than ``re``: the pattern is tried on every candidate
    that passes its check, and ``re`` tries each alternation at each of the window's positions
    (about 60 µs a search for all labels, RE2 about 6 µs)."""

    def names(self, text: str, start: int) -> bool:
        """Whether a word of the label ends at most 24 characters before ``start``."""
        return self.pattern.search(text[max(0, start - _LOOK_BACK) : start]) is not None


def label_pattern(ascii_words: str, other_words: str = "") -> Label:
    """The words that name an identifier. ``ascii_words`` are an alternation of words in Latin
    letters, matched on word boundaries (so "SIN" is not read in "SINGLE"); ``other_words`` of
    words in other scripts, matched anywhere (Thai, Korean and Hindi prose does not put spaces
    where a word boundary would be found)."""
    # Words of a label may be joined by spaces, underscores or hyphens ("tax_file_number" as a
    # JSON key), and are compared with the normalised text, so they are normalised the same way
    # (NFKC turns Thai SARA AM into two characters).
    ascii_words = ascii_words.replace(r"\s+", r"[\s_-]+")
    words = rf"\b(?:{ascii_words})\b"
    if other_words:
        words = rf"(?:{words}|{unicodedata.normalize('NFKC', other_words)})"
    return _label_before(words)


def _label_before(words: str, gap: str = rf"[^\d\n]{{0,{_LABEL_GAP}}}") -> Label:
    return Label(re2.compile(rf"(?i)(?:{words}){gap}$", _RE2_OPTIONS))


def labelled(text: str, start: int, label: Label) -> bool:
    """Whether a word of ``label`` (made by :func:`label_pattern`) names the value at ``start``."""
    return label.names(text, start)


# The dihedral group D5: the multiplication table, the permutation applied at each position
# (by position modulo 8), as Verhoeff defined them (1969).
_VERHOEFF_MULTIPLY = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8),
    (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2),
    (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_PERMUTE = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0),
    (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5),
    (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def verhoeff_valid(digits: list[int]) -> bool:
    """The Verhoeff check of a number whose last digit is its check digit (Aadhaar, NIN)."""
    check = 0
    for position, value in enumerate(reversed(digits)):
        check = _VERHOEFF_MULTIPLY[check][_VERHOEFF_PERMUTE[position % 8][value]]
    return check == 0


# Separators that join groups of digits into one number: "4111 1111 1111 1111" holds no
# twelve-digit number "4111 1111 1111", "+61 2 9876 5432" no "2 9876".
_GROUP_SEPARATORS = frozenset(" -./")


def continues_a_number(text: str, start: int, end: int) -> bool:
    """Whether the span is part of a longer run of digit groups: a separator and a digit just
    before or just after it."""
    before = start >= 2 and text[start - 1] in _GROUP_SEPARATORS and is_digit(text[start - 2])
    after = end + 1 < len(text) and text[end] in _GROUP_SEPARATORS and is_digit(text[end + 1])
    return before or after


def digit_id_validator(
    *,
    length: int,
    printed: Collection[tuple[int, ...]],
    check: Callable[[list[int]], bool],
    label: Label,
    printed_factor: float | None,
    bare_factor: float | None,
    separators: str = " -",
) -> Validator:
    """The validator of an identifier of ``length`` digits that passes ``check``.

    Its confidence factor is 1.0 after a word of ``label``; otherwise ``printed_factor`` when it
    is written in one of the authority's groupings (``printed``, the sizes of its groups, such as
    ``(3, 3, 3)``) and ``bare_factor`` when it is one run of digits. A factor of None means the
    value is not reported in that form without its label. Other groupings, mixed separators and
    values glued to more letters or digits are refused.
    """

    def validate(text: str, start: int, end: int) -> tuple[int, int, float] | None:
        if not bounded(text, start, end, glues) or continues_a_number(text, start, end):
            return None
        groups = digit_groups(text[start:end], separators)
        if groups is None or (len(groups) > 1 and groups not in printed):
            return None
        digits = digits_of(text[start:end])
        if len(digits) != length or not check(digits):
            return None
        if labelled(text, start, label):
            return start, end, 1.0
        factor = bare_factor if len(groups) == 1 else printed_factor
        return None if factor is None else (start, end, factor)

    return validate
