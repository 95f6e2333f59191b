"""The Hyperscan engine: where the matches of a scanner's patterns can begin, for all of them in
one pass, so that RE2 only has to confirm each match where it is.

The RE2 engine finds a present pattern's matches with RE2 searches over the whole text, one
pattern after another. This engine compiles every pattern into one Hyperscan database (block
mode, once per policy-set version) and scans the text once. Hyperscan reports every offset where
a match of a pattern ends, with the leftmost offset where a match ending there can begin
(``HS_FLAG_SOM_LEFTMOST``). That is enough for an exact answer without trusting Hyperscan's
semantics to be RE2's:

- every match RE2 would find, ``[a, b)``, ends at an offset Hyperscan reports, ``b``, with a
  reported start at or before ``a``, as long as the pattern Hyperscan runs matches at least
  what the RE2 pattern matches (a **superset**);
- so no RE2 match that begins at or after a position ``p`` begins before the lowest reported
  start among the reports that end after ``p`` (:meth:`MatchStarts.search_from`);
- the scanner's RE2 search loop therefore starts each search there instead of at ``p``, and
  finds the same match RE2 alone finds, having skipped only text where no match begins. RE2
  still decides every match, its span and its alternatives, so the engines cannot disagree.

What Hyperscan runs is the pattern rewritten into a superset (:func:`superset_pattern`), since
the two libraries' Unicode tables are not of the same version: a Unicode class, a character
class that can hold a cased non-ASCII character, and a cased non-ASCII literal each become "their ASCII members,
as RE2 sees them, or any non-ASCII character". ASCII syntax (``\\b``, ``\\d``, ``\\w``, classes
of ASCII characters, case folding of ASCII letters) means the same in both without Hyperscan's
UCP flag. A pattern Hyperscan cannot compile with start offsets (it may match the empty string,
is too large for start-of-match tracking, or uses syntax Hyperscan lacks) is left to RE2 in the
same scan; :class:`Fallback` says which and why (``govcore validate`` prints them).

``hyperscan`` (the ``govcore[hyperscan]`` extra) is imported only when a scanner is built with
this engine: :func:`available` says whether it can be.
"""

from __future__ import annotations

import importlib
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from queue import Empty, SimpleQueue
from typing import Any

import re2  # type: ignore[import-untyped]

__all__ = [
    "Fallback",
    "HyperscanSearch",
    "MatchStarts",
    "UnsupportedPatternError",
    "available",
    "superset_pattern",
]

_NON_ASCII_RANGE = r"\x{80}-\x{10FFFF}"

# RE2's view of a character class, to learn its ASCII members: case-insensitive like the
# scanner's patterns. A part of a pattern written case-sensitive ((?-i:...)) then gets a few
# members more than it has, which only widens the superset.
_MEMBER_OPTIONS = re2.Options()
_MEMBER_OPTIONS.case_sensitive = False
_MEMBER_OPTIONS.log_errors = False


class UnsupportedPatternError(ValueError):
    """A pattern this engine leaves to RE2; the message says why."""


@dataclass(frozen=True, slots=True)
class Fallback:
    """A pattern that RE2 searches alone, in the same scan, because Hyperscan cannot."""

    pattern_id: int
    reason: str


def available() -> bool:
    """Whether the ``hyperscan`` package (``govcore[hyperscan]``) can be imported."""
    try:
        importlib.import_module("hyperscan")
    except ImportError:
        return False
    return True


def _hyperscan() -> Any:
    return importlib.import_module("hyperscan")


# --- the superset pattern --------------------------------------------------------------------


def superset_pattern(pattern: str) -> str:
    """``pattern`` (RE2 syntax) rewritten for Hyperscan so that it matches wherever RE2 matches
    ``pattern``, and possibly more.

    Unicode classes (``\\p{L}``, ``\\PN``), character classes that can hold a non-ASCII
    character and non-ASCII literals (also written ``\\x{e9}``, ``\\351`` or escaped) become the
    class of their ASCII members, as RE2 decides them case-insensitively, and every non-ASCII
    character. Everything else is ASCII syntax both libraries read alike.

    Raises:
        UnsupportedPatternError: syntax with no superset in Hyperscan (``\\C``, a ``\\Q`` inside a class).
    """
    pieces: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "\\":
            end = _escape_end(pattern, index)
            escape = pattern[index:end]
            if escape[1] == "Q":
                quoted_end = pattern.find("\\E", end)
                quoted = pattern[end : size if quoted_end == -1 else quoted_end]
                pieces += [_quoted(c) for c in quoted]
                index = size if quoted_end == -1 else quoted_end + 2
                continue
            if escape[1] == "C":
                raise UnsupportedPatternError(
                    r"\C (any byte) has no equivalent in Hyperscan's UTF-8 mode"
                )
            if len(escape) == 2 and not escape[1].isascii():
                pieces.append(_literal(escape[1]))  # an escaped non-ASCII character is itself
            else:
                pieces.append(_widened(escape) if _may_be_non_ascii(escape) else escape)
            index = end
        elif char == "[":
            end = _class_end(pattern, index)
            written = pattern[index:end]
            keep = not _may_be_non_ascii(written) or _codes_without_case(written)
            pieces.append(written if keep else _widened(written))
            index = end
        else:
            pieces.append(_literal(char))
            index += 1
    return "".join(pieces)


