"""The streaming check's window logic (pure): what to scan, what to report, where the watermark goes.

The caller sends the whole text so far and the ``watermark`` of the previous reply as
``lastCheckedOffset``. Detection runs once about 200 new characters have accumulated, or on
the final call, over the new part plus an overlap of 200 characters before it. A match is
reported when it starts at or after ``lastCheckedOffset`` and is final; the new watermark is the
position up to which every match is final, so it stays behind anything that may still grow:

- the last 64 characters of a non-final text (a card number, an IBAN or a phrase being typed);
- the trailing run of non-space characters (a long token still arriving), up to
  ``STREAM_TOKEN_HOLD`` characters: text without spaces (CJK prose, a base64 blob) would
  otherwise hold the watermark at its start for ever and every call would scan all of it;
- an opened private-key block whose end line has not arrived;
- any match that reaches past the point chosen by the rules above;
- a character that belongs to the one before it: a combining mark (or the invisible characters
  between a letter and its marks, which normalisation composes with the letter), a Hangul vowel
  or final consonant, an emoji modifier, either side of a zero-width joiner;

the second and third up to ``STREAM_MATCH_HOLD`` characters back.

Every match therefore lies wholly before one watermark and wholly after the previous one, is
reported exactly once, and is found in a window that starts before it, so the union of a
stream's reports equals one check of the whole text (for rules whose matches are decided within
64 characters of their end; see docs/decisions/streaming.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import xxhash

from govcore.detection.normalize import extends_previous, is_invisible, normalize
from govcore.detection.scanner import Hit
from govcore.detection.secrets.key_blocks import PRIVATE_KEY_BEGIN, PRIVATE_KEY_END

__all__ = [
    "STREAM_MATCH_HOLD",
    "STREAM_OVERLAP",
    "STREAM_TAIL",
    "STREAM_TOKEN_HOLD",
    "STREAM_TRIGGER",
    "StreamResume",
    "StreamStep",
    "resume_stream",
    "stream_record",
    "stream_step",
]

STREAM_OVERLAP = 200
"""Characters before ``lastCheckedOffset`` scanned again (docs/api.md, Streaming check)."""
STREAM_TRIGGER = 200
"""New characters that trigger detection on a non-final call (docs/api.md, Streaming check)."""
STREAM_TAIL = 64
"""Characters at the end of a non-final text whose matches may still grow."""
STREAM_MATCH_HOLD = 16_384
"""At most this many characters are held back for a match still growing at the end or a
private-key block whose end line has not arrived (a 4096-bit RSA key is about 3,300)."""
STREAM_TOKEN_HOLD = 1024
"""At most this many characters of a trailing run of non-space characters are held back: more
than any built-in detector's match (an email address is at most 320 characters)."""

