"""What examples and their calibration cost: index build time and memory, and the turn.

    python benchmarks/bench_calibration.py [--sizes 1000,10000] [--hybrid] [--seed 0]

Policies come from the seeded corpus generator (``benchmarks/corpus.py``); each gets five
example messages, short turns of the same generator drawn in the policy's own area (about 80
characters each). For each size it prints:

1. **Index build**, for the default retriever: without examples; with examples and calibration
   off (``calibration=None``); with examples and calibrated (the default). Median of a few
   builds, and the tracemalloc peak of one build. The difference between the last two is what
   calibration costs.
2. **Turn latency** through the typed client (``record_turn`` with the previous three turns as
   ``recentContext``), the policy set with examples (calibrated) against the same policies
   without examples, call by call, alternating which goes first.

With ``--hybrid``, the same for the ``hybrid`` retriever at the first size only (its model runs
at every turn; build times are with the policy embeddings already in the disk cache, as after
the first start, which the first, untimed build fills).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's govcore, not an installed one

import govcore  # noqa: E402
from benchmarks.corpus import (  # noqa: E402
    generate_conversation,
    generate_policies,
    with_examples,
)
from benchmarks.report import (  # noqa: E402
    Stats,
    Table,
    derive_seed,
    fmt,
    machine_facts,
    notes,
    print_section,
    progress,
    timed,
    turn_request,
)
from govcore.backends.tfidf import TfidfRetriever  # noqa: E402
from govcore.policy import PolicyDocument  # noqa: E402

API_KEY = "gk_bench_calibration"
TENANT = "bench"
EXAMPLES_PER_POLICY = 5
SESSIONS = 20
RECENT = 3


def build_times(build: Callable[[], object], repeats: int) -> tuple[float, float]:
    """The median seconds of ``repeats`` builds, and the traced peak MB of one more."""
    seconds = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        build()
        seconds.append(time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    build()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(seconds), peak / 1e6


def governance(policies: Sequence[Mapping[str, Any]], retriever: Any) -> govcore.Governance:
    config = {
        "settings": {"default_rate_limit_per_minute": 1_000_000_000},
        "tenants": {TENANT: {"policies": list(policies)}},
        "keys": [{"key": API_KEY, "tenant": TENANT}],
    }
    return govcore.Governance.from_config(config, retriever=retriever)


def turn_latency(
    first: govcore.Governance, second: govcore.Governance, seed: int, turns: int
) -> tuple[Stats, Stats]:
    """``record_turn`` on both, call by call, alternating which goes first."""
    clients = (first.client(API_KEY), second.client(API_KEY))
    talks = [
        generate_conversation(turns + 1, seed=derive_seed(seed, "talk", s), turn_bytes=300)
        for s in range(SESSIONS)
    ]
    times: tuple[list[int], list[int]] = ([], [])
    for i in range(turns):
        for s, talk in enumerate(talks):
            request = turn_request(f"s{s}", i, talk[i], talk[max(0, i - RECENT) : i])
            order = (0, 1) if (i + s) % 2 == 0 else (1, 0)
            for which in order:
                elapsed = timed(partial(clients[which].record_turn, request))
                if i >= 2:  # the first turns of a session warm its state up
                    times[which].append(elapsed)
    return Stats.of(times[0]), Stats.of(times[1])


def bench_size(size: int, seed: int, retriever_of: Callable[..., Any], label: str) -> None:
    progress(f"{label}: {size} policies")
    plain = generate_policies(size, seed=seed, text_bytes=600)
    taught = with_examples(plain, derive_seed(seed, "examples", size), EXAMPLES_PER_POLICY)
    plain_docs = [PolicyDocument.model_validate(p) for p in plain]
    taught_docs = [PolicyDocument.model_validate(p) for p in taught]
    repeats = 3 if size <= 1000 else 1
    retriever_of().index(taught_docs)  # fills any cache (the hybrid's embeddings) once
    rows = []
    for name, docs, options in (
        ("without examples", plain_docs, {}),
        ("5 examples each, calibration off", taught_docs, {"calibration": None}),
        ("5 examples each, calibrated (default)", taught_docs, {}),
    ):
        retriever = retriever_of(**options)
        seconds, peak = build_times(partial(retriever.index, docs), repeats)
        rows.append((name, seconds, peak))
    table = Table(["index build", "median s", "traced peak MB"])
    for name, seconds, peak in rows:
        table.add(name, fmt(seconds), fmt(peak))
    calibrated = retriever_of().index(taught_docs)
    calibration = getattr(calibrated, "calibration", None)
    raised = "-" if calibration is None else f"{calibration.raised} of {size}"
    progress(f"{label}: turns at {size} policies")
    with_ex, without = turn_latency(
        governance(taught, retriever_of()), governance(plain, retriever_of()), seed, 12
    )
    turns = Table(["record_turn", "median ms", "p95 ms", "p99 ms", "ops/s", "MB"])
    turns.add("5 examples each, calibrated", *with_ex.cells())
    turns.add("without examples", *without.cells())
    print_section(
        f"{label}, {size:,} policies",
        table.render(),
        turns.render(),
        notes(
            f"calibration: {rows[2][1] - rows[1][1]:.2f} s over the build without it "
            f"({size * EXAMPLES_PER_POLICY:,} examples; policies given a threshold above the "
            f"floor: {raised})",
            f"turns: {with_ex.samples} per path, {SESSIONS} sessions, recentContext = the "
            f"previous {RECENT} turns of about 300 characters",
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hybrid", action="store_true", help="also the hybrid retriever")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("# Examples and calibration: build and turn costs\n")
    print("\n".join(f"- {line}" for line in machine_facts("govcore " + govcore.__version__)))
    for size in sizes:
        bench_size(size, args.seed, TfidfRetriever, "tfidf")
    if args.hybrid:
        from govcore.backends.hybrid import HybridRetriever
        from govcore.backends.sentence_embedding import shared_embedder

        embedder = shared_embedder("all-MiniLM-L6-v2")
        cache = tempfile.mkdtemp(prefix="govcore-bench-embeddings-")

        def hybrid(**options: Any) -> HybridRetriever:
            return HybridRetriever(embedder, lexical=TfidfRetriever(), cache_dir=cache, **options)

        bench_size(sizes[0], args.seed, hybrid, "hybrid")


if __name__ == "__main__":
    main()
