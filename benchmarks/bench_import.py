"""How long ``import govcore`` takes and how much memory it costs, next to baselines.

Each sample is a fresh interpreter (``sys.executable``), so nothing is already imported or
cached in memory; the operating system's file cache is warm after the first run, which is
also what a service restart sees. A child reports two times: ``import`` is the statement
alone (perf_counter around it), ``process`` is the whole child as seen from here, interpreter
start-up included. ``peak RSS`` is the child's own high-water mark after the import.

The baselines show what is not ours: ``python`` alone, and ``import pydantic`` (a dependency
govcore cannot do without).

Bytecode: an installed wheel has its ``.pyc`` files, but a checkout run with
``PYTHONDONTWRITEBYTECODE=1`` compiles govcore's sources on every import. So that the figures
are those of an install, the children write and read bytecode under a private
``PYTHONPYCACHEPREFIX`` (a temporary directory; the checkout is left untouched) after one
warm-up run. ``--as-is`` measures with the environment unchanged instead.

    python benchmarks/bench_import.py              # 30 samples of each
    python benchmarks/bench_import.py -n 50 --modules sklearn scipy numpy
    python benchmarks/bench_import.py --as-is          # bytecode as the environment says
    python benchmarks/bench_import.py --install-size   # also: size of a fresh install

``--install-size`` creates a fresh virtual environment in a temporary directory, runs
``pip install <repository>`` into it (the dependency closure, as a user gets it), and adds up
the files each installed distribution lists in its RECORD (``importlib.metadata``), leaving
out pip and setuptools, which an empty virtual environment has already.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
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


def _sample(statement: str, env: dict[str, str]) -> tuple[float, float, int, list[str]]:
    """One fresh interpreter: (import seconds, process seconds, peak RSS KiB, heavy modules)."""
    start = time.perf_counter()
    completed = subprocess.run(  # noqa: S603 - our own interpreter, our own code
        [sys.executable, "-c", _CHILD.format(statement=statement)],
        capture_output=True,
        text=True,
        check=True,
        cwd=_REPOSITORY,
        env=env,
    )
    process = time.perf_counter() - start
    report = json.loads(completed.stdout)
    return report["import"], process, report["rss_kib"], report["heavy"]


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with ``fraction`` of the values at or below."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(len(ordered) * fraction)) - 1]


def _row(label: str, statement: str, samples: int, env: dict[str, str]) -> str:
    _sample(statement, env)  # warm-up: compiles bytecode, fills the file cache
    results = [_sample(statement, env) for _ in range(samples)]
    imports = [r[0] * 1000 for r in results]
    processes = [r[1] * 1000 for r in results]
    peak_mib = max(r[2] for r in results) / 1024
    heavy = ",".join(results[-1][3]) or "-"
    return (
        f"{label:<22} {statistics.median(imports):>8.1f} {_percentile(imports, 0.95):>8.1f} "
        f"{max(imports):>8.1f} {statistics.median(processes):>9.1f} {peak_mib:>9.1f}  {heavy}"
    )


# Runs in the fresh venv: bytes of each distribution's installed files, from its RECORD.
_SIZES = """
import importlib.metadata as md, json
sizes = {}
for dist in md.distributions():
    files = [f.locate() for f in dist.files or ()]
    sizes[dist.metadata["Name"]] = sum(p.stat().st_size for p in files if p.is_file())
print(json.dumps(sizes))
"""


def install_size() -> str:
    """Install the repository into a fresh venv; the size of its dependency closure."""
    with tempfile.TemporaryDirectory() as scratch:
        # Installed from a copy of the sources: pip builds in the source tree, and the
        # checkout should not be left with build/ and egg-info directories.
        source = Path(scratch, "source")
        shutil.copytree(_REPOSITORY / "govcore", source / "govcore")
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(_REPOSITORY / name, source / name)
        environment = Path(scratch, "venv")
        venv.create(environment, with_pip=True)
        python = environment / ("Scripts" if os.name == "nt" else "bin") / "python"
        subprocess.run(  # noqa: S603 - pip of the venv we just created
            [str(python), "-m", "pip", "install", "-q", str(source)], check=True
        )
        completed = subprocess.run(  # noqa: S603 - the venv we just created
            [str(python), "-c", _SIZES], capture_output=True, text=True, check=True
        )
    sizes = {
        name: size
        for name, size in json.loads(completed.stdout).items()
        if name.lower() not in {"pip", "setuptools"}
    }
    total = sum(sizes.values())
    lines = [f"install size: {total / 2**20:.1f} MiB in {len(sizes)} distributions"]
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        lines.append(f"  {name:<24} {size / 2**20:>7.1f} MiB")
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
    parser.add_argument(
        "--as-is", action="store_true", help="do not give the children a bytecode cache"
    )
    args = parser.parse_args()
    rows = [
        ("python (nothing)", "pass"),
        ("import pydantic", "import pydantic"),
        *((f"import {m}", f"import {m}") for m in args.modules),
        ("import govcore", "import govcore"),
    ]
    env = dict(os.environ)
    scratch = tempfile.TemporaryDirectory()
    if not args.as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = scratch.name
    bytecode = "as the environment says" if args.as_is else "cached under a private prefix"
    print(f"{args.samples} fresh processes each, {sys.executable} ({sys.version.split()[0]})")
    print(f"bytecode: {bytecode}")
    print(
        f"{'':<22} {'median':>8} {'p95':>8} {'max':>8} {'process':>9} {'peak RSS':>9}  "
        "heavy modules loaded"
    )
    print(f"{'':<22} {'ms':>8} {'ms':>8} {'ms':>8} {'ms median':>9} {'MiB':>9}")
    for label, statement in rows:
        print(_row(label, statement, args.samples, env), flush=True)
    scratch.cleanup()
    if args.install_size:
        print()
        print(install_size())


if __name__ == "__main__":
    main()
