"""Normalisation of checked text, with a map back to the original offsets.

Detection runs on a normalised copy of the text so that cheap evasions do not work: Unicode NFKC
(full-width digits and letters, ligatures, compatibility forms become their plain forms, and a
letter followed by combining marks is composed: ``e`` + U+0301 reads as ``é``) and removal of
what NFKC keeps but a reader does not see: Unicode's default-ignorable characters
(:data:`govcore.detection.chars.DEFAULT_IGNORABLE`: zero-width spaces and joiners, soft hyphens,
word joiners, bidi controls, tag characters, the byte-order mark, variation selectors, the
combining grapheme joiner, Hangul fillers) and the other format characters (category Cf).
Unicode hyphens and dashes read as ``-``. Letters keep their case: patterns
match case-insensitively (RE2's Unicode case folding), and detectors that care about case (an
AWS key) can still see it.

Terms are matched on a further view, :func:`skeleton_view`: full case folding (``ß`` reads as
``ss``) and, for characters outside ASCII, the confusable prototypes of Unicode Technical
Standard 39 (Cyrillic ``р`` reads as ``p``). Violations always report offsets and text of the
original, so every view keeps a map from its positions to the original's.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from govcore.detection.chars import is_default_ignorable

__all__ = [
    "NormalizedText",
    "ascii_look_alike",
    "extends_previous",
    "is_invisible",
    "look_alikes",
    "normalize",
    "skeleton_of",
    "skeleton_view",
]

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")

# Every Unicode hyphen and dash NFKC leaves alone reads as "-" ("risk\u2011free", a phone number
# with non-breaking hyphens): one character for one, so offsets do not move.
_DASHES = str.maketrans(dict.fromkeys([*range(0x2010, 0x2016), 0x2212], "-"))

# Characters that belong to the character before them, besides combining marks (category M):
# Hangul medial vowels and final consonants, which compose with the syllable before them, and
# emoji skin-tone modifiers.
_JOINING_RANGES = ((0x1161, 0x11FF), (0xD7B0, 0xD7FF), (0x1F3FB, 0x1F3FF))


@lru_cache(maxsize=65536)
def is_invisible(char: str) -> bool:
    """Whether normalisation removes ``char``: a default-ignorable character (zero-width spaces
    and joiners, soft hyphens, bidi controls, variation selectors, Hangul fillers...) or another
    format character (category Cf), which NFKC keeps and which only annotates the text."""
    return unicodedata.category(char) == "Cf" or is_default_ignorable(char)


@lru_cache(maxsize=65536)
def extends_previous(char: str) -> bool:
    """Whether ``char`` is part of the character before it as a reader sees it: a combining
    mark, a Hangul medial vowel or final consonant, an emoji modifier. A text is never cut
    before such a character (the streaming check's watermark), and normalisation composes it
    with what precedes it."""
    if char.isascii():
        return False
    code = ord(char)
    return unicodedata.category(char)[0] == "M" or any(
        lo <= code <= hi for lo, hi in _JOINING_RANGES
    )


@lru_cache(maxsize=65536)
def _fold(char: str) -> str:
    """What one non-ASCII character becomes: '' when invisible, else its NFKC form."""
    if is_invisible(char):
        return ""
    return unicodedata.normalize("NFKC", char).translate(_DASHES)


@lru_cache(maxsize=16384)
def _fold_cluster(cluster: str) -> str:
    """What a base character and the marks after it become: invisible ones removed, the rest
    composed (NFKC)."""
    visible = "".join(c for c in cluster if not is_invisible(c))
    return unicodedata.normalize("NFKC", visible).translate(_DASHES)


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A view of a text and the way back to the original's positions.

    ``segment_starts[k]`` is where segment k begins in the view and ``segment_origins[k]``
    where that position is in the text it was made from; within a segment positions advance
    together. The last character of segment k stands for ``segment_widths[k]`` characters of
    that text (more than one when a sequence was composed into one character). Identity (ASCII
    input) has one segment. A view made from another view (``base``) maps through it, so
    :meth:`original_span` always answers in the original text.
    """

    text: str
    original_length: int
    segment_starts: list[int] = field(default_factory=lambda: [0])
    segment_origins: list[int] = field(default_factory=lambda: [0])
    segment_widths: list[int] = field(default_factory=lambda: [1])
    base: NormalizedText | None = None

    def _own_index(self, position: int) -> int:
        if len(self.segment_starts) == 1:
            return self.segment_origins[0] + position
        k = bisect_right(self.segment_starts, position) - 1
        return self.segment_origins[k] + (position - self.segment_starts[k])

    def _own_end(self, position: int) -> int:
        """Where the source of the character at ``position`` ends, in the text this view was
        made from."""
        if len(self.segment_starts) == 1:
            return self.segment_origins[0] + position + 1
        k = bisect_right(self.segment_starts, position) - 1
        return (
            self.segment_origins[k] + (position - self.segment_starts[k]) + self.segment_widths[k]
        )

    def original_index(self, position: int) -> int:
        """The original index of the character at ``position`` of this view."""
        own = self._own_index(position)
        return own if self.base is None else self.base.original_index(own)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original span covering the span ``[start, end)`` of this view (``end > start``):
        a character composed from several covers all of them."""
        own_start, own_end = self._own_index(start), self._own_end(end - 1)
        if self.base is None:
            return own_start, own_end
        return self.base.original_span(own_start, own_end)


class _Builder:
    """Collects a view's text and its segments."""

    __slots__ = ("origins", "out", "pieces", "starts", "widths")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.starts = [0]
        self.origins = [0]
        self.widths = [1]
        self.out = 0  # length of the view so far

    def copy(self, text: str) -> None:
        """Characters that stand for themselves, one for one."""
        self.pieces.append(text)
        self.out += len(text)

    def replace(self, replacement: str, origin: int, width: int) -> None:
        """``replacement`` stands for ``width`` characters from ``origin``: each of its
        characters covers all of them, and the next character is at ``origin + width``."""
        for char in replacement:
            self._segment(self.out, origin, width)
            self.pieces.append(char)
            self.out += 1
        self._segment(self.out, origin + width, 1)

    def _segment(self, at: int, origin: int, width: int) -> None:
        if self.starts[-1] == at:
            self.origins[-1] = origin
            self.widths[-1] = width
        else:
            self.starts.append(at)
            self.origins.append(origin)
            self.widths.append(width)

    def build(self, length: int, base: NormalizedText | None = None) -> NormalizedText:
        return NormalizedText(
            "".join(self.pieces), length, self.starts, self.origins, self.widths, base
        )


def _cluster_end(text: str, index: int, limit: int) -> int:
    """End of the marks (and invisible characters among or before them) after ``index``."""
    end = index + 1
    probe = end
    while probe < limit:
        char = text[probe]
        if extends_previous(char):
            probe += 1
            end = probe
        elif is_invisible(char):
            probe += 1  # counts only when a mark follows
        else:
            break
    return end


def normalize(text: str) -> NormalizedText:
    """Normalise ``text`` for detection (see the module docstring)."""
    if text.isascii():
        return NormalizedText(text, len(text))
    view = _Builder()
    copied = 0  # original index up to which text has been copied
    for run in _NON_ASCII.finditer(text):
        index, limit = run.start(), run.end()
        if index > copied and _cluster_end(text, index - 1, limit) > index:
            index -= 1  # the ASCII character before a mark is the mark's base
        view.copy(text[copied:index])
        while index < limit:
            end = _cluster_end(text, index, limit)
            if end == index + 1:
                folded = _fold(text[index])
                if len(folded) == 1:
                    view.copy(folded)
                else:
                    view.replace(folded, index, 1)
            else:
                cluster = text[index:end]
                composed = _fold_cluster(cluster)
                if composed == cluster:
                    view.copy(composed)
                else:
                    view.replace(composed, index, end - index)
            index = end
        copied = limit
    view.copy(text[copied:])
    return view.build(len(text))


# --- the skeleton view for terms --------------------------------------------------------------

_PROTOTYPES_FILE = "confusable_prototypes.txt"


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """The confusable prototypes of non-ASCII characters (scripts/make_confusables.py)."""
    table: dict[str, str] = {}
    data = resources.files(__package__ or "govcore.detection").joinpath(_PROTOTYPES_FILE)
    for line in data.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, *prototype = line.split()
            table[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in prototype)
    return table


@lru_cache(maxsize=65536)
def _skeleton_char(char: str) -> str:
    """What one non-ASCII character of normalised text reads as for terms: its full case fold,
    each character of it replaced by its confusable prototype. A letter with a diacritic that
    the table does not list takes its base's prototype (Cyrillic ``ё`` reads as ``ë``)."""
    if char == "\u0130":
        return "i"  # Turkish capital dotted I: its case fold is i + a combining dot; read as i
    table = _prototypes()
    pieces: list[str] = []
    for folded in char.casefold():
        prototype = table.get(folded)
        if prototype is None and not folded.isascii():
            decomposed = unicodedata.normalize("NFD", folded)
            base = table.get(decomposed[0])
            if base is not None and len(decomposed) > 1:
                prototype = unicodedata.normalize("NFC", base + decomposed[1:])
        pieces.append(folded if prototype is None else prototype)
    return "".join(pieces)


def skeleton_of(normalized: NormalizedText) -> NormalizedText:
    """The skeleton view of normalised text (see :func:`skeleton_view`)."""
    text = normalized.text
    if text.isascii():
        return NormalizedText(text.lower(), len(text), base=normalized)
    view = _Builder()
    copied = 0
    for run in _NON_ASCII.finditer(text):
        view.copy(text[copied : run.start()].lower())
        for index in range(run.start(), run.end()):
            folded = _skeleton_char(text[index])
            if len(folded) == 1:
                view.copy(folded)
            else:
                view.replace(folded, index, 1)
        copied = run.end()
    view.copy(text[copied:].lower())
    return view.build(len(text), normalized)


def skeleton_view(text: str) -> NormalizedText:
    """The view of ``text`` that terms (and key words) are matched on, with its offset map.

    It is :func:`normalize` (NFKC with composition, invisible characters removed, dashes read as
    ``-``), then full case folding (``STRASSE`` and ``straße`` both read ``strasse``; ``İ``
    reads ``i``), then, for each character outside ASCII, its confusable prototype from Unicode
    Technical Standard 39 (Cyrillic ``раураl`` reads ``paypal``). ASCII letters, digits and
    signs stay as they are (only lower-cased), so ``l``, ``I`` and ``1`` never read alike.

    Compare the skeleton of a text with the skeleton of a word: ``skeleton_view(word).text in
    skeleton_view(text).text``. ``original_span(start, end)`` of the result gives the span of
    the original text that a match ``[start, end)`` of the skeleton covers.
    """
    return skeleton_of(normalize(text))


@lru_cache(maxsize=64)
def look_alikes(letter: str) -> str:
    """The characters outside ASCII whose skeleton is the ASCII ``letter`` (lower case):
    Cyrillic ``а`` and Greek ``α`` for ``a``. Patterns use them to match key words written with
    look-alike letters in place, where a skeleton view would change the value's case."""
    return "".join(
        sorted(source for source, prototype in _prototypes().items() if prototype == letter)
    )


def ascii_look_alike(word: str) -> str:
    """``word`` with each character outside ASCII read as its confusable prototype, keeping
    its case (``раssWord`` with Cyrillic letters reads ``passWord``)."""
    if word.isascii():
        return word
    pieces = []
    for char in word:
        if char.isascii():
            pieces.append(char)
            continue
        prototype = _skeleton_char(char)
        pieces.append(prototype.upper() if char.isupper() else prototype)
    return "".join(pieces)
