"""Capacity: one kind of traffic never evicts another kind's records, evictions are told, and
a conversation's stored state stays within a bound however long it runs."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Sequence
from typing import Any

import pytest

import govcore
from govcore.backends.memory import MemoryStore, NamespaceCapacity
from govcore.policy import PolicyDocument
from govcore.service.store_keys import conversation_key
from govcore.testing import FakeClock
from govcore.types import RetrievalHit, RetrievalIndex
from tests.support import FULL_KEY, OTHER_TENANT_KEY, config, turn

START = 1_800_000_000.0
KIB = 1024


def _unlimited_config(**settings: Any) -> dict[str, Any]:
    return config(default_rate_limit_per_minute=1_000_000, **settings)


# --- namespaces do not evict each other --------------------------------------------------------


def test_a_pre_inference_flood_does_not_evict_another_tenants_conversation() -> None:
    """2,000 distinct pre-inference calls of one tenant through a small ``pre`` budget evict
    only cached answers: another tenant's live conversation continues at turn 2."""
    clock = FakeClock(START)
    pre_budget = NamespaceCapacity(max_bytes=64 * KIB, max_entries=50)
    store = MemoryStore(clock=clock, capacities={"pre": pre_budget})
    gov = govcore.Governance.from_config(_unlimited_config(), clock=clock, store=store)
    other = gov.client(OTHER_TENANT_KEY)
    flooder = gov.client(FULL_KEY)
    assert other.record_turn(turn("live", "can I get a refund?")).turn_index == 1
    assert flooder.record_turn(turn("own", "can I get a refund?")).turn_index == 1

    for i in range(2000):
        answer = flooder.pre_inference({"sessionId": f"p{i}", "prompt": f"refund for order {i}"})
        assert not answer.cache_hit

    entries, used = store.usage()["pre"]
    assert entries <= pre_budget.max_entries
    assert used <= pre_budget.max_bytes
    assert store.evictions["pre"] >= 2000 - pre_budget.max_entries
    assert store.evictions["conv"] == 0
    assert other.record_turn(turn("live", "and shipping?")).turn_index == 2
    assert flooder.record_turn(turn("own", "and shipping?")).turn_index == 2


def test_a_conversation_evicted_for_capacity_is_logged_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """When the ``conv`` namespace is full, the least recently used conversation goes, with a
    warning naming its key on ``govcore.store`` and a count in ``evictions``."""
    clock = FakeClock(START)
    store = MemoryStore(
        clock=clock, capacities={"conv": NamespaceCapacity(max_bytes=64 * KIB * KIB, max_entries=2)}
    )
    gov = govcore.Governance.from_config(_unlimited_config(), clock=clock, store=store)
    client = gov.client(FULL_KEY)
    with caplog.at_level(logging.WARNING, logger="govcore.store"):
        for session_id in ("first", "second", "third"):
            client.record_turn(turn(session_id, "hello"))
    assert store.evictions["conv"] == 1
    warnings = [r for r in caplog.records if r.name == "govcore.store"]
    assert len(warnings) == 1
    assert warnings[0].levelno == logging.WARNING
    assert conversation_key("acme", "first") in warnings[0].getMessage()
    assert "capacity" in warnings[0].getMessage()
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("first")
    assert client.get_conversation("second").turn_count == 1
    assert client.record_turn(turn("third", "again")).turn_index == 2


