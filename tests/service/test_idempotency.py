"""Exactly-once turns under store faults, lost replies and concurrent workers.

A turn and its idempotency record commit in one atomic store update, so a caller who retries
an ``idempotencyKey`` until it gets a 200 records exactly one turn, whichever store call failed
and whether the failure came before or after the write.
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.testing import FakeClock
from govcore.types import StoreCommit, StoreWrite
from tests.support import FULL_KEY, bearer, config, turn

T = TypeVar("T")
TURN_PATH = "/api/v1/agent/governance/conversation/turn"
MAX_ATTEMPTS = 200


class FlakyError(Exception):
    """The flaky backend's "unavailable"."""


class FlakyStore:
    """A :class:`MemoryStore` whose calls fail about one in three times, seeded.

    Half the failures come before the call reaches the store (nothing happened), half after it
    (the store did the work, but the reply was lost).
    """

    backend_errors: tuple[type[BaseException], ...] = (FlakyError,)

    def __init__(self, inner: MemoryStore, seed: int) -> None:
        self.inner = inner
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self.failures: Counter[tuple[str, str]] = Counter()

    def _call(self, name: str, operation: Callable[[], T]) -> T:
        with self._lock:
            roll = self._random.random()
        if roll < 1 / 6:
            self.failures[(name, "before")] += 1
            raise FlakyError(f"{name}: connection refused")
        result = operation()
        if roll < 1 / 3:
            self.failures[(name, "after")] += 1
            raise FlakyError(f"{name}: connection reset after the command was sent")
        return result

    def get(self, key: str) -> bytes | None:
        return self._call("get", lambda: self.inner.get(key))

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self._call("set", lambda: self.inner.set(key, value, expires_at=expires_at))

    def delete(self, key: str) -> None:
        self._call("delete", lambda: self.inner.delete(key))

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        return self._call("update", lambda: self.inner.update(key, mutate))

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        return self._call("update_many", lambda: self.inner.update_many(keys, mutate))


def _config() -> dict[str, Any]:
    return config(default_rate_limit_per_minute=1_000_000)


def _until_200(gov: govcore.Governance, body: str) -> tuple[bytes, int]:
    """POST the turn until it is answered 200: its body and how many 503s came first."""
    for attempt in range(MAX_ATTEMPTS):
        response = gov.handle("POST", TURN_PATH, bearer(FULL_KEY), body)
        if response.status == 200:
            return response.body, attempt
        assert response.status == 503, response.body
        assert response.json()["error"] == "backend_unavailable"
    raise AssertionError(f"no 200 in {MAX_ATTEMPTS} attempts")


def _turn_count(gov: govcore.Governance, session_id: str) -> int:
    snapshot = gov.client(FULL_KEY).get_conversation(session_id)
    return snapshot.turn_count


def test_retried_keys_record_exactly_one_turn_under_faults() -> None:
    """60 idempotency keys retried through a flaky store until 200 each record one turn, and
    every replay is byte-identical to the first 200."""
    clock = FakeClock(1_800_000_000.0)
    memory = MemoryStore(clock=clock)
    flaky = FlakyStore(memory, seed=20240611)
    gov = govcore.Governance.from_config(_config(), clock=clock, store=flaky)
    steady = govcore.Governance.from_config(_config(), clock=clock, store=memory)

    first_bodies: dict[int, bytes] = {}
    retried = 0
    for i in range(60):
        body = json.dumps(turn(f"session-{i}", "I want a refund please", idempotencyKey=f"k-{i}"))
        first_bodies[i], failures = _until_200(gov, body)
        retried += failures > 0
        for _ in range(3):
            replay, _ = _until_200(gov, body)
            assert replay == first_bodies[i], i

    for i, first in first_bodies.items():
        assert json.loads(first)["turnIndex"] == 1, i
        assert _turn_count(steady, f"session-{i}") == 1, i
    # The run exercised what it claims to: both kinds of failure, and lost commit replies.
    assert retried > 10
    assert flaky.failures[("update_many", "after")] > 0
    assert flaky.failures[("update_many", "before")] > 0
    assert flaky.failures[("get", "after")] > 0
    assert flaky.failures[("update", "before")] > 0


def test_flaky_reads_through_the_typed_client_raise_backend_error() -> None:
    """The typed client reads a conversation through a flaky store by retrying BackendError."""
    clock = FakeClock(1_800_000_000.0)
    flaky = FlakyStore(MemoryStore(clock=clock), seed=7)
    gov = govcore.Governance.from_config(_config(), clock=clock, store=flaky)
    _until_200(gov, json.dumps(turn("typed", "refund", idempotencyKey="typed-1")))
    causes: list[BaseException | None] = []
    counts: list[int] = []
    for _ in range(MAX_ATTEMPTS):
        try:
            counts.append(_turn_count(gov, "typed"))
        except govcore.BackendError as exc:
            causes.append(exc.__cause__)
        if causes and counts:
            break
    assert causes
    assert all(isinstance(cause, FlakyError) for cause in causes)
    assert counts
    assert set(counts) == {1}


@pytest.mark.parametrize("round_", range(10))
def test_two_workers_sharing_a_store_record_one_turn_for_concurrent_requests(
    round_: int,
) -> None:
    """Eight threads sending one idempotency key through two Governance objects sharing one
    store record exactly one turn and all get the same bytes."""
    clock = FakeClock(1_800_000_000.0)
    shared = MemoryStore(clock=clock)
    workers = [
        govcore.Governance.from_config(_config(), clock=clock, store=shared) for _ in range(2)
    ]
    body = json.dumps(turn("race", "refund for my card payment", idempotencyKey=f"race-{round_}"))
    barrier = threading.Barrier(8)
    answers: list[govcore.HttpResponse | None] = [None] * 8

    def send(index: int) -> None:
        barrier.wait()
        answers[index] = workers[index % 2].handle("POST", TURN_PATH, bearer(FULL_KEY), body)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    bodies = set()
    for answer in answers:
        assert answer is not None
        assert answer.status == 200, answer.body
        bodies.add(answer.body)
    assert len(bodies) == 1
    assert json.loads(bodies.pop())["turnIndex"] == 1
    assert _turn_count(workers[0], "race") == 1
    assert _turn_count(workers[1], "race") == 1


def test_same_key_with_another_body_is_400_naming_idempotency_key() -> None:
    """Reusing an idempotencyKey with a different request is refused, naming the field."""
    clock = FakeClock(1_800_000_000.0)
    gov = govcore.Governance.from_config(_config(), clock=clock)
    first = gov.handle(
        "POST", TURN_PATH, bearer(FULL_KEY), json.dumps(turn("s", "refund", idempotencyKey="k"))
    )
    assert first.status == 200
    other = gov.handle(
        "POST",
        TURN_PATH,
        bearer(FULL_KEY),
        json.dumps(turn("s", "something else entirely", idempotencyKey="k")),
    )
    assert other.status == 400
    error = other.json()
    assert error["error"] == "invalid_request"
    assert "idempotencyKey" in error["message"]
    assert [d["field"] for d in error["details"]] == ["idempotencyKey"]
    with pytest.raises(govcore.InvalidRequestError) as raised:
        gov.client(FULL_KEY).record_turn(turn("s", "yet another", idempotencyKey="k"))
    assert [d.field for d in raised.value.details] == ["idempotencyKey"]
    assert _turn_count(gov, "s") == 1
