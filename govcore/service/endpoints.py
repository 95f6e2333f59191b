"""The endpoint table, and :func:`call`: the one pipeline both the typed clients and the
dispatcher run.

An endpoint is one row, an :class:`Endpoint` of keyword fields: its client method name, route,
summary, the scope and feature setting it needs, what its request is (a JSON body, the route's
path parameter, or neither, with an optional query model), how that request is parsed, the
stored keys it reads, its body limit and its handler. The dispatcher (:mod:`govcore.http`), the
typed clients (:mod:`govcore.client`), the HTTP service and the OpenAPI document
(:mod:`govcore.openapi`) read every fact about an endpoint from its row and from nothing else;
docs/architecture.md, "Adding an endpoint", walks through a new one.

:func:`call` runs every request the same way, refusing in this order: authenticate (401), rate
limit (429), scope and feature setting (403), parse and validate (400); then the handler, whose
own outcomes follow. Anything unexpected on the way is a bug and becomes
:class:`~govcore.errors.InternalError`.

The rate limit is decided after the checks that need no store (scope, feature, parsing), so
that its round trip to the store can also read the keys the handler needs; a request refused
by one of those checks is still counted and still gets 429 first when over the limit, so the
order of refusals is the one above.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from govcore.config import GovernanceSettings
from govcore.core.selection import SelectionExplanation
from govcore.errors import (
    GovcoreError,
    InternalError,
    InvalidRequestError,
    PermissionDeniedError,
)
from govcore.jsonable import jsonable_arguments
from govcore.models import (
    ConversationSnapshot,
    ExplainRequest,
    FinalizeOutputRequest,
    Identifier,
    PostInferenceRequest,
    PostInferenceResponse,
    PreInferenceRequest,
    PreInferenceResponse,
    StreamCheckRequest,
    StreamCheckResponse,
    ToolCallDecision,
    ToolCallRequest,
    TurnRequest,
    TurnResponse,
)
from govcore.service import checks, conversations
from govcore.service.access import Principal
from govcore.service.effects import Steps
from govcore.service.requests import parse_json_body, parse_query, validate_request
from govcore.service.shared import Result, Service
from govcore.text_rules import MAX_ID_LENGTH
from govcore.types import StoreReads

__all__ = [
    "CHECK_OUTPUT_STREAM",
    "CHECK_TOOL_CALL",
    "DELETE_CONVERSATION",
    "ENDPOINTS",
    "EXPLAIN_SELECTION",
    "FINALIZE_OUTPUT",
    "GET_CONVERSATION",
    "POST_INFERENCE",
    "PRE_INFERENCE",
    "RECORD_IDENTIFIED_TURN",
    "RECORD_TURN",
    "ClientCall",
    "Endpoint",
    "PathParameter",
    "RawBody",
    "RawQuery",
    "RequestKind",
    "body_limit",
    "call",
    "model_parser",
]

RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")
M = TypeVar("M", bound=BaseModel)

_log = logging.getLogger("govcore")


@dataclass(frozen=True, slots=True)
class RawBody:
    """A request body exactly as a transport received it (the dispatcher's payload of an
    endpoint whose request is its body)."""

    content: bytes | str | None


@dataclass(frozen=True, slots=True)
class RawQuery:
    """A query string exactly as a transport received it, without its ``?`` (the dispatcher's
    payload of an endpoint with a query model)."""

    content: str


@dataclass(frozen=True, slots=True)
class ClientCall:
    """A typed client's request with what the library adds beside its wire fields.

    Only the typed clients send one; the dispatcher never does, so what it adds cannot be
    reached over HTTP and the wire stays the interface's.

    Attributes:
        request: the request model or mapping of wire fields, as the client was given it.
        trace_id: the ``traceId`` to answer with (the clients' ``trace_id=``), for a request
            that can carry one; validated as an identifier with the request (400).
    """

    request: Any
    trace_id: str | None = None


RequestKind = Literal["body", "path", "none"]
"""Where an endpoint's request comes from over HTTP.

- ``body``: a JSON object, validated as the request model its handler takes;
- ``path``: the route's one path parameter, its last segment (``{sessionId}``);
- ``none``: neither. The request is the endpoint's query model, validated from the query
  string, or ``None`` when it has no query model.
"""


@dataclass(frozen=True, slots=True)
class PathParameter:
    """What the route's path parameter is, as the OpenAPI document describes it.

    Attributes:
        noun: what the parameter is, in words (``session id``): a 400 says it is not valid.
        description: the parameter's description.
        max_length: its most characters (it is validated as an identifier, at least one).
    """

    noun: str
    description: str
    max_length: int = MAX_ID_LENGTH


def _reads_nothing(_principal: Principal, _request: Any) -> tuple[str, ...]:
    return ()


def _max_body_bytes(settings: GovernanceSettings) -> int:
    return settings.max_body_bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Endpoint(Generic[RequestT, ResponseT]):
    """One endpoint: a row of the table, every field named.

    Attributes:
        name: the typed clients' method (and, in camelCase, the OpenAPI ``operationId``).
        method: the HTTP method.
        path: the route under the mount prefix; a last segment in braces (``{sessionId}``) is
            the path parameter.
        summary: a short title (the heading of the endpoint in docs/api.md).
        scope: the scope the key needs (403 without it).
        feature: the per-key feature setting that must be ``allowed``, if any (403).
        request: where the request comes from over HTTP (:data:`RequestKind`).
        parse: turns the payload into the handler's request, or refuses it (400): a model or a
            mapping of wire fields (the decoded body or query string, or a client's argument),
            or the path parameter. May refuse with 403 first (a turn's ``checkOutput``).
        run: answers the request (a generator of store effects, given the keys it read); its
            annotations name the request and response models (``Result[None]``: 204).
        reads: the stored keys the handler needs, read with the request's admission.
        body_limit: the most bytes the body may have, from the settings; a transport may refuse
            a longer body before reading all of it.
        query: the model a query string is validated as (``request="none"`` only); without one,
            a query string is ignored.
        parameter: what the path parameter is (``request="path"`` only).
        not_found: what a 404 of the endpoint means, when it can answer one (always for a path
            parameter: routing answers 404 for a segment that is not percent-encoded UTF-8).
    """

    name: str
    method: str
    path: str
    summary: str
    scope: str
    feature: str | None = None
    request: RequestKind
    parse: Callable[[Service, Principal, Any], RequestT]
    run: Callable[[Service, Principal, RequestT, StoreReads], Steps[Result[ResponseT]]]
    reads: Callable[[Principal, RequestT], tuple[str, ...]] = _reads_nothing
    body_limit: Callable[[GovernanceSettings], int] = _max_body_bytes
    query: type[BaseModel] | None = None
    parameter: PathParameter | None = None
    not_found: str | None = None

    def __post_init__(self) -> None:
        # Every reader trusts these facts; a row that breaks one fails where it is written.
        last = self.path.rpartition("/")[2]
        takes_path = self.request == "path"
        route_has_parameter = last.startswith("{") and last.endswith("}")
        if takes_path != route_has_parameter or takes_path != (self.parameter is not None):
            raise ValueError(
                f"{self.name}: request='path' goes with a route ending in {{name}} and a "
                "PathParameter, and only with them"
            )
        if takes_path and self.not_found is None:
            raise ValueError(
                f"{self.name}: a route with a path parameter can answer 404; say what it means "
                "with not_found"
            )
        if self.query is not None and self.request != "none":
            raise ValueError(
                f"{self.name}: a query model is the request of an endpoint without body or path "
                "parameter (request='none')"
            )


def model_parser(
    model: type[M],
    gate: Callable[[Principal, Any], None] | None = None,
    client_form: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None,
) -> Callable[[Service, Principal, Any], M]:
    """A parser of a request (a decoded JSON body or query string, a model, a mapping of wire
    fields, or a :class:`ClientCall` of one) as ``model``; ``gate`` may refuse (403) before
    validation (400). ``client_form`` turns a typed client's mapping into wire fields first
    (a tool call's arguments made JSON); a body the dispatcher decoded is JSON already and is
    validated as it came."""

    def parse(service: Service, principal: Principal, payload: Any) -> M:
        trace_id: str | None = None
        from_client = isinstance(payload, ClientCall)
        if isinstance(payload, ClientCall):
            payload, trace_id = payload.request, payload.trace_id
        if gate is not None:
            gate(principal, payload)
        if from_client and client_form is not None and isinstance(payload, Mapping):
            payload = client_form(payload)
        request: M = validate_request(model, payload)
        if trace_id is None:
            return request
        return _traced(request, trace_id)

    return parse


_TRACE_ID: TypeAdapter[str] = TypeAdapter(Identifier)
# The requests whose answer carries a traceId the caller may choose: the checks whose wire
# request has no traceId field (post-inference's has one).
_TRACEABLE = (ToolCallRequest, StreamCheckRequest)


def _traced(request: M, trace_id: str) -> M:
    """``request`` answered with the caller's ``trace_id``, refused (400) when it is not an
    identifier (the rule of a post-inference ``traceId``)."""
    if not isinstance(request, _TRACEABLE):
        raise InvalidRequestError.for_field(
            "trace_id", f"is not accepted by {type(request).__name__}"
        )
    try:
        valid = _TRACE_ID.validate_python(trace_id, strict=True)
    except ValidationError as exc:
        reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise InvalidRequestError.for_field("trace_id", reason) from None
    return cast("M", request.with_trace_id(valid))


def _jsonable_tool_call(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """A typed client's tool call with its arguments in JSON form (``jsonable_arguments``):
    dates, decimals, UUIDs, enums, models and dataclasses are not refused as non-JSON."""
    arguments = payload.get("arguments")
    if not isinstance(arguments, Mapping):
        return payload  # missing or not an object: validation names it
    return {**payload, "arguments": jsonable_arguments(arguments)}


def _output_check_gate(principal: Principal, payload: Any) -> None:
    """A turn with ``checkOutput`` is also an output check: it needs what post-inference needs,
    refused (403) before the body is validated (400), in the order of refusals."""
    wants_check = (
        payload.check_output
        if isinstance(payload, TurnRequest)
        else isinstance(payload, Mapping) and payload.get("checkOutput") is True
    )
    if wants_check:
        principal.require_scope("governance:check")
        principal.require_feature("post_inference_checking")


def _tool_call_body_limit(settings: GovernanceSettings) -> int:
    """A tool call's body holds its arguments and a few short fields: a body over four times the
    arguments' limit (room for indentation) cannot be within it, and is refused before parsing,
    so its cost is bounded by the limit and not by the body."""
    return min(settings.max_body_bytes, 4 * settings.max_tool_arguments_bytes + _SHORT_FIELDS)


_SHORT_FIELDS = 16 * 1024  # sessionId, toolName and intent, at their longest, with room


def _session_id(service: Service, principal: Principal, payload: Any) -> str:
    """The parser of ``{sessionId}``: the rule of a body's ``sessionId``."""
    return conversations.check_session_id(payload)


_SESSION_ID = PathParameter(
    noun="session id", description="the conversation's session id (1 to 256 characters)"
)
_NO_CONVERSATION = (
    "no such conversation for the key's tenant (or a session id that is not valid "
    "percent-encoded UTF-8)"
)

_parse_turn = model_parser(TurnRequest, _output_check_gate)

RECORD_TURN: Endpoint[TurnRequest, TurnResponse] = Endpoint(
    name="record_turn",
    method="POST",
    path="/governance/conversation/turn",
    summary="Record a turn",
    scope="governance:read",
    request="body",
    parse=_parse_turn,
    run=conversations.record_turn,
    reads=conversations.turn_reads,
)
GET_CONVERSATION: Endpoint[str, ConversationSnapshot] = Endpoint(
    name="get_conversation",
    method="GET",
    path="/governance/conversation/{sessionId}",
    summary="Read a conversation",
    scope="governance:read",
    request="path",
    parameter=_SESSION_ID,
    not_found=_NO_CONVERSATION,
    parse=_session_id,
    run=conversations.get_conversation,
    reads=conversations.session_reads,
)
DELETE_CONVERSATION: Endpoint[str, Any] = Endpoint(
    name="delete_conversation",
    method="DELETE",
    path="/governance/conversation/{sessionId}",
    summary="Delete a conversation",
    scope="governance:read",
    request="path",
    parameter=_SESSION_ID,
    not_found=_NO_CONVERSATION,
    parse=_session_id,
    run=conversations.delete_conversation,
)
PRE_INFERENCE: Endpoint[PreInferenceRequest, PreInferenceResponse] = Endpoint(
    name="pre_inference",
    method="POST",
    path="/governance/pre-inference",
    summary="Pre-inference (legacy)",
    scope="governance:read",
    request="body",
    parse=model_parser(PreInferenceRequest),
    run=conversations.pre_inference,
    reads=conversations.pre_inference_reads,
)
CHECK_TOOL_CALL: Endpoint[ToolCallRequest, ToolCallDecision] = Endpoint(
    name="check_tool_call",
    method="POST",
    path="/governance/check-tool-call",
    summary="Check a tool call",
    scope="governance:check",
    feature="tool_call_governance",
    request="body",
    body_limit=_tool_call_body_limit,
    parse=model_parser(ToolCallRequest, client_form=_jsonable_tool_call),
    run=checks.check_tool_call,
    reads=checks.tool_call_reads,
)
POST_INFERENCE: Endpoint[PostInferenceRequest, PostInferenceResponse] = Endpoint(
    name="post_inference",
    method="POST",
    path="/governance/post-inference",
    summary="Post-inference",
    scope="governance:check",
    feature="post_inference_checking",
    request="body",
    parse=model_parser(PostInferenceRequest),
    run=checks.post_inference,
)
CHECK_OUTPUT_STREAM: Endpoint[StreamCheckRequest, StreamCheckResponse] = Endpoint(
    name="check_output_stream",
    method="POST",
    path="/governance/check-output/stream",
    summary="Streaming check",
    scope="governance:check",
    feature="post_inference_checking",
    request="body",
    parse=model_parser(StreamCheckRequest),
    run=checks.check_output_stream,
    reads=checks.stream_reads,
)
FINALIZE_OUTPUT: Endpoint[FinalizeOutputRequest, PostInferenceResponse] = Endpoint(
    name="finalize_output",
    method="POST",
    path="/governance/check-output/finalize",
    summary="Finalize a streamed output",
    scope="governance:check",
    feature="post_inference_checking",
    request="body",
    parse=model_parser(FinalizeOutputRequest),
    run=checks.finalize_output,
)

# In-process only (the typed client and ``govcore explain``): not in ENDPOINTS, so neither
# routed by ``handle`` nor in the OpenAPI document; the wire interface stays the specification's.
EXPLAIN_SELECTION: Endpoint[ExplainRequest, SelectionExplanation] = Endpoint(
    name="explain_selection",
    method="POST",
    path="(in-process)",
    summary="Explain a selection",
    scope="governance:read",
    request="body",
    parse=model_parser(ExplainRequest),
    run=conversations.explain_selection,
    reads=conversations.explain_reads,
)


def _identified_turn(
    service: Service, principal: Principal, payload: conversations.IdentifiedTurn
) -> conversations.IdentifiedTurn:
    """The turn request as the turn endpoint parses it (403, then 400), then its keywords; a
    result to check needs what post-inference needs (403 before the body's 400)."""
    if payload.check_result:
        principal.require_scope("governance:check")
        principal.require_feature("post_inference_checking")
    request = _parse_turn(service, principal, payload.request)
    return conversations.parse_identified_turn(payload, request)


# The typed clients' record_turn with a message id, tool name or call id: in-process only, like
# EXPLAIN_SELECTION. Its request is the turn's body with those keywords beside it, never in it:
# the wire body stays the specification's (docs/decisions/integration-identifiers.md).
RECORD_IDENTIFIED_TURN: Endpoint[conversations.IdentifiedTurn, TurnResponse] = Endpoint(
    name="record_turn",
    method="POST",
    path="(in-process)",
    summary="Record a turn with a framework's identifiers",
    scope="governance:read",
    request="body",
    parse=_identified_turn,
    run=conversations.record_identified_turn,
    reads=conversations.identified_turn_reads,
)

ENDPOINTS: tuple[Endpoint[Any, Any], ...] = (
    RECORD_TURN,
    GET_CONVERSATION,
    DELETE_CONVERSATION,
    PRE_INFERENCE,
    CHECK_TOOL_CALL,
    POST_INFERENCE,
    CHECK_OUTPUT_STREAM,
    FINALIZE_OUTPUT,
)
"""The endpoints of the HTTP interface, in the order of docs/api.md."""


def body_limit(endpoint: Endpoint[Any, Any], settings: GovernanceSettings) -> int:
    """The most bytes a request body of ``endpoint`` may have (its row's ``body_limit``)."""
    return endpoint.body_limit(settings)


def call(
    service: Service,
    endpoint: Endpoint[RequestT, ResponseT],
    api_key: str | None,
    payload: Any,
) -> Steps[Result[ResponseT]]:
    """Run one request through the pipeline (a generator of store effects).

    ``payload`` is what a transport received (a :class:`RawBody`, a :class:`RawQuery`, the path
    parameter or ``None``), decoded here after the 403 checks, or what a typed client was given.
    Every request of both doors passes here, so this is where metrics and spans observe it
    (:mod:`govcore.telemetry`), when the facade has them.

    Raises:
        GovcoreError: a refusal (401, 429, 403, 400), the endpoint's own outcome (404), a
            :class:`~govcore.errors.BackendError` (503) or, for a bug,
            :class:`~govcore.errors.InternalError` from the original exception.
    """
    steps = _pipeline(service, endpoint, api_key, payload)
    if service.observer is None:
        return steps
    return service.observer.observe(endpoint.name, steps)


def _pipeline(
    service: Service,
    endpoint: Endpoint[RequestT, ResponseT],
    api_key: str | None,
    payload: Any,
) -> Steps[Result[ResponseT]]:
    """:func:`call`'s steps: 401, 429, 403, 400, then the handler."""
    try:
        principal = service.keys.authenticate(api_key)
        try:
            principal.require_scope(endpoint.scope)
            if endpoint.feature is not None:
                principal.require_feature(endpoint.feature)
            if isinstance(payload, RawBody):
                limit = endpoint.body_limit(service.settings)
                payload = parse_json_body(payload.content, max_bytes=limit)
            elif isinstance(payload, RawQuery):
                payload = parse_query(payload.content)
            request = endpoint.parse(service, principal, payload)
        except (PermissionDeniedError, InvalidRequestError):
            yield from service.admit(principal)  # over the limit, 429 comes first
            raise
        reads = yield from service.admit(principal, endpoint.reads(principal, request))
        return (yield from endpoint.run(service, principal, request, reads))
    except GovcoreError:
        raise
    except Exception as exc:
        _log.exception("internal error answering %s", endpoint.name)
        raise InternalError() from exc
