"""The behaviour of :class:`~govcore.types.AsyncStore`: :class:`StoreConformance`, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from govcore.testing.clock import FakeClock
from govcore.types import AsyncStore, StoreCommit, StoreWrite

__all__ = ["AsyncStoreConformance"]

_Body = Callable[[AsyncStore, FakeClock], Awaitable[None]]


class AsyncStoreConformance:
    """Subclass in a test module and implement :meth:`make_store`; pytest collects the tests.

    Each test runs in its own event loop (``asyncio.run``), and builds its store inside it; a
    store with an ``aclose`` coroutine method is closed at the end.
    """

    def make_store(self, clock: FakeClock) -> AsyncStore:  # pragma: no cover - overridden
        raise NotImplementedError

    def _run(self, body: _Body) -> None:
        async def main() -> None:
            clock = FakeClock()
            store = self.make_store(clock)
            try:
                await body(store, clock)
            finally:
                close = getattr(store, "aclose", None)
                if close is not None:
                    await close()

        asyncio.run(main())

    def test_missing_key_reads_as_none(self) -> None:
        """A key never written reads as None."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            assert await store.get("absent") is None

        self._run(body)

    def test_set_then_get_and_expiry(self) -> None:
        """A stored value reads back unchanged until just before expires_at, then is absent."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("k", b"\x00value\xff", expires_at=clock.now + 10)
            assert await store.get("k") == b"\x00value\xff"
            clock.advance(9.999)
            assert await store.get("k") == b"\x00value\xff"
            clock.advance(0.001)
            assert await store.get("k") is None

        self._run(body)

    def test_get_does_not_renew(self) -> None:
        """Reading an entry never moves its expiry."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("k", b"v", expires_at=clock.now + 10)
            for _ in range(5):
                clock.advance(1.9)
                assert await store.get("k") == b"v"
            clock.advance(0.6)
            assert await store.get("k") is None

        self._run(body)

    def test_update_sees_value_writes_decision_and_renews(self) -> None:
        """update hands the live value and the store's time to mutate and stores its write."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            seen: list[tuple[bytes | None, float]] = []

            def append(raw: bytes | None, now: float) -> StoreWrite[int]:
                seen.append((raw, now))
                new = (raw or b"") + b"x"
                return StoreWrite(new, now + 10, len(new))

            assert await store.update("k", append) == 1
            clock.advance(8)
            assert await store.update("k", append) == 2
            assert seen == [(None, clock.now - 8), (b"x", clock.now)]
            clock.advance(8)
            assert await store.get("k") == b"xx"

        self._run(body)

    def test_update_without_value_leaves_entry_alone(self) -> None:
        """A mutation that returns value None changes neither the value nor the expiry."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("k", b"v", expires_at=clock.now + 10)
            assert (
                await store.update("k", lambda raw, now: StoreWrite(None, now + 1000, "r")) == "r"
            )
            clock.advance(10)
            assert await store.get("k") is None

        self._run(body)

    def test_update_of_expired_entry_sees_none(self) -> None:
        """An expired entry is absent to update as well."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("k", b"old", expires_at=clock.now + 1)
            clock.advance(1)
            got = await store.update("k", lambda raw, now: StoreWrite(b"new", now + 5, raw))
            assert got is None
            assert await store.get("k") == b"new"

        self._run(body)

    def test_write_with_past_expiry_reads_absent(self) -> None:
        """A value written with an expiry already past is absent."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("k", b"v", expires_at=clock.now + 10)
            await store.set("k", b"w", expires_at=clock.now)
            assert await store.get("k") is None

        self._run(body)

    def test_delete_removes_and_absent_delete_succeeds(self) -> None:
        """delete removes an entry, and deleting an absent key is not an error."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("k", b"v", expires_at=clock.now + 10)
            await store.set("other", b"o", expires_at=clock.now + 10)
            await store.delete("k")
            assert await store.get("k") is None
            await store.delete("k")
            await store.delete("never")
            assert await store.get("other") == b"o"

        self._run(body)

    def test_exception_in_mutation_writes_nothing(self) -> None:
        """A mutation that raises leaves every entry as it was, and the exception propagates."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("{t}a", b"1", expires_at=clock.now + 10)

            def broken(values: Sequence[bytes | None], now: float) -> StoreCommit[None]:
                raise LookupError("bug")

            def broken_one(raw: bytes | None, now: float) -> StoreWrite[None]:
                raise LookupError("bug")

            for attempt in (
                store.update_many(["{t}a", "{t}b"], broken),
                store.update("{t}a", broken_one),
            ):
                try:
                    await attempt
                except LookupError:
                    pass
                else:  # pragma: no cover - the conformance failure
                    raise AssertionError("the mutation's exception did not propagate")
            assert await store.get("{t}a") == b"1"
            assert await store.get("{t}b") is None

        self._run(body)

    def test_update_many_reads_in_order_and_writes_together(self) -> None:
        """update_many hands the live values in key order and stores every write."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("{t}b", b"2", expires_at=clock.now + 10)
            seen: list[list[bytes | None]] = []

            def both(values: Sequence[bytes | None], now: float) -> StoreCommit[str]:
                seen.append(list(values))
                return StoreCommit("done", {"{t}a": (b"A", now + 10), "{t}b": (b"B", now + 20)})

            assert await store.update_many(["{t}a", "{t}b"], both) == "done"
            assert seen == [[None, b"2"]]
            assert await store.get("{t}a") == b"A"
            clock.advance(15)
            assert await store.get("{t}a") is None
            assert await store.get("{t}b") == b"B"

        self._run(body)

    def test_update_many_without_writes_changes_nothing(self) -> None:
        """A commit with no writes leaves every entry and expiry alone."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("{t}a", b"1", expires_at=clock.now + 10)
            got = await store.update_many(
                ["{t}a", "{t}b"], lambda values, now: StoreCommit(len(values))
            )
            assert got == 2
            assert await store.get("{t}a") == b"1"
            assert await store.get("{t}b") is None

        self._run(body)

    def test_concurrent_updates_are_atomic(self) -> None:
        """Concurrent tasks' read-modify-write updates lose no increment or transfer."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            await store.set("{t}x", b"400", expires_at=clock.now + 100)

            def increment(raw: bytes | None, now: float) -> StoreWrite[None]:
                return StoreWrite(str(int(raw or b"0") + 1).encode(), now + 100, None)

            def transfer(values: Sequence[bytes | None], now: float) -> StoreCommit[None]:
                x, y = (int(v or b"0") for v in values)
                writes = {
                    "{t}x": (str(x - 1).encode(), now + 100),
                    "{t}y": (str(y + 1).encode(), now + 100),
                }
                return StoreCommit(None, writes)

            async def worker() -> None:
                for _ in range(50):
                    await store.update("n", increment)
                    await store.update_many(["{t}x", "{t}y"], transfer)

            await asyncio.gather(*(worker() for _ in range(4)))
            assert await store.get("n") == b"200"
            assert (await store.get("{t}x"), await store.get("{t}y")) == (b"200", b"200")

        self._run(body)

    def test_declares_its_backend_errors(self) -> None:
        """A store declares which exception types mean its backend is unavailable."""

        async def body(store: AsyncStore, clock: FakeClock) -> None:
            errors = store.backend_errors
            assert isinstance(errors, tuple)
            assert all(isinstance(e, type) and issubclass(e, BaseException) for e in errors)

        self._run(body)
