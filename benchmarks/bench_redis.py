"""What the Redis store costs a turn, in round trips and in time, and how turns scale over processes.

    python benchmarks/bench_redis.py [--quick] [--seed 0]

One command, three sections, on the demo deployment (``govcore/demo/acme``: 8 policy files,
the ``retail`` lexicon) with seeded ~1 KB turns from ``benchmarks/corpus.py``; the benchmark
starts its own ``redis-server`` on loopback (``govcore.testing.RedisServer``: no persistence).

1. Turn latency through the typed client on the in-process ``MemoryStore`` (the baseline), on
   ``RedisStore`` (``Governance``) and on ``AsyncRedisStore`` (``AsyncGovernance``), interleaved
   call by call on the same turns, with a bare redis-py ``GET`` of a conversation's key as the
   raw-client baseline: the store's overhead is then stated as round trips x RTT + the rest.
2. Redis round trips per request, counted on the wire (a connection class that counts what it
   sends: one send is one round trip, a pipeline sends all its commands at once), for the
   blocking and the asyncio store.
4. (below 3) What ``wait_replicas=1`` costs a turn: a primary with one replica
   (``redis-server --replicaof``), turns recorded on it without and with the setting,
   interleaved call by call, on the same turns; the in-process ``MemoryStore`` again as the
   baseline. Every write then waits for the replica's acknowledgement (``WAIT 1 timeout``, in
   the same round trip as the write).
3. Throughput of 1, 2 and 4 worker processes (``spawn``) recording the turns of 1,000
   conversations on one Redis server, the same total work split between them; the same on
   ``memory://`` (each process its own store, no shared state) as the machine's own scaling
   ceiling; the client's CPU time per turn against its wall time, and the redis-server's CPU
   (``INFO cpu`` before and after).

How it measures: each latency is the wall-clock time (``time.perf_counter_ns``) of one call,
after warm-up turns, with the garbage collector on. Throughput in section 1 is calls divided by
their total time, one call after another on one thread. Memory is the median ``tracemalloc``
peak of one call above what was traced before it, in a separate untimed pass.

Needs ``redis-server`` on ``PATH`` and ``pip install -e ".[redis]"``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import multiprocessing
import os
import shlex
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import redis.asyncio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's govcore, not an installed one
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus import generate_conversation  # noqa: E402
from report import (  # noqa: E402
    LATENCY_COLUMNS,
    Stats,
    Table,
    derive_seed,
    fmt,
    machine_facts,
    notes,
    print_section,
    progress,
    traced_peak_mb,
    turn_request,
    verdict,
)

import govcore  # noqa: E402
from govcore.backends.redis import AsyncRedisStore, RedisStore  # noqa: E402
from govcore.config import LoadedConfig, load_config  # noqa: E402
from govcore.service.store_keys import conversation_key  # noqa: E402
from govcore.testing import RedisServer  # noqa: E402

DEMO_CONFIG = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"
DEMO_POLICIES = ROOT / "govcore" / "demo" / "acme" / "policies"
API_KEY = "gk_demo_northwind_full_0001"
TENANT = "northwind"
PREFIX = "/api/v1/agent/governance"
RECENT_TURNS = 3
WARMUP_TURNS = 3
"""Untimed turns at the start of each session in section 1 (from turn 4 on a turn has its 3
recent turns as context and a state to load)."""

TARGET_P50_ADDED_MS = 0.5
TARGET_TURN_TRIPS = 2
TARGET_SCALING_4 = 3.0


@dataclass(frozen=True)
class Plan:
    """How much work each section does: the full run, or a small one with ``--quick``."""

    quick: bool

    @property
    def sessions(self) -> int:
        return 10 if self.quick else 50

    @property
    def timed_turns(self) -> int:
        """Timed turns per session in section 1."""
        return 4 if self.quick else 30

    @property
    def traced_calls(self) -> int:
        return 10 if self.quick else 40

    @property
    def conversations(self) -> int:
        """Conversations recorded by each run of section 3."""
        return 100 if self.quick else 1_000

    @property
    def turns_per_conversation(self) -> int:
        return 3 if self.quick else 5

    @property
    def repeats(self) -> int:
        """Runs of each process count in section 3 (the median is reported)."""
        return 1 if self.quick else 3


# --------------------------------------------------------------------------------------------
# Inputs.
# --------------------------------------------------------------------------------------------


def demo_config(store: str) -> LoadedConfig:
    """The demo deployment on ``store``, its rate limit raised out of the way."""
    config = load_config(DEMO_CONFIG)
    settings = config.settings.model_copy(
        update={"store": store, "default_rate_limit_per_minute": 1_000_000_000}
    )
    return dataclasses.replace(config, settings=settings)


def conversation_turns(seed: int, label: str, number: int, turns: int) -> list[dict[str, Any]]:
    """The turn requests of one seeded conversation of ~1 KB turns, session ``label-number``."""
    contents = generate_conversation(turns, seed=derive_seed(seed, label, number), turn_bytes=1000)
    return [
        turn_request(f"{label}-{number}", i, text, list(contents[max(0, i - RECENT_TURNS) : i]))
        for i, text in enumerate(contents)
    ]


def four_kb_output(seed: int) -> str:
    """A ~4 KB model output of the corpus's support prose with an email address in it."""
    parts = generate_conversation(6, seed=derive_seed(seed, "output"), turn_bytes=800)
    text = "\n".join(parts)
    middle = len(text) // 2
    return (text[:middle] + " write to jane.doe@example.com " + text[middle:])[:4096]


