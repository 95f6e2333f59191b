"""Writes the labelled cases of the country and format identifiers outside Europe
(`ids_world.yaml` beside this script): Indian PAN, Aadhaar and GSTIN; Australian TFN, ABN, ACN and
Medicare; Singapore NRIC/FIN and UEN; Korean RRN; Thai national ID; Turkish identity number;
Canadian SIN; Nigerian NIN; Philippine TIN; US ABA routing numbers; MAC addresses; Bitcoin
addresses.

Same schema and inline marks as `make_corpus.py` (`⟦entity:value⟧`, removed, each one expected
span). The surrounding texts are written here by hand; the values are drawn from a seeded
generator, with check digits computed by this script from the authorities' definitions, so the
file is reproducible: `python benchmarks/data/detection/make_ids_world.py`.

Near misses (no span): wrong check digits, wrong lengths, values glued to letters or digits, and,
for the kinds whose bare digits mean nothing without the identifier's name (TFN, ACN, SIN,
Medicare, ABA routing, Philippine TIN), a checksum-valid bare number in an unrelated sentence.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
OUT = HERE / "ids_world.yaml"
rng = random.Random(20261127)
MARK = re.compile(r"⟦([a-z_]+):(.+?)⟧")


def digits(count: int, first: str = "0123456789") -> str:
    return rng.choice(first) + "".join(rng.choice("0123456789") for _ in range(count - 1))


# ----------------------------------------------------------------------------- checks


def luhn_ok(number: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(number)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def looks_like_a_card(number: str) -> bool:
    """A Luhn-valid 12 to 19 digits with a card issuer's prefix: the corpus's card convention.
    Values of the kinds here that are also cards are drawn again, so no case holds an unlabelled
    card number."""
    plain = re.sub(r"\D", "", number)
    return 12 <= len(plain) <= 19 and plain[0] in "1234569" and luhn_ok(plain)


def with_check(body: str, check: Callable[[str], str | None]) -> str | None:
    digit = check(body)
    return None if digit is None else body + digit


def tfn_check(body: str) -> str | None:
    for c in "0123456789":
        n = body + c
        if sum(int(d) * w for d, w in zip(n, (1, 4, 3, 7, 5, 8, 6, 9, 10), strict=True)) % 11 == 0:
            return c
    return None


def acn_check(body: str) -> str:
    return str(-sum(int(d) * (8 - i) for i, d in enumerate(body)) % 10)


def abn_of(tail: str) -> str | None:
    for lead in range(10, 100):
        n = f"{lead}{tail}"
        values = [int(n[0]) - 1, *map(int, n[1:])]
        weights = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
        if sum(v * w for v, w in zip(values, weights, strict=True)) % 89 == 0:
            return n
    return None


def medicare_check(body: str) -> str:
    weights = (1, 3, 7, 9, 1, 3, 7, 9)
    return str(sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 10)


# The dihedral group D5 written out (Verhoeff's tables).
VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
VERHOEFF_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4]]
for _ in range(6):
    VERHOEFF_P.append([VERHOEFF_P[1][v] for v in VERHOEFF_P[-1]])
VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_check(body: str) -> str:
    c = 0
    for i, d in enumerate(reversed(body)):
        c = VERHOEFF_D[c][VERHOEFF_P[(i + 1) % 8][int(d)]]
    return str(VERHOEFF_INV[c])


def rrn_check(body: str) -> str:
    weights = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
    return str((11 - sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11) % 10)


def tnin_check(body: str) -> str:
    return str((11 - sum(int(d) * (13 - i) for i, d in enumerate(body)) % 11) % 10)


def tckn_of(body: str) -> str:
    d = [int(c) for c in body]
    tenth = (sum(d[0:9:2]) * 7 - sum(d[1:8:2])) % 10
    return f"{body}{tenth}{(sum(d) + tenth) % 10}"


def luhn_check(body: str) -> str:
    return next(c for c in "0123456789" if luhn_ok(body + c))


def aba_check(body: str) -> str:
    weights = (3, 7, 1, 3, 7, 1, 3, 7)
    return str(-sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 10)


def ph_tin_check(body: str) -> str | None:
    r = sum(int(d) * w for d, w in zip(body, (9, 8, 7, 6, 5, 4, 3, 2), strict=True)) % 11
    return None if r == 10 else str(r)


GST_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def gstin_check(body: str) -> str:
    total = 0
    for i, ch in enumerate(body):
        product = GST_ALPHABET.index(ch) * (2 if i % 2 else 1)
        total += product // 36 + product % 36
    return GST_ALPHABET[-total % 36]


def nric_letter(prefix: str, body: str) -> str:
    total = sum(int(d) * w for d, w in zip(body, (2, 7, 6, 5, 4, 3, 2), strict=True))
    total += {"S": 0, "T": 4, "F": 0, "G": 4, "M": 3}[prefix]
    if prefix == "M":
        return "KLJNPQRTUWX"[10 - total % 11]
    return ("JZIHGFEDCBA" if prefix in "ST" else "XWUTRQPNMLK")[total % 11]


UEN_TYPES = ["LL", "LP", "CC", "CS", "SS", "MB", "FC", "RF", "PF", "MM"]
UEN_C_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWX0123456789"


def uen_letter(body: str) -> str:
    if len(body) == 8:
        w, table = (10, 4, 9, 3, 8, 2, 7, 1), "XMKECAWLJDB"
        return table[sum(int(d) * x for d, x in zip(body, w, strict=True)) % 11]
    if body.isdigit():
        w, table = (10, 8, 6, 4, 9, 7, 5, 3, 1), "ZKCMDNERGWH"
        return table[sum(int(d) * x for d, x in zip(body, w, strict=True)) % 11]
    w = (4, 3, 5, 3, 10, 2, 2, 5, 7)
    total = sum(UEN_C_ALPHABET.index(c) * x for c, x in zip(body, w, strict=True))
    return UEN_C_ALPHABET[(total - 5) % 11]


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58check(version: int, payload: bytes) -> str:
    raw = bytes([version]) + payload
    raw += hashlib.sha256(hashlib.sha256(raw).digest()).digest()[:4]
    n, out = int.from_bytes(raw, "big"), ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def bech32_polymod(values: list[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i, g in enumerate((0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)):
            if top >> i & 1:
                chk ^= g
    return chk


def segwit(version: int, program: bytes, hrp: str = "bc") -> str:
    data, acc, bits = [version], 0, 0
    for byte in program:
        acc, bits = acc << 8 | byte, bits + 8
        while bits >= 5:
            bits -= 5
            data.append(acc >> bits & 31)
    if bits:
        data.append(acc << (5 - bits) & 31)
    const = 0x2BC830A3 if version else 1
    hrp_values = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    mod = bech32_polymod(hrp_values + data + [0] * 6) ^ const
    return (
        hrp + "1" + "".join(BECH32[d] for d in data + [mod >> 5 * (5 - i) & 31 for i in range(6)])
    )


def wrong_digit(value: str, index: int = -1) -> str:
    """``value`` with the digit at ``index`` (a digit) replaced by another."""
    chars = list(value)
    positions = [i for i, c in enumerate(chars) if c.isdigit()]
    at = positions[index]
    chars[at] = str((int(chars[at]) + rng.randint(1, 9)) % 10)
    return "".join(chars)


# ----------------------------------------------------------------------------- values

Value = Callable[[], str]


def fresh(make: Callable[[], str | None]) -> str:
    """A value of ``make`` that is not also a card number by the corpus's convention."""
    while True:
        value = make()
        if value is not None and not looks_like_a_card(value):
            return value


