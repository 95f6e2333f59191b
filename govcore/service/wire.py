"""From the core's plain results to the wire models of the interface (the only place)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from govcore.core.conversation import BindingRecord, TurnOutcome
from govcore.core.verdict import Finding
from govcore.models import (
    ApplicablePolicy,
    BindingEvent,
    OutputViolation,
    StreamViolation,
    TurnDiff,
    Violation,
)
from govcore.policy import PolicyDocument

__all__ = [
    "applicable",
    "binding_event",
    "capped",
    "output_violation",
    "stream_violation",
    "tool_violation",
    "turn_diff",
]


def applicable(policies: Iterable[PolicyDocument]) -> list[ApplicablePolicy]:
    """Policies as the API shows them."""
    return [policy.applicable for policy in policies]


def binding_event(record: BindingRecord) -> BindingEvent:
    """A stored binding record as the API shows it."""
    return BindingEvent(
        turn_index=record.turn_index, policy_id=record.policy_id, event=record.event, ts=record.ts
    )


def turn_diff(outcome: TurnOutcome) -> TurnDiff:
    """What changed at a turn, as the API shows it."""
    return TurnDiff(
        newly_applicable=applicable(outcome.newly_applicable),
        newly_released=applicable(outcome.newly_released),
        still_active=applicable(outcome.still_active),
        binding_events=[binding_event(r) for r in outcome.events],
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


def tool_violation(finding: Finding) -> Violation:
    """A finding of a tool-call check."""
    return Violation(**_violation_fields(finding))


def output_violation(finding: Finding) -> OutputViolation:
    """A finding of an output check, with the text that replaces it in the redaction."""
    return OutputViolation(**_violation_fields(finding), enforcement_text=finding.replacement or "")


def stream_violation(finding: Finding) -> StreamViolation:
    """A finding of a streaming check, with its offset into ``fullText``."""
    return StreamViolation(
        **_violation_fields(finding),
        enforcement_text=finding.replacement or "",
        offset=finding.offset or 0,
    )


def capped(findings: Sequence[Finding], limit: int) -> Sequence[Finding]:
    """The findings an answer reports: the first ``limit`` (verdict and risk use them all)."""
    return findings[:limit]
