"""The in-memory store passes the store conformance suite."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from govcore.backends.memory import ENTRY_OVERHEAD_BYTES, MemoryStore, NamespaceCapacity
from govcore.testing import FakeClock, StoreConformance
from govcore.types import Store, StoreWrite


class TestMemoryStore(StoreConformance):
    def make_store(self, clock: FakeClock) -> Store:
        return MemoryStore(clock=clock)


class TestMemoryStoreFromUrl(StoreConformance):
    def make_store(self, clock: FakeClock) -> Store:
        return MemoryStore.from_url("memory://?conv_mb=1&other_entries=1000", clock=clock)


def _small(clock: FakeClock, entries: int, max_bytes: int = 1 << 20) -> MemoryStore:
    """A store whose every namespace used in these tests holds at most ``entries``."""
    capacity = NamespaceCapacity(max_bytes=max_bytes, max_entries=entries)
    return MemoryStore(clock=clock, capacities={"": capacity, "conv": capacity, "pre": capacity})


def test_capacity_drops_least_recently_used() -> None:
    """At a namespace's entry limit the least recently used entry makes room for a new one."""
    clock = FakeClock()
    store = _small(clock, 2)
    store.set("a", b"1", expires_at=clock.now + 60)
    store.set("b", b"2", expires_at=clock.now + 60)
    store.get("a")
    store.update("c", lambda raw, now: StoreWrite(b"3", now + 60, None))
    assert store.get("b") is None
    assert store.get("a") == b"1"
    assert store.get("c") == b"3"
    assert len(store) == 2
    assert store.evictions[""] == 1


def test_byte_budget_evicts_by_size() -> None:
    """A namespace over its byte budget evicts its least recently used entries until it fits."""
    clock = FakeClock()
    budget = 3 * (ENTRY_OVERHEAD_BYTES + 1 + 100)
    store = _small(clock, 1000, max_bytes=budget)
    for key in "abc":
        store.set(key, b"x" * 100, expires_at=clock.now + 60)
    assert len(store) == 3
    store.set("d", b"x" * 150, expires_at=clock.now + 60)  # needs more room than one entry
    assert [k for k in "abcd" if store.get(k) is not None] == ["c", "d"]
    assert store.usage()[""][1] <= budget


def test_one_namespace_never_evicts_another() -> None:
    """A flood of cache entries of every tenant leaves live conversations in place."""
    clock = FakeClock()
    store = _small(clock, 10)
    store.set("conv:4:acme:chat-1", b"state", expires_at=clock.now + 600)
    for number in range(2000):
        store.set(f"pre:5:other:{number}", b"answer", expires_at=clock.now + 300)
    assert store.get("conv:4:acme:chat-1") == b"state"
    assert store.evictions["pre"] == 1990
    assert store.evictions["conv"] == 0


def test_evicted_conversation_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Evicting a conversation before its TTL is a warning naming it, and is counted."""
    clock = FakeClock()
    store = _small(clock, 1)
    store.set("conv:1:t:first", b"1", expires_at=clock.now + 600)
    with caplog.at_level("WARNING", logger="govcore.store"):
        store.set("conv:1:t:second", b"2", expires_at=clock.now + 600)
    assert store.evictions["conv"] == 1
    assert "conv:1:t:first" in caplog.text


def test_entry_larger_than_its_budget_is_not_kept() -> None:
    """A value larger than its namespace's whole budget is refused rather than evicting all."""
    clock = FakeClock()
    store = _small(clock, 10, max_bytes=ENTRY_OVERHEAD_BYTES + 20)
    store.set("a", b"1", expires_at=clock.now + 60)
    store.set("b", b"x" * 100, expires_at=clock.now + 60)
    assert store.get("a") == b"1"
    assert store.get("b") is None


def test_from_url_reads_budgets_and_refuses_unknown_parameters() -> None:
    """memory:// takes <namespace>_mb and <namespace>_entries, and nothing else."""
    store = MemoryStore.from_url("memory://?conv_entries=1", clock=FakeClock())
    store.set("conv:1:t:a", b"1", expires_at=1e12)
    store.set("conv:1:t:b", b"2", expires_at=1e12)
    assert store.get("conv:1:t:a") is None
    with pytest.raises(ValueError, match="maxsize"):
        MemoryStore.from_url("memory://?maxsize=10", clock=FakeClock())


def test_expired_entries_make_room_before_live_ones() -> None:
    """An expired entry never costs a live one its place, however recently it was used."""
    clock = FakeClock()
    store = _small(clock, 2)
    store.set("live", b"1", expires_at=clock.now + 600)
    store.set("short", b"2", expires_at=clock.now + 10)
    store.get("short")  # most recently used, but about to expire
    clock.advance(20)
    store.set("new", b"3", expires_at=clock.now + 600)
    assert store.get("live") == b"1"
    assert store.get("new") == b"3"
    assert store.get("short") is None


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["set", "get", "update", "delete", "advance"]),
            st.sampled_from("abcd"),
            st.integers(min_value=0, max_value=30),
        ),
        max_size=60,
    )
)
def test_behaves_like_a_dictionary_with_expiry_times(
    steps: list[tuple[str, str, int]],
) -> None:
    """Any sequence of writes, reads, deletes and clock moves reads as a plain model would,
    while no more than the entry limit is held (room enough here for every key)."""
    clock = FakeClock()
    store = _small(clock, 4)
    model: dict[str, tuple[float, bytes]] = {}
    for number, (action, key, amount) in enumerate(steps):
        value = str(number).encode()
        if action == "advance":
            clock.advance(amount)
        elif action == "set":
            store.set(key, value, expires_at=clock.now + amount)
            model[key] = (clock.now + amount, value)
        elif action == "update":
            store.update(key, lambda raw, now, v=value, a=amount: StoreWrite(v, now + a, None))
            model[key] = (clock.now + amount, value)
        elif action == "delete":
            store.delete(key)
            model.pop(key, None)
        live = {k: v for k, (at, v) in model.items() if at > clock.now}
        assert {k: store.get(k) for k in "abcd" if store.get(k) is not None} == live
        assert len(store) == len(live)


def test_a_store_passed_in_is_used_even_when_empty() -> None:
    """from_config keeps the store it is given, although an empty MemoryStore is falsy."""
    import govcore
    from tests.support import FULL_KEY, config, turn

    clock = FakeClock()
    store = MemoryStore(clock=clock)
    gov = govcore.Governance.from_config(config(), clock=clock, store=store)
    gov.client(FULL_KEY).record_turn(turn("s", "hello"))
    assert len(store) >= 1
