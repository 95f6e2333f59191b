"""Deciding what a candidate of a secret group is: which format it is (the first of its group,
in table order, that matches there), whether it stands on its own, and the span and confidence
factor to report.

The format patterns are also valid Python ``re`` patterns with the same meaning, which the
validators use on the candidate: the RE2 search has already bounded the work to the candidate.
They are compiled once, on first use (:func:`format_table`; the large assignment pattern on the
first assignment candidate).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache, cached_property

from govcore.detection.chars import glues, is_word
from govcore.detection.normalize import ascii_look_alike
from govcore.detection.secrets.assignments import (
    KEY_GROUPS,
    NEXT_PARAMETER,
    PASSWORD_KEY,
    UNQUOTED,
    assignment_pattern,
    looks_like_secret,
    secret_key,
)
from govcore.detection.secrets.formats import GROUPS, SecretFormat, secret_formats
from govcore.detection.secrets.known_examples import SecretOptions, is_known_example

__all__ = ["FormatTable", "Judged", "format_table", "python_pattern"]

Judged = tuple[int, int, float, str]
"""A secret a validator accepted: its span, its confidence factor and its format's name."""

_GLUE_REACH = 300  # a glued token is looked for this far back: longer than most tokens
# How far a token is read when checking whether one starts somewhere: more than any format's
# longest token, and a bound, so that the check costs the same on a megabyte of base64.
_TOKEN_REACH = 2048
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/=]{16,}")


def python_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled by Python's ``re``, matching as the scanner does."""
    return re.compile(pattern, re.IGNORECASE)


def _prefix_pattern(prefixes: Iterable[str]) -> re.Pattern[str]:
    """Any of ``prefixes``, the longest first, grouped by their first character: Python's
    ``re`` then tries one branch per position, not one per prefix."""
    by_first: dict[str, list[str]] = {}
    for prefix in sorted(set(prefixes), key=len, reverse=True):
        by_first.setdefault(prefix[0], []).append(re.escape(prefix[1:]))
    return re.compile(
        "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in by_first.items())
    )


