"""The Redis store: its admission against the pure rate limiter, its commit under retries and
contention, several processes sharing it through Governance, and Redis failing.

The conformance suites run on it in tests/backends/test_store_conformance.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import govcore
from govcore.backends import decision_log_from_settings, store_from_url
from govcore.config import load_settings
from govcore.core.ratelimit import WINDOW_SECONDS, admit
from govcore.errors import ConfigError
from govcore.testing import FakeClock, RedisServer, RedisServerError
from govcore.types import StoreCommit, StoreWrite
from tests.backends import redis_workers
from tests.support import FULL_KEY, bearer, config, decision, fresh_url, require_redis, turn

pytestmark = pytest.mark.redis

redis = pytest.importorskip("redis") if not require_redis() else None  # type: ignore[func-returns-value]

from govcore.backends.redis import (  # noqa: E402
    ADMIT_SCRIPT,
    RedisStore,
    StoreContentionError,
)


def _store(url: str, clock: FakeClock | None = None) -> RedisStore:
    store = store_from_url(url, clock=clock or FakeClock())
    assert isinstance(store, RedisStore)
    return store


def _within(seconds: float, call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a thread; the exception it raised, or None. Fails if it is still
    running after ``seconds`` (a hang), which generous bounds keep far from normal timings."""
    raised: list[BaseException | None] = [None]

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            raised[0] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the call still runs after {seconds} s"
    return raised[0]


# --- admission: the Lua script against the pure function ------------------------------------

_STEPS = st.one_of(
    st.floats(min_value=0, max_value=30, allow_nan=False),
    st.sampled_from([0.0, 60.0, 59.999, 60.001, 1e-6]),
    st.floats(min_value=-40, max_value=0, allow_nan=False),  # the clock stepped back
    st.floats(min_value=-59.999, max_value=0, allow_nan=False),  # ... by less than a window
    st.sampled_from([-60.0, -61.0, -3600.0, 90.0, 120.0]),  # a reset; times two windows old
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(_STEPS, min_size=1, max_size=40), limit=st.integers(1, 5))
def test_admission_decides_as_the_pure_rate_limiter(
    redis_server: RedisServer, steps: list[float], limit: int
) -> None:
    """On any sequence of times (repeats, exact window edges, steps back), the script admits
    and refuses as govcore.core.ratelimit.admit does, with the same wait to the last bit."""
    clock = FakeClock()
    store = _store(fresh_url(redis_server), clock)
    logged: bytes | None = None
    try:
        for step in steps:
            clock.now += step
            reference = admit(logged, clock.now, limit=limit)
            if reference.value is not None:
                logged = reference.value
            got = store.admit("rate:k", limit=limit, window_seconds=WINDOW_SECONDS)
            assert got.wait == reference.result, (clock.now, step)
    finally:
        store.close()


def test_a_resent_admission_counts_once(redis_url: str) -> None:
    """The same admission sent twice (a reply lost, the command retried) is counted once."""
    store = _store(redis_url)
    client = redis.Redis.from_url(redis_url.partition("?")[0])
    args = ("1800000000.0", "1799999940.0", 2, b"same-id!", 180_000, "60.0", "1799999880.0")
    key = redis_url.partition("prefix=")[2] + "rate:k"
    assert client.eval(ADMIT_SCRIPT, 1, key, *args) == [1]
    assert client.eval(ADMIT_SCRIPT, 1, key, *args) == [1]
    assert client.zcard(key) == 1
    assert client.eval(ADMIT_SCRIPT, 1, key, *args[:3], b"other-id", *args[4:]) == [1]
    assert client.eval(ADMIT_SCRIPT, 1, key, *args[:3], b"third-id", *args[4:])[0] == 0
    store.close()
    client.close()


# --- the optimistic commit --------------------------------------------------------------------


