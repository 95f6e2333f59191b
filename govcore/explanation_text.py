"""A selection explanation as text: what ``govcore explain`` prints, and what ``govcore test``
shows under a failing selection case (one writer, so the two never drift apart)."""

from __future__ import annotations

from collections.abc import Collection

from govcore.core.selection import REASONS, SelectionExplanation

__all__ = ["SHOWN", "explanation_lines"]

SHOWN = 10
"""Policies listed besides the selected ones unless every policy is asked for."""


def explanation_lines(
    explanation: SelectionExplanation,
    *,
    show_all: bool = False,
    also: Collection[str] = (),
    more_hint: str = "--all lists them",
) -> list[str]:
    """The lines of ``explanation``: floor and thresholds, the selected ids, then a table of the
    selected policies and the best :data:`SHOWN` others, each with its score and reason.

    Args:
        explanation: what :meth:`govcore.GovernanceClient.explain_selection` answered.
        show_all: list every policy of the tenant.
        also: ids listed whatever their rank (the policies a failing test names, which may
            score too low to be among the best).
        more_hint: how the reader lists the policies left out (the command's own option).
    """
    thresholds = ", ".join(f"{name} {value:g}" for name, value in explanation.thresholds.items())
    lines = [
        f"floor {explanation.floor:.3f} ({thresholds or 'no thresholds reported'}); "
        f"top-K {explanation.top_k}",
        f"selected: {', '.join(explanation.selected) or '-'}",
    ]
    shown = SHOWN + len(explanation.selected)
    rows = [
        c
        for rank, c in enumerate(explanation.candidates)
        if show_all or c.selected or rank < shown or c.policy_id in also
    ]
    lines += ["", f"{'policy':<28}{'score':>7}{'lexical':>9}{'semantic':>10}  reason"]
    for c in rows:
        lexical = "-" if c.lexical is None else f"{c.lexical:.3f}"
        semantic = "-" if c.semantic is None else f"{c.semantic:.3f}"
        lines.append(
            f"{c.policy_id[:27]:<28}{c.score:>7.3f}{lexical:>9}{semantic:>10}  {REASONS[c.reason]}"
        )
        if c.example is not None:
            lines.append(f"{'':<28}  closest example: {c.example!r}")
        if c.terms:
            terms = ", ".join(f"{term} {share:.3f}" for term, share in c.terms[:6])
            lines.append(f"{'':<28}  terms: {terms}")
    hidden = len(explanation.candidates) - len(rows)
    if hidden:
        lines += ["", f"({hidden} more policies score lower; {more_hint})"]
    return lines
