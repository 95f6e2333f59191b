"""Pydantic models of every request, response and resource of the API (docs/api.md).

Python code uses snake_case attributes; the wire uses camelCase. Request models are strict:
unknown fields are refused, a value of the wrong JSON type is refused rather than coerced
(``"100"`` is not 100) and non-finite numbers are refused (docs/api.md, Strict parsing).
Response models carry exactly the fields the API lists, no more, so
``model_dump(mode="json", by_alias=True)`` is the wire body.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_serializer,
    field_validator,
)
from pydantic.alias_generators import to_camel

from govcore._values import integral
from govcore.policy import Enforcement
from govcore.text_rules import MAX_ID_LENGTH, check_identifier, check_text, encodable

__all__ = [
    "ApplicablePolicy",
    "BindingEvent",
    "ConversationSnapshot",
    "EndUserContext",
    "FinalizeOutputRequest",
    "HistoryEntry",
    "OutputViolation",
    "PostInferenceRequest",
    "PostInferenceResponse",
    "PreInferenceRequest",
    "PreInferenceResponse",
    "StreamCheckRequest",
    "StreamCheckResponse",
    "StreamViolation",
    "ToolCallDecision",
    "ToolCallRequest",
    "Turn",
    "TurnDiff",
    "TurnRequest",
    "TurnResponse",
    "Violation",
]

BindingEventKind = Literal["binding_started", "binding_released"]

MIN_TOKEN_BUDGET = 50
MAX_TOKEN_BUDGET = 4000
DEFAULT_TOKEN_BUDGET = 600
MIN_TTL_SECONDS = 300
MAX_TTL_SECONDS = 604_800


MAX_JSON_DEPTH = 32
"""How deeply free-form JSON (tool arguments, attributes, context) may nest."""
_INT64 = 2**63


def _refuse_non_json(value: Any) -> Any:
    """Refuse in a free-form JSON value what cannot be stored or echoed faithfully.

    NaN and infinities, integers beyond 64 bits, invalid text, nesting deeper than
    ``MAX_JSON_DEPTH``, keys that are not strings, and values JSON has no form for (a tuple,
    bytes, a set, any other object). The message names where: ``items[2].price``.
    """
    problem = _json_problem(value, 0)
    if problem is not None:
        steps, reason = problem
        path = ""
        for step in reversed(steps):
            path = (
                f"{path}[{step}]" if isinstance(step, int) else (f"{path}.{step}" if path else step)
            )
        raise ValueError(reason.format(where=f" at {path}" if path else ""))
    return value


def _json_problem(value: Any, depth: int) -> tuple[list[str | int], str] | None:
    """What is wrong in ``value`` and the path to it, innermost step first; ``None``: nothing.

    Called on every tool call's arguments, so the common cases (ASCII text, small numbers) are
    decided inline and a path is built only for a problem.
    """
    kind = type(value)
    if kind is str:
        return None if value.isascii() or encodable(value) else ([], _BAD_TEXT)
    if kind is float:
        return None if math.isfinite(value) else ([], "non-finite number{where} is not valid JSON")
    if kind is int:
        return None if -_INT64 <= value < _INT64 else ([], _BIG_INT)
    if kind is dict or kind is list or isinstance(value, dict | list):
        if depth >= MAX_JSON_DEPTH:
            return [], f"value{{where}} is nested more than {MAX_JSON_DEPTH} levels deep"
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for step, item in items:
            if not isinstance(step, str) and isinstance(value, dict):
                return [], f"key {step!r}{{where}} is not a string (JSON keys are)"
            if isinstance(step, str) and not (step.isascii() or encodable(step)):
                return [], _BAD_TEXT  # a key: reported at its object's path
            if type(item) is str and item.isascii():
                continue
            problem = _json_problem(item, depth + 1)
            if problem is not None:
                problem[0].append(step)
                return problem
        return None
    if isinstance(value, str):
        return _json_problem(str(value), depth)
    if isinstance(value, float):
        return _json_problem(float(value), depth)
    if isinstance(value, int) and not isinstance(value, bool):
        return _json_problem(int(value), depth)
    if value is None or isinstance(value, bool):
        return None
    # A tuple, bytes, a set or any other object has no JSON form: the dispatcher could never
    # receive it, and checking it as something else would let it through unchecked.
    return (
        [],
        f"value{{where}} is not JSON (a {type(value).__name__}; use a list, an object, text, a number, true, false or null)",
    )


_BAD_TEXT = "text{where} contains an unpaired surrogate (not valid Unicode text)"
_BIG_INT = "integer{where} is out of the 64-bit range"


Text = Annotated[str, AfterValidator(check_text)]
"""Any Unicode text that can be encoded as UTF-8."""

# Length bounds sit on the string before the text check, so a refusal speaks of characters.
NonEmptyText = Annotated[str, Field(min_length=1), AfterValidator(check_text)]
ToolName = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH), AfterValidator(check_text)]


Identifier = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID_LENGTH),
    AfterValidator(check_identifier),
]
"""A caller-chosen identifier (session id, idempotency key): 1 to 256 characters, by the rule
of :func:`check_identifier`."""

JsonObject = Annotated[dict[str, Any], AfterValidator(_refuse_non_json)]
"""A free-form JSON object (tool arguments, attributes, context)."""


class _WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=True,
        serialize_by_alias=True,
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
    )


class _TraceableRequest(_WireModel):
    """A request whose typed-client call may choose its answer's ``traceId`` (the clients'
    ``trace_id=`` keyword). A private attribute, not a field: the wire's shape and the OpenAPI
    document stay the interface's, and no body can set it.

    It is kept in the model's private values (``__pydantic_private__``) without being declared
    as a private attribute: a declared one costs every validation of these requests (a stream
    call, a tool call) about 1.3 µs to set its default, and every read through pydantic's
    ``__getattr__`` about 1.7 µs more (docs/decisions/stream-cost.md). Pydantic compares and
    copies these values as it does declared ones; a request validated from a body has none."""

    @property
    def caller_trace_id(self) -> str | None:
        """The trace id the caller chose, or ``None``: the check makes a new one."""
        private = self.__pydantic_private__
        return None if private is None else private.get(_CALLER_TRACE_ID)

    def with_trace_id(self, trace_id: str) -> Self:
        """A copy answered with ``trace_id`` (already validated as an identifier); the request
        it is made from is left as it was."""
        copy = self.model_copy()
        # A subclass's own private attributes are kept beside it.
        private = dict(copy.__pydantic_private__ or {})
        private[_CALLER_TRACE_ID] = trace_id
        object.__setattr__(copy, "__pydantic_private__", private)
        return copy


_CALLER_TRACE_ID = "_caller_trace_id"


# --- resources ----------------------------------------------------------------------------


class ApplicablePolicy(_WireModel):
    """A policy as the API shows it (docs/api.md, ApplicablePolicy)."""

    id: str
    """the policy's id, unique within the tenant"""
    title: str
    """the policy's title"""
    summary: str
    """the policy's summary"""
    severity: float
    """the policy's severity; an integral one is written as an integer (5), others as a fraction
    (3.5)"""
    enforcement: Enforcement
    """fix, warning or audit"""
    citation_ref: str
    """the label to cite the policy by; also used in the injection block"""
    tags: list[str]
    """the policy's tags; empty when it has none"""

    @field_serializer("severity")
    def _serialize_severity(self, severity: float) -> float | int:
        # Integral severities go out as integers, as policy authors write them.
        return integral(severity)


