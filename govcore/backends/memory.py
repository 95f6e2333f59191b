"""The default store: an in-process TTL cache, no server needed."""

from __future__ import annotations

import heapq
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from govcore._clock import system_clock
from govcore.types import Clock, StoreWrite

__all__ = ["MemoryStore"]

T = TypeVar("T")
_Entry = tuple[float, bytes]  # (expires_at, value)


class MemoryStore:
    """A :class:`~govcore.types.Store` kept in this process.

    Each entry carries its own expiry, checked against the injected clock: an entry is absent
    from its expiry time on, and writes drop expired entries as they go (there is no background
    thread, and a clock that never moves never expires anything). At ``maxsize`` live entries
    the least recently used one is dropped to make room. One lock serialises access, so
    :meth:`update` is atomic across threads; mutations are pure and short, so it is never held
    during retrieval or I/O.

    Every request reads or updates the store at least once (its rate-limit window), so this is
    kept to a dictionary lookup and an ordering move: an update costs about a third of what it
    did on ``cachetools.TLRUCache``, a read about a third too.
    """

    def __init__(self, *, clock: Clock = system_clock, maxsize: int = 1_000_000) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, not {maxsize}")
        self._clock = clock
        self._maxsize = maxsize
        self._entries: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        # (expires_at, key) of every write; an item is stale when its key was written again
        # since. Rebuilt when stale items outnumber the entries, so it stays O(entries).
        self._expiries: list[tuple[float, str]] = []
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            entry = self._live(key, self._clock())
        return None if entry is None else entry[1]

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        with self._lock:
            self._write(key, value, expires_at, self._clock())

    def update(self, key: str, mutate: Callable[[bytes | None], StoreWrite[T]]) -> T:
        with self._lock:
            now = self._clock()
            entry = self._live(key, now)
            write = mutate(None if entry is None else entry[1])
            if write.value is not None:
                self._write(key, write.value, write.expires_at, now)
            return write.result

    def delete(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        """Live entries (expired ones are dropped first)."""
        with self._lock:
            self._drop_expired(self._clock())
            return len(self._entries)

    def _live(self, key: str, now: float) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= now:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry

    def _write(self, key: str, value: bytes, expires_at: float, now: float) -> None:
        self._drop_expired(now)
        if expires_at <= now:
            self._entries.pop(key, None)  # already expired: reads must see it absent
            return
        self._entries[key] = (expires_at, value)
        self._entries.move_to_end(key)
        heapq.heappush(self._expiries, (expires_at, key))
        if len(self._entries) > self._maxsize:
            self._entries.popitem(last=False)
        if len(self._expiries) > 2 * len(self._entries) + 64:
            self._expiries = [(entry[0], k) for k, entry in self._entries.items()]
            heapq.heapify(self._expiries)

    def _drop_expired(self, now: float) -> None:
        expiries = self._expiries
        while expiries and expiries[0][0] <= now:
            expires_at, key = heapq.heappop(expiries)
            entry = self._entries.get(key)
            if entry is not None and entry[0] == expires_at:
                del self._entries[key]
