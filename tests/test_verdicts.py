"""The public rules over check results: govcore.blocks and govcore.text_to_deliver."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.verdict import Finding
from govcore.core.verdict import blocks as core_blocks
from tests.tool_gate_support import CARD, GATE_KEY, gate_governance


def _violation(enforcement: str, confidence: float) -> govcore.Violation:
    return govcore.Violation(
        policy_id="p",
        matched_text="x",
        explanation="why",
        severity=3,
        confidence=confidence,
        enforcement_type=enforcement,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("enforcement", "confidence", "expected"),
    [
        ("fix", 0.7, True),
        ("fix", 1.0, True),
        ("fix", 0.69, False),
        ("warning", 1.0, False),
        ("audit", 1.0, False),
    ],
)
def test_only_a_fix_violation_at_the_threshold_or_above_blocks(
    enforcement: str, confidence: float, expected: bool
) -> None:
    """fix at >= BLOCK_CONFIDENCE (0.7) blocks; warning, audit and a less sure fix do not."""
    assert govcore.BLOCK_CONFIDENCE == 0.7
    assert govcore.blocks(_violation(enforcement, confidence)) is expected


@given(
    st.sampled_from(["fix", "warning", "audit"]),
    st.floats(min_value=0, max_value=1),
)
def test_the_public_rule_is_the_cores(enforcement: str, confidence: float) -> None:
    """A wire violation and a core finding with the same enforcement and confidence are decided
    alike."""
    finding = Finding("p", "x", "why", 3, confidence, enforcement)  # type: ignore[arg-type]
    assert govcore.blocks(_violation(enforcement, confidence)) == core_blocks(finding)


OUTPUTS = st.lists(
    st.sampled_from(
        ["We guarantee it.", f"Card {CARD}.", "project falcon", "maybe secret", "Hello."]
    ),
    max_size=4,
).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(OUTPUTS)
def test_safe_is_no_violation_blocks_and_the_delivered_text_has_no_blocking_match(
    output: str,
) -> None:
    """For any output: safe exactly when no violation blocks; a safe output is delivered as
    it is, an unsafe one as a text that checks safe."""
    client = gate_governance().client(GATE_KEY)
    verdict = client.post_inference({"sessionId": "s", "output": output})
    assert verdict.safe == (not any(govcore.blocks(v) for v in verdict.violations))
    delivered = govcore.text_to_deliver(output, verdict)
    if verdict.safe:
        assert delivered == output
    else:
        assert CARD not in delivered
        assert client.post_inference({"sessionId": "s", "output": delivered}).safe


def test_a_warning_only_output_keeps_its_text() -> None:
    """A warning (and an audit) violation leaves the output safe and delivered unchanged,
    although the suggested redaction replaces its match."""
    client = gate_governance().client(GATE_KEY)
    output = "We guarantee delivery for project falcon."
    verdict = client.post_inference({"sessionId": "s", "output": output})
    assert verdict.safe
    assert {v.enforcement_type for v in verdict.violations} == {"warning", "audit"}
    assert verdict.suggested_redaction != output
    assert govcore.text_to_deliver(output, verdict) == output


def test_a_fix_violation_below_the_threshold_keeps_the_text() -> None:
    """A fix match at confidence 0.69 is reported; the output stays safe and unchanged."""
    client = gate_governance().client(GATE_KEY)
    output = "This is maybe secret."
    verdict = client.post_inference({"sessionId": "s", "output": output})
    assert verdict.safe
    assert verdict.violations
    assert govcore.text_to_deliver(output, verdict) == output


def test_an_unsafe_output_is_delivered_as_the_whole_suggested_redaction() -> None:
    """Once something blocks, every match is replaced, the warning's too: the delivered text is
    the interface's suggestedRedaction."""
    client = gate_governance().client(GATE_KEY)
    output = f"We guarantee it. Card {CARD}."
    verdict = client.post_inference({"sessionId": "s", "output": output})
    assert not verdict.safe
    assert govcore.text_to_deliver(output, verdict) == (
        "We [promise removed] it. Card [card removed]."
    )


def test_a_finalized_stream_is_delivered_by_the_same_rule() -> None:
    """finalize_output answers the post-inference shape; the rule applies to fullText."""
    client = gate_governance().client(GATE_KEY)
    text = f"Card {CARD} and a guarantee."
    verdict = client.finalize_output({"sessionId": "s", "fullText": text, "isFinal": True})
    assert govcore.text_to_deliver(text, verdict) == (
        "Card [card removed] and a [promise removed]."
    )
