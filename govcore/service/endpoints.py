"""The endpoint table, and :func:`call`: the one pipeline both the typed client and the
dispatcher run.

Each :class:`Endpoint` declares its route, the scope and feature setting it needs, how its
request is parsed, which stored keys it reads and which handler answers it. :func:`call` runs
every request the same way, refusing in this order: authenticate (401), rate limit (429), scope
and feature setting (403), parse and validate (400); then the handler, whose own outcomes
follow. Anything unexpected on the way is a bug and becomes
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
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from govcore.config import GovernanceSettings
from govcore.core.selection import SelectionExplanation
from govcore.errors import (
    GovcoreError,
    InternalError,
    InvalidRequestError,
    PermissionDeniedError,
)
from govcore.models import (
    ConversationSnapshot,
    ExplainRequest,
    FinalizeOutputRequest,
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
from govcore.service.requests import parse_json_body, validate_request
from govcore.service.runtime import Result, Service
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
    "RECORD_TURN",
    "Endpoint",
    "RawBody",
    "body_limit",
    "call",
]

RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")
M = TypeVar("M", bound=BaseModel)

_log = logging.getLogger("govcore")


@dataclass(frozen=True, slots=True)
class RawBody:
    """A request body exactly as a transport received it (the dispatcher's payload)."""

    content: bytes | str | None


@dataclass(frozen=True, slots=True)
class Endpoint(Generic[RequestT, ResponseT]):
    """One route of the interface.

    Attributes:
        name: the typed client's method.
        method: the HTTP method.
        path: the route under the mount prefix; ``{sessionId}`` marks the path parameter.
        scope: the scope the key needs (403 without it).
        feature: the per-key feature setting that must be ``allowed``, if any (403).
        parse: turns the payload (a model, a mapping of wire fields, a :class:`RawBody`, or
            the path parameter) into the handler's request (400 when it is not one).
        run: answers the request (a generator of store effects, given the keys it read).
        reads: the stored keys the handler needs, read with the request's admission.
    """

    name: str
    method: str
    path: str
    scope: str
    feature: str | None
    parse: Callable[[Service, Principal, Any], RequestT]
    run: Callable[[Service, Principal, RequestT, StoreReads], Steps[Result[ResponseT]]]
    reads: Callable[[Principal, RequestT], tuple[str, ...]] = lambda _principal, _request: ()


def _body(
    model: type[M],
    gate: Callable[[Principal, Any], None] | None = None,
    max_bytes: Callable[[GovernanceSettings], int] | None = None,
) -> Callable[[Service, Principal, Any], M]:
    """A parser of a JSON body as ``model``; ``gate`` may refuse (403) before validation, and
    ``max_bytes`` may bound the body more tightly than ``max_body_bytes``."""

    def parse(service: Service, principal: Principal, payload: Any) -> M:
        settings = service.settings
        limit = settings.max_body_bytes if max_bytes is None else max_bytes(settings)
        document: M | Mapping[str, Any] = (
            parse_json_body(payload.content, max_bytes=limit)
            if isinstance(payload, RawBody)
            else payload
        )
        if gate is not None:
            gate(principal, document)
        return validate_request(model, document)

    return parse


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
    return conversations.check_session_id(payload)


RECORD_TURN: Endpoint[TurnRequest, TurnResponse] = Endpoint(
    "record_turn", "POST", "/governance/conversation/turn", "governance:read", None,
    _body(TurnRequest, _output_check_gate), conversations.record_turn, conversations.turn_reads,
)  # fmt: skip
GET_CONVERSATION: Endpoint[str, ConversationSnapshot] = Endpoint(
    "get_conversation", "GET", "/governance/conversation/{sessionId}", "governance:read", None,
    _session_id, conversations.get_conversation, conversations.session_reads,
)  # fmt: skip
DELETE_CONVERSATION: Endpoint[str, Any] = Endpoint(
    "delete_conversation", "DELETE", "/governance/conversation/{sessionId}", "governance:read",
    None, _session_id, conversations.delete_conversation,
)  # fmt: skip
PRE_INFERENCE: Endpoint[PreInferenceRequest, PreInferenceResponse] = Endpoint(
    "pre_inference", "POST", "/governance/pre-inference", "governance:read", None,
    _body(PreInferenceRequest), conversations.pre_inference, conversations.pre_inference_reads,
)  # fmt: skip
CHECK_TOOL_CALL: Endpoint[ToolCallRequest, ToolCallDecision] = Endpoint(
    "check_tool_call", "POST", "/governance/check-tool-call", "governance:check",
    "tool_call_governance", _body(ToolCallRequest, max_bytes=_tool_call_body_limit),
    checks.check_tool_call, checks.tool_call_reads,
)  # fmt: skip
POST_INFERENCE: Endpoint[PostInferenceRequest, PostInferenceResponse] = Endpoint(
    "post_inference", "POST", "/governance/post-inference", "governance:check",
    "post_inference_checking", _body(PostInferenceRequest), checks.post_inference,
)  # fmt: skip
CHECK_OUTPUT_STREAM: Endpoint[StreamCheckRequest, StreamCheckResponse] = Endpoint(
    "check_output_stream", "POST", "/governance/check-output/stream", "governance:check",
    "post_inference_checking", _body(StreamCheckRequest), checks.check_output_stream,
    checks.stream_reads,
)  # fmt: skip
FINALIZE_OUTPUT: Endpoint[FinalizeOutputRequest, PostInferenceResponse] = Endpoint(
    "finalize_output", "POST", "/governance/check-output/finalize", "governance:check",
    "post_inference_checking", _body(FinalizeOutputRequest), checks.finalize_output,
)  # fmt: skip

# In-process only (the typed client and ``govcore explain``): not routed by ``handle``, so the
# wire interface stays exactly the specification's.
EXPLAIN_SELECTION: Endpoint[ExplainRequest, SelectionExplanation] = Endpoint(
    "explain_selection", "POST", "(in-process)", "governance:read", None,
    _body(ExplainRequest), conversations.explain_selection, conversations.explain_reads,
)  # fmt: skip

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


def body_limit(endpoint: Endpoint[Any, Any], settings: GovernanceSettings) -> int:
    """The most bytes a request body of ``endpoint`` may have: ``max_body_bytes``, or the tool
    call's tighter bound (a transport can refuse a longer body before reading all of it)."""
    if endpoint is CHECK_TOOL_CALL:
        return _tool_call_body_limit(settings)
    return settings.max_body_bytes


def call(
    service: Service,
    endpoint: Endpoint[RequestT, ResponseT],
    api_key: str | None,
    payload: Any,
) -> Steps[Result[ResponseT]]:
    """Run one request through the pipeline (a generator of store effects).

    Raises:
        GovcoreError: a refusal (401, 429, 403, 400), the endpoint's own outcome (404), a
            :class:`~govcore.errors.BackendError` (503) or, for a bug,
            :class:`~govcore.errors.InternalError` from the original exception.
    """
    try:
        principal = service.keys.authenticate(api_key)
        try:
            principal.require_scope(endpoint.scope)
            if endpoint.feature is not None:
                principal.require_feature(endpoint.feature)
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