def _escape_end(pattern: str, index: int) -> int:
    """Where the escape sequence at ``pattern[index]`` (a backslash) ends."""
    if index + 1 >= len(pattern):
        raise UnsupportedPatternError("the pattern ends with a backslash")
    kind = pattern[index + 1]
    if kind in "pPx" and pattern.startswith("{", index + 2):
        close = pattern.find("}", index + 3)
        if close == -1:
            raise UnsupportedPatternError(f"\\{kind}{{ is not closed")
        return close + 1
    if kind in "pP":
        return index + 3  # \pN: a one-letter class name
    if kind == "x":
        return index + 4  # \xHH
    if kind in "01234567":
        end = index + 2
        while end < min(len(pattern), index + 4) and pattern[end] in "01234567":
            end += 1
        return end
    return index + 2


def _class_end(pattern: str, index: int) -> int:
    """Where the character class opening at ``pattern[index]`` ends (after its ``]``)."""
    position = index + 1
    if pattern.startswith("^", position):
        position += 1
    if pattern.startswith("]", position):
        position += 1  # a "]" first in a class is a literal
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            end = _escape_end(pattern, position)
            if pattern[position + 1] == "Q":
                raise UnsupportedPatternError(r"\Q...\E inside a character class")
            position = end
        elif pattern.startswith("[:", position):
            close = pattern.find(":]", position + 2)
            position = position + 1 if close == -1 else close + 2
        elif char == "]":
            return position + 1
        else:
            position += 1
    raise UnsupportedPatternError("a character class is not closed")


def _may_be_non_ascii(written: str) -> bool:
    """Whether an escape or a class may match a non-ASCII character other than those that fold
    into ASCII letters (the long s and the Kelvin sign, which normalised text no longer holds):
    it names a Unicode class, or holds a non-ASCII character or character code. A negated
    class of ASCII characters holds every non-ASCII character in both libraries alike."""
    if not written.isascii():
        return True
    if "\\p" in written or "\\P" in written:
        return True
    for position in range(len(written)):
        if written[position] != "\\" or position + 1 >= len(written):
            continue
        if written[position + 1] == "x":
            code = written[position + 2 :]
            digits = code[1 : code.find("}")] if code.startswith("{") else code[:2]
            if _code(digits) >= 0x80:
                return True
        elif written[position + 1] in "01234567":
            digits = ""
            for char in written[position + 1 : position + 4]:
                if char not in "01234567":
                    break
                digits += char
            if int(digits, 8) >= 0x80:
                return True
    return False


def _codes_without_case(written: str) -> bool:
    """Whether a character class's non-ASCII members are all written out (characters, codes,
    ranges) and none has case: then both libraries read it alike, with no Unicode table (the
    whitespace classes of terms)."""
    body = written[2:-1] if written.startswith("[^") else written[1:-1]
    if "\\p" in body or "\\P" in body:
        return False
    position = 0
    while position < len(body):
        low, position = _class_atom(body, position)
        high = low
        if low is not None and body.startswith("-", position) and position + 1 < len(body):
            high, position = _class_atom(body, position + 1)
        if low is None or high is None or high < 0x80:
            continue  # \d, \W, [:alpha:]: ASCII, or every non-ASCII character in both
        if high - low > 4096 or any(_has_case(chr(c)) for c in range(low, high + 1)):
            return False
    return True


def _class_atom(body: str, position: int) -> tuple[int | None, int]:
    """The code of the class member at ``position`` (None for a set such as ``\\d``), and
    where it ends."""
    if body[position] == "\\":
        end = _escape_end(body, position)
        return _escaped_code(body[position:end]), end
    if body.startswith("[:", position):
        close = body.find(":]", position + 2)
        return None, position + 1 if close == -1 else close + 2
    return ord(body[position]), position + 1


