"""The national and format identifiers on python-stdnum's own test tables, through the public API.

    python benchmarks/stdnum_tables.py [--version 2.2]

python-stdnum validates identifiers of many countries, and its source distribution holds the
values its authors test with, many of them found in the wild: doctests in ``tests/`` and in
each module's docstring. This script downloads that source distribution from PyPI with pip into
a temporary folder (nothing of it is kept in this repository), reads the doctests, and sends
every value through ``post_inference`` of a tenant whose one policy detects the matching kind:

- a value is expected valid when the doctest's ``validate(value)`` returns or ``is_valid(value)``
  is ``True``, and invalid when ``validate`` raises or ``is_valid`` is ``False``; a block
  ``numbers = '''...'''`` counts when the next example asserts that none of them is invalid (or
  valid);
- an expected value counts as found when a violation overlaps it; a violation on a value
  expected invalid is a false positive;
- each value is sent bare and again after its name (``"ABN: " + value``), since govcore reports
  several of these kinds only when named (docs/decisions/country-identifiers.md).

The figures are one of the three tables in docs/decisions/others-test-tables.md.
"""

from __future__ import annotations

import argparse
import ast
import doctest
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import govcore

# Our kind: the doctest files (tests/...) and modules (stdnum/...) that test it.
SOURCES: dict[str, tuple[str, ...]] = {
    "au_abn": ("tests/test_au_abn.doctest", "stdnum/au/abn.py"),
    "au_acn": ("tests/test_au_acn.doctest", "stdnum/au/acn.py"),
    "au_tfn": ("tests/test_au_tfn.doctest", "stdnum/au/tfn.py"),
    "crypto": ("tests/test_bitcoin.doctest", "stdnum/bitcoin.py"),
    "de_tax_id": ("tests/test_de_idnr.doctest", "stdnum/de/idnr.py"),
    "es_nif or es_nie": (
        "tests/test_es_nif.doctest",
        "stdnum/es/nif.py",
        "stdnum/es/dni.py",
        "stdnum/es/nie.py",
    ),
    "fi_personal_identity_code": ("tests/test_fi_hetu.doctest", "stdnum/fi/hetu.py"),
    "in_pan": ("tests/test_in_pan.doctest", "stdnum/in_/pan.py"),
    "in_aadhaar": ("stdnum/in_/aadhaar.py",),
    "in_gstin": ("stdnum/in_/gstin.py",),
    "it_fiscal_code or it_vat_code": (
        "tests/test_it_codicefiscale.doctest",
        "stdnum/it/codicefiscale.py",
    ),
    "it_vat_code": ("stdnum/it/iva.py",),
    "it_vat_code (EU VAT)": ("tests/test_eu_vat.doctest",),
    "kr_rrn": ("tests/test_kr_rrn.doctest", "stdnum/kr/rrn.py"),
    "mac_address": ("tests/test_mac.doctest", "stdnum/mac.py"),
    "se_personnummer": ("tests/test_se_personnummer.doctest", "stdnum/se/personnummer.py"),
    "sg_uen": ("tests/test_sg_uen.doctest", "stdnum/sg/uen.py"),
    "th_tnin": ("tests/test_th_pin.doctest", "stdnum/th/pin.py"),
    "tr_national_id": ("tests/test_tr_tckimlik.doctest", "stdnum/tr/tckimlik.py"),
    "pl_pesel": ("stdnum/pl/pesel.py",),
    "uk_nhs": ("stdnum/gb/nhs.py",),
    "ca_sin": ("stdnum/ca/sin.py",),
    "aba_routing": ("stdnum/us/rtn.py",),
}

# The identifier's name before a value, for the named pass.
NAMES = {
    "aba_routing": "routing number: ",
    "au_abn": "ABN: ",
    "au_acn": "ACN: ",
    "au_tfn": "TFN: ",
    "ca_sin": "SIN: ",
    "crypto": "Bitcoin address: ",
    "de_tax_id": "Steuer-ID: ",
    "es_nie": "NIE: ",
    "es_nif": "NIF: ",
    "fi_personal_identity_code": "henkilötunnus: ",
    "in_aadhaar": "Aadhaar: ",
    "in_gstin": "GSTIN: ",
    "in_pan": "PAN: ",
    "it_fiscal_code": "codice fiscale: ",
    "it_vat_code": "partita IVA: ",
    "kr_rrn": "주민등록번호: ",
    "mac_address": "MAC address: ",
    "pl_pesel": "PESEL: ",
    "se_personnummer": "personnummer: ",
    "sg_uen": "UEN: ",
    "th_tnin": "Thai ID: ",
    "tr_national_id": "T.C. Kimlik No: ",
    "uk_nhs": "NHS number: ",
}

Case = tuple[str, str, bool]  # (our kind, the value as the table writes it, expected valid)


def download(version: str, folder: Path) -> Path:
    """python-stdnum's source distribution, unpacked; its root folder."""
    subprocess.run(  # noqa: S603 - pip of this interpreter, fixed arguments
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         f"python-stdnum=={version}", "--dest", str(folder)],
        check=True,
    )  # fmt: skip
    [archive] = folder.glob("python*stdnum-*.tar.gz")
    with tarfile.open(archive) as sdist:
        sdist.extractall(folder, filter="data")
    [root] = [p for p in folder.iterdir() if p.is_dir()]
    return root