# --------------------------------------------------------------------------------------------
# Section 1: turn latency, memory vs Redis vs asyncio Redis, and a bare GET.
# --------------------------------------------------------------------------------------------


def bench_latency(server: RedisServer, seed: int, plan: Plan) -> dict[str, Stats]:
    """Section 1: the same turns on four paths, interleaved call by call."""
    memory_gov = govcore.Governance(demo_config("memory://"))
    sync_url = f"{server.url}?prefix=bench-sync:"
    sync_gov = govcore.Governance(demo_config(sync_url))
    raw = redis.Redis.from_url(server.url)
    loop = asyncio.new_event_loop()

    async def build_async() -> govcore.AsyncGovernance:
        return govcore.AsyncGovernance(demo_config(f"{server.url}?prefix=bench-async:"))

    async_gov = loop.run_until_complete(build_async())
    clients = {
        "memory": memory_gov.client(API_KEY),
        "redis": sync_gov.client(API_KEY),
    }
    async_client = async_gov.client(API_KEY)

    async def timed_async(make: Callable[[], Awaitable[object]]) -> int:
        start = time.perf_counter_ns()
        await make()
        return time.perf_counter_ns() - start

    turns_per_session = WARMUP_TURNS + plan.timed_turns
    sessions = [
        conversation_turns(seed, "s", number, turns_per_session) for number in range(plan.sessions)
    ]
    latencies: dict[str, list[int]] = {"memory": [], "redis": [], "async": [], "get": []}

    def call_of(name: str, request: dict[str, Any]) -> Callable[[], int]:
        if name == "async":
            return lambda: loop.run_until_complete(
                timed_async(lambda: async_client.record_turn(request))
            )
        if name == "get":
            key = "bench-sync:" + conversation_key(TENANT, request["sessionId"])

            def get() -> int:
                start = time.perf_counter_ns()
                raw.get(key)
                return time.perf_counter_ns() - start

            return get
        client = clients[name]

        def turn() -> int:
            start = time.perf_counter_ns()
            client.record_turn(request)
            return time.perf_counter_ns() - start

        return turn

    names = list(latencies)
    rounds = 0
    for index in range(turns_per_session):
        for session in sessions:
            request = session[index]
            order = names[rounds % len(names) :] + names[: rounds % len(names)]
            rounds += 1
            for name in order:
                elapsed = call_of(name, request)()
                if index >= WARMUP_TURNS:
                    latencies[name].append(elapsed)

    # Memory: one more turn of fresh sessions per path, traced apart from the timed calls.
    traced = [
        conversation_turns(seed, "traced", number, 1)[0] for number in range(plan.traced_calls)
    ]
    memory_mb: dict[str, float] = {}
    for name in ("memory", "redis", "async"):
        memory_mb[name] = traced_peak_mb(call_of(name, request) for request in traced)
    memory_mb["get"] = traced_peak_mb(call_of("get", request) for request in sessions[0][-1:] * 5)

    loop.run_until_complete(async_gov.aclose())
    loop.close()
    sync_gov.close()
    memory_gov.close()
    raw.close()
    return {name: Stats.of(values, memory_mb[name]) for name, values in latencies.items()}