def _escaped_code(escape: str) -> int | None:
    """The code of an escape that stands for one character, else None (``\\d``, ``\\w``)."""
    kind = escape[1]
    if kind == "x":
        return _code(escape[3:-1] if escape.startswith("\\x{") else escape[2:])
    if kind in "01234567":
        return int(escape[1:], 8)
    if not kind.isascii():
        return ord(kind)
    return None if kind.isalnum() else ord(kind)


def _has_case(char: str) -> bool:
    return not char.lower() == char.upper() == char.casefold() == char


def _code(digits: str) -> int:
    try:
        return int(digits, 16)
    except ValueError:
        raise UnsupportedPatternError(
            f"\\x{digits!r} is not a hexadecimal character code"
        ) from None


def _quoted(char: str) -> str:
    """A character of a ``\\Q...\\E`` sequence, which is literal whatever it is."""
    if char.isascii():
        return char if char.isalnum() else f"\\x{{{ord(char):x}}}"
    return _literal(char)


def _literal(char: str) -> str:
    """A literal character of a pattern, for Hyperscan. A non-ASCII one that has no case
    stays itself (its code); one with case is widened, since the two libraries fold case with
    Unicode tables of different versions. Unicode's case-pair stability policy keeps two
    characters that were not a case pair from becoming one, so a character without case in
    Python's tables only gains a partner in a character newer than them."""
    if char.isascii():
        return char
    if not _has_case(char):
        return f"\\x{{{ord(char):x}}}"
    return _widened(f"\\x{{{ord(char):x}}}")


@cache
def _widened(written: str) -> str:
    """A class of what RE2 matches with ``written`` (one character) among ASCII characters,
    and of every non-ASCII character."""
    try:
        compiled = re2.compile(written, _MEMBER_OPTIONS)
    except re2.error as exc:
        raise UnsupportedPatternError(
            f"RE2 does not read {written!r} as one character: {exc}"
        ) from None
    members = [code for code in range(128) if compiled.fullmatch(chr(code)) is not None]
    runs: list[list[int]] = []
    for code in members:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    written_runs = "".join(
        f"\\x{{{low:x}}}" + (f"-\\x{{{high:x}}}" if high > low else "") for low, high in runs
    )
    return f"[{written_runs}{_NON_ASCII_RANGE}]"


# --- the database ----------------------------------------------------------------------------


class MatchStarts:
    """The reports of one pattern: for each reported end offset, the leftmost start of a match
    ending there (UTF-8 byte offsets)."""

    __slots__ = ("_ends", "_lowest_start")

    def __init__(self, reports: list[tuple[int, int]]) -> None:
        """``reports``: ``(end, start)`` pairs, in any order."""
        reports.sort()
        self._ends = [end for end, _ in reports]
        # The lowest start among the reports from each one to the last: a search from any
        # position may skip to it.
        lowest = [0] * len(reports)
        floor = reports[-1][1] if reports else 0
        for position in range(len(reports) - 1, -1, -1):
            floor = min(floor, reports[position][1])
            lowest[position] = floor
        self._lowest_start = lowest

    def search_from(self, position: int) -> int | None:
        """Where a search for the next match that begins at or after ``position`` can start
        without passing one: ``None`` when no match can."""
        after = bisect_right(self._ends, position)
        if after == len(self._ends):
            return None
        return max(position, self._lowest_start[after])


# Reports a scan may collect per byte of text before it stops. Hyperscan reports a match at
# every end offset, so a run of digits makes each digit pattern report at nearly every byte:
# a review measured 7.8 s and 1.5 GB on 100 to 300 KB of "1", where RE2 alone takes under 1 s.
# Past the budget the scan stops and RE2 searches every pattern without hints, which is what
# the RE2 engine does; ordinary text reports a small fraction of this.
_REPORTS_PER_BYTE = 2
_MIN_REPORT_BUDGET = 4096


class _Reports(list[tuple[int, int, int]]):
    """The reports of one scan, and how many it may hold."""

    __slots__ = ("budget",)

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.budget = budget


def _on_match(pattern_id: int, start: int, end: int, flags: int, reports: _Reports) -> bool:
    reports.append((pattern_id, start, end))
    return len(reports) >= reports.budget  # true stops the scan


def _flags() -> int:
    hyperscan = _hyperscan()
    return int(hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_SOM_LEFTMOST)


