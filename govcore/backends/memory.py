"""The default store: an in-process TTL cache, no server needed."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from cachetools import TLRUCache

from govcore._clock import system_clock
from govcore.types import Clock, StoreWrite

__all__ = ["MemoryStore"]

T = TypeVar("T")
_Entry = tuple[float, bytes]  # (expires_at, value)


def _time_to_use(_key: str, entry: _Entry, _now: float) -> float:
    return entry[0]


class MemoryStore:
    """A :class:`~govcore.types.Store` on :class:`cachetools.TLRUCache`.

    Each entry carries its own expiry, checked against the injected clock on access: there is no
    background thread, and a clock that never moves never expires anything. At ``maxsize``
    entries the least recently used one is dropped to make room. One lock serialises access, so
    :meth:`update` is atomic across threads; mutations are pure and short, so it is never held
    during retrieval or I/O.
    """

    def __init__(self, *, clock: Clock = system_clock, maxsize: int = 1_000_000) -> None:
        self._clock = clock
        self._cache: TLRUCache[str, _Entry] = TLRUCache(maxsize, _time_to_use, timer=clock)
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            entry = self._cache.get(key)
        return None if entry is None else entry[1]

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        with self._lock:
            self._write(key, value, expires_at)

    def update(self, key: str, mutate: Callable[[bytes | None], StoreWrite[T]]) -> T:
        with self._lock:
            entry = self._cache.get(key)
            write = mutate(None if entry is None else entry[1])
            if write.value is not None:
                self._write(key, write.value, write.expires_at)
            return write.result

    def delete(self, key: str) -> None:
        with self._lock:
            self._cache.pop(key, None)

    def __len__(self) -> int:
        """Live entries (expired ones are dropped first)."""
        with self._lock:
            self._cache.expire()
            return len(self._cache)

    def _write(self, key: str, value: bytes, expires_at: float) -> None:
        if expires_at <= self._clock():
            self._cache.pop(key, None)  # already expired: reads must see it absent
        else:
            self._cache[key] = (expires_at, value)
