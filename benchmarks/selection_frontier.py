"""What any relevance floor could reach: the selection targets against the frontier of the
scores themselves, with the floor chosen on the very data it is scored on.

    python benchmarks/selection_frontier.py [--retrievers tfidf,hybrid] [--examples with]
                                            [--options '{"context_weight": 1.5}']

``retrieval_eval.py`` chooses settings on some domains and reports them on another, which is
the honest figure. This script asks a different question: *could a better threshold meet the
targets?* It scores every labelled turn and conversation turn of the five evaluation domains
once per retriever (the shipped retriever, calibrated on each domain's examples as it ships),
then applies govcore's selection rule (floor = max(min, relative x the best score of the
message alone); the retrieval depth; ``appliesWhen``; ``top_k``; ``alwaysOn`` left out; a
selected policy held ``release_after_unselected_turns`` turns) for every floor on a grid, and
reports the best any of them does on these same data. The figures are in-sample upper bounds
for this family of rules: a floor chosen on other data can only do worse.

Printed, per retriever:

1. the shipped floor's figures, and for the grid: whether any floor meets every target; the
   best F1 among floors that keep distractor turns with a wrong policy within target; the most
   onsets on time among those; the fewest distractor turns among floors that put onsets on time
   at the target;
2. where each onset's policy ranks at the turn it becomes relevant (an onset is a policy that
   becomes expected at a turn of a conversation; "on time": active after that very turn);
3. one conversation-aware variant of the relative cut (the best score it is relative to leaves
   out the policies already active), against the rule as shipped.

The targets are those set for selection with examples (``TARGETS``). ``hybrid`` needs the
semantic extra and its model; it is skipped with a line saying why when they are missing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's govcore, not an installed one
sys.path.insert(0, str(ROOT / "benchmarks"))

import retrieval_eval as ev  # noqa: E402

Scores = npt.NDArray[np.float64]

TARGETS: dict[str, dict[str, float]] = {
    # F1, paraphrase recall, onsets on time: at least; off-topic, distractor: at most
    "tfidf": {
        "f1": 0.70,
        "paraphrase_recall": 0.50,
        "off_topic": 0.08,
        "distractor": 0.35,
        "on_time": 0.65,
    },
    "hybrid": {
        "f1": 0.75,
        "paraphrase_recall": 0.70,
        "off_topic": 0.08,
        "distractor": 0.40,
        "on_time": 0.85,
    },
}
AT_MOST = frozenset({"off_topic", "distractor"})
MIN_GRID = tuple(round(0.05 + 0.01 * i, 2) for i in range(46))  # 0.05 to 0.5
REL_GRID = tuple(round(0.05 * i, 2) for i in range(21))  # 0 to 1
CONTEXT_TURNS = ev.CONVERSATION_CONTEXT_TURNS


@dataclass(frozen=True)
class ScoredTurn:
    """A turn's scores, and those of the message alone (which lead the relative cut)."""

    scores: Scores
    alone: Scores


@dataclass(frozen=True)
class ScoredDomain:
    domain: ev.Domain
    items: list[tuple[ev.Item, ScoredTurn]]
    conversations: list[tuple[ev.Conversation, list[ScoredTurn]]]
    shipped_floor: tuple[float, float]  # the index's own (min, relative)
    emulation_differs: int  # items whose emulated selection at that floor is not index.search's


def score_domains(
    name: str, options: Mapping[str, Any], domains: Mapping[str, ev.Domain]
) -> list[ScoredDomain]:
    out = []
    for domain in domains.values():
        index = ev.build_retriever(name, options).index(domain.policies)

        def scored(text: str, context: Sequence[str], index: Any = index) -> ScoredTurn:
            scores, alone = index.led_scores(text, context=list(context))
            return ScoredTurn(np.asarray(scores, np.float64), np.asarray(alone, np.float64))

        items = [(item, scored(item.text, item.context)) for item in domain.items]
        conversations = []
        for conv in domain.conversations:
            texts = [t.text for t in conv.turns]
            turns = [scored(t, texts[max(0, k - CONTEXT_TURNS) : k]) for k, t in enumerate(texts)]
            conversations.append((conv, turns))
        floor = (index.thresholds.min_relevance, index.thresholds.relative_relevance)
        differs = sum(
            selected(domain, turn, item.attributes, floor)
            != frozenset(ev.own_selection(index, item.text, item.context, domain, item.attributes))
            for item, turn in items
        )
        out.append(ScoredDomain(domain, items, conversations, floor, differs))
    return out


