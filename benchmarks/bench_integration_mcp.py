"""The MCP adapter's overhead per tool call: a governed call minus the same call ungoverned.

    python benchmarks/bench_integration_mcp.py [--quick] [--mode 2026-07-28|legacy]

Needs the extra: ``pip install -e ".[mcp]"``. One command, one table. Each path is a
``tools/call`` through the SDK's in-process client (``mcp.Client(server)``; the stateless
2026-07-28 path by default, ``--mode legacy`` for the handshake-era stream loop that stdio runs)
to a server with the demo shop's tools, on the demo shop's policies (govcore/demo/acme), with
govcore's in-memory store:

- server middleware: the same call to a server with ``GovernedToolsMiddleware`` and to one
  without, for a tool with a text result (``send_email``) and one with a structured result
  (``lookup_order``), neither with anything to redact (the everyday path);
- host wrapper: ``GovernedMCPClient.call_tool`` against the session's own ``call_tool``;
- the server middleware recording each result as a tool turn (``record_results=True``; off by
  default on a server), and the host wrapper, which records;
- the govcore calls the governed path makes (gate, check of the result, and the record of the
  tool turn where it records), awaited back to back without MCP.

How it measures: wall-clock time (``time.perf_counter_ns``) and the calling thread's CPU time
(``time.thread_time_ns``; the in-process client, the server and govcore all run in that thread)
of each awaited call, after warm-up calls, garbage collector on; the paths' calls are
interleaved round by round, in a new seeded random order each round, so that a noisy machine's
drift affects them alike. An overhead is the median over rounds of the governed call minus the plain call of
the same round; the target is judged on CPU time, which the other processes of a shared
machine do not inflate. MCP has no model call: the adapter's per-model-call target
does not apply (docs: the MCP section of docs/integrations.md).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp
import numpy as np
import yaml
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel
from report import (
    LATENCY_COLUMNS,
    Stats,
    Table,
    fmt,
    machine_facts,
    notes,
    print_section,
    progress,
    verdict,
)

import govcore
from govcore.integrations import GovernedConversation
from govcore.integrations.mcp import GovernedMCPClient, GovernedToolsMiddleware

DEMO = Path(govcore.__file__).parent / "demo" / "acme" / "govcore.yaml"
KEY = "gk_demo_northwind_full_0001"
TOOL_CALL_TARGET_MS = 0.3
SEED = 7
EMAIL = {"to": "ada@example.com", "body": "Your order 1001 ships today from Reno."}
ORDER = {"order_id": "1001"}


class Order(BaseModel):
    order_id: str
    status: str
    carrier: str


def tool_server(middleware: Any = None) -> MCPServer:
    server = MCPServer("northwind-tools", middleware=[middleware] if middleware else None)

    @server.tool()
    def send_email(to: str, body: str) -> str:
        """E-mail a customer."""
        return f"E-mail sent to {to}."

    @server.tool()
    def lookup_order(order_id: str) -> Order:
        """An order's status."""
        return Order(order_id=order_id, status="shipped", carrier="UPS")

    return server


def config() -> dict[str, Any]:
    """The demo's configuration with its policies' path made absolute, and no rate limit on the
    demo key (a benchmark makes thousands of calls a minute, as an in-process caller may)."""
    raw: dict[str, Any] = yaml.safe_load(DEMO.read_text())
    for tenant in raw["tenants"].values():
        tenant["policies"] = str(DEMO.parent / tenant["policies"])
    for key in raw["keys"]:
        if key.get("key") == KEY:
            # "unlimited", as docs/integrations.md advises for a trusted in-process caller: a
            # limit of 10**9 still kept each request's rate-limit window (a store write).
            key["settings"]["rate_limit_per_minute"] = "unlimited"
    return raw


Call = Callable[[], Awaitable[object]]


@dataclass
class Samples:
    """One path's per-call wall-clock and thread CPU times, in call order (round by round)."""

    wall_ns: list[int] = field(default_factory=list)
    cpu_ns: list[int] = field(default_factory=list)


async def interleaved(paths: dict[str, Call], warmup: int, repeats: int) -> dict[str, Samples]:
    """Each path called ``repeats`` times, the paths' calls interleaved round by round."""
    names = list(paths)
    for _ in range(warmup):
        for name in names:
            await paths[name]()
    samples = {name: Samples() for name in names}
    # A new random order each round: a path never always follows the same one (a record's
    # background work, the decision log's thread, would otherwise always land on one path).
    rounds = random.Random(SEED)
    for _ in range(repeats):
        rounds.shuffle(names)
        for name in names:
            cpu = time.thread_time_ns()
            wall = time.perf_counter_ns()
            await paths[name]()
            samples[name].wall_ns.append(time.perf_counter_ns() - wall)
            samples[name].cpu_ns.append(time.thread_time_ns() - cpu)
    return samples


def paired_median_ms(governed: list[int], plain: list[int]) -> float:
    """The median of the per-round differences: robust to a drift that moves both alike."""
    return float(np.median(np.subtract(governed, plain))) / 1e6


