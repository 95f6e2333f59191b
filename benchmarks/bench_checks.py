"""Benchmark of the output checks, streaming checks and tool-call gating.

    python benchmarks/bench_checks.py [--quick] [--seed N]

Prints one table per section; every table compares govcore with a baseline measured in the
same run on the same texts:

1. detection throughput on 1 MB outputs as rules grow from 10 to 5,000, against Python's ``re``
   with one big alternation of the same patterns and terms;
2. PII detection and redaction against Microsoft Presidio's pattern recognizers and anonymizer
   (installed only for benchmarks: ``pip install -e ".[bench]"``) on the same texts;
3. latencies through the typed client: post-inference of 4 KB, one stream call on a 200-character
   increment, a tool-call check;
4. a whole 100 KB stream in 200-character chunks against one post-inference of the same text and
   against a naive loop that re-scans the whole text on every call, with and without the
   request pipeline (the "core" rows call the pure functions the endpoints call);
5. the same ratio at 25 KB, 100 KB and 400 KB: it stays flat when the stream is linear;
6. the stream record's checksum work per call at 100 KB and 1 MB: the chain over 4,096-character
   blocks against the earlier record, an XXH3-128 of the whole text before the watermark,
   re-hashed by every call (the same calls, the same texts).

Cases compared in one table are timed in turns (one call of each per round, the order rotating),
except the slow Python ``re`` and naive-stream baselines, which run apart. Memory is the peak of
Python allocations (tracemalloc) during one extra call, traced apart from the timed calls. Each table also prints the median time of a fixed pure-Python loop, measured
when the table is printed: this shared VM has phases in which everything runs up to twice as
slowly, and that figure shows which phase a table was measured in.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import os
import platform
import random
import re
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402
import xxhash  # noqa: E402
from presidio_baseline import analyze, presidio_recognizers  # noqa: E402

import govcore  # noqa: E402
from govcore.core.stream_window import resume_stream, stream_record, stream_step  # noqa: E402
from govcore.core.violations import findings_of, redact  # noqa: E402
from govcore.detection.detectors import DETECTORS  # noqa: E402
from govcore.detection.scanner import Hit, Scanner, compile_rules  # noqa: E402
from govcore.policy import PolicyDocument  # noqa: E402

KEY = "gk_bench_checks_0001"
PII_KINDS = tuple(DETECTORS)
PLANTS = (
    "4111 1111 1111 1111",
    "jane.doe+orders@example.co.uk",
    "DE89 3704 0044 0532 0130 00",
    "+1 (415) 555-2671",
    "123-45-6789",
    "192.168.10.24",
    "AKIAZ4QW7RT2LX5PJN3K",
    "guaranteed refund",
)


# --- inputs ----------------------------------------------------------------------------------


def make_text(size: int, seed: int) -> str:
    """Realistic support prose of about ``size`` characters with PII planted every ~2 KB."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        piece = corpus.generate_turn(rng, size_bytes=2000)
        if rng.random() < 0.7:
            cut = rng.randrange(len(piece))
            piece = f"{piece[:cut]} {rng.choice(PLANTS)} {piece[cut:]}"
        parts.append(piece)
        length += len(piece) + 1
    return "\n".join(parts)[:size]