def selected(
    domain: ev.Domain,
    turn: ScoredTurn,
    attributes: Mapping[str, Any] | None,
    floor: tuple[float, float],
    leading: npt.NDArray[np.bool_] | None = None,
) -> frozenset[str]:
    """govcore's selection rule at ``floor`` = (min, relative); ``leading``: which policies may
    set the best score the relative cut is taken of (all when None)."""
    lead = turn.alone if leading is None else turn.alone[leading]
    best = float(lead.max()) if len(lead) else 0.0
    cut = max(floor[0], floor[1] * best, 1e-9)
    ranked = ev.Ranked.of(turn.scores)
    n = min(int((ranked.desc >= cut).sum()), ev.DEPTH)
    return frozenset(ev.pick(ranked, n, domain, domain.applicable(attributes)))


Rule = Callable[
    [ScoredDomain, ScoredTurn, Mapping[str, Any] | None, frozenset[str]], frozenset[str]
]


def shipped_rule(floor: tuple[float, float]) -> Rule:
    def rule(
        sd: ScoredDomain, turn: ScoredTurn, attrs: Mapping[str, Any] | None, _active: frozenset[str]
    ) -> frozenset[str]:
        return selected(sd.domain, turn, attrs, floor)

    return rule


def new_subject_rule(floor: tuple[float, float]) -> Rule:
    def rule(
        sd: ScoredDomain, turn: ScoredTurn, attrs: Mapping[str, Any] | None, active: frozenset[str]
    ) -> frozenset[str]:
        leading = np.array([pid not in active for pid in sd.domain.ids], dtype=bool)
        return selected(sd.domain, turn, attrs, floor, leading)

    return rule


def conversation_figures(data: Sequence[ScoredDomain], rule: Rule) -> ev.ConvFigures:
    out = ev.ConvFigures()
    for sd in data:
        for conv, turns in sd.conversations:
            selections: list[frozenset[str]] = []
            actives: list[frozenset[str]] = []
            for k, turn in enumerate(turns):
                before = actives[-1] if actives else frozenset()
                selections.append(rule(sd, turn, conv.attributes, before))
                held = selections[max(0, k - ev.HOLD_TURNS + 1) : k + 1]
                actives.append(frozenset().union(*held))
            out = out + ev.ConvFigures.of(conv, actives, sd.domain.always_on_ids)
    return out