def _compile(patterns: Sequence[tuple[int, bytes]]) -> Any:
    hyperscan = _hyperscan()
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(
        expressions=[p for _, p in patterns],
        ids=[i for i, _ in patterns],
        elements=len(patterns),
        flags=[_flags()] * len(patterns),
    )
    return database


@cache
def _refusal_alone(pattern: bytes) -> str | None:
    """Why Hyperscan refuses ``pattern`` alone, or None; once per process for each pattern
    (the built-in detectors' patterns are the same in every scanner)."""
    try:
        _compile([(0, pattern)])
    except _hyperscan().error as exc:
        return f"Hyperscan cannot compile it with start offsets: {exc}"
    return None


class HyperscanSearch:
    """One Hyperscan database of many patterns, compiled once; :meth:`scan` gives each
    pattern's :class:`MatchStarts`.

    ``known``: the ids of patterns compiled in many scanners (the built-in detectors'), which
    are tried alone once per process, so that a refused one does not make every scanner's
    database fail to compile first.
    """

    def __init__(
        self, patterns: Sequence[tuple[int, str]], known: frozenset[int] = frozenset()
    ) -> None:
        hyperscan = _hyperscan()
        fallbacks: list[Fallback] = []
        rewritten: list[tuple[int, bytes]] = []
        for pattern_id, pattern in patterns:
            try:
                superset = superset_pattern(pattern).encode("utf-8")
            except UnsupportedPatternError as exc:
                fallbacks.append(Fallback(pattern_id, str(exc)))
                continue
            refusal = _refusal_alone(superset) if pattern_id in known else None
            if refusal is None:
                rewritten.append((pattern_id, superset))
            else:
                fallbacks.append(Fallback(pattern_id, refusal))
        self.database: Any = None
        refused: dict[int, str] = {}
        compiled = rewritten
        if rewritten:
            try:
                self.database = _compile(rewritten)
            except hyperscan.error:
                refused = self._refused(rewritten)
                compiled = [(i, p) for i, p in rewritten if i not in refused]
                self.database = _compile(compiled) if compiled else None
        fallbacks += [Fallback(pattern_id, reason) for pattern_id, reason in refused.items()]
        self.fallbacks = tuple(sorted(fallbacks, key=lambda f: f.pattern_id))
        self.compiled_ids = frozenset(i for i, _ in compiled)
        # Scratch space is per scan in flight: scans of several threads each take one, and
        # give it back, so the database is shared and no scan waits for another.
        self._scratches: SimpleQueue[Any] = SimpleQueue()
        if self.database is not None:
            self._scratches.put(hyperscan.Scratch(self.database))

    def _refused(self, patterns: Sequence[tuple[int, bytes]]) -> dict[int, str]:
        """The patterns Hyperscan refuses, with its reason. Hyperscan's error does not say which
        pattern of a set it refused, so a refused set is halved until each refused pattern is
        alone: one compilation when all compile, a few more per refused pattern."""
        if not patterns:
            return {}
        try:
            _compile(patterns)
        except _hyperscan().error as exc:
            if len(patterns) == 1:
                return {patterns[0][0]: f"Hyperscan cannot compile it with start offsets: {exc}"}
            middle = len(patterns) // 2
            refused = self._refused(patterns[:middle])
            refused.update(self._refused(patterns[middle:]))
            if not refused:  # each half compiles but not the whole: too large together
                return {i: f"the database is too large for Hyperscan: {exc}" for i, _ in patterns}
            return refused
        return {}

    def size(self) -> int:
        """The compiled database's size in bytes."""
        return int(self.database.size()) if self.database is not None else 0

    def scan(self, data: bytes) -> dict[int, MatchStarts] | None:
        """Each compiled pattern that occurs in ``data``, with its reports; ``None`` when the
        text makes more reports than its budget (then every compiled pattern is to be searched
        without hints)."""
        if self.database is None:
            return {}
        hyperscan = _hyperscan()
        try:
            scratch = self._scratches.get_nowait()
        except Empty:
            scratch = hyperscan.Scratch(self.database)
        raw = _Reports(max(_MIN_REPORT_BUDGET, _REPORTS_PER_BYTE * len(data)))
        try:
            self.database.scan(data, match_event_handler=_on_match, context=raw, scratch=scratch)
        except hyperscan.ScanTerminated:
            return None
        finally:
            self._scratches.put(scratch)
        by_id: dict[int, list[tuple[int, int]]] = {}
        for pattern_id, start, end in raw:
            reports = by_id.get(pattern_id)
            if reports is None:
                reports = by_id[pattern_id] = []
            reports.append((end, start))
        return {key: MatchStarts(reports) for key, reports in by_id.items()}
