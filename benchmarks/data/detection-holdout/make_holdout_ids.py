"""Writes the held-out corpus for the country identifiers, MAC addresses and Bitcoin addresses
(issue 20 part 1): one YAML file per market group beside this script.

    python benchmarks/data/detection-holdout/make_holdout_ids.py

Written blind, from each issuing authority's public definition of the identifier (format, check
digit, allocation rules), without reading govcore's detectors, their tests or the development
corpus. Texts are hand-written below with inline marks: ``lab(kind, value)`` wraps a value in
``⟦kind|value⟧``, and ``Book.add`` strips the marks into the case's ``expect`` list (working out
``occurrence`` when the value repeats). Values come from one seeded generator that computes their
check digits, so running the script again writes the same files. See README.md here.
"""

from __future__ import annotations

import hashlib
import random
import re
import string
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
rng = random.Random(20_2611_27)

DIGITS = string.digits
UPPER = string.ascii_uppercase
HEXU = "0123456789ABCDEF"

# --- inline marks and books --------------------------------------------------------------------

MARK = re.compile(r"⟦([a-z_]+)\|(.*?)⟧", re.S)


def lab(kind: str, value: str) -> str:
    """`value` marked as an expected span of `kind`."""
    return f"⟦{kind}|{value}⟧"


class Book:
    """One YAML file of cases; ids are the file's prefix and a running number."""

    def __init__(self, name: str, prefix: str) -> None:
        self.name = name
        self.prefix = prefix
        self.cases: list[dict[str, Any]] = []
        self.near_misses: dict[str, int] = {}  # near-miss cases per kind, for the summary

    def add(self, context: str, language: str, marked: str) -> None:
        case_id = f"{self.prefix}-{len(self.cases) + 1:03d}"
        text, spans = "", []
        at = 0
        for match in MARK.finditer(marked):
            text += marked[at : match.start()]
            spans.append((match[1], match[2], len(text)))
            text += match[2]
            at = match.end()
        text += marked[at:]
        if "⟦" in text or "⟧" in text:
            raise ValueError(f"{case_id}: unbalanced mark")
        expect = []
        for kind, value, start in spans:
            starts = [i for i in range(len(text)) if text.startswith(value, i)]
            item: dict[str, Any] = {"entity": kind, "text": value}
            if len(starts) > 1:
                item["occurrence"] = starts.index(start) + 1
            expect.append(item)
        self.cases.append(
            {"id": case_id, "context": context, "language": language, "text": text,
             "expect": expect}
        )  # fmt: skip


Template = tuple[str, str, Callable[[], str]]  # context, language, marked text
NearMiss = tuple[str, str, str, Callable[[], str]]  # the kind it is a near miss of, then as above


def run(book: Book, templates: list[Template], times: int = 1) -> None:
    """Each template `times` times, each time with fresh values."""
    for _ in range(times):
        for context, language, make in templates:
            book.add(context, language, make())


def pick(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def digits(n: int, first: str = "123456789") -> str:
    return rng.choice(first) + pick(DIGITS, n - 1)


def birth_date(low: int = 1940, high: int = 2005) -> date:
    start = date(low, 1, 1)
    return start + timedelta(days=rng.randrange((date(high, 12, 31) - start).days))


def wrong_last(value: str, alphabet: str = DIGITS) -> str:
    """`value` with its last character (the check character) replaced by another one."""
    return value[:-1] + rng.choice([c for c in alphabet if c != value[-1]])


# --- check digits ------------------------------------------------------------------------------


def luhn_digit(partial: str) -> str:
    total = 0
    for position, char in enumerate(reversed(partial)):
        value = int(char) * (2 if position % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return str((10 - total % 10) % 10)


def luhn_ok(number: str) -> bool:
    return luhn_digit(number[:-1]) == number[-1]


def weighted(number: str, weights: list[int]) -> int:
    return sum(int(d) * w for d, w in zip(number, weights, strict=False))


VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]  # fmt: skip
VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]  # fmt: skip
VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_ok(number: str) -> bool:
    check = 0
    for i, char in enumerate(reversed(number)):
        check = VERHOEFF_D[check][VERHOEFF_P[i % 8][int(char)]]
    return check == 0


def verhoeff_digit(partial: str) -> str:
    check = 0
    for i, char in enumerate(reversed(partial)):
        check = VERHOEFF_D[check][VERHOEFF_P[(i + 1) % 8][int(char)]]
    return str(VERHOEFF_INV[check])


def icao_digit(chars: str) -> str:
    """ICAO 9303 check digit (weights 7, 3, 1; A=10 ... Z=35)."""
    return str(sum(int(c, 36) * (7, 3, 1)[i % 3] for i, c in enumerate(chars)) % 10)


def is_card(number: str) -> bool:
    """Luhn-valid with a card issuer's prefix and length (the corpus conventions' test)."""
    n = len(number)

    def within(low: int, high: int) -> bool:
        return low <= int(number[: len(str(low))]) <= high

    rules = [
        (within(4, 4), {13, 16, 19}), (within(51, 55) or within(2221, 2720), {16}),
        (within(34, 34) or within(37, 37), {15}),
        (within(6011, 6011) or within(644, 649) or within(65, 65), set(range(16, 20))),
        (within(3528, 3589), set(range(16, 20))),
        (within(36, 36) or within(300, 305) or within(38, 39), set(range(14, 20))),
        (within(62, 62), set(range(16, 20))), (within(50, 50) or within(56, 69), set(range(12, 20))),
    ]  # fmt: skip
    return luhn_ok(number) and any(ok and n in lengths for ok, lengths in rules)


# --- United Kingdom ----------------------------------------------------------------------------

NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"  # HMRC: never D, F, I, Q, U or V first
NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"  # nor O second
NINO_UNUSED = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}  # never allocated
NINO_ADMIN = {"CR", "FY", "MW", "NC", "PP", "PY", "PZ"}  # administrative, not given to people


def nino(style: str = "compact") -> str:
    prefix = "GB"
    while prefix in NINO_UNUSED | NINO_ADMIN:
        prefix = rng.choice(NINO_FIRST) + rng.choice(NINO_SECOND)
    number, suffix = pick(DIGITS, 6), rng.choice("ABCD")
    if style == "spaced":
        return f"{prefix} {number[:2]} {number[2:4]} {number[4:]} {suffix}"
    return prefix + number + suffix


def bad_nino() -> str:
    """A NINO shape with a prefix or suffix HMRC never allocates."""
    kind = rng.choice(["first", "second", "unused", "suffix"])
    number = pick(DIGITS, 6)
    if kind == "first":
        return rng.choice("DFIQUV") + rng.choice(NINO_SECOND) + number + rng.choice("ABCD")
    if kind == "second":
        return rng.choice(NINO_FIRST) + rng.choice("DFIOQUV") + number + rng.choice("ABCD")
    if kind == "unused":
        return rng.choice(sorted(NINO_UNUSED)) + number + rng.choice("ABCD")
    return nino()[:8] + rng.choice("EFGHJKMPXZ")


def nhs_digits() -> str:
    while True:
        low, high = rng.choice([(400_000_000, 499_999_999), (600_000_000, 799_999_999)])
        body = str(rng.randint(low, high))
        check = 11 - weighted(body, [10, 9, 8, 7, 6, 5, 4, 3, 2]) % 11
        if check == 10:
            continue
        return body + str(0 if check == 11 else check)


def nhs_ok(number: str) -> bool:
    check = 11 - weighted(number, [10, 9, 8, 7, 6, 5, 4, 3, 2]) % 11
    return check != 10 and str(0 if check == 11 else check) == number[9]


def nhs(sep: str = " ", number: str | None = None) -> str:
    n = number or nhs_digits()
    return f"{n[:3]}{sep}{n[3:6]}{sep}{n[6:]}"


def bad_nhs(sep: str = " ") -> str:
    while True:
        number = wrong_last(nhs_digits())
        if not nhs_ok(number):
            return nhs(sep, number)


def uk_passport() -> str:
    return digits(9, "12345")


def uk_licence(surname: str, born: date, female: bool, initials: str) -> str:
    """DVLA driver number: surname (5, padded with 9), decade, month (+50 for women), day, year
    digit, two initials (padded with 9), an arbitrary digit and two check letters."""
    name = (surname.upper().replace(" ", "").replace("'", "") + "99999")[:5]
    month = born.month + (50 if female else 0)
    year = f"{born.year % 100:02d}"
    inits = (initials.upper() + "99")[:2]
    return f"{name}{year[0]}{month:02d}{born.day:02d}{year[1]}{inits}9{pick(UPPER, 2)}"


# --- Europe ------------------------------------------------------------------------------------

DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def es_nif(style: str = "compact") -> str:
    number = pick(DIGITS, 8)
    letter = DNI_LETTERS[int(number) % 23]
    if style == "dash":
        return f"{number}-{letter}"
    if style == "dots":
        return f"{number[:2]}.{number[2:5]}.{number[5:]}-{letter}"
    return number + letter


def bad_nif() -> str:
    number = pick(DIGITS, 8)
    return number + rng.choice([c for c in DNI_LETTERS if c != DNI_LETTERS[int(number) % 23]])


def es_nie(style: str = "compact") -> str:
    prefix, number = rng.choice("XYZ"), pick(DIGITS, 7)
    letter = DNI_LETTERS[int(str("XYZ".index(prefix)) + number) % 23]
    if style == "dash":
        return f"{prefix}-{number}-{letter}"
    return prefix + number + letter


def bad_nie() -> str:
    value = es_nie()
    return wrong_last(value, DNI_LETTERS)


CF_ODD = dict(zip(DIGITS + UPPER, [1, 0, 5, 7, 9, 13, 15, 17, 19, 21] * 1 + [
    1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23
], strict=True))  # fmt: skip
CF_EVEN = {**{d: int(d) for d in DIGITS}, **{c: i for i, c in enumerate(UPPER)}}
CF_MONTHS = "ABCDEHLMPRST"
COMUNI = ["H501", "F205", "L219", "F839", "G273", "A944", "D612", "C351", "L736", "A662",
          "E506", "B157", "L424", "Z404", "Z112"]  # fmt: skip


def cf_check(first15: str) -> str:
    total = sum((CF_ODD if i % 2 == 0 else CF_EVEN)[c] for i, c in enumerate(first15))
    return UPPER[total % 26]


def _letters(word: str) -> tuple[str, str]:
    word = "".join(c for c in word.upper() if c.isalpha())
    consonants = "".join(c for c in word if c not in "AEIOU")
    return consonants, "".join(c for c in word if c in "AEIOU")


def fiscal_code(surname: str, name: str, born: date, female: bool) -> str:
    """Codice fiscale (DM 23/12/1976): surname and name letters, year, month letter, day (+40
    for women), municipality code, check letter."""
    cons, vows = _letters(surname)
    part1 = (cons + vows + "XXX")[:3]
    cons, vows = _letters(name)
    part2 = cons[0] + cons[2] + cons[3] if len(cons) >= 4 else (cons + vows + "XXX")[:3]
    day = born.day + (40 if female else 0)
    body = f"{part1}{part2}{born.year % 100:02d}{CF_MONTHS[born.month - 1]}{day:02d}"
    body += rng.choice(COMUNI)
    return body + cf_check(body)


def it_vat(prefixed: bool = False) -> str:
    """Partita IVA: 7-digit number, 3-digit provincial office code, Luhn check digit."""
    body = pick(DIGITS, 7) + f"{rng.randint(1, 100):03d}"
    value = body + luhn_digit(body)
    return "IT" + value if prefixed else value


def bad_it_vat() -> str:
    return wrong_last(it_vat())