def doctest_examples(path: Path) -> list[doctest.Example]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        text = ast.get_docstring(ast.parse(text)) or ""
    return doctest.DocTestParser().get_examples(text)


def expectations(path: Path) -> list[tuple[str, bool]]:
    """The values a doctest file or module docstring tests, with whether it expects them valid."""
    found: list[tuple[str, bool]] = []
    examples = doctest_examples(path)
    for index, example in enumerate(examples):
        source = example.source.strip()
        if source.startswith(("numbers = '''", 'numbers = """')):
            check = examples[index + 1] if index + 1 < len(examples) else None
            if check is None or "is_valid(x)" not in check.source or check.want.strip() != "[]":
                continue
            valid = "not " in check.source.split("is_valid")[0]
            block = ast.literal_eval(source.split("=", 1)[1].strip())
            found += [(line, valid) for line in block.splitlines() if line.strip()]
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
            continue
        call = tree.body[0].value
        if not isinstance(call, ast.Call) or not call.args or call.keywords:
            continue
        name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        name = name or getattr(call.func, "id", "")
        argument = call.args[0]
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            continue
        if name == "validate":
            found.append((argument.value, "Traceback" not in example.want))
        elif name == "is_valid" and example.want.strip() in ("True", "False"):
            found.append((argument.value, example.want.strip() == "True"))
    return found


def cases(root: Path) -> list[Case]:
    """Every value of the tables, with the kind it belongs to, each once."""
    sys.path.insert(0, str(root))
    from stdnum.es import nie  # the package's own rule routes a Spanish value to NIF or NIE

    seen: set[Case] = set()
    ordered: list[Case] = []
    for group, paths in SOURCES.items():
        for path in paths:
            for value, valid in expectations(root / path):
                compact = re.sub(r"[\s.\-/]", "", value).upper()
                kind = group
                if group == "es_nif or es_nie":
                    is_nie = nie.is_valid(compact) or compact[:1] in "XYZ"
                    if not is_nie and not (compact[:1].isdigit() or compact[:1] in "KLM"):
                        continue  # a company's CIF: no kind of ours
                    kind = "es_nie" if is_nie else "es_nif"
                elif group == "it_fiscal_code or it_vat_code":
                    kind = "it_vat_code" if compact.isdigit() else "it_fiscal_code"
                elif group == "it_vat_code (EU VAT)":
                    if not compact.startswith("IT"):
                        continue
                    kind = "it_vat_code"
                case = (kind, value, valid)
                if case not in seen:
                    seen.add(case)
                    ordered.append(case)
    return ordered


def clients(kinds: set[str]) -> dict[str, Any]:
    """A typed client per kind, each of a tenant whose one policy detects it."""
    config = {
        "tenants": {
            kind: {"policies": [{
                "id": kind.replace("_", "-"), "title": kind, "summary": f"No {kind} values.",
                "severity": 3, "enforcement": "fix", "citationRef": kind.upper(),
                "detect": [{"pii": kind}],
            }]}
            for kind in kinds
        },
        "keys": [
            {"key": f"gk_stdnum_{kind}".ljust(24, "0"), "tenant": kind, "settings": {
                "post_inference_checking": "allowed", "rate_limit_per_minute": "unlimited"}}
            for kind in kinds
        ],
    }  # fmt: skip
    gov = govcore.Governance.from_config(config)
    return {kind: gov.client(f"gk_stdnum_{kind}".ljust(24, "0")) for kind in kinds}


def found_in(client: Any, text: str, start: int) -> tuple[bool, int]:
    """Whether a violation covers ``text[start:]`` (the value), and how many do not."""
    answer = client.post_inference({"sessionId": "stdnum-tables", "output": text})
    covering = [v for v in answer.violations if v.matched_text in text[start:]]
    return bool(covering), len(answer.violations) - len(covering)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--version", default="2.2", help="python-stdnum's version")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        table = cases(download(args.version, Path(folder)))
    by_kind = clients({kind for kind, _, _ in table})
    print(f"# govcore {govcore.__version__} on python-stdnum {args.version}'s test tables\n")
    print("| kind | values (valid) | found bare | found named | false positives bare / named |")
    print("|---|---|---|---|---|")
    totals: dict[str, int] = defaultdict(int)
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for kind, value, valid in table:
        row = rows[kind]
        row["values"] += 1
        row["valid"] += valid
        for mode, prefix in (("bare", ""), ("named", NAMES.get(kind, ""))):
            hit, stray = found_in(by_kind[kind], prefix + value, len(prefix))
            row[f"hit {mode}"] += valid and hit
            row[f"fp {mode}"] += stray + (hit and not valid)
    for kind in sorted(rows):
        row = rows[kind]
        print(
            f"| {kind} | {row['values']} ({row['valid']}) | {row['hit bare']} | "
            f"{row['hit named']} | {row['fp bare']} / {row['fp named']} |"
        )
        for key, count in row.items():
            totals[key] += count
    for mode in ("bare", "named"):
        hits, strays = totals[f"hit {mode}"], totals[f"fp {mode}"]
        precision = hits / (hits + strays) if hits + strays else float("nan")
        print(
            f"\n{mode}: recall {hits / totals['valid']:.3f} ({hits} of {totals['valid']}), "
            f"precision {precision:.3f} ({strays} false positives)"
        )


if __name__ == "__main__":
    main()