def test_a_resent_commit_applies_once(redis_url: str) -> None:
    """A commit whose reply was lost and which was sent again reports success and writes once,
    and the mutation is not run again."""
    store = _store(redis_url)
    store.set("n", b"1", expires_at=store._clock() + 100)
    evaluate = store._eval

    def twice(*args: Any) -> Any:
        evaluate(*args)  # applied, but its reply "lost"
        return evaluate(*args)

    store._eval = twice  # type: ignore[method-assign]
    calls: list[bytes | None] = []

    def increment(raw: bytes | None, now: float) -> StoreWrite[None]:
        calls.append(raw)
        return StoreWrite(str(int(raw or b"0") + 1).encode(), now + 100, None)

    store.update("n", increment)
    assert calls == [b"1"]
    assert store.get("n") == b"2"
    store.close()


def test_a_commit_resent_after_another_write_is_not_applied_twice(redis_url: str) -> None:
    """A commit applied, whose reply was lost, then resent after another writer changed the key:
    the resend reports success; the mutation is not run again on the other writer's value."""
    store = _store(redis_url)
    other = _store(redis_url)
    store.set("n", b"1", expires_at=store._clock() + 100)
    evaluate = store._eval

    def resent_after_another_write(*args: Any) -> Any:
        evaluate(*args)  # applied, but its reply "lost"
        other.update("n", lambda raw, now: StoreWrite(b"100", now + 100, None))
        return evaluate(*args)

    store._eval = resent_after_another_write  # type: ignore[method-assign]
    calls: list[bytes | None] = []

    def increment(raw: bytes | None, now: float) -> StoreWrite[None]:
        calls.append(raw)
        return StoreWrite(str(int(raw or b"0") + 1).encode(), now + 100, None)

    store.update("n", increment)
    assert calls == [b"1"]
    assert store.get("n") == b"100"
    store.close()
    other.close()


