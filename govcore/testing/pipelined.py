"""The behaviour of the optional :class:`~govcore.types.PipelinedStore` methods.

Written once, as coroutines: :class:`PipelinedStoreConformance` runs them on a synchronous store
(through :class:`~govcore.backends.awaited.AwaitedPipelinedStore`, whose methods call it
directly), :class:`AsyncPipelinedStoreConformance` on an
:class:`~govcore.types.AsyncPipelinedStore`. A store without ``admit`` skips them.
The keys one call reads or updates together share a hash tag, as in the other suites.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import TypeVar

from govcore.backends.awaited import AwaitedPipelinedStore
from govcore.testing.clock import FakeClock
from govcore.types import (
    AsyncPipelinedStore,
    AsyncStore,
    PipelinedStore,
    Store,
    StoreCommit,
    StoreReads,
)

__all__ = ["AsyncPipelinedStoreConformance", "PipelinedStoreConformance"]

T = TypeVar("T")
_Body = Callable[[AsyncPipelinedStore, FakeClock], Coroutine[object, object, None]]
WINDOW = 60.0


class _PipelinedBehaviour:
    def _run(self, body: _Body) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def test_admits_up_to_the_limit_then_says_how_long_to_wait(self) -> None:
        """limit requests in a window are admitted; the next waits until the oldest leaves."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            start = clock.now
            for _ in range(3):
                assert (await store.admit("w", limit=3, window_seconds=WINDOW)).wait is None
                clock.advance(1)
            refused = await store.admit("w", limit=3, window_seconds=WINDOW)
            assert refused.wait == start + WINDOW - clock.now
            assert refused.reads.values == {}

        self._run(body)

    def test_a_refusal_is_not_counted(self) -> None:
        """Refused requests do not fill the window: the oldest leaving admits the next one."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            start = clock.now
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None
            clock.advance(5)
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None
            for _ in range(5):
                clock.advance(10)
                assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is not None
            clock.now = start + WINDOW - 0.001  # the oldest is still in the window
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is not None
            clock.now = start + WINDOW  # ... and leaves it exactly one window later
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None
            refused = await store.admit("w", limit=2, window_seconds=WINDOW)
            assert refused.wait == start + 5 + WINDOW - clock.now

        self._run(body)

    def test_a_clock_stepping_back_less_than_a_window_keeps_the_logged_times(self) -> None:
        """Requests logged in the clock's future keep their times: the window they fill with
        a new request ends one window after them, so the limit holds on the times as read."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            start = clock.now
            clock.advance(30)
            for _ in range(2):
                assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None
            clock.now = start  # stepped back 30 s
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait == 30 + WINDOW
            clock.now = start + 30 + WINDOW - 0.001
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is not None
            clock.now = start + 30 + WINDOW
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None

        self._run(body)

    def test_a_clock_stepping_back_a_window_or_more_counts_future_times_as_now(self) -> None:
        """A step back of a window or more resets the clock: requests logged in its future
        fill the window for one window from now, never longer."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            start = clock.now
            clock.advance(WINDOW)
            for _ in range(2):
                assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None
            clock.now = start  # stepped back one window
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait == WINDOW
            clock.now = start + WINDOW  # their times were clamped to start: they have left
            assert (await store.admit("w", limit=2, window_seconds=WINDOW)).wait is None

        self._run(body)

    def test_windows_of_different_keys_are_independent(self) -> None:
        """Filling one key's window leaves another key's alone."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            assert (await store.admit("w1", limit=1, window_seconds=WINDOW)).wait is None
            assert (await store.admit("w1", limit=1, window_seconds=WINDOW)).wait is not None
            assert (await store.admit("w2", limit=1, window_seconds=WINDOW)).wait is None

        self._run(body)

    def test_admission_reads_live_values(self) -> None:
        """An admitted request gets the live value of every key it asked for (None if absent
        or expired); the window's own key is never among them."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            await store.set("{t}a", b"A", expires_at=clock.now + 10)
            await store.set("{t}gone", b"G", expires_at=clock.now + 1)
            clock.advance(1)
            admitted = await store.admit(
                "w", limit=5, window_seconds=WINDOW, read=["{t}a", "{t}gone", "{t}never"]
            )
            assert admitted.wait is None
            assert dict(admitted.reads.values) == {"{t}a": b"A", "{t}gone": None, "{t}never": None}
            assert await store.get("{t}a") == b"A"  # reading changed nothing

        self._run(body)

    def test_update_from_admission_reads_commits(self) -> None:
        """update_many given an admission's reads sees those values and writes its commit."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            await store.set("{t}a", b"1", expires_at=clock.now + 10)
            reads = (
                await store.admit("w", limit=5, window_seconds=WINDOW, read=["{t}a", "{t}b"])
            ).reads
            seen: list[list[bytes | None]] = []

            def bump(values: Sequence[bytes | None], now: float) -> StoreCommit[int]:
                seen.append(list(values))
                a = int(values[0] or b"0") + 1
                return StoreCommit(
                    a, {"{t}a": (str(a).encode(), now + 10), "{t}b": (b"B", now + 10)}
                )

            assert await store.update_many(["{t}a", "{t}b"], bump, reads=reads) == 2
            assert seen == [[b"1", None]]
            assert (await store.get("{t}a"), await store.get("{t}b")) == (b"2", b"B")

        self._run(body)

    def test_update_from_stale_reads_runs_again_on_the_new_values(self) -> None:
        """A key written after the admission's read makes the mutation run again on it, so no
        write is lost."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            await store.set("{t}a", b"1", expires_at=clock.now + 10)
            reads = (await store.admit("w", limit=5, window_seconds=WINDOW, read=["{t}a"])).reads
            await store.set("{t}a", b"10", expires_at=clock.now + 10)  # another writer, meanwhile

            def bump(values: Sequence[bytes | None], now: float) -> StoreCommit[int]:
                a = int(values[0] or b"0") + 1
                return StoreCommit(a, {"{t}a": (str(a).encode(), now + 10)})

            assert await store.update_many(["{t}a"], bump, reads=reads) == 11
            assert await store.get("{t}a") == b"11"

        self._run(body)

    def test_update_with_reads_of_other_keys_reads_them(self) -> None:
        """Reads that miss some of the keys (or none at all) still give the live values."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            await store.set("{t}a", b"1", expires_at=clock.now + 10)
            await store.set("{t}b", b"2", expires_at=clock.now + 10)
            reads = (await store.admit("w", limit=5, window_seconds=WINDOW, read=["{t}a"])).reads
            for given in (reads, StoreReads(), None):
                got = await store.update_many(
                    ["{t}a", "{t}b"], lambda values, now: StoreCommit(list(values)), reads=given
                )
                assert got == [b"1", b"2"]

        self._run(body)

    def test_concurrent_admissions_admit_exactly_the_limit(self) -> None:
        """Concurrent requests of one key are decided one after the other."""

        async def body(store: AsyncPipelinedStore, clock: FakeClock) -> None:
            answers = await asyncio.gather(
                *(store.admit("w", limit=7, window_seconds=WINDOW) for _ in range(20))
            )
            assert sum(answer.wait is None for answer in answers) == 7

        self._run(body)


