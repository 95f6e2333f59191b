"""Requests per second of ``govcore serve``, on Redis with 1 and 2 workers and on ``memory://``.

    python benchmarks/bench_serve.py [--quick] [--seed 0] [--concurrency 16] [--requests N]

Starts ``govcore serve`` as a real subprocess (the demo deployment, ``govcore/demo/acme``, its
rate limit raised) once per setup: ``--workers 1`` and ``--workers 2`` on a loopback
``redis-server`` the benchmark starts, and ``--workers 1`` on ``memory://``. Against each it
sends a fixed number of requests of two kinds from an asyncio ``httpx`` client that keeps at most
``--concurrency`` requests in flight:

- a turn (``POST .../conversation/turn``, ~1 KB with its 3 previous turns as context); every
  concurrent lane has its own sessions of 5 turns, so no two requests in flight share a session;
- a post-inference check of a 4 KB output (``POST .../post-inference``).

It prints requests per second, p50 / p95 / p99 latency as the client sees it, and the CPU
seconds that the load generator, the server's processes and redis-server used: all of them
share the machine's CPUs, so the reader can see how much of the machine the server had. The
baseline is the same requests through ``Governance.handle`` in-process, one after another on
one thread (no HTTP, no event loop), on ``memory://`` and on Redis.

Needs ``pip install -e ".[server,redis]"`` and ``redis-server`` on ``PATH``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import redis
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's govcore
from bench_redis import (
    API_KEY,
    DEMO_CONFIG,
    DEMO_POLICIES,
    ROOT,
    conversation_turns,
    four_kb_output,
    redis_cpu_seconds,
    redis_versions,
)
from report import Stats, Table, fmt, machine_facts, notes, print_section, progress

import govcore
from govcore.config import load_config
from govcore.testing import RedisServer

MOUNT = "/api/v1/agent/governance"
TURNS_PER_SESSION = 5
HEADERS = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}


@dataclass(frozen=True)
class Plan:
    quick: bool
    concurrency: int
    requests: int

    @property
    def warmup(self) -> int:
        """Untimed requests of each kind before the timed ones (they also reach every worker)."""
        return 100 if self.quick else 400

    @property
    def baseline_requests(self) -> int:
        return min(self.requests, 200 if self.quick else 1_000)


def config_document(store: str) -> dict[str, Any]:
    """The demo configuration on ``store``, rate limit raised, policies by absolute path."""
    document: dict[str, Any] = yaml.safe_load(DEMO_CONFIG.read_text())
    document["settings"] = {
        **document.get("settings", {}),
        "store": store,
        "default_rate_limit_per_minute": 1_000_000_000,
    }
    for tenant in document["tenants"].values():
        tenant["policies"] = str(DEMO_POLICIES)
    return document


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def process_tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its descendants alive now (Linux ``/proc``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children)
        except (OSError, ValueError):
            continue
    return total


class Server:
    """``govcore serve`` in a subprocess, on a free port, until :meth:`stop`."""

    def __init__(self, config_path: Path, workers: int, log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
                [
                    sys.executable,
                    "-m",
                    "govcore",
                    "serve",
                    "--config",
                    str(config_path),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--workers",
                    str(workers),
                ],
                cwd=ROOT,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.base = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(self.base + "/readyz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        tail = self.log_path.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"govcore serve did not become ready:\n{tail}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def turn_bodies(seed: int, label: str, lanes: int, per_lane: int) -> list[list[bytes]]:
    """Each lane's turn bodies: its own sessions of 5 turns, one session after another."""
    sessions_per_lane = -(-per_lane // TURNS_PER_SESSION)
    bodies: list[list[bytes]] = []
    for lane in range(lanes):
        mine: list[bytes] = []
        for number in range(sessions_per_lane):
            session = conversation_turns(seed, f"{label}-l{lane}", number, TURNS_PER_SESSION)
            mine.extend(json.dumps(request).encode() for request in session)
        bodies.append(mine[:per_lane])
    return bodies


def check_bodies(seed: int, lanes: int, per_lane: int) -> list[list[bytes]]:
    output = four_kb_output(seed)
    return [
        [
            json.dumps({"sessionId": f"check-{lane}", "output": output}).encode()
            for _ in range(per_lane)
        ]
        for lane in range(lanes)
    ]


@dataclass(frozen=True)
class Load:
    """What one load run measured."""

    latencies_ns: list[int]
    wall_s: float
    errors: int
    generator_cpu_s: float
    server_cpu_s: float
    redis_cpu_s: float

    @property
    def rps(self) -> float:
        return len(self.latencies_ns) / self.wall_s


async def drive(base: str, path: str, lanes: list[list[bytes]]) -> tuple[list[int], float, int]:
    """Send each lane's bodies one after another, the lanes concurrently."""
    limits = httpx.Limits(max_connections=len(lanes), max_keepalive_connections=len(lanes))
    latencies: list[int] = []
    errors = 0
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30.0) as client:

        async def lane(bodies: list[bytes]) -> None:
            nonlocal errors
            for body in bodies:
                start = time.perf_counter_ns()
                answer = await client.post(path, content=body, headers=HEADERS)
                latencies.append(time.perf_counter_ns() - start)
                if answer.status_code != 200:
                    errors += 1

        started = time.perf_counter()
        await asyncio.gather(*(lane(bodies) for bodies in lanes))
        wall = time.perf_counter() - started
    return latencies, wall, errors


