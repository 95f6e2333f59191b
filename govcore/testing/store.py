"""The behaviour every store must have, written once for all backends.

The keys one call uses together (an ``update_many``, an admission's ``read``) share a hash tag
(``{t}a``, ``{t}b``), as the store protocol promises, so the suites run on a sharded store (Redis
Cluster) too; single keys spread over the shards.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from govcore.testing.clock import FakeClock
from govcore.types import Store, StoreCommit, StoreWrite

__all__ = ["StoreConformance"]


class StoreConformance:
    """Subclass in a test module and implement :meth:`make_store`; pytest collects the tests."""

    def make_store(self, clock: FakeClock) -> Store:  # pragma: no cover - overridden
        raise NotImplementedError

    def _store(self) -> tuple[Store, FakeClock]:
        clock = FakeClock()
        return self.make_store(clock), clock

    def test_missing_key_reads_as_none(self) -> None:
        """A key never written reads as None."""
        store, _ = self._store()
        assert store.get("absent") is None

    def test_set_then_get_returns_the_bytes(self) -> None:
        """A stored value reads back unchanged before it expires."""
        store, clock = self._store()
        store.set("k", b"\x00value\xff", expires_at=clock.now + 10)
        assert store.get("k") == b"\x00value\xff"

    def test_entry_is_absent_from_its_expiry_time(self) -> None:
        """An entry reads as present just before expires_at and absent from expires_at on."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)
        clock.advance(9.999)
        assert store.get("k") == b"v"
        clock.advance(0.001)
        assert store.get("k") is None

    def test_get_does_not_renew(self) -> None:
        """Reading an entry never moves its expiry."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)
        for _ in range(5):
            clock.advance(1.9)
            assert store.get("k") == b"v"
        clock.advance(0.6)
        assert store.get("k") is None

    def test_update_sees_value_and_writes_decision(self) -> None:
        """update hands the live value to mutate and stores what it returns."""
        store, clock = self._store()
        seen: list[bytes | None] = []

        def append(raw: bytes | None, now: float) -> StoreWrite[int]:
            seen.append(raw)
            new = (raw or b"") + b"x"
            return StoreWrite(new, clock.now + 10, len(new))

        assert store.update("k", append) == 1
        assert store.update("k", append) == 2
        assert seen == [None, b"x"]
        assert store.get("k") == b"xx"

    def test_update_renews_expiry(self) -> None:
        """A write through update sets the new expiry."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)
        clock.advance(8)
        store.update("k", lambda raw, now: StoreWrite(raw, now + 10, None))
        clock.advance(8)
        assert store.get("k") == b"v"

    def test_update_without_value_leaves_entry_alone(self) -> None:
        """A mutation that returns value None changes neither the value nor the expiry."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)
        assert store.update("k", lambda raw, now: StoreWrite(None, now + 1000, "r")) == "r"
        clock.advance(10)
        assert store.get("k") is None

    def test_update_of_expired_entry_sees_none(self) -> None:
        """An expired entry is absent to update as well."""
        store, clock = self._store()
        store.set("k", b"old", expires_at=clock.now + 1)
        clock.advance(1)
        got = store.update("k", lambda raw, now: StoreWrite(b"new", now + 5, raw))
        assert got is None
        assert store.get("k") == b"new"

    def test_write_with_past_expiry_reads_absent(self) -> None:
        """A value written with an expiry already past is absent."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)
        store.set("k", b"w", expires_at=clock.now)
        assert store.get("k") is None

    def test_delete_removes_and_absent_delete_succeeds(self) -> None:
        """delete removes an entry, and deleting an absent key is not an error."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)
        store.delete("k")
        assert store.get("k") is None
        store.delete("k")
        store.delete("never")

    def test_keys_are_independent(self) -> None:
        """Entries under different keys do not affect one another."""
        store, clock = self._store()
        store.set("a", b"1", expires_at=clock.now + 10)
        store.set("b", b"2", expires_at=clock.now + 20)
        store.delete("a")
        clock.advance(15)
        assert store.get("b") == b"2"

    def test_concurrent_updates_are_atomic(self) -> None:
        """Concurrent read-modify-write updates of one key lose no increment."""
        store, _ = self._store()

        def increment(raw: bytes | None, now: float) -> StoreWrite[None]:
            count = int(raw or b"0") + 1
            return StoreWrite(str(count).encode(), now + 100, None)

        def worker(run: Callable[[], None]) -> None:
            for _ in range(200):
                run()

        threads = [
            threading.Thread(target=worker, args=(lambda: store.update("n", increment),))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert store.get("n") == b"800"

    def test_update_is_given_the_store_time(self) -> None:
        """A mutation receives the store's current time, the clock it was built with."""
        store, clock = self._store()
        clock.advance(123.5)
        seen = store.update("k", lambda raw, now: StoreWrite(None, 0.0, now))
        assert seen == clock.now

    def test_exception_in_mutation_writes_nothing(self) -> None:
        """A mutation that raises leaves the entry as it was, and the exception propagates."""
        store, clock = self._store()
        store.set("k", b"v", expires_at=clock.now + 10)

        def broken(raw: bytes | None, now: float) -> StoreWrite[None]:
            raise LookupError("bug")

        try:
            store.update("k", broken)
        except LookupError:
            pass
        else:  # pragma: no cover - the conformance failure
            raise AssertionError("the mutation's exception did not propagate")
        assert store.get("k") == b"v"

    def test_update_many_reads_in_order_and_writes_together(self) -> None:
        """update_many hands the live values in key order and stores every write."""
        store, clock = self._store()
        store.set("{t}b", b"2", expires_at=clock.now + 10)
        seen: list[Sequence[bytes | None]] = []

        def both(values: Sequence[bytes | None], now: float) -> StoreCommit[str]:
            seen.append(list(values))
            return StoreCommit("done", {"{t}a": (b"A", now + 10), "{t}b": (b"B", now + 20)})

        assert store.update_many(["{t}a", "{t}b"], both) == "done"
        assert seen == [[None, b"2"]]
        assert store.get("{t}a") == b"A"
        clock.advance(15)
        assert store.get("{t}a") is None
        assert store.get("{t}b") == b"B"

    def test_update_many_without_writes_changes_nothing(self) -> None:
        """A commit with no writes leaves every entry and expiry alone."""
        store, clock = self._store()
        store.set("{t}a", b"1", expires_at=clock.now + 10)
        assert (
            store.update_many(["{t}a", "{t}b"], lambda values, now: StoreCommit(len(values))) == 2
        )
        assert store.get("{t}a") == b"1"
        assert store.get("{t}b") is None

    def test_update_many_failure_writes_none(self) -> None:
        """A mutation of several keys that raises writes none of them."""
        store, clock = self._store()
        store.set("{t}a", b"1", expires_at=clock.now + 10)

        def broken(values: Sequence[bytes | None], now: float) -> StoreCommit[None]:
            raise LookupError("bug")

        try:
            store.update_many(["{t}a", "{t}b"], broken)
        except LookupError:
            pass
        else:  # pragma: no cover - the conformance failure
            raise AssertionError("the mutation's exception did not propagate")
        assert store.get("{t}a") == b"1"
        assert store.get("{t}b") is None

    def test_concurrent_update_many_is_atomic(self) -> None:
        """Concurrent transfers between two keys keep their sum and lose no step."""
        store, clock = self._store()
        store.set("{t}x", b"1000", expires_at=clock.now + 100)
        store.set("{t}y", b"0", expires_at=clock.now + 100)

        def transfer(values: Sequence[bytes | None], now: float) -> StoreCommit[None]:
            x, y = (int(v or b"0") for v in values)
            return StoreCommit(
                None,
                {
                    "{t}x": (str(x - 1).encode(), now + 100),
                    "{t}y": (str(y + 1).encode(), now + 100),
                },
            )

        def worker() -> None:
            for _ in range(150):
                store.update_many(["{t}x", "{t}y"], transfer)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert (store.get("{t}x"), store.get("{t}y")) == (b"400", b"600")

    def test_declares_its_backend_errors(self) -> None:
        """A store declares which exception types mean its backend is unavailable."""
        store, _ = self._store()
        errors = store.backend_errors
        assert isinstance(errors, tuple)
        assert all(isinstance(e, type) and issubclass(e, BaseException) for e in errors)
