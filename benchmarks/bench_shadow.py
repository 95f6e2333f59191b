"""What shadow mode costs a request: no shadow, a candidate at 100 % and at 10 %, side by side.

    python benchmarks/bench_shadow.py [--quick] [--sizes 1000,10000] [--calls 2000] [--seed 0]

For each size, three facades of the same seeded configuration (``benchmarks/corpus.py``), each on
its own in-memory store and its own in-memory decision log (``MemoryDecisionLog``, one deque
append a record, so the sink's cost is not in the figures; a file or remote sink adds its own):

- ``no shadow``: the live policy set alone (the baseline);
- ``shadow 100%``: ``tenants.<id>.shadow`` with ``sample_rate: 1``: every request is decided
  again by a candidate policy set;
- ``shadow 10%``: the same candidate at ``sample_rate: 0.1`` (conversations sampled by session
  id, so the share of requests shadowed is near, not exactly, a tenth: each row says what it was).

The candidate is a realistic next release of the live set: one policy edited (its summary and
its detect rule), one added (with a detect rule) and one removed. It is another policy set, so it
is compiled apart and shares nothing of the live set's index or scanner.

Three paths, each timed through the typed client, the facades interleaved call by call (the
order rotating) so a noisy machine's drift affects them alike:

- ``turn``: ``record_turn`` of ~1 KB turns with their previous 3 turns as ``recentContext``
  (the turns of ``bench_telemetry.py``), conversations interleaved;
- ``post-inference``: a ~4 KB output with identifiers planted (emails, phone numbers, cards,
  IBANs, IP addresses, order and ticket numbers), one session per call;
- ``check-tool-call``: ~3.5 KB of arguments, some strings with a planted value, in the
  conversations the turns made (so their active policies are in play).

Every figure is the wall-clock time of one call (``perf_counter_ns``) after warm-up calls, with
the garbage collector on. Memory is the median tracemalloc peak of one call, in an untimed pass
(at 10 %, most calls are not shadowed, so its median is an unshadowed call's). ``CPU`` columns
are the median of each call's thread CPU time (``thread_time_ns``): other processes' load
inflates wall-clock time but not this; ``preempted`` is the share of calls during which the
kernel gave the CPU to another process (involuntary context switches of the thread), which
shows when a row's wall-clock figures are the machine's rather than govcore's. The target: at 100 % a request costs at most twice what
it costs without a shadow (the ratio of medians, ≤ 2.0).
"""

from __future__ import annotations

import argparse
import copy
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from corpus import PII_KINDS, generate_conversation, generate_policies, generate_turn
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

API_KEY = "gk_bench_shadow_000001"
TENANT = "bench"
RECENT_TURNS = 3
SESSIONS = 100  # conversations of the turn path: enough for a 10 % sample to be near a tenth
WARMUP_TURNS = 2  # per conversation, untimed
TARGET_RATIO = 2.0  # shadow at 100 %: a request's median at most twice the baseline's

# Values the seeded policies' pii and regex rules find (corpus.PII_KINDS, corpus._ID_REGEXES).
PLANTS = (
    "jane.doe+orders@example.co.uk",
    "+1 (415) 555-2671",
    "4111 1111 1111 1111",
    "DE89 3704 0044 0532 0130 00",
    "192.168.10.24",
    "ORD-48213307",
    "TKT-552019",
    "RMA-3301942",
)


@dataclass(frozen=True)
class Facade:
    label: str
    sample_rate: float | None  # None: no shadow key at all


FACADES = (
    Facade("no shadow", None),
    Facade("shadow 100%", 1.0),
    Facade("shadow 10%", 0.1),
)
BASELINE = FACADES[0].label


# --------------------------------------------------------------------------------------------
# Inputs.
# --------------------------------------------------------------------------------------------


