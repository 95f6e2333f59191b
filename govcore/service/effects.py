"""What the service asks of the store, and the two ways of doing it.

The endpoint handlers are generators: where they need the store they yield an *effect* (a read,
an update, a request's admission) and receive its result. They never call a store themselves,
so one handler serves both facades: :func:`run_sync` performs the effects on a blocking
:class:`~govcore.types.Store` (``Governance``) and :func:`run_async` awaits them on an
:class:`~govcore.types.AsyncStore` (``AsyncGovernance``). These two functions are the only
places where the service touches a store, and where a store's declared errors become
:class:`~govcore.errors.BackendError`.

Write a handler step as ``value = yield from perform(Get(key))``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, cast

from govcore.errors import BackendError, GovcoreError
from govcore.types import (
    Admission,
    AsyncPipelinedStore,
    AsyncStore,
    PipelinedStore,
    Store,
    StoreCommit,
    StoreReads,
    StoreWrite,
)

__all__ = [
    "Admit",
    "Delete",
    "Effect",
    "Get",
    "Put",
    "Steps",
    "UpdateMany",
    "perform",
    "read",
    "run_async",
    "run_sync",
    "without_effects",
]

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")

Steps = Generator["Effect[Any]", Any, T]
"""A handler (or a part of one) that yields effects and returns a ``T``."""


class Effect(Generic[R]):
    """One thing to do with the store, with its result type ``R``."""

    def run(self, store: Store) -> R:  # pragma: no cover - every effect overrides it
        raise NotImplementedError

    async def run_async(self, store: AsyncStore) -> R:  # pragma: no cover - as above
        raise NotImplementedError


def perform(effect: Effect[R]) -> Steps[R]:
    """Yield ``effect`` and return its result, typed."""
    return cast("R", (yield effect))


def read(reads: StoreReads, key: str) -> Steps[bytes | None]:
    """The value of ``key``: as read with the request's admission, or read now."""
    if key in reads.values:
        return reads.values[key]
    return (yield from perform(Get(key)))


def without_effects(function: Callable[P, T]) -> Callable[P, Steps[T]]:
    """``function`` as a handler that yields nothing (it needs no store)."""

    @functools.wraps(function)
    def steps(*args: P.args, **kwargs: P.kwargs) -> Steps[T]:
        return function(*args, **kwargs)
        yield  # unreachable: it makes ``steps`` a generator

    return steps


@dataclass(frozen=True, slots=True)
class Get(Effect["bytes | None"]):
    """The live value of ``key``; renews nothing."""

    key: str

    def run(self, store: Store) -> bytes | None:
        return store.get(self.key)

    async def run_async(self, store: AsyncStore) -> bytes | None:
        return await store.get(self.key)


@dataclass(frozen=True, slots=True)
class Put(Effect[None]):
    """Store ``value`` under ``key`` until ``expires_at``."""

    key: str
    value: bytes
    expires_at: float

    def run(self, store: Store) -> None:
        store.set(self.key, self.value, expires_at=self.expires_at)

    async def run_async(self, store: AsyncStore) -> None:
        await store.set(self.key, self.value, expires_at=self.expires_at)


@dataclass(frozen=True, slots=True)
class Delete(Effect[None]):
    """Remove every key of ``keys`` (absent ones included)."""

    keys: tuple[str, ...]

    def run(self, store: Store) -> None:
        for key in self.keys:
            store.delete(key)

    async def run_async(self, store: AsyncStore) -> None:
        for key in self.keys:
            await store.delete(key)


@dataclass(frozen=True, slots=True)
class UpdateMany(Effect[T]):
    """One atomic read-modify-write of ``keys``, from ``reads`` when the store can use them."""

    keys: tuple[str, ...]
    mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]]
    reads: StoreReads | None = None

    def run(self, store: Store) -> T:
        if self.reads is not None and self.reads.snapshot is not None and _pipelined(store):
            return cast("PipelinedStore", store).update_many(
                self.keys, self.mutate, reads=self.reads
            )
        return store.update_many(self.keys, self.mutate)

    async def run_async(self, store: AsyncStore) -> T:
        if self.reads is not None and self.reads.snapshot is not None and _pipelined(store):
            return await cast("AsyncPipelinedStore", store).update_many(
                self.keys, self.mutate, reads=self.reads
            )
        return await store.update_many(self.keys, self.mutate)


