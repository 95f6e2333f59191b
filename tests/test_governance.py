"""The facade: backends chosen in the configuration, and its lifecycle."""

from __future__ import annotations

import pytest

import govcore
from govcore.testing import FakeClock
from tests.support import FULL_KEY, config, turn


def _conversations_kept(gov: govcore.Governance, count: int) -> list[int]:
    client = gov.client(FULL_KEY)
    for number in range(count):
        client.record_turn(turn(f"s{number}", "hello"))
    kept = []
    for number in range(count):
        try:
            kept.append(client.get_conversation(f"s{number}").turn_count)
        except govcore.NotFoundError:
            kept.append(0)
    return kept


def test_settings_store_chooses_the_store_and_its_capacity() -> None:
    """`settings.store` is the store used: a memory URL holding one conversation keeps the
    latest only."""
    gov = govcore.Governance.from_config(
        config(store="memory://?conv_entries=1"), clock=FakeClock()
    )
    assert _conversations_kept(gov, 3) == [0, 0, 1]


def test_max_conversations_caps_the_default_memory_store() -> None:
    """`max_conversations` is the conversation limit of a memory store whose URL sets none."""
    gov = govcore.Governance.from_config(config(max_conversations=2), clock=FakeClock())
    assert _conversations_kept(gov, 3) == [0, 1, 1]


def test_an_unknown_store_or_retriever_is_a_config_error() -> None:
    """A store scheme or retriever name nothing declares is refused when the config loads,
    naming the setting, and a password in the URL is never echoed."""
    with pytest.raises(govcore.ConfigError, match=r"settings\.store") as caught:
        govcore.Governance.from_config(config(store="nosuch://user:s3cret@host/0"))
    assert "s3cret" not in str(caught.value)
    with pytest.raises(govcore.ConfigError, match=r"settings\.retriever"):
        govcore.Governance.from_config(config(retriever="nosuch"))


def test_context_manager_closes_the_decision_log() -> None:
    """Leaving `with` flushes the decision log; later records are dropped, not queued."""
    sink = govcore.MemoryDecisionLog()
    cfg = config()
    with govcore.Governance.from_config(cfg, clock=FakeClock(), decision_log=sink) as gov:
        gov.client(FULL_KEY).post_inference({"sessionId": "s", "output": "hello"})
    assert len(sink.decisions()) == 1