async def measure(mode: str, warmup: int, repeats: int) -> None:
    gov = govcore.AsyncGovernance.from_config(config())
    client = gov.client(KEY)
    middleware = GovernedToolsMiddleware(client, session_id="bench-server")
    recording = GovernedToolsMiddleware(client, session_id="bench-recorded", record_results=True)
    host = GovernedConversation(client, "bench-host")
    direct = GovernedConversation(client, "bench-direct")
    counter = iter(range(10**9))

    async with (
        mcp.Client(tool_server(middleware), mode=mode) as governed,
        mcp.Client(tool_server(recording), mode=mode) as recorded,
        mcp.Client(tool_server(), mode=mode) as plain,
    ):
        wrapped = GovernedMCPClient(plain, host)

        async def govcore_share(
            name: str, arguments: dict[str, Any], result: str, *, record: bool = False
        ) -> None:
            await direct.agate_tool(name, arguments)
            await direct.acheck_tool_result(name, result)
            if record:
                await direct.arecord_tool_result(name, result)

        email_text = "E-mail sent to ada@example.com."
        order_text = Order(order_id="1001", status="shipped", carrier="UPS").model_dump_json(
            indent=2
        )
        order_json = '{"order_id": "1001", "status": "shipped", "carrier": "UPS"}'
        paths: dict[str, Call] = {
            "server: send_email, plain": lambda: plain.call_tool("send_email", EMAIL),
            "server: send_email, governed": lambda: governed.call_tool("send_email", EMAIL),
            "server: lookup_order, plain": lambda: plain.call_tool("lookup_order", ORDER),
            "server: lookup_order, governed": lambda: governed.call_tool("lookup_order", ORDER),
            "server: send_email, governed, recorded": lambda: recorded.call_tool(
                "send_email", EMAIL
            ),
            "host: send_email, governed, recorded": lambda: wrapped.call_tool(
                "send_email", EMAIL, call_id=f"c{next(counter)}"
            ),
            "govcore: gate + check (send_email)": lambda: govcore_share(
                "send_email", EMAIL, f"{email_text}\n{email_text}"
            ),
            "govcore: gate + check (lookup_order)": lambda: govcore_share(
                "lookup_order", ORDER, f"{order_text}\n{order_json}"
            ),
            "govcore: gate + check + record (send_email)": lambda: govcore_share(
                "send_email", EMAIL, f"{email_text}\n{email_text}", record=True
            ),
        }
        progress(f"measuring {len(paths)} paths, {repeats} calls each ({mode})")
        stats = await interleaved(paths, warmup, repeats)
    await gov.aclose()

    table = Table(["path", *LATENCY_COLUMNS, "CPU median ms"])
    for name, figures in stats.items():
        table.add(
            name,
            *Stats.of(figures.wall_ns).cells()[:4],
            fmt(float(np.median(figures.cpu_ns)) / 1e6),
        )

    overhead = Table(
        [
            "tool call",
            "overhead p50 ms",
            "CPU overhead p50 ms",
            "govcore calls alone (CPU) ms",
            "target",
            "verdict (CPU)",
        ]
    )
    rows = [
        (
            "server, text result",
            "server: send_email, governed",
            "server: send_email, plain",
            "govcore: gate + check (send_email)",
        ),
        (
            "server, structured result",
            "server: lookup_order, governed",
            "server: lookup_order, plain",
            "govcore: gate + check (lookup_order)",
        ),
        (
            "server, text result, recorded",
            "server: send_email, governed, recorded",
            "server: send_email, plain",
            "govcore: gate + check + record (send_email)",
        ),
        (
            "host wrapper, text result, recorded",
            "host: send_email, governed, recorded",
            "server: send_email, plain",
            "govcore: gate + check + record (send_email)",
        ),
    ]
    for label, governed_path, plain_path, share in rows:
        governed, plain = stats[governed_path], stats[plain_path]
        cpu_extra = paired_median_ms(governed.cpu_ns, plain.cpu_ns)
        overhead.add(
            label,
            fmt(paired_median_ms(governed.wall_ns, plain.wall_ns)),
            fmt(cpu_extra),
            fmt(float(np.median(stats[share].cpu_ns)) / 1e6),
            f"< {TOOL_CALL_TARGET_MS}",
            verdict(cpu_extra < TOOL_CALL_TARGET_MS),
        )
    print_section(
        f"MCP adapter overhead per tool call ({mode})",
        table.render(),
        overhead.render(),
        notes(
            "overhead: the median over rounds of the governed call's time minus the plain "
            "call's in the same round; CPU: the calling thread's CPU time (the client, the "
            "server and govcore run in it; MCPServer runs a sync tool in a worker thread, which "
            "is why a plain call's wall time can exceed its CPU time by milliseconds on a busy "
            "machine), which other processes on a shared machine do not inflate",
            "govcore calls alone: the same govcore calls awaited back to back, without MCP; "
            "inside a tool call the same calls measured about twice as much (colder caches "
            "between MCP's own work), so the difference is not the adapter's plumbing alone",
            "MCP has no model call, so the per-model-call target does not apply",
            *machine_facts(f"mcp {mcp_version()}"),
        ),
    )


def mcp_version() -> str:
    from importlib.metadata import version

    return version("mcp")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls")
    parser.add_argument("--mode", default="2026-07-28", choices=["2026-07-28", "legacy"])
    args = parser.parse_args()
    warmup, repeats = (50, 300) if args.quick else (200, 2000)
    anyio.run(measure, args.mode, warmup, repeats)


if __name__ == "__main__":
    main()
