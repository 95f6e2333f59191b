"""The stores every conformance suite runs on: memory always, Redis when it can be started
(the Redis fixtures are in tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.support import fresh_url


@pytest.fixture(
    params=[pytest.param("memory", id="memory"), pytest.param("redis", marks=pytest.mark.redis)]
)
def store_url(request: pytest.FixtureRequest) -> str:
    """The URL of a store to run a suite on: ``memory://``, and a Redis database."""
    if request.param == "memory":
        return "memory://"
    return fresh_url(request.getfixturevalue("redis_server"))