@dataclass(frozen=True)
class Tally:
    """The counts behind the figures, which add up over domains (for held-out pooling)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    paraphrase_tp: int = 0
    paraphrase_fn: int = 0
    none: int = 0
    none_hit: int = 0
    distractors: int = 0
    distractors_wrong: int = 0
    on_time: int = 0
    onsets: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def figures(self) -> dict[str, float]:
        precision = self.tp / max(self.tp + self.fp, 1)
        recall = self.tp / max(self.tp + self.fn, 1)
        return {
            "f1": 2 * precision * recall / max(precision + recall, 1e-12),
            "paraphrase_recall": self.paraphrase_tp
            / max(self.paraphrase_tp + self.paraphrase_fn, 1),
            "off_topic": self.none_hit / max(self.none, 1),
            "distractor": self.distractors_wrong / max(self.distractors, 1),
            "on_time": self.on_time / max(self.onsets, 1),
        }


def tally(data: Sequence[ScoredDomain], floor: tuple[float, float]) -> Tally:
    counts = Counter[str]()
    for sd in data:
        for item, turn in sd.items:
            got = selected(sd.domain, turn, item.attributes, floor)
            expected = item.expected - sd.domain.always_on_ids
            counts["tp"] += len(got & expected)
            counts["fp"] += len(got - expected)
            counts["fn"] += len(expected - got)
            if item.kind == "paraphrase":
                counts["paraphrase_tp"] += len(got & expected)
                counts["paraphrase_fn"] += len(expected - got)
            elif item.kind == "none":
                counts["none"] += 1
                counts["none_hit"] += bool(got)
            elif item.kind == "distractor":
                counts["distractors"] += 1
                counts["distractors_wrong"] += bool(got - expected)
    lags = conversation_figures(data, shipped_rule(floor)).lags
    counts["on_time"] = sum(lag == 0 for lag in lags)
    counts["onsets"] = len(lags)
    return Tally(**counts)


def figures(data: Sequence[ScoredDomain], floor: tuple[float, float]) -> dict[str, float]:
    return tally(data, floor).figures()


def held_out(
    data: Sequence[ScoredDomain],
    grid: Sequence[tuple[float, float]],
    keep: Callable[[Mapping[str, float]], bool],
) -> tuple[list[tuple[str, tuple[float, float]]], dict[str, float]]:
    """Leave one domain out: for each domain, the best-F1 floor among those that ``keep``
    accepts on the other four (the best F1 of all when none does), scored on it; the held-out
    counts pooled."""
    tallies = [{floor: tally([sd], floor) for floor in grid} for sd in data]
    chosen: list[tuple[str, tuple[float, float]]] = []
    pooled = Tally()
    for i, sd in enumerate(data):

        def trained(floor: tuple[float, float], i: int = i) -> dict[str, float]:
            total = Tally()
            for j, by_floor in enumerate(tallies):
                if j != i:
                    total = total + by_floor[floor]
            return total.figures()

        scored = [(floor, trained(floor)) for floor in grid]
        floor = max(scored, key=lambda fv: (keep(fv[1]), fv[1]["f1"]))[0]
        chosen.append((sd.domain.name, floor))
        pooled = pooled + tallies[i][floor]
    return chosen, pooled.figures()


def meets(values: Mapping[str, float], targets: Mapping[str, float], keys: Sequence[str]) -> bool:
    return all(values[k] <= targets[k] if k in AT_MOST else values[k] >= targets[k] for k in keys)


def row(label: str, floor: tuple[float, float] | None, values: Mapping[str, float] | None) -> str:
    if floor is None or values is None:
        return f"| {label} | none on the grid | | | | | |"
    cells = [f"{values['f1']:.3f}", f"{values['paraphrase_recall']:.2f}"]
    cells += [f"{100 * values[k]:.0f}%" for k in ("off_topic", "distractor", "on_time")]
    return f"| {label} | {floor[0]:g}, {floor[1]:g} | " + " | ".join(cells) + " |"


def onset_ranks(data: Sequence[ScoredDomain]) -> list[int | None]:
    """Each onset's rank at the turn its policy becomes expected (None: it scores 0)."""
    ranks: list[int | None] = []
    for sd in data:
        for conv, turns in sd.conversations:
            expected = [t.expected - sd.domain.always_on_ids for t in conv.turns]
            for k, now in enumerate(expected):
                before = expected[k - 1] if k else frozenset()
                for pid in sorted(now - before):
                    scores = turns[k].scores
                    own = scores[sd.domain.ids.index(pid)]
                    ranks.append(int((scores > own).sum()) + 1 if own > 0 else None)
    return ranks


