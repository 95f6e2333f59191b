"""The conversation state machine's binding log: trimmed by count and by bytes."""

from __future__ import annotations

from govcore.core.conversation import (
    BindingLog,
    BindingRecord,
    ConversationRules,
    advance_conversation,
)
from govcore.core.tokens import estimate_tokens
from govcore.policy import PolicySet
from tests.support import policy


def _records(count: int, policy_id: str = "p") -> list[BindingRecord]:
    return [
        BindingRecord(turn, policy_id, "binding_started", "2026-01-01T00:00:00.000Z")
        for turn in range(1, count + 1)
    ]


def test_log_keeps_the_latest_events_up_to_the_limit() -> None:
    """Past its limit the log drops its oldest events and keeps the latest ones."""
    log = BindingLog().appended(_records(30), limit=10)
    assert len(log) == 10
    assert [r.turn_index for r in log.records()] == list(range(21, 31))
    log = log.appended(_records(3), limit=10)
    assert [r.turn_index for r in log.records()][-3:] == [1, 2, 3]
    assert len(log.records()) == 10


def test_log_keeps_within_its_byte_budget() -> None:
    """Long policy ids cannot grow the log past its byte budget; the latest events stay."""
    log = BindingLog().appended(_records(200, "x" * 256), limit=500, max_bytes=4096)
    assert len(log.raw) <= 4096
    assert len(log) == len(log.records()) >= 1
    assert log.records()[-1].turn_index == 200


def test_a_churning_conversation_keeps_its_state_bounded() -> None:
    """Over many turns of policies that start and stop, the stored state stays within the log
    budget plus the active bindings and the block."""
    policies = PolicySet.from_documents(
        "t", [policy(f"{i:03d}" + "x" * 250, summary="s") for i in range(20)]
    )
    rules = ConversationRules(release_after_unselected_turns=1, binding_log_limit=500)
    state = None
    for turn in range(300):
        chosen = policies.policies[turn % 20].id
        outcome = advance_conversation(
            state,
            policy_set=policies,
            selected={chosen: 0.5},
            attributes=None,
            prior_turns=0,
            now=1_700_000_000.0 + turn,
            token_budget=600,
            count_tokens=estimate_tokens,
            rules=rules,
        )
        state = outcome.state
    assert state is not None
    assert len(state.binding_log.raw) <= rules.binding_log_max_bytes
    # one active binding (~270 bytes), a block of at most 600 tokens (~2,400 bytes here)
    assert len(state.to_bytes()) <= rules.binding_log_max_bytes + 4096
