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
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import xxhash

from govcore.detection.normalize import extends_previous, is_invisible, normalize
from govcore.detection.scanner import Hit
from govcore.detection.secrets.key_blocks import PRIVATE_KEY_BEGIN, PRIVATE_KEY_END

__all__ = [
    "STREAM_CHECKSUM_BLOCK",
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
    if window.isascii() and not _may_begin_key(window):
        return None  # ASCII is its own normal form, and every header starts "-----BEGIN"
    normalized = normalize(window)
    for begin in _KEY_BEGIN.finditer(normalized.text):
        if _KEY_END.search(normalized.text, begin.end()) is None:
            return start + normalized.original_index(begin.start())
    return None


def _may_begin_key(window: str) -> bool:
    """Whether the ASCII ``window`` holds five dashes followed by ``BEGIN`` in any case.

    Dashes alone are common (a forwarded message's separator, a Markdown table's rule), and
    the header's regular expression, case-insensitive, costs about 1.5 µs on a window of 460
    characters where this costs a few hundred nanoseconds.
    """
    for opening in ("-----B", "-----b"):
        at = window.find(opening)
        while at != -1:
            if window[at + 6 : at + 10].upper() == "EGIN":
                return True
            at = window.find(opening, at + 1)
    return False


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
# never be checked. So each checking call leaves a record of the watermark it answered and
# checksums of the text before it; the next call starts from ``lastCheckedOffset`` only when
# the text near that watermark matches, and the final call only when all of it does. Otherwise
# the call checks again from the start.
#
# The record holds two XXH3-128 checksums. The chain covers the whole blocks of
# STREAM_CHECKSUM_BLOCK characters before the watermark: link j is the checksum of link j-1
# followed by block j's UTF-8, so a call extends it by the blocks its watermark completes. The
# tail covers the text from the start of the last whole block (at least STREAM_CHECKSUM_BLOCK
# characters, or all of a shorter text) to the watermark. A call verifies the tail, far more
# than the previous call's window; the final call also recomputes the chain. So a call hashes a
# block or two whatever the length of the text, where one checksum of the whole text before
# the watermark made a stream of n characters hash n^2 / 400 bytes (2.5 GB for 1 MB in
# 200-character calls). XXH3 is not a cryptographic hash: with 128 bits no edit goes unseen
# by chance, and a caller able to forge checksums could as well not send the text, which no
# check can prevent (docs/decisions/stream-cost.md).

STREAM_CHECKSUM_BLOCK = 4096
"""Characters per link of the stream record's checksum chain: every checking call verifies at
least this much text before the recorded watermark (all of a shorter text), the final call all
of it."""

_NO_LINK = bytes(16)  # the chain before its first block
_RECORD = struct.Struct("<2sQ16s16s")  # version, watermark, the chain's last link, the tail
_VERSION = b"s3"


class _Record(NamedTuple):
    """A decoded stream record. (Named tuples: one of each is made per call, and they are
    cheaper to make than dataclasses.)"""

    watermark: int
    chain: bytes
    """the link after block ``watermark // STREAM_CHECKSUM_BLOCK`` (``_NO_LINK`` before any)"""
    tail: bytes
    """the checksum of ``text[_tail_start(watermark):watermark]``"""


class StreamResume(NamedTuple):
    """Where a checking call starts, and what the next record continues from.

    Attributes:
        start: the ``lastCheckedOffset`` the call works with: the caller's when the text near
            the recorded watermark matches the record (no further than that watermark), else 0.
        verified: ``start`` came from the caller (false: the call checks from the start).
        record: the verified record, whose chain the next record extends (``None``: the next
            record is computed from the text alone).
        tail: the XXH3-128 state over the verified tail, which the next record's tail continues
            while no block is completed.
    """

    start: int
    verified: bool
    record: _Record | None = None
    tail: Any = None


def _tail_start(watermark: int) -> int:
    """Where the tail before ``watermark`` begins: at the last whole block, or at 0."""
    return max(0, (watermark // STREAM_CHECKSUM_BLOCK - 1) * STREAM_CHECKSUM_BLOCK)


def _hasher(previous: bytes, text: str) -> Any:
    """An XXH3-128 state over ``previous`` followed by the UTF-8 of ``text``."""
    hasher = xxhash.xxh3_128(previous)
    hasher.update(text.encode("utf-8", "surrogatepass"))
    return hasher


def _chain(text: str, first_block: int, blocks: int, link: bytes) -> bytes:
    """The link after blocks ``first_block`` to ``blocks`` of ``text`` (1-based), continued
    from ``link``, the one after block ``first_block - 1``."""
    for block in range(first_block, blocks + 1):
        end = block * STREAM_CHECKSUM_BLOCK
        link = _hasher(link, text[end - STREAM_CHECKSUM_BLOCK : end]).digest()
    return link


def resume_stream(
    text: str, last_checked: int, record: bytes | None, is_final: bool = False
) -> StreamResume:
    """Where a checking call of a stream starts, given the record of the stream's previous one.

    A non-final call verifies the text from the last whole block below the recorded watermark
    to it, and trusts the chain before; a final call (``is_final``) verifies all of it, so an
    edit anywhere before the watermark is checked by the end of the stream. A call whose
    ``last_checked`` is below the recorded watermark verifies all of it too: its record starts
    again from its own text.

    Args:
        text: ``fullText``.
        last_checked: ``lastCheckedOffset``.
        record: what :func:`stream_record` returned for the previous checking call of the
            session, or ``None``.
        is_final: ``isFinal``.
    """
    if last_checked == 0:
        return StreamResume(0, True)
    parsed = _parse_record(record)
    if parsed is None or parsed.watermark > len(text):
        return StreamResume(0, False)
    watermark, chain, tail = parsed
    tail_hasher = _hasher(b"", text[_tail_start(watermark) : watermark])
    if tail_hasher.digest() != tail:
        return StreamResume(0, False)
    # A final call verifies everything before the watermark; so does a call that rewinds below
    # it, because its record is then rebuilt from this call's text, which must be the text
    # that was checked (else an edit far back would become the record's truth).
    rewinds = last_checked < watermark
    if (is_final or rewinds) and _chain(
        text, 1, watermark // STREAM_CHECKSUM_BLOCK, _NO_LINK
    ) != chain:
        return StreamResume(0, False)
    return StreamResume(min(last_checked, watermark), True, parsed, tail_hasher)


def stream_record(text: str, watermark: int, resume: StreamResume) -> bytes:
    """The record of a checking call that answered ``watermark`` (42 bytes): a version tag, the
    watermark, the chain's last link and the tail's checksum. Both continue the verified
    record's when it describes a prefix of ``text[:watermark]``, so only the blocks the new
    watermark completes, and the tail, are hashed."""
    blocks = watermark // STREAM_CHECKSUM_BLOCK
    record = resume.record
    if record is None or record.watermark > watermark:
        chain = _chain(text, 1, blocks, _NO_LINK)
        tail = _hasher(b"", text[_tail_start(watermark) : watermark]).digest()
    else:
        chain = _chain(text, record.watermark // STREAM_CHECKSUM_BLOCK + 1, blocks, record.chain)
        if _tail_start(record.watermark) == _tail_start(watermark):
            hasher = resume.tail.copy()  # the same tail, grown
            hasher.update(text[record.watermark : watermark].encode("utf-8", "surrogatepass"))
        else:
            hasher = _hasher(b"", text[_tail_start(watermark) : watermark])
        tail = hasher.digest()
    return _RECORD.pack(_VERSION, watermark, chain, tail)


def _parse_record(record: bytes | None) -> _Record | None:
    """The fields of a record; ``None`` for a missing or unreadable one, or one of an earlier
    version (which makes the call check from the start: nothing is lost by it)."""
    if record is None or len(record) != _RECORD.size:
        return None
    version, watermark, chain, tail = _RECORD.unpack(record)
    if version != _VERSION:
        return None
    return _Record(watermark, chain, tail)
