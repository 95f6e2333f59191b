"""Common Python values that JSON has no form for, given the one form a tool would accept.

A framework hands a tool call's arguments over as Python objects: dates, decimals, UUIDs,
enums, pydantic models, dataclasses. The wire takes JSON only, and refuses anything else (a
tuple is not a list to it). :func:`jsonable_arguments` converts the common ones by fixed rules
(for plain values those of pydantic's ``model_dump(mode="json")``) and refuses the rest with the
path of the value and its type, so a caller never gets a value checked as something it is not.
What is checked is what the tool receives: a model's fields are read from the model and a
secret's value is revealed, since a masked or excluded value would hide it from the check.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Set
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any
from uuid import UUID

from pydantic import BaseModel, Secret, SecretStr

from govcore.errors import InvalidRequestError

__all__ = ["MAX_JSONABLE_DEPTH", "jsonable_arguments", "jsonable_value"]

MAX_JSONABLE_DEPTH = 100
"""How deeply a value may nest before it is refused: deeper than any real argument, and what
stops a value that contains itself. (The wire's own limit on arguments, 32 levels, is checked
after this, with its own message.)"""

_ACCEPTED = (
    "text, numbers, booleans, None, lists, tuples, sets, mappings with text keys, datetime, "
    "date, time, Decimal, UUID, Enum, Path, pydantic models and dataclass instances"
)


def jsonable_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` with every common non-JSON value replaced by its JSON form.

    The rules: ``datetime``, ``date`` and ``time`` become ISO 8601 text (``isoformat()``);
    ``Decimal`` its exact text (``"19.99"``, never a rounded float); ``UUID`` and ``Path`` their
    text; an ``Enum`` its value (converted in turn); a pydantic model an object of its fields
    (and extra fields) read from the model, not serialised, so that ``exclude``, custom
    serializers and masking hide nothing from a check; a ``SecretStr`` or ``Secret`` its
    revealed value; a dataclass instance an object of its fields; a tuple a list; a
    set or frozenset a list, sorted when its items can be compared (else in iteration order);
    a subclass of ``str``, ``int`` or ``float`` the plain value. Mappings and lists are
    converted item by item; nothing of ``arguments`` is changed in place.

    Args:
        arguments: a tool call's arguments, keyed by text.

    Returns:
        A new dict that ``json.dumps(..., allow_nan=False)`` accepts.

    Raises:
        InvalidRequestError: a value with no JSON form (bytes, a non-finite float, a key that
            is not text, any other object, nesting deeper than :data:`MAX_JSONABLE_DEPTH`),
            naming its path (``arguments.items[2].price``) and its type.
    """
    if not isinstance(arguments, Mapping):
        raise InvalidRequestError.for_field(
            "arguments", f"must be a mapping of argument names to values, not {_type(arguments)}"
        )
    converted = jsonable_value(arguments, "arguments")
    assert isinstance(converted, dict)
    return converted


def jsonable_value(value: Any, path: str) -> Any:
    """``value`` in its JSON form by the rules of :func:`jsonable_arguments`.

    Args:
        value: any value.
        path: how an error names ``value`` (``result``, ``arguments.when``).

    Raises:
        InvalidRequestError: as :func:`jsonable_arguments`.
    """
    return _jsonable(value, path, 0)


def _jsonable(value: Any, path: str, depth: int) -> Any:
    kind = type(value)
    # The common exact types first: most arguments are already JSON.
    if value is None or kind is bool or kind is str or kind is int:
        return value
    if kind is float:
        return _finite(value, path)
    if depth >= MAX_JSONABLE_DEPTH:
        raise InvalidRequestError.for_field(
            path, f"is nested more than {MAX_JSONABLE_DEPTH} levels deep (does it contain itself?)"
        )
    if isinstance(value, Enum):  # before str and int: StrEnum and IntEnum are both
        return _jsonable(value.value, path, depth + 1)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _finite(float(value), path)
    if isinstance(value, Mapping):
        return _mapping(value, path, depth)
    if isinstance(value, list | tuple):
        return [_jsonable(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value)]
    if isinstance(value, Set):
        items = [_jsonable(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value)]
        try:
            return sorted(items)
        except TypeError:  # mixed kinds (text and numbers): no order, keep the set's own
            return items
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal | UUID | PurePath):
        return str(value)
    if isinstance(value, SecretStr | Secret):
        # A check must see what the tool will receive, not its masked form.
        return _jsonable(value.get_secret_value(), path, depth + 1)
    if isinstance(value, BaseModel):
        return _mapping(_model_fields(value), path, depth)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        return _mapping(fields, path, depth)
    raise InvalidRequestError.for_field(
        path, f"is {_type(value)}, which has no JSON form (accepted: {_ACCEPTED})"
    )


def _model_fields(model: BaseModel) -> dict[str, Any]:
    """A model's field values as the tool receives them, read from the model itself: its
    serialisation (``model_dump``) may mask a secret, leave out an ``exclude``d field or
    rewrite a value with a custom serializer, which would hide it from a check."""
    values = {name: getattr(model, name) for name in type(model).model_fields}
    if model.model_extra:
        values.update(model.model_extra)
    return values


def _mapping(value: Mapping[Any, Any], path: str, depth: int) -> dict[str, Any]:
    converted: dict[str, Any] = {}
    for key, item in value.items():
        name = key.value if isinstance(key, Enum) else key
        if not isinstance(name, str):
            raise InvalidRequestError.for_field(
                path, f"has the key {key!r}, {_type(key)}: JSON keys are text"
            )
        name = str.__str__(name)
        converted[name] = _jsonable(item, f"{path}.{name}", depth + 1)
    return converted


def _finite(value: float, path: str) -> float:
    if not math.isfinite(value):
        raise InvalidRequestError.for_field(
            path, f"is the float {value!r}, which JSON cannot represent"
        )
    return value


def _type(value: Any) -> str:
    """The type of ``value`` in words: ``a bytes``, ``a decimal.Decimal``."""
    kind = type(value)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    return f"a {name}"
