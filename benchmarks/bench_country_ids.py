"""What the country and format identifiers of issue 20 cost a scan, beside the seven kinds before.

    python benchmarks/bench_country_ids.py [--quick] [--seed N]

One table per text size: the scanner of one policy whose ``detect`` rules name the seven kinds
govcore had before (email, credit_card, iban, phone, us_ssn, ip_address, secret: the baseline),
every built-in kind, and the new identifiers alone. The kinds are compiled into one scanner per
rule set (as a tenant's policies are), and each case scans the same text: support prose with
PII planted every ~2 KB, the baseline's values and one country identifier in ten planted
values, so that the new validators see both their own values and every other nine- to
thirteen-digit number. Times are taken in turns (one scan of each case per round), so a slow
phase of the shared machine falls on all cases alike.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_checks import PLANTS, make_text, measure_together, table  # noqa: E402

from govcore.detection.detectors import DETECTORS  # noqa: E402
from govcore.detection.scanner import Scanner, compile_rules  # noqa: E402
from govcore.policy import PolicyDocument  # noqa: E402

BEFORE = ("email", "credit_card", "iban", "phone", "us_ssn", "ip_address", "secret")
NEW = tuple(kind for kind in DETECTORS if kind not in BEFORE)


def scanner_of(kinds: tuple[str, ...]) -> Scanner:
    document = PolicyDocument.model_validate(
        {
            "id": "pii",
            "title": "PII",
            "summary": "No personal data in outputs.",
            "severity": 3,
            "enforcement": "fix",
            "citationRef": "POL-PII",
            "detect": [{"pii": kind} for kind in kinds],
        }
    )
    return compile_rules((document, rule) for rule in document.detect)


def text_with_identifiers(size: int, seed: int) -> str:
    """``make_text``'s prose, with one planted value in ten replaced by a new kind's example."""
    rng = random.Random(seed)
    text = make_text(size, seed)
    for plant in PLANTS:
        pieces = text.split(plant)
        text = pieces[0] + "".join(
            (DETECTORS[rng.choice(NEW)].example if rng.random() < 0.1 else plant) + piece
            for piece in pieces[1:]
        )
    return text[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 KB only, fewer rounds")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cases = {
        f"baseline: the {len(BEFORE)} kinds before": scanner_of(BEFORE),
        f"every kind ({len(DETECTORS)})": scanner_of(tuple(DETECTORS)),
        f"the {len(NEW)} new identifiers alone": scanner_of(NEW),
    }
    for size in (100_000,) if args.quick else (100_000, 1_000_000):
        text = text_with_identifiers(size, args.seed)
        runs = [lambda s=s, t=text: s.scan(t) for s in cases.values()]
        measured = measure_together(runs, repeat=5 if args.quick else 15)
        base = measured[0]["median"]
        rows = []
        for (name, scanner), m in zip(cases.items(), measured, strict=True):
            hits = len(scanner.scan(text))
            mb_s = len(text.encode()) / 2**20 / (m["median"] / 1000)
            note = f"{mb_s:.1f} MB/s, {hits} matches, x{m['median'] / base:.2f} of baseline"
            rows.append((name, m, note))
        table(f"Scan of a {size // 1000} KB output (one scanner per rule set)", rows)


if __name__ == "__main__":
    main()
