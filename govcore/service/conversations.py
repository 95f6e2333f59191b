"""The conversation endpoints: record a turn, read and delete a conversation, pre-inference;
and explanations of policy selection (in-process only)."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any

from pydantic import TypeAdapter, ValidationError

from govcore.config import GovernanceSettings
from govcore.core.conversation import (
    ConversationState,
    TurnOutcome,
    advance_conversation,
    iso_timestamp,
    message_digest,
    prioritise,
    replayed_outcome,
    verdicts_after,
)
from govcore.core.selection import SelectionExplanation, retrieval_depth, select_policies
from govcore.core.selection import explain_selection as explain_candidates
from govcore.errors import InvalidRequestError, NotFoundError
from govcore.models import (
    ConversationSnapshot,
    ExplainRequest,
    HistoryEntry,
    Identifier,
    PostInferenceResponse,
    PreInferenceRequest,
    PreInferenceResponse,
    ToolName,
    TurnRequest,
    TurnResponse,
)
from govcore.policy import canonical_json
from govcore.retrieval.analysis import bounded_window
from govcore.service.access import Principal
from govcore.service.checks import check_output
from govcore.service.effects import Delete, Put, Steps, UpdateMany, perform, read
from govcore.service.requests import check_size
from govcore.service.shadow import SELECTION, Judgement, decide_in_shadow
from govcore.service.shared import Result, Service
from govcore.service.store_keys import (
    conversation_key,
    idempotency_key,
    pre_inference_key,
    stream_key,
)
from govcore.service.tenants import CompiledTenant
from govcore.service.wire import (
    PolicyViews,
    conversation_snapshot,
    pre_inference_response,
    turn_response,
)
from govcore.types import (
    ExplainableIndex,
    IndexExplanation,
    PolicyScore,
    RetrievalHit,
    StoreCommit,
    StoreReads,
)

__all__ = [
    "IDEMPOTENCY_WINDOW_SECONDS",
    "IdentifiedTurn",
    "check_session_id",
    "delete_conversation",
    "explain_reads",
    "explain_selection",
    "get_conversation",
    "identified_turn_reads",
    "parse_identified_turn",
    "pre_inference",
    "pre_inference_reads",
    "record_identified_turn",
    "record_turn",
    "session_reads",
    "turn_reads",
]

IDEMPOTENCY_WINDOW_SECONDS = 300
"""A replay of an ``idempotencyKey`` within this window returns the first response."""


# --- selection -------------------------------------------------------------------------------


_NOTHING_RETIRED: PolicyViews = MappingProxyType({})


def _retrieve(
    service: Service,
    tenant: CompiledTenant,
    text: str,
    context: Sequence[str],
    areas: frozenset[str] | None,
) -> list[RetrievalHit]:
    """Retrieval for one turn, bounded in length: the hits the core's selection rules read."""
    settings = service.settings
    query, bounded_context = _retrieval_input(settings, text, context)
    return service.retrieval(
        lambda: tenant.index.search(
            query,
            top_k=retrieval_depth(settings.retrieval_top_k),
            areas=areas,
            context=bounded_context,
        )
    )


def _retrieval_input(
    settings: GovernanceSettings, text: str, context: Sequence[str]
) -> tuple[str, list[str]]:
    """What retrieval reads of a turn: its bounded window, and the end of each of the latest
    context entries."""
    window = settings.retrieval_window_chars
    recent = context[-settings.recent_context_turns :] if settings.recent_context_turns else []
    return bounded_window(text, window), [entry[-window:] for entry in recent]


def explain_reads(principal: Principal, request: ExplainRequest) -> tuple[str, ...]:
    """An explanation with a ``sessionId`` reads the conversation's state."""
    if request.session_id is None:
        return ()
    return (conversation_key(principal.tenant, request.session_id),)


