"""The in-memory store passes the store conformance suite."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from govcore.backends import from_url
from govcore.backends.memory import MemoryStore
from govcore.errors import ConfigError
from govcore.testing import FakeClock, StoreConformance
from govcore.types import Store, StoreWrite


class TestMemoryStore(StoreConformance):
    def make_store(self, clock: FakeClock) -> Store:
        return MemoryStore(clock=clock)


class TestMemoryStoreFromUrl(StoreConformance):
    def make_store(self, clock: FakeClock) -> Store:
        return from_url("memory://?maxsize=1000", clock=clock)


def test_capacity_drops_least_recently_used() -> None:
    """At maxsize the least recently used entry makes room for a new one."""
    clock = FakeClock()
    store = MemoryStore(clock=clock, maxsize=2)
    store.set("a", b"1", expires_at=clock.now + 60)
    store.set("b", b"2", expires_at=clock.now + 60)
    store.get("a")
    store.update("c", lambda raw: StoreWrite(b"3", clock.now + 60, None))
    assert store.get("b") is None
    assert store.get("a") == b"1"
    assert store.get("c") == b"3"
    assert len(store) == 2


def test_expired_entries_make_room_before_live_ones() -> None:
    """An expired entry never costs a live one its place, however recently it was used."""
    clock = FakeClock()
    store = MemoryStore(clock=clock, maxsize=2)
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
    while no more than maxsize entries are held (room enough here for every key)."""
    clock = FakeClock()
    store = MemoryStore(clock=clock, maxsize=4)
    model: dict[str, tuple[float, bytes]] = {}
    for number, (action, key, amount) in enumerate(steps):
        value = str(number).encode()
        if action == "advance":
            clock.advance(amount)
        elif action == "set":
            store.set(key, value, expires_at=clock.now + amount)
            model[key] = (clock.now + amount, value)
        elif action == "update":
            store.update(key, lambda raw, v=value, a=amount: StoreWrite(v, clock.now + a, None))
            model[key] = (clock.now + amount, value)
        elif action == "delete":
            store.delete(key)
            model.pop(key, None)
        live = {k: v for k, (at, v) in model.items() if at > clock.now}
        assert {k: store.get(k) for k in "abcd" if store.get(k) is not None} == live
        assert len(store) == len(live)


def test_unknown_scheme_hides_credentials() -> None:
    """An unknown store URL is a ConfigError that does not echo the password."""
    with pytest.raises(ConfigError) as caught:
        from_url("nosuch://user:secret@host:1/0")
    assert "secret" not in str(caught.value)
    assert "unknown scheme" in str(caught.value)


def test_a_store_passed_in_is_used_even_when_empty() -> None:
    """from_config keeps the store it is given, although an empty MemoryStore is falsy."""
    import govcore
    from tests.support import FULL_KEY, config, turn

    clock = FakeClock()
    store = MemoryStore(clock=clock)
    gov = govcore.Governance.from_config(config(), clock=clock, store=store)
    gov.client(FULL_KEY).record_turn(turn("s", "hello"))
    assert len(store) >= 1