def make_policies(
    rule_count: int, seed: int, present_in: str | None = None
) -> list[dict[str, Any]]:
    """Policies holding about ``rule_count`` detect rules: PII, regexes and term lists.

    With ``present_in``, one term list in five also holds a word, and one in five a two-word
    phrase, that occur once to three times in that text: hundreds of distinct terms and phrases
    are then present in a 1 MB text, as in a real policy set, and not only absent ones.
    """
    rng = random.Random(seed)
    rules: list[dict[str, Any]] = [{"pii": kind} for kind in PII_KINDS][:rule_count]
    words = [w for w in corpus.generate_turn(rng, size_bytes=20000).lower().split() if w.isalpha()]
    rare_words: list[str] = []
    rare_phrases: list[str] = []
    if present_in is not None:
        tokens = re.findall(r"[a-z]{4,}", present_in.lower())
        counts = collections.Counter(tokens)
        pairs = collections.Counter(itertools.pairwise(tokens))
        rare_words = sorted(w for w, c in counts.items() if c <= 3)
        rare_phrases = sorted(f"{a} {b}" for (a, b), c in pairs.items() if c == 1)
        rng.shuffle(rare_words)
        rng.shuffle(rare_phrases)
    index = 0
    while len(rules) < rule_count:
        index += 1
        if index % 3 == 0:
            rules.append({"regex": f"REF{index}-[0-9]{{6}}"})
        else:
            terms = [f"{rng.choice(words)} {rng.choice(words)} {index}" for _ in range(3)]
            if index == 1:
                terms.append("guaranteed refund")  # one rule: violations stay fixed as rules grow
            if index % 5 == 1 and rare_words:
                terms.append(rare_words.pop())
            if index % 5 == 2 and rare_phrases:
                terms.append(rare_phrases.pop())
            rules.append({"terms": terms})
    policies = []
    for start in range(0, len(rules), 10):
        number = start // 10
        policies.append(
            {
                "id": f"pol-{number}",
                "title": f"Policy {number}",
                "summary": "Output rules.",
                "severity": 4,
                "enforcement": "fix",
                "citationRef": f"BENCH-{number}",
                # alwaysOn, as before detectInToolCalls: a tool call in any session is checked
                # against every rule, which the default (always) now does without it
                "alwaysOn": True,
                "detect": rules[start : start + 10],
            }
        )
    return policies


def make_governance(rule_count: int, seed: int) -> govcore.Governance:
    return govcore.Governance.from_config(
        {
            "settings": {"default_rate_limit_per_minute": 1_000_000_000},
            "tenants": {"bench": {"policies": make_policies(rule_count, seed)}},
            "keys": [
                {
                    "key": KEY,
                    "tenant": "bench",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                    },
                }
            ],
        }
    )


# --- measurement -----------------------------------------------------------------------------


def measure(run: Callable[[], object], *, repeat: int, warmup: int = 2) -> dict[str, float]:
    """Median, p95, p99 (ms), throughput (ops/s) and peak Python memory (MB) of ``run``."""
    return measure_together([run], repeat=repeat, warmup=warmup)[0]


def measure_together(
    runs: Sequence[Callable[[], object]], *, repeat: int, warmup: int = 2
) -> list[dict[str, float]]:
    """:func:`measure` for several callables timed in turns, one call of each per round and the
    order rotating every round, so a slow phase of the machine falls on all of them alike and
    their ratios hold.

    Times are taken without tracing; each memory peak comes from one more, traced, call
    (tracemalloc slows allocation-heavy code several times, so it never runs while timing).
    """
    for _ in range(warmup):
        for run in runs:
            run()
    times: list[list[float]] = [[] for _ in runs]
    for round_number in range(repeat):
        shift = round_number % len(runs)
        for index in [*range(shift, len(runs)), *range(shift)]:
            started = time.perf_counter()
            runs[index]()
            times[index].append(time.perf_counter() - started)
    results = []
    for run, taken in zip(runs, times, strict=True):
        tracemalloc.start()
        run()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        taken.sort()
        results.append(
            {
                "median": statistics.median(taken) * 1000,
                "p95": taken[min(len(taken) - 1, int(len(taken) * 0.95))] * 1000,
                "p99": taken[min(len(taken) - 1, int(len(taken) * 0.99))] * 1000,
                "ops": 1 / statistics.mean(taken),
                "mb": peak / 2**20,
            }
        )
    return results


