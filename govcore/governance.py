"""The facade: :class:`Governance` owns the backends and runs every endpoint.

Each endpoint runs the same pipeline whether it is called through the typed
:class:`GovernanceClient` or the dispatcher :meth:`Governance.handle`: authenticate (401), rate
limit (429), scope and feature settings (403), validate (400), then the endpoint itself. The
decisions are made by the pure functions of :mod:`govcore.core.conversation` and :mod:`govcore.core.render`;
only this module talks to the store and the retrieval index.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from govcore._clock import system_clock
from govcore.backends.memory import MemoryStore
from govcore.backends.tfidf import TfidfRetriever
from govcore.config import GovernanceSettings, LoadedConfig, load_config
from govcore.core.conversation import (
    BindingRecord,
    ConversationRules,
    ConversationState,
    TurnOutcome,
    advance_conversation,
    iso_timestamp,
    prioritise,
)
from govcore.core.gating import CompiledToolRule, check_tool_call, compile_tool_rules
from govcore.core.ratelimit import WINDOW_SECONDS, admit, retry_after_seconds
from govcore.core.render import render_injection_block
from govcore.core.stream_window import stream_step
from govcore.core.tokens import estimate_tokens
from govcore.core.violations import (
    output_violations,
    policy_citations,
    redact,
    risk_score,
    stream_violations,
    unsafe,
)
from govcore.decisions import Decision, DecisionLog, JsonlDecisionLog, MemoryDecisionLog
from govcore.detection.scanner import Scanner, compile_rules
from govcore.errors import BackendError, InvalidRequestError, NotFoundError, RateLimitedError
from govcore.models import (
    ApplicablePolicy,
    BindingEvent,
    ConversationSnapshot,
    FinalizeOutputRequest,
    HistoryEntry,
    Identifier,
    PostInferenceRequest,
    PostInferenceResponse,
    PreInferenceRequest,
    PreInferenceResponse,
    StreamCheckRequest,
    StreamCheckResponse,
    ToolCallDecision,
    ToolCallRequest,
    TurnDiff,
    TurnRequest,
    TurnResponse,
)
from govcore.policy import PolicyDocument, PolicySet, canonical_json
from govcore.retrieval.analysis import bounded_window
from govcore.service.access import KeyRing, Principal
from govcore.service.requests import (
    check_size,
    check_tool_arguments,
    parse_json_body,
    validate_request,
)
from govcore.types import Clock, RetrievalIndex, Retriever, Store, StoreWrite, TokenCounter

if TYPE_CHECKING:
    from govcore.http import Headers, HttpResponse

__all__ = ["Governance", "GovernanceClient", "RawBody"]

M = TypeVar("M", bound=BaseModel)

IDEMPOTENCY_WINDOW_SECONDS = 300
"""A replay of an ``idempotencyKey`` within this window returns the first response."""

_ALWAYS_ON_RELEVANCE = 1.0
_log = logging.getLogger("govcore")
_WARM_UP_TEXT = "Reach me at a@example.com or +1 415 555 0100; card 4111 1111 1111 1111."


@dataclass(frozen=True, slots=True)
class RawBody:
    """A request body exactly as a transport received it (the dispatcher's payload)."""

    content: bytes | str | None


@dataclass(frozen=True, slots=True)
class Result(Generic[M]):
    """An endpoint's response model and, when it is a replay, the exact bytes first sent."""

    model: M | None
    body: bytes | None = None


@dataclass(frozen=True, slots=True)
class _Tenant:
    """A tenant's policy set with everything compiled from it, built once per version."""

    policy_set: PolicySet
    index: RetrievalIndex
    scanner: Scanner
    policies_by_area: Mapping[str, frozenset[str]]  # area -> ids of its policies
    always_on: frozenset[str]  # ids of the alwaysOn policies
    tool_rules: tuple[CompiledToolRule, ...]

    def policies_in_areas(self, areas: frozenset[str] | None) -> frozenset[str] | None:
        """The ids of the policies in ``areas`` (``None``: every policy)."""
        if areas is None:
            return None
        return frozenset().union(*(self.policies_by_area.get(area, ()) for area in areas))


@dataclass(frozen=True, slots=True)
class _Selection:
    """The policies retrieval selected for a turn (``alwaysOn`` ones included)."""

    relevance: dict[str, float]


class Governance:
    """Governance of one deployment: tenants, keys, policies and conversation state.

    Build it with :meth:`from_config`. It is safe to share between threads.
    """

    def __init__(
        self,
        config: LoadedConfig,
        *,
        clock: Clock | None = None,
        store: Store | None = None,
        retriever: Retriever | None = None,
        token_counter: TokenCounter | None = None,
        trace_ids: Callable[[], str] | None = None,
        decision_log: DecisionLog | None = None,
    ) -> None:
        self.settings: GovernanceSettings = config.settings
        self._clock: Clock = clock or system_clock
        self._store: Store = (
            store
            if store is not None
            else MemoryStore(clock=self._clock, maxsize=config.settings.max_conversations)
        )
        if retriever is None:
            options: dict[str, Any] = {"synonyms": config.settings.synonyms}
            if config.settings.min_relevance is not None:
                options["min_relevance"] = config.settings.min_relevance
            retriever = TfidfRetriever(**options)
        self._retriever = retriever
        self._count_tokens: TokenCounter = token_counter or estimate_tokens
        self._trace_ids: Callable[[], str] = trace_ids or _random_id
        self._keys = KeyRing(config.keys)
        self._rules = ConversationRules(
            release_after_unselected_turns=config.settings.release_after_unselected_turns,
            binding_log_limit=config.settings.binding_log_limit,
        )
        # Compiled once per policy-set version: tenants whose policies are identical share it.
        compiled: dict[str, _Tenant] = {}
        self._tenants: dict[str, _Tenant] = {}
        for tenant_id, policy_set in config.tenants.items():
            built = compiled.get(policy_set.version)
            if built is None:
                built = compiled[policy_set.version] = _compile(policy_set, retriever)
            self._tenants[tenant_id] = (
                built
                if built.policy_set is policy_set
                else _Tenant(
                    policy_set,
                    built.index,
                    built.scanner,
                    built.policies_by_area,
                    built.always_on,
                    built.tool_rules,
                )
            )
        if decision_log is None:
            path = config.settings.decision_log_path
            decision_log = (
                JsonlDecisionLog(path)
                if path
                else MemoryDecisionLog(config.settings.decision_log_size)
            )
        self.decision_log: DecisionLog = decision_log
        # Requests with the same idempotency key run one at a time (striped locks).
        self._idempotency_locks = tuple(threading.Lock() for _ in range(64))

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any] | str | os.PathLike[str],
        clock: Clock | None = None,
        *,
        store: Store | None = None,
        retriever: Retriever | None = None,
        token_counter: TokenCounter | None = None,
        trace_ids: Callable[[], str] | None = None,
        decision_log: DecisionLog | None = None,
    ) -> Governance:
        """Build a :class:`Governance` from a configuration.

        Args:
            config: a mapping or the path of a YAML or JSON file (library contract §2).
            clock: returns the current epoch seconds; every time-dependent behaviour uses it.
            store: where conversation state, idempotency records and rate-limit windows live;
                default an in-memory :class:`~govcore.backends.memory.MemoryStore`.
            retriever: builds the policy index; default
                :class:`~govcore.backends.tfidf.TfidfRetriever`.
            token_counter: estimates tokens of the injection block.
            trace_ids: makes trace ids; default random UUIDs.
            decision_log: receives one record per check; default in memory, or the JSON-lines
                file of ``settings.decision_log_path``.

        Raises:
            ConfigError: the configuration is invalid; the message lists every problem.
        """
        return cls(
            load_config(config),
            clock=clock,
            store=store,
            retriever=retriever,
            token_counter=token_counter,
            trace_ids=trace_ids,
            decision_log=decision_log,
        )

    # --- public entry points -------------------------------------------------------------

    def client(self, api_key: str) -> GovernanceClient:
        """A typed client acting with ``api_key``; its methods raise :class:`GovcoreError`."""
        return GovernanceClient(self, api_key)

    def handle(
        self,
        method: str,
        path: str,
        headers: Headers = None,
        body: bytes | str | None = None,
    ) -> HttpResponse:
        """Answer one HTTP request without a network: the transport-neutral dispatcher.

        ``headers`` is a mapping of names to values, or name-value pairs as servers pass them
        (an ASGI scope's list of ``(bytes, bytes)``); names are case-insensitive.

        Returns:
            A :class:`govcore.HttpResponse`. Never raises for anything a caller can send.
        """
        from govcore.http import dispatch  # the HTTP layer builds on this module

        return dispatch(self, method, path, headers, body)

    def policy_set(self, tenant: str) -> PolicySet:
        """The policy set of ``tenant``.

        Raises:
            KeyError: no such tenant.
        """
        return self._tenants[tenant].policy_set

    @property
    def tenants(self) -> tuple[str, ...]:
        """The configured tenant ids."""
        return tuple(self._tenants)

    # --- the pipeline --------------------------------------------------------------------

    def _authorize(self, api_key: str | None, scope: str, feature: str | None = None) -> Principal:
        """Authenticate (401), rate limit (429), then check scope and feature setting (403)."""
        principal = self._keys.authenticate(api_key)
        limit = (
            principal.settings.rate_limit_per_minute or self.settings.default_rate_limit_per_minute
        )
        now = self._clock()
        wait = self._guard(
            lambda: self._store.update(
                f"rate:{principal.key_id}", lambda raw: admit(raw, now=now, limit=limit)
            )
        )
        if wait is not None:
            seconds = retry_after_seconds(wait)
            raise RateLimitedError(
                f"rate limit of {limit} requests per {WINDOW_SECONDS} seconds exceeded; "
                f"retry after {seconds} s",
                window_seconds=WINDOW_SECONDS,
                retry_after=seconds,
            )
        principal.require_scope(scope)
        if feature is not None:
            principal.require_feature(feature)
        return principal

    def _parse(self, model: type[M], payload: M | Mapping[str, Any] | RawBody) -> M:
        """Validate a payload as ``model`` (400 naming each offending field)."""
        if isinstance(payload, RawBody):
            payload = parse_json_body(payload.content, max_bytes=self.settings.max_body_bytes)
        return validate_request(model, payload)

    # --- conversation turn ---------------------------------------------------------------

    def _record_turn(
        self, api_key: str | None, payload: TurnRequest | Mapping[str, Any] | RawBody
    ) -> Result[TurnResponse]:
        """``POST /governance/conversation/turn``."""
        principal = self._authorize(api_key, "governance:read")
        if isinstance(payload, RawBody):
            payload = parse_json_body(payload.content, max_bytes=self.settings.max_body_bytes)
        # checkOutput needs a feature setting: a 403 that comes before validation's 400.
        wants_check = (
            payload.check_output
            if isinstance(payload, TurnRequest)
            else isinstance(payload, Mapping) and payload.get("checkOutput") is True
        )
        if wants_check:
            # The check is an output check: the scope that grants checking outputs, and its
            # feature setting, as post-inference needs.
            principal.require_scope("governance:check")
            principal.require_feature("post_inference_checking")
        request = validate_request(TurnRequest, payload)
        self._check_turn_sizes(request)
        if request.idempotency_key is None:
            return Result(self._run_turn(principal, request))
        return self._idempotent(
            principal.tenant,
            request.idempotency_key,
            request,
            TurnResponse,
            lambda: self._run_turn(principal, request),
        )

    def _check_turn_sizes(self, request: TurnRequest) -> None:
        limit = self.settings.max_content_bytes
        check_size("turn.content", request.turn.content, limit)
        for i, text in enumerate(request.recent_context or ()):
            check_size(f"recentContext[{i}]", text, limit)
        for i, entry in enumerate(request.prior_history or ()):
            check_size(f"priorHistory[{i}].content", entry.content, limit)

    def _run_turn(self, principal: Principal, request: TurnRequest) -> TurnResponse:
        tenant = self._tenants[principal.tenant]
        attributes = request.end_user_context.attributes if request.end_user_context else None
        areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
        context = list(request.recent_context or ())
        history = [entry.content for entry in request.prior_history or ()]
        key = _conversation_key(principal.tenant, request.session_id)

        # Retrieval runs before the store's atomic section. Only a first call reads
        # priorHistory, so with history we look first, and select again in the (rare) race
        # where the session appeared between the look and the update.
        selections: dict[bool, _Selection] = {}

        def select(first_call: bool) -> _Selection:
            if first_call not in selections:
                extra = history if first_call else []
                selections[first_call] = self._select(
                    tenant, request.turn.content, [*extra, *context], areas, attributes
                )
            return selections[first_call]

        if history:
            select(self._guard(lambda: self._store.get(key)) is None)
        else:
            select(False)
            selections[True] = selections[False]

        ttl = (
            request.ttl_seconds
            or principal.settings.conversation_ttl_seconds
            or self.settings.conversation_ttl_seconds
        )
        now = self._clock()

        def mutate(raw: bytes | None) -> StoreWrite[TurnOutcome]:
            state = self._decode_state(raw) if raw is not None else None
            outcome = advance_conversation(
                state,
                policy_set=tenant.policy_set,
                selected=select(state is None).relevance,
                attributes=attributes,
                prior_turns=len(history),
                now=now,
                token_budget=request.token_budget,
                count_tokens=self._count_tokens,
                rules=self._rules,
            )
            return StoreWrite(outcome.state.to_bytes(), now + ttl, outcome)

        outcome = self._guard(lambda: self._store.update(key, mutate))
        post_check = None
        if request.check_output:
            post_check = self._check_output(
                principal,
                "conversation/turn",
                request.session_id,
                request.turn.content,
                areas,
                None,
            )
        return TurnResponse(
            session_id=request.session_id,
            turn_index=outcome.turn_index,
            diff=TurnDiff(
                newly_applicable=_applicable(outcome.newly_applicable),
                newly_released=_applicable(outcome.newly_released),
                still_active=_applicable(outcome.still_active),
                binding_events=[_binding_event(r) for r in outcome.events],
            ),
            active_policies=_applicable(outcome.active),
            injection_block=outcome.state.injection_block,
            token_estimate=outcome.token_estimate,
            post_inference_check=post_check,
            trace_id=post_check.trace_id if post_check is not None else self._trace_ids(),
        )

    def _select(
        self,
        tenant: _Tenant,
        text: str,
        context: Sequence[str],
        areas: frozenset[str] | None,
        attributes: Mapping[str, Any] | None,
    ) -> _Selection:
        """Retrieval for one turn, bounded in length, then ``appliesWhen`` and ``alwaysOn``."""
        settings = self.settings
        window = settings.retrieval_window_chars
        recent = context[-settings.recent_context_turns :] if settings.recent_context_turns else []
        # Ask for a few more than top-K, since appliesWhen may drop some.
        hits = tenant.index.search(
            bounded_window(text, window),
            top_k=2 * settings.retrieval_top_k,
            areas=areas,
            context=[entry[-window:] for entry in recent],
        )
        policies = tenant.policy_set.policies
        relevance: dict[str, float] = {}
        for hit in hits:
            policy = policies[hit.position]
            if policy.applies_to(attributes):
                relevance[policy.id] = hit.score
                if len(relevance) == settings.retrieval_top_k:
                    break
        for position in tenant.policy_set.always_on:
            policy = policies[position]
            if policy.applies_to(attributes):
                relevance[policy.id] = _ALWAYS_ON_RELEVANCE
        return _Selection(relevance)

    # --- conversation read and delete ----------------------------------------------------

    def _get_conversation(
        self, api_key: str | None, session_id: str
    ) -> Result[ConversationSnapshot]:
        """``GET /governance/conversation/{sessionId}``: read-only, no TTL renewal."""
        principal = self._authorize(api_key, "governance:read")
        session_id = _check_session_id(session_id)
        raw = self._guard(lambda: self._store.get(_conversation_key(principal.tenant, session_id)))
        if raw is None:
            raise NotFoundError(
                f"no conversation {session_id!r} (never created, deleted or expired)"
            )
        state = self._decode_state(raw)
        policy_set = self._tenants[principal.tenant].policy_set
        active = [
            policy_set.by_id[b.policy_id] for b in state.bindings if b.policy_id in policy_set.by_id
        ]
        return Result(
            ConversationSnapshot(
                session_id=session_id,
                turn_count=state.turn_count,
                active_policies=_applicable(active),
                injection_block=state.injection_block,
                binding_log=[_binding_event(r) for r in state.binding_log.records()],
                updated_at=iso_timestamp(state.updated_at),
            )
        )

    def _delete_conversation(self, api_key: str | None, session_id: str) -> Result[BaseModel]:
        """``DELETE /governance/conversation/{sessionId}``: idempotent purge."""
        principal = self._authorize(api_key, "governance:read")
        session_id = _check_session_id(session_id)
        self._guard(lambda: self._store.delete(_conversation_key(principal.tenant, session_id)))
        return Result(None)

    # --- legacy pre-inference ------------------------------------------------------------

    def _pre_inference(
        self, api_key: str | None, payload: PreInferenceRequest | Mapping[str, Any] | RawBody
    ) -> Result[PreInferenceResponse]:
        """``POST /governance/pre-inference``: applicable policies for one prompt.

        Stateless: it records no turn. An identical request within the idempotency window is
        answered from the cache with ``cacheHit: true``, unless ``isUpdate`` asks for a fresh
        answer (see docs/decisions/pre-inference.md).
        """
        principal = self._authorize(api_key, "governance:read")
        request = self._parse(PreInferenceRequest, payload)
        limit = self.settings.max_content_bytes
        check_size("prompt", request.prompt, limit)
        for i, message in enumerate(request.recent_messages or ()):
            text = message.content if isinstance(message, HistoryEntry) else message
            check_size(f"recentMessages[{i}]", text, limit)

        fingerprint = hashlib.sha256(
            canonical_json(request.model_dump(mode="json", exclude={"is_update"})).encode()
        ).hexdigest()
        cache_key = f"pre:{principal.tenant}:{fingerprint}"
        if not request.is_update:
            cached = self._guard(lambda: self._store.get(cache_key))
            if cached is not None:
                replay = PreInferenceResponse.model_validate_json(cached)
                # The cache is per tenant; rationaleRequired belongs to the calling key.
                update = {
                    "cache_hit": True,
                    "rationale_required": principal.settings.rationale_required,
                }
                return Result(replay.model_copy(update=update))

        tenant = self._tenants[principal.tenant]
        attributes = request.end_user_context.attributes if request.end_user_context else None
        areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
        context = [
            m.content if isinstance(m, HistoryEntry) else m for m in request.recent_messages or ()
        ]
        selection = self._select(tenant, request.prompt, context, areas, attributes)
        policy_set = tenant.policy_set
        ordered = prioritise(
            [policy_set.by_id[pid] for pid in selection.relevance],
            selection.relevance,
            policy_set.position,
        )
        block, estimate = render_injection_block(ordered, request.token_budget, self._count_tokens)
        response = PreInferenceResponse(
            session_id=request.session_id,
            cache_hit=False,
            applicable_policies=_applicable(ordered),
            injection_block=block,
            rationale_required=principal.settings.rationale_required,
            token_estimate=estimate,
            trace_id=self._trace_ids(),
        )
        expires_at = self._clock() + IDEMPOTENCY_WINDOW_SECONDS
        self._guard(
            lambda: self._store.set(
                cache_key, response.model_dump_json().encode(), expires_at=expires_at
            )
        )
        return Result(response)

    # --- output checks -------------------------------------------------------------------

    def _post_inference(
        self, api_key: str | None, payload: PostInferenceRequest | Mapping[str, Any] | RawBody
    ) -> Result[PostInferenceResponse]:
        """``POST /governance/post-inference``: check a finished output."""
        principal = self._authorize(api_key, "governance:check", "post_inference_checking")
        request = self._parse(PostInferenceRequest, payload)
        check_size("output", request.output, self.settings.max_output_bytes)
        check_size("prompt", request.prompt or "", self.settings.max_content_bytes)
        areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
        return Result(
            self._check_output(
                principal,
                "post-inference",
                request.session_id,
                request.output,
                areas,
                request.trace_id,
            )
        )

    def _check_output(
        self,
        principal: Principal,
        endpoint: str,
        session_id: str,
        output: str,
        areas: frozenset[str] | None,
        trace_id: str | None,
    ) -> PostInferenceResponse:
        """One check of a whole output against every detect rule (of ``areas``)."""
        started = time.perf_counter()
        tenant = self._tenants[principal.tenant]
        applicable = tenant.policies_in_areas(areas)
        hits = tenant.scanner.scan(output, applicable=applicable)
        violations = output_violations(output, hits)
        response = PostInferenceResponse(
            safe=not any(unsafe(v.enforcement_type, v.confidence) for v in violations),
            risk_score=risk_score((v.confidence, v.severity) for v in violations),
            violations=violations,
            suggested_redaction=redact(output, hits, tenant.scanner, applicable),
            policy_citations=policy_citations(v.policy_id for v in violations),
            trace_id=trace_id or self._trace_ids(),
        )
        self._log_decision(
            principal,
            endpoint,
            session_id,
            response.trace_id,
            response.policy_citations,
            "safe" if response.safe else "unsafe",
            len(violations),
            response.risk_score,
            started,
            output,
        )
        return response

    def _check_output_stream(
        self, api_key: str | None, payload: StreamCheckRequest | Mapping[str, Any] | RawBody
    ) -> Result[StreamCheckResponse]:
        """``POST /governance/check-output/stream``: check the new part of a streamed output."""
        principal = self._authorize(api_key, "governance:check", "post_inference_checking")
        request = self._parse(StreamCheckRequest, payload)
        self._check_stream_request(request)
        started = time.perf_counter()
        tenant = self._tenants[principal.tenant]
        step = stream_step(
            request.full_text, request.last_checked_offset, request.is_final, tenant.scanner.scan
        )
        violations = stream_violations(request.full_text, step.hits)
        response = StreamCheckResponse(
            session_id=request.session_id,
            new_violations=violations,
            watermark=step.watermark,
            is_complete=request.is_final,
            risk_score=risk_score((v.confidence, v.severity) for v in violations),
            trace_id=self._trace_ids(),
        )
        if step.checked:
            self._log_decision(
                principal,
                "check-output/stream",
                request.session_id,
                response.trace_id,
                policy_citations(v.policy_id for v in violations),
                "safe"
                if not any(unsafe(v.enforcement_type, v.confidence) for v in violations)
                else "unsafe",
                len(violations),
                response.risk_score,
                started,
                request.full_text,
            )
        return Result(response)

    def _finalize_output(
        self, api_key: str | None, payload: FinalizeOutputRequest | Mapping[str, Any] | RawBody
    ) -> Result[PostInferenceResponse]:
        """``POST /governance/check-output/finalize``: the verdict on the whole output."""
        principal = self._authorize(api_key, "governance:check", "post_inference_checking")
        request = self._parse(FinalizeOutputRequest, payload)
        self._check_stream_request(request)
        return Result(
            self._check_output(
                principal,
                "check-output/finalize",
                request.session_id,
                request.full_text,
                None,
                None,
            )
        )

    def _check_stream_request(self, request: StreamCheckRequest) -> None:
        check_size("fullText", request.full_text, self.settings.max_output_bytes)
        if request.last_checked_offset > len(request.full_text):
            raise InvalidRequestError.for_field(
                "lastCheckedOffset",
                f"is {request.last_checked_offset}, beyond the end of fullText "
                f"({len(request.full_text)} characters)",
            )

    # --- tool calls ----------------------------------------------------------------------

    def _check_tool_call(
        self, api_key: str | None, payload: ToolCallRequest | Mapping[str, Any] | RawBody
    ) -> Result[ToolCallDecision]:
        """``POST /governance/check-tool-call``: gate a proposed tool call."""
        principal = self._authorize(api_key, "governance:check", "tool_call_governance")
        request = self._parse(ToolCallRequest, payload)
        check_tool_arguments(request.arguments, self.settings.max_tool_arguments_bytes)
        started = time.perf_counter()
        tenant = self._tenants[principal.tenant]
        # The session's active policies, read without renewing its TTL; alwaysOn ones always.
        raw = self._guard(
            lambda: self._store.get(_conversation_key(principal.tenant, request.session_id))
        )
        active = [b.policy_id for b in self._decode_state(raw).bindings] if raw is not None else []
        outcome = check_tool_call(
            request.tool_name,
            request.arguments,
            scanner=tenant.scanner,
            applicable_policies=tenant.always_on.union(active),
            tool_rules=tenant.tool_rules,
        )
        decision = ToolCallDecision(
            allow=outcome.allow,
            risk_score=outcome.risk_score,
            violations=outcome.violations,
            suggested_arguments=outcome.suggested_arguments,
            trace_id=self._trace_ids(),
        )
        assert decision.trace_id is not None
        self._log_decision(
            principal,
            "check-tool-call",
            request.session_id,
            decision.trace_id,
            outcome.policy_ids,
            "allow" if outcome.allow else "block",
            len(outcome.violations),
            outcome.risk_score,
            started,
            None,
        )
        return Result(decision)

    def _log_decision(
        self,
        principal: Principal,
        endpoint: str,
        session_id: str,
        trace_id: str,
        policy_ids: Sequence[str],
        verdict: str,
        violations: int,
        score: float,
        started: float,
        text: str | None,
    ) -> None:
        try:
            self.decision_log.record(
                Decision(
                    decision_id=_random_id(),
                    trace_id=trace_id,
                    tenant=principal.tenant,
                    key_id=principal.key_id,
                    endpoint=endpoint,
                    session_id=session_id,
                    policy_ids=tuple(policy_ids),
                    verdict=verdict,
                    violations=violations,
                    risk_score=score,
                    duration_ms=round((time.perf_counter() - started) * 1000, 3),
                    ts=self._clock(),
                    text=text if self.settings.decision_log_include_text else None,
                )
            )
        except Exception:  # a failing audit sink must not fail the check
            _log.exception("decision log failed")

    # --- shared machinery ----------------------------------------------------------------

    def _idempotent(
        self,
        tenant: str,
        idempotency_key: str,
        request: BaseModel,
        response_model: type[M],
        run: Callable[[], M],
    ) -> Result[M]:
        """Run ``run`` once per (tenant, key) within the window; replay its bytes after."""
        fingerprint = hashlib.sha256(
            canonical_json(request.model_dump(mode="json")).encode()
        ).hexdigest()
        key = f"idem:{tenant}:{idempotency_key}"
        lock = self._idempotency_locks[hash(key) % len(self._idempotency_locks)]
        with lock:
            stored = self._guard(lambda: self._store.get(key))
            if stored is not None:
                stored_fingerprint, _, body = stored.partition(b"\n")
                if stored_fingerprint.decode() != fingerprint:
                    raise InvalidRequestError.for_field(
                        "idempotencyKey",
                        "was already used with a different request body in the last "
                        f"{IDEMPOTENCY_WINDOW_SECONDS // 60} minutes",
                    )
                return Result(response_model.model_validate_json(body), body)
            response = run()
            body = response.model_dump_json().encode()
            expires_at = self._clock() + IDEMPOTENCY_WINDOW_SECONDS
            record = fingerprint.encode() + b"\n" + body
            self._guard(lambda: self._store.set(key, record, expires_at=expires_at))
            return Result(response, body)

    def _decode_state(self, raw: bytes) -> ConversationState:
        try:
            return ConversationState.from_bytes(raw)
        except (ValueError, KeyError, TypeError) as exc:
            raise BackendError("the stored conversation state is unreadable") from exc

    @staticmethod
    def _guard(operation: Callable[[], Any]) -> Any:
        """Run a backend operation; errors other than govcore's become BackendError."""
        try:
            return operation()
        except (BackendError, InvalidRequestError, NotFoundError):
            raise
        except Exception as exc:
            if type(exc).__module__.startswith("govcore"):
                raise
            raise BackendError(f"backend failure: {type(exc).__name__}") from exc


