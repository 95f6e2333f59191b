"""What metrics and traces cost a turn: off, metrics, traces and both, side by side in one run.

    python benchmarks/bench_telemetry.py [--quick] [--sizes 1000,10000] [--turns 2000] [--seed 0]

Seven facades of the same configuration (seeded policies from ``benchmarks/corpus.py``), each
recording the same ~1 KB turns with their previous 3 turns as ``recentContext`` through the typed
client, on its own in-memory store:

- ``off``: ``metrics=False, tracing=False``. No observer: the path of a process where neither
  prometheus-client nor the OpenTelemetry API is installed;
- ``API, no provider``: the default (``tracing=True``) with the OpenTelemetry API installed but no
  SDK's tracer provider (the observer looks for one every 64 requests);
- ``metrics``: ``metrics=Metrics(registry)``;
- ``traces``: the OpenTelemetry SDK's ``TracerProvider`` as the global provider, its spans handed
  to a ``BatchSpanProcessor`` whose exporter does nothing;
- ``both``: metrics and traces;
- ``both, 1 in 10 sampled``: the same with the SDK's ``ParentBased(TraceIdRatioBased(0.1))``
  sampler, as production tracing is usually set up: a trace not sampled makes no store spans;
- ``traces, the call's span only (floor)``: an experiment, not a configuration govcore offers:
  the observer's store spans are switched off (by swapping the function that gives them their
  parent), so the turn makes one SDK span. It measures what a single span costs inside a turn,
  the least any tracing of a call can cost.

The facades are interleaved call by call (the order rotating), so a noisy machine's drift affects
them alike; every figure is the wall-clock time of one ``record_turn`` (``perf_counter_ns``),
after warm-up turns, with the garbage collector on. The global tracer provider is swapped in
before each traced call and out before each ``API, no provider`` call, outside the timed region
(the API sets it once per process; the benchmark resets its two globals as OpenTelemetry's own
test utilities do). Memory is the median tracemalloc peak of one turn, in an untimed pass.
``CPU`` columns are the median of each turn's thread CPU time (``thread_time_ns``): on a shared
machine, other processes' load inflates wall-clock time (preemption) but not this.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from corpus import generate_conversation, generate_policies
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from opentelemetry.util._once import Once
from prometheus_client import CollectorRegistry
from report import (
    LATENCY_COLUMNS,
    Stats,
    Table,
    derive_seed,
    fmt,
    machine_facts,
    notes,
    print_section,
    progress,
    timed,
    traced_peak_mb,
    turn_request,
    verdict,
)

import govcore
from govcore.telemetry import Metrics, _observer, _tracing

API_KEY = "gk_bench_telemetry_0001"
TENANT = "bench"
RECENT_TURNS = 3
TARGET_OVERHEAD = 0.05  # metrics and traces together: under 5% on a turn's p50


class _NoExport(SpanExporter):
    """An exporter that drops every span: the cost measured is govcore's and the SDK's."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def _set_global_provider(provider: TracerProvider | None) -> None:
    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]
    if provider is not None:
        trace.set_tracer_provider(provider)


@dataclass(frozen=True)
class Variant:
    label: str
    metrics: bool
    tracing: bool
    # The SDK provider that is the global one during its calls: None, every trace recorded
    # ("all"), or one trace in ten ("sampled": the sampler decides at the endpoint's span).
    provider: str | None
    store_spans: bool = True


VARIANTS = (
    Variant("off", metrics=False, tracing=False, provider=None),
    Variant("API, no provider", metrics=False, tracing=True, provider=None),
    Variant("metrics", metrics=True, tracing=False, provider=None),
    Variant("traces", metrics=False, tracing=True, provider="all"),
    Variant("both", metrics=True, tracing=True, provider="all"),
    Variant("both, 1 in 10 sampled", metrics=True, tracing=True, provider="sampled"),
    Variant(
        "traces, the call's span only (floor)",
        metrics=False,
        tracing=True,
        provider="all",
        store_spans=False,
    ),
)


def _no_parent(span: object) -> None:
    return None


def _set_store_spans(on: bool) -> None:
    """Whether the observer makes store spans: it makes them only under a parent context, and
    reads the function that makes one from a module global (set when it finds a tracer)."""
    _observer._parent_context = _tracing.parent_context if on else _no_parent


def _config(policies: Sequence[dict[str, object]]) -> dict[str, Any]:
    return {
        "settings": {"default_rate_limit_per_minute": 1_000_000_000},
        "tenants": {TENANT: {"policies": list(policies)}},
        "keys": [{"key": API_KEY, "tenant": TENANT}],
    }


def _turns(seed: int, sessions: int, per_session: int) -> list[dict[str, Any]]:
    """Turn requests, sessions interleaved, each with its previous turns as context."""
    conversations = [
        generate_conversation(per_session, seed=derive_seed(seed, "telemetry", s), turn_bytes=1000)
        for s in range(sessions)
    ]
    requests = []
    for index in range(per_session):
        for number, conversation in enumerate(conversations):
            recent = list(conversation[max(0, index - RECENT_TURNS) : index])
            requests.append(turn_request(f"s-{number}", index, conversation[index], recent))
    return requests