def candidate_of(policies: Sequence[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The live ``policies`` as a compliance team's next release changes them: one policy with
    a detect rule edited (summary and rule), one added with a rule, one other removed."""
    rng = random.Random(seed)
    candidate = copy.deepcopy(list(policies))
    with_rules = [i for i, p in enumerate(candidate) if p.get("detect")]
    edited, removed = rng.sample(with_rules, 2)
    policy = candidate[edited]
    policy["summary"] = f"{policy['summary']} Applies to chat transcripts as well."
    policy["detect"] = [{"pii": rng.choice(PII_KINDS)}, {"terms": ["account closure fee"]}]
    (added,) = generate_policies(1, seed=derive_seed(seed, "added"))
    added["id"] = "pol-candidate-added"
    added["detect"] = [{"pii": "email"}]
    del candidate[removed]
    candidate.insert(rng.randrange(len(candidate)), added)
    return candidate


def configuration(
    policies: Sequence[dict[str, Any]],
    candidate: Sequence[dict[str, Any]],
    sample_rate: float | None,
) -> dict[str, Any]:
    tenant: dict[str, Any] = {"policies": list(policies), "label": "live"}
    if sample_rate is not None:
        tenant["shadow"] = {
            "policies": list(candidate),
            "label": "candidate",
            "sample_rate": sample_rate,
        }
    return {
        "settings": {"default_rate_limit_per_minute": 1_000_000_000},
        "tenants": {TENANT: tenant},
        "keys": [
            {
                "key": API_KEY,
                "tenant": TENANT,
                "settings": {
                    "post_inference_checking": "allowed",
                    "tool_call_governance": "allowed",
                },
            }
        ],
    }


def planted_text(rng: random.Random, size: int, plants: int) -> str:
    """Support prose of ``size`` characters with ``plants`` identifiers inserted into it."""
    text = generate_turn(rng, size_bytes=size)
    for _ in range(plants):
        cut = rng.randrange(len(text))
        text = f"{text[:cut]} {rng.choice(PLANTS)} {text[cut:]}"
    return text[:size]


def turn_requests(seed: int, per_session: int) -> list[dict[str, Any]]:
    """Turn requests, conversations interleaved, each with its previous turns as context."""
    conversations = [
        generate_conversation(per_session, seed=derive_seed(seed, "shadow", s), turn_bytes=1000)
        for s in range(SESSIONS)
    ]
    requests = []
    for index in range(per_session):
        for number, conversation in enumerate(conversations):
            recent = list(conversation[max(0, index - RECENT_TURNS) : index])
            requests.append(turn_request(f"s-{number}", index, conversation[index], recent))
    return requests


def output_requests(seed: int, count: int) -> list[dict[str, Any]]:
    """Post-inference requests of ~4 KB outputs, two to six values planted, one session each."""
    rng = random.Random(derive_seed(seed, "outputs"))
    outputs = [planted_text(rng, 4096, rng.randint(2, 6)) for _ in range(50)]
    return [{"sessionId": f"p-{i}", "output": outputs[i % len(outputs)]} for i in range(count)]


def tool_call_requests(seed: int, count: int) -> list[dict[str, Any]]:
    """Tool calls of ~3.5 KB of arguments in the turn path's conversations; about half of the
    strings carry a planted value."""
    rng = random.Random(derive_seed(seed, "tool calls"))
    argument_sets = []
    for _ in range(20):
        argument_sets.append(
            {
                "order_id": "NW48213307",
                "amount": round(rng.uniform(5, 500), 2),
                "items": [
                    {"sku": f"SKU-{i}", "note": planted_text(rng, 300, rng.randint(0, 1))}
                    for i in range(8)
                ],
                "message": planted_text(rng, 1000, rng.randint(0, 2)),
            }
        )
    return [
        {
            "sessionId": f"s-{i % SESSIONS}",
            "toolName": "send_email",
            "arguments": argument_sets[i % len(argument_sets)],
        }
        for i in range(count)
    ]


# --------------------------------------------------------------------------------------------
# Measuring.
# --------------------------------------------------------------------------------------------


@dataclass
class PathResult:
    stats: dict[str, Stats]
    cpu_ms: dict[str, float]  # median thread CPU time of a call
    shadowed: dict[str, float]  # share of the timed calls the candidate also decided
    preempted: dict[str, float]  # share of the timed calls the kernel switched away from

    def ratio(self, label: str) -> float:
        return self.stats[label].median_ms / self.stats[BASELINE].median_ms

    def cpu_ratio(self, label: str) -> float:
        return self.cpu_ms[label] / self.cpu_ms[BASELINE]


def _involuntary_switches() -> int:
    """How often the kernel has taken the CPU from this thread so far: a call during which it
    did waited for another process, which its wall-clock time shows and its CPU time does not."""
    return resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw


def _shadow_records(log: govcore.MemoryDecisionLog) -> int:
    return sum(1 for decision in log.decisions() if decision.shadow is not None)


def run_path(
    calls: dict[str, Callable[[dict[str, Any]], object]],
    logs: dict[str, govcore.MemoryDecisionLog],
    requests: Sequence[dict[str, Any]],
    warmup: int,
    memory_requests: Sequence[dict[str, Any]],
) -> PathResult:
    """Time ``requests`` on every facade, interleaved (the first ``warmup`` untimed), then
    trace one call of each of ``memory_requests`` per facade."""
    labels = [f.label for f in FACADES]
    latencies: dict[str, list[int]] = {label: [] for label in labels}
    cpu_times: dict[str, list[int]] = {label: [] for label in labels}
    preemptions = dict.fromkeys(labels, 0)
    shadowed_before = dict.fromkeys(labels, 0)
    for position, request in enumerate(requests):
        if position == warmup:
            shadowed_before = {label: _shadow_records(logs[label]) for label in labels}
        rotation = position % len(labels)
        for label in (*labels[rotation:], *labels[:rotation]):
            call = calls[label]
            switches = _involuntary_switches()
            cpu_start = time.thread_time_ns()
            elapsed = timed(partial(call, request))
            cpu = time.thread_time_ns() - cpu_start
            if position >= warmup:
                latencies[label].append(elapsed)
                cpu_times[label].append(cpu)
                preemptions[label] += _involuntary_switches() > switches
    timed_calls = len(requests) - warmup
    shadowed = {
        label: (_shadow_records(logs[label]) - shadowed_before[label]) / timed_calls
        for label in labels
    }
    memory = {
        label: traced_peak_mb(partial(calls[label], request) for request in memory_requests)
        for label in labels
    }
    return PathResult(
        stats={label: Stats.of(latencies[label], memory[label]) for label in labels},
        cpu_ms={label: statistics.median(cpu_times[label]) / 1e6 for label in labels},
        shadowed=shadowed,
        preempted={label: preemptions[label] / timed_calls for label in labels},
    )


def measure(size: int, calls: int, seed: int) -> dict[str, PathResult]:
    """Every path at ``size`` policies, by path name."""
    progress(f"{size:,} policies: building {len(FACADES)} facades (and 2 candidates)")
    live = generate_policies(size, seed=derive_seed(seed, "policies", size))
    candidate = candidate_of(live, derive_seed(seed, "candidate", size))
    # Logs long enough to hold every record of a path, so that shadow records can be counted.
    per_session = WARMUP_TURNS + -(-calls // SESSIONS)
    logs = {f.label: govcore.MemoryDecisionLog(maxlen=4 * calls + 10_000) for f in FACADES}
    clients = {
        f.label: govcore.Governance.from_config(
            configuration(live, candidate, f.sample_rate), decision_log=logs[f.label]
        ).client(API_KEY)
        for f in FACADES
    }
    results: dict[str, PathResult] = {}

    turns = turn_requests(seed, per_session)
    progress(f"{size:,} policies: turn, {len(turns)} calls per facade")
    results["turn"] = run_path(
        {label: client.record_turn for label, client in clients.items()},
        logs,
        turns,
        WARMUP_TURNS * SESSIONS,
        # Fresh conversations for the memory pass: the timed ones' state stays as it was.
        [{**request, "sessionId": "m-" + request["sessionId"]} for request in turns[:200]],
    )

    warmup = 100
    outputs = output_requests(seed, warmup + calls)
    progress(f"{size:,} policies: post-inference, {len(outputs)} calls per facade")
    results["post-inference"] = run_path(
        {label: client.post_inference for label, client in clients.items()},
        logs,
        outputs,
        warmup,
        outputs[:200],
    )

    tool_calls = tool_call_requests(seed, warmup + calls)
    progress(f"{size:,} policies: check-tool-call, {len(tool_calls)} calls per facade")
    results["check-tool-call"] = run_path(
        {label: client.check_tool_call for label, client in clients.items()},
        logs,
        tool_calls,
        warmup,
        tool_calls[:200],
    )
    return results


# --------------------------------------------------------------------------------------------
# Reporting.
# --------------------------------------------------------------------------------------------


def table_of(results: dict[str, PathResult]) -> Table:
    table = Table(
        [
            "path",
            "facade",
            *LATENCY_COLUMNS,
            "peak MB",
            "shadowed",
            "preempted",
            "p50 vs no shadow",
            "CPU p50 ms",
            "CPU p50 vs no shadow",
        ],
        text_columns=2,
    )
    for path, result in results.items():
        for facade in FACADES:
            label = facade.label
            table.add(
                path,
                label,
                *result.stats[label].cells(),
                f"{result.shadowed[label]:.0%}",
                f"{result.preempted[label]:.0%}",
                f"{result.ratio(label):.2f}x",
                fmt(result.cpu_ms[label]),
                f"{result.cpu_ratio(label):.2f}x",
            )
    return table


def main() -> None:
    """Print the table of each size and the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="policy-set sizes")
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per facade and path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="1,000 policies, 300 calls")
    args = parser.parse_args()
    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",")]
    calls = 300 if args.quick else args.calls
    print("# govcore shadow mode: what a candidate policy set adds to a request\n")
    print(notes(*machine_facts("decision log: MemoryDecisionLog")))
    all_results = []
    for size in sizes:
        results = measure(size, calls, args.seed)
        all_results.append((size, results))
        print_section(
            f"{size:,} policies",
            table_of(results).render(),
            notes(
                f"{results['turn'].stats[BASELINE].samples} timed calls per row; turns ~1 KB "
                "with 3 turns of context; outputs ~4 KB; tool calls ~3.5 KB of arguments.",
                "`shadowed`: share of the timed calls the candidate also decided (counted "
                "in the decision log); `vs no shadow`: the row's median over the baseline's.",
                "Decision log: in memory (MemoryDecisionLog), so the sink's own cost is not "
                "measured; memory: median tracemalloc peak of one call (MB).",
            ),
        )
    targets = Table(["target", "measured", "verdict"])
    for size, results in all_results:
        for path, result in results.items():
            ratio = result.ratio("shadow 100%")
            targets.add(
                f"{size:,} policies, {path}: shadow at 100% ≤ {TARGET_RATIO:.1f}x no shadow (p50)",
                f"{ratio:.2f}x (CPU time {result.cpu_ratio('shadow 100%'):.2f}x); "
                f"10%: {result.ratio('shadow 10%'):.2f}x",
                verdict(ratio <= TARGET_RATIO),
            )
    print_section("Targets", targets.render())


if __name__ == "__main__":
    sys.exit(main())
