"""The in-memory store passes the store conformance suite."""

from __future__ import annotations

import pytest

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
