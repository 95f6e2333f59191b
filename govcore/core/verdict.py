"""The one verdict rule and the risk score, over findings of any check (pure).

A *finding* is a violation as the core knows it: plain data, before the service shapes it into
the wire model of an endpoint (an output violation, a streaming violation with its offset, a
tool-call violation).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from govcore.policy import Enforcement

__all__ = ["BLOCK_CONFIDENCE", "Finding", "blocks", "blocks_at", "is_safe", "risk_score"]

BLOCK_CONFIDENCE = 0.7
"""A ``fix`` finding at or above this confidence blocks: the tool call is refused and the output
is unsafe."""

_SEVERITY_SCALE = 5.0


@dataclass(frozen=True, slots=True)
class Finding:
    """One violation found by a check.

    Attributes:
        policy_id: the policy whose rule matched.
        matched_text: what matched (for a tool rule, the offending value or tool name).
        explanation: why it is a violation.
        severity: the policy's severity.
        confidence: how sure the rule is.
        enforcement: the policy's enforcement (``fix``, ``warning`` or ``audit``).
        replacement: the text that replaces the match in a redaction (output checks only).
        offset: where the match starts in the checked text (output checks only).
    """

    policy_id: str
    matched_text: str
    explanation: str
    severity: float
    confidence: float
    enforcement: Enforcement
    replacement: str | None = None
    offset: int | None = None


def blocks_at(enforcement: str, confidence: float) -> bool:
    """The blocking rule itself: ``fix`` at >= :data:`BLOCK_CONFIDENCE`.

    A ``warning`` or ``audit`` violation is reported and allowed, whatever its confidence. Both
    a core :class:`Finding` and a wire violation (``govcore.blocks``) are decided here, so the
    two can never disagree.
    """
    return enforcement == "fix" and confidence >= BLOCK_CONFIDENCE


def blocks(finding: Finding) -> bool:
    """Whether ``finding`` blocks (:func:`blocks_at` of its enforcement and confidence)."""
    return blocks_at(finding.enforcement, finding.confidence)


def is_safe(findings: Iterable[Finding]) -> bool:
    """The verdict of a check: safe (an output) or allowed (a tool call) when nothing blocks."""
    return not any(blocks(finding) for finding in findings)


def risk_score(findings: Iterable[Finding]) -> float:
    """The overall risk of a checked item.

    Each finding is an independent chance of harm, ``confidence * min(severity / 5, 1)``; the
    risk is the chance that at least one is real: ``1 - prod(1 - p_i)``. It is 0 with no
    findings, grows with every finding, never exceeds 1, and a single certain finding of
    severity 5 or more makes it 1. Rounded to 4 decimals.
    """
    remaining = 1.0
    for finding in findings:
        weight = min(max(finding.severity, 0.0) / _SEVERITY_SCALE, 1.0)
        remaining *= 1.0 - min(max(finding.confidence, 0.0), 1.0) * weight
    return round(1.0 - remaining, 4)