class GovernanceClient:
    """Typed, in-process access with one API key (library contract §1).

    Each method takes the endpoint's request model or a mapping with the wire (camelCase) field
    names, returns the response model and raises the :class:`~govcore.errors.GovcoreError`
    subclasses of contract §4. A blocked tool call or a found violation is a result, not an
    exception.
    """

    def __init__(self, governance: Governance, api_key: str) -> None:
        self._governance = governance
        self._api_key = api_key

    def record_turn(self, request: TurnRequest | Mapping[str, Any]) -> TurnResponse:
        """Record one turn and return the policies that apply now, with the diff."""
        return _unwrap(self._governance._record_turn(self._api_key, request))

    def get_conversation(self, session_id: str) -> ConversationSnapshot:
        """A read-only snapshot of a conversation; renews nothing."""
        return _unwrap(self._governance._get_conversation(self._api_key, session_id))

    def delete_conversation(self, session_id: str) -> None:
        """Purge a conversation's state; deleting an absent one succeeds."""
        self._governance._delete_conversation(self._api_key, session_id)

    def pre_inference(
        self, request: PreInferenceRequest | Mapping[str, Any]
    ) -> PreInferenceResponse:
        """The legacy single-shot call: applicable policies for one prompt."""
        return _unwrap(self._governance._pre_inference(self._api_key, request))

    def check_tool_call(self, request: ToolCallRequest | Mapping[str, Any]) -> ToolCallDecision:
        """Gate a proposed tool call; a block is ``allow: false``, not an exception."""
        return _unwrap(self._governance._check_tool_call(self._api_key, request))

    def post_inference(
        self, request: PostInferenceRequest | Mapping[str, Any]
    ) -> PostInferenceResponse:
        """Check a finished output and propose a redaction."""
        return _unwrap(self._governance._post_inference(self._api_key, request))

    def check_output_stream(
        self, request: StreamCheckRequest | Mapping[str, Any]
    ) -> StreamCheckResponse:
        """Check the new part of a streamed output; send back the ``watermark`` next time."""
        return _unwrap(self._governance._check_output_stream(self._api_key, request))

    def finalize_output(
        self, request: FinalizeOutputRequest | Mapping[str, Any]
    ) -> PostInferenceResponse:
        """The end-of-stream verdict on the whole output."""
        return _unwrap(self._governance._finalize_output(self._api_key, request))