class FormatTable:
    """The formats, compiled for the validators, and the validator of each group."""

    def __init__(self, formats: tuple[SecretFormat, ...]) -> None:
        self.by_group: dict[str, tuple[SecretFormat, ...]] = {
            group: tuple(f for f in formats if f.group == group) for group in GROUPS
        }
        self._compiled = {fmt.name: python_pattern(fmt.pattern) for fmt in formats}
        self._key_patterns = {
            fmt.name: python_pattern(fmt.key) for fmt in formats if fmt.key is not None
        }
        self._by_name = {fmt.name: fmt for fmt in formats}
        tokens = self.by_group["tokens"]
        self._unprefixed = tuple(fmt for fmt in tokens if not fmt.prefixes)
        self.prefix = _prefix_pattern(p for f in tokens for p in f.prefixes)
        # The formats that may match where a character is: the prefixed ones whose prefix
        # starts with it and the unprefixed ones, in table order (a candidate is not tried
        # against every format).
        self._candidates: dict[str, tuple[SecretFormat, ...]] = {
            first: tuple(
                f for f in tokens if not f.prefixes or any(p[0] == first for p in f.prefixes)
            )
            for first in {p[0] for f in tokens for p in f.prefixes}
        }
        self._longest_prefix = max(len(p) for f in tokens for p in f.prefixes)
        self.judges: dict[str, Callable[[str, int, int, SecretOptions], Judged | None]] = {
            "keys": self.judge_key,
            "tokens": self.judge_token,
            "assignments": self.judge_assignment,
        }

    @cached_property
    def _assignment(self) -> re.Pattern[str]:
        """The assignment pattern, compiled on the first assignment candidate: Python takes
        about a tenth of a second over it (its key words' look-alike letters), which neither
        ``import govcore`` nor a configuration without such candidates needs to pay."""
        return python_pattern(assignment_pattern())

    def _token_at(self, text: str, start: int, end: int) -> tuple[SecretFormat, int] | None:
        """The first token format (in table order) matching at ``start``, and where it ends."""
        for fmt in self._candidates.get(text[start : start + 1], self._unprefixed):
            if fmt.prefixes and not any(text.startswith(p, start) for p in fmt.prefixes):
                continue
            match = self._compiled[fmt.name].match(text, start, end)
            if match is not None:
                return fmt, match.end()
        return None

    def _token_ends_at(self, text: str, position: int) -> bool:
        """Whether a token of a prefixed format ends exactly at ``position``."""
        for prefix in self.prefix.finditer(text, max(0, position - _GLUE_REACH), position):
            found = self._token_at(text, prefix.start(), position)
            if found is not None and found[1] == position:
                return True
        return False

    def _token_starts_at(self, text: str, position: int) -> bool:
        return self.prefix.match(text, position) is not None and (
            self._token_at(text, position, min(len(text), position + _TOKEN_REACH)) is not None
        )

    def judge_token(self, text: str, start: int, end: int, options: SecretOptions) -> Judged | None:
        """A vendor token or a JWT: the first format matching at ``start``, not glued to a
        longer word (unless to another token), passing its check and not a known example."""
        found = self._token_at(text, start, end)
        if found is None:
            return None
        fmt, stop = found
        # Two tokens written together: the first ends where the second's prefix begins.
        compiled = self._compiled[fmt.name]
        for prefix in self.prefix.finditer(
            text, start + 1, min(len(text), stop + self._longest_prefix)
        ):
            cut = prefix.start()
            if cut >= stop:
                break
            if compiled.fullmatch(text, start, cut) and self._token_starts_at(text, cut):
                stop = cut
                break
        if (
            start > 0
            and glues(text[start - 1])
            and not self._token_ends_at(text, start)
            and not (fmt.name == "telegram-bot-token" and text.endswith("/bot", 0, start))
        ):
            return None  # "xAKIA...": inside a longer word (Telegram's API writes ".../bot<token>")
        glued_after = stop < len(text) and glues(text[stop]) and text[stop - 1].isalnum()
        if glued_after and not self._token_starts_at(text, stop):
            return None  # a fixed-length format inside a longer word is not that format
        value = text[start:stop]
        if fmt.check is not None and not fmt.check(value):
            return None
        if is_known_example(value, options):
            return None
        return start, stop, fmt.confidence, fmt.name

    def judge_key(self, text: str, start: int, end: int, options: SecretOptions) -> Judged | None:
        """A private-key block, which must hold key material (not the armour around ``...``)."""
        for fmt in self.by_group["keys"]:
            if self._compiled[fmt.name].fullmatch(text, start, end):
                if fmt.name == "private-key-block":
                    # The armour around "..." or "<your key here>" in a how-to is no key.
                    body = re.sub(r"-----[^-]*-----", " ", text[start:end])
                    if _KEY_MATERIAL.search(body) is None:
                        return None
                return start, end, fmt.confidence, fmt.name
        return None

    def judge_assignment(
        self, text: str, start: int, end: int, options: SecretOptions
    ) -> Judged | None:
        """A value assigned to a secret-named key, or a URL's password: reported as a vendor
        token when it is one, as a known key's format (an AWS secret access key) when its key
        and shape say so, else by the generic rule (assignments.py)."""
        match = self._assignment.match(text, start, end)
        if match is None:
            return None
        if match.group("pw") is not None:
            value_start, value_end = match.span("pw")
            value = match.group("pw")
            if len(match.group("user")) > 128 or len(value) > 256:
                return None  # longer than a URL's user and password are
            if not looks_like_secret(value, password=True, quoted=False, url=True):
                return None
            return self._named(text, value_start, value_end, "url-credentials", options)
        if match.group("cli") is not None:
            key_end = match.end("cli")
            key = match.group("cli").strip().lstrip("-")
            group = next(g for g in ("cdq", "csq", "cv") if match.group(g) is not None)
        else:
            key_group, values = next(
                (name, groups) for name, groups in KEY_GROUPS if match.group(name) is not None
            )
            key_end = match.end(key_group)
            key = match.group(key_group)
            group = next(g for g in values if match.group(g) is not None)
        # The key's name may begin before the matched keyword: "DB_PASSWORD", "self.api_key".
        key_start = key_end - len(key)
        while key_start > 0 and (is_word(text[key_start - 1]) or text[key_start - 1] in ".-"):
            key_start -= 1
            if key_end - key_start > 80:
                return None
        key = ascii_look_alike(
            text[key_start:key_end].strip().strip("\"'`\\").lstrip("-").lstrip(".")
        )
        value_start, value_end = match.span(group)
        if group in UNQUOTED:
            query = NEXT_PARAMETER.search(text, value_start, min(len(text), value_end + 80))
            if query is not None and query.start() < value_end:
                value_end = query.start()  # "?api_key=...&page=2": the next query parameter
            armour = text.find("-----", value_start, value_end)
            if armour != -1:
                value_end = armour  # "...=value-----BEGIN ... KEY-----": a key block begins
            while value_end > value_start and text[value_end - 1] in ".,:)]}":
                value_end -= 1  # the end of a sentence or of a call, not of the value
        value = text[value_start:value_end]
        if self.prefix.fullmatch(value):
            return None  # "github_pat_" + suffix(): a token's prefix, not a token
        # A vendor token or a known key name and value shape outranks the generic rule.
        token = self._token_at(text, value_start, value_end)
        if token is not None and token[1] == value_end:
            judged = self.judge_token(text, value_start, value_end, options)
            return judged if judged is not None and judged[1] == value_end else None
        for fmt in self.by_group["assignments"]:
            if fmt.key is None or not self._key_patterns[fmt.name].fullmatch(key):
                continue
            if self._compiled[fmt.name].fullmatch(value) and (
                fmt.check is None or fmt.check(value)
            ):
                return self._named(text, value_start, value_end, fmt.name, options)
        if not secret_key(key):
            return None
        if not looks_like_secret(
            value, password=bool(PASSWORD_KEY.search(key)), quoted=group not in UNQUOTED
        ):
            return None
        return self._named(text, value_start, value_end, "generic-assignment", options)

    def _named(
        self, text: str, start: int, end: int, name: str, options: SecretOptions
    ) -> Judged | None:
        if is_known_example(text[start:end], options):
            return None
        return start, end, self._by_name[name].confidence, name


@cache
def format_table() -> FormatTable:
    """The table of formats compiled for the validators, made on first use."""
    return FormatTable(secret_formats())
