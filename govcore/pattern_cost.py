"""Refuse ``regex`` rules that RE2 cannot run in small linear time (docs/decisions/pattern-cost.md).

RE2 never backtracks, but two kinds of valid pattern still make every check slow:

- a **large program**: counted repeats of big classes (``[\\p{L}\\p{N}]{500}``) compile to
  hundreds of thousands of instructions, which cost memory and compile time, and slow the RE2
  set that every pattern of a tenant shares;
- a **DFA blow-up**: a counted repeat after something that can start a match again
  (``(a|b)*a(a|b){200}``, ``.*a.{60}``) makes RE2's DFA track every position at once. It builds a
  new state for nearly every byte, a thousand times slower than its usual speed, and the set of
  all patterns, which cannot fall back to another engine, pays that on every text.

The program size is read from RE2 and compared with a fixed budget. The blow-up cannot be read
from the binding, so it is measured: the pattern scans a probe text made of its own characters,
and the time is compared with that of a plain pattern over the same text measured at the same
moment. Patterns that keep to the DFA's speed stay within a few times the plain one; a blow-up
costs hundreds of times more, so the limit sits far from both, and a slow or busy machine
changes both times alike.

It runs when policies are validated, never during a check; it reads a clock, so it lives beside
the policy format rather than in the pure detection layer.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]

__all__ = ["MAX_PROGRAM_SIZE", "MAX_SLOWDOWN", "PROBE_BYTES", "PatternCost", "pattern_cost"]

MAX_PROGRAM_SIZE = 100_000
"""Most RE2 instructions a policy author's pattern may compile to (case-insensitive, as the
scanner compiles it). A counted Unicode class is the large case: ``[\\p{L}\\p{N}]{3,40}`` is
54,000 instructions and accepted, ``\\p{L}{2,100}`` 120,000 and refused (``\\p{L}{2,}`` is
1,200). Beyond this size the DFA's states are so large that building them makes the first
kilobytes of every new kind of text slow, and the program takes room from the DFA in the memory
RE2 is given for a tenant's set. The built-in detectors stay under 8,000."""

MAX_SLOWDOWN = 120.0
"""Most times slower than the plain calibration pattern a pattern may scan its probe text.
Realistic patterns measured stay under 14 (about 9 times below; the largest is the built-in
alternation of secret token formats); the DFA blow-ups measured start at about 250."""

PROBE_BYTES = 65_536
"""Length of the probe text: long enough for a blow-up to dominate the DFA's start-up cost."""

_OPTIONS = re2.Options()
_OPTIONS.case_sensitive = False  # as the scanner compiles every pattern
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 64 << 20  # the scanner's budget

_RUNS = 3  # the fastest of three texts: a pause of the machine only ever slows a run down
_UNANCHORED = re2._Anchor.UNANCHORED
_COUNTED = re.compile(r"\{\d+(?:,\d*)?\}")
_CLASS_SAMPLES = {"d": "07", "D": "x-", "w": "aZ0_", "W": " -", "s": " \n", "S": "x"}
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_HEX = re.compile(r"\\x(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{2}))")
_SYNTAX = frozenset("()|*+?^$[]{}")


class PatternCost:
    """What probing a pattern found: its program size and its slowdown over the plain pattern
    (``None`` when the size alone refused it), and why it is refused (``None``: accepted)."""

    __slots__ = ("program_size", "refusal", "slowdown")

    def __init__(self, program_size: int, slowdown: float | None, refusal: str | None) -> None:
        self.program_size = program_size
        self.slowdown = slowdown
        self.refusal = refusal


@lru_cache(maxsize=4096)
def pattern_cost(pattern: str) -> PatternCost:
    """Measure ``pattern`` (valid RE2 syntax) and decide whether checks may run it.

    Cached per pattern: a policy set loaded again is not probed again.

    Raises:
        re2.error: the pattern does not compile.
    """
    size = int(re2.compile(pattern, _OPTIONS)._regexp.ProgramSize())
    if size > MAX_PROGRAM_SIZE:
        return PatternCost(
            size,
            None,
            f"regex is too large: RE2 compiles it to {size:,} instructions (at most "
            f"{MAX_PROGRAM_SIZE:,}); use smaller counted repeats such as {{1,64}} or narrower "
            "classes",
        )
    slowdown = _slowdown(pattern, [probe_text(pattern, seed) for seed in range(_RUNS + 2)])
    if slowdown > MAX_SLOWDOWN:
        return PatternCost(
            size,
            slowdown,
            f"regex is too slow to scan: on text made of its own characters it takes "
            f"{slowdown:,.0f} times as long as a plain pattern (at most {MAX_SLOWDOWN:,.0f}). "
            "A counted or long repeat after something that can also start a match (as in "
            "(a|b)*a(a|b){200} or .*a.{60}) makes RE2 track every position at once; anchor the "
            "repeat with a literal prefix that cannot occur inside it, or shorten it",
        )
    return PatternCost(size, slowdown, None)