def _skip_unless_pipelined(store: object) -> None:
    if not callable(getattr(store, "admit", None)):
        import pytest

        pytest.skip(f"{type(store).__name__} has no admit (not a pipelined store)")


class PipelinedStoreConformance(_PipelinedBehaviour):
    """Subclass in a test module and implement :meth:`make_store`; pytest collects the tests.
    A store without ``admit`` skips them."""

    def make_store(self, clock: FakeClock) -> Store:  # pragma: no cover - overridden
        raise NotImplementedError

    def _run(self, body: _Body) -> None:
        clock = FakeClock()
        store = self.make_store(clock)
        try:
            _skip_unless_pipelined(store)
            assert isinstance(store, PipelinedStore)
            asyncio.run(body(AwaitedPipelinedStore(store), clock))
        finally:
            close = getattr(store, "close", None)
            if close is not None:
                close()


class AsyncPipelinedStoreConformance(_PipelinedBehaviour):
    """:class:`PipelinedStoreConformance` for an :class:`~govcore.types.AsyncStore`."""

    def make_store(self, clock: FakeClock) -> AsyncStore:  # pragma: no cover - overridden
        raise NotImplementedError

    def _run(self, body: _Body) -> None:
        async def main() -> None:
            clock = FakeClock()
            store = self.make_store(clock)
            try:
                _skip_unless_pipelined(store)
                assert isinstance(store, AsyncPipelinedStore)
                await body(store, clock)
            finally:
                close = getattr(store, "aclose", None)
                if close is not None:
                    await close()

        asyncio.run(main())
