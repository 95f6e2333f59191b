"""The default store: an in-process TTL cache with a byte budget per namespace, no server needed."""

from __future__ import annotations

import heapq
import logging
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar, TypeVar
from urllib.parse import parse_qsl, urlsplit

from pydantic import Field

from govcore._clock import system_clock
from govcore.backends.awaited import AwaitedStore
from govcore.core.ratelimit import WINDOW_ENTRY_BYTES, WINDOW_SECONDS, admit_in_order
from govcore.settings import GovernanceSettings, SettingsSection
from govcore.types import Admission, Clock, StoreCommit, StoreReads, StoreWrite

__all__ = [
    "DEFAULT_CAPACITIES",
    "ENTRY_OVERHEAD_BYTES",
    "AsyncMemoryStore",
    "MemoryStore",
    "MemoryStoreSettings",
    "NamespaceCapacity",
]

T = TypeVar("T")


class _RequestLog:
    """A rate-limit window kept in place: the admitted times ``times[first:]``.

    A window stored as bytes is copied whole by every admission (the pure rule returns the new
    log), which made a key near a high limit, a streaming key say, pay for every request of
    the last two minutes on each one: 3 µs at 4,000 requests, up to 57 µs at 24,000 with the
    allocator's page handling (docs/decisions/stream-cost.md). This log is appended to and
    trimmed from the front, compacted once more than a quarter of it is dropped, so an admission
    costs a binary search. It reads as the bytes the pure rule would have stored
    (``bytes(log)``), which is what every other method of the store hands out.
    """

    __slots__ = ("first", "times")

    def __init__(self, raw: bytes) -> None:
        self.times = array("d")
        self.times.frombytes(raw)
        self.first = 0

    def __len__(self) -> int:
        """Its size in bytes, as the bytes it reads as (the namespace's budget counts it so)."""
        return (len(self.times) - self.first) * WINDOW_ENTRY_BYTES

    def __bytes__(self) -> bytes:
        return self.times[self.first :].tobytes()

    def log(self, kept_from: int, now: float) -> None:
        """Keep ``times[kept_from:]`` and append ``now``."""
        self.first = kept_from
        self.times.append(now)
        # Compacted once a quarter is dropped: the array then holds at most a third more than
        # the bytes counted against the budget (plus the array's own spare room, an eighth).
        if self.first > len(self.times) // 4:
            del self.times[: self.first]
            self.first = 0


_Entry = tuple[float, bytes | _RequestLog]  # (expires_at, value)


def _value(entry: _Entry | None) -> bytes | None:
    """The stored bytes of ``entry`` (a request log reads as its bytes)."""
    if entry is None:
        return None
    value = entry[1]
    return value if isinstance(value, bytes) else bytes(value)


_MIB = 1024 * 1024
_log = logging.getLogger("govcore.store")

ENTRY_OVERHEAD_BYTES = 160
"""What one entry costs besides its key and value: the dictionary slot, the tuple, the bytes
object's header and its expiry heap item, rounded up (measured on CPython 3.11)."""


@dataclass(frozen=True, slots=True)
class NamespaceCapacity:
    """How much one namespace of keys may hold; the least recently used entries go first.

    Attributes:
        max_bytes: the budget of the namespace's entries (key, value and
            :data:`ENTRY_OVERHEAD_BYTES` each).
        max_entries: the most entries it may hold.
    """

    max_bytes: int
    max_entries: int = 10_000_000

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or self.max_entries < 1:
            raise ValueError("a namespace capacity must allow at least one byte and one entry")


DEFAULT_CAPACITIES: Mapping[str, NamespaceCapacity] = {
    "conv": NamespaceCapacity(512 * _MIB),
    "idem": NamespaceCapacity(128 * _MIB),
    "rate": NamespaceCapacity(64 * _MIB),
    "pre": NamespaceCapacity(64 * _MIB),
    "strm": NamespaceCapacity(64 * _MIB),
}
"""Budgets of govcore's namespaces; any other namespace gets :data:`OTHER_CAPACITY`."""

OTHER_CAPACITY = NamespaceCapacity(64 * _MIB)


class MemoryStoreSettings(SettingsSection):
    """The memory store's own keys of ``settings:``."""

    max_conversations: Annotated[int, Field(ge=1)] = 1_000_000
    """Most conversations the store keeps when ``settings.store`` sets no ``conv_entries``
    (it also keeps within a byte budget); the least recently used go first."""