@dataclass(frozen=True, slots=True)
class Admit(Effect[Admission]):
    """Count a request in its key's rate-limit window, and read ``read`` if it is admitted.

    A :class:`~govcore.types.PipelinedStore` does both in one round trip; any other store runs
    ``decide`` (the pure window rule) in an :meth:`~govcore.types.Store.update` of ``key``, then
    reads each key.
    """

    key: str
    limit: int
    window_seconds: float
    read: tuple[str, ...]
    decide: Callable[[bytes | None, float], StoreWrite[float | None]]

    def run(self, store: Store) -> Admission:
        if _pipelined(store):
            return cast("PipelinedStore", store).admit(
                self.key, limit=self.limit, window_seconds=self.window_seconds, read=self.read
            )
        if _admits_in_place(store):
            # The same rule and reads, with the window kept in place rather than copied whole
            # on every request (the in-memory store).
            return cast("_InPlaceAdmission", store).admit_request(
                self.key, limit=self.limit, decide=self.decide, read=self.read
            )
        wait = store.update(self.key, self.decide)
        if wait is not None:
            return Admission(wait)
        return Admission(None, StoreReads({key: store.get(key) for key in self.read}))

    async def run_async(self, store: AsyncStore) -> Admission:
        if _pipelined(store):
            return await cast("AsyncPipelinedStore", store).admit(
                self.key, limit=self.limit, window_seconds=self.window_seconds, read=self.read
            )
        if _admits_in_place(store):
            # As in ``run`` (the in-memory store for asyncio, whose methods call the blocking
            # store's directly: no waiting happens in them).
            return cast("_InPlaceAdmission", store).admit_request(
                self.key, limit=self.limit, decide=self.decide, read=self.read
            )
        wait = await store.update(self.key, self.decide)
        if wait is not None:
            return Admission(wait)
        return Admission(None, StoreReads({key: await store.get(key) for key in self.read}))


class _InPlaceAdmission(Protocol):
    """A store that counts a request in a rate-limit window it keeps in place
    (``MemoryStore.admit_request``): the rule of ``decide``, without rewriting the window."""

    def admit_request(
        self,
        key: str,
        *,
        limit: int,
        decide: Callable[[bytes | None, float], StoreWrite[float | None]],
        read: Sequence[str] = (),
    ) -> Admission: ...


_IN_PLACE: dict[type[Any], bool] = {}


def _admits_in_place(store: object) -> bool:
    """Whether ``store``'s own class defines ``admit_request`` (the in-memory stores). A
    subclass that does not define it again is not taken to: it may override ``update``, which
    the admission must then go through (decided once per store class)."""
    kind = type(store)
    known = _IN_PLACE.get(kind)
    if known is None:
        known = _IN_PLACE[kind] = "admit_request" in vars(kind)
    return known


_PIPELINED: dict[type[Any], bool] = {}


def _pipelined(store: object) -> bool:
    """Whether ``store`` has the round-trip-saving methods (decided once per store class)."""
    kind = type(store)
    known = _PIPELINED.get(kind)
    if known is None:
        known = _PIPELINED[kind] = isinstance(store, PipelinedStore | AsyncPipelinedStore)
    return known


def _resume(
    steps: Steps[T],
    errors: tuple[type[BaseException], ...],
    result: object,
    error: Exception | None,
) -> Effect[Any]:
    """Hand an effect's result (or its error) back to the handler; its next effect.

    A store's declared error reaches the handler as a :class:`BackendError` from it; any other
    error reaches it unchanged, so the handler's own ``except`` clauses decide what it means.
    """
    if error is None:
        return steps.send(result)
    if isinstance(error, errors) and not isinstance(error, GovcoreError):
        unavailable = BackendError(f"the store is unavailable ({type(error).__name__})")
        unavailable.__cause__ = error
        return steps.throw(unavailable)
    return steps.throw(error)


def run_sync(steps: Steps[T], store: Store) -> T:
    """Run a handler to its end, performing each effect it yields on ``store``."""
    errors = tuple(getattr(store, "backend_errors", ()))
    try:
        effect = next(steps)
        while True:
            try:
                result, error = effect.run(store), None
            except Exception as exc:
                result, error = None, exc
            effect = _resume(steps, errors, result, error)
    except StopIteration as done:
        return cast("T", done.value)


async def run_async(steps: Steps[T], store: AsyncStore) -> T:
    """:func:`run_sync` for an event loop: each effect is awaited on ``store``."""
    errors = tuple(getattr(store, "backend_errors", ()))
    try:
        effect = next(steps)
        while True:
            try:
                result, error = await effect.run_async(store), None
            except Exception as exc:
                result, error = None, exc
            effect = _resume(steps, errors, result, error)
    except StopIteration as done:
        return cast("T", done.value)