def print_latency(stats: dict[str, Stats], trips: int, plan: Plan) -> None:
    labels = {
        "memory": "Governance on MemoryStore (baseline)",
        "redis": "Governance on RedisStore",
        "async": "AsyncGovernance on AsyncRedisStore",
        "get": "raw client: redis-py GET of a conversation's key",
    }
    table = Table(["path", *LATENCY_COLUMNS, "peak MB", "p50 − memory ms"])
    base = stats["memory"].median_ms
    for name, label in labels.items():
        s = stats[name]
        added = "-" if name in ("memory", "get") else f"{s.median_ms - base:+.3f}"
        table.add(label, *s.cells(), added)
    rtt = stats["get"].median_ms
    targets = Table(["target", "measured", "result"])
    decomposition = []
    for name in ("redis", "async"):
        added = stats[name].median_ms - base
        targets.add(
            f"{labels[name]}: adds < {TARGET_P50_ADDED_MS} ms at p50",
            f"{added:+.3f} ms",
            verdict(added < TARGET_P50_ADDED_MS),
        )
        decomposition.append(
            f"{labels[name]}: {added:+.3f} ms = {trips} round trips × {rtt:.3f} ms "
            f"({trips * rtt:.3f} ms) + {added - trips * rtt:.3f} ms of the rest (encoding "
            "commands and decoding answers in redis-py, the Lua scripts on the server, the "
            "version tokens" + (", the event loop's scheduling" if name == "async" else "") + ")"
        )
    print_section(
        "1. Turn latency: MemoryStore, RedisStore, AsyncRedisStore",
        table.render(),
        targets.render(),
        notes(
            f"`record_turn` of a ~1 KB turn with its 3 previous turns as `recentContext`, "
            f"{plan.sessions} sessions interleaved, the 4 paths interleaved call by call (the "
            f"order rotating); {WARMUP_TURNS} untimed turns per session first, then "
            f"{plan.timed_turns} timed ({stats['memory'].samples:,} per path). Each path has "
            "its own conversations (the same turns), so each store holds the same states.",
            "Raw client: `GET` of the conversation's key just written (a value of the same "
            "few KB a turn reads), one round trip of a bare redis-py client on the same server.",
            "The overhead, stated as round trips × RTT (the bare GET's p50) + the rest, below.",
            *decomposition,
            "The asyncio path is timed inside the coroutine (one `run_until_complete` per "
            "call, outside the timing). peak MB: tracemalloc peak of one call on a fresh "
            "session, median over the traced calls (untimed pass).",
        ),
    )


# --------------------------------------------------------------------------------------------
# Section 2: round trips per request, counted on the wire.
# --------------------------------------------------------------------------------------------


class CountingConnection(redis.Connection):
    """A connection that counts what it sends: one send is one round trip."""

    sent = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        CountingConnection.sent += 1
        super().send_packed_command(command, check_health)