class BindingEvent(_WireModel):
    """A start or release of a policy's binding in a conversation (docs/api.md, BindingEvent)."""

    turn_index: int
    """the turn at which it happened"""
    policy_id: str
    """the policy whose binding started or was released"""
    event: BindingEventKind
    """binding_started (the policy became applicable) or binding_released (it stopped applying)"""
    ts: str
    """timestamp of that turn (ISO 8601 in UTC, with milliseconds and a Z)"""


class Violation(_WireModel):
    """A violation as tool-call checks report it (docs/api.md, Violation)."""

    policy_id: str
    """the policy whose rule matched"""
    matched_text: str
    """the offending text: the matched part of the output or argument, or for a tool rule the
    offending argument value (a number as its JSON text) or the tool's name when the tool is
    denied"""
    explanation: str
    """why it is a violation: the rule's explanation, or a default one"""
    severity: float
    """the policy's severity"""
    confidence: float
    """the confidence of the rule that matched, 0 to 1 (default 0.9)"""
    enforcement_type: Enforcement
    """the policy's enforcement: fix, warning or audit"""

    @field_serializer("severity")
    def _serialize_severity(self, severity: float) -> float | int:
        return integral(severity)


class OutputViolation(Violation):
    """A violation of a post-inference check: with its replacement text."""

    enforcement_text: str
    """the text that replaces the match in a redaction: the rule's replacement, or else a default
    naming what was removed"""


