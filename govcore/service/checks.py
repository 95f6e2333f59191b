"""The check endpoints: post-inference, the streaming check and its finalize, tool calls."""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache

from govcore.core.gating import ToolCallOutcome, gate_tool_call
from govcore.core.stream_window import STREAM_TRIGGER, resume_stream, stream_record, stream_step
from govcore.core.verdict import Finding, is_safe, risk_score
from govcore.core.violations import findings_of, policy_citations, redact
from govcore.errors import InvalidRequestError
from govcore.models import (
    FinalizeOutputRequest,
    PostInferenceRequest,
    PostInferenceResponse,
    StreamCheckRequest,
    StreamCheckResponse,
    ToolCallDecision,
    ToolCallRequest,
)
from govcore.service.access import Principal
from govcore.service.effects import Put, Steps, perform, read, without_effects
from govcore.service.requests import check_size, check_tool_arguments
from govcore.service.shadow import Judgement, decide_in_shadow
from govcore.service.shared import Result, Service
from govcore.service.store_keys import conversation_key, stream_key
from govcore.service.tenants import CompiledTenant
from govcore.service.wire import (
    post_inference_response,
    stream_check_response,
    tool_call_decision,
)
from govcore.types import StoreReads

__all__ = [
    "check_output",
    "check_output_stream",
    "check_tool_call",
    "finalize_output",
    "post_inference",
    "stream_reads",
    "tool_call_reads",
]


def check_output(
    service: Service,
    principal: Principal,
    endpoint: str,
    session_id: str,
    output: str,
    areas: frozenset[str] | None,
    trace_id: str | None,
) -> PostInferenceResponse:
    """One check of a whole output against every detect rule (of ``areas``).

    The verdict, risk score, citations and redaction cover every finding; the answer lists at
    most ``max_violations_per_check`` of them, the first in text order.
    """
    started = time.perf_counter()
    tenant = service.tenant(principal)
    applicable = tenant.policies_in_areas(areas)
    hits = tenant.scanner.scan(output, applicable=applicable)
    findings = findings_of(output, hits)
    response = post_inference_response(
        findings,
        limit=service.settings.max_violations_per_check,
        redaction=redact(output, hits, tenant.scanner, applicable),
        trace_id=trace_id or service.new_trace_id(),
    )
    service.log_decision(
        principal,
        endpoint,
        session_id,
        response.trace_id,
        response.policy_citations,
        "safe" if response.safe else "unsafe",
        len(findings),
        response.risk_score,
        started,
        output,
    )
    if service.shadows:
        decide_in_shadow(
            service, principal, endpoint, session_id, response.trace_id,
            lambda: _output_judgement(findings),
            lambda candidate: _output_judgement(
                findings_of(output, candidate.scanner.scan(
                    output, applicable=candidate.policies_in_areas(areas)))
            ),
        )  # fmt: skip
    return response


def _output_judgement(findings: Sequence[Finding]) -> Judgement:
    """An output check's decision as shadow mode compares it."""
    return Judgement(
        "safe" if is_safe(findings) else "unsafe",
        tuple(dict.fromkeys(f.policy_id for f in findings)),
        len(findings),
        risk_score(findings),
    )


@without_effects
def post_inference(
    service: Service, principal: Principal, request: PostInferenceRequest, reads: StoreReads
) -> Result[PostInferenceResponse]:
    """``POST /governance/post-inference``: check a finished output."""
    check_size("output", request.output, service.settings.max_output_bytes)
    check_size("prompt", request.prompt or "", service.settings.max_content_bytes)
    areas = frozenset(request.policy_area_ids) if request.policy_area_ids is not None else None
    return Result(
        check_output(
            service,
            principal,
            "post-inference",
            request.session_id,
            request.output,
            areas,
            request.trace_id,
        )
    )


def _check_stream_request(service: Service, request: StreamCheckRequest) -> None:
    check_size("fullText", request.full_text, service.settings.max_output_bytes)
    if request.last_checked_offset > len(request.full_text):
        raise InvalidRequestError.for_field(
            "lastCheckedOffset",
            f"is {request.last_checked_offset}, beyond the end of fullText "
            f"({len(request.full_text)} characters)",
        )


def _stream_checks(request: StreamCheckRequest) -> bool:
    """Whether a streaming call scans: when it is final or enough new text has come."""
    return request.is_final or (
        len(request.full_text) - request.last_checked_offset >= STREAM_TRIGGER
    )


# The record's key of a session, made once for the admission's read and again for the write:
# remembered for the sessions streaming now (a key costs about 0.9 µs to build).
_stream_key = lru_cache(maxsize=4096)(stream_key)


def stream_reads(principal: Principal, request: StreamCheckRequest) -> tuple[str, ...]:
    """A streaming call that scans reads the record of what the session's stream checked."""
    if not _stream_checks(request):
        return ()
    return (_stream_key(principal.tenant, request.session_id),)