def test_the_default_store_logs_a_conversation_evicted_by_max_conversations(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With the default store, ``max_conversations`` bounds the conversations and the one
    pushed out is logged as a warning on ``govcore.store``."""
    gov = govcore.Governance.from_config(
        _unlimited_config(max_conversations=2), clock=FakeClock(START)
    )
    client = gov.client(FULL_KEY)
    with caplog.at_level(logging.WARNING, logger="govcore.store"):
        for session_id in ("first", "second", "third"):
            client.record_turn(turn(session_id, "hello"))
    messages = [r.getMessage() for r in caplog.records if r.name == "govcore.store"]
    assert len(messages) == 1
    assert conversation_key("acme", "first") in messages[0]
    assert client.record_turn(turn("first", "back again")).turn_index == 1


# --- the stored state of one conversation is bounded -------------------------------------------

ACTIVE_PER_TURN = 3
TOKEN_BUDGET = 600
LOG_MAX_BYTES = 16 * KIB


def _long_ids(character: str, count: int) -> list[str]:
    """``count`` distinct policy ids of 256 characters."""
    return [f"{i:04d}" + character * 252 for i in range(count)]


class ChurningRetriever:
    """Selects ``ACTIVE_PER_TURN`` policies at each search, never the ones of the search before,
    so with release after one unselected turn every turn starts and releases policies."""

    def index(self, policies: Sequence[PolicyDocument]) -> RetrievalIndex:
        return _ChurningIndex(len(policies))


class _ChurningIndex:
    def __init__(self, size: int) -> None:
        self._size = size
        self._searches = itertools.count()

    def search(
        self,
        query: str,
        *,
        top_k: int,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> list[RetrievalHit]:
        turn_number = next(self._searches)
        first = (turn_number * ACTIVE_PER_TURN) % self._size
        positions = [(first + k) % self._size for k in range(ACTIVE_PER_TURN)]
        return [RetrievalHit(p, 1.0 - 0.1 * k) for k, p in enumerate(positions)][:top_k]


def _churn_config(ids: Sequence[str], binding_log_limit: int) -> dict[str, Any]:
    policies = [
        {
            "id": pid,
            "title": f"Policy number {n} with a title of ordinary length",
            "summary": "A summary long enough that the injection block fills its budget. " * 3,
            "severity": 3,
            "enforcement": "warning",
            "citationRef": f"REF-{n}",
        }
        for n, pid in enumerate(ids)
    ]
    return {
        "settings": {
            "default_rate_limit_per_minute": 1_000_000,
            "release_after_unselected_turns": 1,
            "retrieval_top_k": ACTIVE_PER_TURN,
            "binding_log_limit": binding_log_limit,
        },
        "tenants": {"acme": {"policies": policies}},
        "keys": [{"key": FULL_KEY, "tenant": "acme"}],
    }


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


@pytest.mark.parametrize("binding_log_limit", [10, 500])
@pytest.mark.parametrize("id_character", ["x", "\U0001f600"], ids=["ascii", "four-byte"])
def test_a_long_churning_conversation_stays_within_the_state_bound(
    binding_log_limit: int, id_character: str
) -> None:
    """2,000 turns with policy ids of 256 characters, three policies started and three released
    at every turn, keep one conversation's stored bytes within the bound.

    The stored value is a JSON header line, a newline, then the binding log. The bound:

    - binding log: at most ``binding_log_limit`` events and at most 16 KiB (16,384 bytes);
    - header: ``{"v":2,"turns":T,"active":[...],"block":B,"updated":U,"events":E}`` — at most
      200 bytes of keys, punctuation and numbers (T, E and U print in under 30 characters
      each), plus per active policy its id as JSON (at most 6 bytes a character, here 258
      bytes for ASCII ids and 1,026 for ids of four-byte characters) and two turn numbers with
      brackets and commas (under 30 bytes), for at most ``retrieval_top_k`` (3) policies, since
      a policy not selected at a turn is released at once here; plus the injection block as
      JSON, at most 2 bytes per byte of the block, whose estimate keeps it within the token
      budget at 4 bytes a token: 2 x 4 x 600 + 2 = 4,802 bytes;
    - the newline: 1 byte.

    So: 16,384 + 1 + 200 + 3 x (id bytes + 30) + 4,802, about 22.2 KiB for ASCII ids and 24.5
    KiB for four-byte ones.
    """
    clock = FakeClock(START)
    store = MemoryStore(clock=clock)
    ids = _long_ids(id_character, 12)
    gov = govcore.Governance.from_config(
        _churn_config(ids, binding_log_limit),
        clock=clock,
        store=store,
        retriever=ChurningRetriever(),
    )
    client = gov.client(FULL_KEY)
    key = conversation_key("acme", "long")
    id_bytes = max(_json_bytes(pid) for pid in ids)
    bound = LOG_MAX_BYTES + 1 + 200 + ACTIVE_PER_TURN * (id_bytes + 30) + 2 * 4 * TOKEN_BUDGET + 2
    largest = 0
    for n in range(1, 2001):
        response = client.record_turn(turn("long", f"turn {n}"))
        assert response.turn_index == n
        if n > 1:
            assert len(response.diff.newly_applicable) == ACTIVE_PER_TURN
            assert len(response.diff.newly_released) == ACTIVE_PER_TURN
        clock.advance(1)
        raw = store.get(key)
        assert raw is not None
        largest = max(largest, len(raw))
        assert len(raw) <= bound, n

    head, _, log = raw.partition(b"\n")
    assert len(log) <= LOG_MAX_BYTES
    assert log.count(b"\n") <= binding_log_limit
    assert _json_bytes(response.injection_block) <= 2 * 4 * TOKEN_BUDGET + 2
    snapshot = client.get_conversation("long")
    assert snapshot.turn_count == 2000
    assert 0 < len(snapshot.binding_log) <= binding_log_limit
    assert snapshot.binding_log[-1].turn_index == 2000  # the latest events are the ones kept
    assert len(head) <= bound - LOG_MAX_BYTES - 1
    assert largest <= bound
