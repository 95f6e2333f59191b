"""The OpenAPI 3.1 document of the HTTP interface, generated from the rows of the endpoint table
and the wire models (no server library needed).

Each row says what its request is (``request``: a body, the path parameter, or neither, with
an optional query model), its summary, scope, feature setting and what its 404 means. The body
and response models are read from the handler's type annotations
(``run(service, principal, request: TurnRequest) -> Result[TurnResponse]``); a result that
carries no model answers 204. The statuses are those the pipeline can give (docs/api.md, Order
of refusals); the fields' descriptions are the wire models' own.

Regenerate the copy kept in the repository with::

    python -m govcore.openapi > docs/openapi.json
"""

from __future__ import annotations

import ast
import collections.abc
import functools
import inspect
import itertools
import json
import sys
import textwrap
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import (
    GenerateJsonSchema,
    JsonSchemaMode,
    JsonSchemaValue,
    models_json_schema,
)
from pydantic_core import core_schema

from govcore._version import __version__
from govcore.errors import (
    AuthenticationError,
    BackendError,
    InternalError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
)
from govcore.http import API_PREFIX
from govcore.service import effects
from govcore.service.endpoints import ENDPOINTS, Endpoint, PathParameter
from govcore.service.shared import Result

__all__ = ["openapi_document", "openapi_json"]

_REF = "#/components/schemas/{model}"


# --- error bodies: what GovcoreError.to_body() produces -------------------------------------


_MESSAGE = "what is wrong, for people"


class _ErrorModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(_ErrorModel):
    """The body of every refusal: a stable code and a message for people."""

    error: str = Field(description="machine-readable code, e.g. unauthenticated")
    message: str = Field(description=_MESSAGE)


class FieldProblemBody(_ErrorModel):
    """One offending field of a 400: its wire path and what is wrong."""

    field: str = Field(
        max_length=128,
        description="the field's wire path (turn.role, priorHistory[0].content), or body for "
        "the body as a whole",
    )
    message: str = Field(max_length=256, description="what is wrong with it")


class InvalidRequestBody(_ErrorModel):
    """400: the request is malformed or breaks a rule; ``details`` names each field."""

    error: Literal["invalid_request"] = Field(description="the code of a 400")
    message: str = Field(description=_MESSAGE)
    details: list[FieldProblemBody] = Field(
        max_length=20, description="each offending field (the first 20)"
    )


class RateLimitedBody(_ErrorModel):
    """429: the key's rate limit is used up."""

    error: Literal["rate_limited"] = Field(description="the code of a 429")
    message: str = Field(description=_MESSAGE)
    window_seconds: int = Field(description="the length of the rate-limit window, in seconds")
    retry_after: int = Field(
        ge=1, description="whole seconds until a request will be admitted again"
    )


def _coded(code: str, description: str) -> dict[str, Any]:
    """An ``ErrorBody`` whose ``error`` is ``code``."""
    return {
        "allOf": [{"$ref": _REF.format(model="ErrorBody")}],
        "properties": {"error": {"const": code}},
        "description": description,
    }


# --- field descriptions: the wire models' attribute docstrings ------------------------------


class _DescribedFields(GenerateJsonSchema):
    """JSON schemas whose fields carry the models' attribute docstrings as descriptions.

    The docstrings are read here, when a document is generated, rather than by pydantic's
    ``use_attribute_docstrings`` when each model is defined: that parses every model's source
    at import, which made ``import govcore`` 15 ms slower. Validation never sees them.
    """

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        model: type[BaseModel] = schema["cls"]
        docstrings = _attribute_docstrings(model)
        properties = json_schema.get("properties", {})
        for name, field in model.model_fields.items():
            wire_name = field.alias if self.by_alias and field.alias else name
            described = properties.get(wire_name)
            if described is not None and name in docstrings and "description" not in described:
                described["description"] = docstrings[name]
        return json_schema


