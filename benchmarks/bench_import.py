"""How long ``import govcore`` takes and how much memory it costs, next to baselines.

Each sample is a fresh interpreter (``sys.executable``), so nothing is already imported or
cached in memory; the operating system's file cache is warm after the first run, which is
also what a service restart sees. A child reports two times: ``import`` is the statement
alone (perf_counter around it), ``process`` is the whole child as seen from here, interpreter
start-up included. ``peak RSS`` is the child's own high-water mark after the import.

The baselines show what is not ours: ``python`` alone, and ``import pydantic`` (a dependency
govcore cannot do without).

    python benchmarks/bench_import.py              # 30 samples of each
    python benchmarks/bench_import.py -n 50 --modules sklearn scipy
    python benchmarks/bench_import.py --install-size   # also: size of a fresh install

``--install-size`` creates a fresh virtual environment in a temporary directory, runs
``pip install <repository>`` into it (the dependency closure, as a user gets it), and reports
the size of its site-packages minus that of an empty virtual environment (pip itself).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

_REPOSITORY = Path(__file__).resolve().parent.parent

# Runs in the child: time the import, then report the process's peak resident set size.
_CHILD = """
import json, resource, sys, time
start = time.perf_counter()
{statement}
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
# Linux reports kibibytes, macOS bytes.
peak_kib = peak // 1024 if sys.platform == "darwin" else peak
print(json.dumps({{"import": elapsed, "rss_kib": peak_kib, "heavy": sorted(
    m for m in ("sklearn", "scipy", "numpy") if m in sys.modules)}}))
"""


def _sample(statement: str) -> tuple[float, float, int, list[str]]:
    """One fresh interpreter: (import seconds, process seconds, peak RSS KiB, heavy modules)."""
    start = time.perf_counter()
    completed = subprocess.run(  # noqa: S603 - our own interpreter, our own code
        [sys.executable, "-c", _CHILD.format(statement=statement)],
        capture_output=True,
        text=True,
        check=True,
        cwd=_REPOSITORY,
    )
    process = time.perf_counter() - start
    report = json.loads(completed.stdout)
    return report["import"], process, report["rss_kib"], report["heavy"]


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with ``fraction`` of the values at or below."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(len(ordered) * fraction)) - 1]


def _row(label: str, statement: str, samples: int) -> str:
    results = [_sample(statement) for _ in range(samples)]
    imports = [r[0] * 1000 for r in results]
    processes = [r[1] * 1000 for r in results]
    peak_mib = max(r[2] for r in results) / 1024
    heavy = ",".join(results[-1][3]) or "-"
    return (
        f"{label:<22} {statistics.median(imports):>8.1f} {_percentile(imports, 0.95):>8.1f} "
        f"{max(imports):>8.1f} {statistics.median(processes):>9.1f} {peak_mib:>9.1f}  {heavy}"
    )


def _tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def _site_packages(environment: Path) -> Path:
    found = list(environment.glob("lib/python*/site-packages")) or list(
        environment.glob("Lib/site-packages")
    )
    return found[0]


def install_size() -> str:
    """Install the repository into a fresh venv; the size its dependency closure adds."""
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch, "empty")
        full = Path(scratch, "full")
        venv.create(empty, with_pip=True)
        venv.create(full, with_pip=True)
        python = full / ("Scripts" if os.name == "nt" else "bin") / "python"
        subprocess.run(  # noqa: S603 - pip of the venv we just created
            [str(python), "-m", "pip", "install", "-q", str(_REPOSITORY)], check=True
        )
        baseline = _tree_bytes(_site_packages(empty))
        sizes: dict[str, int] = {}
        for entry in _site_packages(full).iterdir():
            # Group each distribution's files under its import name (dist-info folded in).
            name = entry.name.split("-")[0].split(".")[0].lower().lstrip("_")
            size = _tree_bytes(entry) if entry.is_dir() else entry.stat().st_size
            sizes[name] = sizes.get(name, 0) + size
        total = _tree_bytes(_site_packages(full)) - baseline
    largest = sorted(sizes.items(), key=lambda item: -item[1])[:8]
    lines = [f"install size (site-packages of a fresh venv, minus pip): {total / 2**20:.1f} MiB"]
    lines += [f"  {name:<24} {size / 2**20:>7.1f} MiB" for name, size in largest]
    return "\n".join(lines)


def main() -> None:
    """Print the import-time table (and, on request, the install size)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--samples", type=int, default=30, help="fresh processes per row")
    parser.add_argument(
        "--modules",
        nargs="*",
        default=[],
        help="more modules to time alone (for example sklearn scipy numpy)",
    )
    parser.add_argument("--install-size", action="store_true", help="also measure install size")
    args = parser.parse_args()
    rows = [
        ("python (nothing)", "pass"),
        ("import pydantic", "import pydantic"),
        *((f"import {m}", f"import {m}") for m in args.modules),
        ("import govcore", "import govcore"),
    ]
    print(f"{args.samples} fresh processes each, {sys.executable} ({sys.version.split()[0]})")
    print(
        f"{'':<22} {'median':>8} {'p95':>8} {'max':>8} {'process':>9} {'peak RSS':>9}  "
        "heavy modules loaded"
    )
    print(f"{'':<22} {'ms':>8} {'ms':>8} {'ms':>8} {'ms median':>9} {'MiB':>9}")
    for label, statement in rows:
        print(_row(label, statement, args.samples), flush=True)
    if args.install_size:
        print()
        print(install_size())


if __name__ == "__main__":
    main()