def check_output_stream(
    service: Service, principal: Principal, request: StreamCheckRequest, reads: StoreReads
) -> Steps[Result[StreamCheckResponse]]:
    """``POST /governance/check-output/stream``: check the new part of a streamed output.

    A call below the trigger checks nothing: it answers its own ``lastCheckedOffset`` and
    touches neither the tenant's scanner, the store nor the decision log. A call that checks
    reads the stream's record (with the admission), scans the window, writes the new record and
    logs one decision; a scan that finds nothing answers without building findings
    (docs/decisions/stream-cost.md).
    """
    _check_stream_request(service, request)
    trace_id = request.caller_trace_id or service.new_trace_id()
    if not _stream_checks(request):
        return Result(
            stream_check_response(
                (),
                limit=service.settings.max_violations_per_check,
                session_id=request.session_id,
                watermark=request.last_checked_offset,
                is_complete=False,
                trace_id=trace_id,
            )
        )
    started = time.perf_counter()
    text = request.full_text
    # Start from lastCheckedOffset only when the text before the watermark this session was
    # last given is the text that was checked; otherwise check again from the start.
    key = _stream_key(principal.tenant, request.session_id)
    stored = yield from read(reads, key)
    resume = resume_stream(text, request.last_checked_offset, stored, request.is_final)
    step = stream_step(text, resume.start, request.is_final, service.tenant(principal).scanner.scan)
    record = stream_record(text, step.watermark, resume)
    ttl = principal.settings.conversation_ttl_seconds or service.settings.conversation_ttl_seconds
    yield from perform(Put(key, record, service.clock() + ttl))
    findings = findings_of(text, step.hits) if step.hits else ()
    response = stream_check_response(
        findings,
        limit=service.settings.max_violations_per_check,
        session_id=request.session_id,
        watermark=step.watermark,
        is_complete=request.is_final,
        trace_id=trace_id,
    )
    service.log_decision(
        principal,
        "check-output/stream",
        request.session_id,
        trace_id,
        policy_citations(f.policy_id for f in findings) if findings else (),
        "safe" if is_safe(findings) else "unsafe",
        len(findings),
        response.risk_score,
        started,
        text,
    )
    return Result(response)


@without_effects
def finalize_output(
    service: Service, principal: Principal, request: FinalizeOutputRequest, reads: StoreReads
) -> Result[PostInferenceResponse]:
    """``POST /governance/check-output/finalize``: the verdict on the whole output."""
    _check_stream_request(service, request)
    return Result(
        check_output(
            service,
            principal,
            "check-output/finalize",
            request.session_id,
            request.full_text,
            None,
            request.caller_trace_id,
        )
    )


def tool_call_reads(principal: Principal, request: ToolCallRequest) -> tuple[str, ...]:
    """A tool call reads its session's state (the policies it holds)."""
    return (conversation_key(principal.tenant, request.session_id),)


def check_tool_call(
    service: Service, principal: Principal, request: ToolCallRequest, reads: StoreReads
) -> Steps[Result[ToolCallDecision]]:
    """``POST /governance/check-tool-call``: gate a proposed tool call."""
    check_tool_arguments(request.arguments, service.settings.max_tool_arguments_bytes)
    started = time.perf_counter()
    tenant = service.tenant(principal)
    # The session's active policies and appliesWhen verdicts, read without renewing its TTL:
    # they decide only for whenActive and conditional policies (DetectScope).
    key = conversation_key(principal.tenant, request.session_id)
    raw = yield from read(reads, key)
    state = service.decode_state(raw, key) if raw is not None else None

    def gate(gating: CompiledTenant) -> ToolCallOutcome:
        active: frozenset[str] = frozenset()
        ruled_out: frozenset[str] = frozenset()
        if state is not None:
            active = frozenset(b.policy_id for b in state.bindings)
            ruled_out = state.verdicts.ruled_out(gating.policy_set)
        return gate_tool_call(
            request.tool_name,
            request.arguments,
            scanner=gating.scanner,
            applicable_policies=gating.detect_scope.applicable(active, ruled_out),
            tool_rules=gating.tool_rules,
            check_keys=service.settings.tool_call_check_keys,
        )

    outcome = gate(tenant)
    trace_id = request.caller_trace_id or service.new_trace_id()
    decision = tool_call_decision(
        outcome, limit=service.settings.max_violations_per_check, trace_id=trace_id
    )
    service.log_decision(
        principal,
        "check-tool-call",
        request.session_id,
        trace_id,
        outcome.policy_ids,
        "allow" if outcome.allow else "block",
        len(outcome.findings),
        outcome.risk_score,
        started,
        None,
    )
    if service.shadows:
        decide_in_shadow(
            service, principal, "check-tool-call", request.session_id, trace_id,
            _tool_call_judgement(outcome),
            lambda candidate: _tool_call_judgement(gate(candidate)),
        )  # fmt: skip
    return Result(decision)


def _tool_call_judgement(outcome: ToolCallOutcome) -> Judgement:
    """A tool call's decision as shadow mode compares it."""
    return Judgement(
        "allow" if outcome.allow else "block",
        tuple(outcome.policy_ids),
        len(outcome.findings),
        outcome.risk_score,
    )