@functools.cache
def _attribute_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string right below its annotation), ``model``'s own and
    those of the models it extends; empty when the source cannot be read."""
    docstrings: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for statement, following in itertools.pairwise(body):
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                text = inspect.cleandoc(following.value.value)
                docstrings[statement.target.id] = " ".join(text.split("\n"))
    return docstrings


# --- the endpoints --------------------------------------------------------------------------


def _models(endpoint: Endpoint[Any, Any]) -> tuple[type[BaseModel] | None, type[BaseModel] | None]:
    """The body model (``None`` unless the request is the body) and the response model
    (``None`` for a 204) of ``endpoint``, from its handler's annotations."""
    run = _handler(endpoint.run)
    # The effect types are named in the handlers' annotations through ``Steps``.
    hints = typing.get_type_hints(run, localns=vars(effects))
    result = hints["return"]
    if typing.get_origin(result) is collections.abc.Generator:  # Steps[Result[...]]
        result = typing.get_args(result)[2]
    if typing.get_origin(result) is not Result:
        raise TypeError(f"{endpoint.name}: the handler must return a Result")
    (response,) = typing.get_args(result)
    response_model = (
        response if isinstance(response, type) and issubclass(response, BaseModel) else None
    )
    if endpoint.request != "body":
        return None, response_model
    request = hints[list(inspect.signature(run).parameters)[2]]
    if not (isinstance(request, type) and issubclass(request, BaseModel)):
        raise TypeError(f"{endpoint.name}: a body request must be a model, not {request!r}")
    return request, response_model


def _handler(run: Any) -> Any:
    """The annotated handler behind ``run`` (a handler that needs no store is wrapped into a
    generator function by ``without_effects``, which keeps it as ``__wrapped__``)."""
    return inspect.unwrap(run)


_JSON = "application/json"


def _content(schema: dict[str, Any]) -> dict[str, Any]:
    return {_JSON: {"schema": schema}}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF.format(model=name)}


def _operation(
    endpoint: Endpoint[Any, Any], refs: Mapping[tuple[Any, JsonSchemaMode], Any]
) -> dict[str, Any]:
    request, response = _models(endpoint)
    responses: dict[str, Any] = {}
    if response is None:
        responses["204"] = {"description": "done; no body"}
    else:
        responses["200"] = {
            "description": "the answer",
            "content": _content(refs[(response, "serialization")]),
        }
    what_is_checked = _what_is_checked(endpoint)
    if what_is_checked is not None:
        responses["400"] = {
            "description": f"{InvalidRequestError.code}: {what_is_checked} is not a valid request",
            "content": _content(_ref("InvalidRequestBody")),
        }
    responses["401"] = {
        "description": f"{AuthenticationError.code}: no key, an unknown or a revoked one",
        "headers": {
            "www-authenticate": {"schema": {"type": "string", "const": "Bearer"}, "required": True}
        },
        "content": _content(_coded(AuthenticationError.code, "no valid key")),
    }
    responses["403"] = {
        "description": f"{PermissionDeniedError.code}: the key lacks the scope "
        f"{endpoint.scope!r}"
        + (f" or the setting {endpoint.feature!r}" if endpoint.feature else ""),
        "content": _content(_coded(PermissionDeniedError.code, "not permitted")),
    }
    if endpoint.request == "body":
        responses["408"] = {
            "description": "request_timeout: the HTTP service did not receive the whole body "
            "in time (`body_timeout`, 30 s by default); the connection is closed",
            "content": _content(_coded("request_timeout", "the body did not arrive in time")),
        }
    if endpoint.not_found is not None:
        responses["404"] = {
            "description": f"{NotFoundError.code}: {endpoint.not_found}",
            "content": _content(_coded(NotFoundError.code, "not found")),
        }
    responses["429"] = {
        "description": f"{RateLimitedError.code}: the key's rate limit is used up",
        "headers": {
            "retry-after": {
                "description": "whole seconds until a request will be admitted again",
                "schema": {"type": "string", "pattern": "^[1-9][0-9]*$"},
                "required": True,
            }
        },
        "content": _content(_ref("RateLimitedBody")),
    }
    responses["500"] = {
        "description": f"{InternalError.code}: a bug in govcore; logged, no details",
        "content": _content(_coded(InternalError.code, "internal error")),
    }
    responses["503"] = {
        "description": f"{BackendError.code}: a storage or retrieval backend failed; retry "
        "with backoff",
        "content": _content(_coded(BackendError.code, "backend unavailable")),
    }
    operation: dict[str, Any] = {
        "operationId": _camel(endpoint.name),
        "summary": endpoint.summary,
        "description": f"Needs the scope `{endpoint.scope}`"
        + (f" and the key setting `{endpoint.feature}: allowed`." if endpoint.feature else "."),
    }
    if endpoint.parameter is not None:
        operation["parameters"] = [_path_parameter(endpoint.path, endpoint.parameter)]
    elif endpoint.query is not None:
        operation["parameters"] = _query_parameters(endpoint.name, endpoint.query)
    if request is not None:
        operation["requestBody"] = {
            "required": True,
            "description": "a JSON object of at most `max_body_bytes` (8 MiB by default; a tool "
            "call: 4 x `max_tool_arguments_bytes` + 16 KiB), refused with 400 on `body` beyond",
            "content": _content(refs[(request, "validation")]),
        }
    operation["responses"] = dict(sorted(responses.items()))
    return operation


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def _what_is_checked(endpoint: Endpoint[Any, Any]) -> str | None:
    """What a 400 of ``endpoint`` refuses; ``None`` when it takes nothing that could be wrong."""
    if endpoint.request == "body":
        return "the body"
    if endpoint.parameter is not None:
        return f"the {endpoint.parameter.noun}"
    if endpoint.query is not None:
        return "the query string"
    return None