def load(server: Server, kind: str, lanes: list[list[bytes]], admin: redis.Redis | None) -> Load:
    path = MOUNT + ("/conversation/turn" if kind == "turn" else "/post-inference")
    server_before = process_tree_cpu_seconds(server.process.pid)
    redis_before = redis_cpu_seconds(admin) if admin is not None else 0.0
    cpu_before = time.process_time()
    latencies, wall, errors = asyncio.run(drive(server.base, path, lanes))
    generator_cpu = time.process_time() - cpu_before
    return Load(
        latencies_ns=latencies,
        wall_s=wall,
        errors=errors,
        generator_cpu_s=generator_cpu,
        server_cpu_s=process_tree_cpu_seconds(server.process.pid) - server_before,
        redis_cpu_s=(redis_cpu_seconds(admin) - redis_before) if admin is not None else 0.0,
    )


def split(bodies: list[list[bytes]], warmup_per_lane: int) -> tuple[list[list[bytes]], ...]:
    return [b[:warmup_per_lane] for b in bodies], [b[warmup_per_lane:] for b in bodies]


def bench_server(
    redis_server: RedisServer,
    directory: Path,
    store: str,
    workers: int,
    seed: int,
    plan: Plan,
) -> dict[str, Load]:
    """Start one server, load it with turns then checks, stop it."""
    label = f"{store}-w{workers}"
    url = f"{redis_server.url}?prefix=serve-{label}:" if store == "redis" else "memory://"
    config_path = directory / f"{label}.json"
    config_path.write_text(json.dumps(config_document(url)))
    server = Server(config_path, workers, directory / f"{label}.log")
    admin = redis.Redis.from_url(redis_server.url) if store == "redis" else None
    lanes = plan.concurrency
    warm_per_lane = -(-plan.warmup // lanes)
    per_lane = -(-plan.requests // lanes)
    results: dict[str, Load] = {}
    try:
        server.wait_ready()
        time.sleep(1.0 if workers > 1 else 0.2)  # the other workers finish building
        for kind in ("turn", "check"):
            if kind == "turn":
                bodies = turn_bodies(seed, label, lanes, warm_per_lane + per_lane)
            else:
                bodies = check_bodies(seed, lanes, warm_per_lane + per_lane)
            warm, timed = split(bodies, warm_per_lane)
            progress(f"{label}: {kind}: warm-up and {sum(map(len, timed)):,} timed requests")
            load(server, kind, warm, admin)
            results[kind] = load(server, kind, timed, admin)
    finally:
        server.stop()
        if admin is not None:
            admin.close()
    return results


def bench_in_process(
    redis_server: RedisServer, store: str, seed: int, plan: Plan
) -> dict[str, tuple[Stats, float]]:
    """The same requests through ``Governance.handle``, one after another on one thread."""
    url = f"{redis_server.url}?prefix=serve-inprocess-{store}:" if store == "redis" else "memory://"
    gov = govcore.Governance(load_config(config_document(url)))
    results: dict[str, tuple[Stats, float]] = {}
    for kind in ("turn", "check"):
        count = plan.baseline_requests
        if kind == "turn":
            # Lane by lane, so each session's turns come in order, as over HTTP.
            lanes = turn_bodies(seed, f"inprocess-{store}", 1, count + plan.warmup)
            path = MOUNT + "/conversation/turn"
        else:
            lanes = check_bodies(seed, 1, count + plan.warmup)
            path = MOUNT + "/post-inference"
        bodies = lanes[0]
        for body in bodies[: plan.warmup]:
            gov.handle("POST", path, HEADERS, body)
        latencies: list[int] = []
        cpu_before = time.process_time()
        for body in bodies[plan.warmup :]:
            start = time.perf_counter_ns()
            answer = gov.handle("POST", path, HEADERS, body)
            latencies.append(time.perf_counter_ns() - start)
            assert answer.status == 200, answer.body
        cpu = time.process_time() - cpu_before
        results[kind] = (Stats.of(latencies), cpu)
    gov.close()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (smoke test)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every generated input")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument(
        "--requests", type=int, default=None, help="timed requests of each kind (default 4000)"
    )
    args = parser.parse_args(argv)
    plan = Plan(
        quick=args.quick,
        concurrency=args.concurrency,
        requests=args.requests or (400 if args.quick else 4_000),
    )
    seed: int = args.seed
    command = shlex.join(["python", "benchmarks/bench_serve.py", *sys.argv[1:]])
    setups = [("redis", 1), ("redis", 2), ("memory", 1)]
    with RedisServer() as redis_server, tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        admin = redis.Redis.from_url(redis_server.url)
        version = str(admin.info("server")["redis_version"])  # type: ignore[index]
        admin.close()
        print("# govcore serve: requests per second\n")
        print(f"Command: `{command}`\n")
        print(
            notes(
                *machine_facts(redis_versions(version)),
                f"seed {seed}; {plan.requests:,} timed requests of each kind per setup, "
                f"{plan.concurrency} in flight, after {plan.warmup:,} untimed",
            )
        )
        sys.stdout.flush()
        served: dict[tuple[str, int], dict[str, Load]] = {}
        for store, workers in setups:
            served[(store, workers)] = bench_server(
                redis_server, directory, store, workers, seed, plan
            )
        progress("in-process baseline")
        in_process = {
            store: bench_in_process(redis_server, store, seed, plan)
            for store in ("memory", "redis")
        }

    kinds = {"turn": "turn, ~1 KB", "check": "post-inference, 4 KB"}
    table = Table(
        [
            "request",
            "path",
            "requests/s",
            "p50 ms",
            "p95 ms",
            "p99 ms",
            "errors",
            "load generator CPU s (share of wall)",
            "server CPU s",
            "server CPU ms / request",
            "redis-server CPU s",
            "× in-process",
        ],
        text_columns=2,
    )
    for kind, kind_label in kinds.items():
        base_stats, _ = in_process["memory" if kind == "check" else "redis"][kind]
        for (store, workers), results in served.items():
            run = results[kind]
            stats = Stats.of(run.latencies_ns)
            reference = in_process[store][kind][0].ops_per_s
            table.add(
                kind_label,
                f"govcore serve --workers {workers}, {store}",
                fmt(run.rps),
                fmt(stats.median_ms),
                fmt(stats.p95_ms),
                fmt(stats.p99_ms),
                run.errors,
                f"{run.generator_cpu_s:.2f} ({run.generator_cpu_s / run.wall_s:.0%})",
                f"{run.server_cpu_s:.2f}",
                f"{1000 * run.server_cpu_s / len(run.latencies_ns):.2f}",
                f"{run.redis_cpu_s:.2f}" if store == "redis" else "-",
                f"{run.rps / reference:.2f}",
            )
        for store in ("memory", "redis"):
            stats, cpu = in_process[store][kind]
            table.add(
                kind_label,
                f"baseline: Governance.handle in-process, {store}",
                fmt(stats.ops_per_s),
                fmt(stats.median_ms),
                fmt(stats.p95_ms),
                fmt(stats.p99_ms),
                0,
                "-",
                f"{cpu:.2f}",
                f"{1000 * cpu / stats.samples:.2f}",
                "-",
                "1.00",
            )
        del base_stats
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print_section(
        "Requests per second of govcore serve",
        table.render(),
        notes(
            f"Latency is as the load generator sees it (from sending the request to reading the "
            f"whole answer), with {plan.concurrency} requests in flight: it includes queueing "
            "in the server. requests/s: timed requests over the wall time of the run.",
            f"CPU seconds over each timed run: the load generator (this process: httpx and "
            f"asyncio), the server (the `govcore serve` process and its workers, from /proc) "
            f"and redis-server (`INFO cpu`). This machine has {cpus} CPUs; their sum over the "
            "run's wall time shows how busy it was, and the load generator's share is CPU the "
            "server did not have.",
            "× in-process: the served rate over the same store's in-process rate "
            "(`Governance.handle`, one thread, one request after another: no HTTP, no event "
            "loop, no concurrency; requests/s = 1 / mean latency).",
            "Turns: each lane of the load generator has its own sessions of "
            f"{TURNS_PER_SESSION} turns, so no two requests in flight touch one conversation. "
            "Post-inference: the same 4 KB output (an email address in it), one session per "
            "lane. The access log lines go to a file.",
        ),
    )
    progress("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
