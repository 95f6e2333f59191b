"""Writes europe.yaml: labelled cases of the UK's and the EU's national identifiers (uk_nino,
uk_nhs, uk_passport, uk_driving_licence, es_nif, es_nie, it_fiscal_code, it_vat_code, pl_pesel,
fi_personal_identity_code, se_personnummer, de_tax_id, de_social_security, de_id_card).

The surrounding texts are written by hand below, in the languages of the countries and in
English; the values are drawn from a seeded generator with their check digits computed here,
from the issuing authorities' definitions (not from govcore's detectors), so the file is
reproducible: `python benchmarks/data/detection/make_europe.py`. Marks are those of
make_corpus.py: `⟦entity:value⟧` becomes one expected span. About a third of the cases are near
misses: a wrong check digit or letter, a wrong length, a date that does not exist, and for the
identifiers that are bare digits, the same digits where nothing names them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
NAME = "europe"
rng = random.Random(20261127)

MARK = re.compile(r"⟦([a-z_]+):(.*?)⟧", re.DOTALL)
CASES: list[dict[str, Any]] = []


def add(context: str, language: str, marked: str) -> None:
    """One case; the marks in ``marked`` become its expected spans."""
    plain: list[str] = []
    spans: list[tuple[str, str, int]] = []
    last = position = 0
    for match in MARK.finditer(marked):
        plain.append(marked[last : match.start()])
        position += match.start() - last
        spans.append((match.group(1), match.group(2), position))
        plain.append(match.group(2))
        position += len(match.group(2))
        last = match.end()
    plain.append(marked[last:])
    text = "".join(plain)
    assert "⟦" not in text, marked
    assert "⟧" not in text, marked
    expect = []
    for entity, value, start in spans:
        starts = [i for i in range(len(text)) if text.startswith(value, i)]
        item: dict[str, Any] = {"entity": entity, "text": value}
        if len(starts) > 1:
            item["occurrence"] = starts.index(start) + 1
        expect.append(item)
    CASES.append(
        {
            "id": f"{NAME}-{len(CASES) + 1:03d}",
            "context": context,
            "language": language,
            "text": text,
            "expect": expect,
        }
    )


def digits(count: int, first: str = "0123456789") -> str:
    return rng.choice(first) + "".join(rng.choice("0123456789") for _ in range(count - 1))


def birth() -> tuple[int, int, int]:
    """A date of birth between 1935 and 2012 (28th at the latest, so every month has it)."""
    return rng.randint(1935, 2012), rng.randint(1, 12), rng.randint(1, 28)


def luhn_digit(body: str) -> str:
    """The digit that makes ``body`` + digit pass Luhn (doubling every second digit from the
    right of the completed number)."""
    total = 0
    for index, char in enumerate(reversed(body)):
        value = int(char) * (2 if index % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return str(-total % 10)


def bump(value: str, index: int = -1) -> str:
    """``value`` with one digit (the last by default) changed: a wrong check digit."""
    position = index % len(value)
    old = value[position]
    new = str((int(old) + rng.randint(1, 9)) % 10)
    return value[:position] + new + value[position + 1 :]


# ----------------------------------------------------------------------------- the UK

NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"  # not D, F, I, Q, U, V
NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"  # nor O
NINO_BARRED = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def nino(form: int | None = None) -> str:
    while True:
        prefix = rng.choice(NINO_FIRST) + rng.choice(NINO_SECOND)
        if prefix not in NINO_BARRED:
            break
    number, suffix = digits(6), rng.choice("ABCD")
    form = rng.randrange(3) if form is None else form
    if form == 0:
        return f"{prefix} {number[:2]} {number[2:4]} {number[4:]} {suffix}"
    if form == 1:
        return f"{prefix}{number}{suffix}"
    return f"{prefix} {number} {suffix}"


def nhs_digits() -> str:
    while True:
        body = digits(9, "4567")
        check = 11 - sum(int(c) * (10 - i) for i, c in enumerate(body)) % 11
        if check == 11:
            check = 0
        if check != 10:
            return body + str(check)


def nhs(spaced: bool = True) -> str:
    number = nhs_digits()
    return f"{number[:3]} {number[3:6]} {number[6:]}" if spaced else number


def passport() -> str:
    return digits(9, "123456789")


SURNAMES = ["MORGAN", "SMITH", "PATEL", "OKAFOR", "LI", "WOODWARD", "EVANS", "KHAN", "NG", "BROWN"]


def licence(spaced: bool = False) -> str:
    surname = (rng.choice(SURNAMES) + "99999")[:5]
    year, month, day = birth()
    month += 50 * rng.randrange(2)
    initials = rng.choice("AJMRST") + rng.choice("ABEKLN9")
    tail = rng.choice("0123456789") + rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") * 1
    tail += rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    middle = f"{year // 10 % 10}{month:02d}{day:02d}{year % 10}"
    if spaced:
        return f"{surname} {middle} {initials}{tail}"
    return f"{surname}{middle}{initials}{tail}"


# ----------------------------------------------------------------------------- Spain

DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni(form: int | None = None) -> str:
    number = digits(8)
    letter = DNI_LETTERS[int(number) % 23]
    form = rng.randrange(4) if form is None else form
    if form == 1:
        return f"{number}-{letter}"
    if form == 2:
        return f"{number[:2]}.{number[2:5]}.{number[5:]}-{letter}"
    if form == 3:
        return f"{number} {letter}"
    return number + letter


def nie(dashed: bool | None = None) -> str:
    prefix, number = rng.choice("XYZ"), digits(7)
    letter = DNI_LETTERS[int(str("XYZ".index(prefix)) + number) % 23]
    if dashed if dashed is not None else rng.random() < 0.3:
        return f"{prefix}-{number}-{letter}"
    return f"{prefix}{number}{letter}"


def wrong_letter(value: str) -> str:
    letters = [c for c in DNI_LETTERS if c != value[-1]]
    return value[:-1] + rng.choice(letters)


# ----------------------------------------------------------------------------- Italy

CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25,
          24, 23]  # fmt: skip
CF_MONTHS = "ABCDEHLMPRST"
CONSONANTS = "BCDFGHLMNPRSTVZ"


def cf_check(fifteen: str) -> str:
    def rank(c: str) -> int:
        return int(c) if c.isdigit() else ord(c) - 65

    total = sum(CF_ODD[rank(c)] for c in fifteen[0::2]) + sum(rank(c) for c in fifteen[1::2])
    return chr(65 + total % 26)


def fiscal_code(valid: bool = True) -> str:
    letters = "".join(rng.choice(CONSONANTS) for _ in range(4)) + rng.choice("AEIOU") * 1
    letters += rng.choice(CONSONANTS)
    year, month, day = birth()
    day += 40 * rng.randrange(2)
    place = rng.choice("ABCDEFGHLMZ") + digits(3)
    fifteen = f"{letters}{year % 100:02d}{CF_MONTHS[month - 1]}{day:02d}{place}"
    check = cf_check(fifteen)
    if not valid:
        check = chr(65 + (ord(check) - 65 + rng.randint(1, 25)) % 26)
    return fifteen + check


VAT_OFFICES = [*range(1, 101), 120, 121, 888, 999]


def vat_digits() -> str:
    body = digits(7) + f"{rng.choice(VAT_OFFICES):03d}"
    return body + luhn_digit(body)


# ----------------------------------------------------------------------------- Poland, Finland,
# Sweden


def pesel(valid: bool = True) -> str:
    year, month, day = birth()
    month += {19: 0, 20: 20}[year // 100]
    body = f"{year % 100:02d}{month:02d}{day:02d}{digits(4)}"
    weights = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    check = (10 - sum(int(c) * w for c, w in zip(body, weights, strict=True)) % 10) % 10
    number = body + str(check)
    return number if valid else bump(number)


HETU_CHECKS = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def hetu(valid: bool = True) -> str:
    year, month, day = birth()
    sign = rng.choice("-Y") if year < 2000 else rng.choice("AB")
    individual = f"{rng.randint(2, 899):03d}"
    nine = f"{day:02d}{month:02d}{year % 100:02d}{individual}"
    check = HETU_CHECKS[int(nine) % 31]
    if not valid:
        check = rng.choice(HETU_CHECKS.replace(check, ""))
    return f"{nine[:6]}{sign}{individual}{check}"


def personnummer(form: int, valid: bool = True) -> str:
    year, month, day = birth()
    body = f"{year % 100:02d}{month:02d}{day:02d}{digits(3)}"
    number = body + luhn_digit(body)
    if not valid:
        number = bump(number)
    if form == 0:
        return f"{number[:6]}-{number[6:]}"
    if form == 1:
        return f"{year // 100}{number[:6]}-{number[6:]}"
    if form == 2:
        return f"{year // 100}{number}"
    return number


# ----------------------------------------------------------------------------- Germany


def tax_id(grouped: bool = False, valid: bool = True) -> str:
    while True:
        pool = rng.sample("0123456789", 9)
        doubled = rng.choice(pool)
        ten = [*pool, doubled]
        rng.shuffle(ten)
        if ten[0] != "0":
            break
    product = 10
    for char in ten:
        total = (int(char) + product) % 10 or 10
        product = total * 2 % 11
    number = "".join(ten) + str((11 - product) % 10)
    if not valid:
        number = bump(number)
    if grouped:
        return f"{number[:2]} {number[2:5]} {number[5:8]} {number[8:]}"
    return number


def pension_number(spaced: bool = False, valid: bool = True) -> str:
    area = rng.choice(["12", "13", "15", "24", "28", "38", "40", "53", "65", "81"])
    year, month, day = birth()
    letter = rng.choice("ABCDEFGHIJKLMNOPRSTUVWZ")
    serial = f"{rng.randrange(100):02d}"
    spread = f"{area}{day:02d}{month:02d}{year % 100:02d}{ord(letter) - 64:02d}{serial}"
    weights = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1]
    check = sum(sum(divmod(int(c) * w, 10)) for c, w in zip(spread, weights, strict=True)) % 10
    if not valid:
        check = (check + rng.randint(1, 9)) % 10
    date = f"{day:02d}{month:02d}{year % 100:02d}"
    if spaced:
        return f"{area} {date} {letter} {serial}{check}"
    return f"{area}{date}{letter}{serial}{check}"


CARD_ALPHABET = "0123456789CFGHJKLMNPRTVWXYZ"


def id_card(with_check: bool = True, valid: bool = True) -> str:
    while True:
        serial = rng.choice("CFGHJKLMNPRTVWXYZ") + "".join(
            rng.choice(CARD_ALPHABET) for _ in range(8)
        )
        if any(c.isdigit() for c in serial[1:]):
            break
    values = [int(c) if c.isdigit() else ord(c) - 55 for c in serial]
    check = sum(v * (7, 3, 1)[i % 3] for i, v in enumerate(values)) % 10
    if not valid:
        check = (check + rng.randint(1, 9)) % 10
    return serial + str(check) if with_check else serial


# ----------------------------------------------------------------------------- cases

Template = tuple[str, str, str]  # context, language, text with {v} (marked) or {n} (plain)


def positives(kind: str, make: Callable[[], str], templates: list[Template], rounds: int) -> None:
    for _ in range(rounds):
        for context, language, template in templates:
            add(context, language, template.format(v=f"⟦{kind}:{make()}⟧"))


def near_misses(make: Callable[[], str], templates: list[Template], rounds: int = 1) -> None:
    for _ in range(rounds):
        for context, language, template in templates:
            add(context, language, template.format(n=make()))


def build() -> None:
    # --- uk_nino
    positives("uk_nino", nino, [
        ("prose", "en", "Please quote your National Insurance number {v} on the form."),
        ("email-body", "en", "Hi Sam,\nHMRC wrote to me; my NI number is {v}.\nThanks, Ali"),
        ("form", "en", "Employee: Jordan Price\nNINO: {v}\nTax code: 1257L"),
        ("json", "en", '{{"employee_id": "E-2291", "ni_number": "{v}", "status": "active"}}'),
        ("csv", "en", "name,nino,start\nR. Osei,{v},March"),
        ("chat", "en", "yeah it's {v} i think, double check with payroll"),
        ("prose", "de", "Seine britische Sozialversicherungsnummer (NINO) lautet {v}."),
        ("log", "en", "INFO payroll.sync matched record nino={v} to employee E-1182"),
    ], 4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "en", "HMRC's examples use the prefix QQ, as in QQ 12 34 56 C."),
        ("prose", "en", "Prefixes such as DA 12 34 56 B are never issued."),
        ("form", "en", "NINO: GB 73 18 20 A (not allocated)"),
        ("prose", "en", "The suffix is A to D: AB 12 34 56 E is not valid."),
        ("code", "en", "sku = 'xab123456cz'  # a product code"),
        ("log", "en", "order AB1234567C shipped"),
        ("prose", "en", "Reference TN 12 34 56 D was rejected."),
    ])  # fmt: skip

    # --- uk_nhs
    positives("uk_nhs", lambda: nhs(spaced=rng.random() < 0.6), [
        ("prose", "en", "My NHS number is {v}, registered at the Leeds surgery."),
        ("form", "en", "Patient: Ellen Marsh\nNHS No: {v}\nGP: Dr Hale"),
        ("json", "en", '{{"patient": {{"nhs_number": "{v}", "ward": "B4"}}}}'),
        ("email-body", "en", "Dear team,\nplease update the record for NHS number {v}.\nRegards"),
        ("table", "en", "| NHS number | clinic |\n|---|---|\n| {v} | cardiology |"),
        ("chat", "en", "nhs no. is {v} if you need it"),
    ], 4)  # fmt: skip
    positives("uk_nhs", nhs, [
        ("prose", "en", "Referral letter for patient {v}, seen in clinic on Monday."),
        ("log", "en", "WARN records: duplicate patient {v} merged"),
    ], 4)  # fmt: skip
    near_misses(lambda: bump(nhs_digits()), [
        ("prose", "en", "NHS number {n} was rejected by the spine: the check digit is wrong."),
        ("form", "en", "NHS No: {n}"),
    ], rounds=4)  # fmt: skip
    near_misses(nhs_digits, [
        ("log", "en", "order {n} dispatched to the warehouse"),
        ("csv", "en", "invoice,amount\n{n},120.00"),
        ("code", "en", "timestamp = {n}"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "en", "Call us on ⟦phone:800-762-9645⟧ or fax the form."),
        ("prose", "en", "NHS number 000 000 0000 is a placeholder."),
    ])  # fmt: skip

    # --- uk_passport
    positives("uk_passport", passport, [
        ("prose", "en", "My passport number is {v} and it expires next year."),
        ("form", "en", "Passport No.: {v}\nNationality: British"),
        ("json", "en", '{{"traveller": "K. Adeyemi", "passport": "{v}"}}'),
        ("email-body", "en", "Hello,\nfor the visa appointment: passport {v}.\nBest"),
        ("prose", "de", "Die Reisepassnummer lautet {v}."),
        ("prose", "fr", "Numéro de passeport : {v}"),
        ("prose", "es", "Mi número de pasaporte es {v}."),
        ("csv", "en", "name,passport_number\nA. Grey,{v}"),
    ], 4)  # fmt: skip
    near_misses(passport, [
        ("log", "en", "request {n} took 12 ms"),
        ("prose", "en", "Tracking number {n} is on its way."),
        ("csv", "en", "id,amount\n{n},40"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: digits(8, "123456789"), [
        ("prose", "en", "Passport number {n} has only eight digits; check it again."),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: digits(10, "123456789"), [
        ("form", "en", "Passport No: {n}"),
    ], rounds=4)  # fmt: skip

    # --- uk_driving_licence
    positives("uk_driving_licence", lambda: licence(spaced=rng.random() < 0.25), [
        ("prose", "en", "Driving licence number: {v}"),
        ("form", "en", "Name: L. Morgan\nLicence: {v}\nCategories: B, AM"),
        ("json", "en", '{{"driver": {{"licence_no": "{v}", "points": 3}}}}'),
        ("email-body", "en", "Hi,\nattached is my licence ({v}) for the hire car.\nTom"),
        ("chat", "en", "licence is {v}"),
        ("csv", "en", "driver,licence\nP. Khan,{v}"),
        ("log", "en", "DVLA check ok for {v}"),
        ("prose", "de", "Britischer Führerschein Nr. {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "en", "Licence MORGA713116SM9IJ has month 13 and cannot exist."),
        ("prose", "en", "The code MORGA753326SM9IJ names day 32."),
        ("code", "en", "const key = 'ABCDE123456FGHIJ';"),
        ("log", "en", "build 9ORGA753116SM9IJ failed"),
    ])  # fmt: skip

    # --- es_nif
    positives("es_nif", dni, [
        ("prose", "es", "Mi DNI es {v} y vivo en Valencia."),
        ("form", "es", "Nombre: Lucía Ortega\nNIF: {v}\nProvincia: Sevilla"),
        ("json", "es", '{{"cliente": {{"nif": "{v}", "alta": true}}}}'),
        ("email-body", "es", "Hola,\nadjunto la factura a nombre de {v}.\nSaludos"),
        ("csv", "es", "nombre,dni\nPablo Ruiz,{v}"),
        ("prose", "en", "The Spanish tax number on the contract is {v}."),
        ("sql", "en", "INSERT INTO clientes (nif) VALUES ('{v}');"),
        ("chat", "es", "el dni es {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: wrong_letter(dni(0)), [
        ("prose", "es", "El DNI {n} no es válido: la letra no corresponde."),
        ("form", "es", "NIF: {n}"),
        ("csv", "es", "dni\n{n}"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: digits(7) + rng.choice(DNI_LETTERS), [
        ("prose", "es", "Código {n} de siete cifras."),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "es", "El DNI de prueba 00000000T no corresponde a nadie."),
        ("code", "en", "version = '12345678ZB'"),
    ])  # fmt: skip

    # --- es_nie
    positives("es_nie", nie, [
        ("prose", "es", "Mi NIE es {v}, tramitado en Madrid."),
        ("form", "es", "Extranjero: J. Müller\nNIE: {v}"),
        ("json", "es", '{{"nie": "{v}", "pais": "DE"}}'),
        ("email-body", "en", "Hi,\nmy Spanish foreigner number (NIE) is {v}.\nCheers"),
        ("csv", "es", "nombre,nie\nAnna Kowalska,{v}"),
        ("prose", "de", "Die spanische NIE-Nummer lautet {v}."),
        ("chat", "es", "nie {v} gracias"),
        ("log", "en", "kyc.verify nie={v} result=ok"),
    ], 4)  # fmt: skip
    near_misses(lambda: wrong_letter(nie(False)), [
        ("prose", "es", "El NIE {n} tiene la letra de control equivocada."),
        ("form", "es", "NIE: {n}"),
        ("json", "es", '{{"nie": "{n}"}}'),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "es", "Un NIE empieza por X, Y o Z; W1234567L no lo es."),
        ("code", "en", "color = 'X123456'"),
    ])  # fmt: skip

    # --- it_fiscal_code
    positives("it_fiscal_code", fiscal_code, [
        ("prose", "it", "Il mio codice fiscale è {v}."),
        ("form", "it", "Nome: Giulia Conti\nCodice fiscale: {v}\nComune: Torino"),
        ("json", "it", '{{"anagrafica": {{"cf": "{v}", "eta": 41}}}}'),
        ("email-body", "it", "Buongiorno,\nper la fattura usate il CF {v}.\nCordiali saluti"),
        ("csv", "it", "nome,codice_fiscale\nMarco Bruno,{v}"),
        ("prose", "en", "Her Italian tax code is {v}."),
        ("sql", "en", "SELECT * FROM pazienti WHERE cf = '{v}';"),
        ("chat", "it", "cf {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: fiscal_code(valid=False), [
        ("prose", "it", "Il codice fiscale {n} non è valido: il carattere di controllo è errato."),
        ("form", "it", "Codice fiscale: {n}"),
        ("csv", "it", "cf\n{n}"),
        ("json", "it", '{{"cf": "{n}"}}'),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("code", "en", "HASH = 'ABCDEF12G34H567I'"),
        ("prose", "it", "Esempio troncato: RSSMRA85T10A562"),
    ])  # fmt: skip

    # --- it_vat_code
    positives("it_vat_code", lambda: "IT" + vat_digits(), [
        ("prose", "it", "Fattura intestata a Rossi S.r.l., {v}."),
        ("form", "it", "Ragione sociale: Bianchi SpA\nVAT: {v}"),
        ("json", "en", '{{"supplier": "Verdi Srl", "vat_id": "{v}"}}'),
    ], 4)  # fmt: skip
    positives("it_vat_code", vat_digits, [
        ("prose", "it", "Partita IVA {v}, sede legale a Milano."),
        ("email-body", "it", "Gentili,\nla nostra P.IVA è {v}.\nGrazie"),
        ("form", "it", "P. IVA: {v}\nPEC: amministrazione"),
        ("csv", "it", "fornitore,partita_iva\nNeri Snc,P.IVA {v}"),
        ("prose", "en", "Their Italian VAT number is {v}."),
    ], 4)  # fmt: skip
    near_misses(lambda: bump(vat_digits()), [
        ("prose", "it", "La partita IVA {n} non supera il controllo."),
        ("form", "it", "P.IVA: {n}"),
    ], rounds=4)  # fmt: skip
    near_misses(vat_digits, [
        ("log", "en", "batch {n} processed"),
        ("csv", "en", "order,total\n{n},99.90"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: digits(10), [
        ("prose", "it", "Partita IVA {n} (dieci cifre: incompleta)."),
    ], rounds=4)  # fmt: skip

    # --- pl_pesel
    positives("pl_pesel", pesel, [
        ("prose", "pl", "Mój numer PESEL to {v}."),
        ("form", "pl", "Imię i nazwisko: Anna Nowak\nPESEL: {v}"),
        ("json", "pl", '{{"pacjent": {{"pesel": "{v}", "oddzial": 3}}}}'),
        ("email-body", "pl", "Dzień dobry,\nproszę o zmianę danych dla PESEL {v}.\nPozdrawiam"),
        ("csv", "pl", "nazwisko,pesel\nKowalski,{v}"),
        ("prose", "en", "Her Polish PESEL number is {v}."),
        ("chat", "pl", "pesel {v}"),
        ("log", "en", "patient {v} admitted to ward 3"),
    ], 4)  # fmt: skip
    near_misses(lambda: pesel(valid=False), [
        ("prose", "pl", "Numer PESEL {n} jest nieprawidłowy."),
        ("form", "pl", "PESEL: {n}"),
        ("csv", "pl", "pesel\n{n}"),
        ("json", "pl", '{{"pesel": "{n}"}}'),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "pl", "PESEL 44131401358 ma miesiąc 13."),
        ("code", "en", "id = 4405140135"),
    ])  # fmt: skip

    # --- fi_personal_identity_code
    positives("fi_personal_identity_code", hetu, [
        ("prose", "fi", "Henkilötunnukseni on {v}."),
        ("form", "fi", "Nimi: Matti Virtanen\nHenkilötunnus: {v}"),
        ("json", "fi", '{{"asiakas": {{"hetu": "{v}"}}}}'),
        ("email-body", "fi", "Hei,\nhakemuksen henkilötunnus on {v}.\nTerveisin"),
        ("csv", "fi", "nimi,hetu\nLiisa Korhonen,{v}"),
        ("prose", "en", "The Finnish personal identity code is {v}."),
        ("prose", "sv", "Finsk personbeteckning: {v}"),
        ("log", "en", "kela.lookup id={v} ok"),
    ], 4)  # fmt: skip
    near_misses(lambda: hetu(valid=False), [
        ("prose", "fi", "Henkilötunnus {n} on virheellinen."),
        ("form", "fi", "Henkilötunnus: {n}"),
        ("csv", "fi", "hetu\n{n}"),
        ("json", "fi", '{{"hetu": "{n}"}}'),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "fi", "Päivämäärä 300290-123X ei ole olemassa."),
        ("log", "en", "range 131052-3080 bytes"),
    ])  # fmt: skip

    # --- se_personnummer
    positives("se_personnummer", lambda: personnummer(rng.choice([0, 0, 1])), [
        ("prose", "sv", "Mitt personnummer är {v}."),
        ("form", "sv", "Namn: Erik Lindqvist\nPersonnummer: {v}"),
        ("json", "sv", '{{"kund": {{"pnr": "{v}"}}}}'),
        ("email-body", "sv", "Hej,\nansökan gäller {v}.\nMed vänliga hälsningar"),
        ("csv", "sv", "namn,personnummer\nKarin Berg,{v}"),
        ("prose", "en", "The Swedish ID on file is {v}."),
    ], 4)  # fmt: skip
    positives("se_personnummer", lambda: personnummer(3), [
        ("prose", "sv", "Personnummer {v} registrerat."),
        ("form", "sv", "Pnr: {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: personnummer(0, valid=False), [
        ("prose", "sv", "Personnumret {n} har fel kontrollsiffra."),
        ("form", "sv", "Personnummer: {n}"),
        ("csv", "sv", "pnr\n{n}"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: personnummer(3), [
        ("log", "en", "order {n} shipped"),
        ("prose", "sv", "Ring ordernummer {n} om frågor."),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "sv", "Datumet 811328-9874 har månad 13."),
    ])  # fmt: skip

    # --- de_tax_id
    positives("de_tax_id", lambda: tax_id(grouped=rng.random() < 0.4), [
        ("prose", "de", "Meine Steuer-ID lautet {v}."),
        ("form", "de", "Name: Jonas Weber\nSteuerliche Identifikationsnummer: {v}"),
        ("json", "de", '{{"mitarbeiter": {{"steuer_id": "Steuer-ID {v}"}}}}'),
        ("email-body", "de", "Hallo,\nbitte tragen Sie die IdNr {v} ein.\nGrüße"),
        ("csv", "de", "name,identifikationsnummer\nM. Schulz,IdNr. {v}"),
        ("prose", "en", "His German tax ID is {v}."),
        ("chat", "de", "steuer-id ist {v}"),
        ("form", "de", "Identifikationsnummer (IdNr.): {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: tax_id(valid=False), [
        ("prose", "de", "Die Steuer-ID {n} ist ungültig (Prüfziffer)."),
        ("form", "de", "Steuer-ID: {n}"),
        ("csv", "de", "steuer_id\n{n}"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "de", "Eine Steuer-ID beginnt nie mit 0: 01234567891."),
        ("prose", "de", "Steuer-ID 12345678903 (jede Ziffer nur einmal)."),
    ])  # fmt: skip

    # --- de_social_security
    positives("de_social_security", lambda: pension_number(spaced=rng.random() < 0.5), [
        ("prose", "de", "Meine Rentenversicherungsnummer ist {v}."),
        ("form", "de", "Name: Petra Lange\nSozialversicherungsnummer: {v}"),
        ("json", "de", '{{"svnr": "{v}", "kasse": "AOK"}}'),
        ("email-body", "de", "Guten Tag,\nmeine Versicherungsnummer lautet {v}.\nMfG"),
        ("csv", "de", "name,svnr\nT. Braun,{v}"),
        ("prose", "en", "The German social security number is {v}."),
        ("log", "en", "drv.sync vsnr={v} status=ok"),
        ("chat", "de", "SV-Nummer {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: pension_number(valid=False), [
        ("prose", "de", "Die Versicherungsnummer {n} hat eine falsche Prüfziffer."),
        ("form", "de", "SV-Nummer: {n}"),
        ("csv", "de", "svnr\n{n}"),
        ("json", "de", '{{"svnr": "{n}"}}'),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "de", "Die Nummer 65 320839 J 003 enthält den 32. Tag."),
    ])  # fmt: skip

    # --- de_id_card
    positives("de_id_card", id_card, [
        ("prose", "de", "Meine Personalausweisnummer ist {v}."),
        ("form", "de", "Name: Lea Hoffmann\nAusweisnummer: {v}"),
        ("json", "de", '{{"kunde": {{"ausweis_nr": "{v}"}}}}'),
        ("email-body", "de", "Hallo,\ndie Nummer meines Personalausweises: {v}.\nDanke"),
        ("csv", "de", "name,ausweis\nK. Wolf,{v}"),
        ("prose", "en", "German ID card number: {v}"),
        ("log", "en", "eid.verify doc={v} result=valid"),
    ], 4)  # fmt: skip
    positives("de_id_card", lambda: id_card(with_check=False), [
        ("form", "de", "Personalausweis Nr.: {v}"),
    ], 4)  # fmt: skip
    near_misses(lambda: id_card(valid=False), [
        ("prose", "de", "Die Ausweisnummer {n} hat eine falsche Prüfziffer."),
        ("form", "de", "Ausweisnummer: {n}"),
        ("csv", "de", "ausweis\n{n}"),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: id_card(with_check=False), [
        ("log", "en", "artifact {n} uploaded"),
        ("prose", "de", "Artikelnummer {n} ist vorrätig."),
    ], rounds=4)  # fmt: skip
    near_misses(lambda: "", [
        ("prose", "de", "Vokale kommen nicht vor: A22000129 ist keine Ausweisnummer."),
    ])  # fmt: skip


def write() -> None:
    class Dumper(yaml.SafeDumper):
        pass

    def str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
        style = (
            "|" if "\n" in data and not data.endswith((" ", "\t")) and " \n" not in data else None
        )
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, str_presenter)
    path = HERE / f"{NAME}.yaml"
    header = f"# Labelled detection cases: {NAME}. Generated by make_{NAME}.py; see README.md.\n"
    body = yaml.dump(CASES, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=1000)
    path.write_text(header + body, encoding="utf-8")
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == CASES, "YAML round trip"


if __name__ == "__main__":
    build()
    write()
    spans = sum(len(c["expect"]) for c in CASES)
    misses = sum(1 for c in CASES if not c["expect"])
    print(f"{NAME}: cases={len(CASES)} spans={spans} near-miss cases={misses}")