def reference_loop_ms() -> float:
    """Median time of a fixed pure-Python loop: this shared VM has phases in which everything
    runs up to twice as slowly, and this figure, printed with each table, tells them apart."""

    def loop() -> int:
        total = 0
        for number in range(20_000):
            total += number
        return total

    times = []
    for _ in range(41):
        started = time.perf_counter()
        loop()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def table(title: str, rows: list[tuple[str, dict[str, float], str]]) -> None:
    print(f"\n{title}")
    print(f"(reference loop: {reference_loop_ms():.2f} ms, same code every table)")
    print(
        f"{'case':<52}{'median ms':>11}{'p95 ms':>10}{'p99 ms':>10}{'ops/s':>10}{'peak MB':>9}  note"
    )
    for name, m, note in rows:
        print(
            f"{name:<52}{m['median']:>11.3f}{m['p95']:>10.3f}{m['p99']:>10.3f}"
            f"{m['ops']:>10.1f}{m['mb']:>9.1f}  {note}"
        )


# --- baselines -------------------------------------------------------------------------------


def python_re_alternation(policies: list[dict[str, Any]]) -> Callable[[str], int]:
    """Python ``re``: one alternation of every PII pattern, regex and term, in one pass."""
    pieces = []
    for policy in policies:
        for rule in policy["detect"]:
            if "pii" in rule:
                pieces += [_to_python(c.pattern) for c in DETECTORS[rule["pii"]].candidates()]
            elif "regex" in rule:
                pieces.append(rule["regex"])
            else:
                pieces += [r"\b" + re.escape(t) + r"\b" for t in rule["terms"]]
    with warnings.catch_warnings():
        # "[[" in the secret patterns' classes: a FutureWarning of re, not an error.
        warnings.simplefilter("ignore", FutureWarning)
        compiled = re.compile("|".join(f"(?:{p})" for p in pieces), re.IGNORECASE)
    return lambda text: sum(1 for _ in compiled.finditer(text))


def _to_python(pattern: str) -> str:
    """The RE2 detector patterns in Python syntax (close enough for a speed baseline)."""
    pattern = pattern.replace(r"\p{Nd}", r"\d").replace(r"\p{L}", r"[^\W\d_]")
    pattern = pattern.replace(r"\p{N}", r"\d").replace(r"\x{2010}-\x{2015}\x{2212}", "")
    pattern = re.sub(r"\(\?-i:", "(?:", pattern)
    return pattern.replace("(?s:.*?)", "[\\s\\S]*?")


def presidio_runner() -> Callable[[str], int] | None:
    """Presidio's pattern recognizers for the same entities, then its anonymizer."""
    recognizers = presidio_recognizers(PII_KINDS)
    if recognizers is None:
        return None
    from presidio_anonymizer import AnonymizerEngine

    anonymizer = AnonymizerEngine()

    def run(text: str) -> int:
        results = analyze(recognizers, text)
        anonymizer.anonymize(text=text, analyzer_results=results)
        return len(results)

    return run


# --- sections --------------------------------------------------------------------------------


def throughput_section(seed: int, quick: bool) -> None:
    text = make_text(200_000 if quick else 1_000_000, seed)
    size_mb = len(text.encode()) / 2**20
    counts = (10, 100, 1000, 5000)
    # Terms that occur in the text: a dense output, with hundreds of distinct terms and
    # phrases found besides the planted PII.
    policies_of = {count: make_policies(count, seed, present_in=text) for count in counts}
    scanners = []
    for count in counts:
        docs = [PolicyDocument.model_validate(p) for p in policies_of[count]]
        scanners.append(compile_rules((p, r) for p in docs for r in p.detect))
    measured = measure_together(
        [lambda s=scanner: s.scan(text) for scanner in scanners],
        repeat=3 if quick else 9,
        warmup=1,
    )
    rows = []
    for count, m, scanner in zip(counts, measured, scanners, strict=True):
        found = len(scanner.scan(text))
        rows.append(
            (
                f"govcore scan, {count} rules",
                m,
                f"{size_mb / (m['median'] / 1000):.1f} MB/s, {found} matches",
            )
        )
        if count in (10, 1000, 5000) and not quick:
            baseline = python_re_alternation(policies_of[count])
            sample = text[:100_000]
            mb = measure(lambda b=baseline, t=sample: b(t), repeat=2, warmup=0)
            rate = len(sample.encode()) / 2**20 / (mb["median"] / 1000)
            rows.append(
                (
                    f"  baseline: Python re alternation, {count} rules",
                    mb,
                    f"{rate:.2f} MB/s (100 KB sample)",
                )
            )
    table(f"1. Detection throughput on a {size_mb:.1f} MB output (target >= 20 MB/s, flat)", rows)