class StreamViolation(OutputViolation):
    """A violation of a streaming check: with its zero-based offset into ``fullText``."""

    offset: int
    """where the match starts in fullText (in code points, from 0)"""


# --- conversation turn ------------------------------------------------------------------


def _refuse_system_role(value: Any) -> Any:
    if value == "system":
        raise ValueError("role 'system' is not accepted; use user, assistant or tool")
    return value


Role = Annotated[Literal["user", "assistant", "tool"], BeforeValidator(_refuse_system_role)]


class Turn(_WireModel):
    """The turn being recorded."""

    role: Role
    """user, assistant or tool; system is refused"""
    content: Text
    """the text of the turn; at most 256 KiB of UTF-8"""


class HistoryEntry(_WireModel):
    """One earlier turn in ``priorHistory``: ``{role, content}``."""

    role: Role
    """user, assistant or tool; system is refused"""
    content: Text
    """the text of that earlier turn; at most 256 KiB of UTF-8"""


AttributeScalar = str | int | float | bool | None
MAX_ATTRIBUTES = 100
"""How many end-user attributes a request may carry, and how many values one list may hold."""


def _bounded_attributes(value: Any) -> Any:
    """Refuse too many attributes before each one is validated.

    pydantic checks a mapping's length only after validating every entry, and one bad entry
    makes several errors (one per member of the value's union): without this, a body of
    200,000 bad attributes made a million errors.
    """
    if isinstance(value, dict):
        if len(value) > MAX_ATTRIBUTES:
            raise ValueError(
                f"has {len(value)} attributes, more than the limit of {MAX_ATTRIBUTES}"
            )
        for name, item in value.items():
            if isinstance(item, list) and len(item) > MAX_ATTRIBUTES:
                raise ValueError(
                    f"attribute {str(name)[:64]!r} has {len(item)} values, more than the limit "
                    f"of {MAX_ATTRIBUTES}"
                )
    return value


class EndUserContext(_WireModel):
    """Who the end user is: opaque attributes matched against ``appliesWhen``; never stored."""

    attributes: (
        Annotated[
            dict[str, AttributeScalar | list[AttributeScalar]],
            BeforeValidator(_bounded_attributes),
            AfterValidator(_refuse_non_json),
        ]
        | None
    ) = None
    """attribute name to a string, number, boolean or null, or an array of those; matched against
    the policies' appliesWhen conditions; never stored"""


TokenBudget = Annotated[int, Field(ge=MIN_TOKEN_BUDGET, le=MAX_TOKEN_BUDGET)]
TtlSeconds = Annotated[int, Field(ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS)]
AreaIds = Annotated[list[NonEmptyText], Field(max_length=100)]


class TurnRequest(_WireModel):
    """``POST /governance/conversation/turn`` (docs/api.md, Record a turn)."""

    session_id: Identifier
    """the caller's id of the conversation, stable across its turns; 1 to 256 characters, no
    control characters"""
    turn: Turn
    """the turn to record"""
    recent_context: Annotated[list[Text], Field(max_length=50)] | None = None
    """the last few turns before this one, to help retrieval understand a short turn; at most 50
    entries of 256 KiB each; the last 3 are used; never stored"""
    prior_history: Annotated[list[HistoryEntry], Field(max_length=1000)] | None = None
    """earlier turns of a conversation that started elsewhere, used only on the first call of a
    session; each entry counts as an earlier turn; at most 1000 entries; never stored"""
    end_user_context: EndUserContext | None = None
    """who the end user is"""
    policy_area_ids: AreaIds | None = None
    """limit retrieval to the policies of these areas (each a non-empty string, at most 100);
    alwaysOn policies apply whatever it says"""
    token_budget: TokenBudget = DEFAULT_TOKEN_BUDGET
    """the most tokens injectionBlock may take; 50 to 4000"""
    idempotency_key: Identifier | None = None
    """makes a retry safe: a replay within 5 minutes returns the first response; 1 to 256
    characters, no control characters"""
    check_output: bool = False
    """also check turn.content as a model output, as post-inference does; only with turn.role
    assistant"""
    ttl_seconds: TtlSeconds | None = None
    """how long the conversation is kept after this turn; 300 to 604800"""

    @field_validator("check_output")
    @classmethod
    def _check_output_needs_assistant(cls, value: bool, info: ValidationInfo) -> bool:
        # A field validator, not a model one, so the refusal names checkOutput; ``turn`` is
        # declared earlier, so it is in ``info.data`` when it was valid.
        turn = info.data.get("turn")
        if value and turn is not None and turn.role != "assistant":
            raise ValueError("is valid only when turn.role is 'assistant'")
        return value


