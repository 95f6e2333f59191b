"""The injection block: the applicable policies as a prompt section, within a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from govcore._values import integral
from govcore.policy import PolicyDocument
from govcore.types import TokenCounter

__all__ = ["HEADER", "BlockRenderer", "render_injection_block"]

HEADER = (
    "Applicable company policies (follow them; cite the reference in brackets when one shapes "
    "your answer):"
)


BlockRenderer = Callable[[Sequence[PolicyDocument], int, TokenCounter], tuple[str, int]]
"""What renders a block: :func:`render_injection_block`, or a caller's memo of it."""


def full_entry(policy: PolicyDocument) -> str:
    """A policy with its citation, title, severity, enforcement and summary."""
    line = (
        f"- [{policy.citation_ref}] {policy.title} "
        f"(severity {integral(policy.severity)}, {policy.enforcement})"
    )
    summary = " ".join(policy.summary.split())
    return f"{line}: {summary}" if summary else line


def compact_entry(policy: PolicyDocument) -> str:
    """A policy with its citation and title only, for when the full entry does not fit."""
    return f"- [{policy.citation_ref}] {policy.title}"


def render_injection_block(
    policies: Sequence[PolicyDocument], token_budget: int, count_tokens: TokenCounter
) -> tuple[str, int]:
    """Render ``policies`` (already in priority order) as a prompt block within the budget.

    Walking the policies in order, each goes in with its summary if that fits, else as its
    citation and title, else not at all; a last line counts the ones left out. The whole block
    is measured at the end and trimmed from the tail until it fits, so the result holds for any
    token counter.

    Returns:
        ``(block, token_estimate)``, with ``token_estimate <= token_budget``; ``("", 0)`` when
        there are no policies or not even the header fits.
    """
    if not policies:
        return "", 0
    lines = [HEADER]
    used = count_tokens(HEADER)
    included = 0
    for policy in policies:
        for entry in (full_entry(policy), compact_entry(policy)):
            cost = count_tokens(entry) + 1  # the newline
            if used + cost <= token_budget:
                lines.append(entry)
                used += cost
                included += 1
                break
    while True:
        omitted = len(policies) - included
        block_lines = list(lines)
        if omitted:
            noun = "policy" if omitted == 1 else "policies"
            note = f"({omitted} more applicable {noun} left out for length.)"
            if count_tokens("\n".join([*lines, note])) <= token_budget:
                block_lines.append(note)
        block = "\n".join(block_lines)
        estimate = count_tokens(block)
        if estimate <= token_budget and included > 0:
            return block, estimate
        if included == 0:
            return "", 0
        lines.pop()
        included -= 1
