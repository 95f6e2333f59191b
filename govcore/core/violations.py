"""From matches to violations: the verdict, the redaction and the risk score (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from govcore.detection.scanner import Hit, Scanner, explain
from govcore.models import OutputViolation, StreamViolation

__all__ = [
    "BLOCK_CONFIDENCE",
    "output_violations",
    "policy_citations",
    "redact",
    "risk_score",
    "stream_violations",
    "unsafe",
]

BLOCK_CONFIDENCE = 0.7
"""A ``fix`` violation at or above this confidence blocks a tool call (specification §4.4)."""

_SEVERITY_SCALE = 5.0
_REDACTION_PASSES = 3


def risk_score(violations: Iterable[tuple[float, float]]) -> float:
    """The overall risk of a checked item from its violations' ``(confidence, severity)``.

    Each violation is an independent chance of harm, ``confidence * min(severity / 5, 1)``;
    the risk is the chance that at least one is real: ``1 - prod(1 - p_i)``. It is 0 with no
    violations, grows with every violation, never exceeds 1, and a single certain violation of
    severity 5 or more makes it 1. Rounded to 4 decimals.
    """
    remaining = 1.0
    for confidence, severity in violations:
        weight = min(max(severity, 0.0) / _SEVERITY_SCALE, 1.0)
        remaining *= 1.0 - min(max(confidence, 0.0), 1.0) * weight
    return round(1.0 - remaining, 4)


def unsafe(enforcement: str, confidence: float) -> bool:
    """Whether a violation makes an output unsafe: ``fix`` at >= 0.7 confidence, the rule that
    blocks a tool call. A ``warning`` is reported and allowed, as it is for tool calls."""
    return enforcement == "fix" and confidence >= BLOCK_CONFIDENCE


def _unique(hits: Iterable[Hit]) -> list[Hit]:
    """One hit per (policy, span): two rules of a policy on the same text are one violation."""
    best: dict[tuple[str, int, int], Hit] = {}
    for hit in hits:
        key = (hit.rule.policy.id, hit.start, hit.end)
        kept = best.get(key)
        if kept is None or (hit.confidence, -hit.rule.index) > (kept.confidence, -kept.rule.index):
            best[key] = hit
    return sorted(best.values(), key=lambda h: (h.start, h.end, h.rule.policy.id))


def _fields(text: str, hit: Hit) -> dict[str, Any]:
    return {
        "policy_id": hit.rule.policy.id,
        "matched_text": text[hit.start : hit.end],
        "explanation": explain(hit),
        "severity": hit.rule.policy.severity,
        "confidence": hit.confidence,
        "enforcement_type": hit.rule.policy.enforcement,
        "enforcement_text": hit.rule.replacement,
    }


def output_violations(text: str, hits: Iterable[Hit]) -> list[OutputViolation]:
    """The violations of a post-inference check, in text order."""
    return [OutputViolation(**_fields(text, hit)) for hit in _unique(hits)]


def stream_violations(text: str, hits: Iterable[Hit]) -> list[StreamViolation]:
    """The violations of a streaming check, with their offsets into ``fullText``."""
    return [StreamViolation(**_fields(text, hit), offset=hit.start) for hit in _unique(hits)]


def policy_citations(policy_ids: Iterable[str]) -> list[str]:
    """The ids of the policies with violations, each once, in order of first violation."""
    return list(dict.fromkeys(policy_ids))


def redact(
    text: str,
    hits: Sequence[Hit],
    scanner: Scanner | None = None,
    applicable: frozenset[str] | None = None,
) -> str:
    """Replace every match with its rule's replacement text.

    Overlapping matches are merged into one span, replaced by the replacement of the most
    severe policy among them (ties: the earliest, then the longest match, then the lowest rule
    index). With a scanner, the result is checked again and anything a replacement joined into
    a new match is redacted too (up to three passes), so the redaction never contains a match.
    """
    result, inserted = _replace_spans(text, hits)
    if scanner is None or not hits:
        return result
    for _ in range(_REDACTION_PASSES - 1):
        # A match wholly inside an inserted replacement is the policy author's own wording
        # ("[card number removed]"), not something the output said.
        again = [
            h
            for h in scanner.scan(result, applicable=applicable)
            if not any(lo <= h.start and h.end <= hi for lo, hi in inserted)
        ]
        if not again:
            break
        result, inserted = _replace_spans(result, again)
    return result


def _replace(text: str, hits: Sequence[Hit]) -> str:
    """``text`` with every match replaced (see :func:`redact`)."""
    return _replace_spans(text, hits)[0]


def _replace_spans(text: str, hits: Sequence[Hit]) -> tuple[str, list[tuple[int, int]]]:
    """The replaced text and where in it the replacements were inserted."""
    if not hits:
        return text, []
    ordered = sorted(hits, key=lambda h: (h.start, -h.end, h.rule.index))
    pieces: list[str] = []
    inserted: list[tuple[int, int]] = []
    length = 0
    cursor = 0
    cluster: list[Hit] = []
    cluster_end = -1
    for hit in [*ordered, None]:
        if hit is not None and cluster and hit.start < cluster_end:
            cluster.append(hit)
            cluster_end = max(cluster_end, hit.end)
            continue
        if cluster:
            chosen = min(
                cluster,
                key=lambda h: (-h.rule.policy.severity, h.start, -(h.end - h.start), h.rule.index),
            )
            kept = text[cursor : cluster[0].start]
            pieces.append(kept)
            length += len(kept)
            pieces.append(chosen.rule.replacement)
            inserted.append((length, length + len(chosen.rule.replacement)))
            length += len(chosen.rule.replacement)
            cursor = cluster_end
        if hit is not None:
            cluster = [hit]
            cluster_end = hit.end
    pieces.append(text[cursor:])
    return "".join(pieces), inserted