def explain_selection(
    service: Service, principal: Principal, request: ExplainRequest, reads: StoreReads
) -> Steps[Result[SelectionExplanation]]:
    """Why each policy of the tenant would or would not apply to a message (read-only).

    Scores the message exactly as a turn would (same window, same recent context), and with a
    ``sessionId`` names the policies the conversation holds from earlier turns. Records nothing
    and renews nothing.
    """
    limit = service.settings.max_content_bytes
    check_size("message", request.message, limit)
    for i, text in enumerate(request.recent_context or ()):
        check_size(f"recentContext[{i}]", text, limit)
    tenant = service.tenant(principal)
    settings = service.settings
    areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
    attributes = request.end_user_context.attributes if request.end_user_context else None
    query, bounded_context = _retrieval_input(
        settings, request.message, request.recent_context or ()
    )
    index = tenant.index
    if isinstance(index, ExplainableIndex):
        explained = service.retrieval(
            lambda: index.explain(query, areas=areas, context=bounded_context)
        )
    else:
        # An index that cannot explain still says what it found: its hits, at their scores.
        hits = service.retrieval(
            lambda: index.search(
                query, top_k=len(tenant.policy_set.policies), areas=areas, context=bounded_context
            )
        )
        explained = IndexExplanation(
            scores=tuple(PolicyScore(h.position, h.score) for h in hits), thresholds={}, floor=0.0
        )
    held: list[str] = []
    state = None
    if request.session_id is not None:
        key = conversation_key(principal.tenant, request.session_id)
        raw = yield from read(reads, key)
        if raw is not None:
            state = service.decode_state(raw, key)
            next_turn = state.turn_count + 1
            rules = service.conversation_rules
            held = [b.policy_id for b in state.bindings if b.held_at(next_turn, rules)]
    # appliesWhen as the conversation's next turn would judge it: the stored verdicts decide
    # what these attributes leave open (none without a session: the attributes alone).
    verdicts = verdicts_after(state, tenant.policy_set, attributes)
    return Result(
        explain_candidates(
            explained,
            tenant.policy_set,
            attributes,
            settings.retrieval_top_k,
            held=held,
            applies=partial(verdicts.applies, tenant.policy_set),
        )
    )


# --- POST conversation/turn ------------------------------------------------------------------


def check_turn_sizes(service: Service, request: TurnRequest) -> None:
    """Refuse content beyond the configured limits (400 naming the field)."""
    limit = service.settings.max_content_bytes
    check_size("turn.content", request.turn.content, limit)
    for i, text in enumerate(request.recent_context or ()):
        check_size(f"recentContext[{i}]", text, limit)
    for i, entry in enumerate(request.prior_history or ()):
        check_size(f"priorHistory[{i}].content", entry.content, limit)


@dataclass(frozen=True, slots=True)
class _Recorded:
    """What the turn's atomic update hands back: a fresh response or a replay's bytes."""

    response: TurnResponse | None
    body: bytes
    outcome: TurnOutcome | None = None  # a new turn's (for shadow mode)


def turn_reads(principal: Principal, request: TurnRequest) -> tuple[str, ...]:
    """A turn reads its conversation and, with an ``idempotencyKey``, its record."""
    conv_key = conversation_key(principal.tenant, request.session_id)
    if request.idempotency_key is None:
        return (conv_key,)
    return conv_key, _turn_record_key(principal, request.idempotency_key)


def _turn_record_key(principal: Principal, key: str) -> str:
    return idempotency_key(principal.tenant, "conversation/turn", key)


@dataclass(frozen=True, slots=True)
class IdentifiedTurn:
    """A turn with the identifiers a framework gives it, which travel as keywords of the typed
    client and never in the wire body (docs/decisions/integration-identifiers.md).

    Attributes:
        request: the turn request (a model, or a mapping of wire fields before parsing).
        message_id: the framework's own id of the message: a conversation records it once.
        tool_name: a tool turn's tool; retrieval reads it with the turn's content.
        tool_call_id: a tool turn's call id; without ``message_id``, the turn is recorded once
            per call id.
        check_result: a tool turn's content is also checked as the tool's result, as
            ``post-inference`` checks it (every detect rule of the tenant), and the verdict
            answered in ``postInferenceCheck``: the check and the turn in one request.
    """

    request: Any
    message_id: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    check_result: bool = False

    def digest(self) -> str | None:
        """What the conversation keeps of the turn's identity, if it has one."""
        if self.message_id is not None:
            return message_digest("message", self.message_id)
        if self.tool_call_id is not None:
            return message_digest("tool_call", self.tool_call_id)
        return None


