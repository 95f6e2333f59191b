"""Suggestions for misspelt field names in error messages: "unknown field (did you mean ...?)".

Requests and configurations refuse unknown fields, and the most common unknown field is a known
one spelt a little differently: ``session_id`` for ``sessionId``, ``enforcment``, ``tenant`` for
``tenants``. Naming the field that was probably meant saves a round trip to the documentation.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = [
    "closest_name",
    "field_path",
    "nested_model",
    "unknown_field",
    "unknown_field_at",
    "wire_names_at",
]

_MIN_SIMILARITY = 70
"""rapidfuzz's ``ratio`` (0 to 100) a candidate needs: two or three letters off a name of eight,
or a plural for a singular ("policy" for "policies" scores 71)."""


def _fold(name: str) -> str:
    """``session_id``, ``sessionId`` and ``SESSION-ID`` fold alike."""
    return name.replace("_", "").replace("-", "").casefold()


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``name`` most likely stands for, or None when none is close enough."""
    folded = {_fold(candidate): candidate for candidate in candidates}
    key = _fold(name)
    if not key or not folded:
        return None
    if key in folded:
        return folded[key]
    if len(key) > 2 * max(map(len, folded)):
        # A ratio of 70 needs the longer name at most 1.86 times the shorter one: a name this
        # long matches nothing, and a caller's megabyte-long name is not worth comparing.
        return None
    # Folded against folded: the case and separators a caller got wrong do not count.
    from rapidfuzz import fuzz, process  # imported on the first misspelt field, not with govcore

    match = process.extractOne(key, list(folded), scorer=fuzz.ratio, score_cutoff=_MIN_SIMILARITY)
    return None if match is None else folded[match[0]]


def unknown_field(name: str, candidates: Iterable[str]) -> str:
    """The reason given for an unknown field, with the field probably meant when there is one."""
    meant = closest_name(name, candidates)
    return "unknown field" if meant is None else f"unknown field (did you mean {meant!r}?)"


def unknown_field_at(model: type[BaseModel], loc: Sequence[int | str]) -> str:
    """The reason for pydantic's ``extra_forbidden`` at ``loc`` of ``model``."""
    return unknown_field(str(loc[-1]) if loc else "", wire_names_at(model, loc))


def wire_names_at(model: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The field names accepted where the last element of pydantic's ``loc`` sits.

    ``loc`` runs from ``model`` through nested models, list indices and pydantic's names for
    union members and validators (which match no field and are stepped over).
    """
    current: type[BaseModel] = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = _field(current, part)
        if field is None:
            continue
        nested = nested_model(field.annotation)
        if nested is None:
            return []
        current = nested
    return [field.alias or name for name, field in current.model_fields.items()]


def field_at(model: type[BaseModel], loc: Sequence[int | str]) -> FieldInfo | None:
    """The field that pydantic's ``loc`` ends at in ``model``, or None if it names none."""
    current: type[BaseModel] | None = model
    found: FieldInfo | None = None
    for part in loc:
        if isinstance(part, int):
            continue
        field = _field(current, part) if current is not None else None
        if field is None:
            continue  # a union member's or validator's name, stepped over
        found = field
        current = nested_model(field.annotation)
    return found


def _field(model: type[BaseModel], part: str) -> Any:
    for name, field in model.model_fields.items():
        if part in (name, field.alias):
            return field
    return None


def nested_model(annotation: Any) -> type[BaseModel] | None:
    """The model inside an annotation such as ``list[Rule] | None`` or ``Annotated[Rule, ...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) is None:
        return None
    for argument in typing.get_args(annotation):
        found = nested_model(argument)
        if found is not None:
            return found
    return None


# pydantic's names for union members, wrapped types and validators in an error's location: they
# are not fields, and say nothing to the caller or policy author.
_INTERNAL_PREFIXES = (
    "function-",
    "literal[",
    "list[",
    "union[",
    "nullable[",
    "dict[",
    "json-or-python[",
    "tagged-union[",
    "constrained-",
)
_INTERNAL_NAMES = frozenset({"str", "int", "float", "bool", "none", "HistoryEntry"})


def field_path(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a field path: ``turn.role``, ``items[2].price``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.startswith(_INTERNAL_PREFIXES) or part in _INTERNAL_NAMES:
            continue
        else:
            path += f".{part}" if path else part
    return path