def pesel_of(born: date, female: bool) -> str:
    offset = {18: 80, 19: 0, 20: 20}[born.year // 100]
    serial = pick(DIGITS, 3) + rng.choice("02468" if female else "13579")
    body = f"{born.year % 100:02d}{born.month + offset:02d}{born.day:02d}{serial}"
    check = (10 - weighted(body, [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]) % 10) % 10
    return body + str(check)


def pesel() -> str:
    return pesel_of(birth_date(1940, 2012), rng.random() < 0.5)


def bad_pesel() -> str:
    return wrong_last(pesel())


HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def hetu(born: date | None = None, new_sign: bool = False) -> str:
    """Finnish henkilötunnus: DDMMYY, century sign, individual number 002-899, check character."""
    born = born or birth_date(1935, 2010)
    signs = {1800: "+", 1900: "-", 2000: "A"}
    if new_sign:
        signs = {1800: "+", 1900: rng.choice("YXWVU"), 2000: rng.choice("BCDEF")}
    ddmmyy = born.strftime("%d%m") + f"{born.year % 100:02d}"
    individual = f"{rng.randint(2, 899):03d}"
    check = HETU_CHECK[int(ddmmyy + individual) % 31]
    return f"{ddmmyy}{signs[born.year // 100 * 100]}{individual}{check}"


def bad_hetu() -> str:
    return wrong_last(hetu(), HETU_CHECK)


def personnummer(style: str = "short") -> str:
    """Swedish personnummer: date of birth, three-digit birth number, Luhn digit over ten."""
    born = birth_date(1935, 2010)
    birth_number = pick(DIGITS, 3)
    ten = born.strftime("%y%m%d") + birth_number
    ten += luhn_digit(ten)
    if style == "long":
        return f"{born.year}{ten[2:6]}-{ten[6:]}"
    if style == "long_compact":
        return f"{born.year}{ten[2:]}"
    return f"{ten[:6]}-{ten[6:]}"


def bad_personnummer() -> str:
    value = personnummer()
    while luhn_ok(value.replace("-", "")):
        value = wrong_last(value)
    return value


def de_tax_digit(first10: str) -> str:
    """ISO 7064 MOD 11,10 as the Steuer-IdNr uses it."""
    product = 10
    for char in first10:
        total = (int(char) + product) % 10 or 10
        product = total * 2 % 11
    check = 11 - product
    return "0" if check == 10 else str(check)


def de_tax_id(style: str = "compact") -> str:
    """Steuerliche Identifikationsnummer: 10 digits, first not 0, one digit twice (or three times,
    never three in a row), the check digit."""
    while True:
        chosen = rng.sample(DIGITS, 9)
        body = [*chosen, rng.choice(chosen)]
        if rng.random() < 0.2:
            chosen = rng.sample(DIGITS, 8)
            body = [*chosen, chosen[0], chosen[0]]
        rng.shuffle(body)
        first10 = "".join(body)
        if first10[0] == "0" or re.search(r"(\d)\1\1", first10):
            continue
        value = first10 + de_tax_digit(first10)
        if style == "spaced":
            return f"{value[:2]} {value[2:5]} {value[5:8]} {value[8:]}"
        return value


def bad_de_tax_id() -> str:
    value = de_tax_id()
    return wrong_last(value)


RV_AREAS = ["02", "03", "04", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18",
            "19", "20", "21", "23", "24", "25", "26", "28", "29", "38", "39", "40", "42", "43",
            "44", "45", "48", "49", "50", "52", "53", "55", "56", "58", "59", "60", "61", "63",
            "64", "65", "66", "68", "70", "72", "73", "74", "78", "79", "80", "81", "82", "89"]  # fmt: skip


def sv_check(first11: str) -> str:
    """Versicherungsnummer check digit: the letter as its two-digit alphabet position, weights
    2,1,2,5,7,1,2,1,2,1,2,1, digit sums of the products, modulo 10."""
    expanded = first11[:8] + f"{UPPER.index(first11[8]) + 1:02d}" + first11[9:]
    return str(sum(sum(map(int, str(int(d) * w))) for d, w in
                   zip(expanded, [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1], strict=True)) % 10)  # fmt: skip


def de_social(surname: str, female: bool, style: str = "spaced") -> str:
    born = birth_date(1945, 2004)
    serial = f"{rng.randint(50, 99) if female else rng.randint(0, 49):02d}"
    area = rng.choice(RV_AREAS)
    first11 = f"{area}{born.strftime('%d%m%y')}{surname[0].upper()}{serial}"
    value = first11 + sv_check(first11)
    if style == "spaced":
        return f"{value[:2]} {value[2:8]} {value[8]} {value[9:]}"
    return value


ID_CARD_CHARS = "0123456789CFGHJKLMNPRTVWXYZ"


def de_id_card(with_check: bool = False) -> str:
    """Personalausweis (since November 2010): nine characters from digits and the consonants
    C F G H J K L M N P R T V W X Y Z, first a letter; the MRZ adds an ICAO check digit."""
    value = rng.choice("LMNPRTVWXY") + pick(ID_CARD_CHARS, 8)
    return value + icao_digit(value) if with_check else value


def tr_id() -> str:
    """T.C. Kimlik No: nine digits (first not 0), then two check digits."""
    d = [int(c) for c in digits(9)]
    tenth = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    eleventh = (sum(d) + tenth) % 10
    return "".join(map(str, d)) + f"{tenth}{eleventh}"


def bad_tr_id() -> str:
    return wrong_last(tr_id())


# --- Asia-Pacific ------------------------------------------------------------------------------


def pan(holder: str = "P", surname: str | None = None) -> str:
    """Indian PAN: three letters, the holder type (P person, C company, H HUF, F firm, T trust
    ...), the first letter of the surname or name, four digits, a check letter."""
    fifth = surname[0].upper() if surname else rng.choice(UPPER)
    return pick(UPPER, 3) + holder + fifth + pick(DIGITS, 4) + rng.choice(UPPER)


def aadhaar(style: str = "spaced") -> str:
    """UIDAI: 12 digits, first 2-9, last a Verhoeff check digit."""
    body = digits(11, "23456789")
    value = body + verhoeff_digit(body)
    if style == "spaced":
        return f"{value[:4]} {value[4:8]} {value[8:]}"
    if style == "dash":
        return f"{value[:4]}-{value[4:8]}-{value[8:]}"
    return value


def bad_aadhaar() -> str:
    while True:
        value = wrong_last(aadhaar("compact"))
        if not verhoeff_ok(value) and not is_card(value):
            return f"{value[:4]} {value[4:8]} {value[8:]}"


GST_STATES = ["27", "29", "07", "33", "24", "09", "19", "36", "32", "06", "08", "23", "03", "21"]
BASE36 = DIGITS + UPPER


def gstin_check(first14: str) -> str:
    total = 0
    for i, char in enumerate(first14):
        product = BASE36.index(char) * (2 if i % 2 else 1)
        total += product // 36 + product % 36
    return BASE36[(36 - total % 36) % 36]


def gstin(pan_value: str | None = None) -> str:
    """GSTIN: state code, the holder's PAN, entity number, 'Z', check character (mod 36)."""
    first14 = (
        rng.choice(GST_STATES)
        + (pan_value or pan(rng.choice("PCFH")))
        + rng.choice("123456789AB")
        + "Z"
    )
    return first14 + gstin_check(first14)


def bad_gstin() -> str:
    return wrong_last(gstin(), BASE36)


def tfn(style: str = "spaced") -> str:
    """ATO tax file number (nine digits): weights 1,4,3,7,5,8,6,9,10, sum % 11 == 0. The older
    eight-digit numbers are left out: published descriptions of their weights disagree."""
    weights = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    while True:
        body = digits(8)
        for last in DIGITS:
            if weighted(body + last, weights) % 11 == 0:
                value = body + last
                return f"{value[:3]} {value[3:6]} {value[6:]}" if style == "spaced" else value


def tfn_ok(value: str) -> bool:
    return weighted(value, [1, 4, 3, 7, 5, 8, 6, 9, 10]) % 11 == 0


def bad_tfn() -> str:
    while True:
        value = wrong_last(tfn(style="compact"))
        if not tfn_ok(value):
            return f"{value[:3]} {value[3:6]} {value[6:]}"


def acn(style: str = "spaced") -> str:
    """ASIC company number: eight digits, check = complement of the weighted sum (8..1) mod 10."""
    body = pick(DIGITS, 8)
    value = body + str((10 - weighted(body, [8, 7, 6, 5, 4, 3, 2, 1]) % 10) % 10)
    return f"{value[:3]} {value[3:6]} {value[6:]}" if style == "spaced" else value


ABN_WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]


def abn_ok(value: str) -> bool:
    d = str(int(value[0]) - 1) + value[1:]
    return value[0] != "0" and weighted(d, ABN_WEIGHTS) % 89 == 0


def abn(style: str = "spaced", body: str | None = None) -> str:
    """ABR business number: two check digits before nine digits (an ACN for a company); subtract
    1 from the first digit, weights 10,1,3,...,19, sum % 89 == 0."""
    while True:
        nine = body or pick(DIGITS, 9)
        for lead in range(10, 100):
            value = f"{lead}{nine}"
            if abn_ok(value):
                return (
                    f"{value[:2]} {value[2:5]} {value[5:8]} {value[8:]}"
                    if style == "spaced"
                    else value
                )
        body = None


def bad_abn() -> str:
    while True:
        value = wrong_last(abn(style="compact"))
        if not abn_ok(value):
            return f"{value[:2]} {value[2:5]} {value[5:8]} {value[8:]}"


def medicare(style: str = "spaced") -> str:
    """Medicare card number: first digit 2-6, check digit (weights 1,3,7,9,1,3,7,9 mod 10) in the
    ninth place, issue number tenth."""
    body = digits(8, "23456")
    value = body + str(weighted(body, [1, 3, 7, 9, 1, 3, 7, 9]) % 10) + rng.choice("123456789")
    return f"{value[:4]} {value[4:9]} {value[9]}" if style == "spaced" else value


def bad_medicare() -> str:
    value = medicare("compact")
    wrong = value[:8] + rng.choice([c for c in DIGITS if c != value[8]]) + value[9]
    return f"{wrong[:4]} {wrong[4:9]} {wrong[9]}"


def nric(prefix: str | None = None) -> str:
    """NRIC/FIN: S/T (citizens, born before/after 2000), F/G (foreigners); weights 2,7,6,5,4,3,2,
    +4 for T and G, check letter from the remainder mod 11."""
    prefix = prefix or rng.choice("SSTTFG")
    if prefix == "S":
        number = f"{rng.randint(68, 99)}" + pick(DIGITS, 5)
    elif prefix == "T":
        number = f"{rng.randint(0, 24):02d}" + pick(DIGITS, 5)
    else:
        number = pick(DIGITS, 7)
    remainder = (weighted(number, [2, 7, 6, 5, 4, 3, 2]) + (4 if prefix in "TG" else 0)) % 11
    table = "JZIHGFEDCBA" if prefix in "ST" else "XWUTRQPNMLK"
    return prefix + number + table[remainder]


def bad_nric() -> str:
    return wrong_last(nric(), UPPER)


def uen() -> str:
    """UEN of a local company (ROC): year of registration, five digits, check letter."""
    body = str(rng.randint(1970, 2024)) + pick(DIGITS, 5)
    return body + "ZKCMDNERGWH"[weighted(body, [10, 8, 6, 4, 9, 7, 5, 3, 1]) % 11]


def bad_uen() -> str:
    return wrong_last(uen(), "ZKCMDNERGWH")


def rrn(born: date | None = None, female: bool | None = None) -> str:
    """Korean resident registration number: YYMMDD-S + four-digit place code + serial + check
    (weights 2..9,2..5; (11 - sum % 11) % 10)."""
    born = born or birth_date(1945, 2019)
    female = rng.random() < 0.5 if female is None else female
    sex = (1 if born.year < 2000 else 3) + (1 if female else 0)
    place = f"{rng.randint(0, 95):02d}"  # registration office codes run to 95
    first12 = born.strftime("%y%m%d") + str(sex) + place + pick(DIGITS, 3)
    check = (11 - weighted(first12, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]) % 11) % 10
    return f"{first12[:6]}-{first12[6:]}{check}"


def rrn_after_2020() -> str:
    """Numbers issued since October 2020 keep the sex digit and draw the other six at random."""
    born = birth_date(2021, 2024)
    return born.strftime("%y%m%d") + "-" + rng.choice("34") + pick(DIGITS, 6)


