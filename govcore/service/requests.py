"""Turning what a caller sent into a validated request model, or a 400 naming each field."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from pydantic import BaseModel, ValidationError

from govcore._suggest import field_path, nested_model, unknown_field, wire_names_at
from govcore.errors import MAX_DETAILS, FieldProblem, InvalidRequestError

__all__ = [
    "check_size",
    "check_tool_arguments",
    "parse_json_body",
    "parse_query",
    "validate_request",
]

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


MAX_QUERY_FIELDS = 100
"""How many ``name=value`` pairs a query string may have; a query model has far fewer fields."""


def parse_query(query: str) -> dict[str, str | list[str]]:
    """Parse a query string (without its ``?``) into wire fields for a query model.

    Values are percent-decoded UTF-8 text: a name given once maps to its text, a repeated name
    to the list of its texts, in order. A query string has no types, so a query model accepts
    text (it is not strict) and converts it.

    Raises:
        InvalidRequestError: naming ``query``: more than ``MAX_QUERY_FIELDS`` pairs, or a part
            that is not valid percent-encoded UTF-8.
    """
    try:
        pairs = parse_qsl(
            query, keep_blank_values=True, errors="strict", max_num_fields=MAX_QUERY_FIELDS
        )
    except UnicodeDecodeError:
        raise InvalidRequestError.for_field("query", "is not valid percent-encoded UTF-8") from None
    except ValueError:  # parse_qsl's own refusal of too many fields
        raise InvalidRequestError.for_field(
            "query", f"has more than {MAX_QUERY_FIELDS} fields"
        ) from None
    fields: dict[str, str | list[str]] = {}
    for name, value in pairs:
        known = fields.get(name)
        if known is None:
            fields[name] = value
        elif isinstance(known, list):
            known.append(value)
        else:
            fields[name] = [known, value]
    return fields


def validate_request(model: type[M], payload: M | Mapping[str, Any]) -> M:
    """Validate ``payload`` (wire field names) as ``model``.

    The error is small whatever the payload: more than ``MAX_DETAILS`` unknown fields are
    refused after counting them, before pydantic builds an error for each; otherwise only the
    first ``MAX_DETAILS`` of pydantic's errors become details (see ``InvalidRequestError``).

    Raises:
        InvalidRequestError: with one detail per offending field, the first ``MAX_DETAILS``.
    """
    if isinstance(payload, model):
        return payload
    if not isinstance(payload, Mapping):
        raise InvalidRequestError.for_field(
            "body", f"must be a {model.__name__} or a mapping of its wire fields"
        )
    unknown: list[FieldProblem] = []
    count = _count_unknown(model, payload, "", unknown)
    if count > MAX_DETAILS:
        raise InvalidRequestError.listing(unknown, total=count)
    try:
        return model.model_validate(payload, by_alias=True, by_name=False)
    except ValidationError as exc:
        # Bounded: unknown fields are at most MAX_DETAILS here, every list of a request model
        # has a maximum length that pydantic checks first, and free-form JSON fails as one.
        errors = exc.errors(include_url=False)
        details = [_detail(model, error) for error in errors[:MAX_DETAILS]]
        raise InvalidRequestError.listing(details, total=len(errors)) from None
    except RecursionError:
        raise InvalidRequestError.for_field("body", "is nested too deeply") from None


_LIST_ITEMS_WALKED = 1000
"""List items searched for unknown fields: the longest list a request model accepts. A longer
list is refused for its length anyway, at once, by pydantic."""


def _count_unknown(
    model: type[BaseModel], payload: Mapping[Any, Any], path: str, found: list[FieldProblem]
) -> int:
    """How many fields of ``payload`` and of its nested objects ``model`` does not accept.

    The first ``MAX_DETAILS`` are appended to ``found``. One dictionary lookup per key, and a
    descent only into the fields that hold request models: this is what makes a body of
    hundreds of thousands of unknown keys cheap to refuse.
    """
    shape = _shape(model)
    count = 0
    for key, value in payload.items():
        if key not in shape:
            count += 1
            if len(found) < MAX_DETAILS:
                name = str(key)
                where = f"{path}.{name}" if path else name
                found.append(FieldProblem(where, _unknown_reason(name, list(shape))))
            continue
        nested = shape[key]
        if nested is None:
            continue
        where = f"{path}.{key}" if path else key
        if isinstance(value, Mapping):
            count += _count_unknown(nested, value, where, found)
        elif isinstance(value, list):
            for index, item in enumerate(value[:_LIST_ITEMS_WALKED]):
                if isinstance(item, Mapping):
                    count += _count_unknown(nested, item, f"{where}[{index}]", found)
    return count


@cache
def _shape(model: type[BaseModel]) -> dict[str, type[BaseModel] | None]:
    """The wire names ``model`` accepts, each with the request model its value holds, if any."""
    return {
        field.alias or name: nested_model(field.annotation)
        for name, field in model.model_fields.items()
    }


def _unknown_reason(name: str, candidates: Sequence[str]) -> str:
    if "tenant" in name.lower():
        return "a tenant is never sent in a request: it comes from the API key"
    return unknown_field(name, candidates)


def check_tool_arguments(arguments: Mapping[str, Any], limit: int) -> None:
    """Refuse tool-call ``arguments`` whose compact JSON form is longer than ``limit`` bytes.

    The size is that of ``json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)``
    in UTF-8. ``arguments`` must already be validated JSON (``ToolCallRequest`` does that), so
    encoding them costs about what validating them did: one pass of the C encoder (a quarter of
    the time of measuring piece by piece, which could stop at the limit but costs more on every
    ordinary call).

    Raises:
        InvalidRequestError: naming ``arguments`` and the limit.
    """
    text = _ARGUMENT_ENCODER.encode(arguments)
    if len(text) * 4 <= limit:  # cannot be over: UTF-8 takes at most 4 bytes a character
        return
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise InvalidRequestError.for_field(
            "arguments",
            f"is {size} bytes, more than the limit of {limit} bytes (measured as compact JSON "
            "in UTF-8)",
        )


# Keys are not sorted: the size does not depend on the order.
_ARGUMENT_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


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
    field = field_path(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        name = str(error["loc"][-1]) if error["loc"] else ""
        reason = _unknown_reason(name, wire_names_at(model, error["loc"]))
    elif kind == "missing":
        reason = "required"
    else:
        reason = str(error["msg"])
        if reason.startswith("Value error, "):
            reason = reason[len("Value error, ") :]
    return FieldProblem(field or "body", reason)
