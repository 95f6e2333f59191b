"""Every store the registry builds from a URL passes every conformance suite it can.

The ``store_url`` fixture (tests/backends/conftest.py) runs each suite on ``memory://`` and on
a Redis server; the pipelined suites skip the stores without ``admit``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from govcore.backends import async_store_from_url, store_from_url
from govcore.testing import (
    AsyncPipelinedStoreConformance,
    AsyncStoreConformance,
    FakeClock,
    PipelinedStoreConformance,
    StoreConformance,
)
from govcore.types import AsyncStore, Store


class _FromUrl:
    """Builds the suite's stores from the ``store_url`` fixture and closes them afterwards."""

    url: str
    opened: list[Store]

    @pytest.fixture(autouse=True)
    def _store_url(self, store_url: str) -> Iterator[None]:
        self.url = store_url
        self.opened = []
        yield
        for store in self.opened:
            close = getattr(store, "close", None)
            if close is not None:
                close()

    def make_store(self, clock: FakeClock) -> Store:
        store = store_from_url(self.url, clock=clock)
        self.opened.append(store)
        return store


class TestStore(_FromUrl, StoreConformance):
    pass


class TestPipelinedStore(_FromUrl, PipelinedStoreConformance):
    pass


class _AsyncFromUrl:
    url: str

    @pytest.fixture(autouse=True)
    def _store_url(self, store_url: str) -> None:
        self.url = store_url

    def make_store(self, clock: FakeClock) -> AsyncStore:
        return async_store_from_url(self.url, clock=clock)


class TestAsyncStore(_AsyncFromUrl, AsyncStoreConformance):
    pass


class TestAsyncPipelinedStore(_AsyncFromUrl, AsyncPipelinedStoreConformance):
    pass
