"""Work run in other processes (multiprocessing, spawn) by tests/backends/test_redis.py.

Each process builds one :class:`govcore.Governance` per store URL, as separate deployments of
the same configuration sharing a Redis server would.
"""

from __future__ import annotations

import govcore
from tests.support import FULL_KEY, SLOW_KEY, config, turn

_GOVERNANCES: dict[str, govcore.Governance] = {}


def governance(url: str) -> govcore.Governance:
    """This process's governance on the store at ``url``."""
    found = _GOVERNANCES.get(url)
    if found is None:
        found = _GOVERNANCES[url] = govcore.Governance.from_config(
            config(store=url, default_rate_limit_per_minute=1_000_000)
        )
    return found


def warm(url: str) -> None:
    """Build the governance (indexes, connections) before the timed work starts."""
    governance(url).client(FULL_KEY).get_conversation  # noqa: B018 - only builds it


def record_turns(url: str, session_id: str, count: int) -> list[int]:
    """Record ``count`` turns of one conversation; the turn indexes answered."""
    client = governance(url).client(FULL_KEY)
    return [
        client.record_turn(turn(session_id, f"where is my parcel {i}")).turn_index
        for i in range(count)
    ]


def record_once(url: str, session_id: str, idempotency_key: str) -> int:
    """One turn with an ``idempotencyKey``; its turn index."""
    client = governance(url).client(FULL_KEY)
    body = turn(session_id, "can I get a refund", idempotencyKey=idempotency_key)
    return client.record_turn(body).turn_index


def admitted_calls(url: str, session_id: str, attempts: int) -> int:
    """How many of ``attempts`` turns with the rate-limited key (3 a minute) were admitted."""
    client = governance(url).client(SLOW_KEY)
    admitted = 0
    for i in range(attempts):
        try:
            client.record_turn(turn(f"{session_id}-{i}", "hello"))
        except govcore.RateLimitedError:
            continue
        admitted += 1
    return admitted
