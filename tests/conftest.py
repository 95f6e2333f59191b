"""Fixtures shared by the tests; the data they use lives in :mod:`tests.support`.

Redis needs a ``redis-server`` binary on PATH and the ``redis`` package (``govcore[redis]``):
without them the Redis tests skip, except in CI (``CI=true``), where they fail instead.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import govcore
from govcore.testing import FakeClock, RedisServer
from tests.support import EXAMPLE_CONFIG, START_TIME, fresh_url, lifecycle_config, require_redis


@pytest.fixture(scope="module")
def module_clock() -> FakeClock:
    """One fake clock per test module, shared with that module's ``module_governance``."""
    return FakeClock(START_TIME)


@pytest.fixture(scope="module")
def module_governance(module_clock: FakeClock) -> govcore.Governance:
    """The test configuration, built once per module on the module's fake clock."""
    return govcore.Governance.from_config(lifecycle_config(), clock=module_clock)


@pytest.fixture(scope="module")
def module_example_governance(module_clock: FakeClock) -> govcore.Governance:
    """The example deployment (govcore/demo/acme/govcore.yaml) on the module's fake clock."""
    return govcore.Governance.from_config(EXAMPLE_CONFIG, clock=module_clock)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server for the session; tests keep apart by key prefix (:func:`redis_url`)."""
    require_redis()
    with RedisServer() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return fresh_url(redis_server)