def report(name: str, options: Mapping[str, Any], data: Sequence[ScoredDomain]) -> None:
    targets = TARGETS[name]
    grid = list(itertools.product(MIN_GRID, REL_GRID))
    table = {floor: figures(data, floor) for floor in grid}
    floors = {sd.shipped_floor for sd in data}
    assert len(floors) == 1, f"the domains' indexes have different floors: {floors}"
    shipped_floor = floors.pop()
    shipped = figures(data, shipped_floor)
    keys = list(targets)

    def best(
        keep: Callable[[Mapping[str, float]], bool], key: Callable[[Mapping[str, float]], float]
    ) -> tuple[tuple[float, float] | None, Mapping[str, float] | None]:
        kept = [(f, v) for f, v in table.items() if keep(v)]
        if not kept:
            return None, None
        floor, values = max(kept, key=lambda fv: key(fv[1]))
        return floor, values

    title = name + (f" {json.dumps(dict(options))}" if options else "")
    print(f"\n## {title}\n")
    bounds = [f"{k} {'<=' if k in AT_MOST else '>='} {v:g}" for k, v in targets.items()]
    print(f"Targets: {', '.join(bounds)}")
    every = [f for f, v in table.items() if meets(v, targets, keys)]
    differs = sum(sd.emulation_differs for sd in data)
    items = sum(len(sd.items) for sd in data)
    print(
        f"At the shipped floor this emulation selects what the index's own search selects on "
        f"{items - differs} of {items} labelled turns."
    )
    print(f"Floors on the grid meeting every target at once: {len(every)} of {len(grid)}\n")
    print("| floor | min, relative | F1 | paraphrase R | off-topic | distractor wrong | on time |")
    print("|---|---|---|---|---|---|---|")
    print(row("as shipped", shipped_floor, shipped))
    in_distractor = lambda v: meets(v, targets, ["distractor"])  # noqa: E731
    on_time = lambda v: meets(v, targets, ["on_time"])  # noqa: E731
    print(row("best F1, distractors within target", *best(in_distractor, lambda v: v["f1"])))
    print(
        row("most on time, distractors within target", *best(in_distractor, lambda v: v["on_time"]))
    )
    print(row("fewest distractors, on time at target", *best(on_time, lambda v: -v["distractor"])))
    print(row("best F1, on time at target", *best(on_time, lambda v: v["f1"])))

    within = lambda v: meets(v, targets, ["off_topic", "distractor"])  # noqa: E731
    chosen, values = held_out(data, grid, within)
    print(
        "\nHeld out (leave one domain out): each domain's floor is the best F1 among floors "
        "within the off-topic and distractor targets on the other four: "
        + ", ".join(f"{name} {floor[0]:g}, {floor[1]:g}" for name, floor in chosen)
        + "."
    )
    print("\n| floor | F1 | paraphrase R | off-topic | distractor wrong | on time |")
    print("|---|---|---|---|---|---|")
    for label, v in (("as shipped", shipped), ("chosen held out for the targets", values)):
        cells = [f"{v['f1']:.3f}", f"{v['paraphrase_recall']:.2f}"]
        cells += [f"{100 * v[k]:.0f}%" for k in ("off_topic", "distractor", "on_time")]
        print(f"| {label} | " + " | ".join(cells) + " |")

    ranks = onset_ranks(data)
    n = len(ranks)
    share = lambda k: sum(r is not None and r <= k for r in ranks) / n  # noqa: E731
    print(
        f"\nOnsets: {n}. The new policy's rank at its onset turn: first {share(1):.0%}, "
        f"in the first 2 {share(2):.0%}, first 3 {share(3):.0%}, within the retrieval depth "
        f"({ev.DEPTH}) {share(ev.DEPTH):.0%}; scoring 0 {sum(r is None for r in ranks) / n:.0%}."
    )
    print("\n| relative cut | on time | conversation Jaccard |")
    print("|---|---|---|")
    for label, make in (
        ("as shipped", shipped_rule),
        ("best of the policies not yet active", new_subject_rule),
    ):
        summary = conversation_figures(data, make(shipped_floor)).summary()
        print(
            f"| {label} | {summary['on_time_rate']:.0%} | {summary['conversation_jaccard']:.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--retrievers", default="tfidf,hybrid")
    parser.add_argument("--examples", choices=ev.EXAMPLE_MODES, default="with")
    parser.add_argument("--options", default="{}", help="retriever options, as JSON")
    args = parser.parse_args()
    options = json.loads(args.options)
    plain = {ev.NORTHWIND: ev.load_northwind()}
    plain.update({d: ev.load_blind_domain(d) for d in ev.BLIND_DOMAINS})
    mode = ev.load_mode(args.examples, plain, ev.EXAMPLES_ROOT)
    print(f"# The selection frontier: five domains, policies {args.examples} examples, in-sample")
    for name in args.retrievers.split(","):
        try:
            data = score_domains(name, options, mode.domains)
        except Exception as exc:  # a retriever that cannot be built here is skipped, said why
            print(f"\n- {name} skipped: {type(exc).__name__}: {exc}")
            continue
        report(name, options, data)


if __name__ == "__main__":
    main()
