"""The interfaces the core talks through: clock, store, retriever and token counter.

They are :class:`typing.Protocol` classes: a backend inherits nothing, mypy checks it where it is
passed in, and the conformance suites in :mod:`govcore.testing` define the behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from govcore.policy import PolicyDocument

__all__ = [
    "Clock",
    "RetrievalHit",
    "RetrievalIndex",
    "Retriever",
    "Store",
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
    """What a :meth:`Store.update` mutation decides.

    Attributes:
        value: the new stored bytes, or ``None`` to leave the entry exactly as it was.
        expires_at: epoch seconds after which the new value reads as absent.
        result: handed back to the caller of ``update``.
    """

    value: bytes | None
    expires_at: float
    result: T


class Store(Protocol):
    """Keyed bytes with a logical expiry time read from the injected clock.

    An entry whose ``expires_at`` is not after the clock's ``now`` is absent: reads return
    ``None`` and updates see ``None``. Reading never renews an entry.
    """

    def get(self, key: str) -> bytes | None:
        """The live value of ``key``, or ``None``; never changes the entry or its expiry."""
        ...

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        """Store ``value`` under ``key`` until ``expires_at``."""
        ...

    def update(self, key: str, mutate: Callable[[bytes | None], StoreWrite[T]]) -> T:
        """Atomically read ``key``, let ``mutate`` decide, and write its decision.

        ``mutate`` receives the live value (or ``None``) and may be called more than once by
        backends that retry on contention, so it must be free of side effects.
        """
        ...

    def delete(self, key: str) -> None:
        """Remove ``key``; removing an absent key succeeds."""
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


class Retriever(Protocol):
    """Builds a :class:`RetrievalIndex` for a policy set; called once per policy-set version."""

    def index(self, policies: Sequence[PolicyDocument]) -> RetrievalIndex:
        """Index ``policies``; hit positions refer to this sequence."""
        ...
