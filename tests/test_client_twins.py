"""One client for blocking and asyncio code: ``GovernanceClient.aio`` and
``AsyncGovernanceClient.blocking`` act with the same key over one state (the memory store and its
asyncio twin; Redis through a store of the other kind on the same URL)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest

import govcore
from govcore.testing import FakeClock
from govcore.types import StoreCommit, StoreWrite
from tests.support import FULL_KEY, config, turn

T = TypeVar("T")


def test_the_aio_twin_of_a_blocking_client_shares_its_state() -> None:
    """What the blocking client records, its ``aio`` twin reads, and the other way round; the
    twin is made once and pairs back to the same client."""
    gov = govcore.Governance.from_config(config(), clock=FakeClock())
    client = gov.client(FULL_KEY)
    assert client.aio is client.aio
    assert client.aio.blocking is client
    client.record_turn(turn("s", "Can I get a refund?"))

    async def scenario() -> int:
        await client.aio.record_turn(turn("s", "thanks", role="assistant"))
        return (await client.aio.get_conversation("s")).turn_count

    assert asyncio.run(scenario()) == 2
    assert client.get_conversation("s").turn_count == 2


def test_the_blocking_twin_of_an_async_client_shares_its_state() -> None:
    """An AsyncGovernance on its default memory store serves a framework's synchronous path
    through ``blocking``, over the same conversations."""

    async def scenario() -> tuple[int, int]:
        async with govcore.AsyncGovernance.from_config(config(), clock=FakeClock()) as agov:
            client = agov.client(FULL_KEY)
            assert client.blocking is client.blocking
            assert client.blocking.aio is client
            await client.record_turn(turn("s", "hello"))
            blocking = client.blocking.record_turn(turn("s", "and a refund?"))
            seen = await client.get_conversation("s")
            return blocking.turn_index, seen.turn_count

    assert asyncio.run(scenario()) == (2, 2)


def test_the_exported_asyncio_memory_store_shares_a_blocking_one() -> None:
    """``govcore.AsyncMemoryStore(store)`` serves an AsyncGovernance from the very entries a
    Governance on ``store`` uses."""
    clock = FakeClock()
    shared = govcore.MemoryStore(clock=clock)
    gov = govcore.Governance.from_config(config(), clock=clock, store=shared)
    gov.client(FULL_KEY).record_turn(turn("s", "hello"))

    async def scenario() -> int:
        agov = govcore.AsyncGovernance.from_config(
            config(), clock=clock, store=govcore.AsyncMemoryStore(shared)
        )
        count = (await agov.client(FULL_KEY).get_conversation("s")).turn_count
        await agov.aclose()
        return count

    assert asyncio.run(scenario()) == 1
    assert shared.async_twin().blocking_twin() is shared


class PlainStore:
    """A store of a third party with no twin of the other kind."""

    backend_errors: tuple[type[BaseException], ...] = ()

    def __init__(self) -> None:
        self.inner = govcore.MemoryStore(clock=FakeClock())

    def get(self, key: str) -> bytes | None:
        return self.inner.get(key)

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self.inner.set(key, value, expires_at=expires_at)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        return self.inner.update(key, mutate)

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        return self.inner.update_many(keys, mutate)

    def delete(self, key: str) -> None:
        self.inner.delete(key)


def test_a_store_without_a_twin_is_a_clear_error() -> None:
    """A store that cannot share its state with asyncio code says so, naming the method."""
    gov = govcore.Governance.from_config(config(), clock=FakeClock(), store=PlainStore())
    with pytest.raises(TypeError, match="async_twin"):
        _ = gov.client(FULL_KEY).aio


@pytest.mark.redis
def test_redis_twins_use_the_same_url(redis_url: str) -> None:
    """On Redis each facade's twin opens a store of the other kind on the same URL: a turn
    recorded through one is read through the other."""
    from govcore.backends.redis import AsyncRedisStore

    clock = FakeClock()
    with govcore.Governance.from_config(config(store=redis_url), clock=clock) as gov:
        client = gov.client(FULL_KEY)
        client.record_turn(turn("s", "hello"))

        async def through_aio() -> int:
            aio = client.aio
            await aio.record_turn(turn("s", "a refund?"))
            count = (await aio.get_conversation("s")).turn_count
            store = aio._store
            assert isinstance(store, AsyncRedisStore)
            await store.aclose()
            return count

        assert asyncio.run(through_aio()) == 2

    async def through_blocking() -> int:
        async with govcore.AsyncGovernance.from_config(
            config(store=redis_url), clock=clock
        ) as agov:
            client = agov.client(FULL_KEY)
            return client.blocking.record_turn(turn("s", "and shipping?")).turn_index

    assert asyncio.run(through_blocking()) == 3