class AsyncCountingConnection(redis.asyncio.Connection):
    """:class:`CountingConnection` for ``redis.asyncio``."""

    sent = 0

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        AsyncCountingConnection.sent += 1
        await super().send_packed_command(command, check_health)


# The design's count of each request (docs/architecture.md, "Round trips").
EXPECTED_TRIPS = {
    "turn": 2,
    "idempotent turn": 2,
    "its replay": 1,
    "GET conversation": 1,
    "tool call": 1,
    "post-inference, 4 KB": 1,
    "streaming call that scans": 2,
    "streaming call below the trigger": 1,
    "finalize": 1,
    "pre-inference, first": 2,
    "pre-inference, cached": 1,
}


def trip_requests(seed: int) -> list[tuple[str, str, str, dict[str, Any] | None]]:
    """The requests of section 2, in order: (name, method, path, body)."""
    session = conversation_turns(seed, "trips", 0, 3)
    output = four_kb_output(seed)
    idempotent = {**session[1], "idempotencyKey": "bench-once"}
    return [
        ("turn", "POST", "/conversation/turn", session[0]),
        ("idempotent turn", "POST", "/conversation/turn", idempotent),
        ("its replay", "POST", "/conversation/turn", idempotent),
        ("GET conversation", "GET", f"/conversation/{session[0]['sessionId']}", None),
        (
            "tool call",
            "POST",
            "/check-tool-call",
            {
                "sessionId": session[0]["sessionId"],
                "toolName": "issue_refund",
                "arguments": {"order_id": "NW48213307", "amount": 120.5, "note": output[:500]},
            },
        ),
        (
            "post-inference, 4 KB",
            "POST",
            "/post-inference",
            {"sessionId": session[0]["sessionId"], "output": output},
        ),
        (
            "streaming call that scans",
            "POST",
            "/check-output/stream",
            {"sessionId": "stream", "fullText": output[:2000], "lastCheckedOffset": 0},
        ),
        (
            "streaming call below the trigger",
            "POST",
            "/check-output/stream",
            {"sessionId": "stream", "fullText": output[:2010], "lastCheckedOffset": "WATERMARK"},
        ),
        (
            "finalize",
            "POST",
            "/check-output/finalize",
            {"sessionId": "stream", "fullText": output},
        ),
        (
            "pre-inference, first",
            "POST",
            "/pre-inference",
            {"sessionId": "pre", "prompt": output[:600]},
        ),
        (
            "pre-inference, cached",
            "POST",
            "/pre-inference",
            {"sessionId": "pre", "prompt": output[:600]},
        ),
    ]


def count_trips(server: RedisServer, seed: int) -> dict[str, tuple[int, int, int]]:
    """Round trips of each request on the blocking and the asyncio store, and the status."""
    headers = {"Authorization": f"Bearer {API_KEY}"}
    requests = trip_requests(seed)
    config = demo_config("memory://")
    warm = conversation_turns(seed, "trips-warm", 0, 1)[0]

    def resolved(body: dict[str, Any] | None, watermark: int) -> str | None:
        if body is None:
            return None
        if body.get("lastCheckedOffset") == "WATERMARK":
            body = {**body, "lastCheckedOffset": watermark}
        return json.dumps(body)

    pool = redis.ConnectionPool(
        host="127.0.0.1", port=server.port, connection_class=CountingConnection
    )
    store = RedisStore(redis.Redis(connection_pool=pool), prefix="bench-trips-sync:")
    gov = govcore.Governance(config, store=store)
    gov.handle("POST", PREFIX + "/conversation/turn", headers, json.dumps(warm))  # load scripts
    sync_trips: dict[str, tuple[int, int]] = {}
    watermark = 0
    for name, method, path, body in requests:
        before = CountingConnection.sent
        answer = gov.handle(method, PREFIX + path, headers, resolved(body, watermark))
        sync_trips[name] = (CountingConnection.sent - before, answer.status)
        if path == "/check-output/stream" and answer.status == 200:
            watermark = json.loads(answer.body)["watermark"]
    gov.close()
    store.close()

    async def run_async() -> dict[str, int]:
        apool = redis.asyncio.ConnectionPool(
            host="127.0.0.1", port=server.port, connection_class=AsyncCountingConnection
        )
        astore = AsyncRedisStore(
            redis.asyncio.Redis(connection_pool=apool), prefix="bench-trips-async:"
        )
        agov = govcore.AsyncGovernance(config, store=astore)
        await agov.handle("POST", PREFIX + "/conversation/turn", headers, json.dumps(warm))
        counts: dict[str, int] = {}
        awatermark = 0
        for name, method, path, body in requests:
            before = AsyncCountingConnection.sent
            answer = await agov.handle(method, PREFIX + path, headers, resolved(body, awatermark))
            counts[name] = AsyncCountingConnection.sent - before
            if path == "/check-output/stream" and answer.status == 200:
                awatermark = json.loads(answer.body)["watermark"]
        await agov.aclose()
        await astore.aclose()
        return counts

    async_trips = asyncio.run(run_async())
    return {
        name: (sync_trips[name][0], async_trips[name], sync_trips[name][1]) for name, *_ in requests
    }