_IDENTIFIER: TypeAdapter[str] = TypeAdapter(Identifier)
_TOOL_NAME: TypeAdapter[str] = TypeAdapter(ToolName)


def _checked_keyword(adapter: TypeAdapter[str], name: str, value: Any) -> str:
    """A keyword argument validated by the rule of its wire counterpart; 400 naming it."""
    try:
        return adapter.validate_python(value, strict=True)
    except ValidationError as exc:
        reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise InvalidRequestError.for_field(name, reason) from None


def parse_identified_turn(turn: IdentifiedTurn, request: TurnRequest) -> IdentifiedTurn:
    """The identifiers of ``turn`` checked against the parsed ``request`` (400 naming the
    keyword): ids by the rule of a session id, a tool name by the rule of a tool call's
    ``toolName``, and the tool's name and call id only on a turn of role ``tool``."""
    message_id = tool_name = tool_call_id = None
    if turn.message_id is not None:
        message_id = _checked_keyword(_IDENTIFIER, "message_id", turn.message_id)
    for keyword, value in (("tool_name", turn.tool_name), ("tool_call_id", turn.tool_call_id)):
        if value is not None and request.turn.role != "tool":
            raise InvalidRequestError.for_field(
                keyword, f"is valid only when turn.role is 'tool', not {request.turn.role!r}"
            )
    if turn.tool_name is not None:
        tool_name = _checked_keyword(_TOOL_NAME, "tool_name", turn.tool_name)
    if turn.tool_call_id is not None:
        tool_call_id = _checked_keyword(_IDENTIFIER, "tool_call_id", turn.tool_call_id)
    if turn.check_result is not False:
        if turn.check_result is not True:
            raise InvalidRequestError.for_field("check_result", "must be a boolean")
        if request.turn.role != "tool":
            raise InvalidRequestError.for_field(
                "check_result", f"is valid only when turn.role is 'tool', not {request.turn.role!r}"
            )
    return IdentifiedTurn(request, message_id, tool_name, tool_call_id, turn.check_result)


def identified_turn_reads(principal: Principal, turn: IdentifiedTurn) -> tuple[str, ...]:
    """As :func:`turn_reads`: the conversation, where the kept message ids are too."""
    request: TurnRequest = turn.request
    return turn_reads(principal, request)


