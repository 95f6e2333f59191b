"""The Redis store through Redis Sentinel: a primary, a replica and three sentinels started by
the fixtures (govcore.testing.RedisSentinel).

The URL's form and refusals, the conformance suites on the primary the sentinels name, the
decision log stream, a failover under load (the primary killed with SIGKILL while threads record
turns), and ``wait_replicas``: a write acknowledged only once a replica has it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

import govcore
from govcore.backends import async_store_from_url, store_from_url
from govcore.backends.redis import RedisDecisionLog, RedisOptions, ReplicationTimeoutError
from govcore.errors import ConfigError
from govcore.testing import (
    AsyncStoreConformance,
    FakeClock,
    PipelinedStoreConformance,
    RedisSentinel,
    RedisServer,
    StoreConformance,
)
from govcore.types import AsyncStore, Store, StoreWrite
from tests.backends.failover_load import (
    FAST,
    TURN_PATH,
    check_nothing_lost_or_repeated,
    load_config,
    run_tasks,
    run_threads,
)
from tests.support import FULL_KEY, bearer, config, decision, fresh_url, require_redis, turn

SECRET = "s3cr3t-pa55"


def _prefix() -> str:
    return f"t{uuid.uuid4().hex}:"


@pytest.fixture(scope="module")
def deployment() -> Iterator[RedisSentinel]:
    """One deployment for the tests that do not fail it over."""
    require_redis()
    with RedisSentinel() as started:
        yield started


@pytest.fixture
def own_deployment() -> Iterator[RedisSentinel]:
    """A deployment of the test's own, to fail over."""
    require_redis()
    with RedisSentinel() as started:
        yield started


# --- the URL (no server) -----------------------------------------------------------------------


def test_sentinel_url_names_the_sentinels_the_service_and_the_database() -> None:
    """The hosts are the sentinels (26379 when no port is given), the path the service name and
    the database; the URL's password is the primary's, the sentinels' come from parameters."""
    options = RedisOptions.parse(
        f"redis+sentinel://app:{SECRET}@10.0.0.1:26380,10.0.0.2,[::1]:26381/orders/3"
        "?sentinel_password=other&prefix=p:"
    )
    assert options.service_name == "orders"
    assert options.db == 3
    assert options.seed_nodes() == [("10.0.0.1", 26380), ("10.0.0.2", 26379), ("::1", 26381)]
    assert (options.username, options.password) == ("app", SECRET)
    assert (options.sentinel_username, options.sentinel_password) == (None, "other")
    assert not options.tls
    assert SECRET not in repr(options)
    assert SECRET not in options.shown()
    assert options.shown().startswith("redis+sentinel://10.0.0.1:26380,10.0.0.2:26379,")
    assert RedisOptions.parse("rediss+sentinel://h:1/svc").tls
    assert RedisOptions.parse("redis+sentinel://h:1/svc").db == 0


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("redis+sentinel://h:1", "/service_name"),
        ("redis+sentinel://h:1/svc/0/more", "/service_name"),
        ("redis+sentinel://h:1/svc/zero", "database"),
        ("redis+sentinel://h:1,h:port/svc", "sentinel's host or port"),
        ("redis+sentinel://h:1/svc?cluster=true", "unknown parameter 'cluster'"),
        ("redis+sentinel://u:pw@h1:1,u2:pw2@h2/svc", "one user:password@ before its list"),
        ("redis+sentinel://a@h1:1,b@h2/svc", "one user:password@ before its list"),
        ("redis+sentinel://h1:1,@h2/svc", "one user:password@ before its list"),
        ("redis://h:1/0?sentinel_password=x", "unknown parameter 'sentinel_password'"),
        ("redis://h:1/0?wait_replicas=17", "'wait_replicas' must be a whole number from 0"),
        ("redis://h:1/0?wait_timeout=1", "'wait_timeout' needs 'wait_replicas'"),
        ("redis://h:1/0?wait_replicas=1&wait_timeout=0", "'wait_timeout' must be more than 0"),
    ],
)
def test_bad_sentinel_and_wait_parameters_are_refused(url: str, reason: str) -> None:
    """Each bad part of a URL is refused with a message naming it."""
    with pytest.raises(ValueError, match=re.escape(reason)):
        RedisOptions.parse(url)