class ExplainRequest(_WireModel):
    """What :meth:`GovernanceClient.explain_selection` explains: one message, as a turn would
    carry it. Not part of the HTTP interface; field names follow the turn request's."""

    message: Text
    session_id: Identifier | None = None
    recent_context: Annotated[list[Text], Field(max_length=50)] | None = None
    end_user_context: EndUserContext | None = None
    policy_area_ids: AreaIds | None = None


class TurnDiff(_WireModel):
    """What changed at a turn (docs/api.md, Record a turn)."""

    newly_applicable: list[ApplicablePolicy]
    """policies that became applicable at this turn"""
    newly_released: list[ApplicablePolicy]
    """policies that stopped applying at this turn"""
    still_active: list[ApplicablePolicy]
    """policies that applied before and still do"""
    binding_events: list[BindingEvent]
    """one event per start and per release at this turn, starts first"""


class PostInferenceResponse(_WireModel):
    """Verdict on a finished output (docs/api.md, Post-inference); also the finalize response."""

    safe: bool
    """false exactly when a violation has enforcementType fix and confidence of at least 0.7;
    warning and audit violations leave the output safe"""
    risk_score: float
    """the chance that at least one violation is real, 0 to 1, rounded to 4 decimals; 0 without
    violations"""
    violations: list[OutputViolation]
    """with enforcementText, in text order"""
    suggested_redaction: str
    """the checked text with each match replaced by its enforcementText; equal to the text when
    nothing was found"""
    policy_citations: list[str]
    """the ids of the policies with violations, each once, in order of first violation"""
    trace_id: str
    """identifies the check in the decision log: the request's traceId when it gives one, else a
    new id of 32 hexadecimal digits"""


class TurnResponse(_WireModel):
    """Response of the turn endpoint (docs/api.md, Record a turn)."""

    session_id: str
    """as sent"""
    turn_index: int
    """the number of this turn: 1 for the first turn of a conversation; entries of priorHistory
    count as earlier turns"""
    diff: TurnDiff
    """what changed at this turn"""
    active_policies: list[ApplicablePolicy]
    """every policy that applies after this turn (newlyApplicable and stillActive)"""
    injection_block: str
    """text for the model's prompt naming each applicable policy with its citationRef; "" when
    nothing applies"""
    token_estimate: int
    """estimated tokens of injectionBlock; never more than tokenBudget; 0 for an empty block"""
    post_inference_check: PostInferenceResponse | None
    """the check of turn.content when checkOutput is true, else null"""
    trace_id: str | None
    """with checkOutput, the check's traceId; otherwise a new id"""


class ConversationSnapshot(_WireModel):
    """``GET /governance/conversation/{sessionId}`` (docs/api.md, Read a conversation)."""

    session_id: str
    """the conversation's session id"""
    turn_count: int
    """the number of the last recorded turn (equal to its turnIndex)"""
    active_policies: list[ApplicablePolicy]
    """the policies that apply after the last turn"""
    injection_block: str
    """the block of the last turn"""
    binding_log: list[BindingEvent]
    """the conversation's binding events, oldest first; the latest ``binding_log_limit`` (500 by
    default) are kept"""
    updated_at: str
    """timestamp of the last recorded turn"""


# --- legacy pre-inference ---------------------------------------------------------------


RecentMessage = Text | HistoryEntry


class PreInferenceRequest(_WireModel):
    """``POST /governance/pre-inference`` (docs/api.md, Pre-inference).

    ``recentMessages`` items are strings or ``{role, content}`` objects; both are accepted
    (see docs/decisions/pre-inference.md).
    """

    session_id: Identifier
    """1 to 256 characters, no control characters; echoed, not stored"""
    prompt: Text
    """the prompt about to be sent to the model; at most 256 KiB"""
    recent_messages: Annotated[list[RecentMessage], Field(max_length=50)] | None = None
    """earlier messages, each a string or a {role, content} object; at most 50, each at most 256
    KiB"""
    context: JsonObject | None = None
    """free-form JSON; accepted and not used for selection"""
    end_user_context: EndUserContext | None = None
    """who the end user is, as for a turn"""
    policy_area_ids: AreaIds | None = None
    """limit retrieval to the policies of these areas, as for a turn"""
    token_budget: TokenBudget = DEFAULT_TOKEN_BUDGET
    """the most tokens injectionBlock may take; 50 to 4000"""
    is_update: bool = False
    """true asks for a fresh answer rather than a cached one"""


