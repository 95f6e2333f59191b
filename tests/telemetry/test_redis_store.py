"""Store metrics and spans against a real redis-server (started by the session's fixture)."""

from __future__ import annotations

import time

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import govcore
from govcore.telemetry import Metrics
from govcore.testing import RedisServer
from tests.support import FULL_KEY, bearer, config, fresh_url, turn
from tests.telemetry.conftest import sample

pytestmark = pytest.mark.redis


def test_redis_round_trips_and_a_timeout_are_counted(
    redis_server: RedisServer, metrics: Metrics, spans: InMemorySpanExporter
) -> None:
    """On Redis a turn is two round trips (admission, commit), each counted and traced; a
    server that stops answering (CLIENT PAUSE) makes the next call a timeout: counted as an
    error and a timeout, its span and the request's failed, the answer 503."""
    import redis

    url = fresh_url(redis_server, socket_timeout="0.2", retries="1")
    gov = govcore.Governance.from_config(config(store=url), metrics=metrics)
    assert gov.client(FULL_KEY).record_turn(turn("s-1", "hello")).turn_index == 1
    assert sample(metrics, "govcore_store_calls_total", operation="admit") == 1
    assert sample(metrics, "govcore_store_calls_total", operation="update_many") == 1
    admin = redis.Redis.from_url(redis_server.url)
    try:
        admin.execute_command("CLIENT", "PAUSE", "1500", "ALL")
        answer = gov.handle("GET", "/governance/conversation/s-1", bearer(FULL_KEY))
        assert answer.status == 503
    finally:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # until the pause is over
            try:
                admin.ping()
                break
            except redis.RedisError:
                time.sleep(0.1)
        admin.close()
    assert sample(metrics, "govcore_store_errors_total", operation="admit") == 1
    assert sample(metrics, "govcore_store_timeouts_total", operation="admit") == 1
    failed = [s for s in spans.get_finished_spans() if s.name == "govcore.store.admit"][-1]
    assert dict(failed.attributes or {})["error.type"] == "timeout"
    gov.close()