def print_trips(trips: dict[str, tuple[int, int, int]]) -> None:
    table = Table(["request", "RedisStore", "AsyncRedisStore", "the design says", "status"])
    for name, (blocking, asynchronous, status) in trips.items():
        table.add(name, blocking, asynchronous, EXPECTED_TRIPS[name], status)
    turn = max(trips["turn"][:2] + trips["idempotent turn"][:2])
    targets = Table(["target", "measured", "result"])
    targets.add(
        f"a turn: ≤ {TARGET_TURN_TRIPS} round trips",
        f"{turn}",
        verdict(turn <= TARGET_TURN_TRIPS),
    )
    print_section(
        "2. Redis round trips per request, counted on the wire",
        table.render(),
        targets.render(),
        notes(
            "Each request through `handle` (the whole pipeline: authentication, rate-limit "
            "admission, handler), one after another on one session, after one turn that loads "
            "the Lua scripts. A connection class counts each send; a pipeline (the admission's "
            "script with the `MGET` of the handler's keys) is one send.",
            "The streaming call that scans sends 2,000 new characters; the one below the "
            "trigger 10 more, which it does not scan; pre-inference is computed once, then "
            "answered from its cache.",
        ),
    )


# --------------------------------------------------------------------------------------------
# Section 3: throughput of several worker processes on one Redis server.
# --------------------------------------------------------------------------------------------


def worker(
    store_url: str,
    worker_index: int,
    workers: int,
    seed: int,
    conversations: int,
    turns: int,
    barrier: Any,
    results: Any,
) -> None:
    """Record the turns of conversations ``worker_index``, ``worker_index + workers``, ...

    Builds its governance and warms it up before the barrier, so that only the turns are timed;
    reports (turns, wall start, wall end, CPU seconds) on ``results``. ``CLOCK_MONOTONIC`` is
    one clock for every process of the machine, so the parent can take the span of all.
    """
    gov = govcore.Governance(demo_config(store_url))
    client = gov.client(API_KEY)
    mine = [
        conversation_turns(seed, "mp", number, turns)
        for number in range(worker_index, conversations, workers)
    ]
    for request in conversation_turns(seed, f"mp-warm-{worker_index}", 0, 20):
        client.record_turn(request)
    gc.collect()
    barrier.wait()
    cpu_start = time.process_time()
    start = time.monotonic()
    count = 0
    # Turn by turn across the process's conversations, as live traffic interleaves them.
    for index in range(turns):
        for conversation in mine:
            client.record_turn(conversation[index])
            count += 1
    end = time.monotonic()
    cpu = time.process_time() - cpu_start
    results.put((count, start, end, cpu))
    gov.close()


