"""The ``secret`` detector's scanner patterns: the formats compiled into three patterns, one per
group, not one per format, so the cost of the detector stays that of a few patterns however
many formats there are; and :func:`find_secrets`, which names the format of each match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from govcore.detection.chars import VALUE_START
from govcore.detection.secrets.assignments import assignment_pattern
from govcore.detection.secrets.formats import GROUPS
from govcore.detection.secrets.known_examples import SecretOptions
from govcore.detection.secrets.validators import FormatTable, Judged, format_table, python_pattern

__all__ = ["SecretMatch", "SecretPattern", "find_secrets", "secret_patterns"]

# A validator gets the normalised text and a candidate span and returns the accepted span and
# its confidence factor, or None (the shape of govcore.detection.detectors' validators).
Validator = Callable[[str, int, int], "tuple[int, int, float] | None"]


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One scanner pattern of the ``secret`` detector (a group of formats)."""

    group: str
    pattern: str
    validate: Validator
    restart_inside: bool = True
    """Whether a refused candidate is looked into again from its next word (the scanner's
    rule); not for key blocks, whose refused candidate runs from a BEGIN line to an END line
    and would be read again from every BEGIN line inside it."""


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """A secret found by :func:`find_secrets`: ``text[start:end]`` is a ``name`` secret."""

    name: str
    start: int
    end: int
    confidence: float


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def _re2(pattern: str) -> str:
    """The RE2 form of a pattern: group names are only needed by the validators."""
    return _NAMED_GROUP.sub("(?:", pattern)


def _group_pattern(table: FormatTable, group: str) -> str:
    if group == "assignments":
        return _re2(assignment_pattern())
    return "|".join(f"(?:{fmt.pattern})" for fmt in table.by_group[group])


def _validator(
    judge: Callable[[str, int, int, SecretOptions], Judged | None], options: SecretOptions
) -> Validator:
    def validate(text: str, start: int, end: int) -> tuple[int, int, float] | None:
        judged = judge(text, start, end, options)
        return None if judged is None else judged[:3]

    return validate


_DEFAULT_OPTIONS = SecretOptions()


# A few option sets at most exist per process (one per distinct set of settings): each scanner
# compiled with the same options gets the same patterns.
@lru_cache(maxsize=32)
def secret_patterns(options: SecretOptions = _DEFAULT_OPTIONS) -> tuple[SecretPattern, ...]:
    """The scanner patterns of the ``secret`` detector, with validators bound to ``options``."""
    table = format_table()
    return tuple(
        SecretPattern(
            group,
            _group_pattern(table, group),
            _validator(table.judges[group], options),
            restart_inside=group != "keys",
        )
        for group in GROUPS
    )


@lru_cache(maxsize=len(GROUPS))
def _python_group(group: str) -> re.Pattern[str]:
    return python_pattern(_group_pattern(format_table(), group))


def find_secrets(text: str, options: SecretOptions = _DEFAULT_OPTIONS) -> list[SecretMatch]:
    """Every secret in ``text`` with its format's name, leftmost-longest, not overlapping.

    The scanner's ``secret`` detector reports the same spans (without names); this function
    is for tools and tests that want to know which format was found. ``text`` is taken as it
    is (not normalised).
    """
    judges = format_table().judges
    found: list[SecretMatch] = []
    for group in GROUPS:
        pattern = _python_group(group)
        position = 0
        while position < len(text):
            candidate = pattern.search(text, position)
            if candidate is None:
                break
            begin, stop = candidate.span()
            position = stop if stop > begin else stop + 1
            judged = judges[group](text, begin, stop, options)
            if judged is None:
                # As the scanner does: a refused candidate ("see.abc8Q~...", whose run before
                # the marker is too long) may hide one that starts at a later word inside it.
                if group == "keys":
                    continue
                inside = VALUE_START.search(text, begin + 1, stop)
                if inside is not None:
                    position = inside.start()
                continue
            found.append(SecretMatch(judged[3], judged[0], judged[1], judged[2]))
            if judged[1] < stop:
                position = judged[1]
    return _leftmost_longest(found)


def _leftmost_longest(matches: Iterable[SecretMatch]) -> list[SecretMatch]:
    kept: list[SecretMatch] = []
    reach = -1
    for match in sorted(matches, key=lambda m: (m.start, -m.end)):
        if match.start >= reach:
            kept.append(match)
            reach = match.end
    return kept
