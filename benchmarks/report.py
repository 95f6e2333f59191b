"""Measuring and printing shared by the benchmark scripts (``bench_turn.py``, ``bench_redis.py``,
``bench_serve.py``).

Latencies are wall-clock nanoseconds (``time.perf_counter_ns``) of one call each; a path's figures
are summarised by :class:`Stats`. The report goes to stdout as Markdown (:class:`Table`,
:func:`print_section`, :func:`notes`), progress lines to stderr (:func:`progress`), and every
report names the machine and the measured code (:func:`machine_facts`).
"""

from __future__ import annotations

import gc
import hashlib
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

import govcore

T = TypeVar("T")

MB = 1024 * 1024
LATENCY_COLUMNS = ("median ms", "p95 ms", "p99 ms", "ops/s")
"""The header cells of :meth:`Stats.cells` but its last (memory), whose label each table names."""


# --------------------------------------------------------------------------------------------
# Measuring, and the inputs every script builds alike.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """One path's latency percentiles, throughput and memory."""

    samples: int
    median_ms: float
    p95_ms: float
    p99_ms: float
    ops_per_s: float
    memory_mb: float | None

    @classmethod
    def of(cls, latencies_ns: Sequence[int], memory_mb: float | None = None) -> Stats:
        """Summarise per-call latencies in nanoseconds.

        Args:
            latencies_ns: one wall-clock time per call.
            memory_mb: the path's memory figure, if it has one.

        Returns:
            Percentiles (linear interpolation), and calls per second of total time.
        """
        values = np.asarray(latencies_ns, dtype=np.float64) / 1e6
        p50, p95, p99 = np.percentile(values, [50, 95, 99])
        return cls(
            samples=len(values),
            median_ms=float(p50),
            p95_ms=float(p95),
            p99_ms=float(p99),
            ops_per_s=1000.0 * len(values) / float(values.sum()),
            memory_mb=memory_mb,
        )

    def cells(self) -> list[str]:
        """The median, p95, p99, ops/s and memory cells of a table row."""
        return [
            fmt(self.median_ms),
            fmt(self.p95_ms),
            fmt(self.p99_ms),
            fmt(self.ops_per_s),
            "-" if self.memory_mb is None else fmt(self.memory_mb),
        ]


def timed(call: Callable[[], object]) -> int:
    """Wall-clock nanoseconds of one call."""
    start = time.perf_counter_ns()
    call()
    return time.perf_counter_ns() - start


def timed_result(call: Callable[[], T]) -> tuple[int, T]:
    """Wall-clock nanoseconds of one call, and what it returned."""
    start = time.perf_counter_ns()
    result = call()
    return time.perf_counter_ns() - start, result


def traced_peak_mb(calls: Iterable[Callable[[], object]]) -> float:
    """The median over ``calls`` of each call's tracemalloc peak above what was traced before it.

    The median, not the largest: a rare call that happens to grow a cache or a hash table would
    otherwise stand for them all.
    """
    gc.collect()
    tracemalloc.start()
    peaks: list[int] = []
    try:
        for call in calls:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            call()
            peaks.append(tracemalloc.get_traced_memory()[1] - before)
    finally:
        tracemalloc.stop()
    return float(np.median(peaks)) / MB


def rss_bytes() -> int:
    """The resident set size of this process (Linux)."""
    statm = Path("/proc/self/statm").read_text()
    return int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE")


def derive_seed(seed: int, *labels: object) -> int:
    """The seed of one named stream of inputs: a pure function of the run's seed and labels."""
    text = ":".join(str(part) for part in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def turn_request(session_id: str, index: int, content: str, recent: list[str]) -> dict[str, Any]:
    """A turn request as an embedding application sends it."""
    return {
        "sessionId": session_id,
        "turn": {"role": "user" if index % 2 == 0 else "assistant", "content": content},
        "recentContext": recent,
    }


# --------------------------------------------------------------------------------------------
# Printing.
# --------------------------------------------------------------------------------------------


def fmt(value: float) -> str:
    """A number with about three significant digits and thousands separators."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


class Table:
    """A Markdown table, padded so it also reads well in a terminal.

    Args:
        columns: the header cells; the first ``text_columns`` are left-aligned, the rest
            (numbers) right-aligned.
        text_columns: how many leading columns hold text.
    """

    def __init__(self, columns: Sequence[str], *, text_columns: int = 1) -> None:
        self.columns = list(columns)
        self.text_columns = text_columns
        self.rows: list[list[str]] = []

    def add(self, *cells: object) -> None:
        """Append a row; cells are converted with ``str``."""
        if len(cells) != len(self.columns):
            raise ValueError(f"expected {len(self.columns)} cells, got {len(cells)}")
        self.rows.append([str(c) for c in cells])

    def render(self) -> str:
        """The table as Markdown lines."""
        widths = [
            max(len(row[i]) for row in [self.columns, *self.rows]) for i in range(len(self.columns))
        ]

        def line(cells: Sequence[str]) -> str:
            padded = [
                c.ljust(w) if i < self.text_columns else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ]
            return "| " + " | ".join(padded) + " |"

        rule = [
            ":" + "-" * (w - 1) if i < self.text_columns else "-" * (w - 1) + ":"
            for i, w in enumerate(widths)
        ]
        return "\n".join([line(self.columns), line(rule), *(line(r) for r in self.rows)])


def print_section(title: str, *blocks: str) -> None:
    """Print a section heading and its blocks (tables and notes), separated by blank lines."""
    print(f"\n## {title}\n")
    print("\n\n".join(blocks), flush=True)


def notes(*lines: str) -> str:
    """Lines of explanation under a table, as a Markdown list."""
    return "\n".join(f"- {line}" for line in lines)


def verdict(met: bool) -> str:
    """The last cell of a target row."""
    return "met" if met else "NOT met"


_START = time.perf_counter()


def progress(message: str) -> None:
    """A progress line on stderr (stdout holds only the report)."""
    print(f"[{time.perf_counter() - _START:6.1f} s] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# What was measured, on what.
# --------------------------------------------------------------------------------------------


def source_digest() -> str:
    """A short SHA-256 over the imported govcore package's Python sources.

    It names the code that was measured even in a working tree with uncommitted changes.
    """
    package = Path(govcore.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def machine_facts(software: str) -> list[str]:
    """What the figures were measured on: CPU and RAM, Python, and the measured code.

    Args:
        software: the versions of what the script measures besides govcore (its baselines,
            its server), appended to the govcore line.
    """
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 1024**3:.1f} GiB RAM"
    except (ValueError, OSError):
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [
        f"CPU: {os.cpu_count()} logical CPUs ({usable} usable), {model}{memory}",
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.platform()}",
        f"govcore {govcore.__version__} (sources sha256 {source_digest()}), {software}",
    ]
