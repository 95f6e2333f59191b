"""The digit-run view of a text: where candidate patterns made only of digits and separators
are searched, instead of the whole text.

Most national identifiers, card numbers and SSNs are candidate patterns such as
``\\p{Nd}{3}[ -]?\\p{Nd}{3}[ -]?\\p{Nd}{3}``: digits and a few separators, at least nine digits,
and nothing else (no word boundary, no anchor, no letter). Every match of such a pattern lies
inside one *run*: a maximal stretch of the text made of digits and the separators
(:data:`RUN_SEPARATORS`) that holds at least :data:`MIN_DIGITS` digits. In prose, the runs are a
small part of the text, so one RE2 pass that finds them, and each such pattern's search over the
runs joined by a line break (which no such pattern matches), replace a pass over the whole text
per pattern.

The answers are RE2's own on the whole text. A match of such a pattern is made of run
characters only, so it lies inside one run and not across the line break between two; inside
a run the bytes are the text's, and the pattern reads no context (it has no ``\\b``, ``^`` or
``$``), so RE2 finds the same matches there, preferring the same one at each start; a text
position outside every run is searched as the start of the next run, where no match is skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

import re2  # type: ignore[import-untyped]

__all__ = ["MIN_DIGITS", "RUN_SEPARATORS", "DigitRuns", "digits_needed"]

MIN_DIGITS = 9
"""The digits a run holds at least, and a pattern's every match at least, to be searched here."""

RUN_SEPARATORS = " -.:+"
"""The characters other than digits a run may hold between its digits."""

_DIGIT = r"\p{Nd}"
_CLASS = r"[\p{Nd} \-.:+]"
_SEPARATOR_CLASS = r"[ \-.:+]"
# A run: leftmost-longest, so from the end of the last run (or the text's start) the next match
# begins where the next run holding enough digits begins, and ends where that run ends.
_RUN_OPTIONS = re2.Options()
_RUN_OPTIONS.longest_match = True
_RUN_OPTIONS.log_errors = False
_RUN = re2.compile(
    f"(?:{_SEPARATOR_CLASS}*{_DIGIT}){{{MIN_DIGITS}}}{_CLASS}*", _RUN_OPTIONS
)._regexp
_UNANCHORED = re2._Anchor.UNANCHORED
_ASCII_COUNT = re.compile("[0-9]+")  # a repeat's count, as RE2 reads one
_JOINER = b"\n"  # not a run character: no pattern searched here matches it


class DigitRuns:
    """The runs of one text (its UTF-8 bytes), found on the first search."""

    __slots__ = ("_data", "_joined", "_run_ends", "_run_offsets", "_run_starts")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._joined: bytes | None = None
        self._run_starts: list[int] = []
        self._run_ends: list[int] = []
        self._run_offsets: list[int] = []  # where each run begins in the joined bytes

    def _join(self) -> bytes:
        data, size = self._data, len(self._data)
        pieces: list[bytes] = []
        offset = position = 0
        while position < size:
            begin, end = _RUN.Match(_UNANCHORED, data, position, size)[0]
            if begin == -1:
                break
            self._run_starts.append(begin)
            self._run_ends.append(end)
            self._run_offsets.append(offset)
            pieces.append(data[begin:end])
            offset += end - begin + len(_JOINER)
            position = end
        self._joined = _JOINER.join(pieces)
        return self._joined

    def search(self, regexp: Any) -> Any:
        """A drop-in for ``regexp.Match`` (``(anchor, data, position, end)`` of this text,
        ``end`` its length) that searches the runs, for a pattern :func:`digits_needed`
        accepts; ``regexp.Match`` itself when the runs are most of the text (a table of
        numbers, a run of digits), where mapping each answer back would cost more than the
        bytes it skips."""
        match = regexp.Match
        joined = self._joined if self._joined is not None else self._join()
        if 2 * len(joined) > len(self._data):
            return match

        def search(anchor: Any, data: bytes, position: int, end: int) -> list[tuple[int, int]]:
            if data is not self._data or end != len(data):
                answer: list[tuple[int, int]] = match(anchor, data, position, end)
                return answer  # not this text's whole: as asked
            # The first run that ends after the position; the search starts at the position
            # when it is inside that run, else at the run's start.
            k = bisect_right(self._run_ends, position)
            if k == len(self._run_ends):
                return [(-1, -1)]
            begin = self._run_offsets[k] + max(0, position - self._run_starts[k])
            found_begin, found_end = match(anchor, joined, begin, len(joined))[0]
            if found_begin == -1:
                return [(-1, -1)]
            run = bisect_right(self._run_offsets, found_begin) - 1
            shift = self._run_starts[run] - self._run_offsets[run]
            return [(found_begin + shift, found_end + shift)]

        return search


