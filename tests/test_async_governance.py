"""AsyncGovernance: the behaviour of Governance, awaited on an asynchronous store."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeVar

import pytest

import govcore
from govcore.backends.awaited import AwaitedStore
from govcore.backends.memory import MemoryStore
from govcore.testing import FakeClock
from govcore.types import StoreCommit, StoreWrite
from tests.support import (
    CHECKS_KEY,
    FULL_KEY,
    OTHER_TENANT_KEY,
    READ_KEY,
    SLOW_KEY,
    bearer,
    checks_config,
    config,
    turn,
)

T = TypeVar("T")
PREFIX = "/api/v1/agent/governance"


class AwaitedMemoryStore(AwaitedStore):
    """A MemoryStore behind the AsyncStore methods, each yielding to the loop once, as a store
    waiting for its server would."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(MemoryStore(clock=clock))
        self.calls = 0

    async def _turn(self) -> None:
        self.calls += 1
        await asyncio.sleep(0)

    async def get(self, key: str) -> bytes | None:
        await self._turn()
        return await super().get(key)

    async def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        await self._turn()
        await super().set(key, value, expires_at=expires_at)

    async def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        await self._turn()
        return await super().update(key, mutate)

    async def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        await self._turn()
        return await super().update_many(keys, mutate)

    async def delete(self, key: str) -> None:
        await self._turn()
        await super().delete(key)


def _trace_ids() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"trace-{next(counter):04d}"


REQUESTS: list[tuple[str, str, str | None, Any]] = [
    ("POST", "/conversation/turn", FULL_KEY, turn("s1", "Can I get a refund for my order?")),
    ("POST", "/conversation/turn", FULL_KEY, turn("s1", "and shipping to Canada?")),
    ("POST", "/conversation/turn", FULL_KEY, turn("s2", "refund", idempotencyKey="k-1")),
    ("POST", "/conversation/turn", FULL_KEY, turn("s2", "refund", idempotencyKey="k-1")),
    ("POST", "/conversation/turn", FULL_KEY, turn("s2", "other", idempotencyKey="k-1")),
    ("GET", "/conversation/s1", FULL_KEY, None),
    ("GET", "/conversation/s1", OTHER_TENANT_KEY, None),
    ("GET", "/conversation/nope", READ_KEY, None),
    ("POST", "/pre-inference", FULL_KEY, {"sessionId": "s3", "prompt": "refund please"}),
    ("POST", "/pre-inference", FULL_KEY, {"sessionId": "s3", "prompt": "refund please"}),
    ("POST", "/check-tool-call", FULL_KEY, {"sessionId": "s1", "toolName": "x", "arguments": {}}),
    ("POST", "/post-inference", FULL_KEY, {"sessionId": "s1", "output": "hello"}),
    ("POST", "/post-inference", READ_KEY, {"sessionId": "s1", "output": "hello"}),
    ("POST", "/conversation/turn", None, turn("s1", "no key")),
    ("POST", "/conversation/turn", FULL_KEY, {"sessionId": "s1"}),
    ("DELETE", "/conversation/s1", FULL_KEY, None),
    ("GET", "/conversation/s1", FULL_KEY, None),
    *[("POST", "/conversation/turn", SLOW_KEY, turn("s4", f"turn {n}")) for n in range(5)],
]

CHECK_REQUESTS: list[tuple[str, str, str | None, Any]] = [
    (
        "POST",
        "/check-output/stream",
        CHECKS_KEY,
        {
            "sessionId": "st",
            "fullText": "mail me at jane@example.com " * 12,
            "lastCheckedOffset": 0,
        },
    ),
    (
        "POST",
        "/check-output/finalize",
        CHECKS_KEY,
        {"sessionId": "st", "fullText": "mail me at jane@example.com", "lastCheckedOffset": 0},
    ),
    (
        "POST",
        "/check-tool-call",
        CHECKS_KEY,
        {"sessionId": "st", "toolName": "send", "arguments": {"to": "jane@example.com"}},
    ),
]


def _sync_answers(
    configuration: dict[str, Any], requests: list[tuple[str, str, str | None, Any]]
) -> list[tuple[int, dict[str, str], bytes]]:
    clock = FakeClock(1_800_000_000.0)
    gov = govcore.Governance.from_config(configuration, clock=clock, trace_ids=_trace_ids())
    answers = []
    for method, path, key, body in requests:
        clock.advance(1)
        headers = bearer(key) if key else {}
        answer = gov.handle(method, PREFIX + path, headers, json.dumps(body) if body else None)
        answers.append((answer.status, answer.headers, answer.body))
    gov.close()
    return answers


async def _async_answers(
    configuration: dict[str, Any], requests: list[tuple[str, str, str | None, Any]]
) -> list[tuple[int, dict[str, str], bytes]]:
    clock = FakeClock(1_800_000_000.0)
    async with govcore.AsyncGovernance.from_config(
        configuration, clock=clock, store=AwaitedMemoryStore(clock), trace_ids=_trace_ids()
    ) as gov:
        answers = []
        for method, path, key, body in requests:
            clock.advance(1)
            headers = bearer(key) if key else {}
            answer = await gov.handle(
                method, PREFIX + path, headers, json.dumps(body) if body else None
            )
            answers.append((answer.status, answer.headers, answer.body))
    return answers


@pytest.mark.parametrize(
    ("configuration", "requests", "statuses"),
    [
        (config(), REQUESTS, {200, 204, 400, 401, 403, 404, 429}),
        (checks_config(), CHECK_REQUESTS, {200}),
    ],
    ids=["conversations", "checks"],
)
def test_async_handle_answers_exactly_as_handle(
    configuration: dict[str, Any],
    requests: list[tuple[str, str, str | None, Any]],
    statuses: set[int],
) -> None:
    """Every endpoint and refusal answers byte for byte as the blocking facade does."""
    expected = _sync_answers(configuration, requests)
    got = asyncio.run(_async_answers(configuration, requests))
    assert {status for status, _, _ in expected} == statuses  # the scenario reaches each case
    assert got == expected


