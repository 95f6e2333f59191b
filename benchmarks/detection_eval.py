"""Labelled evaluation of the built-in `pii` detectors, govcore beside Microsoft Presidio.

    python benchmarks/detection_eval.py [--corpus DIR] [--json] [--misses] [--entity E]

Loads a labelled corpus directory: by default the development corpus benchmarks/data/detection/
(see its README.md for the format and the span conventions); `--corpus
benchmarks/data/detection-holdout` evaluates the held-out corpus, which is never used to tune a
detector. It
runs govcore through its public API (one tenant, one policy per entity holding a single
`detect: [{pii: <entity>}]` rule, a final streaming check of each case text from offset 0, which
reports every match with its offset) and, in the same run on the same texts, Presidio's pattern
recognizers for the entities it has (no NLP engine; skipped with a note when presidio-analyzer
is not installed: ``pip install -e ".[bench]"``).

Scoring, per entity (and per secret family and group):
- an expected span is *found* when a reported span of the same entity overlaps it; recall is the
  share of expected spans found; exactness is the share of found expected spans that some
  reported span of that entity matches exactly (same start and end);
- a reported span is a true positive when it overlaps an expected span of its entity, otherwise a
  false positive; precision is the share of reported spans that are true positives.
A secret finding is counted in the family of the expected span it overlaps; a false positive in
the family the case is about (its `family` field), or `(none)` in a case that names none.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from presidio_baseline import PRESIDIO_ENTITY, analyze, presidio_recognizers  # noqa: E402

import govcore  # noqa: E402
from govcore.detection.detectors import DETECTORS  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "detection"
ENTITIES = tuple(DETECTORS)  # every built-in kind, in the registry's order
PII_ENTITIES = tuple(entity for entity in ENTITIES if entity != "secret")
GENERIC_FAMILY = "generic_assignment"
KEY = "gk_detection_eval_0001"
NO_FAMILY = "(none)"


# --- corpus ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    entity: str
    start: int
    end: int
    text: str
    family: str | None = None

    def overlaps(self, other: Span) -> bool:
        return self.entity == other.entity and self.start < other.end and other.start < self.end

    def same_place(self, other: Span) -> bool:
        return (self.entity, self.start, self.end) == (other.entity, other.start, other.end)


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    context: str
    language: str
    family: str | None
    expected: tuple[Span, ...]


def nth_occurrence(text: str, needle: str, occurrence: int) -> int:
    """Start of the `occurrence`-th (1-based) place where `needle` starts in `text`."""
    start = -1
    for _ in range(occurrence):
        start = text.find(needle, start + 1)
        if start < 0:
            raise ValueError(f"{needle!r} does not occur {occurrence} times")
    return start


def load_corpus(directory: Path = DATA) -> list[Case]:
    cases = []
    for path in sorted(directory.glob("*.yaml")):
        for raw in yaml.safe_load(path.read_text(encoding="utf-8")):
            expected = []
            for item in raw["expect"]:
                start = nth_occurrence(raw["text"], item["text"], item.get("occurrence", 1))
                end = start + len(item["text"])
                expected.append(Span(item["entity"], start, end, item["text"], item.get("family")))
            cases.append(
                Case(
                    raw["id"],
                    raw["text"],
                    raw["context"],
                    raw["language"],
                    raw.get("family"),
                    tuple(expected),
                )
            )
    return cases


# --- the systems -----------------------------------------------------------------------------

Detector = Callable[[str], list[Span]]


def govcore_detector(entities: Iterable[str]) -> Detector:
    """govcore through its public API: a final streaming check reports every match's offset."""
    policies = [
        {
            "id": f"detect-{entity}",
            "title": f"Detect {entity}",
            "summary": f"Reports every {entity} in an output.",
            "severity": 3,
            "enforcement": "warning",
            "citationRef": f"EVAL-{entity}",
            "alwaysOn": True,
            "detect": [{"pii": entity}],
        }
        for entity in entities
    ]
    gov = govcore.Governance.from_config(
        {
            "settings": {"default_rate_limit_per_minute": 1_000_000_000},
            "tenants": {"eval": {"policies": policies}},
            "keys": [
                {
                    "key": KEY,
                    "tenant": "eval",
                    "settings": {"post_inference_checking": "allowed"},
                }
            ],
        }
    )
    client = gov.client(KEY)
    calls = 0

    def detect(text: str) -> list[Span]:
        nonlocal calls
        calls += 1
        reply = client.check_output_stream(
            {
                "sessionId": f"eval-{calls}",
                "fullText": text,
                "lastCheckedOffset": 0,
                "isFinal": True,
            }
        )
        spans = []
        for violation in reply.new_violations:
            entity = violation.policy_id.removeprefix("detect-")
            start = violation.offset
            spans.append(
                Span(entity, start, start + len(violation.matched_text), violation.matched_text)
            )
        return spans

    return detect


