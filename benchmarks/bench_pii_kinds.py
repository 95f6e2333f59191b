"""What the UK's and the EU's national identifiers cost a scan.

    python benchmarks/bench_pii_kinds.py [--quick] [--seed N]

One table per text size (100 KB and 1 MB of support prose with values planted every ~2 KB:
card numbers, emails, IBANs, phone numbers, SSNs, IP addresses, keys, and the national
identifiers), timed in turns in the same run (bench_checks.measure_together):

- baseline: the seven kinds govcore had before the national identifiers, one rule each;
- the same seven kinds as one rule naming markets (``pii: [common, us]``): a rule of several
  kinds is split into one rule per kind, so this should cost what the baseline costs;
- ``pii: [common, uk, eu, us]``: every kind of this module's markets, 21 kinds.

Each row is one ``Scanner.scan`` of the whole text (detection only, no request pipeline).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402
from bench_checks import PLANTS, measure_together, table  # noqa: E402

from govcore.detection.scanner import Scanner, compile_rules  # noqa: E402
from govcore.policy import PolicyDocument  # noqa: E402

ORIGINAL_KINDS = ("email", "credit_card", "iban", "phone", "us_ssn", "ip_address", "secret")
NATIONAL_PLANTS = (
    "NI number AB 12 34 56 C",
    "NHS number 943 476 5919",
    "passport 533380006",
    "MORGA753116SM9IJ",
    "DNI 12345678Z",
    "NIE X1234567L",
    "RSSMRA85T10A562S",
    "IT01234560017",
    "PESEL 44051401359",
    "131052-308T",
    "811228-9874",
    "Steuer-ID 86 095 742 719",
    "65 170839 J 003",
    "T220001293",
)


def make_text(size: int, seed: int) -> str:
    """Support prose of about ``size`` characters with a value planted in most 2 KB pieces."""
    rng = random.Random(seed)
    plants = PLANTS + NATIONAL_PLANTS
    parts: list[str] = []
    length = 0
    while length < size:
        piece = corpus.generate_turn(rng, size_bytes=2000)
        if rng.random() < 0.7:
            cut = rng.randrange(len(piece))
            piece = f"{piece[:cut]} {rng.choice(plants)} {piece[cut:]}"
        parts.append(piece)
        length += len(piece) + 1
    return "\n".join(parts)[:size]


def scanner(rules: list[dict[str, Any]]) -> Scanner:
    document = PolicyDocument.model_validate(
        {
            "id": "bench",
            "title": "Bench",
            "summary": "PII.",
            "severity": 5,
            "enforcement": "fix",
            "citationRef": "BENCH",
            "detect": rules,
        }
    )
    return compile_rules((document, rule) for rule in document.detect)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cases = [
        ("baseline: 7 kinds, one rule each", scanner([{"pii": k} for k in ORIGINAL_KINDS])),
        ("pii: [common, us] (the same 7 kinds)", scanner([{"pii": ["common", "us"]}])),
        ("pii: [common, uk, eu, us] (21 kinds)", scanner([{"pii": ["common", "uk", "eu", "us"]}])),
    ]
    for size, repeat in ((100_000, 15 if args.quick else 60), (1_000_000, 5 if args.quick else 15)):
        text = make_text(size, args.seed)
        runs = [lambda s=s, t=text: s.scan(t) for _, s in cases]  # type: ignore[misc]
        results = measure_together(runs, repeat=repeat)
        rows = []
        for (name, s), result in zip(cases, results, strict=True):
            matches = len(s.scan(text))
            mb_per_s = size / 1e6 * result["ops"]
            rows.append((name, result, f"{matches} matches, {mb_per_s:.1f} MB/s"))
        table(f"Scan of {size // 1000} KB ({repeat} rounds)", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