def presidio_section(seed: int, quick: bool) -> None:
    text = make_text(10_000, seed + 1)
    gov = make_governance(len(PII_KINDS), seed)
    client = gov.client(KEY)
    presidio = presidio_runner()
    if presidio is None:
        print("\n2. Presidio not installed (pip install -e '.[bench]'): comparison skipped")
        return
    ours, theirs = measure_together(
        [lambda: client.post_inference({"sessionId": "b", "output": text}), lambda: presidio(text)],
        repeat=10 if quick else 40,
    )
    rows = [
        ("govcore post-inference (7 PII detectors, redaction)", ours, "10 KB"),
        ("  baseline: Presidio recognizers + anonymizer", theirs, "10 KB, same entities"),
    ]
    ratio = rows[1][1]["median"] / rows[0][1]["median"]
    table(f"2. PII detection and redaction, 10 KB (Presidio / govcore = {ratio:.0f}x)", rows)


def latency_section(seed: int, quick: bool) -> None:
    gov = make_governance(1000, seed)
    client = gov.client(KEY)
    output = make_text(4096, seed + 2)
    long_text = make_text(100_000, seed + 3)
    repeat = 200 if quick else 1000
    # One stream call on a 200-character increment, somewhere inside a long output.
    offsets = list(range(20_000, 90_000, 200))
    position = [0]

    def stream_call() -> None:
        end = offsets[position[0] % len(offsets)]
        position[0] += 1
        client.check_output_stream(
            {
                "sessionId": "b",
                "fullText": long_text[:end],
                "lastCheckedOffset": end - 200 - 64,
                "isFinal": False,
            }
        )

    arguments = {
        "order_id": "NW48213307",
        "amount": 120.5,
        "items": [{"sku": f"SKU-{i}", "note": make_text(300, seed + i)} for i in range(8)],
        "message": make_text(1000, seed + 9),
    }
    # The same shape of arguments twice: prose as a tool call usually carries (no PII), and
    # prose with an item of PII planted in most strings (two violations, a redacted copy).
    rng = random.Random(seed + 10)
    plain_arguments = {
        "order_id": "NW48213307",
        "amount": 120.5,
        "items": [
            {"sku": f"SKU-{i}", "note": corpus.generate_turn(rng, size_bytes=300)[:300]}
            for i in range(8)
        ],
        "message": corpus.generate_turn(rng, size_bytes=1000)[:1000],
    }
    cases: list[tuple[str, Callable[[], object], str]] = [
        (
            "post-inference, 4 KB output",
            lambda: client.post_inference({"sessionId": "b", "output": output}),
            "target p50 < 0.5 ms",
        ),
        ("stream call, 200-character increment", stream_call, "target p50 < 0.05 ms"),
    ]
    for label, args in (("no PII", plain_arguments), ("PII-dense", arguments)):
        cases.append(
            (
                f"tool-call check, 3.5 KB of arguments, {label}",
                lambda a=args: client.check_tool_call(
                    {"sessionId": "b", "toolName": "send_email", "arguments": a}
                ),
                "target p50 < 0.3 ms",
            )
        )
    measured = measure_together([run for _, run, _ in cases], repeat=repeat)
    rows = [(name, m, note) for (name, _, note), m in zip(cases, measured, strict=True)]
    table("3. Latency through the typed client (1,000 rules)", rows)