def test_async_client_returns_the_same_models_and_raises_the_same_errors() -> None:
    """The async client's methods mirror the typed client's: same models, same exceptions."""

    async def scenario() -> None:
        clock = FakeClock()
        gov = govcore.AsyncGovernance.from_config(
            config(), clock=clock, store=AwaitedMemoryStore(clock)
        )
        client = gov.client(FULL_KEY)
        first = await client.record_turn(turn("a", "refund for my order"))
        second = await client.record_turn(turn("a", "what about shipping?"))
        assert (first.turn_index, second.turn_index) == (1, 2)
        snapshot = await client.get_conversation("a")
        assert snapshot.turn_count == 2
        await client.delete_conversation("a")
        with pytest.raises(govcore.NotFoundError):
            await client.get_conversation("a")
        with pytest.raises(govcore.AuthenticationError):
            await gov.client("gk_unknown_key_0000000").record_turn(turn("a", "x"))
        with pytest.raises(govcore.InvalidRequestError):
            await client.record_turn({"sessionId": "a"})
        explanation = await client.explain_selection("refund for my order", session_id="a")
        assert explanation.candidates
        await gov.aclose()

    asyncio.run(scenario())


class GatedStore(AwaitedMemoryStore):
    """Its reads wait until the test opens the gate."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def get(self, key: str) -> bytes | None:
        self.waiting.set()
        await self.gate.wait()
        return await super().get(key)


def test_a_request_waiting_for_the_store_does_not_block_the_loop() -> None:
    """While one request waits for its store, other coroutines of the loop run."""

    async def scenario() -> None:
        clock = FakeClock()
        store = GatedStore(clock)
        gov = govcore.AsyncGovernance.from_config(config(), clock=clock, store=store)
        pending = asyncio.create_task(gov.client(FULL_KEY).get_conversation("gated"))
        await asyncio.wait_for(store.waiting.wait(), timeout=10)
        assert not pending.done()
        store.gate.set()  # runs only because the loop is free while the request waits
        with pytest.raises(govcore.NotFoundError):
            await asyncio.wait_for(pending, timeout=10)
        await gov.aclose()

    asyncio.run(scenario())


class UnavailableStore(AwaitedMemoryStore):
    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.backend_errors = (ConnectionError,)

    async def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        raise ConnectionError("refused")


class BuggyStore(AwaitedMemoryStore):
    async def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        raise LookupError("a bug in the store")


def test_declared_store_errors_are_503_and_bugs_are_500() -> None:
    """A declared error of an async store is 503 backend_unavailable; handle never raises."""

    async def scenario() -> None:
        clock = FakeClock()
        gov = govcore.AsyncGovernance.from_config(
            config(), clock=clock, store=UnavailableStore(clock)
        )
        answer = await gov.handle("GET", PREFIX + "/conversation/x", bearer(FULL_KEY))
        assert answer.status == 503
        assert answer.json()["error"] == "backend_unavailable"
        with pytest.raises(govcore.BackendError):
            await gov.client(FULL_KEY).get_conversation("x")
        await gov.aclose()
        buggy = govcore.AsyncGovernance.from_config(config(), clock=clock, store=BuggyStore(clock))
        answer = await buggy.handle("GET", PREFIX + "/conversation/x", bearer(FULL_KEY))
        assert answer.status == 500
        assert answer.json() == {"error": "internal_error", "message": "internal error"}
        with pytest.raises(govcore.InternalError) as raised:
            await buggy.client(FULL_KEY).get_conversation("x")
        assert not isinstance(raised.value, govcore.BackendError)
        assert isinstance(raised.value.__cause__, LookupError)
        await buggy.aclose()

    asyncio.run(scenario())


async def _deltas(text: str, size: int) -> AsyncIterator[str]:
    for start in range(0, len(text), size):
        await asyncio.sleep(0)
        yield text[start : start + size]


def test_stream_guard_awrap_with_the_async_client_matches_the_blocking_guard() -> None:
    """A guarded async stream yields what the blocking guard yields (the redacted text, held
    back until checked) and ends with its verdict."""
    text = ("Sure. Write to jane.doe@example.com or call. " * 8) + "Card 4111 1111 1111 1111."

    blocking = govcore.StreamGuard(
        govcore.Governance.from_config(checks_config(), clock=FakeClock()).client(CHECKS_KEY),
        "guarded",
    )
    passed = "".join(blocking.wrap(text[i : i + 7] for i in range(0, len(text), 7)))
    assert passed == blocking.deliverable
    assert "4111" not in passed

    async def scenario() -> tuple[str, govcore.StreamGuard]:
        clock = FakeClock()
        gov = govcore.AsyncGovernance.from_config(
            checks_config(), clock=clock, store=AwaitedMemoryStore(clock)
        )
        guard = govcore.StreamGuard(gov.client(CHECKS_KEY), "guarded")
        seen = [delta async for delta in guard.awrap(_deltas(text, 7))]
        with pytest.raises(TypeError, match="afeed"):
            govcore.StreamGuard(gov.client(CHECKS_KEY), "other").feed("a blocking call")
        await gov.aclose()
        return "".join(seen), guard

    seen, guard = asyncio.run(scenario())
    assert seen == passed
    assert guard.result is not None
    assert blocking.result is not None
    assert not guard.result.safe
    assert guard.result.suggested_redaction == blocking.result.suggested_redaction
    assert [v.model_dump() for v in guard.violations] == [
        v.model_dump() for v in blocking.violations
    ]