_WORD_BREAK = re.compile(r"[\W_]+|(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=1024)  # an agent has a few tools, named at every tool turn
def _tool_words(tool_name: str) -> str:
    """A tool's name as words for retrieval: ``transfer_funds`` and ``transferFunds`` read
    as ``transfer funds``, the words a policy about transfers is written in."""
    return _WORD_BREAK.sub(" ", tool_name).strip()


def record_turn(
    service: Service, principal: Principal, request: TurnRequest, reads: StoreReads
) -> Steps[Result[TurnResponse]]:
    """``POST /governance/conversation/turn``: :func:`record_identified_turn` of a turn the
    caller gives no identifiers."""
    return (yield from record_identified_turn(service, principal, IdentifiedTurn(request), reads))


def record_identified_turn(
    service: Service, principal: Principal, turn: IdentifiedTurn, reads: StoreReads
) -> Steps[Result[TurnResponse]]:
    """Record a turn (the typed clients' ``record_turn`` with its keywords).

    The conversation's state and, with an ``idempotencyKey``, the idempotency record are read
    and written in one atomic store update, so a request is recorded exactly once however often
    it is retried and whichever process retries it, and never half-written. The digest of the
    turn's message id (or tool call id) is kept in that state, in the same update: a turn whose
    id the conversation has recorded already is a replay, which records nothing, writes
    nothing (the TTL is not renewed) and answers the conversation as it stands
    (:func:`govcore.core.conversation.replayed_outcome`).
    """
    request: TurnRequest = turn.request
    check_turn_sizes(service, request)
    tenant = service.tenant(principal)
    idem_key = None
    fingerprint = b""
    if request.idempotency_key is not None:
        idem_key = _turn_record_key(principal, request.idempotency_key)
        document: Any = request.model_dump(mode="json")
        if turn.check_result:
            # The answer carries the check's verdict: a retry that asks otherwise is another
            # request (400), not a replay of an answer without it (or with one not asked for).
            # Plain turns keep their fingerprints, so stored records stay valid.
            document = {"request": document, "checkResult": True}
        fingerprint = _fingerprint(document)
        # A committed record never changes until it expires: replay it without any work.
        stored = yield from read(reads, idem_key)
        if stored is not None:
            return _replay(service, idem_key, stored, fingerprint)

    attributes = request.end_user_context.attributes if request.end_user_context else None
    areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
    context = list(request.recent_context or ())
    history = [entry.content for entry in request.prior_history or ()]
    conv_key = conversation_key(principal.tenant, request.session_id)
    digest = turn.digest()
    policy_set = tenant.policy_set

    # The output check depends on the content alone, so it runs outside the atomic section
    # (and on a replay too: the caller asked for the verdict of this content).
    post_check: PostInferenceResponse | None = None
    if request.check_output or turn.check_result:
        # A tool's result is checked against every rule, as post-inference checks it; an
        # answer's checkOutput against the request's policy areas.
        post_check = check_output(
            service, principal, "conversation/turn", request.session_id,
            request.turn.content, None if turn.check_result else areas, None,
        )  # fmt: skip
    trace_id = post_check.trace_id if post_check is not None else service.new_trace_id()

    def respond(outcome: TurnOutcome) -> TurnResponse:
        return turn_response(
            outcome,
            tenant.views,
            session_id=request.session_id,
            post_check=post_check,
            trace_id=trace_id,
            retired=service.retired_views.get(principal.tenant, _NOTHING_RETIRED),
        )

    def replay_of(state: ConversationState | None) -> TurnOutcome | None:
        return replayed_outcome(
            state,
            digest,
            policy_set=policy_set,
            token_budget=request.token_budget,
            count_tokens=service.count_tokens,
            render=service.blocks.render,
        )

    looked: bytes | None = None
    looked_state: ConversationState | None = None
    if digest is not None or history:
        looked = yield from read(reads, conv_key)
    if idem_key is None and digest is not None and looked is not None:
        # A replay seen in the state read with the admission costs no retrieval and no write;
        # the atomic update below looks again, for a replay that raced this request.
        looked_state = service.decode_state(looked, conv_key)
        early = replay_of(looked_state)
        if early is not None:
            return Result(respond(early))

    # Retrieval runs before the store's atomic section. Only a first call reads priorHistory,
    # so with history we look first, and retrieve again in the (rare) race where the session
    # appeared or vanished between the look and the update. Selection from the hits runs in
    # the atomic section: appliesWhen depends on the verdicts the stored state holds.
    retrievals: dict[bool, list[RetrievalHit]] = {}
    content = request.turn.content
    if turn.tool_name is not None:
        content = f"{_tool_words(turn.tool_name)}\n{content}"

    def retrieve(first_call: bool) -> list[RetrievalHit]:
        if first_call not in retrievals:
            extra = history if first_call else []
            retrievals[first_call] = _retrieve(service, tenant, content, [*extra, *context], areas)
        return retrievals[first_call]

    if history:
        retrieve(looked is None)
    else:
        retrievals[True] = retrievals[False] = retrieve(False)

    ttl = (
        request.ttl_seconds
        or principal.settings.conversation_ttl_seconds
        or service.settings.conversation_ttl_seconds
    )

    prior: list[ConversationState | None] = []  # the state a new turn advanced (for shadow)

    def judge_in_shadow(outcome: TurnOutcome, now: float) -> None:
        """The candidate policy set's selection at this turn, from the state before it."""
        if not prior or not service.shadows:
            return  # a replay records no turn: nothing to compare
        before = prior[0]

        def candidate_selection(candidate: CompiledTenant) -> Judgement:
            extra = history if before is None else []
            hits = _retrieve(service, candidate, content, [*extra, *context], areas)
            candidate_set = candidate.policy_set
            verdicts = verdicts_after(before, candidate_set, attributes)
            selected = select_policies(
                hits, candidate_set, attributes, service.settings.retrieval_top_k,
                applies=partial(verdicts.applies, candidate_set),
            )  # fmt: skip
            would_be = advance_conversation(
                before, policy_set=candidate_set, selected=selected, attributes=attributes,
                prior_turns=len(history), now=now, token_budget=request.token_budget,
                count_tokens=service.count_tokens, rules=service.conversation_rules,
                message_id=digest, render=service.blocks.render,
            )  # fmt: skip
            return Judgement(SELECTION, tuple(p.id for p in would_be.active))

        decide_in_shadow(
            service, principal, "conversation/turn", request.session_id, trace_id,
            Judgement(SELECTION, tuple(p.id for p in outcome.active)),
            candidate_selection,
        )  # fmt: skip

    def advance(raw_state: bytes | None, now: float) -> tuple[TurnOutcome, bool]:
        """The turn's outcome, and whether it is new (else a replay, which writes nothing)."""
        prior.clear()  # a store that retries its update runs this again
        if raw_state is None:
            state = None
        elif looked_state is not None and raw_state == looked:
            state = looked_state  # unchanged since the look: decoded once (states are immutable)
        else:
            state = service.decode_state(raw_state, conv_key)
        replay = replay_of(state)
        if replay is not None:
            return replay, False
        prior[:] = [state]
        verdicts = verdicts_after(state, policy_set, attributes)
        selected = select_policies(
            retrieve(state is None),
            policy_set,
            attributes,
            service.settings.retrieval_top_k,
            applies=partial(verdicts.applies, policy_set),
        )
        outcome = advance_conversation(
            state,
            policy_set=policy_set,
            selected=selected,
            attributes=attributes,
            prior_turns=len(history),
            now=now,
            token_budget=request.token_budget,
            count_tokens=service.count_tokens,
            rules=service.conversation_rules,
            message_id=digest,
            render=service.blocks.render,
        )
        return outcome, True

    if idem_key is None:

        def turn_only(values: Sequence[bytes | None], now: float) -> StoreCommit[TurnOutcome]:
            outcome, fresh = advance(values[0], now)
            if not fresh:
                return StoreCommit(outcome)
            return StoreCommit(
                outcome, {conv_key: (service.encode_state(outcome.state, conv_key), now + ttl)}
            )

        outcome = yield from perform(UpdateMany((conv_key,), Service.mutation(turn_only), reads))
        judge_in_shadow(outcome, outcome.state.updated_at)
        return Result(respond(outcome))

    def turn_and_record(values: Sequence[bytes | None], now: float) -> StoreCommit[_Recorded]:
        raw_state, record = values
        if record is not None:  # another request with this key committed first
            return StoreCommit(_Recorded(None, record))
        outcome, fresh = advance(raw_state, now)
        response = respond(outcome)
        body = response.model_dump_json().encode()
        # A replayed message writes no state, but its idempotency record all the same: a retry
        # of this request gets this very answer.
        writes = {idem_key: (fingerprint + b"\n" + body, now + IDEMPOTENCY_WINDOW_SECONDS)}
        if fresh:
            writes[conv_key] = (service.encode_state(outcome.state, conv_key), now + ttl)
        return StoreCommit(_Recorded(response, body, outcome if fresh else None), writes)

    recorded = yield from perform(
        UpdateMany((conv_key, idem_key), Service.mutation(turn_and_record), reads)
    )
    if recorded.response is None:
        return _replay(service, idem_key, recorded.body, fingerprint)
    if recorded.outcome is not None:
        judge_in_shadow(recorded.outcome, recorded.outcome.state.updated_at)
    return Result(recorded.response, recorded.body)


_FINGERPRINT = re.compile(rb"[0-9a-f]{64}")  # what _fingerprint makes: SHA-256 as lowercase hex


def _fingerprint(document: Any) -> bytes:
    return hashlib.sha256(canonical_json(document).encode()).hexdigest().encode()


def _replay(service: Service, key: str, record: bytes, fingerprint: bytes) -> Result[TurnResponse]:
    stored_fingerprint, newline, body = record.partition(b"\n")
    if not newline or not _FINGERPRINT.fullmatch(stored_fingerprint):
        raise service.corrupt(key, "idempotency record", ValueError("no fingerprint line"))
    if stored_fingerprint != fingerprint:
        raise InvalidRequestError.for_field(
            "idempotencyKey",
            "was already used with a different request body in the last "
            f"{IDEMPOTENCY_WINDOW_SECONDS // 60} minutes",
        )
    try:
        response = TurnResponse.model_validate_json(body)
    except ValidationError as exc:
        raise service.corrupt(key, "idempotency record", exc) from exc
    return Result(response, body)


# --- GET and DELETE conversation/{sessionId} -------------------------------------------------

_SESSION_ID: TypeAdapter[str] = TypeAdapter(Identifier)


def check_session_id(session_id: Any) -> str:
    """The same rule as a body's sessionId, for ids that arrive in a path."""
    try:
        return _SESSION_ID.validate_python(session_id, strict=True)
    except ValidationError as exc:
        reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise InvalidRequestError.for_field("sessionId", reason) from None


def session_reads(principal: Principal, session_id: str) -> tuple[str, ...]:
    """Reading a conversation reads its state."""
    return (conversation_key(principal.tenant, session_id),)


def get_conversation(
    service: Service, principal: Principal, session_id: str, reads: StoreReads
) -> Steps[Result[ConversationSnapshot]]:
    """``GET /governance/conversation/{sessionId}``: read-only, no TTL renewal."""
    key = conversation_key(principal.tenant, session_id)
    raw = yield from read(reads, key)
    if raw is None:
        raise NotFoundError(f"no conversation {session_id!r} (never created, deleted or expired)")
    state = service.decode_state(raw, key)
    tenant = service.tenant(principal)
    by_id = tenant.policy_set.by_id
    return Result(
        conversation_snapshot(
            session_id=session_id,
            turn_count=state.turn_count,
            active=[by_id[b.policy_id] for b in state.bindings if b.policy_id in by_id],
            views=tenant.views,
            injection_block=state.injection_block,
            binding_log=service.decode_binding_log(state, key),
            updated_at=iso_timestamp(state.updated_at),
        )
    )


def delete_conversation(
    service: Service, principal: Principal, session_id: str, reads: StoreReads
) -> Steps[Result[Any]]:
    """``DELETE /governance/conversation/{sessionId}``: idempotent purge of everything kept for
    the session (its state and the record of its streaming check)."""
    conv_key = conversation_key(principal.tenant, session_id)
    yield from perform(Delete((conv_key, stream_key(principal.tenant, session_id))))
    service.states.discard(conv_key)
    return Result(None)


# --- POST pre-inference ----------------------------------------------------------------------


def _pre_inference_cache_key(principal: Principal, request: PreInferenceRequest) -> str:
    fingerprint = _fingerprint(request.model_dump(mode="json", exclude={"is_update"})).decode()
    return pre_inference_key(principal.tenant, fingerprint)


_VERSION_LINE = re.compile(rb"[0-9a-f]{16}")  # a policy set's version, as a cache entry starts


def _cached_answer(
    service: Service, key: str, cached: bytes | None, version: bytes
) -> PreInferenceResponse | None:
    """The cached pre-inference answer of policy-set ``version``, or ``None`` (a miss).

    An entry is the version of the policy set that answered, a line break and the answer. One
    of another version (a reload, a worker serving another version) is a miss, and so is an
    answer an earlier release cached without a version; anything else unreadable is a 503.
    """
    if cached is None:
        return None
    head, newline, body = cached.partition(b"\n")
    if not (newline and _VERSION_LINE.fullmatch(head)):
        head, body = b"", cached  # an earlier release's entry, or not ours at all
    elif head != version:
        return None
    try:
        answer = PreInferenceResponse.model_validate_json(body)
    except ValidationError as exc:
        raise service.corrupt(key, "pre-inference answer", exc) from exc
    return answer if head else None


def pre_inference_reads(principal: Principal, request: PreInferenceRequest) -> tuple[str, ...]:
    """A pre-inference call reads its cached answer, unless ``isUpdate`` asks for a fresh one."""
    return () if request.is_update else (_pre_inference_cache_key(principal, request),)


def pre_inference(
    service: Service, principal: Principal, request: PreInferenceRequest, reads: StoreReads
) -> Steps[Result[PreInferenceResponse]]:
    """``POST /governance/pre-inference``: applicable policies for one prompt.

    Stateless: it records no turn. An identical request within the idempotency window is
    answered from the cache with ``cacheHit: true``, unless ``isUpdate`` asks for a fresh answer
    (see docs/decisions/pre-inference.md).
    """
    limit = service.settings.max_content_bytes
    check_size("prompt", request.prompt, limit)
    for i, message in enumerate(request.recent_messages or ()):
        text = message.content if isinstance(message, HistoryEntry) else message
        check_size(f"recentMessages[{i}]", text, limit)

    # The request's fingerprint hashes all of it: taken once, by pre_inference_reads, when the
    # cache was read with the admission.
    (cache_key,) = reads.values or (_pre_inference_cache_key(principal, request),)
    tenant = service.tenant(principal)
    # A cached answer is kept with the version of the policy set that gave it: after a reload
    # (or on a worker serving another version) it is not this policy set's answer, so a miss.
    version = tenant.policy_set.version.encode()
    if not request.is_update:
        cached = yield from read(reads, cache_key)
        replay = _cached_answer(service, cache_key, cached, version)
        if replay is not None:
            # The cache is per tenant; rationaleRequired belongs to the calling key.
            update = {
                "cache_hit": True,
                "rationale_required": principal.settings.rationale_required,
            }
            return Result(replay.model_copy(update=update))

    attributes = request.end_user_context.attributes if request.end_user_context else None
    areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
    context = [
        m.content if isinstance(m, HistoryEntry) else m for m in request.recent_messages or ()
    ]
    # Stateless: appliesWhen is matched against this request's attributes alone.
    hits = _retrieve(service, tenant, request.prompt, context, areas)
    relevance = select_policies(
        hits, tenant.policy_set, attributes, service.settings.retrieval_top_k
    )
    policy_set = tenant.policy_set
    ordered = prioritise(
        [policy_set.by_id[pid] for pid in relevance], relevance, policy_set.position
    )
    block, estimate = service.blocks.render(ordered, request.token_budget, service.count_tokens)
    response = pre_inference_response(
        session_id=request.session_id,
        policies=ordered,
        views=tenant.views,
        injection_block=block,
        token_estimate=estimate,
        rationale_required=principal.settings.rationale_required,
        trace_id=service.new_trace_id(),
    )
    body = response.model_dump_json().encode()
    expires_at = service.clock() + IDEMPOTENCY_WINDOW_SECONDS
    yield from perform(Put(cache_key, version + b"\n" + body, expires_at))
    if service.shadows:

        def candidate_selection(candidate: CompiledTenant) -> Judgement:
            found = _retrieve(service, candidate, request.prompt, context, areas)
            chosen = select_policies(
                found, candidate.policy_set, attributes, service.settings.retrieval_top_k
            )
            candidate_set = candidate.policy_set
            return Judgement(
                SELECTION,
                tuple(
                    p.id
                    for p in prioritise(
                        [candidate_set.by_id[pid] for pid in chosen], chosen, candidate_set.position
                    )
                ),
            )

        decide_in_shadow(
            service, principal, "pre-inference", request.session_id, response.trace_id or "",
            Judgement(SELECTION, tuple(p.id for p in ordered)), candidate_selection,
        )  # fmt: skip
    return Result(response)