def bad_rrn() -> str:
    while True:
        value = wrong_last(rrn())
        if not is_card(value.replace("-", "")):
            return value


def th_id(style: str = "dashed") -> str:
    """Thai national ID: 13 digits, check = (11 - sum(d_i * (13 - i)) % 11) % 10."""
    body = digits(12, "12345678")
    check = (11 - sum(int(d) * (13 - i) for i, d in enumerate(body)) % 11) % 10
    value = body + str(check)
    if style == "dashed":
        return f"{value[0]}-{value[1:5]}-{value[5:10]}-{value[10:12]}-{value[12]}"
    if style == "spaced":
        return f"{value[0]} {value[1:5]} {value[5:10]} {value[10:12]} {value[12]}"
    return value


def bad_th_id() -> str:
    while True:
        value = wrong_last(th_id("compact"))
        if not is_card(value):
            return f"{value[0]}-{value[1:5]}-{value[5:10]}-{value[10:12]}-{value[12]}"


def ph_tin(branch: bool = True, sep: str = "-") -> str:
    """BIR TIN: nine digits, then a three-digit branch code (000 for individuals)."""
    body = digits(9)
    parts = [body[:3], body[3:6], body[6:]]
    if branch:
        parts.append(rng.choice(["000", "000", "000", "001", "002"]))
    return sep.join(parts)


# --- Americas and Africa -----------------------------------------------------------------------


def sin(style: str = "spaced") -> str:
    """Canadian SIN: nine digits, Luhn; first digit 1-7 by province, 9 for temporary residents."""
    body = digits(8, "12345679")
    value = body + luhn_digit(body)
    if style == "spaced":
        return f"{value[:3]} {value[3:6]} {value[6:]}"
    if style == "dash":
        return f"{value[:3]}-{value[3:6]}-{value[6:]}"
    return value


def bad_sin() -> str:
    value = wrong_last(sin("compact"))
    return f"{value[:3]} {value[3:6]} {value[6:]}"


ABA_PREFIXES = [f"{n:02d}" for n in [*range(1, 13), *range(21, 33), *range(61, 73), 80]]


def aba() -> str:
    """ABA routing transit number: Federal Reserve prefix, then 3-7-1 weights sum to 0 mod 10."""
    first8 = rng.choice(ABA_PREFIXES) + pick(DIGITS, 6)
    check = -weighted(first8, [3, 7, 1, 3, 7, 1, 3, 7]) % 10
    return first8 + str(check)


def aba_ok(value: str) -> bool:
    return weighted(value, [3, 7, 1, 3, 7, 1, 3, 7, 1]) % 10 == 0


def bad_aba() -> str:
    return wrong_last(aba())


def ng_nin() -> str:
    """NIMC national identification number: eleven digits, no public check digit."""
    return digits(11)


# --- global ------------------------------------------------------------------------------------


def mac(style: str = "colon") -> str:
    octets = [rng.randrange(256) for _ in range(6)]
    octets[0] &= 0xFE  # unicast
    hexes = [f"{o:02x}" for o in octets]
    if style == "colon":
        return ":".join(hexes)
    if style == "COLON":
        return ":".join(hexes).upper()
    if style == "dash":
        return "-".join(hexes).upper()
    joined = "".join(hexes)
    return f"{joined[:4]}.{joined[4:8]}.{joined[8:]}"  # Cisco


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    out = ""
    while number:
        number, rest = divmod(number, 58)
        out = B58[rest] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def base58check(version: int, payload: bytes) -> str:
    data = bytes([version]) + payload
    return base58(data + hashlib.sha256(hashlib.sha256(data).digest()).digest()[:4])


BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values: list[int]) -> int:
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            check ^= generator[i] if (top >> i) & 1 else 0
    return check


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def segwit(version: int, program: bytes, hrp: str = "bc") -> str:
    """BIP 173 (Bech32, version 0) and BIP 350 (Bech32m, version 1+) segwit address."""
    acc, bits, data = 0, 0, [version]
    for byte in program:
        acc, bits = acc << 8 | byte, bits + 8
        while bits >= 5:
            bits -= 5
            data.append(acc >> bits & 31)
    if bits:
        data.append(acc << (5 - bits) & 31)
    const = 1 if version == 0 else 0x2BC830A3
    mod = _polymod(_hrp_expand(hrp) + data + [0] * 6) ^ const
    checksum = [(mod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32[d] for d in data + checksum)


def bech32_ok(address: str) -> bool:
    hrp, _, rest = address.lower().rpartition("1")
    values = _hrp_expand(hrp) + [BECH32.index(c) for c in rest]
    return _polymod(values) in (1, 0x2BC830A3)


def bitcoin(kind: str | None = None) -> str:
    kind = kind or rng.choice(["p2pkh", "p2pkh", "p2sh", "p2wpkh", "p2wpkh", "p2wsh", "p2tr"])
    if kind == "p2pkh":
        return base58check(0, rng.randbytes(20))
    if kind == "p2sh":
        return base58check(5, rng.randbytes(20))
    if kind == "p2wpkh":
        return segwit(0, rng.randbytes(20))
    if kind == "p2wsh":
        return segwit(0, rng.randbytes(32))
    return segwit(1, rng.randbytes(32))


def base58_ok(address: str) -> bool:
    number = 0
    for char in address:
        number = number * 58 + B58.index(char)
    raw = number.to_bytes(25, "big")
    return hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()[:4] == raw[21:]


def bad_bitcoin() -> str:
    """An address with one character changed: its checksum no longer holds."""
    while True:
        address = bitcoin()
        at = rng.randrange(len(address) - 8, len(address))
        alphabet = BECH32 if address.startswith("bc1") else B58
        changed = address[:at] + rng.choice([c for c in alphabet if c != address[at]])
        changed += address[at + 1 :]
        ok = bech32_ok(changed) if changed.startswith("bc1") else base58_ok(changed)
        if not ok:
            return changed


def self_test() -> None:
    """The check-digit code agrees with published examples before any value is drawn."""
    assert luhn_ok("046454286")  # the SIN in Service Canada's examples
    assert verhoeff_digit("236") == "3"
    assert cf_check("RSSMRA85T10A562") == "S"
    assert gstin_check("27AAPFU0939F1Z") == "V"
    assert HETU_CHECK[int("131052308") % 31] == "T"
    assert sv_check("10010490A44") == "3"
    assert de_tax_digit("8609574271") == "9"
    assert tfn_ok("123456782")
    assert abn_ok("51824753556")
    assert nhs_ok("9434765919")
    assert aba_ok("021000021")
    assert base58_ok("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")
    assert segwit(0, bytes.fromhex("751e76e8199196d454941c45d1b3a323f1433bd6")) == (
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
    )
    assert icao_digit("L01X00T47") == "1"  # the specimen card's MRZ
    program = bytes.fromhex("751e76e8199196d454941c45d1b3a323f1433bd6") * 2
    assert segwit(1, program) == (  # BIP 350's Bech32m vector
        "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y"
    )


def safe_digits(n: int, first: str = "123456789") -> str:
    """Random digits that are not, by chance, a card number (unlabelled runs must not be)."""
    while True:
        value = digits(n, first)
        if not is_card(value):
            return value


def org_number() -> str:
    """Swedish organisationsnummer: type digit, third digit 2 or more, Luhn digit."""
    nine = "5" + rng.choice(DIGITS) + rng.choice("23456789") + pick(DIGITS, 6)
    ten = nine + luhn_digit(nine)
    return f"{ten[:6]}-{ten[6:]}"


# --- texts: United Kingdom ---------------------------------------------------------------------

UK_PEOPLE = [("Harper", "Jessica", "JM", True), ("Okafor", "Daniel", "DC", False),
             ("Li", "Wei", "W", False), ("Campbell", "Eilidh", "EA", True),
             ("Ashworth", "Thomas", "TR", False), ("Begum", "Nasreen", "N", True),
             ("Morgan", "Rhys", "RO", False), ("Kowalczyk", "Anna", "AM", True),
             ("O'Neill", "Siobhan", "SK", True), ("Patel", "Arjun", "AV", False)]  # fmt: skip


def person_uk() -> tuple[str, str, str, bool]:
    return rng.choice(UK_PEOPLE)


def m_nino(style: str = "compact") -> str:
    return lab("uk_nino", nino(style))


def m_nhs(sep: str = " ") -> str:
    return lab("uk_nhs", nhs(sep))


def m_uk_passport() -> str:
    return lab("uk_passport", uk_passport())


def m_licence() -> str:
    surname, _, initials, female = person_uk()
    return lab("uk_driving_licence", uk_licence(surname, birth_date(1950, 2004), female, initials))


def uk_positive() -> list[Template]:
    # fmt: off
    return [
        ("chat", "en", lambda: f"hi, new starter here - payroll asked for my NI number, it's {m_nino()} is that all they need?"),
        ("form", "en", lambda: f"Full name: {person_uk()[1]} {person_uk()[0]}\nNational Insurance number: {m_nino('spaced')}\nStart date: 02/06/2025"),
        ("email-body", "en", lambda: f"Dear HMRC,\n\nPlease update the records for NINO {m_nino()} - the employee's surname changed after marriage.\n\nRegards,\nPayroll team"),
        ("csv", "en", lambda: f"employee_id,name,ni_number,tax_code\nE1042,R. Morgan,{m_nino()},1257L\nE1043,S. O'Neill,{m_nino('spaced')},BR\nE1044,A. Patel,{m_nino()},1257L"),
        ("json", "en", lambda: f'{{"employee": {{"id": 88213, "nino": "{m_nino()}", "pension_opt_in": true}}}}'),
        ("log", "en", lambda: f"2025-03-14T09:12:44Z INFO rti.submit fps employee=4471 ni={m_nino()} status=accepted"),
        ("form", "cy", lambda: f"Rhif Yswiriant Gwladol: {m_nino('spaced')}\nDyddiad geni: 14/07/1988"),
        ("chat", "en", lambda: f"ok so my national insurance no. is {lab('uk_nino', nino().lower())} and the claim ref is UC-55120"),
        ("prose", "en", lambda: f"The tribunal noted that the appellant's NI number {m_nino()} had been used by two employers in the same tax year."),
        ("form", "en", lambda: f"NHS number: {m_nhs()}\nPatient: {person_uk()[1]} {person_uk()[0]}\nGP practice: Riverside Surgery (Y02734)"),
        ("email-body", "en", lambda: f"Referral for patient with NHS No. {m_nhs()} - please book a cardiology outpatient slot within 2 weeks."),
        ("json", "en", lambda: f'{{"resourceType": "Patient", "identifier": [{{"system": "https://fhir.nhs.uk/Id/nhs-number", "value": "{m_nhs("")}"}}]}}'),
        ("csv", "en", lambda: f"nhs_number,surname,dob,ward\n{m_nhs('')},HARPER,1961-04-02,Ward 7\n{m_nhs('')},BEGUM,1977-11-19,AMU\n{m_nhs('')},ASHWORTH,1949-08-30,Ward 12"),
        ("log", "en", lambda: f"[pds-lookup] 2025-05-02 08:41:07 GET /Patient/{m_nhs('')} 200 OK 43ms"),
        ("chat", "en", lambda: f"the nhs app shows my number as {m_nhs()} - is that the one the pharmacy needs?"),
        ("table", "en", lambda: f"| Patient | NHS number | Clinic |\n|---|---|---|\n| J. Harper | {m_nhs()} | Diabetes |\n| D. Okafor | {m_nhs('-')} | Renal |"),
        ("prose", "en", lambda: f"Discharge summary: Mr Ashworth (NHS {m_nhs()}) was discharged home on 3 March with community nursing."),
        ("form", "en", lambda: f"Passport number: {m_uk_passport()}\nCountry of issue: United Kingdom\nExpiry: 11/09/2031"),
        ("email-body", "en", lambda: f"Hi,\n\nFor the booking, my UK passport no. is {m_uk_passport()} (expires 2029) and my husband's is {m_uk_passport()}.\n\nThanks, Eilidh"),
        ("json", "en", lambda: f'{{"traveller": {{"surname": "CAMPBELL", "document": {{"type": "P", "issuing_state": "GBR", "number": "{m_uk_passport()}"}}}}}}'),
        ("chat", "en", lambda: f"check-in wants the passport number again, it's {m_uk_passport()}"),
        ("csv", "en", lambda: f"guest,nationality,passport_no,arrival\nM. Begum,GBR,{m_uk_passport()},2025-07-01\nT. Ashworth,GBR,{m_uk_passport()},2025-07-01"),
        ("prose", "en", lambda: f"HM Passport Office cancelled passport {m_uk_passport()} after it was reported lost."),
        ("form", "en", lambda: f"Driving licence number: {m_licence()}\nCategories: B, BE\nValid to: 2033"),
        ("chat", "en", lambda: f"the hire desk needs my licence number: {m_licence()}, and the DVLA check code"),
        ("json", "en", lambda: f'{{"driver": {{"licence_number": "{m_licence()}", "points": 3, "check_code": "Xk 7P Ld 2Q"}}}}'),
        ("email-body", "en", lambda: f"Please add a second driver to policy MTR-55821: licence {m_licence()}, 6 years no claims."),
        ("csv", "en", lambda: f"driver,licence,expiry\nR Morgan,{m_licence()},2031-02-28\nA Patel,{m_licence()},2029-10-14"),
        ("log", "en", lambda: f"2025-01-20 17:03:55 WARN dvla-adapter retry=2 licence={m_licence()} reason=timeout"),
        ("form", "en", lambda: f"Visa application\nPrevious UK passport number: {m_uk_passport()}\nReason for replacement: damaged"),
        ("markdown", "en", lambda: f"## Right to work check\n- Document: British passport `{m_uk_passport()}`\n- Checked by: HR, 2025-02-03"),
        ("sql", "en", lambda: f"UPDATE travellers SET passport_number = '{m_uk_passport()}' WHERE booking_ref = 'QX7H2L';"),  # noqa: S608
        ("form", "en", lambda: f"Licence no.  {m_licence()}  issue no. 0{rng.randint(1, 9)}\nAddress: 14 Mill Lane, Leeds"),
        ("prose", "en", lambda: f"The officer read out the driver number {m_licence()} from the photocard and confirmed the address."),
        ("sql", "en", lambda: f"INSERT INTO drivers (name, licence_no) VALUES ('K. Li', '{m_licence()}');"),  # noqa: S608
        ("form", "en", lambda: f"Employee onboarding\nNI number: {m_nino()}\nPassport: {m_uk_passport()}\nDriving licence: {m_licence()}\nEmail: {lab('email', 'r.morgan@example.co.uk')}"),
    ]
    # fmt: on


def uk_near() -> list[NearMiss]:
    # fmt: off
    return [
        ("uk_nino", "form", "en", lambda: f"National Insurance number: {bad_nino()}\n(The number above failed validation - please re-enter.)"),
        ("uk_nino", "prose", "en", lambda: "HMRC guidance uses QQ 12 34 56 C as the example; a real number never starts with QQ."),
        ("uk_nhs", "chat", "en", lambda: f"my NHS number? I think it's {bad_nhs()} but the receptionist said it isn't valid"),
        ("uk_nhs", "log", "en", lambda: f"2025-04-11 10:02:13 ERROR pds invalid nhs_number={bad_nhs('')} (modulus 11 check failed)"),
        ("uk_passport", "email-body", "en", lambda: f"Your order {digits(9)} has been dispatched and should arrive in 3-5 working days."),
        ("uk_passport", "csv", "en", lambda: f"sku,description,qty\n{digits(9)},A4 paper 80gsm,10\n{digits(9)},Toner black,2"),
        ("uk_passport", "prose", "en", lambda: f"Tracking reference {pick(UPPER, 2)}{digits(9)}GB: your parcel is at the local depot."),
        ("uk_nhs", "form", "en", lambda: f"Invoice no.: {digits(10)}\nAccount: {digits(8)}\nSort code: {pick(DIGITS, 2)}-{pick(DIGITS, 2)}-{pick(DIGITS, 2)}"),
        ("uk_passport", "chat", "en", lambda: f"the Companies House number is {digits(8, '0')} and the VAT reg is GB {digits(9)}"),
        ("uk_driving_licence", "prose", "en", lambda: f"Batch {pick(UPPER, 5)}{digits(6)}{pick(UPPER, 5)} of the vaccine was recalled on 4 May."),
        ("uk_driving_licence", "log", "en", lambda: f"job={pick(UPPER, 5)}-{digits(6)}-{pick(UPPER, 4)} finished in 88 ms"),
        ("uk_driving_licence", "form", "en", lambda: f"Driving licence number: {pick(UPPER, 5)}{pick(DIGITS, 5)}\n(The number you entered is too short.)"),
        ("uk_nino", "chat", "en", lambda: f"ticket {pick(UPPER, 2)}{digits(6)} - customer says the NI field rejects {pick(UPPER, 2)}{digits(5)}"),
        ("uk_passport", "json", "en", lambda: f'{{"order_id": "{digits(9)}", "passport_photo": true, "price_gbp": 88.50}}'),
        ("uk_nino", "table", "en", lambda: f"| Part | Serial |\n|---|---|\n| Boiler PCB | {digits(10)} |\n| Pump | {pick(UPPER, 2)}{digits(6)}{pick(UPPER, 1)} |"),
        ("uk_nhs", "email-body", "en", lambda: f"Your appointment on 12/06/2025 at 10:40 is confirmed. Booking ref {digits(3)} {digits(3)} {digits(4)} is not your NHS number."),
        ("uk_nhs", "form", "en", lambda: f"Self Assessment UTR: {digits(5)} {digits(5)}\nEmployer PAYE reference: {digits(3)}/{pick(UPPER, 2)}{digits(5)}"),
        ("uk_nino", "prose", "en", lambda: f"Deliveries to SW1A 1AA are held at the gate; ref {pick(UPPER, 3)}-{digits(6)}."),
        ("uk_nhs", "chat", "en", lambda: f"the NHS login security code was {digits(6)}, it expired already"),
        ("uk_nhs", "csv", "en", lambda: f"booking,seats,fare\n{nhs('')},2,88.40\n{digits(10)},1,41.10"),
    ]
    # fmt: on


def uk_phones() -> list[Template]:
    # fmt: off
    return [
        ("email-body", "en", lambda: f"Call the surgery on {lab('phone', '020 7946 0' + pick(DIGITS, 3))} to rebook; quote your NHS number when asked."),
        ("form", "en", lambda: f"Mobile: {lab('phone', '07700 900' + pick(DIGITS, 3))}\nNI number: (not provided)"),
    ]
    # fmt: on


# --- texts: Europe (EU market group, with Turkey) ----------------------------------------------

IT_PEOPLE = [("Rossi", "Giulia", True), ("Esposito", "Marco", False), ("Bianchi", "Chiara", True),
             ("Romano", "Alessandro", False), ("Colombo", "Francesca", True),
             ("Ricci", "Luca", False), ("De Luca", "Sofia", True), ("Greco", "Matteo", False)]  # fmt: skip
DE_SURNAMES = ["Müller", "Schneider", "Fischer", "Weber", "Wagner", "Becker", "Hoffmann", "Yilmaz"]


def m_nif(style: str = "compact") -> str:
    return lab("es_nif", es_nif(style))


def m_nie(style: str = "compact") -> str:
    return lab("es_nie", es_nie(style))


def m_fiscal_code(surname: str = "", name: str = "", female: bool = False) -> str:
    """A marked codice fiscale of the person named, or of someone drawn from IT_PEOPLE."""
    if not surname:
        surname, name, female = rng.choice(IT_PEOPLE)
    return lab("it_fiscal_code", fiscal_code(surname, name, birth_date(1945, 2006), female))


def m_it_vat(prefixed: bool = False) -> str:
    return lab("it_vat_code", it_vat(prefixed))


def m_pesel() -> str:
    return lab("pl_pesel", pesel())


def m_hetu(new_sign: bool = False) -> str:
    return lab("fi_personal_identity_code", hetu(new_sign=new_sign))


def m_personnummer(style: str = "short") -> str:
    return lab("se_personnummer", personnummer(style))


def m_de_tax_id(style: str = "compact") -> str:
    return lab("de_tax_id", de_tax_id(style))


def m_de_social(style: str = "spaced") -> str:
    return lab(
        "de_social_security",
        de_social(rng.choice(DE_SURNAMES).replace("Ü", "U"), rng.random() < 0.5, style),
    )


def m_de_id_card(with_check: bool = False) -> str:
    return lab("de_id_card", de_id_card(with_check))


def m_tr_id() -> str:
    return lab("tr_national_id", tr_id())


def eu_positive() -> list[Template]:
    # fmt: off
    return [
        # Spain
        ("form", "es", lambda: f"Nombre: Lucía Fernández García\nDNI/NIF: {m_nif()}\nDomicilio: C/ Mayor 14, 3º B, Madrid"),
        ("chat", "es", lambda: f"hola, para la factura necesito tu NIF. -> claro, es {m_nif('dash')}"),
        ("email-body", "es", lambda: f"Estimado cliente:\n\nHemos actualizado el titular del contrato a {m_nif('dots')}. Si no reconoce este cambio, contacte con nosotros.\n\nUn saludo"),
        ("csv", "es", lambda: f"nombre;nif;iban_ok\nJavier Ruiz;{m_nif()};si\nMarta Gil;{m_nif()};no\nPablo Sanz;{m_nif('dash')};si"),
        ("json", "en", lambda: f'{{"customer": {{"country": "ES", "tax_id": "{m_nif()}", "segment": "retail"}}}}'),
        ("prose", "en", lambda: f"The Spanish supplier invoiced us under NIF {m_nif()}, which matches the DNI on file."),
        ("form", "es", lambda: f"NIE: {m_nie()}\nNacionalidad: Rumana\nFecha de entrada en España: 03/02/2019"),
        ("email-body", "en", lambda: f"Hi Ana, my NIE is {m_nie('dash')} - the gestor needs it for the rental contract. Thanks!"),
        ("chat", "es", lambda: f"mi número de extranjero es {m_nie()}, ¿lo necesitas con guiones?"),
        ("csv", "es", lambda: f"trabajador,documento,alta\nIon Popescu,{m_nie()},2024-01-08\nSara Benali,{m_nie()},2024-03-11\nTom Baker,{m_nie('dash')},2024-06-30"),
        ("log", "en", lambda: f"2025-02-02 11:20:07 INFO kyc.es verified document={m_nie()} type=NIE score=0.97"),
        ("form", "ca", lambda: f"Número d'identitat d'estranger (NIE): {m_nie()}\nMunicipi: Girona"),
        # Italy
        ("form", "it", lambda: f"Cognome e nome: Rossi Giulia\nCodice fiscale: {m_fiscal_code('Rossi', 'Giulia', True)}\nResidenza: Via Roma 12, Torino"),
        ("email-body", "it", lambda: f"Gentile dottoressa,\n\nle invio il mio codice fiscale {m_fiscal_code()} per la prenotazione della visita.\n\nCordiali saluti"),
        ("chat", "it", lambda: f"ciao! il CF di mia madre è {m_fiscal_code()}, il mio te lo mando dopo"),
        ("csv", "it", lambda: f"dipendente;codice_fiscale;livello\nEsposito Marco;{m_fiscal_code('Esposito', 'Marco')};3\nBianchi Chiara;{m_fiscal_code('Bianchi', 'Chiara', True)};4\nGreco Matteo;{m_fiscal_code('Greco', 'Matteo')};2"),
        ("json", "en", lambda: f'{{"patient": {{"fiscal_code": "{m_fiscal_code()}", "region": "Lombardia"}}}}'),
        ("prose", "en", lambda: f"The tenant's tax code {m_fiscal_code()} appears on the lease registered with the Agenzia delle Entrate."),
        ("form", "it", lambda: f"Ragione sociale: Officine Meccaniche Lombarde S.r.l.\nPartita IVA: {m_it_vat()}\nSDI: M5UXCR1"),
        ("email-body", "it", lambda: f"Buongiorno,\n\nper la fatturazione elettronica i nostri dati sono: P.IVA {m_it_vat()}, codice destinatario 0000000.\n\nGrazie"),
        ("json", "en", lambda: f'{{"supplier": {{"name": "Gelateria Sole Srl", "vat_number": "{m_it_vat(True)}"}}}}'),
        ("prose", "en", lambda: f"VIES confirmed that {m_it_vat(True)} is an active Italian VAT registration."),
        ("csv", "it", lambda: f"fornitore,partita_iva,importo\nTipografia Arno,{m_it_vat()},1200.00\nLogistica Po,{m_it_vat()},860.50"),
        ("chat", "it", lambda: f"mi serve la partita iva del fornitore -> {m_it_vat()}"),
        # Poland
        ("form", "pl", lambda: f"Imię i nazwisko: Katarzyna Nowak\nPESEL: {m_pesel()}\nAdres: ul. Długa 5/12, Gdańsk"),
        ("email-body", "pl", lambda: f"Dzień dobry,\n\nproszę o wystawienie zwolnienia dla pacjenta o numerze PESEL {m_pesel()}.\n\nPozdrawiam"),
        ("csv", "pl", lambda: f"pacjent,pesel,oddzial\nJan Kowalski,{m_pesel()},kardiologia\nAnna Zielińska,{m_pesel()},pediatria\nPiotr Wójcik,{m_pesel()},chirurgia"),
        ("chat", "pl", lambda: f"podaj mi swój pesel do umowy -> {m_pesel()}"),
        ("json", "en", lambda: f'{{"citizen": {{"pesel": "{m_pesel()}", "voivodeship": "pomorskie"}}}}'),
        ("log", "en", lambda: f"2025-06-01T07:44:10Z WARN epuap lookup pesel={m_pesel()} not found in cache"),
        # Finland
        ("form", "fi", lambda: f"Nimi: Aino Virtanen\nHenkilötunnus: {m_hetu()}\nKotikunta: Tampere"),
        ("email-body", "fi", lambda: f"Hei,\n\nlapsen henkilötunnus on {m_hetu()} ja oma tunnukseni {m_hetu()}.\n\nTerveisin Mikko"),
        ("csv", "fi", lambda: f"nimi;hetu;yksikkö\nLaine Juha;{m_hetu()};A2\nKorhonen Emilia;{m_hetu()};B1\nNieminen Otto;{m_hetu(True)};C3"),
        ("chat", "en", lambda: f"the Kela form wants my personal identity code, it's {m_hetu()}"),
        ("json", "en", lambda: f'{{"person": {{"ssn_fi": "{m_hetu()}", "municipality": "Espoo"}}}}'),
        ("prose", "sv", lambda: f"Personbeteckningen {m_hetu(True)} tilldelades efter 2023 med det nya skiljetecknet."),
        # Sweden
        ("form", "sv", lambda: f"Namn: Erik Lindqvist\nPersonnummer: {m_personnummer()}\nAdress: Storgatan 8, Uppsala"),
        ("email-body", "sv", lambda: f"Hej!\n\nMitt personnummer är {m_personnummer('long')}, jag behöver ett nytt intyg från Försäkringskassan.\n\nMvh Sara"),
        ("csv", "sv", lambda: f"namn,personnummer,avdelning\nOlsson Maja,{m_personnummer('long')},Ekonomi\nNilsson Ali,{m_personnummer()},IT\nBerg Ida,{m_personnummer('long_compact')},HR"),
        ("chat", "sv", lambda: f"kan du skicka ditt pnr? -> {m_personnummer('long')}"),
        ("json", "en", lambda: f'{{"customer": {{"personal_number": "{m_personnummer("long_compact")}", "country": "SE"}}}}'),
        ("log", "en", lambda: f"2025-05-20 13:01:12 INFO bankid auth ok personnummer={m_personnummer('long_compact')} rp=skatteverket"),
        # Germany
        ("form", "de", lambda: f"Name: Julia Schneider\nSteuerliche Identifikationsnummer: {m_de_tax_id('spaced')}\nSteuerklasse: I"),
        ("email-body", "de", lambda: f"Hallo Frau Weber,\n\nfür die Lohnabrechnung benötigen wir noch Ihre Steuer-ID. Laut Ihrem Schreiben lautet sie {m_de_tax_id()}.\n\nViele Grüße\nPersonalabteilung"),
        ("csv", "de", lambda: f"name;steuer_id;kirchensteuer\nFischer, Paul;{m_de_tax_id()};rk\nBecker, Lena;{m_de_tax_id()};-\nYilmaz, Emre;{m_de_tax_id('spaced')};-"),
        ("chat", "de", lambda: f"meine IdNr ist {m_de_tax_id()} (steht oben rechts auf dem Bescheid)"),
        ("json", "en", lambda: f'{{"employee": {{"tax_id_de": "{m_de_tax_id()}", "tax_class": 4}}}}'),
        ("form", "de", lambda: f"Sozialversicherungsnummer: {m_de_social()}\nKrankenkasse: AOK Bayern"),
        ("email-body", "de", lambda: f"Guten Tag,\n\nanbei meine Rentenversicherungsnummer {m_de_social()} für die Anmeldung zum 1. Juli.\n\nMit freundlichen Grüßen"),
        ("csv", "de", lambda: f"mitarbeiter,sv_nummer,eintritt\nWagner Tim,{m_de_social('compact')},2024-04-01\nHoffmann Eva,{m_de_social()},2023-09-15\nMüller Jonas,{m_de_social('compact')},2025-01-01"),
        ("chat", "de", lambda: f"die SV-Nummer steht auf dem Ausweis: {m_de_social()}"),
        ("json", "en", lambda: f'{{"payroll": {{"social_security_number_de": "{m_de_social("compact")}"}}}}'),
        ("form", "de", lambda: f"Ausweisnummer: {m_de_id_card()}\nGültig bis: 14.03.2031\nAusstellende Behörde: Stadt Köln"),
        ("email-body", "de", lambda: f"Sehr geehrte Damen und Herren,\n\nzur Identifizierung: Personalausweis-Nr. {m_de_id_card()}, ausgestellt in Leipzig.\n\nMit freundlichen Grüßen"),
        ("chat", "de", lambda: f"für die Anmeldung brauchen die die Nummer vom Perso: {m_de_id_card()}"),
        ("json", "en", lambda: f'{{"kyc": {{"document_type": "ID_CARD", "country": "DEU", "document_number": "{m_de_id_card()}"}}}}'),
        ("csv", "de", lambda: f"gast,ausweis_nr,zimmer\nBecker,{m_de_id_card()},204\nFischer,{m_de_id_card(True)},207"),
        ("log", "en", lambda: f"2025-03-03 18:22:09 INFO eid.verify doc={m_de_id_card()} result=ok"),
        # Turkey
        ("form", "tr", lambda: f"Ad Soyad: Ayşe Demir\nT.C. Kimlik No: {m_tr_id()}\nDoğum Yeri: İzmir"),
        ("email-body", "tr", lambda: f"Merhaba,\n\nkargo için TC kimlik numaram {m_tr_id()}. Teşekkürler.\n\nMehmet"),
        ("csv", "tr", lambda: f"ad,tckn,sube\nAli Kaya,{m_tr_id()},Ankara\nZeynep Çelik,{m_tr_id()},Bursa\nEmre Şahin,{m_tr_id()},Konya"),
        ("chat", "tr", lambda: f"kimlik no lazım -> {m_tr_id()}"),
        ("json", "en", lambda: f'{{"customer": {{"tr_identity_number": "{m_tr_id()}", "city": "Istanbul"}}}}'),
        ("prose", "en", lambda: f"The e-Devlet record for Turkish ID {m_tr_id()} lists an address in Antalya."),
    ]
    # fmt: on


def eu_near() -> list[NearMiss]:
    # fmt: off
    return [
        ("es_nif", "form", "es", lambda: f"DNI/NIF: {bad_nif()}\nLa letra de control no coincide, revise el número."),
        ("es_nie", "chat", "es", lambda: f"me rechaza el NIE {bad_nie()}, ¿qué hago?"),
        ("es_nif", "email-body", "es", lambda: f"Su pedido {digits(8)} con referencia {pick(UPPER, 1)}{digits(8)} se entregará el 12/05/2025."),
        ("it_fiscal_code", "form", "it", lambda: f"Codice fiscale: {wrong_last(m_fiscal_code().split('|')[1][:-1], UPPER)}\nIl codice inserito non è valido (carattere di controllo errato)."),
        ("it_vat_code", "chat", "it", lambda: f"la partita iva {bad_it_vat()} risulta errata su VIES"),
        ("it_vat_code", "csv", "it", lambda: f"articolo,codice,prezzo\nTrapano,{digits(11)},89.90\nLivella,{digits(11)},12.50"),
        ("pl_pesel", "form", "pl", lambda: f"PESEL: {bad_pesel()}\nBłąd: nieprawidłowa cyfra kontrolna"),
        ("pl_pesel", "email-body", "pl", lambda: f"Numer zamówienia: {digits(11)}\nNumer przesyłki: {digits(11)}"),
        ("fi_personal_identity_code", "log", "en", lambda: f"2025-04-02 09:00:01 ERROR hetu validation failed value={bad_hetu()}"),
        ("se_personnummer", "form", "sv", lambda: f"Personnummer: {bad_personnummer()}\nKontrollsiffran stämmer inte."),
        ("se_personnummer", "prose", "sv", lambda: f"Organisationsnummer {org_number()} tillhör Nordisk Hamnlogistik AB."),
        ("de_tax_id", "form", "de", lambda: f"Steuer-ID: {bad_de_tax_id()}\nDie Prüfziffer ist ungültig."),
        ("de_tax_id", "prose", "de", lambda: f"Steuernummer {digits(3, '1')}/{digits(3)}/{digits(5)} beim Finanzamt München - nicht die Identifikationsnummer."),
        ("de_tax_id", "csv", "de", lambda: f"artikel;ean;menge\nSchrauben;{safe_digits(13, '4')};500\nDübel;{safe_digits(13, '4')};250"),
        ("de_id_card", "form", "de", lambda: f"Kundennummer: {digits(10)}\nRechnungsnummer: RE-2025-{digits(5)}"),
        ("tr_national_id", "chat", "tr", lambda: f"kimlik no {bad_tr_id()} hatalı diyor sistem"),
        ("tr_national_id", "log", "en", lambda: f"order_id={digits(11)} amount=149.90 currency=TRY status=paid"),
        ("de_social_security", "prose", "de", lambda: f"Die Mitgliedsnummer {pick(UPPER, 1)}{digits(9)} der Krankenkasse ist nicht die Rentenversicherungsnummer."),
        ("es_nie", "json", "en", lambda: f'{{"ticket": "{pick(UPPER, 2)}-{digits(7)}", "created": "2025-03-01", "priority": 2}}'),
        ("it_fiscal_code", "table", "en", lambda: f"| Lot | Code |\n|---|---|\n| 17 | {pick(UPPER, 4)}-{digits(4)}-{pick(UPPER, 3)} |\n| 18 | {pick(UPPER, 4)}-{digits(4)}-{pick(UPPER, 3)} |"),
        ("pl_pesel", "prose", "pl", lambda: f"NIP firmy: {digits(3)}-{digits(3)}-{digits(2)}-{digits(2)}, REGON: {digits(9)}."),
        ("de_id_card", "form", "de", lambda: f"Kennzeichen: M-AB {rng.randint(100, 9999)}\nFahrgestellnummer: WVWZZZ1JZ{rng.choice('345')}W{digits(6)}"),
        ("tr_national_id", "form", "tr", lambda: f"Vergi kimlik numarası (VKN): {digits(10)}\nVergi dairesi: Kadıköy"),
        ("fi_personal_identity_code", "prose", "fi", lambda: f"Y-tunnus {digits(7)}-{rng.choice(DIGITS)} kuuluu Oy Pohjolan Kuljetus Ab:lle."),
        ("de_id_card", "chat", "de", lambda: f"die Sendungsnummer ist {safe_digits(12, '0')}, kommt morgen"),
        ("de_tax_id", "csv", "de", lambda: f"artikelnr;bezeichnung;preis\n{de_tax_id()};Kabelbinder 200mm;4,99\n{digits(11)};Schrumpfschlauch;7,49"),
        ("pl_pesel", "email-body", "pl", lambda: f"Numer zamówienia: {pesel()}\nStatus: wysłane"),
        ("tr_national_id", "chat", "tr", lambda: f"sipariş numaranız {tr_id()}, kargoya verildi"),
        ("it_fiscal_code", "form", "it", lambda: f"Numero tessera sanitaria (TEAM): 80380{digits(15)}"),
        ("es_nif", "json", "en", lambda: f'{{"order": "{es_nif()[:8]}", "sku": "ES-{digits(5)}", "qty": 3}}'),
        ("de_social_security", "form", "de", lambda: f"Versicherungsnummer: {wrong_last(de_social('Becker', False))}\nDie Prüfziffer stimmt nicht."),
        ("de_social_security", "chat", "de", lambda: f"Aktenzeichen {digits(2)} {digits(6)} {pick(UPPER, 1)} {digits(2)}/25 - bitte immer angeben"),
    ]
    # fmt: on


# --- texts: Asia-Pacific -----------------------------------------------------------------------


def m_pan(holder: str = "P") -> str:
    return lab("in_pan", pan(holder))


def m_aadhaar(style: str = "spaced") -> str:
    return lab("in_aadhaar", aadhaar(style))


def m_gstin() -> str:
    return lab("in_gstin", gstin())


def m_tfn(style: str = "spaced") -> str:
    return lab("au_tfn", tfn(style))


def m_abn(style: str = "spaced") -> str:
    return lab("au_abn", abn(style))


def m_acn(style: str = "spaced") -> str:
    return lab("au_acn", acn(style))


def m_medicare(style: str = "spaced") -> str:
    return lab("au_medicare", medicare(style))


def m_nric(prefix: str | None = None) -> str:
    return lab("sg_nric_fin", nric(prefix))


def m_uen() -> str:
    return lab("sg_uen", uen())


def m_rrn() -> str:
    return lab("kr_rrn", rrn())


def m_th_id(style: str = "dashed") -> str:
    return lab("th_tnin", th_id(style))


def m_ph_tin(branch: bool = True, sep: str = "-") -> str:
    return lab("ph_tin", ph_tin(branch, sep))


def apac_positive() -> list[Template]:
    # fmt: off
    return [
        # India
        ("form", "en", lambda: f"Name: Priya Raghavan\nPAN: {m_pan()}\nAadhaar: {m_aadhaar()}\nMobile: {lab('phone', '+91 98' + pick(DIGITS, 3) + ' ' + pick(DIGITS, 5))}"),
        ("chat", "en", lambda: f"bhai PAN card number bhej de ITR ke liye -> haan, {m_pan()}"),
        ("email-body", "en", lambda: f"Dear Sir/Madam,\n\nPlease link PAN {m_pan()} with my demat account. My Aadhaar number is {m_aadhaar('compact')}.\n\nRegards,\nSuresh Iyer"),
        ("csv", "en", lambda: f"vendor,pan,gstin,state\nShree Traders,{m_pan('F')},{m_gstin()},MH\nNilgiri Foods Pvt Ltd,{m_pan('C')},{m_gstin()},TN\nKaveri Textiles,{m_pan('F')},{m_gstin()},KA"),
        ("json", "en", lambda: f'{{"kyc": {{"pan": "{m_pan()}", "aadhaar_last_verified": "2025-01-11", "aadhaar": "{m_aadhaar("compact")}"}}}}'),
        ("form", "hi", lambda: f"नाम: अमित शर्मा\nपैन: {m_pan()}\nआधार संख्या: {m_aadhaar()}"),
        ("log", "en", lambda: f"2025-02-10 12:01:44 INFO ekyc.uidai auth ok aadhaar={m_aadhaar('compact')} txn=UKC:{digits(10)}"),
        ("chat", "en", lambda: f"my aadhar no is {m_aadhaar('dash')} pls update in the hostel form"),
        ("prose", "en", lambda: f"The tax invoice shows GSTIN {m_gstin()} for the seller and {m_gstin()} for the buyer."),
        ("form", "en", lambda: f"Supplier GSTIN: {m_gstin()}\nPlace of supply: 27-Maharashtra\nInvoice no: INV/24-25/{digits(4)}"),
        ("chat", "hi", lambda: f"GST नंबर {m_gstin()} है, बिल पर डाल देना"),
        ("json", "en", lambda: f'{{"seller": {{"gstin": "{m_gstin()}", "legal_name": "ANAND ELECTRICALS"}}}}'),
        ("prose", "en", lambda: f"Her Aadhaar {m_aadhaar()} was seeded to the LPG subsidy account in March."),
        # Australia
        ("form", "en", lambda: f"Tax file number declaration\nTFN: {m_tfn()}\nAre you an Australian resident for tax purposes? Yes"),
        ("email-body", "en", lambda: f"Hi team,\n\nMy TFN is {m_tfn()} - please use it for the super fund too.\n\nCheers,\nLiam"),
        ("chat", "en", lambda: f"payroll says they'll tax me at the top rate until I give them my tax file number... it's {m_tfn('compact')}"),
        ("csv", "en", lambda: f"employee,tfn,super_fund\nO'Brien C,{m_tfn()},AustralianSuper\nNguyen T,{m_tfn('compact')},Hostplus\nSmith J,{m_tfn()},REST"),
        ("json", "en", lambda: f'{{"employee": {{"tax_file_number": "{m_tfn("compact")}", "residency": "resident"}}}}'),
        ("form", "en", lambda: f"Business name: Coastal Cafe Pty Ltd\nABN: {m_abn()}\nACN: {m_acn()}\nGST registered: yes"),
        ("email-body", "en", lambda: f"Invoice 2291 from Redgum Plumbing (ABN {m_abn()}) is attached. Payment terms 14 days."),
        ("chat", "en", lambda: f"what's our ABN again? -> {m_abn('compact')}"),
        ("csv", "en", lambda: f"supplier,abn\nBlue Wren Printing,{m_abn()}\nSouthern Cross Freight,{m_abn()}\nKookaburra IT,{m_abn('compact')}"),
        ("json", "en", lambda: f'{{"entity": {{"abn": "{m_abn("compact")}", "acn": "{m_acn("compact")}", "state": "VIC"}}}}'),
        ("prose", "en", lambda: f"ASIC records show the company, ACN {m_acn()}, was deregistered in 2021."),
        ("form", "en", lambda: f"Company name: Harbourside Holdings Pty Ltd\nAustralian Company Number: {m_acn()}"),
        ("csv", "en", lambda: f"company,acn,registered\nMallee Grain Pty Ltd,{m_acn()},1998\nTasman Marine Pty Ltd,{m_acn()},2011"),
        ("form", "en", lambda: f"Medicare card number: {m_medicare()}\nIndividual reference number: {rng.randint(1, 5)}\nValid to: 08/2029"),
        ("chat", "en", lambda: f"clinic needs my medicare number -> {m_medicare()} (I'm number 2 on the card)"),
        ("json", "en", lambda: f'{{"patient": {{"medicare_number": "{m_medicare("compact")}", "irn": {rng.randint(1, 4)}}}}}'),
        ("email-body", "en", lambda: f"Hello,\n\nPlease bulk-bill the consult; Medicare {m_medicare()}, DVA: none.\n\nThanks"),
        ("csv", "en", lambda: f"patient,medicare,irn\nR. Kelly,{m_medicare('compact')},1\nA. Haddad,{m_medicare()},3"),
        # Singapore
        ("form", "en", lambda: f"Full name: Tan Wei Ling\nNRIC: {m_nric('S')}\nAddress: Blk 123 Ang Mo Kio Ave 3, #05-12"),
        ("chat", "en", lambda: f"the clinic asked for my IC number, it's {m_nric()}"),
        ("email-body", "en", lambda: f"Dear HR,\n\nThe work pass holder's FIN is {m_nric('G')} and her dependant's FIN is {m_nric('F')}.\n\nRegards"),
        ("csv", "en", lambda: f"name,nric_fin,dept\nLim Jun Jie,{m_nric('T')},Ops\nRaj Kumar,{m_nric('G')},IT\nNur Aisyah,{m_nric('S')},HR"),
        ("form", "ms", lambda: f"Nama: Siti Nurhaliza binte Ahmad\nNo. KP/NRIC: {m_nric('S')}"),
        ("form", "en", lambda: f"Company: Merlion Analytics Pte. Ltd.\nUEN: {m_uen()}\nGST Reg No.: same as UEN"),
        ("email-body", "en", lambda: f"Please make the PayNow transfer to our UEN {m_uen()} and put the invoice number as the reference."),
        ("json", "en", lambda: f'{{"company": {{"uen": "{m_uen()}", "status": "Live Company"}}}}'),
        ("csv", "en", lambda: f"vendor,uen\nJurong Fresh Pte Ltd,{m_uen()}\nOrchid Logistics Pte Ltd,{m_uen()}\nKampong Bakery Pte Ltd,{m_uen()}"),
        ("chat", "zh", lambda: f"公司UEN是 {m_uen()}，发票上要写"),
        # Korea
        ("form", "ko", lambda: f"성명: 김민지\n주민등록번호: {m_rrn()}\n주소: 서울특별시 마포구"),
        ("chat", "ko", lambda: f"주민번호 {m_rrn()} 맞는지 확인 부탁드려요"),
        ("csv", "ko", lambda: f"이름,주민등록번호,부서\n박서준,{m_rrn()},영업\n이하은,{m_rrn()},인사\n최도윤,{lab('kr_rrn', rrn_after_2020() if rng.random() < 0.4 else rrn())},가족"),
        ("json", "en", lambda: f'{{"member": {{"rrn": "{m_rrn()}", "nationality": "KR"}}}}'),
        ("email-body", "en", lambda: f"Hi, for the Korean payroll we need the resident registration number: {m_rrn()}. Thanks!"),
        # Thailand
        ("form", "th", lambda: f"ชื่อ-นามสกุล: สมชาย ใจดี\nเลขประจำตัวประชาชน: {m_th_id()}\nที่อยู่: กรุงเทพมหานคร"),
        ("chat", "th", lambda: f"เลขบัตรประชาชน {m_th_id('compact')} ค่ะ"),
        ("csv", "en", lambda: f"name,thai_id,branch\nSomsak P.,{m_th_id('compact')},Chiang Mai\nNattaya K.,{m_th_id()},Bangkok\nArthit W.,{m_th_id('spaced')},Phuket"),
        ("json", "en", lambda: f'{{"customer": {{"national_id_th": "{m_th_id("compact")}", "kyc_level": 2}}}}'),
        ("email-body", "en", lambda: f"Dear team,\n\nThe Thai ID card number is {m_th_id()} - please verify with DOPA.\n\nBest"),
        # Philippines
        ("form", "en", lambda: f"Name: Maria Clara Santos\nTIN: {m_ph_tin()}\nRDO code: 039"),
        ("chat", "tl", lambda: f"ano ulit TIN mo? -> {m_ph_tin(branch=False)} po"),
        ("csv", "en", lambda: f"employee,tin,sss\nJuan dela Cruz,{m_ph_tin()},34-{digits(7)}-{digits(1)}\nAna Reyes,{m_ph_tin(branch=False)},33-{digits(7)}-{digits(1)}"),
        ("email-body", "en", lambda: f"Hi Ma'am,\n\nFor the 2316, my TIN is {m_ph_tin()}.\n\nThank you po"),
        ("json", "en", lambda: f'{{"payee": {{"tin": "{m_ph_tin(sep="")}", "bir_form": "2307"}}}}'),
        ("form", "tl", lambda: f"Taxpayer Identification Number (TIN): {m_ph_tin()}\nPangalan: Jose Rizal Mercado"),
        ("prose", "en", lambda: f"BIR issued TIN {m_ph_tin(branch=False)} to the new sole proprietor in Cebu."),
    ]
    # fmt: on


def apac_near() -> list[NearMiss]:
    # fmt: off
    return [
        ("in_pan", "form", "en", lambda: f"PAN: {pick(UPPER, 5)}{digits(3)}{pick(UPPER, 1)}\nError: PAN must be 10 characters"),
        ("in_aadhaar", "chat", "en", lambda: f"aadhaar {bad_aadhaar()} shows invalid on the portal, typo?"),
        ("in_gstin", "log", "en", lambda: f"2025-02-11 08:00:01 WARN gst.validate invalid gstin={bad_gstin()} reason=checksum"),
        ("in_aadhaar", "email-body", "en", lambda: f"Your Flipkart order OD{digits(15)} will be delivered by Friday."),
        ("au_tfn", "form", "en", lambda: f"TFN: {bad_tfn()}\nThe tax file number you entered is not valid."),
        ("au_tfn", "email-body", "en", lambda: f"Order {tfn()} has shipped via Australia Post, tracking {pick(UPPER, 2)}{digits(9)}AU."),
        ("au_abn", "chat", "en", lambda: f"ABN lookup says {bad_abn()} doesn't exist, can you double check"),
        ("au_medicare", "form", "en", lambda: f"Medicare card number: {bad_medicare()}\nThe card number is invalid."),
        ("sg_nric_fin", "log", "en", lambda: f"sg.myinfo lookup failed nric={bad_nric()} reason=checksum"),
        ("sg_uen", "prose", "en", lambda: f"Postal code {digits(6)} is in Tampines; the unit is #{digits(2)}-{digits(3)}."),
        ("sg_uen", "chat", "en", lambda: f"UEN {bad_uen()} not found on BizFile, pls confirm"),
        ("kr_rrn", "form", "ko", lambda: f"주민등록번호: {bad_rrn()}\n유효하지 않은 번호입니다."),
        ("kr_rrn", "chat", "ko", lambda: f"주문번호 {safe_digits(6, '789')}-{digits(7, '0123')} 배송 언제 와요?"),
        ("th_tnin", "form", "th", lambda: f"เลขประจำตัวประชาชน: {bad_th_id()}\nเลขไม่ถูกต้อง"),
        ("th_tnin", "csv", "en", lambda: f"sku,barcode\nMango juice,{safe_digits(13, '8')}\nRice 5kg,{safe_digits(13, '8')}"),
        ("ph_tin", "email-body", "en", lambda: f"Your GCash reference no. is {safe_digits(13)}. Amount: PHP 1,250.00"),
        ("ph_tin", "log", "en", lambda: f"ph.payroll batch={digits(3)}-{digits(3)}-{digits(3)} rows=212 status=ok"),
        ("au_tfn", "prose", "en", lambda: f"The Sydney office moved to level {rng.randint(2, 40)}; the parcel locker code is {digits(9)}."),
        ("au_acn", "json", "en", lambda: f'{{"invoice": "INV-{digits(9)}", "total_aud": 1290.40, "due": "2025-07-31"}}'),
        ("in_aadhaar", "chat", "hi", lambda: f"ऑर्डर नंबर {safe_digits(12)} की डिलीवरी कब होगी?"),
        ("in_pan", "form", "en", lambda: f"IFSC: {rng.choice(['HDFC', 'SBIN', 'ICIC', 'UTIB'])}0{digits(6, '0')}\nBranch: Andheri East"),
        ("in_pan", "prose", "en", lambda: f"The car, registration MH {rng.randint(1, 50):02d} {pick(UPPER, 2)} {digits(4)}, was towed."),
        ("au_acn", "csv", "en", lambda: f"order,items\n{acn('compact')},3\n{digits(9)},1"),
        ("kr_rrn", "form", "ko", lambda: f"사업자등록번호: {digits(3)}-{digits(2)}-{digits(5)}\n상호: 한빛상사"),
        ("th_tnin", "prose", "th", lambda: f"เลขที่ใบแจ้งหนี้ {digits(10)} ครบกำหนดชำระ 30 วัน"),
        ("ph_tin", "form", "en", lambda: f"PhilHealth no.: {digits(2, '1')}-{digits(9)}-{rng.choice(DIGITS)}\nSSS no.: {digits(2)}-{digits(7)}-{rng.choice(DIGITS)}"),
        ("in_aadhaar", "json", "en", lambda: f'{{"aadhaar_masked": "XXXX XXXX {digits(4)}", "consent": true}}'),
        ("in_pan", "form", "en", lambda: f"Passport No: {rng.choice('JKLMNPRSTUVWZ')}{digits(7)}\nPlace of issue: Chennai"),
        ("sg_nric_fin", "chat", "en", lambda: f"booking ref {pick(UPPER, 6)} for flight SQ{rng.randint(100, 999)}, seat {rng.randint(10, 60)}{rng.choice('ACDFHK')}"),
        ("au_acn", "log", "en", lambda: f"au.payments batch={abn('compact')[2:]} status=settled"),
        ("in_gstin", "form", "en", lambda: f"GSTIN: {gstin()[:14]}\nError: GSTIN must be 15 characters"),
        ("au_medicare", "form", "en", lambda: f"Medicare card number: {digits(4, '789')} {digits(5)} {rng.choice(DIGITS)}\nCard numbers start with 2 to 6."),
        ("au_abn", "email-body", "en", lambda: f"Your booking reference is {abn('compact')}. Keep it for check-in."),
    ]
    # fmt: on


# --- texts: the Americas and Africa ------------------------------------------------------------


def m_sin(style: str = "spaced") -> str:
    return lab("ca_sin", sin(style))


def m_aba() -> str:
    return lab("aba_routing", aba())


def m_nin() -> str:
    return lab("ng_nin", ng_nin())


def americas_africa_positive() -> list[Template]:
    # fmt: off
    return [
        # Canada
        ("form", "en", lambda: f"Social Insurance Number (SIN): {m_sin()}\nDate of birth: 1987-03-22\nProvince: Ontario"),
        ("form", "fr", lambda: f"Numéro d'assurance sociale (NAS) : {m_sin()}\nNom : Gagnon, Émilie"),
        ("email-body", "en", lambda: f"Hi Karen,\n\nFor the T4 correction, my SIN is {m_sin('dash')}.\n\nThanks,\nMarc"),
        ("chat", "fr", lambda: f"mon NAS c'est {m_sin('compact')}, tu peux le mettre dans le formulaire TD1?"),
        ("csv", "en", lambda: f"employee,sin,province\nTremblay L,{m_sin()},QC\nSingh H,{m_sin('dash')},BC\nMacDonald R,{m_sin()},NS"),
        ("json", "en", lambda: f'{{"employee": {{"sin": "{m_sin("compact")}", "province": "AB"}}}}'),
        ("prose", "en", lambda: f"Service Canada confirmed that social insurance number {m_sin()} belongs to a temporary resident."),
        ("log", "en", lambda: f"2025-04-30 16:20:55 INFO cra.roe submitted employee=203 sin={m_sin('compact')} status=ok"),
        ("email-body", "fr", lambda: f"Bonjour,\n\nVoici mon numéro d'assurance sociale : {m_sin()}. Merci de mettre à jour mon dossier.\n\nCordialement"),
        ("form", "en", lambda: f"Direct deposit\nInstitution: 003  Transit: 0{digits(4)}\nAccount: {digits(7)}\nSIN: {m_sin()}"),
        # United States
        ("form", "en", lambda: f"Direct deposit authorization\nBank: First Community Credit Union\nRouting number: {m_aba()}\nAccount number: {digits(10)}"),
        ("email-body", "en", lambda: f"Hi,\n\nPlease wire the deposit to ABA {m_aba()}, account ending 4471, reference the lease number.\n\nThanks"),
        ("chat", "en", lambda: f"what's the routing # for the payroll account? -> {m_aba()}"),
        ("csv", "en", lambda: f"payee,routing_number,account_type\nAcme Supply,{m_aba()},checking\nGreen Valley Farms,{m_aba()},savings\nRiver City Dental,{m_aba()},checking"),
        ("json", "en", lambda: f'{{"bank_account": {{"routing_number": "{m_aba()}", "account_number_last4": "0912", "type": "checking"}}}}'),
        ("prose", "en", lambda: f"The ACH file used RTN {m_aba()} for the originating depository financial institution."),
        ("log", "en", lambda: f"2025-05-14 10:10:10 INFO ach.batch odfi_routing={m_aba()} entries=118 total=48211.07"),
        ("form", "es", lambda: f"Número de ruta bancaria (ABA): {m_aba()}\nTipo de cuenta: cheques"),
        ("table", "en", lambda: f"| Bank | ABA routing |\n|---|---|\n| Lakeside Bank | {m_aba()} |\n| Prairie State Bank | {m_aba()} |"),
        ("code", "en", lambda: f'ach_entry = {{"receiving_dfi": "{m_aba()}", "amount_cents": 125000, "sec_code": "PPD"}}'),
        # Nigeria
        ("form", "en", lambda: f"National Identification Number (NIN): {m_nin()}\nState of origin: Oyo\nPhone: {lab('phone', '+234 803 ' + pick(DIGITS, 3) + ' ' + pick(DIGITS, 4))}"),
        ("chat", "en", lambda: f"abeg send your NIN for the SIM linkage -> {m_nin()}"),
        ("email-body", "en", lambda: f"Dear Customer,\n\nWe have received NIN {m_nin()} for verification of your account. No further action is needed.\n\nRegards"),
        ("csv", "en", lambda: f"name,nin,lga\nAdaeze Okonkwo,{m_nin()},Enugu North\nBabatunde Adeyemi,{m_nin()},Ibadan South-West\nFatima Bello,{m_nin()},Kano Municipal"),
        ("json", "en", lambda: f'{{"customer": {{"nin": "{m_nin()}", "bvn_linked": true}}}}'),
        ("log", "en", lambda: f"2025-03-09 11:11:19 INFO nimc.verify nin={m_nin()} match=FULL"),
        ("form", "en", lambda: f"NIMC slip\nNIN: {m_nin()}\nTracking ID: {pick(UPPER + DIGITS, 15)}"),
        ("prose", "en", lambda: f"The bank froze the account until the holder's national identity number {m_nin()} was verified."),
        ("chat", "en", lambda: f"my national identification number na {m_nin()}, make dem update am"),
    ]
    # fmt: on


def americas_africa_near() -> list[NearMiss]:
    # fmt: off
    return [
        ("ca_sin", "form", "en", lambda: f"SIN: {bad_sin()}\nThe number you entered is not a valid SIN."),
        ("ca_sin", "chat", "fr", lambda: f"le numéro de commande est {digits(9)}, livraison prévue lundi"),
        ("aba_routing", "form", "en", lambda: f"Routing number: {bad_aba()}\nThis routing number failed validation."),
        ("aba_routing", "csv", "en", lambda: f"order_id,zip,amount\n{digits(9)},94107,19.99\n{digits(9)},10001,5.49"),
        ("ca_sin", "email-body", "en", lambda: f"Your claim number is {digits(9)}. Please reference it in all correspondence."),
        ("aba_routing", "log", "en", lambda: f"2025-01-02 03:04:05 INFO job_id={digits(9)} rows=9912 duration_ms=4211"),
        ("ng_nin", "chat", "en", lambda: f"BVN: {digits(11, '2')} - that's the bank verification number, not the NIN"),
        ("ng_nin", "email-body", "en", lambda: f"Transaction reference {digits(11)} for NGN 25,000.00 was successful."),
        ("ca_sin", "prose", "en", lambda: f"The Canadian postal code is K1A 0B1; the business number is {digits(9, '8')}RT0001."),
        ("aba_routing", "form", "en", lambda: f"Employer Identification Number (EIN): {digits(2)}-{digits(7)}"),
        ("aba_routing", "json", "en", lambda: f'{{"tracking": "{safe_digits(12)}", "carrier": "FedEx", "weight_lb": 3.2}}'),
        ("aba_routing", "table", "en", lambda: f"| Check no. | Amount |\n|---|---|\n| {digits(4)} | $120.00 |\n| {digits(4)} | $88.10 |"),
        ("ng_nin", "chat", "en", lambda: f"the meter number is {digits(11)} and the last vend was {digits(3)} units"),
        ("ca_sin", "prose", "en", lambda: f"Invoice {digits(9)} dated 2025-03-01 covers 12 hours of consulting."),
        ("ca_sin", "csv", "en", lambda: f"order,amount\n{sin('compact')},49.00\n{digits(9)},12.50"),
        ("aba_routing", "email-body", "en", lambda: f"Invoice {aba()} is now overdue by 14 days."),
        ("ca_sin", "form", "en", lambda: f"Canada Post tracking: {safe_digits(16, '7')}\nPostal code: M5V 2T6"),
    ]
    # fmt: on


# --- texts: global (MAC addresses, Bitcoin addresses) ------------------------------------------


def m_mac(style: str = "colon") -> str:
    return lab("mac_address", mac(style))


def m_bitcoin(kind: str | None = None) -> str:
    return lab("crypto", bitcoin(kind))


def ipv4() -> str:
    return f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"


def global_positive() -> list[Template]:
    # fmt: off
    return [
        ("log", "en", lambda: f"Mar 14 09:12:44 gw01 dhcpd: DHCPACK on {lab('ip_address', ipv4())} to {m_mac()} (laptop-ana) via eth1"),
        ("config", "en", lambda: f"host printer-3f {{\n  hardware ethernet {m_mac()};\n  fixed-address {lab('ip_address', ipv4())};\n}}"),
        ("chat", "en", lambda: f"can you whitelist my laptop? wifi MAC is {m_mac('COLON')}"),
        ("csv", "en", lambda: f"hostname,mac,vlan\nap-lobby,{m_mac('COLON')},20\ncam-door-2,{m_mac('dash')},30\nnas-01,{m_mac()},10"),
        ("json", "en", lambda: f'{{"device": {{"serial": "C02XK1ZQJG5H", "wifi_mac": "{m_mac()}", "bt_mac": "{m_mac("COLON")}"}}}}'),
        ("log", "en", lambda: f"%SW_MATM-4-MACFLAP_NOTIF: Host {m_mac('cisco')} in vlan 12 is flapping between port Gi1/0/7 and port Gi1/0/9"),
        ("table", "en", lambda: f"| Port | MAC address | VLAN |\n|---|---|---|\n| Gi1/0/3 | {m_mac('cisco')} | 10 |\n| Gi1/0/4 | {m_mac('cisco')} | 10 |"),
        ("email-body", "de", lambda: f"Hallo IT,\n\nbitte die MAC-Adresse {m_mac('dash')} für das WLAN freischalten.\n\nDanke"),
        ("code", "en", lambda: f'ALLOWED_DEVICES = {{"{m_mac()}": "kiosk-1", "{m_mac()}": "kiosk-2"}}'),
        ("prose", "fr", lambda: f"L'adresse physique {m_mac('dash')} apparaît dans les journaux du pare-feu la nuit de l'incident."),
        ("log", "en", lambda: f"kernel: [ 12.345678] e1000e 0000:00:19.0 eth0: {m_mac()}"),
        ("config", "en", lambda: f"[Match]\nMACAddress={m_mac()}\n\n[Link]\nName=lan0"),
        ("chat", "ja", lambda: f"プリンターのMACアドレスは{m_mac('COLON')}です"),
        ("log", "en", lambda: f"2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP\n    link/ether {m_mac()}\n    inet6 {lab('ip_address', 'fe80::' + pick('0123456789abcdef', 3) + ':' + pick('0123456789abcdef', 4) + ':fe' + pick('0123456789abcdef', 2) + ':' + pick('0123456789abcdef', 4) + '/64')} scope link"),
        ("chat", "en", lambda: f"send the donation to {m_bitcoin('p2pkh')} - thanks!!"),
        ("email-body", "en", lambda: f"Hello,\n\nYour invoice #4471 can be paid in bitcoin to {m_bitcoin('p2wpkh')} within 30 minutes.\n\nRegards"),
        ("json", "en", lambda: f'{{"withdrawal": {{"asset": "BTC", "address": "{m_bitcoin()}", "amount": "0.0142"}}}}'),
        ("csv", "en", lambda: f"wallet,label\n{m_bitcoin('p2sh')},cold storage\n{m_bitcoin('p2wsh')},multisig\n{m_bitcoin('p2tr')},taproot"),
        ("log", "en", lambda: f"2025-04-04 22:10:03 INFO payout sent txid={pick('0123456789abcdef', 64)} to={m_bitcoin()} sats=150000"),
        ("prose", "en", lambda: f"The ransom note demanded 2 BTC sent to {m_bitcoin('p2pkh')}; investigators traced it to an exchange."),
        ("chat", "es", lambda: f"mi dirección de bitcoin es {m_bitcoin('p2wpkh')}, mándame los 50 USDT en BTC"),
        ("markdown", "en", lambda: f"## Support the project\n\n- BTC: `{m_bitcoin('p2wpkh')}`\n- Lightning: see website"),
        ("code", "en", lambda: f'TREASURY_ADDRESSES = ["{m_bitcoin("p2sh")}", "{m_bitcoin("p2tr")}"]'),
        ("email-body", "ru", lambda: f"Добрый день!\n\nОплата принимается на биткоин-адрес {m_bitcoin()}.\n\nС уважением"),
        ("table", "en", lambda: f"| Exchange | Deposit address |\n|---|---|\n| Desk A | {m_bitcoin('p2wpkh')} |\n| Desk B | {m_bitcoin('p2pkh')} |"),
    ]
    # fmt: on


def global_near() -> list[NearMiss]:
    # fmt: off
    return [
        ("mac_address", "log", "en", lambda: f"14:05:33 job started; 14:{rng.randint(10, 59)}:{rng.randint(10, 59)} job finished"),
        ("mac_address", "prose", "en", lambda: f"The key fingerprint is {':'.join(pick('0123456789abcdef', 2) for _ in range(16))}."),
        ("mac_address", "config", "en", lambda: f"interface eth0\n  mtu 9000\n  description uplink-{pick('0123456789abcdef', 12)}"),
        ("crypto", "log", "en", lambda: f"sha256={pick('0123456789abcdef', 64)} layer pulled"),
        ("crypto", "chat", "en", lambda: f"commit {pick('0123456789abcdef', 40)} broke the build"),
        ("crypto", "json", "en", lambda: f'{{"cid": "Qm{pick(B58, 44)}", "pinned": true}}'),
        ("crypto", "chat", "en", lambda: f"is {bad_bitcoin()} right? the wallet says the address is invalid"),
        ("crypto", "form", "en", lambda: f"Withdrawal address: {bad_bitcoin()}\nError: invalid checksum"),
        ("mac_address", "prose", "en", lambda: f"Part {':'.join(pick('0123456789ABCDEF', 2) for _ in range(5))} was swapped during the repair."),
        ("mac_address", "code", "en", lambda: f'COLOR_TABLE = "{pick("0123456789abcdef", 6)}:{pick("0123456789abcdef", 6)}:{pick("0123456789abcdef", 6)}"'),
        ("mac_address", "log", "en", lambda: f"uuid={pick('0123456789abcdef', 8)}-{pick('0123456789abcdef', 4)}-4{pick('0123456789abcdef', 3)}-a{pick('0123456789abcdef', 3)}-{pick('0123456789abcdef', 12)} request done"),
        ("mac_address", "prose", "en", lambda: "Ratio 12:30:45:10:05:55:20 was used for the mix; the clock showed 10:15:00."),
        ("crypto", "chat", "en", lambda: f"the wallet backup id is {pick(B58, 34)}, not an address"),
        ("mac_address", "chat", "en", lambda: f"the label says 00-1A-2B-{pick(HEXU, 2)}-{pick(HEXU, 2)}, looks cut off"),
        ("mac_address", "log", "en", lambda: f"gpu0 bus 0000:{pick(HEXU, 2).lower()}:00.0 temp 71C"),
    ]
    # fmt: on


# --- writing -----------------------------------------------------------------------------------


class LiteralDumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = (
        "|" if "\n" in value and not any(ln != ln.rstrip() for ln in value.split("\n")) else None
    )
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


LiteralDumper.add_representer(str, _str)

CARD_RUN = re.compile(r"(?<![\w.-])\d(?:[ -]?\d){11,18}(?![\w])")


def check(book: Book) -> None:
    """No unlabelled digit run is, by chance, a card number (the corpus conventions would then
    require a label the text does not mean)."""
    for case in book.cases:
        text, labelled = case["text"], []
        for item in case["expect"]:
            start = -1
            for _ in range(item.get("occurrence", 1)):
                start = text.find(item["text"], start + 1)
            labelled.append((start, start + len(item["text"])))
        for match in CARD_RUN.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in labelled):
                continue
            if is_card(re.sub(r"\D", "", match.group())):
                raise ValueError(f"{case['id']}: unlabelled card-like {match.group()!r}")