def redis_versions(server_version: str) -> str:
    """The Redis client and server the figures were measured with, for the report's header."""
    return (
        f"redis-py {redis.__version__}, redis-server {server_version} on loopback (no persistence)"
    )


def redis_cpu_seconds(admin: redis.Redis) -> float:
    """The redis-server's CPU seconds so far (user + system, every thread)."""
    info: dict[str, Any] = admin.info("cpu")  # type: ignore[assignment]
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


@dataclass(frozen=True)
class Run:
    store: str
    workers: int
    turns: int
    wall_s: float
    client_cpu_s: float
    redis_cpu_s: float

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.wall_s


def run_processes(
    server: RedisServer, store: str, workers: int, label: str, seed: int, plan: Plan
) -> Run:
    """One run of section 3: ``workers`` processes, the same total work."""
    url = f"{server.url}?prefix={label}:" if store == "redis" else "memory://"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers + 1)
    results = context.Queue()
    processes = [
        context.Process(
            target=worker,
            args=(
                url,
                index,
                workers,
                seed,
                plan.conversations,
                plan.turns_per_conversation,
                barrier,
                results,
            ),
        )
        for index in range(workers)
    ]
    for process in processes:
        process.start()
    admin = redis.Redis.from_url(server.url)
    cpu_before = redis_cpu_seconds(admin)
    barrier.wait(timeout=300)
    reports = [results.get(timeout=600) for _ in processes]
    cpu_after = redis_cpu_seconds(admin)
    for process in processes:
        process.join(timeout=60)
    admin.close()
    return Run(
        store=store,
        workers=workers,
        turns=sum(r[0] for r in reports),
        wall_s=max(r[2] for r in reports) - min(r[1] for r in reports),
        client_cpu_s=sum(r[3] for r in reports),
        redis_cpu_s=cpu_after - cpu_before,
    )


def bench_processes(server: RedisServer, seed: int, plan: Plan) -> list[Run]:
    """Every (store, process count) ``plan.repeats`` times, interleaved."""
    runs: list[Run] = []
    for repeat in range(plan.repeats):
        for workers in (1, 2, 4):
            for store in ("redis", "memory"):
                progress(f"section 3: {store}, {workers} process(es), run {repeat + 1}")
                runs.append(
                    run_processes(server, store, workers, f"mp{repeat}-{workers}", seed, plan)
                )
    return runs