def digits_needed(pattern: str) -> int | None:
    """The fewest digits a match of ``pattern`` holds, when the pattern is made only of digits
    (``\\p{Nd}``, ``0``-``9``), run separators, non-capturing groups, alternation and greedy
    repetition; None for anything else (a letter, ``\\b``, ``.``, a capturing group, a lazy or
    possessive repeat, an escape other than ``\\p{Nd}`` and of a separator), which is then
    searched over the whole text."""
    try:
        needed, position = _alternation(pattern, 0)
    except _NotRunShapedError:
        return None
    return needed if position == len(pattern) else None


class _NotRunShapedError(Exception):
    """The pattern holds something other than digits, run separators, groups and repeats."""


def _alternation(pattern: str, position: int) -> tuple[int, int]:
    needed, position = _sequence(pattern, position)
    while position < len(pattern) and pattern[position] == "|":
        other, position = _sequence(pattern, position + 1)
        needed = min(needed, other)
    return needed, position


def _sequence(pattern: str, position: int) -> tuple[int, int]:
    needed = 0
    while position < len(pattern) and pattern[position] not in "|)":
        atom, position = _atom(pattern, position)
        low, position = _repeat(pattern, position)
        needed += atom * low
    return needed, position


def _atom(pattern: str, position: int) -> tuple[int, int]:
    """The digits one atom needs at least, and the position after it."""
    if pattern.startswith(_DIGIT, position):
        return 1, position + len(_DIGIT)
    if pattern.startswith("(?:", position):
        needed, position = _alternation(pattern, position + 3)
        if position >= len(pattern) or pattern[position] != ")":
            raise _NotRunShapedError
        return needed, position + 1
    if pattern[position] == "[":
        return _class(pattern, position + 1)
    char, position = _literal(pattern, position)
    return (1, position) if char.isdigit() and char.isascii() else (0, position)


def _literal(pattern: str, position: int) -> tuple[str, int]:
    """One character written alone or escaped: a digit or a run separator."""
    char = pattern[position]
    if char == "\\" and position + 1 < len(pattern) and pattern[position + 1] in RUN_SEPARATORS:
        return pattern[position + 1], position + 2
    if ("0" <= char <= "9") or (char in RUN_SEPARATORS and char not in ".+"):
        return char, position + 1  # "." and "+" unescaped are not themselves
    raise _NotRunShapedError


def _class(pattern: str, position: int) -> tuple[int, int]:
    """A bracket class (after its ``[``): 1 when it holds only digits, 0 when it holds only run
    characters and some separator."""
    if position < len(pattern) and pattern[position] == "^":
        raise _NotRunShapedError
    only_digits = True
    members = 0
    while position < len(pattern) and pattern[position] != "]":
        if pattern.startswith(_DIGIT, position):
            position += len(_DIGIT)
        elif pattern[position] == "\\":
            char, position = _literal(pattern, position)
            only_digits = only_digits and char.isdigit()
        else:
            char = pattern[position]
            if "0" <= char <= "9":
                position += 1
                if pattern.startswith("-", position) and position + 1 < len(pattern):
                    high = pattern[position + 1]
                    if not ("0" <= high <= "9" and char <= high):
                        raise _NotRunShapedError
                    position += 2
            elif char in RUN_SEPARATORS:
                # A hyphen here is a literal only where it cannot make a range.
                if char == "-" and pattern[position + 1 : position + 2] != "]" and members:
                    raise _NotRunShapedError
                only_digits = False
                position += 1
            else:
                raise _NotRunShapedError
        members += 1
    if position >= len(pattern) or not members:
        raise _NotRunShapedError
    return (1 if only_digits else 0), position + 1


def _repeat(pattern: str, position: int) -> tuple[int, int]:
    """The least count of a repeat after an atom (1 without one), and the position after it."""
    if position >= len(pattern):
        return 1, position
    char = pattern[position]
    if char in "?*":
        low, position = 0, position + 1
    elif char == "+":
        low, position = 1, position + 1
    elif char == "{":
        close = pattern.find("}", position)
        if close == -1:
            raise _NotRunShapedError
        # RE2 reads a repeat only from ASCII digits ("{٩}" is three literal characters), so
        # only those are counts here: str.isdigit would take "٩" or "²" as a count.
        bounds = pattern[position + 1 : close].split(",")
        if (
            len(bounds) > 2
            or not _ASCII_COUNT.fullmatch(bounds[0])
            or not all(_ASCII_COUNT.fullmatch(b) for b in bounds[1:] if b)
        ):
            raise _NotRunShapedError
        low, position = int(bounds[0]), close + 1
    else:
        return 1, position
    if position < len(pattern) and pattern[position] in "?+":
        raise _NotRunShapedError  # lazy or possessive: keep to the plain search
    return low, position
