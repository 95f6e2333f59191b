"""Retrieval quality on the labelled evaluation set: precision and recall of activePolicies.

    python benchmarks/retrieval_eval.py [--sweep]

Each item of ``benchmarks/data/retrieval_eval.yaml`` is one message with the policies of the
Northwind example that a careful compliance officer says apply. The message goes through the
public pre-inference call (the turn endpoint's selection without conversation state); the
``alwaysOn`` policies are left out of the scores, since they apply to every message. ``--sweep``
also prints the scores for other minimum relevances, to show how the default was chosen.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import govcore  # noqa: E402
from govcore.backends.tfidf import TfidfRetriever  # noqa: E402

CONFIG = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"
EVAL_SET = ROOT / "benchmarks" / "data" / "retrieval_eval.yaml"
KEY = "gk_demo_northwind_full_0001"


class SteppingClock:
    """One second per reading: keeps the evaluation inside the key's rate limit."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def evaluate(**retriever_options: float) -> dict[str, Any]:
    """Run every item; return micro precision and recall overall and per kind."""
    items = yaml.safe_load(EVAL_SET.read_text())
    retriever = TfidfRetriever(**retriever_options)
    gov = govcore.Governance.from_config(CONFIG, clock=SteppingClock(), retriever=retriever)
    always_on = {p.id for p in gov.policy_set("northwind").policies if p.always_on}
    client = gov.client(KEY)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # tp, fp, fn, empty-ok
    misses = []
    for item in items:
        request = {"sessionId": f"eval-{item['id']}", "prompt": item["text"]}
        if item.get("attributes"):
            request["endUserContext"] = {"attributes": item["attributes"]}
        response = client.pre_inference(request)
        got = {p.id for p in response.applicable_policies} - always_on
        expected = set(item["expected"])
        for kind in (item["kind"], "all"):
            c = counts[kind]
            c[0] += len(got & expected)
            c[1] += len(got - expected)
            c[2] += len(expected - got)
            c[3] += int(not expected and not got)
        if got != expected:
            misses.append((item["id"], sorted(expected - got), sorted(got - expected)))
    totals = {kind: sum(1 for i in items if i["kind"] == kind) for kind in counts}
    totals["all"] = len(items)
    return {"counts": dict(counts), "totals": totals, "misses": misses}


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "-"


def print_report(result: dict[str, Any], *, show_misses: bool) -> None:
    print(f"{'kind':<12}{'items':>6}{'precision':>11}{'recall':>8}{'empty when expected':>21}")
    offtopic_total = 0
    for kind in ("direct", "paraphrase", "multi", "distractor", "offtopic", "all"):
        if kind not in result["counts"]:
            continue
        tp, fp, fn, empty_ok = result["counts"][kind]
        n = result["totals"][kind]
        expected_empty = "" if kind not in ("offtopic", "all") else f"{empty_ok}"
        if kind == "offtopic":
            offtopic_total = n
            expected_empty = f"{empty_ok}/{n}"
        print(
            f"{kind:<12}{n:>6}{_ratio(tp, tp + fp):>11}{_ratio(tp, tp + fn):>8}{expected_empty:>21}"
        )
    del offtopic_total
    if show_misses:
        print("\nitems that differ (missed / extra):")
        for item_id, missed, extra in result["misses"]:
            print(f"  {item_id}: missed {missed or '-'}  extra {extra or '-'}")


MINIMUM = (0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18)
RELATIVE = (0.0, 0.4, 0.5, 0.6, 0.7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true", help="also try other min relevances")
    parser.add_argument("--misses", action="store_true", help="list the items that differ")
    args = parser.parse_args()
    print(f"Retrieval evaluation ({EVAL_SET.relative_to(ROOT)}), default settings")
    print_report(evaluate(), show_misses=args.misses)
    if args.sweep:
        print("\nsweep (all items): precision / recall / off-topic items left empty")
        print(f"{'min':>6}" + "".join(f"{'relative ' + str(r):>22}" for r in RELATIVE))
        for floor in MINIMUM:
            cells = []
            for relative in RELATIVE:
                result = evaluate(min_relevance=floor, relative_relevance=relative)
                tp, fp, fn, _ = result["counts"]["all"]
                off = result["counts"].get("offtopic", [0, 0, 0, 0])[3]
                total = result["totals"].get("offtopic", 0)
                cells.append(f"{_ratio(tp, tp + fp)} / {_ratio(tp, tp + fn)} / {off:>2}/{total}")
            print(f"{floor:>6.2f}" + "".join(f"{c:>22}" for c in cells))


if __name__ == "__main__":
    main()