def tfn() -> str:
    return fresh(lambda: with_check(digits(8, "123456789"), tfn_check))


def abn() -> str:
    return fresh(lambda: abn_of(digits(9)))


def acn() -> str:
    return fresh(lambda: with_check(digits(8, "0123456"), acn_check))


def medicare() -> str:
    return fresh(lambda: (b := digits(8, "23456")) + medicare_check(b) + rng.choice("123456789"))


def aadhaar() -> str:
    return fresh(lambda: with_check(digits(11, "23456789"), verhoeff_check))


def rrn() -> str:
    def make() -> str:
        year = rng.randint(0, 99)
        century = 1900 if year > 25 else rng.choice((1900, 2000))
        sex = rng.choice("12" if century == 1900 else "34")
        month, day = rng.randint(1, 12), rng.randint(1, 28)
        body = f"{year:02d}{month:02d}{day:02d}{sex}{digits(5)}"
        return body + rrn_check(body)

    return fresh(make)


def tnin() -> str:
    return fresh(lambda: with_check(digits(12, "12345678"), tnin_check))


def tckn() -> str:
    return fresh(lambda: tckn_of(digits(9, "123456789")))


def sin() -> str:
    return fresh(lambda: with_check(digits(8, "1234567"), luhn_check))


def nin() -> str:
    return fresh(lambda: with_check(digits(10, "123456789"), verhoeff_check))


def ph_tin() -> str:
    return fresh(lambda: with_check(digits(8, "123456789"), ph_tin_check))


def aba() -> str:
    symbols = [f"{n:02d}" for n in (*range(1, 13), *range(21, 33), *range(61, 73))]
    return fresh(lambda: with_check(rng.choice(symbols) + digits(6), aba_check))


def pan() -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    first = "".join(rng.choice(letters) for _ in range(3))
    return f"{first}{rng.choice('PPPPCFHT')}{rng.choice(letters)}{digits(4)}{rng.choice(letters)}"


def gstin() -> str:
    body = f"{rng.randint(1, 37):02d}{pan()}{rng.choice('123456789')}Z"
    return body + gstin_check(body)


def nric() -> str:
    prefix, body = rng.choice("SSTTFGM"), digits(7)
    return prefix + body + nric_letter(prefix, body)


def uen() -> str:
    form = rng.choice(("business", "local", "other"))
    if form == "business":
        body = digits(8, "1234589")
    elif form == "local":
        body = f"{rng.randint(1975, 2025)}{digits(5)}"
    else:
        body = f"{rng.choice('TS')}{rng.randint(0, 24):02d}{rng.choice(UEN_TYPES)}{digits(4)}"
    return body + uen_letter(body)


