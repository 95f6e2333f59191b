"""The interfaces the core talks through: clock, store, retriever and token counter.

They are :class:`typing.Protocol` classes: a backend inherits nothing, mypy checks it where it is
passed in, and the conformance suites in :mod:`govcore.testing` define the behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from govcore.policy import PolicyDocument

__all__ = [
    "Admission",
    "AsyncPipelinedStore",
    "AsyncStore",
    "Clock",
    "ExplainableIndex",
    "IndexExplanation",
    "PipelinedStore",
    "PolicyScore",
    "RetrievalHit",
    "RetrievalIndex",
    "Retriever",
    "Store",
    "StoreCommit",
    "StoreReads",
    "StoreWrite",
    "TokenCounter",
]

T = TypeVar("T")

Clock = Callable[[], float]
"""Returns the current time as epoch seconds; the only source of time in govcore."""

TokenCounter = Callable[[str], int]
"""Estimates how many model tokens a text takes."""


@dataclass(frozen=True, slots=True)
class StoreWrite(Generic[T]):
    """What a single-key :meth:`Store.update` mutation decides.

    Attributes:
        value: the new stored bytes, or ``None`` to leave the entry exactly as it was.
        expires_at: epoch seconds after which the new value reads as absent.
        result: handed back to the caller of ``update``.
    """

    value: bytes | None
    expires_at: float
    result: T


@dataclass(frozen=True, slots=True)
class StoreCommit(Generic[T]):
    """What a multi-key :meth:`Store.update_many` mutation decides.

    Attributes:
        result: handed back to the caller of ``update_many``.
        writes: the new ``(value, expires_at)`` of some of the keys that were read; keys left
            out stay exactly as they were. All of them are written together or none is.
    """

    result: T
    writes: Mapping[str, tuple[bytes, float]] = field(default_factory=dict)


class Store(Protocol):
    """Keyed bytes with a logical expiry time read from the injected clock.

    An entry whose ``expires_at`` is not after the store's ``now`` is absent: reads return
    ``None`` and updates see ``None``. Reading never renews an entry.

    Keys are ``namespace:rest``. govcore uses the namespaces ``conv`` (conversation state),
    ``idem`` (idempotency records), ``rate`` (rate-limit windows), ``pre`` (the pre-inference
    cache) and ``strm`` (what each session's streaming check has checked); a store may give each
    namespace its own capacity so that one kind of traffic never evicts another kind's records.
    The part of a key between the first ``{`` and the next ``}`` is its hash tag: keys with the
    same tag are updated together, so a store that shards (Redis Cluster) must keep them in one
    shard.

    The store is govcore's only point of atomicity: every read-modify-write goes through
    :meth:`update` or :meth:`update_many`, and the mutation is given the time read inside the
    atomic section, so a decision and the clock it was made on cannot drift apart between
    threads or processes.
    """

    backend_errors: tuple[type[BaseException], ...]
    """The exception types that mean "the backend is unavailable" (retryable, a 503).

    govcore turns only these into :class:`~govcore.errors.BackendError`; any other exception
    from a store is a bug and answers 500. An in-process store declares none.
    """

    def get(self, key: str) -> bytes | None:
        """The live value of ``key``, or ``None``; never changes the entry or its expiry."""
        ...

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        """Store ``value`` under ``key`` until ``expires_at``."""
        ...

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        """Atomically read ``key``, let ``mutate`` decide, and write its decision.

        ``mutate(value, now)`` receives the live value (or ``None``) and the store's current
        time, read inside the atomic section. It may be called more than once by backends that
        retry on contention, so it must be free of side effects. An exception it raises
        propagates unchanged and nothing is written.
        """
        ...

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        """Atomically read several keys, let ``mutate`` decide, and write all its writes.

        ``mutate(values, now)`` receives the live values in the order of ``keys`` and the
        store's current time; the same rules as :meth:`update` apply. Either every write of the
        returned commit is stored or (on an exception) none is.
        """
        ...

    def delete(self, key: str) -> None:
        """Remove ``key``; removing an absent key succeeds."""
        ...


@dataclass(frozen=True, slots=True)
class StoreReads:
    """Values a store read ahead of an update, in the round trip of a request's admission.

    Attributes:
        values: the live value (or ``None``) of each key read.
        snapshot: the store's own record of what it read (versions, for a store that commits
            optimistically), handed back to :meth:`PipelinedStore.update_many` so that it can
            commit without reading again. Opaque to govcore; ``None`` when there is none.
    """

    values: Mapping[str, bytes | None] = field(default_factory=dict)
    snapshot: object | None = None


@dataclass(frozen=True, slots=True)
class Admission:
    """The answer of :meth:`PipelinedStore.admit`.

    Attributes:
        wait: ``None`` when the request is admitted, else the seconds until it would be.
        reads: the keys read in the same round trip (empty when refused).
    """

    wait: float | None
    reads: StoreReads = field(default_factory=StoreReads)


@runtime_checkable
class PipelinedStore(Store, Protocol):
    """A store that saves round trips to its server (an optional extension of :class:`Store`).

    govcore uses these methods when a store has them, and otherwise does the same work with the
    methods of :class:`Store` (an ``update`` of the rate-limit window, ``get`` of each key):
    the behaviour is the same either way, only the number of round trips differs.
    """

    def admit(
        self, key: str, *, limit: int, window_seconds: float, read: Sequence[str] = ()
    ) -> Admission:
        """Count one request in the sliding window of ``key`` and read ``read`` in one go.

        The rules are those of :func:`govcore.core.ratelimit.admit`, decided on the store's
        clock: a request is admitted, and counted, unless ``limit`` logged requests would share
        one window of ``window_seconds`` with it; a refused request is not counted. After the
        clock stepped back by less than a window, logged times keep their own values; a step
        of a window or more is a reset, and times in the future then count as ``now``. A
        refusal's wait is until the request would be admitted.
        """
        ...

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
        *,
        reads: StoreReads | None = None,
    ) -> T:
        """:meth:`Store.update_many`, starting from ``reads`` when they hold every key.

        The store must still commit atomically: when a key changed since it was read, the
        mutation runs again on the new values.
        """
        ...


class AsyncStore(Protocol):
    """:class:`Store` for an event loop: the same methods and rules, each awaitable.

    A store for ``asyncio`` applications (:class:`govcore.AsyncGovernance`), so that waiting for
    the store's server never blocks the loop. Mutations stay plain functions: they run between
    the read and the write and never wait for anything.
    """

    backend_errors: tuple[type[BaseException], ...]
    """As :attr:`Store.backend_errors`."""

    async def get(self, key: str) -> bytes | None:
        """As :meth:`Store.get`."""
        ...

    async def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        """As :meth:`Store.set`."""
        ...

    async def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        """As :meth:`Store.update`."""
        ...

    async def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        """As :meth:`Store.update_many`."""
        ...

    async def delete(self, key: str) -> None:
        """As :meth:`Store.delete`."""
        ...


@runtime_checkable
class AsyncPipelinedStore(AsyncStore, Protocol):
    """:class:`PipelinedStore` for an event loop."""

    async def admit(
        self, key: str, *, limit: int, window_seconds: float, read: Sequence[str] = ()
    ) -> Admission:
        """As :meth:`PipelinedStore.admit`."""
        ...

    async def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
        *,
        reads: StoreReads | None = None,
    ) -> T:
        """As :meth:`PipelinedStore.update_many`."""
        ...


@dataclass(frozen=True, slots=True)
class RetrievalHit:
    """A retrieved policy: its position in the indexed sequence and its relevance score."""

    position: int
    score: float


class RetrievalIndex(Protocol):
    """A searchable index of one policy-set version; immutable once built."""

    def search(
        self,
        query: str,
        *,
        top_k: int,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> list[RetrievalHit]:
        """The at most ``top_k`` most relevant policies above the minimum relevance.

        Args:
            query: the text to match (already bounded in length by the caller).
            top_k: the most hits to return.
            areas: when given, only policies whose area is in it are candidates.
            context: earlier turns that disambiguate the query; they may count for less.

        Returns:
            Hits in decreasing score order.
        """
        ...


@dataclass(frozen=True, slots=True)
class PolicyScore:
    """How one policy scored against a query, for explanations.

    Attributes:
        position: the policy's position in the indexed sequence.
        score: the score the index ranks and thresholds by.
        lexical: the lexical (word-based) similarity, or ``None`` when the index has none.
        semantic: the cosine similarity of the embeddings, or ``None`` when the index has none.
        terms: the query terms that carried the lexical score, each with its share of it,
            heaviest first (analysed forms: stems and concepts, as the index sees them).
        example: the policy's ``examples`` phrase closest to the query, when that closeness
            set the score.
    """

    position: int
    score: float
    lexical: float | None = None
    semantic: float | None = None
    terms: tuple[tuple[str, float], ...] = ()
    example: str | None = None


@dataclass(frozen=True, slots=True)
class IndexExplanation:
    """Every policy's score for one query and the thresholds the index applied.

    Attributes:
        scores: one entry per candidate policy (every policy of the index, restricted to
            ``areas`` when given), in decreasing score order.
        thresholds: the named thresholds behind ``floor`` (for example ``min_relevance`` and
            ``relative_relevance``), as the index's configuration holds them.
        floor: the lowest score a policy needed for this query to be a hit.
    """

    scores: tuple[PolicyScore, ...]
    thresholds: Mapping[str, float]
    floor: float


@runtime_checkable
class ExplainableIndex(RetrievalIndex, Protocol):
    """A retrieval index that can say how it scored each policy (``govcore explain``)."""

    def explain(
        self,
        query: str,
        *,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> IndexExplanation:
        """Score every candidate policy as :meth:`search` would, with the parts of each score.

        A policy is a hit of :meth:`search` exactly when its score is at least ``floor`` and
        it is among the ``top_k`` best.
        """
        ...


class Retriever(Protocol):
    """Builds a :class:`RetrievalIndex` for a policy set; called once per policy-set version.

    A retriever backed by a remote service may declare ``backend_errors`` as stores do; an
    in-process retriever declares none and every exception it raises is a bug (500).
    """

    def index(self, policies: Sequence[PolicyDocument]) -> RetrievalIndex:
        """Index ``policies``; hit positions refer to this sequence."""
        ...