_KEY_BEGIN = re.compile(PRIVATE_KEY_BEGIN, re.IGNORECASE)
_KEY_END = re.compile(PRIVATE_KEY_END, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class StreamStep:
    """What one streaming call reports."""

    hits: list[Hit]
    watermark: int
    checked: bool


def _trailing_run_start(text: str) -> int:
    """Start of the run of non-space characters at the end, or ``STREAM_TOKEN_HOLD`` back."""
    tail = text[-STREAM_TOKEN_HOLD:]
    if not tail or tail[-1].isspace():
        return len(text)
    return len(text) - len(tail.rsplit(None, 1)[-1])  # split where str.isspace is true


def _open_key_block(text: str, start: int) -> int | None:
    """Start of the first private-key block after ``start`` that has no end line yet.

    Looked for in the normalised text, as the detector does, so an obfuscated header (other
    case, invisible characters, full-width letters) is held back too.
    """
    window = text[start:]
    if window.isascii() and "-----" not in window:
        return None  # ASCII is its own normal form, and every header starts with five dashes
    normalized = normalize(window)
    for begin in _KEY_BEGIN.finditer(normalized.text):
        if _KEY_END.search(normalized.text, begin.end()) is None:
            return start + normalized.original_index(begin.start())
    return None


_ZWJ = "\u200d"
_INVISIBLE_LOOKAHEAD = 32
"""Invisible characters between a letter and a mark that the watermark looks past (more are
composed all the same, but a watermark among them only matters when the mark has not arrived)."""


def _joins_previous(text: str, position: int) -> bool:
    """Whether ``text[position]`` belongs to the character before it, as a reader sees it."""
    char = text[position]
    if char.isascii():
        return False
    if extends_previous(char) or char == _ZWJ or text[position - 1] == _ZWJ:
        return True
    if not is_invisible(char):
        return False
    for ahead in text[position + 1 : position + 1 + _INVISIBLE_LOOKAHEAD]:
        if not is_invisible(ahead):
            return extends_previous(ahead)
    return False


def _cluster_boundary(text: str, position: int, floor: int) -> int:
    """The nearest position at or before ``position`` (not before ``floor``) that does not cut
    a letter from its marks or an emoji sequence in two."""
    while floor < position < len(text) and _joins_previous(text, position):
        position -= 1
    return position


def _overlap_start(text: str, last_checked: int) -> int:
    """Where the window begins: ``STREAM_OVERLAP`` characters before ``last_checked``, and one
    more for each invisible character among them (a zero-width space or a soft hyphen is gone
    once the text is normalised), so that the detectors see as much text as they would see
    in one check of the whole (at most ``STREAM_MATCH_HOLD`` back)."""
    start = max(0, last_checked - STREAM_OVERLAP)
    if text.isascii():
        return start
    floor = max(0, last_checked - STREAM_MATCH_HOLD)
    hidden = sum(1 for char in text[start:last_checked] if is_invisible(char))
    while hidden and start > floor:
        before = max(floor, start - hidden)
        hidden = sum(1 for char in text[before:start] if is_invisible(char))
        start = before
    return start


def stream_step(
    text: str,
    last_checked: int,
    is_final: bool,
    scan: Callable[[str, int], Sequence[Hit]],
) -> StreamStep:
    """Decide one streaming call.

    Args:
        text: ``fullText``.
        last_checked: ``lastCheckedOffset``, already validated to lie within ``text``.
        is_final: ``isFinal``.
        scan: the scanner of the applicable rules: ``scan(text, start)``.
    """
    size = len(text)
    if not is_final and size - last_checked < STREAM_TRIGGER:
        return StreamStep([], last_checked, False)
    scan_from = _overlap_start(text, last_checked)
    hits = list(scan(text, scan_from))
    if is_final:
        frontier = size
    else:
        frontier = min(size - STREAM_TAIL, _trailing_run_start(text))
        # Nothing holds the watermark further back than STREAM_MATCH_HOLD, or a block that never
        # ends would make every later call scan all of it again.
        reach = size - STREAM_MATCH_HOLD
        opened = _open_key_block(text, max(scan_from, reach))
        if opened is not None:
            frontier = min(frontier, opened)
        moved = True
        while moved:
            moved = False
            frontier = _cluster_boundary(text, frontier, last_checked)
            for hit in hits:
                if hit.start < frontier < hit.end and hit.start >= reach:
                    frontier = hit.start
                    moved = True
        frontier = max(frontier, last_checked)
    new = [hit for hit in hits if hit.start >= last_checked and hit.end <= frontier]
    return StreamStep(new, frontier, True)


# --- what a stream has checked ---------------------------------------------------------------
#
# A caller could send a ``fullText`` whose part before ``lastCheckedOffset`` is not what was
# checked, or a ``lastCheckedOffset`` beyond the watermark it was given: the text there would
# never be checked. So each checking call leaves a record of the watermark it answered and a
# checksum of the text before it, and the next call starts from ``lastCheckedOffset`` only when
# its text begins with that checked text; otherwise it checks again from the start.
#
# The checksum is XXH3-128, not a cryptographic hash: it is read over the whole checked text on
# every call, and XXH3 does that in about 3 microseconds for 55 KB, against 12 for CRC-32 and 29
# for SHA-256, which keeps a stream call within its 0.1 ms. With 128 bits, no edit made by
# mistake or to slip text past the watermark goes unseen; a caller able to forge checksums
# could as well not send the text, which no check can prevent.


@dataclass(frozen=True, slots=True)
class StreamResume:
    """Where a checking call starts, and the checksum of the text before the recorded watermark.

    Attributes:
        start: the ``lastCheckedOffset`` the call works with: the caller's when the text before
            the recorded watermark is the checked text (no further than that watermark), else 0.
        verified: ``start`` came from the caller (false: the call checks from the start).
        hasher: the XXH3-128 state over the UTF-8 of ``text[:hashed]``, to be continued
            (``None``: nothing hashed yet).
        hashed: how much of the text ``hasher`` covers.
    """

    start: int
    verified: bool
    hasher: Any
    hashed: int


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _utf8_prefix(text: str, length: int) -> bytes | memoryview:
    """The UTF-8 of ``text[:length]``; for ASCII, a view of the whole text's (one copy)."""
    if text.isascii():
        return memoryview(text.encode("ascii"))[:length]
    return _utf8(text[:length])


def resume_stream(text: str, last_checked: int, record: bytes | None) -> StreamResume:
    """Where a checking call of a stream starts, given the record of the stream's previous one.

    Args:
        text: ``fullText``.
        last_checked: ``lastCheckedOffset``.
        record: what :func:`stream_record` returned for the previous checking call of the
            session, or ``None``.
    """
    if last_checked == 0:
        return StreamResume(0, True, None, 0)
    watermark, checksum = _parse_record(record)
    if watermark is not None and watermark <= len(text):
        hasher = xxhash.xxh3_128(_utf8_prefix(text, watermark))
        if hasher.digest() == checksum:
            return StreamResume(min(last_checked, watermark), True, hasher, watermark)
    return StreamResume(0, False, None, 0)


def stream_record(text: str, watermark: int, resume: StreamResume) -> bytes:
    """The record of a checking call that answered ``watermark``: the watermark in ASCII digits,
    a colon, and the 16 bytes of the checksum of the text before it."""
    if resume.hasher is not None and resume.hashed <= watermark:
        hasher = resume.hasher.copy()
        hasher.update(_utf8(text[resume.hashed : watermark]))
    else:
        hasher = xxhash.xxh3_128(_utf8_prefix(text, watermark))
    digest: bytes = hasher.digest()
    return b"%d:" % watermark + digest


def _parse_record(record: bytes | None) -> tuple[int | None, bytes]:
    """The watermark and checksum of a record; ``None`` for a missing or unreadable one (which
    makes the call check from the start: nothing is lost by it)."""
    if record is None:
        return None, b""
    number, colon, checksum = record.partition(b":")
    if not colon or not number.isdigit() or len(checksum) != 16:
        return None, b""
    return int(number), checksum