def test_endless_contention_is_a_declared_backend_error(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update that loses every commit gives up with an error the store declares (503)."""
    import govcore.backends.redis as module

    monkeypatch.setattr(module, "MAX_COMMIT_ATTEMPTS", 4)
    store, rival = _store(redis_url), _store(redis_url)
    attempts: list[int] = []

    def always_overtaken(raw: bytes | None, now: float) -> StoreWrite[None]:
        attempts.append(1)
        rival.set("k", b"rival", expires_at=now + 10)  # another writer commits first, every time
        return StoreWrite(b"mine", now + 10, None)

    with pytest.raises(StoreContentionError):
        store.update("k", always_overtaken)
    assert len(attempts) == 4
    assert StoreContentionError in store.backend_errors
    assert store.get("k") == b"rival"
    store.close()
    rival.close()


def test_one_update_many_writes_all_or_nothing_on_conflict(redis_url: str) -> None:
    """When one key of several changed, none is written by the stale attempt: the retry sees
    the new value of the changed key and the old value of the other."""
    store, rival = _store(redis_url), _store(redis_url)
    seen: list[list[bytes | None]] = []

    def both(values: Sequence[bytes | None], now: float) -> StoreCommit[None]:
        seen.append(list(values))
        if len(seen) == 1:
            rival.set("{t}b", b"rival", expires_at=now + 10)
        return StoreCommit(None, {"{t}a": (b"A", now + 10), "{t}b": (b"B", now + 10)})

    store.update_many(["{t}a", "{t}b"], both)
    assert seen == [[None, None], [None, b"rival"]]
    assert (store.get("{t}a"), store.get("{t}b")) == (b"A", b"B")
    store.close()
    rival.close()


# --- several processes through Governance ---------------------------------------------------


@pytest.fixture(scope="module")
def processes() -> Iterator[Any]:
    require_redis()
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        yield pool


def test_turns_of_one_conversation_from_four_processes(redis_url: str, processes: Any) -> None:
    """Four processes recording turns of one conversation at once: every turn index 1..N is
    answered exactly once and the conversation counts N turns."""
    processes.map(redis_workers.warm, [redis_url] * 4)
    answers = processes.starmap(redis_workers.record_turns, [(redis_url, "shared", 8)] * 4)
    indexes = sorted(i for answer in answers for i in answer)
    assert indexes == list(range(1, 33))
    governance = govcore.Governance.from_config(config(store=redis_url))
    assert governance.client(FULL_KEY).get_conversation("shared").turn_count == 32


def test_one_idempotency_key_from_four_processes_executes_once(
    redis_url: str, processes: Any
) -> None:
    """The same idempotent request sent by four processes at once is recorded once: all get
    the same turn index, and the conversation counts one turn per key."""
    processes.map(redis_workers.warm, [redis_url] * 4)
    for n in range(5):
        answers = processes.starmap(
            redis_workers.record_once, [(redis_url, "idem", f"request-{n}")] * 4
        )
        assert answers == [n + 1] * 4
    governance = govcore.Governance.from_config(config(store=redis_url))
    assert governance.client(FULL_KEY).get_conversation("idem").turn_count == 5


def test_the_rate_limit_holds_across_processes(redis_url: str, processes: Any) -> None:
    """A key allowed 3 requests a minute gets 3 in all, whichever processes send them."""
    processes.map(redis_workers.warm, [redis_url] * 4)
    admitted = processes.starmap(redis_workers.admitted_calls, [(redis_url, "slow", 4)] * 4)
    assert sum(admitted) == 3


# --- Redis failing ----------------------------------------------------------------------------


def test_a_server_started_on_a_port_another_answers_says_so() -> None:
    """Two servers given one port: the second cannot bind, and the first answers its PING.
    Starting it must fail clearly, never hand back a server that is another (the cluster
    fixture once sent CLUSTER REPLICATE to a primary this way)."""
    require_redis()
    with RedisServer() as first:
        second = RedisServer(port=first.port)
        with pytest.raises(RedisServerError, match="answered by another redis-server"):
            second.start()
        assert not second.running
        assert first.ping()
        second.close()


def test_a_stopped_server_fails_fast_and_a_restarted_one_works(tmp_path: Any) -> None:
    """While Redis is down (killed mid-run), every call raises BackendError at once; after a
    restart the calls work again, and no conversation was half-written: each idempotent turn
    retried after a failure is recorded exactly once."""
    require_redis()
    with RedisServer(persistent=True) as server:
        url = fresh_url(server, socket_timeout="0.3", connect_timeout="0.3")
        client = govcore.Governance.from_config(config(store=url)).client(FULL_KEY)
        failures: list[BaseException] = []
        sessions = [f"s{n}" for n in range(3)]

        def record(session: str, n: int) -> None:
            body = turn(session, f"parcel {n}", idempotencyKey=f"{session}-{n}")
            client.record_turn(body)

        def worker(session: str) -> None:
            for n in range(30):
                try:
                    record(session, n)
                except govcore.BackendError as exc:
                    failures.append(exc)

        threads = [threading.Thread(target=worker, args=(s,)) for s in sessions]
        for thread in threads:
            thread.start()
        server.stop(kill=True)
        error = _within(10, lambda: record("s0", 999))
        assert isinstance(error, govcore.BackendError)
        for thread in threads:
            thread.join(30)
        server.start()
        for session in sessions:  # retry every turn: the ones already recorded are replays
            for n in range(30):
                record(session, n)
            snapshot = client.get_conversation(session)
            assert snapshot.turn_count == 30
    assert all(isinstance(f, govcore.BackendError) for f in failures)


@pytest.mark.parametrize("facade", ["blocking", "asyncio"])
def test_the_first_call_after_a_restart_reconnects_without_an_error(facade: str) -> None:
    """Connections broken by a restart of Redis are replaced by the resend redis-py makes:
    the first call afterwards succeeds, with either facade."""
    require_redis()
    with RedisServer(persistent=True) as server:
        configuration = config(store=fresh_url(server))
        if facade == "blocking":
            client = govcore.Governance.from_config(configuration).client(FULL_KEY)
            assert client.record_turn(turn("r", "hello")).turn_index == 1
            server.restart()
            assert client.record_turn(turn("r", "again")).turn_index == 2
            return

        async def scenario() -> tuple[int, int]:
            async with govcore.AsyncGovernance.from_config(configuration) as gov:
                aclient = gov.client(FULL_KEY)
                first = await aclient.record_turn(turn("r", "hello"))
                server.restart()
                second = await aclient.record_turn(turn("r", "again"))
                return first.turn_index, second.turn_index

        assert asyncio.run(scenario()) == (1, 2)


def test_a_server_busy_with_a_script_is_a_503_not_a_bug() -> None:
    """Redis answering BUSY (another client's script runs too long) is the store being
    unavailable: 503 backend_unavailable, never 500; it works again when the script is gone."""
    require_redis()
    with RedisServer() as server:
        admin = redis.Redis.from_url(server.url)
        admin.config_set("lua-time-limit", 50)
        gov = govcore.Governance.from_config(config(store=fresh_url(server, socket_timeout="5")))

        def hog() -> None:
            with contextlib.suppress(redis.RedisError):
                redis.Redis.from_url(server.url, socket_timeout=10).eval("while true do end", 0)

        thread = threading.Thread(target=hog, daemon=True)
        thread.start()
        time.sleep(0.3)  # the script has run past lua-time-limit: Redis now answers BUSY
        path = "/api/v1/agent/governance/conversation/turn"
        answer = gov.handle("POST", path, bearer(FULL_KEY), json.dumps(turn("busy", "hello")))
        assert answer.status == 503
        assert answer.json()["error"] == "backend_unavailable"
        admin.script_kill()
        thread.join(10)
        again = gov.handle("POST", path, bearer(FULL_KEY), json.dumps(turn("busy", "hello")))
        assert again.status == 200
        gov.close()
        admin.close()


def test_a_paused_server_fails_within_the_timeout(redis_server: RedisServer) -> None:
    """A server that stops answering (CLIENT PAUSE) makes a call raise BackendError after its
    timeouts instead of hanging, and it works again once the server answers."""
    url = fresh_url(redis_server, socket_timeout="0.2", retries="1")
    client = govcore.Governance.from_config(config(store=url)).client(FULL_KEY)
    client.record_turn(turn("paused", "hello"))
    admin = redis.Redis.from_url(redis_server.url)
    admin.execute_command("CLIENT", "PAUSE", "2000", "ALL")
    error = _within(10, lambda: client.record_turn(turn("paused", "hello again")))
    assert isinstance(error, govcore.BackendError)
    admin.ping()  # answered when the pause is over (this connection has no timeout)
    admin.close()
    assert client.record_turn(turn("paused", "and again")).turn_index >= 2


# --- TTL through Governance ---------------------------------------------------------------------


def test_turns_renew_reads_do_not_and_delete_purges(redis_server: RedisServer) -> None:
    """A conversation lives conversation_ttl_seconds after its last turn; reading it does not
    extend that; deleting removes its record from Redis."""
    url = fresh_url(redis_server)
    prefix = url.partition("prefix=")[2]
    clock = FakeClock()
    client = govcore.Governance.from_config(
        config(store=url, conversation_ttl_seconds=1000), clock=clock
    ).client(FULL_KEY)
    client.record_turn(turn("ttl", "hello"))
    clock.advance(900)
    client.record_turn(turn("ttl", "still here"))  # renews: lives until +1900
    clock.advance(900)
    assert client.get_conversation("ttl").turn_count == 2  # +1800: a read, which renews nothing
    clock.advance(100)
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("ttl")
    client.record_turn(turn("gone", "hello"))
    admin = redis.Redis.from_url(redis_server.url)
    assert admin.keys(f"{prefix}conv:*gone*")
    client.delete_conversation("gone")
    assert not admin.keys(f"{prefix}conv:*gone*")
    admin.close()


# --- configuration and credentials ------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("socket_timeout=0", "socket_timeout"),
        ("socket_timeout=fast", "socket_timeout"),
        ("connect_timeout=-1", "connect_timeout"),
        ("max_connections=0", "max_connections"),
        ("retries=-1", "retries"),
        ("prefix=a{b}", "prefix"),
        ("colour=blue", "colour"),
        ("retries=1&retries=2", "retries"),
    ],
)
def test_bad_parameters_are_refused_by_name(query: str, named: str) -> None:
    """A bad parameter is a ConfigError about settings.store naming the parameter."""
    with pytest.raises(ConfigError, match=named) as caught:
        store_from_url(f"redis://localhost:6379/0?{query}", clock=FakeClock())
    assert "settings.store" in str(caught.value)


def test_good_parameters_are_accepted() -> None:
    """The near misses of the refused values build a store (no connection is made yet)."""
    url = (
        "rediss://localhost:6380/3?prefix=app:&socket_timeout=0.05&connect_timeout=2"
        "&max_connections=1&retries=0"
    )
    store = _store(url)
    assert repr(store) == "RedisStore('rediss://localhost:6380/3?prefix=app:')"
    store.close()


def test_credentials_are_never_echoed(redis_server: RedisServer) -> None:
    """A password appears in no configuration error, backend error or repr."""
    secret = "s3cret-Pa55word"
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"redis://admin:{secret}@localhost:1/0?retries=x", clock=FakeClock())
    assert secret not in str(caught.value)
    url = f"redis://admin:{secret}@127.0.0.1:{redis_server.port}/0?prefix=cred:"
    store = _store(url)
    assert secret not in repr(store)
    client = govcore.Governance.from_config(config(store=url)).client(FULL_KEY)
    with pytest.raises(govcore.BackendError) as failed:
        client.record_turn(turn("c", "hello"))  # the server has no such user: refused
    shown = [str(failed.value), repr(failed.value)]
    cause: BaseException | None = failed.value.__cause__
    while cause is not None:
        shown += [str(cause), repr(cause)]
        cause = cause.__cause__ or cause.__context__
    assert all(secret not in text for text in shown)
    with pytest.raises(ConfigError) as stream_error:
        decision_log_from_settings(
            load_settings({"decision_log_stream": f"redis://u:{secret}@h:1/0?maxlen=0"})
        )
    assert secret not in str(stream_error.value)
    assert "maxlen" in str(stream_error.value)
    store.close()


# --- the decision log ---------------------------------------------------------------------------


def test_decisions_go_to_a_bounded_stream(redis_server: RedisServer) -> None:
    """Each decision is one stream entry holding its JSON line; the stream is trimmed."""
    sink = decision_log_from_settings(
        load_settings({"decision_log_stream": f"{redis_server.url}?stream=audit&maxlen=10"})
    )
    assert getattr(sink, "blocking", None) is True
    for n in range(300):
        sink.record(decision(n))
    admin = redis.Redis.from_url(redis_server.url)
    length = admin.xlen("audit")
    assert 10 <= length < 300
    ((_, fields),) = admin.xrevrange("audit", count=1)
    assert b'"decision_id":"d299"' in fields[b"decision"]
    admin.delete("audit")
    admin.close()
    with pytest.raises(ConfigError, match="not both"):
        decision_log_from_settings(
            load_settings({"decision_log_stream": redis_server.url, "decision_log_path": "x.jsonl"})
        )


def test_the_documented_stream_length_is_accepted() -> None:
    """The default length of the decision stream (1,000,000) can be written in the URL; a length
    beyond the bound is refused naming the parameter."""
    from govcore.backends.redis import RedisDecisionLog

    sink = RedisDecisionLog.from_url("redis://h:1/0?stream=govcore:decisions&maxlen=1000000")
    assert sink.maxlen == 1_000_000
    with pytest.raises(ValueError, match="maxlen"):
        RedisDecisionLog.from_url("redis://h:1/0?maxlen=1000000001")
