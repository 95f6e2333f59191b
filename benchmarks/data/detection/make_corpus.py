"""Writes the labelled detection corpus (the YAML files beside this script).

The surrounding texts are written by hand below; the values in them (card numbers, IBANs, phone
numbers, tokens ...) are drawn fresh from a seeded generator, with check digits computed here, so
the corpus is reproducible: `python benchmarks/data/detection/make_corpus.py`.

A case text is written with inline marks `⟦entity:value⟧` or `⟦secret/family:value⟧`; the marks are
removed and each becomes one expected span, so a label can never drift from its text.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
rng = random.Random(20240611)

DIGITS = string.digits
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def rs(length: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


# ----------------------------------------------------------------------------- checksums


def luhn_ok(number: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def luhn_complete(prefix: str, length: int, valid: bool = True) -> str:
    body = prefix + rs(length - len(prefix) - 1, DIGITS)
    for check in DIGITS:
        if luhn_ok(body + check) == valid:
            return body + check
    raise AssertionError("unreachable")


def group(number: str, sizes: list[int], sep: str) -> str:
    parts, at = [], 0
    for size in sizes:
        parts.append(number[at : at + size])
        at += size
    if at < len(number):
        parts.append(number[at:])
    return sep.join(p for p in parts if p)


def card_layout(number: str, sep: str) -> str:
    if sep == "":
        return number
    layouts = {14: [4, 6, 4], 15: [4, 6, 5], 16: [4, 4, 4, 4], 19: [4, 4, 4, 4, 3]}
    return group(number, layouts.get(len(number), [4] * 5), sep)


# Issuer prefixes and the lengths each uses.
ISSUERS: list[tuple[str, list[str], list[int]]] = [
    ("visa", ["4"], [16, 16, 16, 13, 19]),
    ("mastercard", ["51", "52", "53", "54", "55", "2221", "2300", "2500", "2720"], [16]),
    ("amex", ["34", "37"], [15]),
    ("discover", ["6011", "644", "647", "649", "65"], [16, 16, 19]),
    ("jcb", ["3528", "3530", "3566", "3589"], [16]),
    ("diners", ["36", "300", "305", "38"], [14, 16]),
    ("unionpay", ["62"], [16, 19]),
    ("maestro", ["50", "56", "58", "67"], [12, 16, 19]),
]


def fresh_card(issuer: str | None = None) -> str:
    _name, prefixes, lengths = (
        next(i for i in ISSUERS if i[0] == issuer) if issuer else rng.choice(ISSUERS)
    )
    return luhn_complete(rng.choice(prefixes), rng.choice(lengths))


def card_text(number: str, sep: str | None = None) -> str:
    if sep is None:
        sep = rng.choice([" ", " ", "-", ""]) if len(number) in (14, 15, 16, 19) else ""
    return card_layout(number, sep)


IBAN_FORMATS: dict[str, list[tuple[int, str]]] = {
    # country -> BBAN made of (count, n=digits | a=upper letters | c=alphanumeric upper)
    "DE": [(18, "n")],
    "FR": [(10, "n"), (11, "c"), (2, "n")],
    "ES": [(20, "n")],
    "IT": [(1, "a"), (10, "n"), (12, "c")],
    "NL": [(4, "a"), (10, "n")],
    "GB": [(4, "a"), (14, "n")],
    "BE": [(12, "n")],
    "CH": [(5, "n"), (12, "c")],
    "AT": [(16, "n")],
    "PL": [(24, "n")],
    "PT": [(21, "n")],
    "IE": [(4, "a"), (14, "n")],
    "LU": [(3, "n"), (13, "c")],
    "NO": [(11, "n")],
    "DK": [(14, "n")],
    "SE": [(20, "n")],
    "FI": [(14, "n")],
}
IBAN_LENGTHS = {cc: 4 + sum(n for n, _ in parts) for cc, parts in IBAN_FORMATS.items()}


def iban_check(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    value = int("".join(str(int(c, 36)) for c in rearranged))
    return f"{98 - value % 97:02d}"


def iban_mod97_ok(iban: str) -> bool:
    compact = iban.replace(" ", "")
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def fresh_bban(country: str) -> str:
    alphabets = {"n": DIGITS, "a": string.ascii_uppercase, "c": UPPER_DIGITS}
    return "".join(rs(n, alphabets[kind]) for n, kind in IBAN_FORMATS[country])


def fresh_iban(country: str | None = None) -> str:
    country = country or rng.choice(list(IBAN_FORMATS))
    bban = fresh_bban(country)
    return country + iban_check(country, bban) + bban


def iban_text(iban: str, spaced: bool | None = None) -> str:
    if spaced is None:
        spaced = rng.random() < 0.6
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if spaced else iban


def truncated_iban(country: str) -> str:
    """Passes mod-97 but is two characters short for its country."""
    bban = fresh_bban(country)[:-2]
    return country + iban_check(country, bban) + bban


def broken_iban(country: str) -> str:
    """Right length, wrong check digits."""
    good = fresh_iban(country)
    wrong = f"{(int(good[2:4]) + rng.randint(1, 90)) % 97 + 2:02d}"
    return good[:2] + wrong + good[4:]


def creditor_reference() -> str:
    """ISO 11649 'RF' reference: mod-97 valid, but RF is no IBAN country."""
    ref = rs(12, DIGITS)
    return "RF" + iban_check("RF", ref) + ref


# ----------------------------------------------------------------------------- phones


def d(n: int) -> str:
    return rs(n, DIGITS)


def nz(n: int) -> str:
    return rng.choice("23456789") + d(n - 1)


US_AREAS = ["212", "415", "312", "617", "206", "303", "512", "404", "713", "602", "503", "919"]


def phone(country: str) -> str:
    a = rng.choice(US_AREAS)
    forms: dict[str, list[Callable[[], str]]] = {
        "us": [
            lambda: f"({a}) {nz(3)}-{d(4)}",
            lambda: f"+1 {a}-{nz(3)}-{d(4)}",
            lambda: f"{a}.{nz(3)}.{d(4)}",
            lambda: f"{a}-555-01{d(2)}",
            lambda: f"+1 ({a}) {nz(3)} {d(4)}",
            lambda: f"1-800-{nz(3)}-{d(4)}",
        ],
        "gb": [
            lambda: f"+44 20 7946 0{d(3)}",
            lambda: f"020 7946 0{d(3)}",
            lambda: f"+44 7700 900{d(3)}",
            lambda: f"07700 900{d(3)}",
            lambda: f"0161 496 0{d(3)}",
        ],
        "de": [
            lambda: f"+49 30 {nz(4)} {d(4)}",
            lambda: f"030 {nz(8)}",
            lambda: f"+49 (0)89 {nz(6)}-{d(2)}",
            lambda: f"0171 {nz(7)}",
            lambda: f"+49 151 {nz(8)}",
            lambda: f"040/{nz(6)}-0",
        ],
        "fr": [
            lambda: f"+33 1 {nz(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"01 {nz(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"06 {d(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"+33 (0)6 {d(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"04.{nz(2)}.{d(2)}.{d(2)}.{d(2)}",
        ],
        "es": [
            lambda: f"+34 91 {nz(3)} {d(2)} {d(2)}",
            lambda: f"93 {nz(3)} {d(2)} {d(2)}",
            lambda: f"6{d(2)} {d(3)} {d(3)}",
            lambda: f"+34 6{d(8)}",
        ],
        "it": [
            lambda: f"+39 06 {nz(4)} {d(4)}",
            lambda: f"02 {nz(4)} {d(4)}",
            lambda: f"+39 347 {nz(3)} {d(4)}",
            lambda: f"333 {nz(7)}",
        ],
        "jp": [
            lambda: f"03-{nz(4)}-{d(4)}",
            lambda: f"+81 3-{nz(4)}-{d(4)}",
            lambda: f"090-{nz(4)}-{d(4)}",
            lambda: f"+81 90 {nz(4)} {d(4)}",
            lambda: f"06-{nz(4)}-{d(4)}",
        ],
        "pt": [
            lambda: f"+351 21 {nz(3)} {d(4)}",
            lambda: f"912 {d(3)} {d(3)}",
            lambda: f"+351 93 {nz(3)} {d(4)}",
        ],
        "nl": [
            lambda: f"+31 20 {nz(3)} {d(4)}",
            lambda: f"020-{nz(7)}",
            lambda: f"06-{nz(8)}",
            lambda: f"+31 6 {nz(8)}",
        ],
        "br": [lambda: f"+55 11 9{d(4)}-{d(4)}", lambda: f"(21) 9{d(4)}-{d(4)}"],
        "ch": [lambda: f"+41 44 {nz(3)} {d(2)} {d(2)}"],
    }
    return rng.choice(forms[country])()


# ----------------------------------------------------------------------------- SSNs, IPs, emails


def fresh_ssn(sep: str = "-") -> str:
    while True:
        area = rng.randint(1, 899)
        if area != 666:
            break
    return f"{area:03d}{sep}{rng.randint(1, 99):02d}{sep}{rng.randint(1, 9999):04d}"


def ipv4(kind: str | None = None) -> str:
    kind = kind or rng.choice(["private10", "private192", "private172", "doc", "public"])
    if kind == "private10":
        return f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    if kind == "private192":
        return f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    if kind == "private172":
        return f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    if kind == "doc":
        return rng.choice(["192.0.2", "198.51.100", "203.0.113"]) + f".{rng.randint(1, 254)}"
    return (
        f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    )


def h16() -> str:
    return format(rng.randint(1, 0xFFFF), "x")


def ipv6() -> str:
    forms = [
        lambda: f"2001:db8::{h16()}",
        lambda: f"2001:db8:{h16()}:{h16()}::{h16()}",
        lambda: ":".join(["2001", "db8"] + [h16() for _ in range(6)]),
        lambda: f"fd{rng.randint(0, 255):02x}:{h16()}:{h16()}::{h16()}",
        lambda: f"2a02:{h16()}:{h16()}:{h16()}::{h16()}",
    ]
    return rng.choice(forms)()


FIRST = [
    "anna",
    "jonas",
    "marie",
    "lucas",
    "sofia",
    "mateo",
    "yuki",
    "hiro",
    "emma",
    "noah",
    "chiara",
    "luca",
    "ines",
    "tiago",
    "sanne",
    "daan",
    "olivia",
    "liam",
    "ava",
    "zoe",
]
LAST = [
    "schmidt",
    "dubois",
    "garcia",
    "rossi",
    "tanaka",
    "silva",
    "de.vries",
    "smith",
    "muller",
    "lefebvre",
    "martinez",
    "bianchi",
    "sato",
    "costa",
    "jansen",
    "nguyen",
    "okafor",
    "kowalski",
]
DOMAINS = [
    "example.com",
    "example.org",
    "acme-corp.io",
    "mail.example.de",
    "firma-gmbh.de",
    "universidad.example.es",
    "posteo.example",
    "studio.example.fr",
    "kaisha.example.jp",
    "empresa.example.pt",
    "bedrijf.example.nl",
    "azienda.example.it",
    "example.co.uk",
    "example.photography",
    "shop.example.travel",
    "example.museum",
]


def email() -> str:
    f, last = rng.choice(FIRST), rng.choice(LAST)
    local = rng.choice(
        [
            f"{f}.{last}",
            f"{f[0]}{last}",
            f"{f}_{last}",
            f"{f}+{rng.choice(['news', 'billing', 'git'])}",
            f"{f}.{last}{rng.randint(1, 99)}",
            f"{last}-{f}",
            f"{f.capitalize()}.{last.capitalize()}",
        ]
    )
    return f"{local}@{rng.choice(DOMAINS)}".replace("..", ".")


# ----------------------------------------------------------------------------- secrets


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(alg: str = "HS256") -> str:
    header = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64u(
        json.dumps(
            {
                "sub": str(rng.randint(10**5, 10**9)),
                "name": rng.choice(FIRST).capitalize(),
                "iat": rng.randint(1_600_000_000, 1_750_000_000),
                "role": rng.choice(["admin", "user", "svc"]),
            },
            separators=(",", ":"),
        ).encode()
    )
    if alg == "none":
        return f"{header}.{payload}."
    signature = b64u(rng.randbytes(256 if alg.startswith("RS") else 32))
    return f"{header}.{payload}.{signature}"


def pem(label: str, lines: int = 8, headers: str = "", body_prefix: str = "") -> str:
    body = body_prefix + rs(64 * lines - len(body_prefix), B64)
    rows = [body[i : i + 64] for i in range(0, len(body), 64)]
    rows[-1] = rows[-1][: rng.randint(20, 60)] + "=="
    return f"-----BEGIN {label}-----\n{headers}" + "\n".join(rows) + f"\n-----END {label}-----"


def pgp_private() -> str:
    body = rs(64 * 7, B64)
    rows = [body[i : i + 64] for i in range(0, len(body), 64)]
    return (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(rows) + f"\n={rs(4, B64)}\n"
        "-----END PGP PRIVATE KEY BLOCK-----"
    )


def discord_token() -> str:
    user_id = str(rng.randint(10**17, 10**19 - 1))
    return f"{b64u(user_id.encode())}.{rs(6, B64URL)}.{rs(38, B64URL)}"


SECRET_MAKERS: dict[str, Callable[[], str]] = {
    "aws_access_key": lambda: (
        rng.choice(["AKIA", "AKIA", "ASIA"]) + rs(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    ),
    "aws_secret_key": lambda: rs(40, B64),
    "github_pat": lambda: "ghp_" + rs(36),
    "github_fine_grained": lambda: "github_pat_" + rs(22, UPPER_DIGITS) + "_" + rs(59),
    "github_oauth": lambda: "gho_" + rs(36),
    "github_app": lambda: rng.choice(["ghs_", "ghu_"]) + rs(36),
    "gitlab_pat": lambda: "glpat-" + rs(20, B64URL),
    "gitlab_deploy_token": lambda: "gldt-" + rs(20, B64URL),
    "gitlab_pipeline_trigger": lambda: "glptt-" + rs(40, HEX),
    "gitlab_runner": lambda: "glrt-" + rs(20, B64URL),
    "gitlab_agent": lambda: "glagent-" + rs(50, B64URL),
    "gitlab_feed": lambda: "glft-" + rs(20, B64URL),
    "gitlab_oauth_secret": lambda: "gloas-" + rs(64, HEX),
    "gitlab_ci_job_token": lambda: f"glcbt-{rs(2, HEX)}_" + rs(20, B64URL),
    "slack_bot": lambda: f"xoxb-{d(11)}-{d(13)}-{rs(24)}",
    "slack_user": lambda: f"xoxp-{d(11)}-{d(11)}-{d(13)}-{rs(32, HEX)}",
    "slack_app": lambda: f"xapp-1-A{rs(10, UPPER_DIGITS)}-{d(13)}-{rs(64, HEX)}",
    "slack_config": lambda: rng.choice(["xoxe.xoxp-1-", "xoxe-1-"]) + rs(rng.randint(130, 160)),
    "slack_webhook": lambda: (
        f"https://hooks.slack.com/services/T{rs(8, UPPER_DIGITS)}/B{rs(10, UPPER_DIGITS)}/{rs(24)}"
    ),
    "stripe_secret_key": lambda: (
        rng.choice(["sk_live_", "sk_test_", "sk_prod_"]) + rs(rng.choice([24, 99]))
    ),
    "stripe_restricted_key": lambda: (
        rng.choice(["rk_live_", "rk_test_", "rk_prod_"]) + rs(rng.choice([24, 99]))
    ),
    "stripe_webhook_secret": lambda: "whsec_" + rs(32),
    "google_api_key": lambda: "AIza" + rs(35, B64URL),
    "openai": lambda: rng.choice(
        [
            "sk-proj-" + rs(74, B64URL) + "T3BlbkFJ" + rs(74, B64URL),
            "sk-" + rs(20) + "T3BlbkFJ" + rs(20),
            "sk-svcacct-" + rs(74, B64URL) + "T3BlbkFJ" + rs(74, B64URL),
        ]
    ),
    "anthropic": lambda: rng.choice(["sk-ant-api03-", "sk-ant-admin01-"]) + rs(93, B64URL) + "AA",
    "huggingface": lambda: "hf_" + rs(34, string.ascii_letters),
    "npm": lambda: "npm_" + rs(36),
    "pypi": lambda: "pypi-AgEIcHlwaS5vcmc" + rs(rng.randint(140, 170), B64URL),
    "rubygems": lambda: "rubygems_" + rs(48, HEX),
    "docker_hub": lambda: "dckr_pat_" + rs(27, B64URL),
    "sendgrid": lambda: "SG." + rs(22, B64URL) + "." + rs(43, B64URL),
    "twilio": lambda: "SK" + rs(32, HEX),
    "telegram_bot": lambda: f"{rng.randint(10**8, 10**10 - 1)}:AA{rs(33, B64URL)}",
    "discord": discord_token,
    "digitalocean": lambda: rng.choice(["dop_v1_", "doo_v1_", "dor_v1_"]) + rs(64, HEX),
    "shopify": lambda: rng.choice(["shpat_", "shpss_", "shpca_", "shppa_"]) + rs(32, HEX),
    "azure_storage_key": lambda: base64.b64encode(rng.randbytes(64)).decode(),
    "jwt": lambda: jwt(rng.choice(["HS256", "HS256", "RS256", "none"])),
}


def sec(family: str, value: str | None = None) -> str:
    """Marks a secret of `family` (a fresh value unless one is given)."""
    return f"⟦secret/{family}:{value if value is not None else SECRET_MAKERS[family]()}⟧"


def m(entity: str, value: str) -> str:
    return f"⟦{entity}:{value}⟧"


# ----------------------------------------------------------------------------- case assembly

MARK = re.compile(r"⟦([a-z_]+)(?:/([a-z0-9_]+))?:(.*?)⟧", re.DOTALL)
FILES: dict[str, list[dict[str, Any]]] = {}
COUNTERS: dict[str, int] = {}


def add(file: str, context: str, language: str, marked: str, family: str | None = None) -> None:
    """Adds a case to `file`; the marks in `marked` become its expected spans."""
    expect_raw: list[tuple[str, str | None, str, int]] = []
    plain, last = [], 0
    position = 0
    for match in MARK.finditer(marked):
        plain.append(marked[last : match.start()])
        position += match.start() - last
        entity, fam, value = match.group(1), match.group(2), match.group(3)
        expect_raw.append((entity, fam, value, position))
        plain.append(value)
        position += len(value)
        last = match.end()
    plain.append(marked[last:])
    text = "".join(plain)
    assert "⟦" not in text, marked
    assert "⟧" not in text, marked
    expect = []
    for entity, fam, value, start in expect_raw:
        starts = [i for i in range(len(text)) if text.startswith(value, i)]
        item: dict[str, Any] = {"entity": entity}
        if fam:
            item["family"] = fam
        item["text"] = value
        if len(starts) > 1:
            item["occurrence"] = starts.index(start) + 1
        expect.append(item)
    COUNTERS[file] = COUNTERS.get(file, 0) + 1
    case: dict[str, Any] = {
        "id": f"{file}-{COUNTERS[file]:03d}",
        "context": context,
        "language": language,
    }
    if family:
        case["family"] = family
    case["text"] = text
    case["expect"] = expect
    FILES.setdefault(file, []).append(case)


def write_files() -> None:
    class Dumper(yaml.SafeDumper):
        pass

    def str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
        style = (
            "|" if "\n" in data and not data.endswith((" ", "\t")) and " \n" not in data else None
        )
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, str_presenter)
    for name, cases in FILES.items():
        path = HERE / f"{name}.yaml"
        header = (
            f"# Labelled detection cases: {name}. Generated by make_corpus.py; see README.md.\n"
        )
        body = yaml.dump(cases, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=1000)
        path.write_text(header + body, encoding="utf-8")
        reloaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert reloaded == cases, f"{name}: YAML round trip changed a case"


# ----------------------------------------------------------------------------- PII cases


def mark_email(v: str | None = None) -> str:
    return m("email", v or email())


def mark_card(v: str | None = None, sep: str | None = None) -> str:
    return m("credit_card", card_text(v or fresh_card(), sep))


def mark_iban(v: str | None = None, spaced: bool | None = None) -> str:
    return m("iban", iban_text(v or fresh_iban(), spaced))


def mark_phone(country: str) -> str:
    return m("phone", phone(country))


def mark_ssn(sep: str = "-") -> str:
    return m("us_ssn", fresh_ssn(sep))


def mark_ip(v: str | None = None) -> str:
    return m("ip_address", v or ipv4())


def build_email() -> None:
    f = "email"
    templates: list[tuple[str, str, Callable[[], str]]] = [
        (
            "prose",
            "en",
            lambda: f"Please send the signed contract to {mark_email()} before Friday.",
        ),
        ("prose", "en", lambda: f"If you have questions, reach out to {mark_email()}."),
        (
            "email-body",
            "en",
            lambda: (
                f"Hi team,\n\nI'm out until Monday. For urgent matters contact {mark_email()} or {mark_email()}.\n\nBest,\nSam"
            ),
        ),
        (
            "email-body",
            "en",
            lambda: (
                f"From: Dana Whitfield <{mark_email()}>\nTo: {mark_email()}\nSubject: Q3 numbers\n\nSee attached."
            ),
        ),
        ("prose", "de", lambda: f"Bitte schicken Sie die Unterlagen an {mark_email()}, danke!"),
        ("prose", "de", lambda: f"Ansprechpartnerin ist Frau Keller ({mark_email()})."),
        (
            "prose",
            "fr",
            lambda: (
                f"Pour toute réclamation, écrivez à {mark_email()} en précisant votre numéro de dossier."
            ),
        ),
        ("prose", "es", lambda: f"Puedes escribirme a {mark_email()} cuando quieras."),
        (
            "prose",
            "it",
            lambda: f"Per informazioni scrivere a {mark_email()} oppure passare in ufficio.",
        ),
        ("prose", "ja", lambda: f"お問い合わせは{mark_email()}までご連絡ください。"),
        ("prose", "pt", lambda: f"O endereço de contato é {mark_email()}."),
        ("prose", "nl", lambda: f"Stuur je cv naar {mark_email()} o.v.v. vacature 17."),
        ("code", "en", lambda: f'ADMIN_EMAIL = "{mark_email()}"'),
        (
            "config",
            "en",
            lambda: f"notifications:\n  on_failure:\n    - {mark_email()}\n    - {mark_email()}\n",
        ),
        (
            "log",
            "en",
            lambda: (
                f"2024-04-11 08:12:55,301 INFO  mailer: delivered message 7f3a to {mark_email()} (250 OK)"
            ),
        ),
        ("json", "en", lambda: f'{{"id": 8812, "owner": "{mark_email()}", "active": true}}'),
        ("prose", "en", lambda: f"Write to mailto:{mark_email()} for a copy."),
        ("html", "en", lambda: f'<a href="mailto:{mark_email()}">Contact us</a>'),
        (
            "table",
            "en",
            lambda: (
                f"| name | email |\n|---|---|\n| A. Okafor | {mark_email()} |\n| L. Rossi | {mark_email()} |"
            ),
        ),
        ("prose", "en", lambda: f"My address changed to {mark_email()}; the old one is dead."),
        (
            "prose",
            "ru",
            lambda: f"Пишите на {mark_email('info@xn--d1acufc.xn--p1ai')} — это наш адрес.",
        ),
        (
            "prose",
            "en",
            lambda: f"The studio uses {mark_email('hello@example.photography')} for bookings.",
        ),
        ("code", "en", lambda: f"git config --global user.email {mark_email()}"),
        (
            "csv",
            "en",
            lambda: f"id,name,email\n1,Ana Costa,{mark_email()}\n2,Ben Li,{mark_email()}",
        ),
        (
            "prose",
            "en",
            lambda: (
                f"CC {mark_email('Maria.Lopez@Example.COM')} and {mark_email('ops-team@sub.mail.example.org')}."
            ),
        ),
    ]
    for context, language, make in templates:
        add(f, context, language, make())
    for context, language, make in templates:
        add(f, context, language, make())
    near = [
        ("prose", "en", "Send it to sales(at)example.com, not here."),
        ("prose", "en", "Email: [email protected] (the address was hidden by the page)."),
        ("chat", "en", "@everyone the standup moved to 10:00"),
        ("prose", "en", "Use name@domain as the pattern in the form hint."),
        ("prose", "de", "Bitte @sato-san im Ticket erwähnen."),
        ("prose", "en", "Bought 3 @ 4.99 EUR each."),
        ("code", "en", "@Override\npublic String toString() { return name; }"),
        ("prose", "en", "Follow us @acme_support on social media for updates."),
        ("code", "en", "@app.route('/users/<int:user_id>')\ndef show_user(user_id): ..."),
        ("code", "en", 'import type { Request } from "@types/express";'),
        ("config", "en", '"dependencies": { "react": "^18.2.0", "left-pad@1.3.0": "*" }'),
        ("prose", "en", "Reach me at anna dot schmidt at example dot com (no spam please)."),
        ("code", "en", "docker pull registry.example.com/app@sha256:9b2c1f0e7d"),
        ("code", "en", "@media (max-width: 600px) { .nav { display: none; } }"),
        ("prose", "en", "Image assets: logo.png, logo@2x.png and logo@3x.png are in /static."),
        ("prose", "de", "Die Adresse lautet max.mustermann@ – der Rest fehlt leider."),
        ("prose", "en", "The email field was left blank: email = ''."),
        ("code", "en", "user@host:~$ ls -la"),
        ("prose", "fr", "Le symbole @ se dit « arobase » en français."),
        ("code", "en", "npm install @angular/core@17.0.2 --save"),
        ("prose", "en", "Meet at the café @ 5pm, table for 4."),
    ]
    for context, language, text in near:
        add(f, context, language, text)


def build_credit_card() -> None:
    f = "credit_card"
    templates: list[tuple[str, str, Callable[[], str]]] = [
        ("prose", "en", lambda: f"Please charge my card {mark_card()} for the remaining balance."),
        ("prose", "en", lambda: f"Card number: {mark_card()}, exp 09/27, CVC on the back."),
        ("chat", "en", lambda: f"ok here it is {mark_card()} thanks"),
        ("prose", "de", lambda: f"Meine Kreditkartennummer ist {mark_card()}, gültig bis 11/26."),
        ("prose", "fr", lambda: f"Voici ma carte : {mark_card()}. Merci de débiter 45 €."),
        ("prose", "es", lambda: f"El número de la tarjeta es {mark_card()} y caduca en 2027."),
        ("prose", "it", lambda: f"Numero carta {mark_card()}, intestata a Giulia Bianchi."),
        ("prose", "ja", lambda: f"カード番号は{mark_card()}です。"),
        ("prose", "pt", lambda: f"Pode usar o cartão {mark_card()} para a reserva."),
        ("prose", "nl", lambda: f"Mijn creditcard: {mark_card()} (Visa)."),
        (
            "log",
            "en",
            lambda: (
                f"2024-02-19T14:03:11Z ERROR payments: gateway declined pan={mark_card(sep='')} reason=do_not_honor"
            ),
        ),
        (
            "json",
            "en",
            lambda: f'{{"customer": 4417, "card": "{mark_card(sep="")}", "amount": 1299}}',
        ),
        (
            "table",
            "en",
            lambda: f"| order | card | total |\n|---|---|---|\n| 80211 | {mark_card()} | 54.00 |",
        ),
        (
            "prose",
            "en",
            lambda: f"1. {mark_card('4111111111111111', ' ')} is the test Visa we use.",
        ),
        ("prose", "en", lambda: f"Step 2 {mark_card(sep=' ')} goes in the card field."),
        ("prose", "en", lambda: f"We stored it in 2024 {mark_card(sep='-')} and never deleted it."),
        (
            "prose",
            "en",
            lambda: (
                f"Amex: {mark_card(fresh_card('amex'))}; Diners: {mark_card(fresh_card('diners'))}."
            ),
        ),
        (
            "form",
            "en",
            lambda: (
                f"Name on card: Liam Smith\nCard: {mark_card(fresh_card('mastercard'))}\nExpiry: 04/28"
            ),
        ),
        (
            "prose",
            "en",
            lambda: f"The JCB card {mark_card(fresh_card('jcb'))} was flagged by fraud checks.",
        ),
        (
            "prose",
            "en",
            lambda: (
                f"UnionPay {mark_card(fresh_card('unionpay'))} and Maestro {mark_card(fresh_card('maestro'))} are accepted."
            ),
        ),
        (
            "email-body",
            "en",
            lambda: (
                f"Hello,\nplease refund the purchase made with {mark_card(fresh_card('discover'))}.\nRegards"
            ),
        ),
        (
            "code",
            "en",
            lambda: (
                f'TEST_CARDS = ["{mark_card("5555555555554444", "")}", "{mark_card("378282246310005", "")}", "{mark_card("6011111111111117", "")}"]'
            ),
        ),
    ]
    for context, language, make in templates:
        add(f, context, language, make())
    for context, language, make in templates:
        add(f, context, language, make())
    near = [
        ("log", "en", lambda: f"event=click ts={luhn_complete('17', 13)} user=8821"),
        ("json", "en", lambda: f'{{"createdAt": {luhn_complete("16", 13)}, "status": "ok"}}'),
        (
            "prose",
            "en",
            lambda: f"Your order number is {luhn_complete('9', 16)}; keep it for returns.",
        ),
        ("prose", "de", lambda: f"Bestellnummer {luhn_complete('8', 16)} wurde versandt."),
        (
            "prose",
            "en",
            lambda: (
                f"Card {card_text(luhn_complete('4', 16, valid=False), ' ')} was rejected as invalid."
            ),
        ),
        (
            "prose",
            "en",
            lambda: (
                f"Number {card_text(luhn_complete('5', 16, valid=False), '-')} failed the checksum."
            ),
        ),
        ("prose", "en", lambda: f"Reference {luhn_complete('4', 15)} (15 digits)."),
        ("prose", "en", lambda: f"Membership no. {luhn_complete('34', 16)} at the library."),
        ("prose", "en", lambda: f"Account {luhn_complete('53', 15)} is closed."),
        ("prose", "en", lambda: f"Device IMEI {luhn_complete('35', 15)} is registered."),
        ("prose", "en", lambda: f"Tracking: 1Z{rs(16, UPPER_DIGITS)} via UPS."),
        ("prose", "en", lambda: f"ISBN {luhn_complete('978', 13)} is the hardback."),
        (
            "log",
            "en",
            lambda: f"span_id={luhn_complete('7', 16)} trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
        ),
        ("prose", "fr", lambda: f"Numéro de commande : {luhn_complete('9', 14)}."),
        ("prose", "en", lambda: "Visa ending in 1111, i.e. **** **** **** 1111."),
        ("prose", "en", lambda: "Invoice total 4111.11 USD and 1111 items."),
        ("prose", "en", lambda: f"Tax id {luhn_complete('2', 15)} on file."),
    ]
    for context, language, make in near + near[:14]:
        add(f, context, language, make())


def build_iban() -> None:
    f = "iban"
    templates: list[tuple[str, str, Callable[[], str]]] = [
        (
            "prose",
            "de",
            lambda: (
                f"Bitte überweisen Sie den Betrag auf {mark_iban(fresh_iban('DE'))} bis zum 15."
            ),
        ),
        ("prose", "de", lambda: f"IBAN: {mark_iban(fresh_iban('DE'), True)}\nBIC: COBADEFFXXX"),
        ("prose", "fr", lambda: f"Mon IBAN est {mark_iban(fresh_iban('FR'))}, merci."),
        (
            "prose",
            "es",
            lambda: f"Haz la transferencia a {mark_iban(fresh_iban('ES'))} antes del viernes.",
        ),
        (
            "prose",
            "it",
            lambda: f"Coordinate bancarie: {mark_iban(fresh_iban('IT'))} (Banca Esempio).",
        ),
        (
            "prose",
            "nl",
            lambda: f"Maak het bedrag over naar {mark_iban(fresh_iban('NL'))} t.n.v. J. Jansen.",
        ),
        (
            "prose",
            "en",
            lambda: (
                f"Our UK account is {mark_iban(fresh_iban('GB'))}; please quote the invoice number."
            ),
        ),
        ("prose", "pt", lambda: f"O IBAN da empresa é {mark_iban(fresh_iban('PT'))}."),
        (
            "prose",
            "en",
            lambda: f"Pay to {mark_iban(fresh_iban('BE'))} or {mark_iban(fresh_iban('LU'))}.",
        ),
        ("prose", "de", lambda: f"Konto in der Schweiz: {mark_iban(fresh_iban('CH'), True)}."),
        ("prose", "de", lambda: f"Österreich: {mark_iban(fresh_iban('AT'), False)} – danke!"),
        (
            "table",
            "en",
            lambda: (
                f"| supplier | iban |\n|---|---|\n| Nordic AB | {mark_iban(fresh_iban('SE'))} |\n| Polmex | {mark_iban(fresh_iban('PL'))} |"
            ),
        ),
        (
            "json",
            "en",
            lambda: f'{{"beneficiary": "Ines Costa", "iban": "{mark_iban(fresh_iban(), False)}"}}',
        ),
        (
            "csv",
            "en",
            lambda: f"name;iban;amount\nDaan;{mark_iban(fresh_iban('NL'), False)};120,00",
        ),
        (
            "email-body",
            "en",
            lambda: (
                f"Dear customer,\nour bank details changed. New IBAN: {mark_iban(fresh_iban('IE'), True)}\nKind regards"
            ),
        ),
        (
            "prose",
            "de",
            lambda: f"Die IBAN {mark_iban(fresh_iban('DE'), True)} bitte ab sofort verwenden.",
        ),
        ("prose", "nl", lambda: f"Rekening {mark_iban(fresh_iban('NL'), False)} betaald op 3 mei."),
        ("prose", "fr", lambda: f"Virement vers {mark_iban(fresh_iban('FR'), True)} effectué."),
        (
            "prose",
            "en",
            lambda: (
                f"Norway {mark_iban(fresh_iban('NO'))}, Denmark {mark_iban(fresh_iban('DK'))}, Finland {mark_iban(fresh_iban('FI'))}."
            ),
        ),
        (
            "log",
            "en",
            lambda: (
                f"2024-03-02 10:00:01 INFO sepa: mandate created debtor_iban={mark_iban(fresh_iban(), False)} amount=49.90"
            ),
        ),
        (
            "prose",
            "en",
            lambda: (
                f"The documentation example {mark_iban('DE89370400440532013000', True)} is often used in tests."
            ),
        ),
        ("chat", "it", lambda: f"ecco l'iban {mark_iban(fresh_iban('IT'), False)} grazie mille"),
    ]
    for context, language, make in templates:
        add(f, context, language, make())
    for context, language, make in templates:
        add(f, context, language, make())
    near = [
        (
            "prose",
            "de",
            lambda: f"Die IBAN {iban_text(truncated_iban('DE'), True)} ist unvollständig.",
        ),
        ("prose", "fr", lambda: f"IBAN tronqué : {iban_text(truncated_iban('FR'), False)}"),
        ("prose", "en", lambda: f"This one looks wrong: {iban_text(broken_iban('GB'), True)}"),
        ("prose", "nl", lambda: f"Foutief nummer {iban_text(broken_iban('NL'), False)} geweigerd."),
        ("prose", "es", lambda: f"IBAN incorrecto {iban_text(broken_iban('ES'), True)}."),
        ("prose", "en", lambda: f"Payment reference {creditor_reference()} must be quoted."),
        ("prose", "de", lambda: f"Verwendungszweck: {iban_text(creditor_reference(), True)}"),
        ("prose", "en", lambda: "BIC DEUTDEFFXXX belongs to the head office."),
        ("prose", "en", lambda: f"Code XX{d(2)}{d(16)} is not a country."),
        ("prose", "it", lambda: f"IBAN troppo corto: {truncated_iban('IT')}."),
        (
            "code",
            "en",
            lambda: "IBAN_PATTERN = r'[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}'  # DE00 0000 0000",
        ),
        ("prose", "en", lambda: f"Ticket GB{d(2)}-{d(4)} was closed."),
        ("prose", "pt", lambda: f"IBAN errado: {iban_text(broken_iban('PT'), True)}"),
        ("prose", "de", lambda: f"Kontonummer {d(10)}, BLZ {d(8)} (alte Angaben)."),
    ]
    for context, language, make in near + near[:7]:
        add(f, context, language, make())


def build_phone() -> None:
    f = "phone"
    templates: list[tuple[str, str, Callable[[], str]]] = [
        ("prose", "en", lambda: f"Call me at {mark_phone('us')} after 6pm."),
        ("prose", "en", lambda: f"Our support line is {mark_phone('us')} (Mon-Fri, 9-5)."),
        (
            "email-body",
            "en",
            lambda: (
                f"Best regards,\nTom Reed\nSales Manager\nPhone: {mark_phone('us')}\nMobile: {mark_phone('us')}"
            ),
        ),
        ("prose", "en", lambda: f"The London office is on {mark_phone('gb')}."),
        ("prose", "en", lambda: f"Text me: {mark_phone('gb')}"),
        ("prose", "de", lambda: f"Sie erreichen uns unter {mark_phone('de')} oder per Fax."),
        ("prose", "de", lambda: f"Tel.: {mark_phone('de')}, Mo–Fr 8–16 Uhr"),
        ("prose", "fr", lambda: f"Appelez le {mark_phone('fr')} pour prendre rendez-vous."),
        ("prose", "fr", lambda: f"Mon portable : {mark_phone('fr')}."),
        ("prose", "es", lambda: f"Llámanos al {mark_phone('es')} de lunes a viernes."),
        ("prose", "it", lambda: f"Il numero dello studio è {mark_phone('it')}."),
        ("prose", "ja", lambda: f"電話番号は{mark_phone('jp')}です。"),
        ("prose", "ja", lambda: f"お問い合わせ: {mark_phone('jp')}（平日9時〜18時）"),
        ("prose", "pt", lambda: f"Ligue para {mark_phone('pt')} se precisar."),
        ("prose", "pt", lambda: f"WhatsApp: {mark_phone('br')}"),
        ("prose", "nl", lambda: f"Bel ons op {mark_phone('nl')} voor een afspraak."),
        ("prose", "de", lambda: f"Zentrale Zürich: {mark_phone('ch')}"),
        ("json", "en", lambda: f'{{"name": "Yuki Sato", "phone": "{mark_phone("jp")}"}}'),
        (
            "table",
            "en",
            lambda: (
                f"| site | phone |\n|---|---|\n| Berlin | {mark_phone('de')} |\n| Paris | {mark_phone('fr')} |\n| Madrid | {mark_phone('es')} |"
            ),
        ),
        (
            "log",
            "en",
            lambda: f"2024-06-01 12:00:03 INFO sms: sent code to {mark_phone('us')} status=queued",
        ),
        ("prose", "en", lambda: f"Reach Emma on {mark_phone('gb')} or at {mark_email()}."),
        ("csv", "en", lambda: f"contact,phone\nLuca,{mark_phone('it')}\nDaan,{mark_phone('nl')}"),
    ]
    for context, language, make in templates:
        add(f, context, language, make())
    for context, language, make in templates:
        add(f, context, language, make())
    near = [
        ("prose", "en", "Invoice INV-2024-000187 is due on 30.06.2024."),
        ("prose", "de", "Die Sendungsnummer lautet 00340434161094022115."),
        ("prose", "en", "Temperature range -20 to +45 degrees, humidity 10-90 %."),
        ("prose", "fr", "Le score final est de 102-98 après prolongation."),
        ("code", "en", "timeout_ms = 30000\nretries = 5\nbackoff = [100, 200, 400, 800]"),
        ("prose", "en", "The serial is SN-7731-AX-0042."),
        ("prose", "it", "Il volo AZ 610 parte alle 10:45 dal gate B12."),
        ("prose", "en", "Revenue grew from 1.2 million to 3.4 million (+183 %)."),
        ("prose", "ja", "価格は12,800円（税込）です。"),
        ("prose", "en", "Bus lines 100, 200 and 300 stop here."),
        ("prose", "en", "The meeting is on 2024-03-15 from 10:30 to 11:45."),
        ("prose", "en", "See pages 120-135 and the years 1998-2004."),
        ("prose", "en", "The flat costs 1,250,000 USD; fees are 12,345.67."),
        ("prose", "de", "Der Betrag von 1.234.567,89 € wurde überwiesen."),
        ("prose", "fr", "Le colis part de 75008 Paris le 12/03/2024."),
        ("prose", "en", "Release 4.12.1 fixes bug 20931."),
        ("prose", "en", "Coordinates: 48.8566, 2.3522 (Paris)."),
        ("log", "en", "2024-05-02T09:14:22.331Z pid=48213 latency_ms=1532 bytes=884213"),
        ("prose", "en", "Population: 8 336 817 (2022 estimate)."),
        ("prose", "en", "Final score 3-1, attendance 61,245."),
        ("prose", "en", "Order #A-2093-118 shipped in 2 boxes of 12."),
        ("prose", "ja", "会議は2024年3月15日10時30分からです。"),
        ("code", "en", "for i in range(0, 10000, 250):\n    pass"),
        ("prose", "en", "The build number is 20240315.3 and the hash a3f5c9e."),
        ("prose", "es", "El precio es de 1.299,00 € (IVA 21 %)."),
        ("prose", "en", "ISO 9001:2015 and ISO/IEC 27001:2022 certified."),
        ("prose", "nl", "Postcode 1012 AB, huisnummer 17."),
        ("prose", "en", "Chapter 3, section 3.4, verse 16-18."),
    ]
    for context, language, text in near:
        add(f, context, language, text)


def build_us_ssn() -> None:
    f = "us_ssn"
    templates: list[tuple[str, str, Callable[[], str]]] = [
        ("prose", "en", lambda: f"My social security number is {mark_ssn()}."),
        ("prose", "en", lambda: f"SSN: {mark_ssn()}"),
        (
            "form",
            "en",
            lambda: (
                f"Applicant: Olivia Nguyen\nDOB: 04/12/1988\nSSN: {mark_ssn()}\nStatus: pending"
            ),
        ),
        ("prose", "en", lambda: f"Employee SSN {mark_ssn(' ')} was entered twice."),
        ("prose", "en", lambda: f"please verify ssn {mark_ssn('')} for the W-2"),
        ("json", "en", lambda: f'{{"employee_id": 5531, "ssn": "{mark_ssn()}", "state": "CA"}}'),
        (
            "csv",
            "en",
            lambda: f"name,ssn,zip\nAva Moore,{mark_ssn()},94107\nNoah Kim,{mark_ssn()},10001",
        ),
        (
            "log",
            "en",
            lambda: f"2024-01-09 16:20:44 WARN hr-sync: duplicate record ssn={mark_ssn()} skipped",
        ),
        ("table", "en", lambda: f"| Name | SSN |\n|---|---|\n| L. Ortiz | {mark_ssn()} |"),
        (
            "email-body",
            "en",
            lambda: (
                f"Hi Karen,\nthe new hire's SSN is {mark_ssn()}; payroll needs it by Friday.\nThanks"
            ),
        ),
        ("prose", "es", lambda: f"Mi número de seguro social es {mark_ssn()}."),
        (
            "prose",
            "de",
            lambda: f"Die US-Sozialversicherungsnummer des Mitarbeiters lautet {mark_ssn()}.",
        ),
        ("prose", "fr", lambda: f"Numéro de sécurité sociale américain : {mark_ssn()}."),
        ("chat", "en", lambda: f"it's {mark_ssn()} i think"),
        ("prose", "en", lambda: f"Social Security No. {mark_ssn()}, issued in Ohio."),
    ]
    for context, language, make in templates * 3:
        add(f, context, language, make())
    for _ in range(2):
        add(
            f,
            "prose",
            "en",
            f"SSN 000-{rng.randint(10, 99)}-{rng.randint(1000, 9999)} was rejected.",
        )
        add(f, "form", "en", f"SSN: 666-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}")
        add(
            f,
            "prose",
            "en",
            f"Applicant SSN 9{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)} is not valid.",
        )
        add(
            f,
            "prose",
            "en",
            f"SSN {rng.randint(100, 599)}-00-{rng.randint(1000, 9999)} fails the group check.",
        )
        add(
            f,
            "prose",
            "en",
            f"SSN {rng.randint(100, 599)}-{rng.randint(10, 99)}-0000 fails the serial check.",
        )
    near = [
        (
            "prose",
            "en",
            f"SSN 000-{rng.randint(10, 99)}-{rng.randint(1000, 9999)} is not a valid number.",
        ),
        (
            "prose",
            "en",
            f"Example SSN 666-{rng.randint(10, 99)}-{rng.randint(1000, 9999)} is never issued.",
        ),
        (
            "prose",
            "en",
            f"ITIN 9{rng.randint(10, 99)}-7{rng.randint(0, 9)}-{rng.randint(1000, 9999)} is used for tax filing.",
        ),
        (
            "prose",
            "en",
            f"SSN {rng.randint(100, 599)}-00-{rng.randint(1000, 9999)} has an invalid group.",
        ),
        (
            "prose",
            "en",
            f"SSN {rng.randint(100, 599)}-{rng.randint(10, 99)}-0000 has an invalid serial.",
        ),
        (
            "prose",
            "en",
            f"EIN {rng.randint(10, 99)}-{rng.randint(1000000, 9999999)} belongs to the company.",
        ),
        (
            "prose",
            "en",
            f"Call {m('phone', f'415-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}')} for help.",
        ),
        ("prose", "en", "The date 2024-03-15 and the part 12-34-56 are not SSNs."),
        (
            "prose",
            "en",
            f"Number {rng.randint(100, 599)}-{rng.randint(10, 99)}-{rng.randint(100, 999)} is missing a digit.",
        ),
        (
            "form",
            "en",
            f"SSN: 9{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)} (rejected)",
        ),
        ("prose", "en", "Product code 123-45-67890 is on the box."),
        ("prose", "en", "SSN: ***-**-1234 (masked)"),
        ("prose", "en", "SSN: XXX-XX-4821"),
        ("prose", "en", f"Routing number {rng.randint(100000000, 299999999)} for the wire."),
    ]
    for context, language, text in near:
        add(f, context, language, text)


def build_ip_address() -> None:
    f = "ip_address"
    templates: list[tuple[str, str, Callable[[], str]]] = [
        (
            "log",
            "en",
            lambda: f'{mark_ip()} - - [12/Mar/2024:10:22:31 +0000] "GET /health HTTP/1.1" 200 12',
        ),
        (
            "log",
            "en",
            lambda: (
                f"sshd[2231]: Failed password for invalid user admin from {mark_ip()} port 52144 ssh2"
            ),
        ),
        (
            "config",
            "en",
            lambda: (
                f"server:\n  bind: {mark_ip()}\n  port: 8443\n  allowed:\n    - {mark_ip(ipv4() + '/24')}\n"
            ),
        ),
        ("config", "en", lambda: f"listen {mark_ip()}:80;\nproxy_pass http://{mark_ip()}:8080;"),
        ("prose", "en", lambda: f"The database server moved to {mark_ip()} last night."),
        ("prose", "en", lambda: f"IP: {mark_ip()}."),
        (
            "prose",
            "en",
            lambda: (
                f"Block the range {mark_ip('10.0.0.0/8')} and {mark_ip('172.16.0.0/12')} at the edge."
            ),
        ),
        ("prose", "en", lambda: f"IPv6 works too: {mark_ip(ipv6())}."),
        ("prose", "en", lambda: f"The service listens on [{mark_ip(ipv6())}]:443 now."),
        ("prose", "en", lambda: f"Link-local peer {mark_ip('fe80::1%eth0')} answered the ping."),
        (
            "log",
            "en",
            lambda: (
                f"kernel: IN=eth0 OUT= SRC={mark_ip(ipv6())} DST={mark_ip('2001:db8::1')} LEN=80"
            ),
        ),
        ("code", "en", lambda: f'ALLOWED_HOSTS = ["{mark_ip()}", "localhost", "{mark_ip("::1")}"]'),
        (
            "prose",
            "de",
            lambda: (
                f"Der Router hat die Adresse {mark_ip('192.168.' + str(rng.randint(0, 9)) + '.1')}."
            ),
        ),
        ("prose", "fr", lambda: f"L'adresse du serveur est {mark_ip()}, port 22."),
        ("prose", "es", lambda: f"La IP pública es {mark_ip(ipv4('public'))}."),
        ("prose", "ja", lambda: f"サーバーのIPアドレスは{mark_ip()}です。"),
        ("prose", "pt", lambda: f"O gateway padrão é {mark_ip()}."),
        ("prose", "nl", lambda: f"Het IP-adres {mark_ip()} staat op de blokkeerlijst."),
        ("prose", "it", lambda: f"Il NAS risponde su {mark_ip()}:5000."),
        (
            "json",
            "en",
            lambda: f'{{"client_ip": "{mark_ip()}", "forwarded_for": "{mark_ip(ipv6())}"}}',
        ),
        ("url", "en", lambda: f"http://{mark_ip()}:8080/api/v1/status"),
        (
            "table",
            "en",
            lambda: f"| host | address |\n|---|---|\n| db1 | {mark_ip()} |\n| db2 | {mark_ip()} |",
        ),
        (
            "config",
            "en",
            lambda: f"nameserver {mark_ip(ipv4('doc'))}\nnameserver {mark_ip('2001:db8:53::53')}",
        ),
        (
            "prose",
            "en",
            lambda: f"The mapped address {mark_ip('::ffff:' + ipv4('doc'))} is IPv4 in IPv6.",
        ),
        (
            "prose",
            "en",
            lambda: (
                f"The prefix {mark_ip('2001:db8::/32')} is reserved for documentation; its last host is {mark_ip('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff')}."
            ),
        ),
    ]
    for context, language, make in templates:
        add(f, context, language, make())
    for context, language, make in templates[:20]:
        add(f, context, language, make())
    near = [
        ("prose", "en", "Firmware 3.10.2.1-beta is out (build 17.04.2024)."),
        ("prose", "de", "Kapitel 2.3.4 behandelt die Normen DIN 5008 und 1.1.1.1.1."),
        ("code", "en", "assert version_tuple('10.2.300.4') > (10, 2)"),
        ("prose", "en", "The ratio was 1.5.2 on the old scale, 3.4.5.6.7 on the new."),
        ("prose", "en", "SNMP walk of 1.3.6.1.2.1.1.5.0 returned the hostname."),
        ("code", "en", "namespace App::Http::Controllers;"),
        ("prose", "en", "Timestamps like 2024:03:15 12:30:00 come from EXIF."),
        ("prose", "en", "Bluetooth id AA:BB:CC:11:22:33 paired."),
        ("prose", "en", "Upgrade to version 2.14.3 before Friday."),
        ("prose", "en", "Chrome 120.0.6099.109 ships the fix."),
        ("prose", "de", "Der Termin ist am 15.03.2024 um 10.30 Uhr."),
        ("prose", "en", "The OID 1.3.6.1.4.1.311.21.7 identifies the template."),
        ("prose", "en", "See clause 1.2.3.4.5 of the standard."),
        ("prose", "en", "Out of range: 999.12.3.4 and 256.256.256.256 are not addresses."),
        ("code", "en", "std::vector<int> v; std::map<std::string, int> m;"),
        ("code", "en", "use std::collections::HashMap;\nlet x = Foo::bar();"),
        ("prose", "en", "MAC address 00:1A:2B:3C:4D:5E belongs to the printer."),
        ("log", "en", "12:30:45 job finished in 00:02:13"),
        ("prose", "en", "Python 3.11.4 and Node v20.10.0 are required."),
        ("prose", "fr", "Article 12.4.1 du règlement, alinéa 3."),
        ("code", "en", "ratio = 0.5; threshold = 1.25.0"),
        ("prose", "en", "Windows build 10.0.19045 is supported."),
        ("prose", "en", "Dial 1.800.555 is not an IP, nor is 1.2.3."),
        ("code", "en", "hash = 'dead:beef:cafe'"),
    ]
    for context, language, text in near:
        add(f, context, language, text)


def build_mixed() -> None:
    f = "mixed_pii"
    add(
        f,
        "email-body",
        "en",
        f"Hi,\nplease update my details: email {mark_email()}, phone {mark_phone('us')}, card {mark_card()}.\nThanks, Noah",
    )
    add(
        f,
        "form",
        "en",
        f"Name: Ava Moore\nEmail: {mark_email()}\nPhone: {mark_phone('us')}\nSSN: {mark_ssn()}\nIBAN: {mark_iban(fresh_iban('DE'))}",
    )
    add(f, "log", "en", f"2024-04-01T10:00:00Z login ok user={mark_email()} ip={mark_ip()}")
    add(
        f,
        "log",
        "en",
        f"2024-04-01T10:00:02Z login failed user={mark_email()} ip={mark_ip(ipv6())} attempts=3",
    )
    add(
        f,
        "prose",
        "de",
        f"Kontakt: {mark_email()}, Tel. {mark_phone('de')}, IBAN {mark_iban(fresh_iban('DE'), True)}.",
    )
    add(f, "prose", "fr", f"Écrivez à {mark_email()} ou appelez le {mark_phone('fr')}.")
    add(
        f,
        "table",
        "en",
        f"| user | email | ip |\n|---|---|---|\n| ana | {mark_email()} | {mark_ip()} |\n| ben | {mark_email()} | {mark_ip()} |",
    )
    add(
        f,
        "prose",
        "en",
        f"Wire to {mark_iban(fresh_iban('GB'))} or pay by card {mark_card()}; questions to {mark_email()}.",
    )
    add(f, "prose", "ja", f"担当：佐藤（{mark_email()}、{mark_phone('jp')}）")
    add(f, "prose", "en", "Nothing personal here: version 1.4.2, order 2024-118, total 45.90 EUR.")
    add(f, "prose", "es", "Sin datos personales: pedido 4471, 3 unidades, 12/05/2024.")


def build_pii() -> None:
    build_email()
    build_credit_card()
    build_iban()
    build_phone()
    build_us_ssn()
    build_ip_address()
    build_mixed()


# ----------------------------------------------------------------------------- secret cases

VENDOR_POOL: list[tuple[str, str, str]] = [
    ("prose", "en", "I accidentally committed {S} to the public repo, please rotate it."),
    ("prose", "de", "Kannst du den Schlüssel {S} bitte widerrufen? Er stand im Wiki."),
    ("prose", "fr", "Voici la clé pour la démo : {S} (à révoquer après)."),
    ("prose", "es", "El token {S} ya no funciona, ¿me das otro?"),
    ("prose", "ja", "このトークン{S}は本番環境用です。"),
    ("log", "en", "2024-05-02T09:14:22Z WARN auth: rejected credential {S} from client web-7"),
    ("code", "en", 'client = Client(api_key="{S}")'),
    ("code", "en", "const client = new Client({ auth: '{S}' });"),
    ("code", "en", 'curl -s -H "Authorization: Bearer {S}" https://api.example.com/v1/me'),
    ("json", "en", '{"name": "deploy", "value": "{S}"}'),
    ("chat", "en", "here you go: {S}"),
    ("config", "en", "env:\n  - name: SERVICE_TOKEN\n    value: {S}\n"),
    ("prose", "it", "Ho incollato per errore {S} nel canale #general."),
    ("prose", "pt", "Use o token {S} só para testes."),
    ("prose", "nl", "Het token {S} is gelekt in de build-log."),
    ("code", "en", "export SERVICE_TOKEN={S}"),
]

FAMILY_CONTEXTS: dict[str, list[tuple[str, str, str]]] = {
    "github_pat": [
        ("config", "en", "GITHUB_TOKEN={S}"),
        ("url", "en", "git clone https://octocat:{S}@github.com/acme/infra.git"),
    ],
    "github_fine_grained": [("code", "en", 'gh = Github(auth=Auth.Token("{S}"))')],
    "github_oauth": [("log", "en", "oauth: exchanged code for access_token={S} scope=repo")],
    "github_app": [
        ("url", "en", "git push https://x-access-token:{S}@github.com/acme/site.git main")
    ],
    "gitlab_pat": [
        ("url", "en", "git clone https://oauth2:{S}@gitlab.example.com/group/project.git"),
        (
            "code",
            "en",
            'curl --header "PRIVATE-TOKEN: {S}" "https://gitlab.example.com/api/v4/projects"',
        ),
    ],
    "gitlab_deploy_token": [
        ("config", "en", "DEPLOY_TOKEN_USER=gitlab+deploy-token-12\nDEPLOY_TOKEN={S}")
    ],
    "gitlab_pipeline_trigger": [
        (
            "code",
            "en",
            "curl -X POST --fail -F token={S} -F ref=main https://gitlab.example.com/api/v4/projects/42/trigger/pipeline",
        )
    ],
    "gitlab_runner": [
        (
            "config",
            "en",
            '[[runners]]\n  name = "docker-runner-1"\n  url = "https://gitlab.example.com"\n  token = "{S}"\n  executor = "docker"',
        ),
        ("code", "en", "gitlab-runner register --url https://gitlab.example.com --token {S}"),
    ],
    "gitlab_agent": [
        (
            "config",
            "en",
            "helm upgrade --install k8s-agent gitlab/gitlab-agent --set config.token={S}",
        )
    ],
    "gitlab_feed": [
        (
            "url",
            "en",
            "https://gitlab.example.com/dashboard/issues.atom?feed_token={S}&state=opened",
        )
    ],
    "gitlab_oauth_secret": [
        ("config", "en", "gitlab:\n  oauth:\n    application_id: 7c1e0d2b\n    secret: {S}\n")
    ],
    "gitlab_ci_job_token": [
        ("log", "en", "Fetching changes with git depth set to 20...\nUsing CI_JOB_TOKEN={S}")
    ],
    "slack_bot": [
        ("config", "en", "SLACK_BOT_TOKEN={S}"),
        ("code", "en", 'app = App(token="{S}")'),
    ],
    "slack_user": [
        ("code", "en", "curl -H 'Authorization: Bearer {S}' https://slack.com/api/auth.test")
    ],
    "slack_app": [("config", "en", "SLACK_APP_TOKEN={S}  # socket mode")],
    "slack_config": [("code", "en", "slack_config_refresh = '{S}'")],
    "slack_webhook": [
        (
            "code",
            "en",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Deploy done\"}' {S}",
        ),
        ("config", "en", "alerting:\n  slack:\n    webhook_url: {S}\n"),
        ("prose", "de", "Der Webhook {S} postet in #ops."),
    ],
    "stripe_secret_key": [
        ("code", "en", 'stripe.api_key = "{S}"'),
        ("config", "en", "STRIPE_SECRET_KEY={S}"),
    ],
    "stripe_restricted_key": [("code", "en", "const stripe = require('stripe')('{S}');")],
    "stripe_webhook_secret": [
        ("config", "en", "STRIPE_WEBHOOK_SECRET={S}"),
        ("code", "en", 'event = stripe.Webhook.construct_event(payload, sig, "{S}")'),
    ],
    "google_api_key": [
        ("url", "en", "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={S}"),
        (
            "code",
            "en",
            '<script src="https://maps.googleapis.com/maps/api/js?key={S}&callback=initMap"></script>',
        ),
    ],
    "openai": [
        ("config", "en", "OPENAI_API_KEY={S}"),
        ("code", "en", 'client = OpenAI(api_key="{S}")'),
    ],
    "anthropic": [
        ("config", "en", "ANTHROPIC_API_KEY={S}"),
        ("code", "en", 'client = anthropic.Anthropic(api_key="{S}")'),
    ],
    "huggingface": [
        ("code", "en", "huggingface-cli login --token {S}"),
        ("config", "en", "HF_TOKEN={S}"),
    ],
    "npm": [("config", "en", "//registry.npmjs.org/:_authToken={S}")],
    "pypi": [
        ("config", "en", "[pypi]\n  username = __token__\n  password = {S}\n"),
        ("code", "en", "twine upload -u __token__ -p {S} dist/*"),
    ],
    "rubygems": [
        ("config", "en", "---\n:rubygems_api_key: {S}\n"),
        ("config", "en", "GEM_HOST_API_KEY={S}"),
    ],
    "docker_hub": [("code", "en", "echo {S} | docker login -u acmebot --password-stdin")],
    "sendgrid": [
        ("config", "en", "SENDGRID_API_KEY={S}"),
        ("code", "en", "sg = SendGridAPIClient('{S}')"),
    ],
    "twilio": [("config", "en", "TWILIO_ACCOUNT_SID=AC{HEXSID}\nTWILIO_API_KEY={S}")],
    "telegram_bot": [
        ("url", "en", "https://api.telegram.org/bot{S}/sendMessage?chat_id=-100123&text=hi"),
        ("config", "en", "TELEGRAM_BOT_TOKEN={S}"),
    ],
    "discord": [
        ("code", "en", "client.run('{S}')"),
        ("code", "en", 'headers = {"Authorization": "Bot {S}"}'),
    ],
    "digitalocean": [
        ("code", "en", "doctl auth init --access-token {S}"),
        ("config", "en", 'provider "digitalocean" {\n  token = "{S}"\n}'),
    ],
    "shopify": [
        (
            "code",
            "en",
            "curl -H 'X-Shopify-Access-Token: {S}' https://acme.myshopify.com/admin/api/2024-01/shop.json",
        )
    ],
    "azure_storage_key": [
        (
            "config",
            "en",
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmestore01;AccountKey={S};EndpointSuffix=core.windows.net",
        ),
        (
            "json",
            "en",
            '{"ConnectionStrings": {"Blob": "DefaultEndpointsProtocol=https;AccountName=logs7;AccountKey={S};EndpointSuffix=core.windows.net"}}',
        ),
        (
            "code",
            "en",
            'az storage blob list --account-name acmestore01 --account-key "{S}" -c backups',
        ),
        ("config", "en", "AZURE_STORAGE_KEY={S}"),
    ],
    "jwt": [
        ("log", "en", "GET /api/orders 401 Authorization: Bearer {S}"),
        ("config", "en", "Set-Cookie: session={S}; Path=/; HttpOnly; Secure"),
        ("url", "en", "https://app.example.com/sso/callback?id_token={S}&state=af0ifjsldkj"),
    ],
}

# Families whose value can only be told from its surroundings: no free-standing pool contexts.
CONTEXT_ONLY = {"aws_secret_key", "azure_storage_key"}


def build_vendor_secrets() -> None:
    f = "secrets_vendor"
    for family in SECRET_MAKERS:
        if family == "aws_secret_key":
            continue
        contexts = list(FAMILY_CONTEXTS.get(family, []))
        if family not in CONTEXT_ONLY:
            contexts += rng.sample(VENDOR_POOL, 4 - min(len(contexts), 2))
        for context, language, template in contexts:
            text = template.replace("{HEXSID}", rs(32, HEX)).replace("{S}", sec(family))
            add(f, context, language, text, family=family)
    # AWS: key pairs in the places they are written.
    for _ in range(2):
        add(
            f,
            "config",
            "en",
            f"[default]\naws_access_key_id = {sec('aws_access_key')}\naws_secret_access_key = {sec('aws_secret_key')}\nregion = eu-west-1\n",
            family="aws_access_key",
        )
    add(
        f,
        "config",
        "en",
        f"export AWS_ACCESS_KEY_ID={sec('aws_access_key')}\nexport AWS_SECRET_ACCESS_KEY={sec('aws_secret_key')}",
        family="aws_access_key",
    )
    add(
        f,
        "code",
        "en",
        f"s3 = boto3.client('s3', aws_access_key_id='{sec('aws_access_key')}', aws_secret_access_key='{sec('aws_secret_key')}')",
        family="aws_access_key",
    )
    add(
        f,
        "json",
        "en",
        f'{{"AccessKey": {{"UserName": "ci", "AccessKeyId": "{sec("aws_access_key")}", "Status": "Active", "SecretAccessKey": "{sec("aws_secret_key")}"}}}}',
        family="aws_access_key",
    )
    add(
        f,
        "config",
        "en",
        f'provider "aws" {{\n  region     = "us-east-1"\n  access_key = "{sec("aws_access_key")}"\n  secret_key = "{sec("aws_secret_key")}"\n}}',
        family="aws_access_key",
    )
    # Two secrets written back to back are two findings.
    add(
        f,
        "code",
        "en",
        f"keys={sec('stripe_secret_key', 'sk_live_' + 'a' * 24)}{sec('stripe_secret_key', 'sk_live_' + 'b' * 24)}",
        family="stripe_secret_key",
    )
    add(
        f,
        "prose",
        "en",
        f"Rotate both {sec('github_pat')} and {sec('npm')} today.",
        family="github_pat",
    )
    add(
        f,
        "prose",
        "en",
        f"Leaked in the same paste: {sec('slack_bot')}, {sec('openai')}, {sec('sendgrid')}.",
        family="slack_bot",
    )
    # Unsigned tokens (alg none) end in a dot; the dot is part of the token.
    add(
        f,
        "log",
        "en",
        f"WARN jwt: accepted unsigned token {sec('jwt', jwt('none'))} from 203.0.113.7".replace(
            "203.0.113.7", m("ip_address", "203.0.113.7")
        ),
        family="jwt",
    )
    add(f, "code", "en", f'forged = "{sec("jwt", jwt("none"))}"  # alg none', family="jwt")
    add(f, "config", "en", f"ID_TOKEN={sec('jwt', jwt('RS256'))}", family="jwt")


def pem_blocks() -> dict[str, Callable[[], str]]:
    return {
        "rsa": lambda: pem("RSA PRIVATE KEY", 12, body_prefix="MIIEowIBAAKCAQEA"),
        "ec": lambda: pem("EC PRIVATE KEY", 3, body_prefix="MHcCAQEEI"),
        "pkcs8": lambda: pem("PRIVATE KEY", 12, body_prefix="MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
        "encrypted": lambda: pem(
            "ENCRYPTED PRIVATE KEY", 12, body_prefix="MIIFHDBOBgkqhkiG9w0BBQ0w"
        ),
        "openssh": lambda: pem(
            "OPENSSH PRIVATE KEY",
            6,
            body_prefix="b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        ),
        "dsa": lambda: pem("DSA PRIVATE KEY", 9, body_prefix="MIIBuwIBAAKBgQ"),
        "rsa_legacy_encrypted": lambda: pem(
            "RSA PRIVATE KEY",
            12,
            headers=f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,{rs(32, HEX).upper()}\n\n",
        ),
    }


def build_key_blocks() -> None:
    f = "secrets_keys"
    blocks = pem_blocks()
    for make in blocks.values():
        add(f, "config", "en", sec("private_key_pem", make()) + "\n", family="private_key_pem")
    add(
        f,
        "prose",
        "en",
        f"Here is the deploy key, keep it safe:\n\n{sec('private_key_pem', blocks['openssh']())}\n\nThanks!",
        family="private_key_pem",
    )
    add(
        f,
        "prose",
        "de",
        f"Der Schlüssel für den Server:\n{sec('private_key_pem', blocks['ec']())}\nBitte nicht weitergeben.",
        family="private_key_pem",
    )
    escaped = blocks["pkcs8"]().replace("\n", "\\n")
    add(
        f,
        "json",
        "en",
        f'{{\n  "type": "service_account",\n  "project_id": "acme-prod",\n  "private_key_id": "{rs(40, HEX)}",\n  "private_key": "{sec("private_key_pem", escaped)}\\n",\n  "client_email": "{m("email", "deployer@acme-prod.iam.gserviceaccount.com")}"\n}}',
        family="private_key_pem",
    )
    indented = blocks["rsa"]().replace("\n", "\n    ")
    add(
        f,
        "config",
        "en",
        f"tls:\n  key: |\n    {sec('private_key_pem', indented)}\n  cert_file: /etc/ssl/app.crt\n",
        family="private_key_pem",
    )
    add(
        f,
        "code",
        "en",
        f'SIGNING_KEY = """{sec("private_key_pem", blocks["ec"]())}"""',
        family="private_key_pem",
    )
    add(
        f,
        "log",
        "en",
        f"DEBUG loaded key material:\n{sec('private_key_pem', blocks['dsa']())}\nDEBUG done",
        family="private_key_pem",
    )
    for language, intro in [("en", "My backup key:"), ("fr", "Ma clé PGP privée :"), ("en", "")]:
        add(
            f,
            "prose",
            language,
            f"{intro}\n{sec('pgp_private_key_block', pgp_private())}\n",
            family="pgp_private_key_block",
        )
    add(
        f,
        "config",
        "en",
        f"gpg_key: |\n  {sec('pgp_private_key_block', pgp_private().replace(chr(10), chr(10) + '  '))}\n",
        family="pgp_private_key_block",
    )
    near = [
        (
            "prose",
            "en",
            pem("PUBLIC KEY", 6, body_prefix="MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A"),
            "private_key_pem",
        ),
        (
            "config",
            "en",
            pem("CERTIFICATE", 14, body_prefix="MIIDdzCCAl+gAwIBAgIE"),
            "private_key_pem",
        ),
        (
            "config",
            "en",
            f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(43, B64)} anna@laptop",
            "private_key_pem",
        ),
        (
            "config",
            "en",
            f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rs(300, B64)} ci@build",
            "private_key_pem",
        ),
        (
            "prose",
            "en",
            "Paste the key between the lines:\n-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
            "private_key_pem",
        ),
        (
            "prose",
            "en",
            "Keys start with a line such as -----BEGIN RSA PRIVATE KEY----- and must never be committed.",
            "private_key_pem",
        ),
        (
            "prose",
            "en",
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
            + rs(64, B64)
            + "\n"
            + rs(64, B64)
            + "\n="
            + rs(4, B64)
            + "\n-----END PGP PUBLIC KEY BLOCK-----",
            "pgp_private_key_block",
        ),
        (
            "email-body",
            "en",
            "Signed message.\n-----BEGIN PGP SIGNATURE-----\n\n"
            + rs(64, B64)
            + "\n="
            + rs(4, B64)
            + "\n-----END PGP SIGNATURE-----",
            "pgp_private_key_block",
        ),
        (
            "code",
            "en",
            "if line.startswith('-----BEGIN OPENSSH PRIVATE KEY-----'):\n    raise LeakError(path)",
            "private_key_pem",
        ),
    ]
    for context, language, text, family in near:
        add(f, context, language, text, family=family)


def pw_plain() -> str:
    return rng.choice(ALNUM) + rs(rng.randint(9, 18), ALNUM + "!%^*_-.")


def pw_url() -> str:
    return rs(rng.randint(10, 20), ALNUM + "-_.~") + rng.choice(["", "%21", "%40x"])


def pw_phrase() -> str:
    words = [
        "correct",
        "horse",
        "battery",
        "staple",
        "blue",
        "river",
        "sunset",
        "Tiger",
        "maple",
        "42",
    ]
    return " ".join(rng.sample(words, 4)) + rng.choice(["!", " #7", " & co", "?", ";x"])


def pw_token() -> str:
    return rng.choice([rs(32, HEX), rs(40, ALNUM), rs(24, B64URL), rs(48, B64) + "=="])


def mark_value(value: str) -> str:
    return sec("generic_assignment", value)


GENERIC_TEMPLATES: list[tuple[str, str, Callable[[], str]]] = [
    ("config", "en", lambda: f"DB_PASSWORD={mark_value(pw_plain())}"),
    ("config", "en", lambda: f"export API_TOKEN={mark_value(pw_token())}"),
    (
        "config",
        "en",
        lambda: f"POSTGRES_PASSWORD={mark_value(pw_plain())}\nPOSTGRES_USER=app\nPOSTGRES_DB=app",
    ),
    ("config", "en", lambda: f'SECRET_KEY="{mark_value(pw_token())}"'),
    (
        "config",
        "en",
        lambda: (
            f"database:\n  host: db.internal\n  user: app\n  password: {mark_value(pw_plain())}\n  pool: 10\n"
        ),
    ),
    ("config", "en", lambda: f'api_key: "{mark_value(pw_phrase())}"'),
    (
        "config",
        "en",
        lambda: f"oauth:\n  client_id: web-frontend\n  client_secret: '{mark_value(pw_token())}'\n",
    ),
    (
        "config",
        "en",
        lambda: (
            f"apiVersion: v1\nkind: Secret\nstringData:\n  access-key: {mark_value(pw_token())}\n"
        ),
    ),
    ("json", "en", lambda: f'{{"username": "svc-report", "password": "{mark_value(pw_plain())}"}}'),
    ("json", "en", lambda: f'{{"apiKey": "{mark_value(pw_token())}", "region": "eu"}}'),
    (
        "json",
        "en",
        lambda: f'{{"credentials": {{"token": "{mark_value(pw_token())}"}}, "retries": 3}}',
    ),
    (
        "config",
        "en",
        lambda: (
            f"[smtp]\nhost = smtp.example.com\nuser = mailer\npasswd = {mark_value(pw_plain())}\n"
        ),
    ),
    ("config", "en", lambda: f"[mysql]\nuser=backup\npwd={mark_value(pw_plain())}\n"),
    ("config", "en", lambda: f'[auth]\ntoken = "{mark_value(pw_token())}"\ntimeout = 30'),
    ("config", "en", lambda: f"[service]\nsecret = '{mark_value(pw_phrase())}'\n"),
    ("code", "en", lambda: f'DB_PASSWORD = "{mark_value(pw_plain())}"'),
    (
        "code",
        "en",
        lambda: (
            f"conn = psycopg.connect(host='db01', user='etl', password='{mark_value(pw_plain())}')"
        ),
    ),
    ("code", "en", lambda: f"const apiKey = '{mark_value(pw_token())}';"),
    (
        "code",
        "en",
        lambda: f"fetch(url, {{ headers: {{ 'X-Api-Key': '{mark_value(pw_token())}' }} }});",
    ),
    ("code", "en", lambda: f'cfg := Config{{User: "svc", Password: "{mark_value(pw_plain())}"}}'),
    ("code", "en", lambda: f'private static final String SECRET_KEY = "{mark_value(pw_token())}";'),
    (
        "code",
        "en",
        lambda: (
            f'var connectionString = "Server=sql01;Database=crm;User Id=sa;Password={mark_value(rs(14, ALNUM + "!*-_"))};";'
        ),
    ),
    ("code", "en", lambda: f"config.access_key = '{mark_value(pw_token())}'"),
    ("code", "en", lambda: f"$dbPassword = '{mark_value(pw_plain())}';"),
    ("code", "en", lambda: f'let api_token = "{mark_value(pw_token())}";'),
    ("code", "en", lambda: f'val clientSecret = "{mark_value(pw_token())}"'),
    ("code", "en", lambda: f"mysql -h db01 -u root --password={mark_value(pw_plain())} sales"),
    (
        "code",
        "en",
        lambda: f"docker login registry.example.com -u ci --password '{mark_value(pw_phrase())}'",
    ),
    ("code", "en", lambda: f"./sync --api-key {mark_value(pw_token())} --verbose"),
    (
        "code",
        "en",
        lambda: (
            f"vault write auth/userpass/users/bob password={mark_value(pw_plain())} policies=dev"
        ),
    ),
    (
        "code",
        "en",
        lambda: f'psql "host=db01 user=report password={mark_value(pw_plain())} dbname=bi"',
    ),
    (
        "url",
        "en",
        lambda: (
            f"https://api.example.com/v2/export?format=csv&api_key={mark_value(pw_url())}&page=2"
        ),
    ),
    ("url", "en", lambda: f"wss://stream.example.net/socket?access_token={mark_value(pw_url())}"),
    ("url", "en", lambda: f"GET /oauth/callback?code=abc&token={mark_value(pw_url())} HTTP/1.1"),
    ("url", "en", lambda: f"postgres://app:{mark_value(pw_url())}@db.internal:5432/app"),
    (
        "url",
        "en",
        lambda: (
            f"mongodb+srv://admin:{mark_value(pw_url())}@cluster0.example.net/test?retryWrites=true"
        ),
    ),
    ("url", "en", lambda: f"redis://:{mark_value(pw_url())}@cache.internal:6379/0"),
    ("url", "en", lambda: f"amqps://worker:{mark_value(pw_url())}@mq.example.com/vhost"),
    ("url", "en", lambda: f"smtp://mailer:{mark_value(pw_url())}@smtp.example.com:587"),
    ("config", "en", lambda: f"X-Auth-Token: {mark_value(pw_token())}"),
    (
        "config",
        "en",
        lambda: (
            f"services:\n  db:\n    image: mysql:8\n    environment:\n      - MYSQL_ROOT_PASSWORD={mark_value(pw_plain())}\n"
        ),
    ),
    (
        "log",
        "en",
        lambda: (
            f"2024-06-02 11:02:33 DEBUG config loaded: db_password={mark_value(pw_plain())} pool=10"
        ),
    ),
    ("prose", "en", lambda: f"The wifi password is {mark_value(pw_plain())}"),
    (
        "prose",
        "fr",
        lambda: f"Le password de la base de test est {mark_value(pw_plain())}, ne le partage pas.",
    ),
    (
        "prose",
        "de",
        lambda: f"Neues Passwort für den Drucker-Admin – password: {mark_value(pw_plain())}",
    ),
    ("prose", "ja", lambda: f"パスワード（password）: {mark_value(pw_plain())}"),
    ("prose", "es", lambda: f"La contraseña del wifi (password) es {mark_value(pw_plain())}"),
    ("config", "en", lambda: f'password: "{mark_value("Tr0ub4dor & 3 horses!")}"'),
    (
        "config",
        "en",
        lambda: (
            f"app.datasource.password={mark_value(pw_plain())}\napp.datasource.url=jdbc:postgresql://db:5432/app"
        ),
    ),
    (
        "code",
        "en",
        lambda: f'os.environ.setdefault("SLACK_SIGNING_SECRET", "{mark_value(rs(32, HEX))}")',
    ),
    ("config", "en", lambda: f"credential: {mark_value(pw_token())}"),
    ("config", "en", lambda: f"AUTH_CREDENTIALS={mark_value(pw_token())}"),
]


def build_generic_secrets() -> None:
    f = "secrets_generic"
    for context, language, make in GENERIC_TEMPLATES:
        add(f, context, language, make(), family="generic_assignment")
    for context, language, make in GENERIC_TEMPLATES:
        add(f, context, language, make(), family="generic_assignment")
    add(
        f,
        "config",
        "en",
        f"POSTGRES_PASSWORD={mark_value(pw_plain())}\nPOSTGRES_HOST={m('ip_address', ipv4('private10'))}",
        family="generic_assignment",
    )
    add(
        f,
        "url",
        "en",
        f"mysql://root:{mark_value(pw_url())}@{m('ip_address', ipv4('private192'))}:3306/shop",
        family="generic_assignment",
    )
    add(
        f,
        "config",
        "en",
        f"ldap:\n  bind_dn: cn=admin,dc=example,dc=org\n  bind_password: {mark_value(pw_plain())}\n  admin_email: {m('email', email())}",
        family="generic_assignment",
    )


def build_secret_near_misses() -> None:
    f = "secrets_near_miss"
    near: list[tuple[str, str, str, str]] = [
        ("config", "en", 'api_key: "<your-api-key>"', "generic_assignment"),
        ("config", "en", "API_KEY=${API_KEY}", "generic_assignment"),
        (
            "code",
            "en",
            'curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/me',
            "generic_assignment",
        ),
        ("config", "en", 'password: "{{ secret }}"', "generic_assignment"),
        ("config", "en", "password: ********", "generic_assignment"),
        ("config", "en", "token: xxxxxxxx", "generic_assignment"),
        ("config", "en", "DB_PASSWORD=changeme", "generic_assignment"),
        ("config", "en", "admin_password: change_me", "generic_assignment"),
        ("config", "en", "password=your_password_here", "generic_assignment"),
        ("code", "en", 'password = os.environ["DB_PASSWORD"]', "generic_assignment"),
        ("code", "en", "const token = process.env.API_TOKEN;", "generic_assignment"),
        (
            "code",
            "en",
            'secret_key = settings.SECRET_KEY\npassword = config["db"]["password"]',
            "generic_assignment",
        ),
        ("code", "en", "password = getpass.getpass()", "generic_assignment"),
        ("config", "en", "max_tokens: 2048\ntemperature: 0.2", "generic_assignment"),
        ("log", "en", "request done token_count=12 latency=340ms", "generic_assignment"),
        (
            "config",
            "en",
            "password_reset_url=https://accounts.example.com/reset?step=1",
            "generic_assignment",
        ),
        ("config", "en", "password=\nhost=db\nport=5432", "generic_assignment"),
        ("config", "en", "password: null\nuser: readonly", "generic_assignment"),
        ("config", "en", 'password = ""', "generic_assignment"),
        ("config", "en", "deploy:\n  secret: ${{ secrets.DEPLOY_KEY }}\n", "generic_assignment"),
        ("config", "en", "api_key: <redacted>", "generic_assignment"),
        ("config", "en", "api_key=YOUR_API_KEY", "generic_assignment"),
        ("config", "en", "token_limit = 4096\npassword_min_length: 12", "generic_assignment"),
        ("config", "en", "use_token_auth: true\nrequire_password: false", "generic_assignment"),
        ("config", "en", "tokenizer: cl100k_base", "generic_assignment"),
        ("config", "en", "password: !ENV ${DB_PASS}", "generic_assignment"),
        ("url", "en", "postgres://app:${DB_PASSWORD}@db:5432/app", "generic_assignment"),
        ("url", "en", "https://deploy:@git.example.org/team/repo.git", "generic_assignment"),
        ("url", "en", "http://localhost:8080/health", "generic_assignment"),
        ("code", "en", 'headers = {"Authorization": "Bearer <token>"}', "generic_assignment"),
        (
            "prose",
            "en",
            "Your password must be at least 12 characters and the token expires after 30 minutes.",
            "generic_assignment",
        ),
        (
            "prose",
            "en",
            "Reset your password at the link we sent; never share your secret key.",
            "generic_assignment",
        ),
        ("prose", "de", "Das Passwort muss mindestens 12 Zeichen lang sein.", "generic_assignment"),
        ("config", "en", "token_type: Bearer\nexpires_in: 3600", "generic_assignment"),
        (
            "config",
            "en",
            "[aws]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
            "aws_access_key",
        ),
        (
            "prose",
            "en",
            "The docs use AKIAIOSFODNN7EXAMPLE as the sample access key id.",
            "aws_access_key",
        ),
        ("config", "en", "GITHUB_TOKEN=ghp_" + "x" * 36, "github_pat"),
        (
            "prose",
            "en",
            "Tokens look like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx and expire.",
            "github_pat",
        ),
        ("prose", "en", "Love you, see you soon! xoxo", "slack_bot"),
        ("url", "en", "https://shop.example.com/products/xoxo-hugs-and-kisses-mug", "slack_bot"),
        ("prose", "en", "xoxo-hugs-and-kisses was the name of the campaign.", "slack_bot"),
        ("config", "en", "SLACK_BOT_TOKEN=xoxb-your-token", "slack_bot"),
        ("code", "en", f"const stripe = Stripe('pk_live_{rs(24)}');", "stripe_secret_key"),
        ("code", "en", f"publishableKey: 'pk_test_{rs(24)}'", "stripe_secret_key"),
        ("prose", "en", "Your key sk-...AbCd was created on 3 May.", "openai"),
        (
            "prose",
            "en",
            "Stripe keys start with sk_live_ or sk_test_ followed by random characters.",
            "stripe_secret_key",
        ),
        (
            "code",
            "en",
            "from huggingface_hub import hf_hub_download\npath = hf_hub_download(repo_id='org/model', filename='config.json')",
            "huggingface",
        ),
        (
            "config",
            "en",
            "npm_config_registry=https://registry.npmjs.org/\nnpm_package_version=1.4.2",
            "npm",
        ),
        ("config", "en", f"TWILIO_ACCOUNT_SID=AC{rs(32, HEX)}", "twilio"),
        (
            "log",
            "en",
            f"commit {rs(40, HEX)}\nAuthor: Anna <anna@example.com>".replace(
                "anna@example.com", "⟦email:anna@example.com⟧"
            ),
            "aws_secret_key",
        ),
        (
            "log",
            "en",
            f"request_id=3f2b8c1e-9d4a-4f6b-8e2a-{rs(12, HEX)} status=200",
            "generic_assignment",
        ),
        (
            "code",
            "en",
            f'<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{rs(60, B64)}">',
            "generic_assignment",
        ),
        (
            "prose",
            "en",
            "API keys for Maps begin with AIza and are 39 characters long.",
            "google_api_key",
        ),
        ("prose", "en", "A JWT header such as eyJhbGciOiJIUzI1NiJ9 alone is not a token.", "jwt"),
        (
            "code",
            "en",
            "const GITLAB_PREFIXES = ['glpat-', 'gldt-', 'glrt-', 'glptt-'];",
            "gitlab_pat",
        ),
        ("prose", "en", "Use `npm_` tokens of type automation for CI.", "npm"),
        ("config", "en", f"sha256sum: {rs(64, HEX)}  app.tar.gz", "digitalocean"),
        ("code", "en", "Telegram message id 1234567890:42 at 10:15:30", "telegram_bot"),
        ("prose", "en", "Discord ids look like 123456789012345678 and are public.", "discord"),
    ]
    for context, language, text, family in near:
        add(f, context, language, text, family=family)


PLACEHOLDER_KEYS = [
    "password",
    "api_key",
    "secret",
    "token",
    "db_password",
    "access_key",
    "client_secret",
    "apiToken",
    "SECRET_KEY",
    "pwd",
]
PLACEHOLDERS = [
    "<your-token>",
    "${SECRET_VALUE}",
    "$SECRET_VALUE",
    "{{ .Values.secret }}",
    "********",
    "xxxxxxxxxxxx",
    "changeme",
    "REPLACE_ME",
    "os.environ['SECRET_VALUE']",
    "process.env.SECRET_VALUE",
    "None",
    "''",
    "<redacted>",
    "TODO",
    "%(secret)s",
    "[REDACTED]",
]
PLACEHOLDER_FORMS = ["{k}: {v}", "{k}={v}", '"{k}": "{v}"', "{k} = {v}", "--{k} {v}"]


def build_placeholder_near_misses() -> None:
    f = "secrets_near_miss"
    seen: set[str] = set()
    while len(seen) < 56:
        form = rng.choice(PLACEHOLDER_FORMS)
        text = form.format(k=rng.choice(PLACEHOLDER_KEYS), v=rng.choice(PLACEHOLDERS))
        if text in seen:
            continue
        seen.add(text)
        add(f, rng.choice(["config", "code"]), "en", text, family="generic_assignment")
    vendor_like = [
        (
            "prose",
            "en",
            "AWS access key ids begin with AKIA (long-term) or ASIA (temporary).",
            "aws_access_key",
        ),
        ("config", "en", "AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX", "aws_access_key"),
        ("config", "en", "aws_secret_access_key = <paste-secret-here>", "aws_secret_key"),
        ("code", "en", "token = 'github_pat_' + random_suffix()", "github_fine_grained"),
        ("prose", "en", "Revoke any gho_ or ghu_ token you find in logs.", "github_oauth"),
        (
            "config",
            "en",
            "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/XXX/YYY/ZZZ",
            "slack_webhook",
        ),
        (
            "prose",
            "en",
            "Webhooks live under https://hooks.slack.com/services/ in the app settings.",
            "slack_webhook",
        ),
        ("config", "en", "STRIPE_WEBHOOK_SECRET=whsec_...", "stripe_webhook_secret"),
        ("config", "en", "OPENAI_API_KEY=sk-...", "openai"),
        ("config", "en", "ANTHROPIC_API_KEY=sk-ant-xxxxxxxx", "anthropic"),
        ("prose", "en", "Set HF_TOKEN=hf_*** in your environment.", "huggingface"),
        ("config", "en", "SENDGRID_API_KEY=SG.xxxxx.yyyyy", "sendgrid"),
        ("prose", "en", "The sk-learn package is not a key; neither is task-ant-api.", "openai"),
        ("code", "en", "x = jwt.decode(token, key, algorithms=['HS256'])", "jwt"),
        ("prose", "en", "Shopify tokens have prefixes like shpat_ and shpss_.", "shopify"),
        ("config", "en", "DIGITALOCEAN_TOKEN=dop_v1_<token>", "digitalocean"),
        ("config", "en", "DOCKER_PAT=dckr_pat_XXXXXXXXXXXXXXXX", "docker_hub"),
        (
            "config",
            "en",
            "TELEGRAM_BOT_TOKEN=123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
            "telegram_bot",
        ),
    ]
    for context, language, text, family in vendor_like:
        add(f, context, language, text, family=family)


def build_secrets() -> None:
    build_vendor_secrets()
    build_key_blocks()
    build_generic_secrets()
    build_secret_near_misses()
    build_placeholder_near_misses()


if __name__ == "__main__":
    build_pii()
    build_secrets()
    write_files()
    for name, cases in FILES.items():
        spans = sum(len(c["expect"]) for c in cases)
        misses = sum(1 for c in cases if not c["expect"])
        print(f"{name:18} cases={len(cases):4} spans={spans:4} near-miss cases={misses}")