def presidio_detector(entities: Iterable[str]) -> Detector | None:
    """Presidio's pattern recognizers for the entities it has, without an NLP engine."""
    wanted = set(entities)
    recognizers = presidio_recognizers(wanted)
    if recognizers is None:
        return None

    def detect(text: str) -> list[Span]:
        spans = []
        for result in analyze(recognizers, text):
            entity = PRESIDIO_ENTITY.get(result.entity_type)
            if entity in wanted:
                spans.append(
                    Span(entity, result.start, result.end, text[result.start : result.end])
                )
        return spans

    return detect


# --- scoring ---------------------------------------------------------------------------------


@dataclass
class Tally:
    expected: int = 0
    found: int = 0  # expected spans overlapped by a reported span of their entity
    exact: int = 0  # found expected spans some reported span matches exactly
    reported: int = 0
    true_positive: int = 0  # reported spans overlapping an expected span of their entity

    def add(self, other: Tally) -> None:
        self.expected += other.expected
        self.found += other.found
        self.exact += other.exact
        self.reported += other.reported
        self.true_positive += other.true_positive

    def figures(self) -> dict[str, Any]:
        return {
            "recall": self.found / self.expected if self.expected else None,
            "precision": self.true_positive / self.reported if self.reported else None,
            "exactness": self.exact / self.found if self.found else None,
            "expected": self.expected,
            "found": self.found,
            "exact": self.exact,
            "reported": self.reported,
            "false_positives": self.reported - self.true_positive,
        }


@dataclass
class Outcome:
    """One system's results over the corpus."""

    by_entity: dict[str, Tally] = field(default_factory=dict)
    by_family: dict[str, Tally] = field(default_factory=dict)
    missed: list[tuple[str, Span]] = field(default_factory=list)
    inexact: list[tuple[str, Span, list[Span]]] = field(default_factory=list)
    false_positives: list[tuple[str, Span]] = field(default_factory=list)
    milliseconds: float = 0.0

    def tally(self, table: dict[str, Tally], name: str) -> Tally:
        return table.setdefault(name, Tally())


def score(cases: list[Case], detect: Detector, entities: set[str]) -> Outcome:
    outcome = Outcome()
    detect("warm-up: anna@example.com 4111 1111 1111 1111")  # lazy set-up stays out of the time
    for entity in sorted(entities):
        outcome.tally(outcome.by_entity, entity)
    for case in cases:
        started = time.perf_counter()
        reported = [s for s in detect(case.text) if s.entity in entities]
        outcome.milliseconds += (time.perf_counter() - started) * 1000
        for expected in (e for e in case.expected if e.entity in entities):
            overlapping = [r for r in reported if r.overlaps(expected)]
            exact = any(r.same_place(expected) for r in overlapping)
            tallies = [outcome.tally(outcome.by_entity, expected.entity)]
            if expected.entity == "secret":
                tallies.append(outcome.tally(outcome.by_family, expected.family or NO_FAMILY))
            for tally in tallies:
                tally.expected += 1
                tally.found += bool(overlapping)
                tally.exact += exact
            if not overlapping:
                outcome.missed.append((case.id, expected))
            elif not exact:
                outcome.inexact.append((case.id, expected, overlapping))
        for found in reported:
            matched = next((e for e in case.expected if e.overlaps(found)), None)
            tallies = [outcome.tally(outcome.by_entity, found.entity)]
            if found.entity == "secret":
                family = matched.family if matched else case.family
                tallies.append(outcome.tally(outcome.by_family, family or NO_FAMILY))
            for tally in tallies:
                tally.reported += 1
                tally.true_positive += matched is not None
            if matched is None:
                outcome.false_positives.append((case.id, found))
    return outcome


def rows_of(outcome: Outcome) -> dict[str, Tally]:
    """Per entity, pooled PII, secrets, the two secret groups and each secret family."""
    rows: dict[str, Tally] = {}
    for entity in PII_ENTITIES:
        if entity in outcome.by_entity:
            rows[entity] = outcome.by_entity[entity]
    pii = [t for e, t in outcome.by_entity.items() if e in PII_ENTITIES]
    if pii:
        pooled = Tally()
        for tally in pii:
            pooled.add(tally)
        rows["PII (pooled)"] = pooled
    if "secret" in outcome.by_entity:
        rows["secret (pooled)"] = outcome.by_entity["secret"]
        vendor, generic = Tally(), Tally()
        for family, tally in outcome.by_family.items():
            (generic if family == GENERIC_FAMILY else vendor).add(tally)
        rows["  secret: vendor formats"] = vendor
        rows["  secret: generic assignments"] = generic
        for family in sorted(outcome.by_family):
            rows[f"    {family}"] = outcome.by_family[family]
    return rows


# --- report ----------------------------------------------------------------------------------


def percent(value: float | None) -> str:
    return "  n/a" if value is None else f"{100 * value:5.1f}"