def _budgets(url: str) -> dict[str, dict[str, int]]:
    """What a ``memory://`` URL's parameters set: namespace -> ``{"mb": ..., "entries": ...}``.

    Raises:
        ValueError: an unknown or malformed parameter, or one given twice.
    """
    parts = urlsplit(url)
    if parts.netloc or parts.path not in ("", "/") or parts.fragment:
        raise ValueError("memory:// takes only query parameters, not a user, host or path")
    budgets: dict[str, dict[str, int]] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        namespace, _, unit = name.rpartition("_")
        if not namespace or unit not in {"mb", "entries"} or not value.isdigit():
            raise ValueError(
                f"memory store parameter {name!r}: expected <namespace>_mb or "
                "<namespace>_entries with a whole number"
            )
        if unit in budgets.get(namespace, {}):
            raise ValueError(f"memory store parameter {name!r} is given twice")
        budgets.setdefault(namespace, {})[unit] = int(value)
    return budgets


def _capacities(budgets: Mapping[str, Mapping[str, int]]) -> dict[str, NamespaceCapacity]:
    """The capacities ``budgets`` set, each over its namespace's default."""
    capacities = {}
    for namespace, given in budgets.items():
        base = DEFAULT_CAPACITIES.get(namespace, OTHER_CAPACITY)
        capacities[namespace] = NamespaceCapacity(
            max_bytes=given["mb"] * _MIB if "mb" in given else base.max_bytes,
            max_entries=given.get("entries", base.max_entries),
        )
    return capacities


class _Namespace:
    """The entries of one namespace, least recently used first, with their byte total."""

    __slots__ = ("bytes", "capacity", "entries")

    def __init__(self, capacity: NamespaceCapacity) -> None:
        self.capacity = capacity
        self.entries: OrderedDict[str, _Entry] = OrderedDict()
        self.bytes = 0


def _size(key: str, value: bytes | _RequestLog) -> int:
    return len(key) + len(value) + ENTRY_OVERHEAD_BYTES


def _namespace_of(key: str) -> str:
    """The text before the first ``:``; a key without one is in the namespace ``""``."""
    namespace, colon, _ = key.partition(":")
    return namespace if colon else ""