def _path_parameter(path: str, parameter: PathParameter) -> dict[str, Any]:
    """The route's path parameter (its last segment, ``{name}``)."""
    return {
        "name": path.rsplit("/", 1)[1].strip("{}"),
        "in": "path",
        "required": True,
        "description": parameter.description,
        "schema": {"type": "string", "minLength": 1, "maxLength": parameter.max_length},
    }


def _query_parameters(name: str, query: type[BaseModel]) -> list[dict[str, Any]]:
    """One query parameter per field of ``query``, by its wire name."""
    schema = query.model_json_schema(
        by_alias=True, ref_template=_REF, schema_generator=_DescribedFields
    )
    if "$defs" in schema:
        raise TypeError(f"{name}: a query model's fields must be plain values, not models")
    required = set(schema.get("required", ()))
    parameters = []
    for field_name, field_schema in schema["properties"].items():
        parameter: dict[str, Any] = {
            "name": field_name,
            "in": "query",
            "required": field_name in required,
        }
        field_schema = dict(field_schema)
        if "description" in field_schema:
            parameter["description"] = field_schema.pop("description")
        field_schema.pop("title", None)
        parameter["schema"] = field_schema
        parameters.append(parameter)
    return parameters


def _wire_models(
    endpoints: Iterable[Endpoint[Any, Any]],
) -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    wanted: list[tuple[type[BaseModel], JsonSchemaMode]] = []
    for endpoint in endpoints:
        request, response = _models(endpoint)
        if request is not None:
            wanted.append((request, "validation"))
        if response is not None:
            wanted.append((response, "serialization"))
    errors: list[type[BaseModel]] = [ErrorBody, InvalidRequestBody, RateLimitedBody]
    wanted.extend((model, "validation") for model in errors)
    return list(dict.fromkeys(wanted))


def openapi_document(
    mount: str = API_PREFIX, endpoints: Iterable[Endpoint[Any, Any]] = ENDPOINTS
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``endpoints`` (by default every endpoint of the interface,
    :data:`govcore.service.endpoints.ENDPOINTS`), served under ``mount``."""
    endpoints = tuple(endpoints)
    refs, definitions = models_json_schema(
        _wire_models(endpoints),
        by_alias=True,
        ref_template=_REF,
        schema_generator=_DescribedFields,
    )
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        path = mount.rstrip("/") + endpoint.path
        paths.setdefault(path, {})[endpoint.method.lower()] = _operation(endpoint, refs)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "govcore agent governance API",
            "version": __version__,
            "description": "The interface govcore serves (docs/api.md). Every operation needs "
            "an API key as a bearer token; errors are JSON bodies with a stable `error` code.",
        },
        "paths": paths,
        "components": {
            "schemas": definitions.get("$defs", {}),
            "securitySchemes": {
                "apiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a govcore API key: `Authorization: Bearer <key>`",
                }
            },
        },
        "security": [{"apiKey": []}],
    }


def openapi_json(mount: str = API_PREFIX) -> str:
    """:func:`openapi_document` as indented JSON text with a final newline, as kept in
    ``docs/openapi.json``."""
    return json.dumps(openapi_document(mount), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(openapi_json())