def measure(size: int, turns: int, seed: int) -> tuple[dict[str, Stats], dict[str, float], Table]:
    """Time every variant at ``size`` policies: the wall-clock stats and the median CPU time
    (ms) by label, and the table."""
    progress(f"{size:,} policies: building {len(VARIANTS)} facades")
    config = _config(generate_policies(size, seed=derive_seed(seed, "policies", size)))
    providers = {
        "all": TracerProvider(),
        "sampled": TracerProvider(sampler=ParentBased(TraceIdRatioBased(0.1))),
    }
    for provider in providers.values():
        provider.add_span_processor(BatchSpanProcessor(_NoExport()))
    clients: dict[str, Callable[[dict[str, Any]], object]] = {}
    for variant in VARIANTS:
        gov = govcore.Governance.from_config(
            config,
            metrics=Metrics(CollectorRegistry()) if variant.metrics else False,
            tracing=variant.tracing,
        )
        clients[variant.label] = gov.client(API_KEY).record_turn
    sessions = 50
    warmup = 5
    per_session = warmup + -(-turns // sessions)
    requests = _turns(seed, sessions, per_session)
    latencies: dict[str, list[int]] = {v.label: [] for v in VARIANTS}
    cpu_times: dict[str, list[int]] = {v.label: [] for v in VARIANTS}
    progress(f"{size:,} policies: {len(requests)} turns per variant, interleaved")
    for position, request in enumerate(requests):
        rotation = position % len(VARIANTS)
        for variant in (*VARIANTS[rotation:], *VARIANTS[:rotation]):
            _set_global_provider(providers.get(variant.provider or ""))
            _set_store_spans(variant.store_spans)
            record = clients[variant.label]
            cpu_start = time.thread_time_ns()
            elapsed = timed(partial(record, request))
            cpu = time.thread_time_ns() - cpu_start
            if position >= warmup * sessions:
                latencies[variant.label].append(elapsed)
                cpu_times[variant.label].append(cpu)
    # Memory: a fresh session's turns per variant, untimed.
    memory: dict[str, float] = {}
    for variant in VARIANTS:
        _set_global_provider(providers.get(variant.provider or ""))
        _set_store_spans(variant.store_spans)
        memory[variant.label] = traced_peak_mb(
            partial(clients[variant.label], {**request, "sessionId": "m-" + request["sessionId"]})
            for request in requests[:200]
        )
    _set_global_provider(None)
    _set_store_spans(True)
    for provider in providers.values():
        provider.shutdown()
    stats = {label: Stats.of(values, memory[label]) for label, values in latencies.items()}
    cpu = {label: statistics.median(values) / 1e6 for label, values in cpu_times.items()}
    table = Table(
        ["facade", *LATENCY_COLUMNS, "peak MB", "p50 vs off", "CPU p50 ms", "CPU p50 vs off"]
    )
    off = stats["off"].median_ms
    for label, row in stats.items():
        change = (row.median_ms - off) / off
        cpu_change = (cpu[label] - cpu["off"]) / cpu["off"]
        table.add(
            label,
            *row.cells(),
            f"{change:+.1%} ({fmt((row.median_ms - off) * 1000)} µs)",
            fmt(cpu[label]),
            f"{cpu_change:+.1%} ({fmt((cpu[label] - cpu['off']) * 1000)} µs)",
        )
    return stats, cpu, table


def main() -> None:
    """Print the table of each size and the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="policy-set sizes")
    parser.add_argument("--turns", type=int, default=2000, help="timed turns per variant")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="1,000 policies, 300 turns")
    args = parser.parse_args()
    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",")]
    turns = 300 if args.quick else args.turns
    print("# govcore telemetry: what metrics and traces add to a turn\n")
    print(notes(*machine_facts("opentelemetry-sdk, prometheus-client")))
    results = []
    for size in sizes:
        stats, cpu, table = measure(size, turns, args.seed)
        results.append((size, stats, cpu))
        print_section(
            f"record_turn at {size:,} policies",
            table.render(),
            notes(
                f"{stats['off'].samples} timed turns per row; ~1 KB turns, 3 turns of context; "
                "memory: median tracemalloc peak of one turn (MB)."
            ),
        )
    targets = Table(["target", "measured", "verdict"])
    for size, stats, cpu in results:
        off = stats["off"].median_ms
        both = (stats["both"].median_ms - off) / off
        both_cpu = (cpu["both"] - cpu["off"]) / cpu["off"]
        idle = (stats["API, no provider"].median_ms - off) / off
        floor = (stats["traces, the call's span only (floor)"].median_ms - off) / off
        targets.add(
            f"{size:,} policies: metrics + traces add < 5% to p50",
            f"{both:+.1%} (CPU time {both_cpu:+.1%})",
            verdict(both < TARGET_OVERHEAD),
        )
        targets.add(
            f"{size:,} policies: API installed, no provider: nothing added",
            f"{idle:+.1%}",
            "within noise" if abs(idle) < 0.01 else "see row",
        )
        targets.add(
            f"{size:,} policies: one SDK span a turn (the floor of any tracing)",
            f"{floor:+.1%}",
            "under 5%" if floor < TARGET_OVERHEAD else "over 5%: the target is below one span",
        )
    print_section("Targets", targets.render())


if __name__ == "__main__":
    sys.exit(main())