def _unwrap(result: Result[M]) -> M:
    assert result.model is not None
    return result.model


def _compile(policy_set: PolicySet, retriever: Retriever) -> _Tenant:
    """Everything requests need from a policy set: index, scanner, policy maps, tool rules."""
    scanner = compile_rules(
        (policy, rule) for policy in policy_set.policies for rule in policy.detect
    )
    by_area: dict[str, set[str]] = {}
    for policy in policy_set.policies:
        if policy.area is not None:
            by_area.setdefault(policy.area, set()).add(policy.id)
    scanner.scan(_WARM_UP_TEXT)  # RE2 builds its automata lazily: not on a caller's time
    return _Tenant(
        policy_set=policy_set,
        index=retriever.index(policy_set.policies),
        scanner=scanner,
        policies_by_area={area: frozenset(ids) for area, ids in by_area.items()},
        always_on=frozenset(p.id for p in policy_set.policies if p.always_on),
        tool_rules=compile_tool_rules(policy_set.policies),
    )


def _random_id() -> str:
    """128 random bits as 32 hex digits: trace and decision ids."""
    return secrets.token_hex(16)


def _conversation_key(tenant: str, session_id: str) -> str:
    return f"conv:{tenant}:{session_id}"


_SESSION_ID: TypeAdapter[str] = TypeAdapter(Identifier)


def _check_session_id(session_id: str) -> str:
    """The same rule as a body's sessionId, for ids that arrive in a path."""
    try:
        return _SESSION_ID.validate_python(session_id, strict=True)
    except ValidationError as exc:
        reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise InvalidRequestError.for_field("sessionId", reason) from None


def _applicable(policies: Sequence[PolicyDocument]) -> list[ApplicablePolicy]:
    return [policy.applicable for policy in policies]


def _binding_event(record: BindingRecord) -> BindingEvent:
    return BindingEvent(
        turn_index=record.turn_index, policy_id=record.policy_id, event=record.event, ts=record.ts
    )
