"""The public rules over check results: which violation blocks, and what text a user may see.

Every integration decides the same two things after a check, so govcore states them once:
:func:`blocks` (the rule behind ``allow`` of a tool call and ``safe`` of an output) and
:func:`text_to_deliver` (the output itself when it is safe, else its redaction).
docs/decisions/tool-gating.md says why the redaction of an unsafe output replaces every match,
warning and audit ones included.
"""

from __future__ import annotations

from govcore.core.verdict import BLOCK_CONFIDENCE, blocks_at
from govcore.models import PostInferenceResponse, Violation

__all__ = ["BLOCK_CONFIDENCE", "blocks", "text_to_deliver"]


def blocks(violation: Violation) -> bool:
    """Whether ``violation`` blocks: enforcement ``fix`` at a confidence of at least
    :data:`BLOCK_CONFIDENCE` (0.7).

    The rule of the interface for ``allow`` of a tool call and ``safe`` of an output: a
    ``warning`` or ``audit`` violation, or a ``fix`` one below 0.7, is reported and allowed.

    Args:
        violation: a violation of any check (tool call, post-inference, stream, finalize).

    Returns:
        True when it blocks.
    """
    return blocks_at(violation.enforcement_type, violation.confidence)


def text_to_deliver(output: str, verdict: PostInferenceResponse) -> str:
    """What to show a user of ``output``, given the verdict of a check of exactly that text.

    A safe output is delivered unchanged, even with ``warning`` or ``audit`` violations: they
    are reported for audit and do not alter what the user sees. An unsafe output is replaced by
    its ``suggestedRedaction``, in which every match (warning and audit ones too) is replaced by
    its ``enforcementText``, as the interface defines that field.

    Args:
        output: the text that was checked (``output`` of post-inference, ``fullText`` of a
            finalize).
        verdict: the answer of post-inference or finalize for ``output``.

    Returns:
        ``output`` when ``verdict.safe``, else ``verdict.suggested_redaction``.
    """
    return output if verdict.safe else verdict.suggested_redaction