TARGET = 32  # labelled spans of each kind (at least)


def group(name: str, prefix: str, positive: list[Template], near: list[NearMiss],
          extra: list[Template] = ()) -> Book:  # fmt: skip
    """Cycles through the positive templates until every kind they label has TARGET spans (a
    case whose kinds all have enough is not kept), then adds near misses until they are at least
    a third of the cases."""
    book = Book(name, prefix)
    counts: dict[str, int] = {}
    for _ in range(20):
        for context, language, make in positive:
            marked = make()
            kinds = [m[1] for m in MARK.finditer(marked) if m[1] not in OLD_KINDS]
            if all(counts.get(kind, 0) >= TARGET for kind in kinds):
                continue
            book.add(context, language, marked)
            for kind in kinds:
                counts[kind] = counts.get(kind, 0) + 1
        if all(n >= TARGET for n in counts.values()):
            break
    run(book, extra, 2)
    while True:
        for kind, context, language, make in near:
            book.add(context, language, make())
            book.near_misses[kind] = book.near_misses.get(kind, 0) + 1
        empty = sum(1 for case in book.cases if not case["expect"])
        if empty * 3 >= len(book.cases) + 6:
            break
    check(book)
    return book


OLD_KINDS = {"email", "phone", "ip_address", "credit_card", "iban", "us_ssn", "secret"}