def test_a_refused_sentinel_url_is_a_config_error_without_credentials() -> None:
    """Through the registry, a refused Sentinel URL names settings.store and hides the password,
    and a list of sentinels is not called a malformed URL."""
    require_redis()
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"redis+sentinel://admin:{SECRET}@h:1,h:2/svc/x", clock=FakeClock())
    message = str(caught.value)
    assert "settings.store" in message
    assert "database of a Redis URL is a number" in message
    assert "malformed store URL" not in message
    assert SECRET not in message


# --- the conformance suites -------------------------------------------------------------------


class _FromUrl:
    url: str
    opened: list[Store]

    def make_store(self, clock: FakeClock) -> Store:
        store = store_from_url(self.url, clock=clock)
        self.opened.append(store)
        return store


@pytest.mark.redis
class TestStoreThroughSentinel(_FromUrl, StoreConformance):
    @pytest.fixture(autouse=True)
    def _through_sentinel(self, deployment: RedisSentinel) -> Iterator[None]:
        self.url, self.opened = f"{deployment.url}?prefix={_prefix()}", []
        yield
        for store in self.opened:
            store.close()  # type: ignore[attr-defined]


@pytest.mark.redis
class TestPipelinedStoreThroughSentinel(_FromUrl, PipelinedStoreConformance):
    @pytest.fixture(autouse=True)
    def _through_sentinel(self, deployment: RedisSentinel) -> Iterator[None]:
        self.url, self.opened = f"{deployment.url}?prefix={_prefix()}", []
        yield
        for store in self.opened:
            store.close()  # type: ignore[attr-defined]


@pytest.mark.redis
class TestAsyncStoreThroughSentinel(AsyncStoreConformance):
    @pytest.fixture(autouse=True)
    def _through_sentinel(self, deployment: RedisSentinel) -> None:
        self.url = f"{deployment.url}?prefix={_prefix()}"

    def make_store(self, clock: FakeClock) -> AsyncStore:
        return async_store_from_url(self.url, clock=clock)


@pytest.mark.redis
def test_writes_reach_the_primary_the_sentinels_name(deployment: RedisSentinel) -> None:
    """A turn recorded through the Sentinel URL is on the primary and copied to the replica."""
    import redis

    prefix = _prefix()
    gov = govcore.Governance.from_config(config(store=f"{deployment.url}?prefix={prefix}"))
    answer = gov.handle("POST", TURN_PATH, bearer(FULL_KEY), json.dumps(turn("s1", "hello")))
    assert answer.status == 200, answer.body
    gov.close()
    primary = deployment.primary_port()
    assert primary is not None
    replica = next(s.port for s in deployment.servers if s.port != primary)
    for port in (primary, replica):
        with redis.Redis(port=port) as client:
            deadline = time.monotonic() + 5
            while not client.keys(f"{prefix}*") and time.monotonic() < deadline:
                time.sleep(0.01)  # the replica's copy is asynchronous
            assert client.keys(f"{prefix}*"), port


@pytest.mark.redis
def test_the_decision_log_stream_through_sentinel(deployment: RedisSentinel) -> None:
    """The decision log stream takes a Sentinel URL, and its entries land on the primary."""
    import redis

    stream = f"audit:{uuid.uuid4().hex}"
    sink = RedisDecisionLog.from_url(f"{deployment.url}?stream={stream}&maxlen=10")
    for n in range(50):
        sink.record(decision(n))
    sink.close()
    primary = deployment.primary_port()
    with redis.Redis(port=primary) as client:
        assert 10 <= client.xlen(stream) < 50
        ((_, fields),) = client.xrevrange(stream, count=1)
    assert b'"decision_id":"d49"' in fields[b"decision"]


# --- a failover under load --------------------------------------------------------------------


def _kill_primary(deployment: RedisSentinel) -> tuple[int, Callable[[], None]]:
    primary = deployment.primary_port()
    assert primary is not None
    return primary, lambda: deployment.server_on(primary).stop(kill=True)


@pytest.mark.redis
def test_a_failover_under_load_loses_and_repeats_no_acknowledged_turn(
    own_deployment: RedisSentinel,
) -> None:
    """Four threads record turns with idempotency keys; the primary is killed with SIGKILL a
    third of the way in. Every answer is 200 or 503, every turn is recorded once, and the
    service is back within 10 s (each refused turn is answered within that time of retrying)."""
    old, kill = _kill_primary(own_deployment)
    url = f"{own_deployment.url}?prefix={_prefix()}&{FAST}"
    check_nothing_lost_or_repeated(*run_threads(url, kill))
    assert own_deployment.primary_port() not in (None, old)


