"""What the regex cost check measures, for realistic and pathological patterns.

    PYTHONPATH=. python benchmarks/bench_pattern_cost.py

For each pattern: its RE2 program size (case-insensitive, as the scanner compiles it), its
slowdown over the calibration pattern on its probe text (docs/decisions/pattern-cost.md), the
decision, and the time one scan by an RE2 set of the pattern takes per MB of a fresh probe text
(what every check would pay on such text).
"""

from __future__ import annotations

import time

import re2  # type: ignore[import-untyped]

from govcore.detection.detectors import DETECTORS
from govcore.pattern_cost import _OPTIONS, pattern_cost, probe_text

REALISTIC = [
    r"[\w.+-]+@[\w-]+\.[\w.]+",
    r"\b[A-Z]{2}-\d{5,8}\b",
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    r"(?:19|20)\d\d[-/.](?:0[1-9]|1[012])[-/.](?:0[1-9]|[12]\d|3[01])",
    r"\b(?:" + "|".join(f"word{i:03d}x" for i in range(500)) + r")\b",
    r"\p{L}+\s+\p{Lu}\p{L}*",
    r"[\p{L}\p{N}]{3,40}",
    r"sk_live_[A-Za-z0-9]{16,250}",
    r"[A-Za-z0-9]{16,250}",
    r".*password.*",
    *(c.pattern for d in DETECTORS.values() for c in d.candidates()),
]
PATHOLOGICAL = [
    r"(a|b)*a(a|b){200}",
    r"(.*a){50}",
    r"[ab]*a[ab]{100}",
    r"a[ab]{30}",
    r"(a|b)*a(a|b){20}",
    r".*a.{60}",
    r"\p{L}{2,100}",
]


def set_ms_per_mb(pattern: str) -> float:
    patterns = re2.Set.SearchSet(_OPTIONS)
    patterns.Add(pattern)
    patterns.Compile()
    text = probe_text(pattern, seed=99)
    started = time.perf_counter()
    patterns.Match(text)
    return (time.perf_counter() - started) * 1e3 * (1 << 20) / len(text)


def main() -> None:
    print(f"{'pattern':44} {'size':>8} {'slowdown':>9} {'ms/MB':>8}  decision")
    for pattern in [*REALISTIC, *PATHOLOGICAL]:
        cost = pattern_cost(pattern)
        slowdown = "-" if cost.slowdown is None else f"{cost.slowdown:.1f}"
        decision = "refused" if cost.refusal else "accepted"
        shown = pattern if len(pattern) <= 44 else pattern[:41] + "..."
        print(
            f"{shown:44} {cost.program_size:8,} {slowdown:>9} {set_ms_per_mb(pattern):8.1f}  "
            f"{decision}"
        )


if __name__ == "__main__":
    main()
