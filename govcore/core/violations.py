"""From matches to findings: which ones are reported, and the redaction (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from govcore.core.verdict import Finding
from govcore.detection.scanner import Hit, Scanner, explain

__all__ = ["findings_of", "policy_citations", "redact", "replace_matches"]

_REDACTION_PASSES = 3


def _unique(hits: Iterable[Hit]) -> list[Hit]:
    """One hit per (policy, span): two rules of a policy on the same text are one violation."""
    best: dict[tuple[str, int, int], Hit] = {}
    for hit in hits:
        key = (hit.rule.policy.id, hit.start, hit.end)
        kept = best.get(key)
        if kept is None or (hit.confidence, -hit.rule.index) > (kept.confidence, -kept.rule.index):
            best[key] = hit
    return sorted(best.values(), key=lambda h: (h.start, h.end, h.rule.policy.id))


def findings_of(text: str, hits: Iterable[Hit]) -> list[Finding]:
    """The findings of an output check, in text order, each with its offset into ``text``.

    Two rules of one policy matching the same span are one finding, the more confident one.
    """
    return [
        Finding(
            policy_id=hit.rule.policy.id,
            matched_text=text[hit.start : hit.end],
            explanation=explain(hit),
            severity=hit.rule.policy.severity,
            confidence=hit.confidence,
            enforcement=hit.rule.policy.enforcement,
            replacement=hit.rule.replacement,
            offset=hit.start,
        )
        for hit in _unique(hits)
    ]


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


def replace_matches(text: str, hits: Sequence[Hit]) -> str:
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
