"""The Redis store on a Redis Cluster of three primaries (one cluster for the module).

The conformance suites, both facades recording turns of tenants whose keys live on different
nodes, the round trips of a turn counted per node, scripts missing on a node, the decision log
stream, and a cluster that does not answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import govcore
from govcore.backends import async_store_from_url, store_from_url
from govcore.backends.redis import (
    COMMIT_SCRIPT,
    AsyncRedisStore,
    RedisDecisionLog,
    RedisOptions,
    RedisStore,
)
from govcore.service.store_keys import conversation_key, idempotency_key
from govcore.testing import (
    AsyncPipelinedStoreConformance,
    AsyncStoreConformance,
    FakeClock,
    PipelinedStoreConformance,
    RedisCluster,
    RedisServer,
    StoreConformance,
)
from govcore.types import AsyncStore, Store
from tests.backends.failover_load import (
    FAST,
    check_nothing_lost_or_repeated,
    run_tasks,
    run_threads,
)
from tests.support import bearer, decision, policy, require_redis, turn

require_redis()
import redis  # noqa: E402  (the extra: only after the check above)
from redis.cluster import ClusterNode  # noqa: E402
from redis.cluster import RedisCluster as ClusterClient  # noqa: E402

pytestmark = pytest.mark.redis
PREFIX = "/api/v1/agent/governance"
TENANTS = ("acme", "globex", "initech", "umbrella", "hooli", "wonka")
SLOW_KEY = "gk_cluster_slow_0001"
COMMIT_SHA = hashlib.sha1(COMMIT_SCRIPT.encode()).hexdigest()  # noqa: S324 - a script's name


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster]:
    require_redis()
    with RedisCluster() as started:
        yield started


@pytest.fixture(scope="module")
def admin(cluster: RedisCluster) -> Iterator[ClusterClient]:
    client = ClusterClient(startup_nodes=[ClusterNode("127.0.0.1", cluster.ports[0])])
    yield client
    client.close()


def _prefix() -> str:
    return f"t{uuid.uuid4().hex}:"


def _url(cluster: RedisCluster, prefix: str) -> str:
    return f"{cluster.url}&prefix={prefix}"


def _node_of(admin: ClusterClient, key: str) -> int:
    port: int = admin.get_node_from_key(key).port
    return port


def _tenant_key(tenant: str) -> str:
    return f"gk_cluster_{tenant}_0001"


def _config(**settings: Any) -> dict[str, Any]:
    """One policy per tenant, a key per tenant, and a slow key (2 requests a minute)."""
    unlimited = {"rate_limit_per_minute": 1_000_000, "tool_call_governance": "allowed"}
    return {
        "settings": settings,
        "tenants": {
            t: {"policies": [policy(f"{t}-refunds", summary="Refunds.", tags=["refund"])]}
            for t in TENANTS
        },
        "keys": [
            *({"key": _tenant_key(t), "tenant": t, "settings": unlimited} for t in TENANTS),
            {"key": SLOW_KEY, "tenant": "acme", "settings": {"rate_limit_per_minute": 2}},
        ],
    }


# --- the conformance suites --------------------------------------------------------------------


class _FromUrl:
    url: str
    opened: list[Store]

    def make_store(self, clock: FakeClock) -> Store:
        store = store_from_url(self.url, clock=clock)
        self.opened.append(store)
        return store


class TestStoreOnCluster(_FromUrl, StoreConformance):
    @pytest.fixture(autouse=True)
    def _on_cluster(self, cluster: RedisCluster) -> Iterator[None]:
        self.url, self.opened = _url(cluster, _prefix()), []
        yield
        for store in self.opened:
            store.close()  # type: ignore[attr-defined]


class TestPipelinedStoreOnCluster(_FromUrl, PipelinedStoreConformance):
    @pytest.fixture(autouse=True)
    def _on_cluster(self, cluster: RedisCluster) -> Iterator[None]:
        self.url, self.opened = _url(cluster, _prefix()), []
        yield
        for store in self.opened:
            store.close()  # type: ignore[attr-defined]


class _AsyncFromUrl:
    url: str

    def make_store(self, clock: FakeClock) -> AsyncStore:
        return async_store_from_url(self.url, clock=clock)


class TestAsyncStoreOnCluster(_AsyncFromUrl, AsyncStoreConformance):
    @pytest.fixture(autouse=True)
    def _on_cluster(self, cluster: RedisCluster) -> None:
        self.url = _url(cluster, _prefix())


class TestAsyncPipelinedStoreOnCluster(_AsyncFromUrl, AsyncPipelinedStoreConformance):
    @pytest.fixture(autouse=True)
    def _on_cluster(self, cluster: RedisCluster) -> None:
        self.url = _url(cluster, _prefix())


def test_the_suites_keys_spread_over_the_nodes(admin: ClusterClient) -> None:
    """The suites' single keys and their tagged pairs do not all live on one node, so the
    suites above exercise more than one node."""
    nodes = {_node_of(admin, "p:" + key) for key in ("k", "w", "w1", "w2", "{t}a")}
    assert len(nodes) >= 2


# --- the URL ----------------------------------------------------------------------------------


def test_cluster_url_parameters() -> None:
    """cluster=true takes seed nodes and database 0 only; near misses are refused by name."""
    options = RedisOptions.parse("redis://u:s3cret@h1:7000?cluster=true&nodes=h2:7001,[::1]:7002")
    assert options.cluster
    assert options.seed_nodes() == [("h1", 7000), ("h2", 7001), ("::1", 7002)]
    assert "s3cret" not in repr(options)
    assert "s3cret" not in options.shown()
    assert "cluster=true" in options.shown()
    assert not RedisOptions.parse("redis://h1:7000?cluster=false").cluster
    assert not RedisOptions.parse("redis://h1:7000").cluster
    refused = {
        "redis://h:1/2?cluster=true": "database 0",
        "redis://h:1?cluster=yes": "'cluster' must be true or false",
        "redis://h:1?nodes=h2:2": "add cluster=true",
        "redis://h:1?cluster=true&nodes=h2": "host:port",
        "redis://h:1?cluster=true&nodes=h2:2,": "host:port",
        "redis://h:1?cluster=true&nodes=u:p@h2:2": "host:port",
    }
    for url, reason in refused.items():
        with pytest.raises(ValueError, match=reason):
            RedisOptions.parse(url)
    assert RedisOptions.parse("redis://h:1/0?cluster=true").cluster


def test_an_unreachable_cluster_is_a_declared_backend_error() -> None:
    """Building the store contacts nobody; its calls fail with a declared backend error."""
    store = RedisStore.from_url("redis://127.0.0.1:1?cluster=true&connect_timeout=0.2&retries=0")
    with pytest.raises(store.backend_errors):
        store.get("k")
    store.close()

    async def scenario() -> None:
        url = "redis://127.0.0.1:1?cluster=true&connect_timeout=0.2&retries=0"
        astore = AsyncRedisStore.from_url(url)
        with pytest.raises(astore.backend_errors):
            await astore.get("k")
        await astore.aclose()

    asyncio.run(scenario())


# --- both facades -------------------------------------------------------------------------------


def _call(gov: govcore.Governance, key: str, method: str, path: str, body: Any = None) -> Any:
    answer = gov.handle(method, PREFIX + path, bearer(key), json.dumps(body) if body else None)
    return answer.status, json.loads(answer.body) if answer.body else None


def test_governance_on_the_cluster(cluster: RedisCluster, admin: ClusterClient) -> None:
    """Turns of six tenants land on different nodes, each tenant's records on its tag's node;
    idempotent turns replay, the rate limit refuses, GET and DELETE work."""
    prefix = _prefix()
    gov = govcore.Governance.from_config(_config(store=_url(cluster, prefix)), clock=FakeClock())
    for tenant in TENANTS:
        for content in ("refund for my order", "and the refund?"):
            status, _ = _call(
                gov, _tenant_key(tenant), "POST", "/conversation/turn", turn("s", content)
            )
            assert status == 200
    homes = {}
    for tenant in TENANTS:
        key = prefix + conversation_key(tenant, "s")
        assert admin.exists(key) == 1
        homes[tenant] = _node_of(admin, key)
        # The tenant's tag decides the slot: its records share it whatever the session.
        assert admin.cluster_keyslot(key) == admin.cluster_keyslot(
            prefix + conversation_key(tenant, "another session")
        )
        status, body = _call(gov, _tenant_key(tenant), "GET", "/conversation/s")
        assert status == 200
        assert body["turnCount"] == 2
    assert len(set(homes.values())) >= 2, homes  # several nodes serve these tenants

    idempotent = turn("i", "refund", idempotencyKey="once")
    first = _call(gov, _tenant_key("globex"), "POST", "/conversation/turn", idempotent)
    again = _call(gov, _tenant_key("globex"), "POST", "/conversation/turn", idempotent)
    assert first == again
    assert first[0] == 200
    assert _call(gov, _tenant_key("globex"), "GET", "/conversation/i")[1]["turnCount"] == 1
    record = prefix + idempotency_key("globex", "turn", "once")
    found = list(admin.scan_iter(match=f"{prefix}idem:*"))
    assert found, "the idempotency record is stored"
    assert all(admin.cluster_keyslot(k) == admin.cluster_keyslot(record) for k in found)

    statuses = [
        _call(gov, SLOW_KEY, "POST", "/conversation/turn", turn("slow", "hi"))[0] for _ in range(3)
    ]
    assert statuses == [200, 200, 429]

    assert _call(gov, _tenant_key("wonka"), "DELETE", "/conversation/s")[0] == 204
    assert _call(gov, _tenant_key("wonka"), "GET", "/conversation/s")[0] == 404
    assert admin.exists(prefix + conversation_key("wonka", "s")) == 0
    assert _call(gov, _tenant_key("acme"), "GET", "/conversation/s")[0] == 200
    gov.close()


def test_message_ids_on_the_cluster(cluster: RedisCluster) -> None:
    """A message id recorded through one facade replays through the other kind of client on the
    cluster (the ids live in the conversation's one key), and a restarted Governance knows it."""
    url = _url(cluster, _prefix())
    key = _tenant_key("hooli")
    with govcore.Governance.from_config(_config(store=url), clock=FakeClock()) as gov:
        client = gov.client(key)
        assert client.record_turn(turn("s", "refund"), message_id="m1").turn_index == 1

        async def replay() -> int:
            answer = await client.aio.record_turn(turn("s", "refund"), message_id="m1")
            twin = client.aio._store
            assert isinstance(twin, AsyncRedisStore)
            await twin.aclose()
            return answer.turn_index

        assert asyncio.run(replay()) == 1
    with govcore.Governance.from_config(_config(store=url), clock=FakeClock()) as restarted:
        again = restarted.client(key).record_turn(turn("s", "refund"), message_id="m1")
        assert again.turn_index == 1
        assert restarted.client(key).record_turn(turn("s", "more")).turn_index == 2


def test_async_governance_on_the_cluster(cluster: RedisCluster, admin: ClusterClient) -> None:
    """AsyncGovernance records, replays, rate-limits and deletes on the cluster as well, and
    shares its records with a blocking Governance on the same URL."""
    prefix = _prefix()
    url = _url(cluster, prefix)

    async def scenario() -> list[int]:
        statuses = []
        async with govcore.AsyncGovernance.from_config(_config(store=url)) as gov:
            for tenant in TENANTS:
                client = gov.client(_tenant_key(tenant))
                recorded = await client.record_turn(turn("a", "refund please"))
                assert recorded.turn_index == 1
            body = turn("a", "refund", idempotencyKey="k")
            for _ in range(2):
                answer = await gov.handle(
                    "POST",
                    PREFIX + "/conversation/turn",
                    bearer(_tenant_key("hooli")),
                    json.dumps(body),
                )
                statuses.append(answer.status)
            for _ in range(3):
                answer = await gov.handle(
                    "POST",
                    PREFIX + "/conversation/turn",
                    bearer(SLOW_KEY),
                    json.dumps(turn("x", "hi")),
                )
                statuses.append(answer.status)
            deleted = await gov.handle(
                "DELETE", PREFIX + "/conversation/a", bearer(_tenant_key("initech")), None
            )
            statuses.append(deleted.status)
        return statuses

    assert asyncio.run(scenario()) == [200, 200, 200, 200, 429, 204]
    nodes = {_node_of(admin, prefix + conversation_key(t, "a")) for t in TENANTS}
    assert len(nodes) >= 2
    blocking = govcore.Governance.from_config(_config(store=url))
    assert _call(blocking, _tenant_key("hooli"), "GET", "/conversation/a")[1]["turnCount"] == 2
    assert _call(blocking, _tenant_key("initech"), "GET", "/conversation/a")[0] == 404
    blocking.close()


# --- round trips, scripts ---------------------------------------------------------------------


SENT: Counter[int] = Counter()
"""Sends per node port, while counting (one send is one round trip: a pipeline sends each node
its commands at once)."""


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """Counts every connection's sends by the port it talks to, for the test's duration."""
    original = redis.connection.AbstractConnection.send_packed_command

    def send_packed_command(self: Any, command: Any, check_health: bool = True) -> None:
        SENT[self.port] += 1
        original(self, command, check_health)

    monkeypatch.setattr(
        redis.connection.AbstractConnection, "send_packed_command", send_packed_command
    )
    SENT.clear()
    return SENT


def test_a_turn_is_two_round_trips_on_the_cluster(
    cluster: RedisCluster, admin: ClusterClient, counting: Counter[int]
) -> None:
    """A turn sends the admission (the rate key's node and the conversation's node, written
    before either answer is read), then the commit (the conversation's node): two round trips,
    whichever nodes serve the keys."""
    prefix = _prefix()
    clock = FakeClock()
    store = RedisStore.from_url(_url(cluster, prefix), clock=clock)
    gov = govcore.Governance.from_config(_config(), clock=clock, store=store)
    rate_key_of: dict[str, str] = {}
    for tenant in TENANTS:  # loads the scripts, opens the connections, finds each rate key
        known = set(admin.scan_iter(match=f"{prefix}rate:*"))
        status, _ = _call(gov, _tenant_key(tenant), "POST", "/conversation/turn", turn("w", "hi"))
        assert status == 200
        (new,) = set(admin.scan_iter(match=f"{prefix}rate:*")) - known
        rate_key_of[tenant] = new.decode()
    crossed = []
    for tenant in TENANTS:
        conversation_node = _node_of(admin, prefix + conversation_key(tenant, "s"))
        rate_node = _node_of(admin, rate_key_of[tenant])
        before = Counter(counting)
        status, _ = _call(gov, _tenant_key(tenant), "POST", "/conversation/turn", turn("s", "x"))
        assert status == 200
        sent = counting - before
        admission = Counter(dict.fromkeys({rate_node, conversation_node}, 1))
        assert sent == admission + Counter({conversation_node: 1}), (tenant, sent)
        crossed.append(rate_node != conversation_node)
    gov.close()
    store.close()
    assert any(crossed)  # some admissions did go to two nodes at once


def test_scripts_missing_on_a_node_are_loaded_again(
    cluster: RedisCluster, admin: ClusterClient
) -> None:
    """A node that lost its scripts (restarted, flushed) answers NOSCRIPT; the store loads
    them and the call succeeds: for the commit and for the admission's pipeline."""
    prefix = _prefix()
    clock = FakeClock()
    store = RedisStore.from_url(_url(cluster, prefix), clock=clock)
    gov = govcore.Governance.from_config(_config(), clock=clock, store=store)
    for round_ in range(3):
        for tenant in TENANTS:
            body = turn("s", f"refund {round_}")
            assert _call(gov, _tenant_key(tenant), "POST", "/conversation/turn", body)[0] == 200
        if round_ == 0:
            node = admin.get_node_from_key(prefix + conversation_key("acme", "s"))
            node.redis_connection.script_flush()  # one node only
            assert node.redis_connection.script_exists(COMMIT_SHA) == [False]
        else:
            admin.script_flush()  # every primary
            assert admin.script_exists(COMMIT_SHA) == [False]
    for tenant in TENANTS:
        assert _call(gov, _tenant_key(tenant), "GET", "/conversation/s")[1]["turnCount"] == 3
    gov.close()
    store.close()


# --- the decision log ---------------------------------------------------------------------------


def test_the_decision_log_stream_on_the_cluster(
    cluster: RedisCluster, admin: ClusterClient
) -> None:
    """Decisions go to the stream's node; the stream stays bounded."""
    stream = f"audit:{uuid.uuid4().hex}"
    sink = RedisDecisionLog.from_url(f"{cluster.url}&stream={stream}&maxlen=10")
    for n in range(200):
        sink.record(decision(n))
    sink.close()
    assert 10 <= admin.xlen(stream) < 200
    ((_, fields),) = admin.xrevrange(stream, count=1)
    assert b'"decision_id":"d199"' in fields[b"decision"]

    other = f"audit:{uuid.uuid4().hex}"
    url = _url(cluster, _prefix())
    gov = govcore.Governance.from_config(
        _config(store=url, decision_log_stream=f"{cluster.url}&stream={other}")
    )
    tool_call = {"sessionId": "s", "toolName": "lookup", "arguments": {}}
    assert _call(gov, _tenant_key("acme"), "POST", "/check-tool-call", tool_call)[0] == 200
    gov.close()
    assert admin.xlen(other) == 1


# --- wait_replicas ------------------------------------------------------------------------------


def test_wait_replicas_on_the_cluster_waits_on_each_keys_own_node(cluster: RedisCluster) -> None:
    """With wait_replicas, a write on any node (these primaries have no replica) is applied
    there and then refused with ReplicationTimeoutError: the WAIT went to the key's own node
    (on another node it would answer a MOVED error, not a count of replicas)."""
    from govcore.backends.redis import ReplicationTimeoutError
    from govcore.types import StoreWrite

    clock = FakeClock()
    url = f"{_url(cluster, _prefix())}&wait_replicas=1&wait_timeout=0.05"
    store = store_from_url(url, clock=clock)
    for key in ("a", "b", "c", "{t}x"):
        with pytest.raises(ReplicationTimeoutError):
            store.update(key, lambda _value, now: StoreWrite(b"x", now + 60, None))
        assert store.get(key) == b"x"

    async def scenario() -> None:
        astore = async_store_from_url(url, clock=clock)
        for key in ("d", "e", "f"):
            with pytest.raises(ReplicationTimeoutError):
                await astore.set(key, b"y", expires_at=clock() + 60)
            assert await astore.get(key) == b"y"
        await astore.aclose()  # type: ignore[attr-defined]

    asyncio.run(scenario())
    store.close()  # type: ignore[attr-defined]


# --- a failover under load ----------------------------------------------------------------------


@pytest.fixture
def replicated_cluster() -> Iterator[RedisCluster]:
    """Three primaries with a replica each, failing a primary over after 1 s of silence."""
    require_redis()
    with RedisCluster(replicas=1, node_timeout_ms=1000) as started:
        yield started


def _kill_the_primary_of_the_tenant(cluster: RedisCluster, prefix: str) -> Callable[[], None]:
    """A function that SIGKILLs the node serving the test tenant's conversations."""
    client = ClusterClient(startup_nodes=[ClusterNode("127.0.0.1", cluster.ports[0])])
    port = _node_of(client, prefix + conversation_key("acme", "load-0"))
    client.close()
    return lambda: cluster.server_on(port).stop(kill=True)


def test_a_failover_under_load_on_the_cluster(replicated_cluster: RedisCluster) -> None:
    """Four threads record turns with idempotency keys; the primary holding the tenant's keys
    is killed with SIGKILL a third of the way in and its replica takes over: every answer is
    200 or 503, every turn is recorded once, each refused turn is answered within 10 s."""
    prefix = _prefix()
    kill = _kill_the_primary_of_the_tenant(replicated_cluster, prefix)
    url = f"{_url(replicated_cluster, prefix)}&{FAST}"
    check_nothing_lost_or_repeated(*run_threads(url, kill))


@pytest.mark.slow
def test_a_failover_under_load_on_the_cluster_through_the_asyncio_store(
    replicated_cluster: RedisCluster,
) -> None:
    """The same failover served by AsyncGovernance, four tasks at once."""
    prefix = _prefix()
    kill = _kill_the_primary_of_the_tenant(replicated_cluster, prefix)
    url = f"{_url(replicated_cluster, prefix)}&{FAST}"
    check_nothing_lost_or_repeated(*run_tasks(url, kill))


def test_wait_replicas_on_the_cluster_acknowledges_what_the_replica_has(
    replicated_cluster: RedisCluster,
) -> None:
    """With a replica per primary, wait_replicas=1 writes are acknowledged, on every node."""
    from govcore.types import StoreWrite

    clock = FakeClock()
    url = f"{_url(replicated_cluster, _prefix())}&wait_replicas=1&wait_timeout=2"
    store = store_from_url(url, clock=clock)
    for key in ("a", "b", "c", "{t}x"):
        assert store.update(key, lambda _value, now: StoreWrite(b"x", now + 60, "done")) == "done"
        assert store.get(key) == b"x"
    store.close()  # type: ignore[attr-defined]


def test_a_node_whose_port_another_server_took_moves_to_a_free_one() -> None:
    """Between the probe that found a node's port free and the node's start, another process
    may take the port: the cluster is formed on another port rather than on that server."""
    require_redis()
    with RedisServer() as squatter:
        cluster = RedisCluster(primaries=1)
        cluster.nodes[0].port = squatter.port
        with cluster:
            assert cluster.nodes[0].port != squatter.port
            assert cluster.state(cluster.nodes[0].port) == "ok"
        assert squatter.ping()
