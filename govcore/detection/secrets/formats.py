"""The table of secret formats: ``formats.toml`` beside this module, read once on first use.

Each format has a name, a family, the scanner group it belongs to, what it looks like (in words,
for the documentation), an RE2 pattern, what its validator checks (in words) and, by name, a
check of the token itself (:data:`govcore.detection.secrets.token_checks.CHECKS`), a confidence
factor and a made-up example. Patterns and descriptions may name shared fragments as
``${name}``: the file's ``[fragments]`` and the armour lines of a private key
(:mod:`govcore.detection.secrets.key_blocks`). docs/detection.md, "Secret formats", shows the
table; a test checks that it is this one.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from govcore.detection.secrets.key_blocks import PRIVATE_KEY_BEGIN, PRIVATE_KEY_END
from govcore.detection.secrets.token_checks import CHECKS, TokenCheck

__all__ = ["FAMILIES", "GENERIC_CONFIDENCE", "GROUPS", "SecretFormat", "secret_formats"]

FAMILIES = (
    "cloud",
    "code hosting",
    "chat",
    "payment",
    "package registry",
    "AI provider",
    "observability",
    "productivity",
    "private key",
    "token",
    "generic",
)

GROUPS = ("keys", "tokens", "assignments")
"""The scanner patterns the formats are compiled into, in the order they are searched."""

GENERIC_CONFIDENCE = 0.7
"""The factor of a value found only by the name of the key it is assigned to."""

_FILE = "formats.toml"
_FRAGMENT = re.compile(r"\$\{(\w+)\}")
_REQUIRED = frozenset(
    {"name", "family", "group", "looks_like", "pattern", "validator", "confidence", "example"}
)
_OPTIONAL = frozenset({"prefixes", "check", "key"})


@dataclass(frozen=True, slots=True)
class SecretFormat:
    """One kind of secret the ``secret`` detector reports."""

    name: str
    family: str
    looks_like: str  # what it looks like, in words, for the documentation
    pattern: str  # RE2 (and Python re) syntax; for assignment formats, the value's shape
    validator: str  # what is checked beyond the pattern, in words
    confidence: float
    example: str  # a made-up value of the format, as it would appear in text
    group: str  # the scanner pattern it belongs to: keys, tokens or assignments
    prefixes: tuple[str, ...] = ()  # literal starts (case-sensitive); glued tokens split there
    check: TokenCheck | None = None  # a check of the token itself
    key: str | None = None  # assignments: a pattern the key's name must match (whole)


@cache
def secret_formats() -> tuple[SecretFormat, ...]:
    """Every format, in table order (the order in which a candidate is tried against them)."""
    text = resources.files(__package__ or "govcore.detection.secrets").joinpath(_FILE)
    data = tomllib.loads(text.read_text(encoding="utf-8"))
    fragments = {
        "private_key_begin": PRIVATE_KEY_BEGIN,
        "private_key_end": PRIVATE_KEY_END,
        **data["fragments"],
    }
    formats = tuple(_format(entry, fragments) for entry in data["format"])
    names = [fmt.name for fmt in formats]
    if len(set(names)) != len(names):
        raise ValueError(f"{_FILE}: a format name is used twice")
    return formats


def _format(entry: dict[str, Any], fragments: dict[str, str]) -> SecretFormat:
    """One ``[[format]]`` entry of the file, its fragments filled in and its check made."""
    name = entry.get("name", "?")
    fields = set(entry)
    if not _REQUIRED <= fields <= _REQUIRED | _OPTIONAL:
        missing, unknown = _REQUIRED - fields, fields - _REQUIRED - _OPTIONAL
        raise ValueError(
            f"{_FILE}, format {name}: missing {missing or '-'}, unknown {unknown or '-'}"
        )
    if entry["family"] not in FAMILIES or entry["group"] not in GROUPS:
        raise ValueError(f"{_FILE}, format {name}: unknown family or group")

    def filled(text: str) -> str:
        try:
            return _FRAGMENT.sub(lambda m: fragments[m.group(1)], text)
        except KeyError as missing:
            raise ValueError(f"{_FILE}, format {name}: no fragment {missing}") from None

    check: TokenCheck | None = None
    if "check" in entry:
        arguments = dict(entry["check"])
        factory = CHECKS.get(arguments.pop("name", ""))
        if factory is None:
            raise ValueError(f"{_FILE}, format {name}: unknown check {entry['check']}")
        check = factory(**arguments)
    return SecretFormat(
        name=name,
        family=entry["family"],
        looks_like=entry["looks_like"],
        pattern=filled(entry["pattern"]),
        validator=filled(entry["validator"]),
        confidence=float(entry["confidence"]),
        example=entry["example"],
        group=entry["group"],
        prefixes=tuple(entry.get("prefixes", ())),
        check=check,
        key=entry.get("key"),
    )