class PreInferenceResponse(_WireModel):
    """Response of the legacy pre-inference call (docs/api.md, Pre-inference)."""

    session_id: str
    """as sent"""
    cache_hit: bool
    """true when the answer came from the cache: the same request from the same tenant in the
    last 5 minutes"""
    applicable_policies: list[ApplicablePolicy]
    """most severe first, then most relevant"""
    injection_block: str
    """text for the model's prompt, as for a turn"""
    rationale_required: bool
    """the calling key's rationale_required setting: whether the caller must give a rationale
    before going ahead"""
    token_estimate: int
    """estimated tokens of injectionBlock, as for a turn"""
    trace_id: str | None
    """a new id (a cached answer keeps its own)"""


# --- checks -----------------------------------------------------------------------------


class ToolCallRequest(_TraceableRequest):
    """``POST /governance/check-tool-call`` (docs/api.md, Check a tool call)."""

    session_id: Identifier
    """the conversation the call belongs to; 1 to 256 characters, no control characters; an
    unknown session is not an error"""
    tool_name: ToolName
    """the tool's name; 1 to 256 characters"""
    arguments: JsonObject
    """the proposed arguments, any JSON object (nested at most 32 levels deep, integers within 64
    bits)"""
    intent: Literal["proposed"] = "proposed"
    """the only value accepted is proposed"""


class ToolCallDecision(_WireModel):
    """Response of the tool-call gate (docs/api.md, Check a tool call)."""

    allow: bool
    """false exactly when a violation has enforcementType fix and confidence of at least 0.7; any
    violations are listed either way"""
    risk_score: float
    """the chance that at least one violation is real, 0 to 1, rounded to 4 decimals; 0 without
    violations"""
    violations: list[Violation]
    """without enforcementText and offset"""
    suggested_arguments: dict[str, Any] | None
    """a copy of arguments with every value that can be fixed replaced; null when nothing could
    be fixed"""
    trace_id: str | None
    """a new id"""


class PostInferenceRequest(_WireModel):
    """``POST /governance/post-inference`` (docs/api.md, Post-inference)."""

    output: Text
    """the model output to check; at most 1 MiB of UTF-8"""
    session_id: Identifier
    """1 to 256 characters, no control characters; recorded in the decision log, no conversation
    state is read"""
    prompt: Text | None = None
    """the prompt that produced the output; at most 256 KiB; not used by detection"""
    surface: Text | None = None
    """where the output is shown (chat, email, ...); not used by detection"""
    policy_area_ids: AreaIds | None = None
    """check only the rules of policies in these areas"""
    trace_id: Identifier | None = None
    """an id from an earlier call to join this check to; 1 to 256 characters, no control
    characters; answered back as the check's traceId"""


class StreamCheckRequest(_TraceableRequest):
    """``POST /governance/check-output/stream`` (docs/api.md, Streaming check)."""

    session_id: Identifier
    """1 to 256 characters, no control characters"""
    full_text: Text
    """the whole output so far, not only the new part; at most 1 MiB"""
    last_checked_offset: Annotated[int, Field(ge=0)] = 0
    """the watermark of the previous answer; 0 on the first call; from 0 to the length of
    fullText"""
    is_final: bool = False
    """true on the call with the complete output"""


class FinalizeOutputRequest(StreamCheckRequest):
    """``POST /governance/check-output/finalize`` (docs/api.md, Finalize a streamed output): the stream shape."""


class StreamCheckResponse(_WireModel):
    """Response of one streaming check (docs/api.md, Streaming check)."""

    session_id: str
    """as sent"""
    new_violations: list[StreamViolation]
    """with enforcementText and offset; each violation of a stream is reported by exactly one
    call"""
    watermark: int
    """send it back as lastCheckedOffset on the next call"""
    is_complete: bool
    """true exactly when isFinal was true"""
    risk_score: float
    """of the violations in this answer only"""
    trace_id: str
    """a new id"""