def cell(tally: Tally | None) -> str:
    if tally is None:
        return f"{'not covered':>34}"
    f = tally.figures()
    counts = f"{tally.found}/{tally.expected} fp {f['false_positives']}"
    return (
        f"{percent(f['recall'])} {percent(f['precision'])} {percent(f['exactness'])} {counts:>15}"
    )


def print_table(cases: list[Case], outcomes: dict[str, Outcome], corpus: Path) -> None:
    names = list(outcomes)
    spans = sum(len(c.expected) for c in cases)
    near = sum(1 for c in cases if not c.expected)
    print(
        f"Detection corpus {display_path(corpus)}: {len(cases)} cases, {spans} expected spans, "
        f"{near} near-miss cases"
    )
    print("R = recall %, P = precision %, X = exact spans % of those found; found/expected, fp\n")
    header = f"{'':34}" + "".join(f" | {name:^34}" for name in names)
    sub = f"{'':34}" + "".join(
        f" | {'R':>5} {'P':>5} {'X':>5} {'found/exp, fp':>15}" for _ in names
    )
    print(header)
    print(sub)
    print("-" * len(sub))
    all_rows = {name: rows_of(o) for name, o in outcomes.items()}
    labels: list[str] = []
    for rows in all_rows.values():
        labels += [label for label in rows if label not in labels]
    for label in labels:
        line = f"{label:34}" + "".join(f" | {cell(all_rows[n].get(label))}" for n in names)
        print(line)
    print()
    for name, outcome in outcomes.items():
        print(f"time {name}: {outcome.milliseconds:.0f} ms for {len(cases)} cases")


def print_misses(outcomes: dict[str, Outcome]) -> None:
    for name, outcome in outcomes.items():
        print(f"\n== {name}: missed ({len(outcome.missed)})")
        for case_id, span in outcome.missed:
            print(f"  {case_id:22} {span.entity:11} {span.family or '':24} {span.text[:90]!r}")
        print(f"\n== {name}: false positives ({len(outcome.false_positives)})")
        for case_id, span in outcome.false_positives:
            print(f"  {case_id:22} {span.entity:11} {span.text[:110]!r}")
        print(f"\n== {name}: found but not exact ({len(outcome.inexact)})")
        for case_id, span, got in outcome.inexact:
            shown = ", ".join(repr(g.text[:60]) for g in got)
            print(f"  {case_id:22} {span.entity:11} expected {span.text[:60]!r} got {shown}")


def display_path(directory: Path) -> str:
    """The corpus directory relative to the repository when it lies inside it."""
    resolved = directory.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(directory)


def as_json(
    cases: list[Case], outcomes: dict[str, Outcome], notes: list[str], corpus: Path
) -> dict[str, Any]:
    return {
        "corpus": {
            "directory": display_path(corpus),
            "cases": len(cases),
            "expected_spans": sum(len(c.expected) for c in cases),
            "near_miss_cases": sum(1 for c in cases if not c.expected),
        },
        "notes": notes,
        "systems": {
            name: {
                "milliseconds": round(outcome.milliseconds, 1),
                "rows": {label.strip(): t.figures() for label, t in rows_of(outcome).items()},
                "missed": [
                    {"case": c, "entity": s.entity, "family": s.family, "text": s.text}
                    for c, s in outcome.missed
                ],
                "false_positives": [
                    {"case": c, "entity": s.entity, "text": s.text, "start": s.start}
                    for c, s in outcome.false_positives
                ],
            }
            for name, outcome in outcomes.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="list misses and false positives")
    parser.add_argument("--entity", choices=ENTITIES, help="evaluate one entity only")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DATA,
        metavar="DIR",
        help="directory of labelled *.yaml cases (default: the development corpus %(default)s)",
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir() or not any(args.corpus.glob("*.yaml")):
        parser.error(f"--corpus {args.corpus}: not a directory holding *.yaml cases")

    entities = {args.entity} if args.entity else set(ENTITIES)
    cases = load_corpus(args.corpus)
    notes: list[str] = []
    outcomes = {"govcore": score(cases, govcore_detector(sorted(entities)), entities)}
    presidio_entities = entities & set(PII_ENTITIES)
    presidio = presidio_detector(presidio_entities) if presidio_entities else None
    if presidio is None:
        if presidio_entities:
            notes.append("Presidio not installed (pip install -e '.[bench]'): comparison skipped")
    else:
        outcomes["presidio"] = score(cases, presidio, presidio_entities)
        if "secret" in entities:
            notes.append("Presidio has no secret detector; its secret rows are not covered")

    if args.json:
        print(
            json.dumps(as_json(cases, outcomes, notes, args.corpus), indent=2, ensure_ascii=False)
        )
        return 0
    print_table(cases, outcomes, args.corpus)
    for note in notes:
        print(f"note: {note}")
    if args.misses:
        print_misses(outcomes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
