"""A blocking store seen through awaitable methods: the one sync-to-async store adapter.

Right for a store whose calls never wait for anything (the in-memory store: its lock is held
for dictionary work only), and for running the asyncio conformance suites on a blocking store.
A store that waits for a server must not be wrapped this way: each call would block the event
loop for a round trip; such a store has an asyncio implementation of its own
(:class:`~govcore.backends.redis.AsyncRedisStore`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from govcore.types import (
    Admission,
    AsyncStore,
    PipelinedStore,
    Store,
    StoreCommit,
    StoreReads,
    StoreWrite,
)

__all__ = ["AwaitedPipelinedStore", "AwaitedStore", "awaited"]

T = TypeVar("T")


class AwaitedStore:
    """A :class:`~govcore.types.Store` behind the :class:`~govcore.types.AsyncStore` methods,
    each calling the wrapped store's directly.

    Args:
        store: the blocking store; its ``backend_errors`` are this one's.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.backend_errors: tuple[type[BaseException], ...] = store.backend_errors

    def blocking_twin(self) -> Store:
        """The blocking store this one awaits: the same state, without ``await``."""
        return self.store

    async def get(self, key: str) -> bytes | None:
        return self.store.get(key)

    async def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self.store.set(key, value, expires_at=expires_at)

    async def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        return self.store.update(key, mutate)

    async def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        return self.store.update_many(keys, mutate)

    async def delete(self, key: str) -> None:
        self.store.delete(key)


class AwaitedPipelinedStore(AwaitedStore):
    """:class:`AwaitedStore` of a :class:`~govcore.types.PipelinedStore`: ``admit`` and the
    ``reads`` of ``update_many`` too (an :class:`~govcore.types.AsyncPipelinedStore`)."""

    def __init__(self, store: PipelinedStore) -> None:
        super().__init__(store)
        self.store: PipelinedStore = store

    async def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
        *,
        reads: StoreReads | None = None,
    ) -> T:
        return self.store.update_many(keys, mutate, reads=reads)

    async def admit(
        self, key: str, *, limit: int, window_seconds: float, read: Sequence[str] = ()
    ) -> Admission:
        return self.store.admit(key, limit=limit, window_seconds=window_seconds, read=read)


def awaited(store: Store) -> AsyncStore:
    """``store`` behind awaitable methods: an :class:`AwaitedPipelinedStore` when it is a
    :class:`~govcore.types.PipelinedStore` (the pipelined methods are optional, and a wrapper
    must have them exactly when its store does), else an :class:`AwaitedStore`."""
    if isinstance(store, PipelinedStore):
        return AwaitedPipelinedStore(store)
    return AwaitedStore(store)