@pytest.mark.redis
@pytest.mark.slow
# redis-py's asyncio Sentinel pool can leave the connections that were in use when it learned
# of the new primary for the garbage collector to close (seen with redis 8.1), after aclose().
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_failover_under_load_through_the_asyncio_store(own_deployment: RedisSentinel) -> None:
    """The same failover served by AsyncGovernance (asyncio store), four tasks at once."""
    old, kill = _kill_primary(own_deployment)
    url = f"{own_deployment.url}?prefix={_prefix()}&{FAST}"
    try:
        check_nothing_lost_or_repeated(*run_tasks(url, kill))
        assert own_deployment.primary_port() not in (None, old)
    finally:
        # Close what the pool left to the garbage collector now, while the warning is ignored
        # here, not during whichever later test the collector happens to run in.
        gc.collect()


# --- wait_replicas ----------------------------------------------------------------------------


@pytest.mark.redis
def test_with_wait_replicas_a_turn_is_acknowledged_once_the_replica_has_it(
    own_deployment: RedisSentinel,
) -> None:
    """With wait_replicas=1 a turn is answered 200 while the replica follows; with the replica
    gone it is answered 503 (the write is on the primary only), and the retry with the same
    idempotency key, once the replica is back, answers the same turn without recording it
    twice."""
    url = f"{own_deployment.url}?prefix={_prefix()}&wait_replicas=1&wait_timeout=0.3"
    gov = govcore.Governance.from_config(load_config(url))

    def record(number: int) -> govcore.HttpResponse:
        body = turn("w", f"parcel {number}", idempotencyKey=f"w-{number}")
        return gov.handle("POST", TURN_PATH, bearer(FULL_KEY), json.dumps(body))

    assert record(1).status == 200
    (replica,) = own_deployment.replicas
    replica.stop(kill=True)
    refused = record(2)
    assert refused.status == 503
    assert refused.json()["error"] == "backend_unavailable"
    replica.start()
    own_deployment.wait_until_watched()
    answered = record(2)
    assert answered.status == 200
    assert answered.json()["turnIndex"] == 2
    assert gov.client(FULL_KEY).get_conversation("w").turn_count == 2
    gov.close()


@pytest.mark.redis
def test_wait_replicas_without_replicas_fails_the_write_with_a_declared_error(
    redis_server: RedisServer,
) -> None:
    """On a server with no replica, every write (set, delete, commit) raises
    ReplicationTimeoutError, a declared backend error; reads still answer."""
    clock = FakeClock()
    store = store_from_url(
        fresh_url(redis_server, wait_replicas="1", wait_timeout="0.05"), clock=clock
    )
    assert ReplicationTimeoutError in store.backend_errors  # type: ignore[attr-defined]
    with pytest.raises(ReplicationTimeoutError, match="0 of the 1 replica"):
        store.set("k", b"v", expires_at=clock() + 60)
    assert store.get("k") == b"v"  # the primary applied it: only the acknowledgement failed
    with pytest.raises(ReplicationTimeoutError):
        store.delete("k")
    assert store.get("k") is None
    with pytest.raises(ReplicationTimeoutError):
        store.update("k", lambda _value, now: StoreWrite(b"x", now + 60, None))
    assert store.get("k") == b"x"
    store.close()  # type: ignore[attr-defined]


@pytest.mark.redis
def test_wait_replicas_on_the_asyncio_store(redis_server: RedisServer) -> None:
    """The asyncio store waits the same way."""
    url = fresh_url(redis_server, wait_replicas="1", wait_timeout="0.05")

    async def scenario() -> None:
        clock = FakeClock()
        store = async_store_from_url(url, clock=clock)
        with pytest.raises(ReplicationTimeoutError):
            await store.set("k", b"v", expires_at=clock() + 60)
        with pytest.raises(ReplicationTimeoutError):
            await store.update("k", lambda _value, now: StoreWrite(b"x", now + 60, None))
        assert await store.get("k") == b"x"
        await store.aclose()  # type: ignore[attr-defined]

    asyncio.run(scenario())