def mac() -> str:
    pairs = [f"{rng.randrange(256):02x}" for _ in range(6)]
    style = rng.choice(("colon", "colon", "hyphen", "cisco", "upper"))
    if style == "cisco":
        joined = "".join(pairs)
        return ".".join((joined[:4], joined[4:8], joined[8:]))
    if style == "hyphen":
        return "-".join(pairs).upper()
    text = ":".join(pairs)
    return text.upper() if style == "upper" else text


def btc() -> str:
    kind = rng.choice(("p2pkh", "p2sh", "p2wpkh", "p2wsh", "taproot"))
    if kind == "p2pkh":
        return base58check(0, rng.randbytes(20))
    if kind == "p2sh":
        return base58check(5, rng.randbytes(20))
    if kind == "p2wpkh":
        return segwit(0, rng.randbytes(20))
    if kind == "p2wsh":
        return segwit(0, rng.randbytes(32))
    return segwit(1, rng.randbytes(32))


def groups(value: str, sizes: tuple[int, ...], sep: str = " ") -> str:
    parts, at = [], 0
    for size in sizes:
        parts.append(value[at : at + size])
        at += size
    return sep.join(parts)


# ----------------------------------------------------------------------------- cases

CASES: list[dict[str, Any]] = []
COUNTER: dict[str, int] = {}


def add(prefix: str, context: str, language: str, marked: str) -> None:
    expect, text, at = [], "", 0
    for match in MARK.finditer(marked):
        text += marked[at : match.start()] + match[2]
        at = match.end()
        expect.append({"entity": match[1], "text": match[2]})
    text += marked[at:]
    for item in expect:
        count = text.count(item["text"])
        if count > 1:
            # which occurrence: the one at the marked position
            before = MARK.sub(
                lambda m: m[2], marked[: marked.index(f"⟦{item['entity']}:{item['text']}⟧")]
            )
            item["occurrence"] = text[: len(before)].count(item["text"]) + 1
    COUNTER[prefix] = COUNTER.get(prefix, 0) + 1
    CASES.append(
        {
            "id": f"{prefix}-{COUNTER[prefix]:03d}",
            "context": context,
            "language": language,
            "text": text,
            "expect": expect,
        }
    )


Template = tuple[str, str, str]  # context, language, text with {v} (the marked value)