def main() -> None:
    self_test()
    books = [
        group("ids_uk", "ho-uk", uk_positive(), uk_near(), uk_phones()),
        group("ids_eu", "ho-eu", eu_positive(), eu_near()),
        group("ids_asia_pacific", "ho-apac", apac_positive(), apac_near()),
        group("ids_americas_africa", "ho-amaf", americas_africa_positive(), americas_africa_near()),
        group("ids_global", "ho-glob", global_positive(), global_near()),
    ]  # fmt: skip
    for book in books:
        text = yaml.dump(
            book.cases, Dumper=LiteralDumper, allow_unicode=True, sort_keys=False, width=100_000
        )
        (HERE / f"{book.name}.yaml").write_text(text, encoding="utf-8")
    counts: dict[str, int] = {}
    near_misses: dict[str, int] = {}
    for book in books:
        for case in book.cases:
            for item in case["expect"]:
                counts[item["entity"]] = counts.get(item["entity"], 0) + 1
        near_misses.update(book.near_misses)
        near = sum(1 for case in book.cases if not case["expect"])
        print(f"{book.name}: {len(book.cases)} cases, {near} near misses")
    print(f"  {'kind':28} spans  near-miss cases")
    for kind, n in sorted(counts.items()):
        print(f"  {kind:28} {n:5}  {near_misses.get(kind, '')}")
    short = [k for k, n in counts.items() if n < TARGET and k not in OLD_KINDS]
    if short:
        raise SystemExit(f"fewer than {TARGET} spans: {short}")


if __name__ == "__main__":
    main()