class MemoryStore:
    """A :class:`~govcore.types.Store` kept in this process.

    Each entry carries its own expiry, checked against the injected clock: an entry is absent
    from its expiry time on, and writes drop expired entries as they go (there is no background
    thread, and a clock that never moves never expires anything).

    Keys are grouped by namespace (the text before the first ``:``), and each namespace has its
    own :class:`NamespaceCapacity`: when a write takes a namespace over its budget, its least
    recently used entries are evicted, never another namespace's. So a flood of pre-inference
    calls cannot push a live conversation out. Each eviction is counted in :attr:`evictions`
    and an evicted conversation is logged as a warning on the ``govcore.store`` logger.

    One lock serialises access, so :meth:`update` and :meth:`update_many` are atomic across
    threads; mutations are pure and short, so it is never held during retrieval or I/O.

    Args:
        clock: the time source of expiry and of the ``now`` given to mutations.
        capacities: budgets by namespace, merged over :data:`DEFAULT_CAPACITIES`.
    """

    backend_errors: tuple[type[BaseException], ...] = ()

    def __init__(
        self,
        *,
        clock: Clock = system_clock,
        capacities: Mapping[str, NamespaceCapacity] | None = None,
    ) -> None:
        self._clock = clock
        self._capacities = {**DEFAULT_CAPACITIES, **(capacities or {})}
        self._namespaces: dict[str, _Namespace] = {}
        # (expires_at, key) of every write; an item is stale when its key was written again
        # since. Rebuilt when stale items outnumber the entries, so it stays O(entries).
        self._expiries: list[tuple[float, str]] = []
        self._count = 0
        self._lock = threading.Lock()
        self.evictions: Counter[str] = Counter()
        """Entries evicted for capacity (not expiry), by namespace."""
        self._async_twin: AsyncMemoryStore | None = None

    settings_model: ClassVar[type[SettingsSection]] = MemoryStoreSettings

    @classmethod
    def from_url(cls, url: str, *, clock: Clock = system_clock) -> MemoryStore:
        """A store from ``memory://`` with optional budgets in the query string.

        ``memory://?conv_mb=256&idem_mb=64&conv_entries=100000`` sets the byte budget (in MiB)
        or the entry limit of a namespace.

        Raises:
            ValueError: an unknown or malformed parameter.
        """
        return cls(clock=clock, capacities=_capacities(_budgets(url)))

    @classmethod
    def from_settings(cls, settings: GovernanceSettings, *, clock: Clock) -> MemoryStore:
        """The store of ``settings.store`` (a ``memory://`` URL, see :meth:`from_url`) whose
        conversations are limited to ``max_conversations`` unless the URL sets
        ``conv_entries``.

        Raises:
            ValueError: an unknown or malformed parameter in the URL.
        """
        budgets = _budgets(settings.store)
        own = settings.section(MemoryStoreSettings)
        budgets.setdefault("conv", {}).setdefault("entries", own.max_conversations)
        return cls(clock=clock, capacities=_capacities(budgets))

    def async_twin(self) -> AsyncMemoryStore:
        """This store for ``asyncio``: an :class:`AsyncMemoryStore` over the same entries (one
        per store), so that a blocking and an asyncio client see one state."""
        if self._async_twin is None:
            self._async_twin = AsyncMemoryStore(self)
        return self._async_twin

    # --- the Store protocol ----------------------------------------------------------------

    def get(self, key: str) -> bytes | None:
        with self._lock:
            return _value(self._live(key, self._clock()))

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        with self._lock:
            now = self._clock()
            self._drop_expired(now)
            self._write(key, value, expires_at, now)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        with self._lock:
            now = self._clock()
            write = mutate(_value(self._live(key, now)), now)
            if write.value is not None:
                self._drop_expired(now)
                self._write(key, write.value, write.expires_at, now)
            return write.result

    def admit_request(
        self,
        key: str,
        *,
        limit: int,
        decide: Callable[[bytes | None, float], StoreWrite[float | None]],
        read: Sequence[str] = (),
    ) -> Admission:
        """Count a request in the rate-limit window at ``key``, and read ``read`` if it is
        admitted: what :meth:`update` of ``key`` with ``decide``
        (:func:`govcore.core.ratelimit.admit` with ``limit``) and a :meth:`get` of each key do,
        under one hold of the lock, with the window kept in place (:class:`_RequestLog`) so
        that the usual admission does not copy it. A window written by another method
        (``set``, ``update``), or one whose newest time is in the clock's future, is decided by
        ``decide`` itself, and kept in place from then on.
        """
        with self._lock:
            now = self._clock()
            entry = self._live(key, now)
            log = None if entry is None else entry[1]
            if (
                isinstance(log, _RequestLog)
                and len(log.times) > log.first
                and log.times[-1] <= now  # else the clock stepped back: the pure rule decides
            ):
                wait, kept_from = admit_in_order(log.times, log.first, now, limit=limit)
                if wait is None:
                    self._drop_expired(now)  # not the log: it is live at ``now``
                    self._log_request(key, log, kept_from, now)
            else:
                write = decide(_value(entry), now)
                if write.value is not None:
                    self._drop_expired(now)
                    self._write(key, _RequestLog(write.value), write.expires_at, now)
                wait = write.result
            if wait is not None:
                return Admission(wait)
            return Admission(None, StoreReads({k: _value(self._live(k, now)) for k in read}))

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        with self._lock:
            now = self._clock()
            values = [_value(self._live(k, now)) for k in keys]
            commit = mutate(values, now)
            unknown = set(commit.writes) - set(keys)
            if unknown:
                raise ValueError(f"update_many may only write the keys it read: {sorted(unknown)}")
            if commit.writes:
                self._drop_expired(now)
                for key, (value, expires_at) in commit.writes.items():
                    self._write(key, value, expires_at, now)
            return commit.result

    def delete(self, key: str) -> None:
        with self._lock:
            self._remove(key)

    # --- introspection -----------------------------------------------------------------------

    def __len__(self) -> int:
        """Live entries (expired ones are dropped first)."""
        with self._lock:
            self._drop_expired(self._clock())
            return self._count

    def usage(self) -> dict[str, tuple[int, int]]:
        """``(entries, bytes)`` held by each namespace."""
        with self._lock:
            return {name: (len(ns.entries), ns.bytes) for name, ns in self._namespaces.items()}

    # --- internals ---------------------------------------------------------------------------

    def _namespace(self, key: str) -> _Namespace:
        name = _namespace_of(key)
        namespace = self._namespaces.get(name)
        if namespace is None:
            capacity = self._capacities.get(name, OTHER_CAPACITY)
            namespace = self._namespaces[name] = _Namespace(capacity)
        return namespace

    def _live(self, key: str, now: float) -> _Entry | None:
        namespace = self._namespaces.get(_namespace_of(key))
        if namespace is None:
            return None
        entry = namespace.entries.get(key)
        if entry is None:
            return None
        if entry[0] <= now:
            self._remove(key)
            return None
        namespace.entries.move_to_end(key)
        return entry

    def _remove(self, key: str) -> None:
        namespace = self._namespaces.get(_namespace_of(key))
        if namespace is None:
            return
        entry = namespace.entries.pop(key, None)
        if entry is not None:
            namespace.bytes -= _size(key, entry[1])
            self._count -= 1

    def _write(self, key: str, value: bytes | _RequestLog, expires_at: float, now: float) -> None:
        self._remove(key)
        if expires_at <= now:
            return  # already expired: reads must see it absent
        namespace = self._namespace(key)
        size = _size(key, value)
        capacity = namespace.capacity
        if size > capacity.max_bytes:
            # Larger than the whole budget: keeping it would evict everything else.
            self._evicted(key, "it alone exceeds the namespace's budget")
            return
        namespace.entries[key] = (expires_at, value)
        namespace.bytes += size
        self._count += 1
        heapq.heappush(self._expiries, (expires_at, key))
        self._fit(namespace)

    def _log_request(self, key: str, log: _RequestLog, kept_from: int, now: float) -> None:
        """Log an admitted request at ``now`` in the live window ``log`` of ``key``, renewing
        its expiry: what :meth:`_write` of its new bytes does, without taking the entry out
        and putting it back (it is the most recently used already, :meth:`_live` moved it)."""
        namespace = self._namespace(key)
        # One time in, the times before ``kept_from`` out.
        namespace.bytes += (1 - (kept_from - log.first)) * WINDOW_ENTRY_BYTES
        log.log(kept_from, now)
        # A log grown past its namespace's budget is evicted by _fit, as _write refuses it: the
        # entries used before it went when it and they no longer fitted together.
        expires_at = now + 2 * WINDOW_SECONDS
        namespace.entries[key] = (expires_at, log)
        heapq.heappush(self._expiries, (expires_at, key))
        self._fit(namespace)

    def _fit(self, namespace: _Namespace) -> None:
        """Evict ``namespace``'s least recently used entries until it is within its capacity,
        and rebuild the expiry heap when its stale items outnumber the entries."""
        capacity = namespace.capacity
        while namespace.bytes > capacity.max_bytes or len(namespace.entries) > capacity.max_entries:
            oldest, (_, old_value) = namespace.entries.popitem(last=False)
            namespace.bytes -= _size(oldest, old_value)
            self._count -= 1
            self._evicted(oldest, "capacity")
        if len(self._expiries) > 2 * self._count + 64:
            self._expiries = [
                (entry[0], k) for ns in self._namespaces.values() for k, entry in ns.entries.items()
            ]
            heapq.heapify(self._expiries)

    def _evicted(self, key: str, reason: str) -> None:
        name = _namespace_of(key)
        self.evictions[name] += 1
        if name == "conv":
            # A conversation that silently restarts at turn 1 is a surprise: say it happened.
            _log.warning("conversation state evicted before its TTL (%s): %s", reason, key)

    def _drop_expired(self, now: float) -> None:
        expiries = self._expiries
        while expiries and expiries[0][0] <= now:
            expires_at, key = heapq.heappop(expiries)
            namespace = self._namespaces.get(_namespace_of(key))
            entry = None if namespace is None else namespace.entries.get(key)
            if entry is not None and entry[0] == expires_at:
                self._remove(key)