def print_processes(runs: list[Run], plan: Plan) -> None:
    def median_run(store: str, workers: int) -> Run:
        chosen = sorted(
            (r for r in runs if r.store == store and r.workers == workers),
            key=lambda r: r.turns_per_s,
        )
        return chosen[len(chosen) // 2]

    table = Table(
        [
            "store",
            "processes",
            "turns/s (median run)",
            "runs, turns/s",
            "× 1 process",
            "per process ÷ 1 process",
            "client CPU ms / turn",
            "wall ms / turn (× processes)",
            "client CPU ÷ wall",
            "redis-server CPU ms / turn",
            "redis-server CPU share",
        ],
        text_columns=1,
    )
    scaling: dict[tuple[str, int], float] = {}
    for store in ("redis", "memory"):
        single = median_run(store, 1).turns_per_s
        for workers in (1, 2, 4):
            run = median_run(store, workers)
            all_rates = sorted(
                r.turns_per_s for r in runs if r.store == store and r.workers == workers
            )
            ratio = run.turns_per_s / single
            scaling[(store, workers)] = ratio
            busy = run.wall_s * workers
            table.add(
                "Redis (shared)" if store == "redis" else "memory:// (per process)",
                workers,
                fmt(run.turns_per_s),
                ", ".join(fmt(rate) for rate in all_rates),
                f"{ratio:.2f}",
                f"{ratio / workers:.2f}",
                f"{1000 * run.client_cpu_s / run.turns:.3f}",
                f"{1000 * busy / run.turns:.3f}",
                f"{run.client_cpu_s / busy:.2f}",
                f"{1000 * run.redis_cpu_s / run.turns:.3f}" if store == "redis" else "-",
                f"{run.redis_cpu_s / run.wall_s:.0%}" if store == "redis" else "-",
            )
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    one = median_run("redis", 1)
    wait_share = 1 - one.client_cpu_s / one.wall_s
    targets = Table(["target", "measured", "result"])
    four = scaling[("redis", 4)]
    targets.add(
        f"4 processes ≥ {TARGET_SCALING_4:g}× 1 process on one Redis",
        f"{four:.2f}× on {cpus} CPUs",
        verdict(four >= TARGET_SCALING_4)
        + ("" if four >= TARGET_SCALING_4 else f" (needs ≥ 4 CPUs; this machine has {cpus})"),
    )
    total = plan.conversations * plan.turns_per_conversation
    print_section(
        f"3. Throughput of worker processes on one Redis server ({plan.conversations:,} "
        f"conversations × {plan.turns_per_conversation} turns)",
        table.render(),
        targets.render(),
        notes(
            f"Each run records the same {total:,} turns (~1 KB, 3 recent turns as context) of "
            f"{plan.conversations:,} conversations, split between the processes (conversation i "
            "goes to process i mod N; each process goes turn by turn across its "
            "conversations). Processes are started with `spawn`, build their governance from "
            "the demo configuration and warm up, then start together at a barrier; the time is "
            "from the first process's start to the last one's end. Every process uses one API "
            "key, so all of them admit into one rate-limit window (one sorted set).",
            f"{plan.repeats} run(s) of each row, interleaved; the table shows the median run "
            "and lists all.",
            "memory:// rows: each process its own in-process store (no shared state): the same "
            "work without Redis, which shows how far this machine scales CPU-bound Python "
            "processes at all.",
            "client CPU ms / turn: CPU time of the worker processes (user + system) per turn; "
            "wall ms / turn (× processes): the processes' combined wall time per turn. Their "
            "ratio is the share of its time a worker spends on the CPU rather than waiting "
            f"(for Redis, or for a CPU): with 1 process on Redis, {wait_share:.0%} of a turn's "
            "wall time is spent off the client's CPU.",
            "redis-server CPU: `INFO cpu` (used_cpu_user + used_cpu_sys) before and after the "
            "run; its share is of one CPU over the run's wall time. redis-server runs on the "
            "same CPUs as the workers.",
        ),
    )


# --------------------------------------------------------------------------------------------
# The command.
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Section 4: what waiting for a replica costs a turn.
# --------------------------------------------------------------------------------------------


def bench_wait(seed: int, plan: Plan) -> dict[str, Stats]:
    """Section 4: turns on a primary with one replica, without and with ``wait_replicas=1``,
    and on ``memory://``, interleaved call by call."""
    at_once = ("--repl-diskless-sync-delay", "0")
    with RedisServer(arguments=at_once) as primary:
        follow = (*at_once, "--replicaof", "127.0.0.1", str(primary.port))
        with RedisServer(arguments=follow) as replica:
            admin = redis.Redis(port=replica.port)
            while admin.info("replication").get("master_link_status") != "up":
                time.sleep(0.05)
            admin.close()
            govs = {
                "memory": govcore.Governance(demo_config("memory://")),
                "async": govcore.Governance(demo_config(f"{primary.url}?prefix=bench-nowait:")),
                "wait": govcore.Governance(
                    demo_config(f"{primary.url}?prefix=bench-wait:&wait_replicas=1&wait_timeout=1")
                ),
            }
            clients = {name: gov.client(API_KEY) for name, gov in govs.items()}
            turns_per_session = WARMUP_TURNS + plan.timed_turns
            sessions = [
                conversation_turns(seed, "w", number, turns_per_session)
                for number in range(plan.sessions)
            ]
            latencies: dict[str, list[int]] = {name: [] for name in govs}

            def call_of(name: str, request: dict[str, Any]) -> Callable[[], int]:
                def turn() -> int:
                    start = time.perf_counter_ns()
                    clients[name].record_turn(request)
                    return time.perf_counter_ns() - start

                return turn

            names = list(govs)
            rounds = 0
            for index in range(turns_per_session):
                for session in sessions:
                    order = names[rounds % len(names) :] + names[: rounds % len(names)]
                    rounds += 1
                    for name in order:
                        elapsed = call_of(name, session[index])()
                        if index >= WARMUP_TURNS:
                            latencies[name].append(elapsed)
            traced = [
                conversation_turns(seed, "wtraced", number, 1)[0]
                for number in range(plan.traced_calls)
            ]
            memory_mb = {
                name: traced_peak_mb(call_of(name, request) for request in traced) for name in govs
            }
            for gov in govs.values():
                gov.close()
    return {name: Stats.of(values, memory_mb[name]) for name, values in latencies.items()}


def print_wait(stats: dict[str, Stats], plan: Plan) -> None:
    labels = {
        "memory": "Governance on MemoryStore (baseline)",
        "async": "RedisStore, asynchronous replication (default)",
        "wait": "RedisStore, wait_replicas=1",
    }
    table = Table(["path", *LATENCY_COLUMNS, "peak MB", "p50 − memory ms", "p50 − default ms"])
    base, plain = stats["memory"].median_ms, stats["async"].median_ms
    for name, label in labels.items():
        row = stats[name]
        added = "-" if name == "memory" else f"{row.median_ms - base:+.3f}"
        over_plain = f"{row.median_ms - plain:+.3f}" if name == "wait" else "-"
        table.add(label, *row.cells(), added, over_plain)
    print_section(
        "4. Waiting for a replica: wait_replicas=1",
        table.render(),
        notes(
            "A primary and one replica (`redis-server --replicaof`, both on loopback, no "
            "persistence); `record_turn` of the same ~1 KB turns on each path, "
            f"{plan.sessions} sessions interleaved, the paths interleaved call by call "
            f"({stats['memory'].samples:,} timed turns per path after {WARMUP_TURNS} untimed "
            "per session).",
            "With wait_replicas=1 a turn's commit is sent with `WAIT 1 1000` in the same round "
            "trip: the answer comes once the replica has acknowledged the write, so the added "
            "time is about one replication round trip (primary to replica and back) plus the "
            "replica's processing. On loopback that is the floor; across hosts or zones add "
            "their RTT.",
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (smoke test)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every generated input")
    parser.add_argument(
        "--only",
        choices=("latency", "trips", "processes", "wait"),
        default=None,
        help="run one section",
    )
    args = parser.parse_args(argv)
    plan = Plan(quick=args.quick)
    seed: int = args.seed
    command = shlex.join(["python", "benchmarks/bench_redis.py", *sys.argv[1:]])
    with RedisServer() as server:
        admin = redis.Redis.from_url(server.url)
        info: dict[str, Any] = admin.info("server")  # type: ignore[assignment]
        admin.close()
        print("# govcore on Redis: turn latency, round trips, worker processes\n")
        print(f"Command: `{command}`\n")
        print(notes(*machine_facts(redis_versions(str(info["redis_version"]))), f"seed {seed}"))
        sys.stdout.flush()
        trips = count_trips(server, seed)
        turn_trips = trips["turn"][0]
        if args.only in (None, "latency"):
            progress("section 1: turn latency")
            print_latency(bench_latency(server, seed, plan), turn_trips, plan)
        if args.only in (None, "trips"):
            print_trips(trips)
        if args.only in (None, "processes"):
            print_processes(bench_processes(server, seed, plan), plan)
    if args.only in (None, "wait"):
        progress("section 4: wait_replicas")
        print_wait(bench_wait(seed, plan), plan)
    progress("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
