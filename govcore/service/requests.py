"""Turning what a caller sent into a validated request model, or a 400 naming each field."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from govcore._suggest import unknown_field_at
from govcore.errors import FieldProblem, InvalidRequestError

__all__ = ["check_size", "parse_json_body", "validate_request"]

M = TypeVar("M", bound=BaseModel)


class _DuplicateKeyError(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return document


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json_body(body: bytes | str | None, *, max_bytes: int) -> dict[str, Any]:
    """Parse a request body strictly: a JSON object, UTF-8, no NaN, no repeated keys.

    Raises:
        InvalidRequestError: naming ``body`` and what is wrong with it.
    """
    if body is None or len(body) == 0:
        raise InvalidRequestError.for_field("body", "a JSON object is required")
    size = len(body) if isinstance(body, bytes) else len(body.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise InvalidRequestError.for_field(
            "body", f"is {size} bytes, more than the limit of {max_bytes} bytes"
        )
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
        document = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise InvalidRequestError.for_field("body", "is not UTF-8 text") from None
    except _DuplicateKeyError as exc:
        raise InvalidRequestError.for_field("body", f"repeats the key {exc.args[0]!r}") from None
    except json.JSONDecodeError as exc:
        reason = f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        raise InvalidRequestError.for_field("body", reason) from None
    except ValueError as exc:
        reason = str(exc)
        if "integer string conversion" in reason:  # Python's guard against huge integers
            reason = f"holds a number of more than {sys.get_int_max_str_digits()} digits"
        raise InvalidRequestError.for_field("body", reason) from None
    except RecursionError:
        raise InvalidRequestError.for_field("body", "is nested too deeply") from None
    if not isinstance(document, dict):
        raise InvalidRequestError.for_field("body", "must be a JSON object")
    return document


def validate_request(model: type[M], payload: M | Mapping[str, Any]) -> M:
    """Validate ``payload`` (wire field names) as ``model``.

    Raises:
        InvalidRequestError: with one detail per offending field.
    """
    if isinstance(payload, model):
        return payload
    if not isinstance(payload, Mapping):
        raise InvalidRequestError.for_field(
            "body", f"must be a {model.__name__} or a mapping of its wire fields"
        )
    try:
        return model.model_validate(payload, by_alias=True, by_name=False)
    except ValidationError as exc:
        details = [_detail(model, error) for error in exc.errors(include_url=False)]
        summary = "; ".join(f"{d.field}: {d.message}" for d in details[:5])
        more = f" (and {len(details) - 5} more)" if len(details) > 5 else ""
        raise InvalidRequestError(f"invalid request: {summary}{more}", details) from None
    except RecursionError:
        raise InvalidRequestError.for_field("body", "is nested too deeply") from None


def check_size(field: str, text: str, limit: int) -> None:
    """Refuse ``text`` when its UTF-8 form is longer than ``limit`` bytes."""
    if len(text) * 4 <= limit:  # cannot be over: UTF-8 takes at most 4 bytes a character
        return
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise InvalidRequestError.for_field(
            field, f"is {size} bytes, more than the limit of {limit} bytes"
        )


def _detail(model: type[BaseModel], error: Mapping[str, Any]) -> FieldProblem:
    field = _wire_path(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        name = str(error["loc"][-1]) if error["loc"] else ""
        if "tenant" in name.lower():
            reason = "a tenant is never sent in a request: it comes from the API key"
        else:
            reason = unknown_field_at(model, error["loc"])
    elif kind == "missing":
        reason = "required"
    else:
        reason = str(error["msg"])
        if reason.startswith("Value error, "):
            reason = reason[len("Value error, ") :]
    return FieldProblem(field or "body", reason)


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


def _wire_path(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.startswith(_INTERNAL_PREFIXES) or part in _INTERNAL_NAMES:
            continue  # pydantic's names for union members and validators, not fields
        else:
            path += f".{part}" if path else part
    return path