def stream_section(seed: int, quick: bool) -> None:
    gov = make_governance(1000, seed)
    client = gov.client(KEY)
    text = make_text(25_000 if quick else 100_000, seed + 4)
    scanner = gov._service.tenants["bench"].scanner
    repeat = 2 if quick else 7

    naive = measure(lambda: naive_stream(scanner, text), repeat=1, warmup=0)
    one, whole, calls_only, core_one, core_whole, core_calls = measure_together(
        [
            lambda: client.post_inference({"sessionId": "b", "output": text}),
            lambda: client_stream(client, text, finalize=True),
            lambda: client_stream(client, text, finalize=False),
            lambda: core_check(scanner, text),
            lambda: core_stream(scanner, text, finalize=True),
            lambda: core_stream(scanner, text, finalize=False),
        ],
        repeat=repeat,
        warmup=1,
    )
    scanned = core_stream(scanner, text, finalize=False)
    rows = [
        ("one post-inference of the text", one, f"{len(text) // 1000} KB"),
        ("whole stream, 200-character chunks, + finalize", whole, ratio(whole, one, "<= 5x")),
        ("  the stream calls alone (finalize omitted)", calls_only, ratio(calls_only, one)),
        ("core of one check: scan, violations, redaction", core_one, "no request pipeline"),
        ("core of the stream + the final check", core_whole, ratio(core_whole, core_one)),
        (
            "  core of the stream calls alone",
            core_calls,
            f"{ratio(core_calls, core_one)}, windows hold {scanned / len(text):.2f}x the text",
        ),
        ("  baseline: re-scan everything on every call", naive, ratio(naive, one)),
    ]
    table(f"4. A {len(text) // 1000} KB output streamed in 200-character chunks", rows)

    # The ratio stays put as the text grows: the stream's cost is linear in the text.
    sizes = (10_000, 25_000) if quick else (25_000, 100_000, 400_000)
    rows = []
    for size in sizes:
        sample = make_text(size, seed + 5)
        one, whole = measure_together(
            [
                lambda sample=sample: client.post_inference({"sessionId": "b", "output": sample}),
                lambda sample=sample: client_stream(client, sample, finalize=True),
            ],
            repeat=repeat,
            warmup=1,
        )
        rows.append((f"one post-inference, {size // 1000} KB", one, ""))
        rows.append((f"  whole stream + finalize, {size // 1000} KB", whole, ratio(whole, one)))
    table("5. The stream's cost as the output grows (flat ratio: no quadratic re-scanning)", rows)


def ratio(measured: dict[str, float], reference: dict[str, float], target: str = "") -> str:
    note = f"{measured['median'] / reference['median']:.1f}x one check"
    return f"{note} (target {target})" if target else note


def client_stream(client: govcore.GovernanceClient, text: str, *, finalize: bool) -> None:
    """Stream ``text`` in 200-character chunks through the typed client, as a caller would."""
    watermark = 0
    for end in range(200, len(text) + 200, 200):
        reply = client.check_output_stream(
            {
                "sessionId": "b",
                "fullText": text[:end],
                "lastCheckedOffset": watermark,
                "isFinal": end >= len(text),
            }
        )
        watermark = reply.watermark
    if finalize:
        client.finalize_output(
            {"sessionId": "b", "fullText": text, "lastCheckedOffset": watermark, "isFinal": True}
        )


def core_check(scanner: Scanner, text: str) -> None:
    """The pure part of one post-inference check: what remains without the request pipeline."""
    hits = scanner.scan(text)
    findings_of(text, hits)
    redact(text, hits, scanner)


def core_stream(scanner: Scanner, text: str, *, finalize: bool) -> int:
    """The pure part of a stream: the window logic and detection of every call, then the final
    check. Returns how many characters the calls' windows held."""
    watermark = 0
    held = 0

    def scan(window_text: str, start: int) -> Sequence[Hit]:
        nonlocal held
        held += len(window_text) - start
        return scanner.scan(window_text, start)

    for end in range(200, len(text) + 200, 200):
        partial = text[:end]
        step = stream_step(partial, watermark, end >= len(text), scan)
        findings_of(partial, step.hits)
        watermark = step.watermark
    if finalize:
        core_check(scanner, text)
    return held


