"""Every store the registry builds from a URL passes every conformance suite it can.

The ``store_url`` fixture (tests/backends/conftest.py) runs each suite on ``memory://`` and on
a Redis server; the pipelined suites run on the stores that have ``admit`` (Redis).
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
    """Builds the suite's stores from a URL and closes them afterwards."""

    url: str
    opened: list[Store]

    def _suite_on(self, url: str) -> Iterator[None]:
        self.url = url
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
    @pytest.fixture(autouse=True)
    def _on_each_store(self, store_url: str) -> Iterator[None]:
        yield from self._suite_on(store_url)


@pytest.mark.redis
class TestPipelinedStore(_FromUrl, PipelinedStoreConformance):
    @pytest.fixture(autouse=True)
    def _on_redis(self, redis_url: str) -> Iterator[None]:
        yield from self._suite_on(redis_url)


class _AsyncFromUrl:
    url: str

    def make_store(self, clock: FakeClock) -> AsyncStore:
        return async_store_from_url(self.url, clock=clock)


class TestAsyncStore(_AsyncFromUrl, AsyncStoreConformance):
    @pytest.fixture(autouse=True)
    def _on_each_store(self, store_url: str) -> None:
        self.url = store_url


@pytest.mark.redis
class TestAsyncPipelinedStore(_AsyncFromUrl, AsyncPipelinedStoreConformance):
    @pytest.fixture(autouse=True)
    def _on_redis(self, redis_url: str) -> None:
        self.url = redis_url