def probe_text(pattern: str, seed: int = 0) -> bytes:
    """A text of about :data:`PROBE_BYTES` bytes of random characters the pattern names: its
    literal characters, a sample of each class it uses, and characters outside any negated
    class. The same pattern and seed always give the same text."""
    alphabet = sorted(_characters(pattern))
    # Random bytes, each mapped to a character of the alphabet (256 is not a multiple of every
    # alphabet's size, which skews the choice a little and matters not at all here).
    noise = random.Random(f"{seed}:{pattern}").randbytes(PROBE_BYTES)
    if all(c.isascii() for c in alphabet):
        return noise.translate(bytes(ord(alphabet[b % len(alphabet)]) for b in range(256)))
    table = {byte: alphabet[byte % len(alphabet)] for byte in range(256)}
    text = noise.decode("latin-1").translate(table)
    return text.encode("utf-8")[:PROBE_BYTES].decode("utf-8", "ignore").encode("utf-8")


def _characters(pattern: str) -> set[str]:
    source = _COUNTED.sub("", pattern)  # the digits of {2,8} are not characters to match
    found: set[str] = set()
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            escaped = source[index + 1]
            hex_escape = _HEX.match(source, index)
            if escaped in _CLASS_SAMPLES:
                found.update(_CLASS_SAMPLES[escaped])
            elif escaped in "pP":
                found.update("éЖ5")  # a Unicode class: a Latin and a Cyrillic letter, a digit
                if source.startswith("{", index + 2):
                    closing = source.find("}", index)
                    index = closing + 1 if closing != -1 else len(source)
                    continue
                index += 1  # a one-letter class name (\pL)
            elif hex_escape is not None:
                found.add(chr(int(hex_escape.group(1) or hex_escape.group(2), 16)))
                index = hex_escape.end()
                continue
            elif escaped not in "bBAzQEC":  # assertions and quoting add no character
                found.add(_ESCAPED.get(escaped, escaped))
            index += 2
            continue
        if char == ".":
            found.update("x ")
        elif char == "[" and source.startswith("^", index + 1):
            found.add("#")
        elif char not in _SYNTAX:
            found.add(char)
        index += 1
    found.discard("\x00")
    return found or {"x"}


def _slowdown(pattern: str, texts: list[bytes]) -> float:
    """How many times longer than the calibration pattern ``pattern`` takes to scan a text: the
    worse of a set of it (what every check runs) and one search (the match's span), each the
    fastest over ``texts[2:]``. Each is compiled once and first run over ``texts[:2]``, so that
    what is timed is the steady cost per byte: the states a DFA needs are built by then, unless
    it needs new ones for every new text, which is the blow-up."""
    warm_up, timed = texts[:2], texts[2:]
    alphabet = sorted(set(warm_up[0].decode("utf-8")))
    # Calibration: a class of the text's own characters that never completes a match, so the
    # DFA runs over the whole text with the handful of states a plain pattern needs.
    calibration = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in alphabet) + "]{3}\\x{7f}"
    plain_set, pattern_set = _warm_set(calibration, warm_up), _warm_set(pattern, warm_up)
    search = re2.compile(pattern, _OPTIONS)._regexp.Match
    for text in warm_up:
        search(_UNANCHORED, text, 0, len(text))
    plain = scanned = searched = float("inf")
    for text in timed:
        plain = min(plain, _timed(plain_set.Match, text))
        scanned = min(scanned, _timed(pattern_set.Match, text))
        if scanned > 2 * MAX_SLOWDOWN * plain:
            break  # refused, whatever the other texts would show
        searched = min(searched, _timed(lambda t: search(_UNANCHORED, t, 0, len(t)), text))
    return max(scanned, 0.0 if searched == float("inf") else searched) / plain


def _warm_set(pattern: str, warm_up: list[bytes]) -> Any:
    patterns = re2.Set.SearchSet(_OPTIONS)
    patterns.Add(pattern)
    patterns.Compile()
    for text in warm_up:
        patterns.Match(text)
    return patterns


def _timed(run: Callable[[bytes], object], text: bytes) -> float:
    started = time.perf_counter()
    run(text)
    return time.perf_counter() - started
