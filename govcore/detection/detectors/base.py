"""What a built-in detector is, and the helpers its validators share.

A detector finds candidates with one or more patterns (RE2 syntax), then a validator decides:
it gets the normalised text and a candidate span and returns the accepted span and its
confidence factor (1.0 for a validated match, less for a shape alone), or None. A validator may
shorten a candidate (a card number followed by a year).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from govcore.detection.chars import digit
from govcore.detection.secrets.known_examples import SecretOptions

__all__ = [
    "DECIMAL_DIGIT",
    "CandidatePattern",
    "Detector",
    "Validator",
    "bounded",
    "cut_points",
    "digits_of",
]

Validator = Callable[[str, int, int], "tuple[int, int, float] | None"]
"""``validate(text, start, end)``: the accepted ``(start, end, factor)``, or None."""


DECIMAL_DIGIT = r"\p{Nd}"
"""A decimal digit of any script, in the candidate patterns' RE2 syntax."""


@dataclass(frozen=True, slots=True)
class CandidatePattern:
    """One candidate pattern of a detector with its validator."""

    pattern: str
    validate: Validator
    anchor: bytes | None = None
    """A literal every match contains; when set, only windows around its occurrences are
    searched (``reach`` bytes before and after), which is much faster for patterns that could
    start almost anywhere."""
    reach: tuple[int, int] = (0, 0)
    restart_inside: bool = True
    """When the validator refuses a candidate, look for the next candidate from the next word
    inside it (``Step 2 4111 ...``: the refused ``2 4111 ...`` hides the card that starts at
    ``4111``); when false, from the candidate's end."""


@dataclass(frozen=True, slots=True)
class Detector:
    """One built-in PII kind: what a ``pii`` rule names, and everything the scanner needs of it.

    The fields without a default are required, so a kind without its default replacement,
    explanation or example cannot be written.
    """

    kind: str
    """The name a policy's ``pii`` rule uses."""
    explanation: str
    """What a violation says was found, in lower case (``"contains an email address"``): the
    default explanation is this sentence with the policy's id."""
    replacement: str
    """The default ``enforcementText`` of a match, such as ``"[email removed]"``."""
    example: str
    """A made-up value the detector finds whole, as it would appear in text: the registry's
    tests check every kind with it."""
    patterns: tuple[CandidatePattern, ...]
    """The candidate patterns, in the order the scanner searches them."""
    example_after: str = ""
    """For a kind found only after its name (a passport number): the words that name it,
    which the example needs just before it."""
    contains_other_kinds: bool = False
    """Whether a validated match explains every letter and digit inside it: a match of any
    other kind that lies within one is dropped (the digits of an IBAN are not also a phone
    number, the digits of a card number not an SSN)."""
    configured: Callable[[SecretOptions], tuple[CandidatePattern, ...]] | None = None
    """For a detector whose validators read settings (the secret detector's known examples
    and allow-list): its patterns for those settings, used in place of ``patterns``."""

    def __post_init__(self) -> None:
        if not (self.kind and self.explanation and self.replacement and self.example):
            raise ValueError(
                f"detector {self.kind!r}: a kind, an explanation, a replacement and an example"
                " are needed"
            )

    def candidates(self, options: SecretOptions | None = None) -> tuple[CandidatePattern, ...]:
        """The candidate patterns, bound to ``options`` when the detector reads settings."""
        if self.configured is None:
            return self.patterns
        return self.configured(SecretOptions() if options is None else options)


def digits_of(text: str) -> list[int]:
    """The values of the digits (of any script) in ``text``."""
    if text.isascii():
        return [ord(c) - 48 for c in text if "0" <= c <= "9"]
    return [d for d in map(digit, text) if d is not None]


# A letter or digit followed by anything else (underscore counts as "else", as for isalnum).
_ALNUM_BEFORE_OTHER = re.compile(r"[^\W_](?=[\W_])")


def cut_points(text: str, start: int, end: int) -> list[int]:
    """Ends at which a candidate may be shortened: after any digit or letter followed by a
    separator, longest first, so a number followed by more digits after a space can still be
    found."""
    cuts = [match.end() for match in _ALNUM_BEFORE_OTHER.finditer(text, start, end)]
    cuts.append(end)
    cuts.reverse()
    return cuts


def bounded(text: str, start: int, end: int, inside: Callable[[str], bool]) -> bool:
    """Whether the span is not glued to more characters of its own kind on either side."""
    return (start == 0 or not inside(text[start - 1])) and (
        end == len(text) or not inside(text[end])
    )
