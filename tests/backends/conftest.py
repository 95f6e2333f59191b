"""The stores every conformance suite runs on: memory always, Redis when it can be started.

Redis needs a ``redis-server`` binary on PATH and the ``redis`` package (``govcore[redis]``):
without them the Redis cases skip, except in CI (``CI=true``), where they fail instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import uuid
from collections.abc import Iterator

import pytest

from govcore.testing import RedisServer

_IN_CI = os.environ.get("CI", "").lower() == "true"


def _unavailable() -> str | None:
    if shutil.which("redis-server") is None:
        return "no redis-server on PATH"
    if importlib.util.find_spec("redis") is None:
        return "needs the govcore[redis] extra: pip install 'govcore[redis]'"
    return None


def require_redis() -> None:
    """Skip the calling test without Redis (fail in CI)."""
    reason = _unavailable()
    if reason is not None:
        if _IN_CI:
            pytest.fail(f"Redis tests cannot run in CI: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server for the session; tests keep apart by key prefix (:func:`redis_url`)."""
    require_redis()
    with RedisServer() as server:
        yield server


def fresh_url(server: RedisServer, **parameters: str) -> str:
    """The server's URL with a key prefix no other test uses."""
    query = "&".join(
        f"{name}={value}"
        for name, value in {"prefix": f"t{uuid.uuid4().hex}:", **parameters}.items()
    )
    return f"{server.url}?{query}"


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return fresh_url(redis_server)


@pytest.fixture(
    params=[pytest.param("memory", id="memory"), pytest.param("redis", marks=pytest.mark.redis)]
)
def store_url(request: pytest.FixtureRequest) -> str:
    """The URL of a store to run a suite on: ``memory://``, and a Redis database."""
    if request.param == "memory":
        return "memory://"
    return fresh_url(request.getfixturevalue("redis_server"))