def record_section(seed: int, quick: bool) -> None:
    rows = []
    repeat = 3 if quick else 9
    for size in (25_000, 100_000) if quick else (100_000, 1_000_000):
        text = make_text(size, seed + 6)
        calls = stream_calls(text)
        times: dict[str, list[float]] = {"chain": [], "whole": []}
        for round_number in range(repeat + 1):  # the first round warms up
            order = [("chain", chain_records), ("whole", whole_prefix_records)]
            for name, run in order[round_number % 2 :] + order[: round_number % 2]:
                taken = run(text, calls)
                if round_number:
                    times[name].append(taken)
        for label, name in (
            (f"checksum chain, {size // 1000} KB stream", "chain"),
            (f"  baseline: whole prefix re-hashed, {size // 1000} KB", "whole"),
        ):
            taken = sorted(times[name])
            measured = {
                "median": statistics.median(taken) * 1000,
                "p95": taken[-1] * 1000,
                "p99": taken[-1] * 1000,
                "ops": 1 / statistics.mean(taken),
                "mb": 0.0,
            }
            note = f"{measured['median'] / len(calls) * 1000:.1f} us a call"
            rows.append((label, measured, note))
    table(
        "6. The stream record's work per stream: verify, then the new record (timed apart from "
        "the caller's text[:end]; no memory figure)",
        rows,
    )


def stream_calls(text: str) -> list[tuple[int, int, bool, int]]:
    """The calls of an honest stream of ``text`` in 200-character chunks: how much text each
    sends, its lastCheckedOffset, isFinal and the watermark answered (64 characters back, as
    the window rule holds it in prose)."""
    calls = []
    watermark = 0
    for end in range(200, len(text) + 200, 200):
        final = end >= len(text)
        answered = len(text) if final else max(watermark, end - 64)
        calls.append((end, watermark, final, answered))
        watermark = answered
    return calls


# The texts a caller sends are sliced as the calls go (holding every one would take n^2 / 400
# bytes), and the slicing is the caller's: each loop below times only the record's work.


def chain_records(text: str, calls: list[tuple[int, int, bool, int]]) -> float:
    """The record work of every call as the service does it; the seconds it took."""
    record, taken = None, 0.0
    for end, watermark, final, answered in calls:
        sent = text[:end]
        started = time.perf_counter()
        resume = resume_stream(sent, watermark, record, final)
        record = stream_record(sent, answered, resume)
        taken += time.perf_counter() - started
        assert resume.verified
    return taken


def whole_prefix_records(text: str, calls: list[tuple[int, int, bool, int]]) -> float:
    """Baseline, the earlier record: every call encodes the text it was sent and hashes all of
    it before the recorded watermark to verify it, then continues the hash to the new
    watermark; the seconds it took."""
    recorded, digest, taken = 0, b"", 0.0
    for end, watermark, _final, answered in calls:
        sent = text[:end]
        started = time.perf_counter()
        data = memoryview(sent.encode("utf-8", "surrogatepass"))
        hasher = xxhash.xxh3_128(data[:recorded])
        verified = watermark == 0 or hasher.digest() == digest
        hasher.update(data[recorded:answered])
        recorded, digest = answered, hasher.digest()
        taken += time.perf_counter() - started
        assert verified
    return taken


def naive_stream(scanner: Scanner, text: str) -> None:
    """Baseline: every call scans the whole text received so far."""
    for end in range(200, len(text) + 200, 200):
        scanner.scan(text[:end])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--only",
        choices=sorted(SECTIONS),
        action="append",
        help="run only this section (repeatable); all of them by default",
    )
    args = parser.parse_args()
    chosen = args.only or list(SECTIONS)
    options = "".join(f" --only {name}" for name in args.only or ())
    print(
        f"python benchmarks/bench_checks.py{' --quick' if args.quick else ''}{options} "
        f"--seed {args.seed}"
    )
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    for name in SECTIONS:
        if name in chosen:
            SECTIONS[name](args.seed, args.quick)


SECTIONS: dict[str, Callable[[int, bool], None]] = {
    "throughput": throughput_section,
    "presidio": presidio_section,
    "latency": latency_section,
    "stream": stream_section,
    "record": record_section,
}


if __name__ == "__main__":
    main()
