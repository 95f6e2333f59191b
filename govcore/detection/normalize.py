"""Normalisation of checked text, with a map back to the original offsets.

Detection runs on a normalised copy of the text so that cheap evasions do not work: Unicode NFKC
(full-width digits and letters, ligatures, compatibility forms become their plain forms) and
removal of what NFKC keeps but a reader does not see: format characters (category Cf:
zero-width spaces and joiners, soft hyphens, word joiners, bidi controls, tag characters, the
byte-order mark), variation selectors and the other default-ignorable characters (the
combining grapheme joiner, Hangul fillers). Unicode hyphens and dashes read as ``-``. Letters
keep their case: patterns match case-insensitively (RE2's Unicode case folding), terms on a
lower-cased copy, and detectors that care about case (an AWS key) can still see it. Violations always report offsets and text of
the original, so the map from normalised to original positions is part of the result.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["NormalizedText", "normalize"]

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


# Unicode's default-ignorable code points that are not format characters (Cf): the combining
# grapheme joiner, the Hangul fillers, the Khmer inherent vowels, the Mongolian free variation
# selectors and the variation selectors. A reader does not see them, so they would split a number
# or a word for a detector. (The Hangul fillers are also what NFKC maps U+3164 and U+FFA0 to.)
_INVISIBLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)
# Every Unicode hyphen and dash NFKC leaves alone reads as "-" ("risk\u2011free", a phone number
# with non-breaking hyphens): one character for one, so offsets do not move.
_DASHES = str.maketrans(dict.fromkeys([*range(0x2010, 0x2016), 0x2212], "-"))


@lru_cache(maxsize=65536)
def _fold(char: str) -> str:
    """What one non-ASCII character becomes: '' when invisible, else its NFKC form."""
    code = ord(char)
    if unicodedata.category(char) == "Cf" or any(lo <= code <= hi for lo, hi in _INVISIBLE_RANGES):
        return ""
    return unicodedata.normalize("NFKC", char).translate(_DASHES)


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A normalised text and the way back to the original's positions.

    ``segment_starts[k]`` is where segment k begins in the normalised text and
    ``segment_origins[k]`` where that position is in the original; within a segment positions
    advance together. Identity (ASCII input) has one segment.
    """

    text: str
    original_length: int
    segment_starts: list[int] = field(default_factory=lambda: [0])
    segment_origins: list[int] = field(default_factory=lambda: [0])

    def original_index(self, position: int) -> int:
        """The original index of the character at normalised ``position``."""
        if len(self.segment_starts) == 1:
            return self.segment_origins[0] + position
        k = bisect_right(self.segment_starts, position) - 1
        return self.segment_origins[k] + (position - self.segment_starts[k])

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original span covering the normalised span ``[start, end)`` (``end > start``)."""
        return self.original_index(start), self.original_index(end - 1) + 1


def normalize(text: str) -> NormalizedText:
    """Normalise ``text`` for detection (see the module docstring)."""
    if text.isascii():
        return NormalizedText(text, len(text))
    pieces: list[str] = []
    starts = [0]
    origins = [0]
    out = 0  # length of the normalised text so far
    last = 0  # original index up to which text has been copied
    for run in _NON_ASCII.finditer(text):
        pieces.append(text[last : run.start()])
        out += run.start() - last
        for index in range(run.start(), run.end()):
            char = text[index]
            folded = _fold(char)
            if len(folded) == 1:
                pieces.append(folded)
                out += 1
                continue
            # A removal or an expansion breaks the one-to-one run: start new segments.
            for extra in folded:
                _segment(starts, origins, out, index)
                pieces.append(extra)
                out += 1
            _segment(starts, origins, out, index + 1)
        last = run.end()
    pieces.append(text[last:])
    return NormalizedText("".join(pieces), len(text), starts, origins)


def _segment(starts: list[int], origins: list[int], at: int, origin: int) -> None:
    if starts[-1] == at:
        origins[-1] = origin
    else:
        starts.append(at)
        origins.append(origin)