def cycle(
    prefix: str,
    kind: str,
    templates: list[Template],
    forms: list[Value],
    bad: list[Value],
    spans: int = 32,
) -> None:
    """Cases cycling through the templates (each ``{v}`` a fresh value, in the forms given in
    turn) until ``spans`` values are labelled; then, for half as many cases, the same templates
    with values that fail the check or the shape (``bad``): near misses in the same settings."""
    labelled, cases, form = 0, 0, 0
    while labelled < spans:
        context, language, template = templates[cases % len(templates)]
        marked = template
        while "{v}" in marked:
            value = forms[form % len(forms)]()
            form += 1
            marked = marked.replace("{v}", f"⟦{kind}:{value}⟧", 1)
            labelled += 1
        while "{p}" in marked:  # only the printed form (forms[0]) where no label names it
            marked = marked.replace("{p}", f"⟦{kind}:{forms[0]()}⟧", 1)
            labelled += 1
        add(prefix, context, language, marked)
        cases += 1
    for index in range((cases + 1) // 2):
        context, language, template = templates[(index * 3 + 1) % len(templates)]
        text = template
        text = text.replace("{p}", "{v}")
        while "{v}" in text:
            value = bad[index % len(bad)]()
            while looks_like_a_card(value):
                value = bad[index % len(bad)]()
            text = text.replace("{v}", value, 1)
        add(prefix, context, language, text)


def near(prefix: str, items: list[tuple[str, str, str]]) -> None:
    for context, language, text in items:
        add(prefix, context, language, text)


def build_tfn() -> None:
    cycle(
        "au-tfn",
        "au_tfn",
        [
            ("prose", "en", "Please quote your TFN {v} on the form."),
            ("form", "en", "Tax file number: {v}"),
            ("email-body", "en", "Hi Sam,\nmy tax file number is {v} - can you lodge it?\nThanks"),
            ("json", "en", '{"employee": "E-1042", "tfn": "{v}"}'),
            ("chat", "en", "new starter form done, TFN {v}"),
            ("csv", "en", "id,name,tfn\n311,J. Nguyen,{p}"),
            ("table", "en", "| Employee | TFN |\n|---|---|\n| Lee | {p} |"),
            ("prose", "zh", "请提供您的税号（TFN）{v}以便报税。"),
            ("log", "en", "payroll: super fund rollover for TFN={v} accepted"),
        ],
        [lambda: groups(tfn(), (3, 3, 3)), tfn, lambda: groups(tfn(), (3, 3, 3), "-")],
        [
            lambda: groups(wrong_digit(tfn()), (3, 3, 3)),
            lambda: wrong_digit(tfn()),
            lambda: tfn()[:8],
        ],
    )
    near(
        "au-tfn",
        [
            ("prose", "en", f"Order {tfn()} was shipped on Monday."),
            ("log", "en", f"job_id={tfn()} status=done"),
            ("form", "en", f"TFN: {wrong_digit(tfn())}"),
            ("prose", "en", f"My tax file number is {groups(wrong_digit(tfn()), (3, 3, 3))}."),
            ("json", "en", f'{{"tfn": "{tfn()}7"}}'),
            ("form", "en", f"TFN {tfn()[:8]}"),
            ("chat", "en", f"TFN is TFN{tfn()}x"),
            ("csv", "en", f"sku,qty\n{tfn()},3"),
            ("prose", "en", f"Invoice total 1{tfn()} cents"),
        ],
    )


def build_abn() -> None:
    cycle(
        "au-abn",
        "au_abn",
        [
            ("prose", "en", "Acme Pty Ltd (ABN {v}) supplies the parts."),
            ("html", "en", "<footer>ABN: {v} &middot; Sydney NSW</footer>"),
            ("email-body", "en", "Tax invoice\nSupplier ABN {v}\nAmount due: $1,240.00"),
            ("json", "en", '{"supplier": {"abn": "{v}", "gst": true}}'),
            ("prose", "en", "Registered business number {v}, GST registered."),
            ("csv", "en", "supplier,abn\nBlue Gum Cafe,{v}"),
            ("prose", "de", "Die australische Firma mit der ABN {v} liefert morgen."),
            ("config", "en", "billing:\n  abn: {v}"),
        ],
        [lambda: groups(abn(), (2, 3, 3, 3)), abn],
        [
            lambda: groups(wrong_digit(abn()), (2, 3, 3, 3)),
            lambda: wrong_digit(abn()),
            lambda: abn() + "0",
        ],
    )
    near(
        "au-abn",
        [
            ("prose", "en", f"ABN {wrong_digit(abn())} is not registered."),
            ("prose", "en", f"ABN: {groups(wrong_digit(abn(), 3), (2, 3, 3, 3))}"),
            ("json", "en", f'{{"abn": "{abn()[:10]}"}}'),
            ("form", "en", f"ABN {abn()}4"),
            ("log", "en", f"ref=A{abn()} ok"),
            ("prose", "en", "ABN 01 234 567 890 is a sample with a leading zero."),
            ("prose", "en", f"Call batch {wrong_digit(abn())} again."),
        ],
    )


def build_acn() -> None:
    cycle(
        "au-acn",
        "au_acn",
        [
            ("prose", "en", "Widget Holdings Pty Ltd ACN {v} is the trustee."),
            ("html", "en", "<p>ACN: {v}</p>"),
            ("email-body", "en", "Company: Harbour Freight Pty Ltd\nACN {v}\nRegistered in NSW"),
            ("json", "en", '{"company": "Koala Labs", "acn": "{v}"}'),
            ("prose", "en", "Australian Company Number {v} was deregistered in 2019."),
            ("csv", "en", "name,acn\nSouthern Cross Mining,{p}"),
            ("prose", "en", "Directors of company {p} met on Friday."),
            ("prose", "fr", "La société australienne (ACN {v}) a été radiée."),
        ],
        [lambda: groups(acn(), (3, 3, 3)), acn],
        [lambda: groups(wrong_digit(acn()), (3, 3, 3)), lambda: wrong_digit(acn())],
    )
    near(
        "au-acn",
        [
            ("prose", "en", f"ACN {wrong_digit(acn())} does not exist."),
            ("json", "en", f'{{"acn": "{groups(wrong_digit(acn()), (3, 3, 3))}"}}'),
            ("prose", "en", f"Ticket {acn()} was closed."),
            ("form", "en", f"ACN {acn()}1"),
            ("form", "en", f"ACN {acn()[:8]}"),
            ("log", "en", f"batch={acn()} rows=14"),
            ("csv", "en", f"order,qty\n{acn()},2"),
        ],
    )


def build_medicare() -> None:
    cycle(
        "au-medicare",
        "au_medicare",
        [
            ("form", "en", "Medicare number: {v}"),
            ("prose", "en", "Please bring your Medicare card ({v}) to the appointment."),
            ("email-body", "en", "Patient: R. Taylor\nMedicare {v}\nReferral attached"),
            ("json", "en", '{"patient": {"medicare_number": "{v}", "irn": 1}}'),
            ("chat", "en", "medicare card no {v} exp 03/27"),
            ("table", "en", "| Patient | Medicare |\n|---|---|\n| Ng | {p} |"),
            ("prose", "en", "Card {p} was scanned at reception."),
        ],
        [lambda: groups(medicare(), (4, 5, 1)), medicare],
        [lambda: groups(wrong_digit(medicare(), 8), (4, 5, 1)), lambda: wrong_digit(medicare(), 8)],
    )
    near(
        "au-medicare",
        [
            ("form", "en", f"Medicare number: {wrong_digit(medicare(), 8)}"),
            ("prose", "en", f"Medicare card {groups(wrong_digit(medicare(), 8), (4, 5, 1))}"),
            ("prose", "en", f"Account {medicare()} was charged twice."),
            ("form", "en", "Medicare 7123 45670 1"),
            ("json", "en", f'{{"medicare": "{medicare()}99"}}'),
            ("log", "en", f"trace={medicare()} latency=12ms"),
            ("prose", "en", f"Medicare {medicare()[:9]}"),
        ],
    )


def build_aadhaar() -> None:
    cycle(
        "in-aadhaar",
        "in_aadhaar",
        [
            ("form", "en", "Aadhaar No.: {v}"),
            ("prose", "hi", "मेरा आधार नंबर {v} है।"),
            ("prose", "en", "KYC done with UID {v} and a selfie."),
            ("json", "en", '{"kyc": {"aadhaar": "{v}", "verified": true}}'),
            ("chat", "en", "sir my aadhar is {v} pls update"),
            ("email-body", "en", "Dear Customer,\nWe received Aadhaar {v} for e-KYC.\nRegards"),
            ("csv", "en", "name,aadhaar\nPriya S,{v}"),
            ("prose", "en", "The card printed {v} under the photo."),
        ],
        [lambda: groups(aadhaar(), (4, 4, 4)), aadhaar, lambda: groups(aadhaar(), (4, 4, 4), "-")],
        [lambda: groups(wrong_digit(aadhaar()), (4, 4, 4)), lambda: wrong_digit(aadhaar())],
    )
    near(
        "in-aadhaar",
        [
            ("form", "en", f"Aadhaar No.: {groups(wrong_digit(aadhaar()), (4, 4, 4))}"),
            ("prose", "hi", f"आधार {wrong_digit(aadhaar())}"),
            ("form", "en", f"Aadhaar {with_check(digits(11, '1'), verhoeff_check)}"),
            ("json", "en", f'{{"aadhaar": "{aadhaar()}5"}}'),
            ("form", "en", f"Aadhaar {aadhaar()[:11]}"),
            ("log", "en", f"uid={wrong_digit(aadhaar())} rejected"),
            ("prose", "en", f"Aadhaar {groups(aadhaar(), (3, 5, 4))} was mistyped."),
            ("prose", "en", f"virtual ID {groups(digits(16, '23456789'), (4, 4, 4, 4))}"),
        ],
    )


def build_pan() -> None:
    cycle(
        "in-pan",
        "in_pan",
        [
            ("form", "en", "PAN: {v}"),
            ("prose", "en", "Please link PAN {v} with your Aadhaar before March."),
            ("json", "en", '{"pan": "{v}", "name": "R KUMAR"}'),
            ("prose", "hi", "मेरा पैन {v} है"),
            ("email-body", "en", "TDS certificate issued to {v} for FY 2024-25."),
            ("csv", "en", "deductee,pan\nKumar Traders,{v}"),
            ("chat", "en", "pan card no {v}"),
        ],
        [pan],
        [lambda: pan()[:3] + "X" + pan()[4:], lambda: pan()[:9] + digits(1), lambda: pan()[:9]],
    )
    near(
        "in-pan",
        [
            ("form", "en", "PAN: ABCXD1234E"),
            ("form", "en", "PAN: ABCPD12345"),
            ("code", "en", "const SAMPLE_ID = 'AbcPd1234E';"),
            ("prose", "en", "Model number BXQDA1234 is discontinued."),
            ("prose", "en", "Ref KLMNO12345P is not a PAN."),
            ("log", "en", "ref ZABCPD1234E9 ok"),
        ],
    )


def build_gstin() -> None:
    cycle(
        "in-gstin",
        "in_gstin",
        [
            ("form", "en", "GSTIN: {v}"),
            ("prose", "en", "Bill to Sharma Textiles, GSTIN {v}, Surat."),
            ("json", "en", '{"seller": {"gstin": "{v}"}, "amount": 1180}'),
            ("email-body", "en", "Please update our GST number {v} in your vendor master."),
            ("csv", "en", "party,gstin,state\nMehta & Co,{v},MH"),
            ("prose", "hi", "जीएसटी नंबर {v} दर्ज करें।"),
        ],
        [gstin],
        [lambda: (g := gstin())[:14] + ("A" if g[14] != "A" else "B"), lambda: "45" + gstin()[2:]],
    )
    g = gstin()
    near(
        "in-gstin",
        [
            ("form", "en", f"GSTIN: {g[:14]}{'A' if g[14] != 'A' else 'B'}"),
            ("form", "en", f"GSTIN: 45{g[2:]}"),
            ("form", "en", f"GSTIN: {gstin().lower()}"),
            ("form", "en", f"GSTIN: {gstin()[:14]}"),
            ("prose", "en", f"code X{gstin()}9 invalid"),
            ("prose", "en", "GSTIN format is 22AAAAA0000A1Z5 for the example in the guide."),
        ],
    )


def build_nric() -> None:
    cycle(
        "sg-nric",
        "sg_nric_fin",
        [
            ("form", "en", "NRIC: {v}"),
            ("prose", "en", "Applicant {v} submitted the form on 2 June."),
            ("json", "en", '{"nric": "{v}", "nationality": "SG"}'),
            ("prose", "zh", "身份证号码{v}已核实。"),
            ("chat", "en", "my FIN is {v}"),
            ("csv", "en", "name,uin\nTan Wei Ming,{v}"),
            ("email-body", "en", "Work pass holder FIN {v} starts Monday."),
        ],
        [nric],
        [lambda: (n := nric())[:8] + ("A" if n[8] != "A" else "B"), lambda: "A" + nric()[1:]],
    )
    n = nric()
    near(
        "sg-nric",
        [
            ("form", "en", f"NRIC: {n[:8]}{'A' if n[8] != 'A' else 'B'}"),
            ("form", "en", f"NRIC: A{digits(7)}Z"),
            ("form", "en", f"NRIC: {n[:8]}"),
            ("prose", "en", f"code X{nric()} expired"),
            ("prose", "en", f"NRIC {nric()}7 was rejected"),
            ("prose", "en", f"Part no. {n[0].lower()}{n[1:]}"),
        ],
    )


def build_uen() -> None:
    cycle(
        "sg-uen",
        "sg_uen",
        [
            ("form", "en", "UEN: {v}"),
            ("prose", "en", "The company (UEN {v}) is registered with ACRA."),
            ("json", "en", '{"entity": {"uen": "{v}"}}'),
            ("email-body", "en", "Our Unique Entity Number is {v}; please update the invoice."),
            ("csv", "en", "vendor,uen\nLion City Logistics,{v}"),
            ("prose", "zh", "公司注册号（UEN）{v}。"),
        ],
        [uen],
        [lambda: (u := uen())[:-1] + ("A" if u[-1] != "A" else "B")],
    )
    u = uen()
    near(
        "sg-uen",
        [
            ("form", "en", f"UEN: {u[:-1]}{'A' if u[-1] != 'A' else 'B'}"),
            ("form", "en", f"UEN: T09QQ{digits(4)}A"),
            ("form", "en", f"UEN: {uen().lower()}"),
            ("prose", "en", f"UEN {uen()}7"),
            ("log", "en", f"order={digits(8)}Q shipped"),
        ],
    )


def build_rrn() -> None:
    cycle(
        "kr-rrn",
        "kr_rrn",
        [
            ("form", "ko", "주민등록번호: {v}"),
            ("prose", "ko", "고객님의 주민번호 {v}는 암호화되어 저장됩니다."),
            ("json", "en", '{"rrn": "{v}", "name": "Kim"}'),
            ("prose", "en", "Resident registration number {v} was verified."),
            ("csv", "ko", "이름,주민등록번호\n김민수,{v}"),
            ("chat", "ko", "주민번호 {v} 맞나요?"),
        ],
        [lambda: groups(rrn(), (6, 7), "-"), rrn],
        [lambda: groups(wrong_digit(rrn()), (6, 7), "-"), lambda: wrong_digit(rrn())],
    )
    r = rrn()
    near(
        "kr-rrn",
        [
            ("form", "ko", f"주민등록번호: {groups(wrong_digit(r), (6, 7), '-')}"),
            ("form", "ko", f"주민등록번호: 901301-{digits(7, '12')}"),
            ("form", "en", f"RRN {groups(rrn(), (6, 7), ' ')}"),
            ("prose", "en", f"RRN {groups(rrn(), (6, 7), '-')}5"),
            ("log", "en", f"order {wrong_digit(rrn())} shipped"),
        ],
    )


def build_tnin() -> None:
    cycle(
        "th-tnin",
        "th_tnin",
        [
            ("form", "th", "เลขประจำตัวประชาชน {v}"),
            ("prose", "en", "Thai ID card {v} was scanned at check-in."),
            ("json", "en", '{"citizen_id": "{v}"}'),
            ("prose", "th", "กรุณากรอกเลขบัตรประชาชน {v} ให้ถูกต้อง"),
            ("csv", "en", "name,thai_id\nSomchai,{v}"),
            ("email-body", "en", "Applicant national ID: {v}\nStatus: approved"),
        ],
        [
            lambda: groups(tnin(), (1, 4, 5, 2, 1), "-"),
            tnin,
            lambda: groups(tnin(), (1, 4, 5, 2, 1)),
        ],
        [lambda: groups(wrong_digit(tnin()), (1, 4, 5, 2, 1), "-"), lambda: wrong_digit(tnin())],
    )
    near(
        "th-tnin",
        [
            (
                "form",
                "th",
                f"เลขประจำตัวประชาชน {groups(wrong_digit(tnin()), (1, 4, 5, 2, 1), '-')}",
            ),
            ("form", "en", f"Thai ID {with_check(digits(12, '9'), tnin_check)}"),
            ("form", "en", f"Thai ID {tnin()}1"),
            ("prose", "en", f"Thai ID {groups(tnin(), (4, 4, 5), '-')}"),
            ("log", "en", f"ts={wrong_digit(tnin())} ok"),
        ],
    )


def build_tckn() -> None:
    cycle(
        "tr-id",
        "tr_national_id",
        [
            ("form", "tr", "T.C. Kimlik No: {v}"),
            ("prose", "tr", "Müşterinin TC kimlik numarası {v} olarak kayıtlı."),
            ("json", "en", '{"tckn": "{v}", "ad": "Ayşe"}'),
            ("prose", "en", "Turkish ID number {v} was checked against the registry."),
            ("csv", "tr", "ad,tckn\nMehmet Yılmaz,{v}"),
            ("chat", "tr", "kimlik no {v}"),
            ("prose", "tr", "Başvuru sahibi {v} onaylandı."),
        ],
        [tckn],
        [lambda: wrong_digit(tckn()), lambda: wrong_digit(tckn(), -2)],
    )
    t = tckn()
    near(
        "tr-id",
        [
            ("form", "tr", f"T.C. Kimlik No: {t[:9]}{(int(t[9]) + 3) % 10}{t[10]}"),
            ("form", "tr", f"TCKN {t[:10]}{(int(t[10]) + 5) % 10}"),
            ("form", "tr", f"TCKN {tckn_of('0' + digits(8))}"),
            ("form", "tr", f"TCKN {tckn()}3"),
            ("prose", "en", f"Phone 0{tckn()[:10]} is busy."),
        ],
    )


def build_sin() -> None:
    cycle(
        "ca-sin",
        "ca_sin",
        [
            ("form", "en", "Social Insurance Number: {v}"),
            ("prose", "fr", "Mon numéro d'assurance sociale est {v}."),
            ("json", "en", '{"employee": {"sin": "{v}"}}'),
            ("email-body", "en", "Hi,\nFor payroll, my SIN is {v}.\nThanks, Alex"),
            ("csv", "en", "name,sin\nM. Tremblay,{p}"),
            ("prose", "en", "New hire {p} starts in Toronto."),
            ("form", "fr", "NAS : {v}"),
        ],
        [lambda: groups(sin(), (3, 3, 3)), sin, lambda: groups(sin(), (3, 3, 3), "-")],
        [lambda: groups(wrong_digit(sin()), (3, 3, 3)), lambda: wrong_digit(sin())],
    )
    near(
        "ca-sin",
        [
            ("form", "en", f"SIN: {groups(wrong_digit(sin()), (3, 3, 3))}"),
            ("form", "en", f"SIN: {with_check('0' + digits(7), luhn_check)}"),
            ("form", "en", f"SIN: {with_check('8' + digits(7), luhn_check)}"),
            ("prose", "en", f"Order {sin()} shipped."),
            ("prose", "en", f"SIN {sin()}4"),
            ("log", "en", f"session={sin()} closed"),
            ("prose", "en", "SINGLE room 2, rate 149."),
        ],
    )


def build_nin() -> None:
    cycle(
        "ng-nin",
        "ng_nin",
        [
            ("form", "en", "NIN: {v}"),
            ("prose", "en", "Link your National Identification Number {v} to your SIM."),
            ("json", "en", '{"nin": "{v}", "bvn_linked": true}'),
            ("email-body", "en", "NIMC confirmation\nNIN {v}\nKeep this slip safe."),
            ("chat", "en", "my nin na {v}"),
            ("csv", "en", "name,nin\nAdaeze Okafor,{v}"),
        ],
        [nin],
        [lambda: wrong_digit(nin()), lambda: nin()[:10]],
    )
    near(
        "ng-nin",
        [
            ("form", "en", f"NIN: {wrong_digit(nin())}"),
            ("prose", "en", f"Call 0{digits(10, '789')} for enrolment."),
            ("form", "en", f"NIN {nin()}2"),
            ("form", "en", f"NIN {nin()[:10]}"),
            ("form", "en", f"NIN {groups(nin(), (4, 7))}"),
        ],
    )


def build_ph_tin() -> None:
    cycle(
        "ph-tin",
        "ph_tin",
        [
            ("form", "en", "TIN: {v}"),
            ("prose", "en", "Official receipt issued to TIN {v}."),
            ("json", "en", '{"payee": {"tin": "{v}"}}'),
            ("email-body", "en", "Good day! Our BIR TIN is {v}. Please reflect it on the 2307."),
            ("csv", "en", "supplier,tin\nManila Prints,{p}"),
            ("prose", "en", "Registered taxpayer {p} filed on time."),
        ],
        [
            lambda: groups(ph_tin(), (3, 3, 3), "-") + "-000",
            lambda: groups(ph_tin(), (3, 3, 3), "-"),
            lambda: ph_tin() + "000",
        ],
        [
            lambda: groups(wrong_digit(ph_tin()), (3, 3, 3), "-") + "-000",
            lambda: wrong_digit(ph_tin()),
        ],
    )
    near(
        "ph-tin",
        [
            ("form", "en", f"TIN: {groups(wrong_digit(ph_tin()), (3, 3, 3), '-')}-000"),
            ("prose", "en", f"Order {ph_tin()} was delivered."),
            ("form", "en", f"TIN {ph_tin()}0"),
            ("form", "en", f"TIN {groups(ph_tin(), (3, 3, 3), ' ')}"),
            ("log", "en", f"req={ph_tin()}000 done"),
        ],
    )


def build_aba() -> None:
    cycle(
        "aba",
        "aba_routing",
        [
            ("form", "en", "Routing number: {v}"),
            ("prose", "en", "Wire to ABA {v}, account ending 4471."),
            ("json", "en", '{"bank": {"routing_number": "{v}", "type": "checking"}}'),
            ("email-body", "en", "Direct deposit details\nRTN {v}\nAccount type: savings"),
            ("csv", "en", "bank,aba\nFirst Federal,{p}"),
            ("prose", "es", "El número de ruta ABA {v} corresponde al banco."),
            ("prose", "en", "Deposit slip {p} attached."),
        ],
        [lambda: groups(aba(), (4, 4, 1), "-"), aba, aba],
        [lambda: wrong_digit(aba()), lambda: groups(wrong_digit(aba()), (4, 4, 1), "-")],
    )
    near(
        "aba",
        [
            ("form", "en", f"Routing number: {wrong_digit(aba())}"),
            ("form", "en", f"Routing number: {with_check('42' + digits(6), aba_check)}"),
            ("prose", "en", f"Invoice {aba()} paid."),
            ("form", "en", f"ABA {aba()}7"),
            ("log", "en", f"request_id={aba()} ok"),
        ],
    )


def build_mac() -> None:
    cycle(
        "mac",
        "mac_address",
        [
            ("log", "en", "eth0: link up, HWaddr {v}"),
            ("prose", "en", "The laptop's MAC address is {v}."),
            ("config", "en", "host printer {\n  hardware ethernet {v};\n}"),
            ("json", "en", '{"device": {"mac": "{v}", "vendor": "unknown"}}'),
            ("prose", "de", "Die MAC-Adresse {v} wurde gesperrt."),
            ("log", "en", "DHCPACK to {v} via eth1, lease 3600s"),
            ("table", "en", "| port | mac |\n|---|---|\n| Gi0/1 | {v} |"),
            ("prose", "ja", "MACアドレスは{v}です。"),
        ],
        [mac],
        [
            lambda: ":".join(f"{rng.randrange(256):02x}" for _ in range(5)),
            lambda: "-".join(f"{rng.randrange(256):02x}" for _ in range(4)) + ":aa:bb",
        ],
    )
    near(
        "mac",
        [
            ("log", "en", "fingerprint 3a:4b:5c:6d:7e:8f:90:a1:b2"),
            ("log", "en", "route via ⟦ip_address:2001:db8:0:12:34:56:78:9a⟧ dev eth0"),
            ("prose", "en", "MAC 00:1A:2B:3C:4D"),
            ("prose", "en", "MAC 00:1a-2b:3c-4d:5e"),
            ("log", "en", f"object id {rng.randbytes(6).hex()}"),
            ("prose", "en", "Meeting at 10:30:45 in room 12."),
        ],
    )


def build_crypto() -> None:
    cycle(
        "btc",
        "crypto",
        [
            ("prose", "en", "Send the refund to {v} please."),
            ("json", "en", '{"wallet": "{v}", "network": "bitcoin"}'),
            ("chat", "en", "btc addr: {v}"),
            ("prose", "es", "Envía los fondos a la dirección {v}."),
            ("email-body", "en", "Payment address:\n{v}\nAmount: 0.015 BTC"),
            ("csv", "en", "user,btc_address\nsatoshi42,{v}"),
            ("prose", "ru", "Переведите на адрес {v} до пятницы."),
        ],
        [btc],
        [
            lambda: (a := btc())[:-1] + ("q" if a[-1] != "q" else "p"),
            lambda: base58check(0x6F, rng.randbytes(20)),
        ],
    )
    good = base58check(0, rng.randbytes(20))
    near(
        "btc",
        [
            ("prose", "en", f"Send to {good[:-1]}{'2' if good[-1] != '2' else '3'} please."),
            ("prose", "en", f"testnet faucet {base58check(0x6F, rng.randbytes(20))}"),
            ("prose", "en", f"testnet {segwit(0, rng.randbytes(20), 'tb')}"),
            ("prose", "en", f"broken {segwit(0, rng.randbytes(20))[:-1]}q"),
            ("code", "en", f"hash = '{rng.randbytes(32).hex()}'"),
            ("prose", "en", "Addresses start with bc1q or 1 or 3, see the docs."),
        ],
    )


BUILDERS = [
    build_pan,
    build_aadhaar,
    build_gstin,
    build_tfn,
    build_abn,
    build_acn,
    build_medicare,
    build_nric,
    build_uen,
    build_rrn,
    build_tnin,
    build_tckn,
    build_sin,
    build_nin,
    build_ph_tin,
    build_aba,
    build_mac,
    build_crypto,
]


if __name__ == "__main__":
    for build in BUILDERS:
        build()
    OUT.write_text(
        yaml.safe_dump(CASES, allow_unicode=True, sort_keys=False, width=100), encoding="utf-8"
    )
    spans = sum(len(c["expect"]) for c in CASES)
    misses = sum(1 for c in CASES if not c["expect"])
    print(f"ids_world          cases={len(CASES):4} spans={spans:4} near-miss cases={misses}")