class AsyncMemoryStore(AwaitedStore):
    """:class:`MemoryStore` for ``asyncio`` (an :class:`~govcore.types.AsyncStore`).

    Its methods call the wrapped store's directly: the lock is only held for dictionary work,
    never while waiting for anything, so the event loop is never blocked for longer than a
    synchronous call would take.

    Args:
        store: the store to share (default a new one with ``clock`` and ``capacities``).
    """

    settings_model: ClassVar[type[SettingsSection]] = MemoryStoreSettings

    def __init__(
        self,
        store: MemoryStore | None = None,
        *,
        clock: Clock = system_clock,
        capacities: Mapping[str, NamespaceCapacity] | None = None,
    ) -> None:
        super().__init__(
            store if store is not None else MemoryStore(clock=clock, capacities=capacities)
        )
        self.store: MemoryStore

    def admit_request(
        self,
        key: str,
        *,
        limit: int,
        decide: Callable[[bytes | None, float], StoreWrite[float | None]],
        read: Sequence[str] = (),
    ) -> Admission:
        """:meth:`MemoryStore.admit_request` of the store it awaits (not a coroutine: like every
        method of this store, it only holds the lock for dictionary work). A subclass of
        :class:`MemoryStore` that does not define ``admit_request`` again may have overridden
        ``update``, so its admission goes through ``update`` and ``get``, as it would blocking."""
        store = self.store
        if "admit_request" in vars(type(store)):
            return store.admit_request(key, limit=limit, decide=decide, read=read)
        wait = store.update(key, decide)
        if wait is not None:
            return Admission(wait)
        return Admission(None, StoreReads({k: store.get(k) for k in read}))

    def blocking_twin(self) -> MemoryStore:
        """The :class:`MemoryStore` this store awaits: the same entries, without ``await``."""
        return self.store

    @classmethod
    def from_url(cls, url: str, *, clock: Clock = system_clock) -> AsyncMemoryStore:
        """As :meth:`MemoryStore.from_url`."""
        return cls(MemoryStore.from_url(url, clock=clock))

    @classmethod
    def from_settings(cls, settings: GovernanceSettings, *, clock: Clock) -> AsyncMemoryStore:
        """As :meth:`MemoryStore.from_settings`."""
        return cls(MemoryStore.from_settings(settings, clock=clock))
