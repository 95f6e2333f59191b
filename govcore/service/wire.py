"""From the core's plain results to the wire models of the interface (the only place).

Handlers compute with plain data (policies, findings, outcomes) and hand the result here to be
shaped into the response model of their endpoint; no other module builds a response model. The
API's view of each policy (:class:`~govcore.models.ApplicablePolicy`) is built once per
policy-set version (:func:`policy_views`, called when a tenant is compiled) and shared
by every response that lists it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from govcore.core.conversation import BindingRecord, TurnOutcome
from govcore.core.gating import ToolCallOutcome
from govcore.core.verdict import Finding, is_safe, risk_score
from govcore.core.violations import policy_citations
from govcore.models import (
    ApplicablePolicy,
    BindingEvent,
    ConversationSnapshot,
    OutputViolation,
    PostInferenceResponse,
    PreInferenceResponse,
    StreamCheckResponse,
    StreamViolation,
    ToolCallDecision,
    TurnDiff,
    TurnResponse,
    Violation,
)
from govcore.policy import PolicyDocument, PolicySet

__all__ = [
    "PolicyViews",
    "binding_event",
    "conversation_snapshot",
    "policy_views",
    "post_inference_response",
    "pre_inference_response",
    "stream_check_response",
    "tool_call_decision",
    "turn_response",
]

PolicyViews = Mapping[str, ApplicablePolicy]
"""A policy set's policies as the API shows them, by policy id."""


def policy_views(policy_set: PolicySet) -> dict[str, ApplicablePolicy]:
    """Every policy of ``policy_set`` as the API shows it, by id (built once per version)."""
    return {
        policy.id: ApplicablePolicy(
            id=policy.id,
            title=policy.title,
            summary=policy.summary,
            severity=policy.severity,
            enforcement=policy.enforcement,
            citation_ref=policy.citation_ref,
            tags=list(policy.tags),
        )
        for policy in policy_set.policies
    }


def _views_of(policies: Iterable[PolicyDocument], views: PolicyViews) -> list[ApplicablePolicy]:
    return [views[policy.id] for policy in policies]


def binding_event(record: BindingRecord) -> BindingEvent:
    """A stored binding record as the API shows it."""
    return BindingEvent(
        turn_index=record.turn_index, policy_id=record.policy_id, event=record.event, ts=record.ts
    )


def _turn_diff(outcome: TurnOutcome, views: PolicyViews, retired: PolicyViews) -> TurnDiff:
    released = _views_of(outcome.newly_released, views)
    # A policy a new version removed is shown as the version it left described it (when this
    # process served that version; its binding event is there either way).
    released += [retired[pid] for pid in outcome.released_absent if pid in retired]
    return TurnDiff(
        newly_applicable=_views_of(outcome.newly_applicable, views),
        newly_released=released,
        still_active=_views_of(outcome.still_active, views),
        binding_events=[binding_event(r) for r in outcome.events],
    )


def turn_response(
    outcome: TurnOutcome,
    views: PolicyViews,
    *,
    session_id: str,
    post_check: PostInferenceResponse | None,
    trace_id: str,
    retired: PolicyViews = MappingProxyType({}),
) -> TurnResponse:
    """The answer to a recorded turn. ``retired``: the policies earlier versions of the policy
    set had and this one lacks, as those versions showed them, by id."""
    return TurnResponse(
        session_id=session_id,
        turn_index=outcome.turn_index,
        diff=_turn_diff(outcome, views, retired),
        active_policies=_views_of(outcome.active, views),
        injection_block=outcome.state.injection_block,
        token_estimate=outcome.token_estimate,
        post_inference_check=post_check,
        trace_id=trace_id,
    )


def conversation_snapshot(
    *,
    session_id: str,
    turn_count: int,
    active: Iterable[PolicyDocument],
    views: PolicyViews,
    injection_block: str,
    binding_log: Iterable[BindingRecord],
    updated_at: str,
) -> ConversationSnapshot:
    """A conversation's state as ``GET conversation/{sessionId}`` shows it."""
    return ConversationSnapshot(
        session_id=session_id,
        turn_count=turn_count,
        active_policies=_views_of(active, views),
        injection_block=injection_block,
        binding_log=[binding_event(r) for r in binding_log],
        updated_at=updated_at,
    )


def pre_inference_response(
    *,
    session_id: str,
    policies: Iterable[PolicyDocument],
    views: PolicyViews,
    injection_block: str,
    token_estimate: int,
    rationale_required: bool,
    trace_id: str,
) -> PreInferenceResponse:
    """The answer to a (not cached) pre-inference call."""
    return PreInferenceResponse(
        session_id=session_id,
        cache_hit=False,
        applicable_policies=_views_of(policies, views),
        injection_block=injection_block,
        rationale_required=rationale_required,
        token_estimate=token_estimate,
        trace_id=trace_id,
    )


def _violation_fields(finding: Finding) -> dict[str, Any]:
    """The fields every violation shape has."""
    return {
        "policy_id": finding.policy_id,
        "matched_text": finding.matched_text,
        "explanation": finding.explanation,
        "severity": finding.severity,
        "confidence": finding.confidence,
        "enforcement_type": finding.enforcement,
    }


def _capped(findings: Sequence[Finding], limit: int) -> Sequence[Finding]:
    """The findings an answer lists: the first ``limit`` (verdict and risk use them all)."""
    return findings[:limit]


def post_inference_response(
    findings: Sequence[Finding], *, limit: int, redaction: str, trace_id: str
) -> PostInferenceResponse:
    """The verdict on a whole output: ``safe``, risk and citations cover every finding, the
    violations list at most ``limit`` of them."""
    return PostInferenceResponse(
        safe=is_safe(findings),
        risk_score=risk_score(findings),
        violations=[
            OutputViolation(**_violation_fields(f), enforcement_text=f.replacement or "")
            for f in _capped(findings, limit)
        ],
        suggested_redaction=redaction,
        policy_citations=policy_citations(f.policy_id for f in findings),
        trace_id=trace_id,
    )


def stream_check_response(
    findings: Sequence[Finding],
    *,
    limit: int,
    session_id: str,
    watermark: int,
    is_complete: bool,
    trace_id: str,
) -> StreamCheckResponse:
    """The answer to a streaming check: the new findings with their offsets into ``fullText``."""
    return StreamCheckResponse(
        session_id=session_id,
        new_violations=[
            StreamViolation(
                **_violation_fields(f), enforcement_text=f.replacement or "", offset=f.offset or 0
            )
            for f in _capped(findings, limit)
        ],
        watermark=watermark,
        is_complete=is_complete,
        risk_score=risk_score(findings),
        trace_id=trace_id,
    )


def tool_call_decision(outcome: ToolCallOutcome, *, limit: int, trace_id: str) -> ToolCallDecision:
    """The decision on a proposed tool call."""
    return ToolCallDecision(
        allow=outcome.allow,
        risk_score=outcome.risk_score,
        violations=[Violation(**_violation_fields(f)) for f in _capped(outcome.findings, limit)],
        suggested_arguments=outcome.suggested_arguments,
        trace_id=trace_id,
    )
