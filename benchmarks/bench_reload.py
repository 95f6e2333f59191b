"""What a reload costs, against building a new governance (a restart's share of it).

    python benchmarks/bench_reload.py [--sizes 1000,10000] [--repeats 7] [--seed 0]

For each size, a configuration of that many seeded policies (``benchmarks/corpus.py``) in one
tenant, with the default in-memory store and TF-IDF retriever:

- ``from_config (restart)``: ``Governance.from_config`` of the configuration: what every process
  pays at a restart before it can answer (the baseline);
- ``reload, nothing changed``: ``reload`` of the same configuration: loaded and validated, the
  compiled tenant reused;
- ``reload, one policy edited``: one policy's summary changed: the tenant compiled again;
- ``reload, a setting changed``: ``retrieval_top_k`` changed: retrievers rebuilt and every
  tenant compiled again.

The configurations are mappings (no files are read), so the figures are govcore's work alone.
Each row is ``--repeats`` calls, alternating the two configurations so that each reload really
changes what it names; memory is the median tracemalloc peak of one call, in an untimed pass.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable
from typing import Any

from corpus import generate_policies
from report import (
    LATENCY_COLUMNS,
    Stats,
    Table,
    machine_facts,
    notes,
    print_section,
    progress,
    timed,
    traced_peak_mb,
)

import govcore


def configuration(policies: list[dict[str, object]], **settings: Any) -> dict[str, Any]:
    return {
        "settings": settings,
        "tenants": {"bench": {"policies": copy.deepcopy(policies)}},
        "keys": [{"key": "gk_bench_reload_000001", "tenant": "bench"}],
    }


def measure(size: int, repeats: int, seed: int) -> list[tuple[str, Stats]]:
    policies = generate_policies(size, seed=seed)
    edited = copy.deepcopy(policies)
    edited[size // 2]["summary"] = f"{edited[size // 2]['summary']} (edited)"
    base = configuration(policies)
    one_edited = configuration(edited)
    other_setting = configuration(policies, retrieval_top_k=5)
    gov = govcore.Governance.from_config(base)

    def alternate(first: dict[str, Any], second: dict[str, Any]) -> Callable[[], object]:
        state = {"flip": False}

        def reload() -> None:
            state["flip"] = not state["flip"]
            gov.reload(first if state["flip"] else second)

        return reload

    cases: list[tuple[str, Callable[[], object]]] = [
        ("from_config (restart)", lambda: govcore.Governance.from_config(base).close()),
        ("reload, nothing changed", lambda: gov.reload(base)),
        ("reload, one policy edited", alternate(one_edited, base)),
        ("reload, a setting changed", alternate(other_setting, base)),
    ]
    rows = []
    for name, call in cases:
        progress(f"{size} policies: {name}")
        gov.reload(base)
        call()  # warm-up
        latencies = [timed(call) for _ in range(repeats)]
        memory = traced_peak_mb(call for _ in range(3))
        rows.append((name, Stats.of(latencies, memory)))
    gov.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="policy-set sizes (comma-separated)")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = Table(["policies", "operation", *LATENCY_COLUMNS, "peak MB", "vs restart"], text_columns=2)
    for size in (int(s) for s in args.sizes.split(",")):
        rows = measure(size, args.repeats, args.seed)
        restart = rows[0][1].median_ms
        for name, stats in rows:
            table.add(size, name, *stats.cells(), f"{stats.median_ms / restart:.2f}x")
    print_section(
        "Reloading a configuration",
        table.render(),
        notes(
            "each row: wall-clock time of one call; `vs restart`: its median over the "
            "`from_config` median of the same size",
            *machine_facts(""),
        ),
    )


if __name__ == "__main__":
    main()
