"""Benchmark of the detection engines, side by side on the same texts in one run.

    python benchmarks/bench_engines.py [--quick] [--seed N] [--parts]

1. Dense outputs of 4 KB, 10 KB, 100 KB and 1 MB (support prose with PII planted every ~2 KB),
   checked against 1,000 rules (the PII detectors, regexes, and term lists of which hundreds of
   terms occur in the text), every planted value redacted:
   - govcore post-inference through the typed client, on the RE2 engine and on Hyperscan;
   - one RE2 alternation of every pattern and term (a pass that counts matches, nothing more);
   - Hyperscan block mode over the same patterns and terms with start offsets, and Python
     post-processing: per pattern, leftmost-longest matches, each PII candidate through its
     detector's validator, and the redacted text (the three built-in patterns that Hyperscan
     cannot compile with start offsets are searched with RE2 there too);
   - Presidio's pattern recognizers and anonymizer for the same entities (``.[bench]``).
   Each row's note gives its match count.
2. Compile time, Hyperscan database size and peak Python memory of a scanner of 10, 1,000 and
   5,000 rules on each engine.
3. With ``--parts``: where post-inference's time goes on the RE2 engine, at 100 KB and 1 MB, timed
   in turns with the Hyperscan baseline: one scan of the output, the redaction's check (one scan
   of the redacted text), replacing the matches and building the findings.

Timing as in benchmarks/bench_checks.py: the cases of a table in turns, median/p95/p99 and peak
Python memory (tracemalloc, one extra call).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hyperscan  # noqa: E402
import re2  # type: ignore[import-untyped]  # noqa: E402
from bench_checks import (  # noqa: E402
    KEY,
    make_policies,
    make_text,
    measure_together,
    presidio_runner,
    table,
)

import govcore  # noqa: E402
from govcore.core.violations import findings_of, redact, replace_matches  # noqa: E402
from govcore.detection.detectors import DETECTORS  # noqa: E402
from govcore.detection.hyperscan_engine import superset_pattern  # noqa: E402
from govcore.detection.scanner import compile_rules  # noqa: E402
from govcore.policy import PolicyDocument  # noqa: E402

SIZES = (4_000, 10_000, 100_000, 1_000_000)
RULES = 1000


def governance(policies: list[dict[str, Any]], engine: str) -> govcore.Governance:
    return govcore.Governance.from_config(
        {
            "settings": {
                "default_rate_limit_per_minute": 1_000_000_000,
                "detection_engine": engine,
                "max_violations_per_check": 10_000,
            },
            "tenants": {"bench": {"policies": policies}},
            "keys": [
                {"key": KEY, "tenant": "bench", "settings": {"post_inference_checking": "allowed"}}
            ],
        }
    )


def re2_alternation(policies: list[dict[str, Any]]) -> Callable[[str], int]:
    """One RE2 alternation of every PII pattern, regex and term, in one pass."""
    pieces = []
    for policy in policies:
        for rule in policy["detect"]:
            if "pii" in rule:
                pieces += [c.pattern for c in DETECTORS[rule["pii"]].candidates()]
            elif "regex" in rule:
                pieces.append(rule["regex"])
            else:
                pieces += [r"\b" + re2.escape(t) + r"\b" for t in rule["terms"]]
    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = 512 << 20
    compiled = re2.compile("|".join(f"(?:{p})" for p in pieces), options)
    return lambda text: sum(1 for _ in compiled.finditer(text))


class HyperscanBaseline:
    """Hyperscan block mode and Python post-processing of its matches."""

    def __init__(self, policies: list[dict[str, Any]]) -> None:
        flags = hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_SOM_LEFTMOST
        self.validators: list[Any] = []
        expressions: list[bytes] = []
        self.ids: list[int] = []
        self.re2_patterns: list[tuple[int, Any]] = []
        options = re2.Options()
        options.case_sensitive = False
        for policy in policies:
            for rule in policy["detect"]:
                if "pii" in rule:
                    entries = [(c.pattern, c.validate) for c in DETECTORS[rule["pii"]].candidates()]
                elif "regex" in rule:
                    entries = [(rule["regex"], None)]
                else:
                    entries = [(r"\b" + re2.escape(t) + r"\b", None) for t in rule["terms"]]
                for pattern, validate in entries:
                    index = len(self.validators)
                    self.validators.append(validate)
                    written = superset_pattern(pattern).encode()
                    try:
                        hyperscan.Database().compile(
                            expressions=[written], ids=[0], elements=1, flags=[flags]
                        )
                    except hyperscan.error:
                        self.re2_patterns.append((index, re2.compile(pattern, options)))
                        continue
                    expressions.append(written)
                    self.ids.append(index)
        self.database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self.database.compile(
            expressions=expressions,
            ids=self.ids,
            elements=len(expressions),
            flags=[flags] * len(expressions),
        )

    def __call__(self, text: str) -> int:
        data = text.encode()
        by_id: dict[int, dict[int, int]] = {}

        def on_match(pattern_id: int, start: int, end: int, flags: int, context: Any) -> None:
            longest = by_id.setdefault(pattern_id, {})
            if longest.get(start, -1) < end:
                longest[start] = end

        self.database.scan(data, match_event_handler=on_match)
        for index, compiled in self.re2_patterns:
            longest = by_id.setdefault(index, {})
            for match in compiled.finditer(data):
                longest[match.start()] = match.end()
        assert data.isascii() or len(data) == len(text)  # the dense texts are ASCII
        spans: list[tuple[int, int]] = []
        for pattern_id, longest in by_id.items():
            validate = self.validators[pattern_id]
            reach = -1
            for start in sorted(longest):
                end = longest[start]
                if start < reach:
                    continue
                if validate is not None:
                    accepted = validate(text, start, end)
                    if accepted is None:
                        continue
                    start, end = accepted[0], accepted[1]
                spans.append((start, end))
                reach = end
        spans.sort()
        pieces, copied = [], 0
        for start, end in spans:
            if start >= copied:
                pieces += [text[copied:start], "[removed]"]
                copied = end
        pieces.append(text[copied:])
        self.redacted = "".join(pieces)
        return len(spans)


def engines_section(seed: int, quick: bool) -> None:
    text = make_text(SIZES[-1], seed)
    policies = make_policies(RULES, seed, present_in=text)
    govs = {engine: governance(policies, engine) for engine in ("re2", "hyperscan")}
    clients = {engine: gov.client(KEY) for engine, gov in govs.items()}
    alternation = re2_alternation(policies)
    baseline = HyperscanBaseline(policies)
    presidio = presidio_runner()
    for size in SIZES[:2] if quick else SIZES:
        sample = text[:size]
        counts: dict[str, int] = {}

        def post(engine: str, sample: str = sample) -> int:
            response = clients[engine].post_inference({"sessionId": "b", "output": sample})
            return len(response.violations)

        runs: dict[str, Callable[[], int]] = {
            "govcore post-inference, RE2 engine": lambda: post("re2"),
            "govcore post-inference, Hyperscan engine": lambda: post("hyperscan"),
            "one RE2 alternation (match count only)": lambda s=sample: alternation(s),
            "Hyperscan block mode + Python post-processing": lambda s=sample: baseline(s),
        }
        for name, run in runs.items():
            counts[name] = run()
        repeat = 5 if size >= 1_000_000 else 15 if size >= 100_000 else 200
        measured = measure_together(list(runs.values()), repeat=3 if quick else repeat)
        rows = [
            (name, m, f"{counts[name]} matches") for name, m in zip(runs, measured, strict=True)
        ]
        if presidio is not None:
            [m] = measure_together(
                [lambda s=sample: presidio(s)],
                repeat=1 if size >= 1_000_000 else 3 if size >= 100_000 else 10,
                warmup=1,
            )
            rows.append(("Presidio recognizers + anonymizer", m, f"{presidio(sample)} matches"))
        base = measured[3]["median"]
        ratios = ", ".join(
            f"{engine} {m['median'] / base:.2f}x"
            for engine, m in zip(("RE2", "Hyperscan"), measured[:2], strict=True)
        )
        table(
            f"1. {size // 1000} KB dense output, {RULES} rules: post-inference / Hyperscan block mode"
            f" + Python = {ratios}",
            rows,
        )
    for gov in govs.values():
        gov.close()


def compile_section(seed: int, quick: bool) -> None:
    text = make_text(200_000, seed)
    print(
        f"\n2. Compiling a scanner (one run each)\n{'rules':>6}{'engine':>11}{'seconds':>10}"
        f"{'HS database MB':>16}{'peak Python MB':>16}{'patterns left to RE2':>22}"
    )
    for count in (10, 1000) if quick else (10, 1000, 5000):
        documents = [PolicyDocument.model_validate(p) for p in make_policies(count, seed, text)]
        for engine in ("re2", "hyperscan"):
            tracemalloc.start()
            started = time.perf_counter()
            scanner = compile_rules(
                ((d, r) for d in documents for r in d.detect),
                engine=engine,  # type: ignore[arg-type]
            )
            seconds = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(
                f"{count:>6}{engine:>11}{seconds:>10.2f}{scanner.database_size() / 2**20:>16.2f}"
                f"{peak / 2**20:>16.1f}{len(scanner.fallbacks):>22}"
            )


def parts_section(seed: int, quick: bool) -> None:
    text = make_text(SIZES[-1], seed)
    policies = make_policies(RULES, seed, present_in=text)
    documents = [PolicyDocument.model_validate(p) for p in policies]
    scanner = compile_rules(((d, r) for d in documents for r in d.detect), engine="re2")
    gov = governance(policies, "re2")
    client = gov.client(KEY)
    baseline = HyperscanBaseline(policies)
    for size in SIZES[1:3] if quick else SIZES[2:]:
        sample = text[:size]
        hits = scanner.scan(sample)
        redacted = replace_matches(sample, hits)
        # The check finds nothing to change here, so it is exactly one scan of the redaction.
        assert redact(sample, hits, scanner) == redacted
        runs: dict[str, Callable[[], object]] = {
            "govcore post-inference, RE2 engine": lambda s=sample: client.post_inference(
                {"sessionId": "b", "output": s}
            ),
            "  one scan of the output": lambda s=sample: scanner.scan(s),
            "  the redaction's check: one scan of it": lambda r=redacted: scanner.scan(r),
            "  replacing the matches": lambda s=sample, h=hits: replace_matches(s, h),
            "  the findings": lambda s=sample, h=hits: findings_of(s, h),
            "Hyperscan block mode + Python post-processing": lambda s=sample: baseline(s),
        }
        repeat = 5 if size >= 1_000_000 else 15
        measured = measure_together(list(runs.values()), repeat=3 if quick else repeat)
        base = measured[-1]["median"]
        table(
            f"3. Where post-inference's time goes, {size // 1000} KB dense output, {RULES} rules"
            " (RE2 engine)",
            [
                (name, m, f"{m['median'] / base:.2f}x the baseline")
                for name, m in zip(runs, measured, strict=True)
            ],
        )
    gov.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--parts", action="store_true", help="only where post-inference's time goes (section 3)"
    )
    args = parser.parse_args()
    print(
        f"python benchmarks/bench_engines.py{' --quick' if args.quick else ''} --seed {args.seed}"
        f"{' --parts' if args.parts else ''}"
    )
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    if args.parts:
        parts_section(args.seed, args.quick)
        return
    engines_section(args.seed, args.quick)
    compile_section(args.seed, args.quick)


if __name__ == "__main__":
    main()
