"""Writes the held-out detection corpus (the YAML files beside this script).

    python benchmarks/data/detection-holdout/make_holdout.py

The texts are hand-written below; the values that carry check digits or random characters (card
numbers, IBANs, SSNs, tokens, key blocks, JWTs) are drawn from one seeded generator, so running
the script again writes the same files. See README.md in this directory.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
rng = random.Random(7_310_2025)

DIGITS = string.digits
UPPER = string.ascii_uppercase
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"


# --- cases -----------------------------------------------------------------------------------

Expect = dict[str, Any]


def e(entity: str, text: str, occurrence: int | None = None) -> Expect:
    """An expected span; `occurrence` (1-based) names which one when the text repeats it."""
    item: Expect = {"entity": entity, "text": text}
    if occurrence is not None:
        item["occurrence"] = occurrence
    return item


def s(family: str, text: str, occurrence: int | None = None) -> Expect:
    item = e("secret", text, occurrence)
    item["family"] = family
    return item


class Book:
    """One YAML file of cases; ids are the file's prefix and a running number."""

    def __init__(self, name: str, prefix: str) -> None:
        self.name = name
        self.prefix = prefix
        self.cases: list[dict[str, Any]] = []

    def add(
        self, context: str, language: str, text: str, *expect: Expect, family: str | None = None
    ) -> None:
        case: dict[str, Any] = {
            "id": f"{self.prefix}-{len(self.cases) + 1:03d}",
            "context": context,
            "language": language,
        }
        if family:
            case["family"] = family
        case["text"] = text
        case["expect"] = list(expect)
        for item in expect:
            if item["text"] not in text:
                raise ValueError(f"{case['id']}: {item['text']!r} is not in the text")
        self.cases.append(case)


def pick(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# --- cards -----------------------------------------------------------------------------------


def luhn_digit(partial: str) -> str:
    """The check digit that makes `partial` + digit Luhn-valid."""
    total = 0
    for position, char in enumerate(reversed(partial)):
        value = int(char) * (2 if position % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return str((10 - total % 10) % 10)


def luhn_ok(digits: str) -> bool:
    return luhn_digit(digits[:-1]) == digits[-1]


ISSUERS: dict[str, tuple[list[str], int]] = {
    "visa": (["4"], 16),
    "visa13": (["4"], 13),
    "visa19": (["4"], 19),
    "mastercard": (["51", "52", "53", "54", "55"], 16),
    "mastercard2": ([str(p) for p in range(2221, 2721, 37)], 16),
    "amex": (["34", "37"], 15),
    "discover": (["6011", "65", "644", "647", "649"], 16),
    "discover19": (["6011", "65"], 19),
    "jcb": ([str(p) for p in range(3528, 3590, 7)], 16),
    "diners": (["36"], 14),
    "diners16": (["300", "305", "38", "39"], 16),
    "unionpay": (["62"], 16),
    "unionpay19": (["62"], 19),
    "maestro": (["6759", "5018", "5020", "6304"], 16),
    "maestro12": (["6759", "5018"], 12),
}


def card_digits(issuer: str) -> str:
    prefixes, length = ISSUERS[issuer]
    prefix = rng.choice(prefixes)
    body = prefix + pick(DIGITS, length - len(prefix) - 1)
    return body + luhn_digit(body)


def grouped(digits: str, sizes: list[int], sep: str) -> str:
    parts, at = [], 0
    for size in sizes:
        parts.append(digits[at : at + size])
        at += size
    if at < len(digits):
        parts.append(digits[at:])
    return sep.join(p for p in parts if p)


def card(issuer: str, sep: str = " ") -> str:
    digits = card_digits(issuer)
    if not sep:
        return digits
    if len(digits) == 15:
        return grouped(digits, [4, 6, 5], sep)
    if len(digits) == 14:
        return grouped(digits, [4, 6, 4], sep)
    return grouped(digits, [4] * 5, sep)


def luhn_valid_number(prefix: str, length: int) -> str:
    body = prefix + pick(DIGITS, length - len(prefix) - 1)
    return body + luhn_digit(body)


def luhn_invalid(issuer: str) -> str:
    digits = card_digits(issuer)
    wrong = str((int(digits[-1]) + rng.randint(1, 9)) % 10)
    return digits[:-1] + wrong


def ean13(prefix: str) -> str:
    """A product barcode with its EAN check digit that is NOT Luhn-valid."""
    while True:
        body = prefix + pick(DIGITS, 12 - len(prefix))
        total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body))
        code = body + str((10 - total % 10) % 10)
        if not luhn_ok(code):
            return code


# --- IBANs -----------------------------------------------------------------------------------

# BBAN shape per country: n digit, a capital letter, c digit or capital letter.
BBAN = {
    "DE": "n" * 18, "AT": "n" * 16, "CH": "n" * 5 + "c" * 12, "FR": "n" * 10 + "c" * 11 + "nn",
    "ES": "n" * 20, "IT": "a" + "n" * 10 + "c" * 12, "NL": "aaaa" + "n" * 10, "BE": "n" * 12,
    "PL": "n" * 24, "PT": "n" * 21, "GB": "aaaa" + "n" * 14, "IE": "aaaa" + "n" * 14,
    "SE": "n" * 20, "NO": "n" * 11, "DK": "n" * 14, "FI": "n" * 14, "CZ": "n" * 20,
    "SK": "n" * 20, "HU": "n" * 24, "RO": "aaaa" + "c" * 16, "GR": "n" * 7 + "c" * 16,
    "HR": "n" * 17, "SI": "n" * 15, "LT": "n" * 16, "LV": "aaaa" + "c" * 13, "EE": "n" * 16,
    "BG": "aaaa" + "n" * 6 + "c" * 8, "LU": "nnn" + "c" * 13, "MT": "aaaa" + "n" * 5 + "c" * 18,
    "CY": "n" * 8 + "c" * 16, "SA": "nn" + "c" * 18, "AE": "n" * 19, "IL": "n" * 19,
    "TR": "n" * 5 + "0" + "c" * 16, "BR": "n" * 23 + "ac", "MC": "n" * 10 + "c" * 11 + "nn",
    "LI": "n" * 5 + "c" * 12, "IS": "n" * 22, "QA": "aaaa" + "c" * 21, "KW": "aaaa" + "c" * 22,
    "UA": "n" * 6 + "c" * 19,
}  # fmt: skip


def bban(country: str) -> str:
    out = []
    for kind in BBAN[country]:
        if kind == "n":
            out.append(rng.choice(DIGITS))
        elif kind == "a":
            out.append(rng.choice(UPPER))
        elif kind == "c":
            out.append(rng.choice(UPPER) if rng.random() < 0.2 else rng.choice(DIGITS))
        else:
            out.append(kind)
    return "".join(out)


def mod97(text: str) -> int:
    return int("".join(str(int(c, 36)) for c in text)) % 97


def with_check(country: str, body: str) -> str:
    check = 98 - mod97(body + country + "00")
    return f"{country}{check:02d}{body}"


def print_format(compact: str) -> str:
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


def iban(country: str, spaced: bool = True) -> str:
    compact = with_check(country, bban(country))
    return print_format(compact) if spaced else compact


def iban_wrong_check(country: str, spaced: bool = True) -> str:
    compact = with_check(country, bban(country))
    check = int(compact[2:4])
    wrong = f"{(check + rng.randint(1, 50) - 2) % 97 + 2:02d}"
    if wrong == compact[2:4]:
        wrong = f"{(check - 2 + 1) % 97 + 2:02d}"
    compact = compact[:2] + wrong + compact[4:]
    return print_format(compact) if spaced else compact


def iban_too_short(country: str, missing: int = 2) -> str:
    """Passes mod-97 but is `missing` characters short of the country's length."""
    return print_format(with_check(country, bban(country)[:-missing]))


def creditor_reference() -> str:
    """ISO 11649 RF reference: mod-97 like an IBAN, but no IBAN."""
    ref = pick(DIGITS, rng.randint(9, 15))
    check = 98 - mod97(ref + "RF00")
    return print_format(f"RF{check:02d}{ref}")


# --- SSNs ------------------------------------------------------------------------------------


def ssn(sep: str = "-") -> str:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}{sep}{rng.randint(1, 99):02d}{sep}{rng.randint(1, 9999):04d}"


# --- tokens, keys, JWTs ----------------------------------------------------------------------


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(claims: dict[str, Any], alg: str = "HS256", signature_bytes: int = 32) -> str:
    header = b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
    if alg == "none":
        return f"{header}.{payload}."
    signature = b64url(bytes(rng.getrandbits(8) for _ in range(signature_bytes)))
    return f"{header}.{payload}.{signature}"


def pem_body(prefix: str, n_bytes: int) -> list[str]:
    raw = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n_bytes))).decode()
    body = prefix + raw[len(prefix) :]
    return [body[i : i + 64] for i in range(0, len(body), 64)]


def pem(label: str, prefix: str = "MII", n_bytes: int = 300, indent: str = "") -> str:
    lines = [f"-----BEGIN {label}-----", *pem_body(prefix, n_bytes), f"-----END {label}-----"]
    return ("\n" + indent).join(lines)


def pgp_private_block() -> str:
    lines = [
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
        "",
        *pem_body("lQVYBGY", 240),
        "=" + pick(B64, 4),
        "-----END PGP PRIVATE KEY BLOCK-----",
    ]
    return "\n".join(lines)


def aws_key_id(prefix: str = "AKIA") -> str:
    return prefix + pick(UPPER + "234567", 16)


def github(prefix: str) -> str:
    return prefix + pick(ALNUM, 36)


def github_fine_grained() -> str:
    return "github_pat_" + pick(ALNUM, 22) + "_" + pick(ALNUM, 59)


def gitlab() -> str:
    return "glpat-" + pick(ALNUM + "-_", 20)


def slack(kind: str) -> str:
    if kind == "xoxp":
        return f"xoxp-{pick(DIGITS, 12)}-{pick(DIGITS, 12)}-{pick(DIGITS, 13)}-{pick(HEX, 32)}"
    return f"{kind}-{pick(DIGITS, 12)}-{pick(DIGITS, 13)}-{pick(ALNUM, 24)}"


def slack_webhook() -> str:
    return (
        "https://hooks.slack.com/services/"
        f"T{pick(UPPER + DIGITS, 10)}/B{pick(UPPER + DIGITS, 10)}/{pick(ALNUM, 24)}"
    )


def stripe(prefix: str) -> str:
    return prefix + pick(ALNUM, rng.choice([24, 99]))


def openai_key() -> str:
    return "sk-proj-" + pick(B64URL, 74) + "T3BlbkFJ" + pick(B64URL, 74)


def anthropic_key() -> str:
    return "sk-ant-api03-" + pick(B64URL, 93) + "AA"


def google_key() -> str:
    return "AIza" + pick(B64URL, 35)


def sendgrid() -> str:
    return f"SG.{pick(B64URL, 22)}.{pick(B64URL, 43)}"


def huggingface() -> str:
    return "hf_" + pick(string.ascii_letters, 34)


def telegram() -> str:
    return f"{rng.randint(10**8, 10**10 - 1)}:AA{pick(B64URL, 33)}"


def age_key() -> str:
    return "AGE-SECRET-KEY-1" + pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)


def azure_account_key() -> str:
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(64))).decode()


def secret_value(n: int = 24, alphabet: str = ALNUM + "!+-_.*") -> str:
    """A random password or opaque token, as a person or a generator would choose one."""
    return pick(alphabet, n)


URL_SAFE = ALNUM + "-_.~"


def hexstr(n: int) -> str:
    return pick(HEX, n)


def uuid4() -> str:
    h = hexstr(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


# --- output ----------------------------------------------------------------------------------


class LiteralDumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = (
        "|" if "\n" in value and not any(ln != ln.rstrip() for ln in value.split("\n")) else None
    )
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


LiteralDumper.add_representer(str, _str)


def write(books: list[Book]) -> None:
    ids: set[str] = set()
    for book in books:
        for case in book.cases:
            if case["id"] in ids:
                raise ValueError(f"duplicate id {case['id']}")
            ids.add(case["id"])
        text = yaml.dump(
            book.cases, Dumper=LiteralDumper, allow_unicode=True, sort_keys=False, width=100_000
        )
        (HERE / f"{book.name}.yaml").write_text(text, encoding="utf-8")


# --- e-mail ----------------------------------------------------------------------------------


def emails() -> Book:
    b = Book("email", "ho-email")
    b.add(
        "email-body",
        "en",
        "Best regards,\nPriya Raman\nSenior Buyer | Northwind Logistics\npriya.raman@northwind-logistics.co.uk\nT: +44 20 7946 0321",
        e("email", "priya.raman@northwind-logistics.co.uk"),
        e("phone", "+44 20 7946 0321"),
    )
    b.add(
        "prose",
        "de",
        "Bitte senden Sie die Unterlagen bis Freitag an bewerbung@stadtwerke-kiel.de.",
        e("email", "bewerbung@stadtwerke-kiel.de"),
    )
    b.add(
        "prose",
        "fr",
        "Pour toute question, écrivez à service.client@mutuelle-provence.fr.",
        e("email", "service.client@mutuelle-provence.fr"),
    )
    b.add(
        "chat",
        "es",
        "mi correo es lucia_fdez+facturas@correo.es, escríbeme allí porfa",
        e("email", "lucia_fdez+facturas@correo.es"),
    )
    b.add(
        "email-body",
        "pt",
        "Envie o comprovante para financeiro@padaria-sao-jorge.com.br ou responda este e-mail.",
        e("email", "financeiro@padaria-sao-jorge.com.br"),
    )
    b.add(
        "form",
        "it",
        "Referente: dott.ssa Giulia Ferraro <g.ferraro@asl-torino.it>",
        e("email", "g.ferraro@asl-torino.it"),
    )
    b.add(
        "prose",
        "nl",
        "Mail naar klantenservice@woonbron-delft.nl met je huurnummer in de onderwerpregel.",
        e("email", "klantenservice@woonbron-delft.nl"),
    )
    b.add(
        "prose",
        "pl",
        "Kontakt: biuro@kancelaria-nowak.pl, tel. +48 22 628 41 93",
        e("email", "biuro@kancelaria-nowak.pl"),
        e("phone", "+48 22 628 41 93"),
    )
    b.add(
        "prose",
        "ja",
        "お問い合わせはsupport@sakura-denki.co.jpまでご連絡ください。",
        e("email", "support@sakura-denki.co.jp"),
    )
    b.add("prose", "zh", "请将简历发送至hr@huaxin-tech.cn，谢谢。", e("email", "hr@huaxin-tech.cn"))
    b.add(
        "prose",
        "ko",
        "문의: help@hanbit-media.kr 로 메일 주세요.",
        e("email", "help@hanbit-media.kr"),
    )
    b.add(
        "chat",
        "ru",
        "Пишите на адрес zakaz@tehsnab.ru, отвечаем в течение дня.",
        e("email", "zakaz@tehsnab.ru"),
    )
    b.add(
        "prose",
        "ar",
        "للاستفسار راسلنا على info@alnoor-clinic.ae وشكراً لكم",
        e("email", "info@alnoor-clinic.ae"),
    )
    b.add(
        "prose",
        "he",
        "ניתן לפנות אלינו בכתובת office@galil-law.co.il בכל שאלה.",
        e("email", "office@galil-law.co.il"),
    )
    b.add(
        "csv",
        "pt",
        "id,nome,email,cadastro\n1041,Ana Souza,ana.souza@uol.com.br,2024-02-11\n1042,Tomás Ruiz,truiz@telefonica.net,2024-02-12",
        e("email", "ana.souza@uol.com.br"),
        e("email", "truiz@telefonica.net"),
    )
    b.add(
        "log",
        "en",
        '{"level":"info","msg":"reset link sent","user":"k.oduya@fastmail.com","ts":"2024-05-02T09:14:55Z"}',
        e("email", "k.oduya@fastmail.com"),
    )
    b.add(
        "sql",
        "en",
        "INSERT INTO customers (id, full_name, email, created_at) VALUES (88231, 'Henrik Lund', 'henrik.lund@outlook.dk', '2023-11-30 08:12:00');",
        e("email", "henrik.lund@outlook.dk"),
    )
    b.add(
        "markdown",
        "en",
        "| Name | Role | Contact |\n|---|---|---|\n| Mei Chen | On-call | mei.chen@opsgenie-mirror.io |\n| Rafael Costa | Backup | rafa.costa@protonmail.ch |",
        e("email", "mei.chen@opsgenie-mirror.io"),
        e("email", "rafa.costa@protonmail.ch"),
    )
    b.add(
        "http",
        "de",
        'POST /api/v2/newsletter HTTP/1.1\nHost: shop.bergfreunde-outdoor.at\nContent-Type: application/json\n\n{"email":"lena.gruber@gmx.at","consent":true}',
        e("email", "lena.gruber@gmx.at"),
    )
    b.add(
        "config",
        "en",
        'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: payments\n  annotations:\n    contact: platform-oncall@fintrack.dev\n    cost-center: "4410"',
        e("email", "platform-oncall@fintrack.dev"),
    )
    b.add(
        "log",
        "ru",
        "commit 9f2c4e1b7a0d3c5e8f6a1b2c3d4e5f60718293a4\nAuthor: Dmitri Volkov <d.volkov@yandex.ru>\nDate:   Tue Mar 5 14:02:11 2024 +0300\n\n    Исправлена проверка платежей",
        e("email", "d.volkov@yandex.ru"),
    )
    b.add(
        "html",
        "de",
        '<p>Akkreditierung: <a href="mailto:presse@theater-basel.ch?subject=Akkreditierung">Pressestelle</a></p>',
        e("email", "presse@theater-basel.ch"),
    )
    b.add(
        "prose",
        "en",
        "Reach the studio at hello@lumen.photography or DM us on Instagram.",
        e("email", "hello@lumen.photography"),
    )
    b.add(
        "prose",
        "es",
        "Contacto comercial: ventas@xn--diseo-rta.es",
        e("email", "ventas@xn--diseo-rta.es"),
    )
    b.add(
        "log",
        "nl",
        "Mar 12 03:14:07 mx1 postfix/bounce[2231]: 4TxQ1 sender non-delivery notification from MAILER-DAEMON@mx3.mail.kpn.nl",
        e("email", "MAILER-DAEMON@mx3.mail.kpn.nl"),
    )
    b.add(
        "email-body",
        "es",
        'From: "Sánchez, Marta" <marta.sanchez@iberdrola-energia.es>\nTo: compras@grupo-aluvia.es\nCc: j.ortega@grupo-aluvia.es\nSubject: Pedido 2024/118',
        e("email", "marta.sanchez@iberdrola-energia.es"),
        e("email", "compras@grupo-aluvia.es"),
        e("email", "j.ortega@grupo-aluvia.es"),
    )
    b.add(
        "chat",
        "en",
        "@nina can you add jonas.weber@tu-dresden.de to the #research channel?",
        e("email", "jonas.weber@tu-dresden.de"),
    )
    b.add(
        "code",
        "en",
        'resource "google_billing_budget" "main" {\n  display_name = "monthly"\n  owner_email  = "cloud-billing@heliograph.io"\n}',
        e("email", "cloud-billing@heliograph.io"),
    )
    b.add(
        "config",
        "en",
        "[user]\n\tname = Sofia Lind\n\temail = sofia.lind@kth.se",
        e("email", "sofia.lind@kth.se"),
    )
    b.add(
        "prose",
        "it",
        "Inviare la diffida via PEC a studiolegale.rossi@pec.it entro 10 giorni.",
        e("email", "studiolegale.rossi@pec.it"),
    )
    b.add(
        "form",
        "de",
        "Matrikelnummer: 01247711\nE-Mail: a01247711@unet.univie.ac.at",
        e("email", "a01247711@unet.univie.ac.at"),
    )
    b.add(
        "url",
        "it",
        "https://newsletter.ilgiornaleverde.it/unsubscribe?u=marco.bianchi@libero.it&list=7",
        e("email", "marco.bianchi@libero.it"),
    )
    b.add(
        "prose",
        "fr",
        "Inscriptions : écrire à <inscriptions@conservatoire-lyon.fr>.",
        e("email", "inscriptions@conservatoire-lyon.fr"),
    )
    b.add(
        "chat", "zh", "我的邮箱是 wang.lei88@163.com 有事发邮件", e("email", "wang.lei88@163.com")
    )
    # near misses
    b.add("code", "en", "Retina assets shipped: icon@3x.png, hero@2x.webp, splash@1.5x.jpg")
    b.add("log", "en", "npm install @nestjs/core@10.3.2 react@18.2.0 typescript@5.4.5")
    b.add("chat", "en", "ping @maria.lopez and @dev-team about the release")
    b.add("form", "en", "Email on file: j****@g****.com (masked for your security)")
    b.add("code", "en", "@app.route('/login', methods=['POST'])\n@login_required\ndef login(): ...")
    b.add("prose", "en", "3 boxes @ 4.99 each, meeting tomorrow @ 10:30 in room B")
    b.add(
        "code",
        "en",
        "@media (max-width: 600px) { .nav { display: none; } }\n@import url(theme.css);",
    )
    b.add(
        "log",
        "en",
        "git reflog: HEAD@{0}: checkout: moving from main to fix/typo; main@{yesterday}",
    )
    b.add("prose", "de", "Format der Adresse: vorname.nachname@firma, ohne Umlaute.")
    b.add("log", "fr", "fichier enregistré : scan_2024-03-01@14h22.pdf (2 pages)")
    b.add("prose", "ja", "会議は15:00＠3階会議室、担当は＠tanaka_sanです。")
    b.add(
        "code",
        "en",
        "public class Invoice {\n  @Override\n  public String toString() { return id; }\n}",
    )
    b.add("prose", "en", "Follow us: @lumen_photo on Instagram, @lumenstudio on X.")
    b.add("config", "en", 'image: "registry.internal/api@sha256:' + hexstr(64) + '"')
    b.add("log", "en", "deploy@web-01:~$ tail -f /var/log/app.log")
    b.add("code", "en", "@use 'sass:math';\n@include flex-center;\n@objc func didTap() {}")
    b.add("prose", "en", "As argued in [@smith2020, p. 4] and [@lee2021].")
    b.add("form", "en", "Send to support@ (address to follow) once the ticket is open.")
    return b


# --- cards -----------------------------------------------------------------------------------


def cards() -> Book:
    b = Book("credit_card", "ho-card")
    c = card("visa")
    b.add("chat", "en", f"can u charge my visa {c} exp 08/27 cvv 431", e("credit_card", c))
    c = card("mastercard")
    b.add(
        "form",
        "de",
        f"Kartennummer: {c}\nGültig bis: 11/26\nKarteninhaber: Jörg Albers",
        e("credit_card", c),
    )
    c = card("mastercard2", "")
    b.add(
        "prose", "fr", f"Numéro de carte : {c} (Mastercard), expiration 02/28.", e("credit_card", c)
    )
    c = card("visa", "-")
    b.add("chat", "es", f"te paso la tarjeta {c}, titular María José Peña", e("credit_card", c))
    c = card("amex")
    b.add(
        "email-body",
        "pt",
        f"Segue o número do cartão American Express: {c}\nValidade 07/29",
        e("credit_card", c),
    )
    c = card("maestro")
    b.add(
        "form",
        "it",
        f"Carta n. {c} scadenza 03/28 — intestata a Paolo Gentile",
        e("credit_card", c),
    )
    c = card("visa", "")
    b.add("chat", "nl", f"Creditcard: {c} vervalt in juni", e("credit_card", c))
    c = card("mastercard")
    b.add("form", "pl", f"Numer karty: {c}\nData ważności: 10/27", e("credit_card", c))
    c = card("jcb", "")
    b.add("form", "ja", f"カード番号：{c}（有効期限 09/27）", e("credit_card", c))
    c = card("unionpay19", "")
    b.add("prose", "zh", f"银联卡号{c}已绑定到您的账户。", e("credit_card", c))
    c = card("visa")
    b.add("chat", "ko", f"카드번호 {c} 로 결제되었습니다", e("credit_card", c))
    c = card("mastercard", "")
    b.add("chat", "ru", f"Номер карты {c}, срок действия 12/26", e("credit_card", c))
    c = card("visa")
    b.add("form", "ar", f"رقم البطاقة: {c}\nتاريخ الانتهاء: 05/28", e("credit_card", c))
    c = card("mastercard")
    b.add("form", "he", f"מספר כרטיס: {c} תוקף 01/27", e("credit_card", c))
    c1, c2 = card("visa", ""), card("amex", "")
    b.add(
        "csv",
        "en",
        f"order_id,card,amount,currency\n78123,{c1},129.90,EUR\n78124,{c2},18.00,USD",
        e("credit_card", c1),
        e("credit_card", c2),
    )
    c = card("discover", "")
    b.add(
        "sql",
        "en",
        f"INSERT INTO payments (order_id, pan, amount_cents) VALUES (55012, '{c}', 4599);",  # noqa: S608
        e("credit_card", c),
    )
    c = card("visa", "")
    b.add(
        "json", "en", f'{{"pan":"{c}","exp":"2027-04","holder":"R. Okafor"}}', e("credit_card", c)
    )
    c = card("mastercard", "")
    b.add(
        "http",
        "en",
        f"POST /checkout HTTP/1.1\nHost: pay.teashop.co\nContent-Type: application/x-www-form-urlencoded\n\ncard_number={c}&exp_month=04&exp_year=2027",
        e("credit_card", c),
    )
    c = card("visa", "")
    b.add(
        "log",
        "en",
        f"2024-06-01T10:22:31Z WARN PaymentGateway declined pan={c} reason=insufficient_funds",
        e("credit_card", c),
    )
    c1, c2 = card("diners"), card("discover19", "")
    b.add(
        "markdown",
        "en",
        f"| Card | Number |\n|---|---|\n| Diners | {c1} |\n| Discover | {c2} |",
        e("credit_card", c1),
        e("credit_card", c2),
    )
    c = card("visa")
    b.add("prose", "en", f"Cards to remove:\n1. {c}\n2. the old debit card", e("credit_card", c))
    c = card("mastercard")
    b.add("prose", "de", f"Seit 2023 {c} als Standardkarte hinterlegt.", e("credit_card", c))
    c = card("visa13", "")
    b.add("log", "en", f"legacy import: card={c} type=VISA13 status=migrated", e("credit_card", c))
    c = card("visa19", "")
    b.add("json", "es", f'{{"tarjeta": "{c}", "marca": "visa", "cuotas": 3}}', e("credit_card", c))
    c = card("maestro12", "")
    b.add("form", "nl", f"Maestro {c} (oude pas)", e("credit_card", c))
    c = card("unionpay")
    b.add("chat", "zh", f"卡号 {c} 有效期 08/29", e("credit_card", c))
    c = card("diners16", "")
    b.add("csv", "fr", f"client;carte;plafond\nDUPONT;{c};5000", e("credit_card", c))
    c = card("jcb")
    b.add(
        "email-body",
        "ja",
        f"田中様\nご登録のカード {c} の有効期限が近づいています。",
        e("credit_card", c),
    )
    c = card("amex", "-")
    b.add("chat", "en", f"amex is {c} and zip 94110", e("credit_card", c))
    c = card("mastercard2")
    b.add("form", "pt", f"Cartão: {c}\nNome impresso: JOAO P SILVA", e("credit_card", c))
    b.add(
        "chat",
        "en",
        "for testing use 4242 4242 4242 4242 with any future date",
        e("credit_card", "4242 4242 4242 4242"),
    )
    c = card("visa")
    b.add(
        "email-body",
        "en",
        f"Hi, please update my card to {c}.\nThanks, Dana\ndana.whitfield@comcast.net",
        e("credit_card", c),
        e("email", "dana.whitfield@comcast.net"),
    )
    # near misses
    b.add("log", "en", f"event_ts={luhn_valid_number('17', 13)} user=8812 action=login")
    b.add("prose", "de", "ISBN 978-3-16-148410-0, Auflage 2019, 312 Seiten.")
    b.add("form", "en", f"Device IMEI: {luhn_valid_number('35', 15)}")
    b.add("chat", "en", f"is this right? {luhn_invalid('visa')} the app says invalid")
    b.add(
        "prose", "fr", f"Numéro erroné : {grouped(luhn_invalid('mastercard'), [4, 4, 4, 4], ' ')}"
    )
    b.add("log", "en", f"amex validation failed: {luhn_valid_number('37', 16)} (16 digits)")
    b.add("form", "es", f"Referencia: {luhn_valid_number('4', 15)} (15 dígitos)")
    b.add("form", "en", "Card: **** **** **** 4417  Exp: 09/27")
    b.add("chat", "de", "Karte endet auf 8821, bitte die belasten")
    b.add("csv", "en", f"sku,ean,price\nTEA-01,{ean13('40')},4.99\nTEA-02,{ean13('40')},5.49")
    b.add("log", "en", "tracking=1Z999AA10123456784 carrier=UPS")
    b.add("json", "en", f'{{"tweet_id": "{luhn_valid_number("1", 19)}", "likes": 12}}')
    b.add("form", "it", "Codice fiscale: RSSMRA85T10A562S — IBAN non fornito")
    b.add("prose", "en", "Masked card 4111 11** **** 1111 appears on the receipt.")
    b.add("log", "en", f"order_id={luhn_valid_number('8', 16)} status=shipped")
    b.add("prose", "ja", f"注文番号{luhn_valid_number('9', 16)}の商品を発送しました。")
    b.add("log", "en", f"window={luhn_valid_number('17', 13)}-{luhn_valid_number('17', 13)} ms")
    b.add("form", "en", "Card: 5***********4444 (Mastercard)")
    b.add("prose", "en", "ISBN-13 9780306406157, paperback edition.")
    b.add(
        "csv",
        "en",
        f"customer_no,name\n{luhn_valid_number('7', 16)},Ortega\n{luhn_valid_number('1', 16)},Baines",
    )
    return b


# --- IBANs -----------------------------------------------------------------------------------


def ibans() -> Book:
    b = Book("iban", "ho-iban")
    i = iban("DE")
    b.add(
        "email-body",
        "de",
        f"Bitte überweisen Sie den Betrag auf folgendes Konto:\nIBAN: {i}\nBIC: COBADEFFXXX",
        e("iban", i),
    )
    i = iban("AT", False)
    b.add("form", "de", f"Kontoinhaber: Verein Bergrettung Tirol\nIBAN {i}", e("iban", i))
    i = iban("CH")
    b.add("prose", "de", f"Spenden bitte an {i} (Zürcher Kantonalbank).", e("iban", i))
    i = iban("FR")
    b.add(
        "email-body",
        "fr",
        f"Nos coordonnées bancaires : {i} — merci d'indiquer la référence de facture.",
        e("iban", i),
    )
    i = iban("ES", False)
    b.add("chat", "es", f"hazme el bizum o transferencia a {i} porfa", e("iban", i))
    i = iban("IT")
    b.add(
        "form",
        "it",
        f"Coordinate bancarie: IBAN {i} intestato a Condominio Via Roma 12",
        e("iban", i),
    )
    i = iban("NL", False)
    b.add(
        "chat", "nl", f"Tikkie werkt niet, stuur het maar naar {i} t.n.v. S. de Vries", e("iban", i)
    )
    i = iban("BE")
    b.add("form", "nl", f"Rekeningnummer: {i}\nBIC: GEBABEBB", e("iban", i))
    i = iban("PL")
    b.add(
        "email-body",
        "pl",
        f"Proszę o przelew na rachunek {i} w tytule numer faktury.",
        e("iban", i),
    )
    i = iban("PT")
    b.add("form", "pt", f"NIB/IBAN: {i}", e("iban", i))
    i = iban("GB", False)
    b.add(
        "log",
        "en",
        f"2024-04-09 11:02:44 INFO payout created beneficiary_iban={i} amount=1250.00 GBP",
        e("iban", i),
    )
    i = iban("IE")
    b.add("prose", "en", f"Rent goes to {i}. Reference: FLAT 3B.", e("iban", i))
    i1, i2 = iban("SE", False), iban("NO", False)
    b.add(
        "csv",
        "en",
        f"supplier;iban;currency\nNordkraft AB;{i1};SEK\nFjord Fisk AS;{i2};NOK",
        e("iban", i1),
        e("iban", i2),
    )
    i = iban("DK")
    b.add("prose", "en", f"Danish account for the deposit: {i}", e("iban", i))
    i = iban("FI", False)
    b.add(
        "json",
        "en",
        f'{{"creditor": "Helsingin Sähkö Oy", "iban": "{i}", "bic": "NDEAFIHH"}}',
        e("iban", i),
    )
    i = iban("CZ")
    b.add("form", "en", f"Bank account (IBAN): {i}", e("iban", i))
    i = iban("HU")
    b.add("prose", "en", f"Hungarian supplier account {i} — pay in HUF.", e("iban", i))
    i = iban("RO", False)
    b.add("sql", "en", f"UPDATE vendors SET iban = '{i}' WHERE vendor_id = 3319;", e("iban", i))  # noqa: S608
    i = iban("GR")
    b.add("email-body", "en", f"Kindly remit to our Athens account: {i}", e("iban", i))
    i = iban("HR", False)
    b.add(
        "markdown",
        "en",
        f"| Field | Value |\n|---|---|\n| Beneficiary | Jadran d.o.o. |\n| IBAN | {i} |",
        e("iban", i),
    )
    i = iban("LT", False)
    b.add("code", "en", f"<CdtrAcct><Id><IBAN>{i}</IBAN></Id></CdtrAcct>", e("iban", i))
    i = iban("MT")
    b.add("prose", "en", f"Maltese IBANs are long, e.g. ours: {i}", e("iban", i))
    i = iban("SA")
    b.add("form", "ar", f"رقم الآيبان: {i}", e("iban", i))
    i = iban("AE", False)
    b.add("chat", "ar", f"حول المبلغ إلى {i} من فضلك", e("iban", i))
    i = iban("IL")
    b.add("form", "he", f"מספר IBAN: {i}", e("iban", i))
    i = iban("TR")
    b.add("prose", "en", f"Turkish lira payments: {i}", e("iban", i))
    i = iban("BR", False)
    b.add("form", "pt", f"Dados bancários internacionais: IBAN {i} (Banco do Brasil)", e("iban", i))
    i = iban("UA")
    b.add("chat", "ru", f"Реквизиты для перевода: {i}, получатель ФОП Коваленко", e("iban", i))
    i = iban("LU", False)
    b.add(
        "config", "en", f"payout:\n  provider: sepa\n  iban: {i}\n  schedule: monthly", e("iban", i)
    )
    i1, i2 = iban("DE", False), iban("DE", False)
    b.add(
        "log",
        "de",
        f"SEPA-Lastschrift von {i1} an {i2} zurückgewiesen (AC04)",
        e("iban", i1),
        e("iban", i2),
    )
    i = iban("SI")
    b.add("prose", "en", f"Slovenian account {i} (NLB).", e("iban", i))
    i = iban("IS", False)
    b.add("form", "en", f"IBAN:{i}", e("iban", i))
    i = iban("QA")
    b.add("prose", "en", f"Doha office: {i}", e("iban", i))
    i = iban("FR")
    b.add("prose", "ja", f"振込先IBAN：{i}までお願いします。", e("iban", i))
    i = iban("DE")
    b.add("prose", "zh", f"请汇款至{i}，备注订单号。", e("iban", i))
    # near misses
    b.add(
        "email-body", "de", f"Achtung, die IBAN {iban_wrong_check('DE')} ist ungültig (Prüfziffer)."
    )
    b.add("form", "fr", f"IBAN : {iban_wrong_check('FR')}")
    b.add("log", "en", f"validation error: iban={iban_wrong_check('NL', False)} checksum mismatch")
    b.add("prose", "en", f"The number {iban_too_short('GB')} is two characters short.")
    b.add("form", "it", f"IBAN (incompleto): {iban_too_short('IT', 3)}")
    b.add("form", "fi", f"Viitenumero: {creditor_reference()}")
    b.add("prose", "de", f"Verwendungszweck: {creditor_reference()}")
    b.add("prose", "de", "Aufbau der deutschen IBAN: DEkk bbbb bbbb cccc cccc cc (k = Prüfziffer)")
    b.add("form", "en", "IBAN: GB** **** **** **** 1234 56 (masked)")
    b.add("prose", "de", "Alte Bankverbindung: Kto. 1234567, BLZ 370 400 44")
    b.add("form", "en", "SWIFT/BIC: DEUTDEFF500, sort code 20-32-53")
    b.add(
        "prose", "en", f"{iban_too_short('ES', 1)} was rejected by the bank: too short for Spain."
    )
    b.add("code", "en", "IBAN_REGEX = r'^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$'  # XX00 placeholder")
    b.add("form", "en", "IBAN: ZZ12 3456 7890 1234 5678 90 (test data, no such country)")
    b.add("form", "de", "IBAN: siehe Anhang, BIC COBADEFFXXX")
    b.add(
        "form", "en", "ABA routing number 021000021, account 483920117 (US accounts have no IBAN)"
    )
    b.add("prose", "de", f"Tippfehler: {iban('DE', False)[:-1]} (eine Ziffer fehlt)")
    return b


# --- phone numbers ---------------------------------------------------------------------------


def phones() -> Book:
    b = Book("phone", "ho-phone")
    p = [
        ("chat", "en", "call me at (415) 555-0132 after 6", ["(415) 555-0132"]),
        (
            "email-body",
            "en",
            "Kind regards,\nTom Becker\nAccount Manager\nDirect: +1 212-555-0198 | Mobile: 650.555.0147",
            ["+1 212-555-0198", "650.555.0147"],
        ),
        (
            "prose",
            "en",
            "Ring the surgery on 020 7946 0958 or text 07700 900123.",
            ["020 7946 0958", "07700 900123"],
        ),
        ("form", "en", "Tel: +44 (0)161 496 0732", ["+44 (0)161 496 0732"]),
        (
            "email-body",
            "de",
            "Mit freundlichen Grüßen\nSabine Krüger\nTel. +49 30 20458871\nMobil 0171 2345678",
            ["+49 30 20458871", "0171 2345678"],
        ),
        ("form", "de", "Telefon: +49 (0) 89 / 2190-4455", ["+49 (0) 89 / 2190-4455"]),
        (
            "chat",
            "fr",
            "tu peux m'appeler au 06 12 34 56 78 ou au fixe 01 42 68 53 00",
            ["06 12 34 56 78", "01 42 68 53 00"],
        ),
        (
            "prose",
            "fr",
            "Service client : +33 9 70 80 12 34 (appel non surtaxé).",
            ["+33 9 70 80 12 34"],
        ),
        ("chat", "es", "mi móvil es 612 345 678, llámame", ["612 345 678"]),
        ("form", "es", "Teléfono de contacto: +34 912 345 678", ["+34 912 345 678"]),
        (
            "prose",
            "it",
            "Per prenotazioni chiamare lo 02 7254 3311 oppure il 347 123 4567.",
            ["02 7254 3311", "347 123 4567"],
        ),
        ("chat", "nl", "bel me even op 06-12345678", ["06-12345678"]),
        ("form", "nl", "Telefoonnummer: +31 20 794 8811", ["+31 20 794 8811"]),
        ("chat", "pl", "Mój numer to +48 601 234 567, dzwoń po 17.", ["+48 601 234 567"]),
        ("form", "pt", "Telemóvel: +351 912 345 678", ["+351 912 345 678"]),
        ("chat", "pt", "me chama no zap (11) 98765-4321", ["(11) 98765-4321"]),
        ("form", "pt", "Telefone comercial: +55 21 3456-7890", ["+55 21 3456-7890"]),
        (
            "prose",
            "de",
            "Die Hotline der Praxis in Zürich: 044 668 18 00, Notfall +41 79 123 45 67.",
            ["044 668 18 00", "+41 79 123 45 67"],
        ),
        ("prose", "ja", "お電話は03-1234-5678まで（平日9時～18時）。", ["03-1234-5678"]),
        ("form", "ja", "携帯：+81 90-2345-6789", ["+81 90-2345-6789"]),
        ("form", "ja", "電話番号：０６－６３４１－２２１９", ["０６－６３４１－２２１９"]),
        ("chat", "zh", "我的手机号是13912345678，微信同号", ["13912345678"]),
        ("form", "zh", "联系电话：+86 10 6552 9988", ["+86 10 6552 9988"]),
        ("chat", "ko", "연락처는 010-2345-6789 입니다", ["010-2345-6789"]),
        ("form", "ko", "대표전화: +82 2-312-4567", ["+82 2-312-4567"]),
        ("form", "ru", "Телефон: +7 (495) 123-45-67", ["+7 (495) 123-45-67"]),
        ("chat", "ru", "звоните 8 (812) 555-12-34 до вечера", ["8 (812) 555-12-34"]),
        ("form", "ar", "الهاتف: +971 4 331 7788", ["+971 4 331 7788"]),
        ("chat", "he", "אפשר להתקשר ל-052-555-1234 בערב", ["052-555-1234"]),
        (
            "email-body",
            "en",
            "Sydney office +61 2 9374 4000, mobile 0412 345 678",
            ["+61 2 9374 4000", "0412 345 678"],
        ),
        (
            "csv",
            "en",
            "name,phone,city\nArjun Mehta,+91 98765 43210,Pune\nLuz Ortega,+52 55 1234 5678,CDMX",
            ["+91 98765 43210", "+52 55 1234 5678"],
        ),
        (
            "json",
            "en",
            '{"contact": {"name": "Elin Berg", "phone": "+46 8 123 456 78"}}',
            ["+46 8 123 456 78"],
        ),
        (
            "sql",
            "en",
            "INSERT INTO patients (mrn, phone) VALUES ('MRN-0042817', '+43 664 123 4567');",
            ["+43 664 123 4567"],
        ),
        (
            "markdown",
            "en",
            "| Site | Phone |\n|---|---|\n| Brussels | +32 2 555 12 34 |\n| Lisbon | +351 21 123 4567 |",
            ["+32 2 555 12 34", "+351 21 123 4567"],
        ),
        (
            "log",
            "en",
            "2024-07-19 08:41:02 INFO sms.send to=+447700900456 template=otp status=queued",
            ["+447700900456"],
        ),
        ("config", "en", 'twilio:\n  from_number: "+14155550123"\n  region: us1', ["+14155550123"]),
    ]
    for context, language, text, numbers in p:
        b.add(context, language, text, *(e("phone", n) for n in numbers))
    # near misses
    b.add("log", "en", "2024-03-15 14:30:07,512 INFO job finished in 1200-1350 ms")
    b.add("prose", "de", "Termin am 15.03.2024 von 14:30 bis 16:45 Uhr, Raum 2.114")
    b.add("prose", "fr", "Montant total : 1 234 567,89 € HT pour 2024-2025")
    b.add("log", "en", "upgraded kernel 5.15.0-105-generic -> 6.8.0-31-generic")
    b.add("form", "en", "Postcode: SW1A 1AA  Flat 12, 221 Baker Street")
    b.add("prose", "en", "See pages 1204-1350 of volume 12 (1998).")
    b.add("form", "de", "Rechnungsnummer RE-2024-0001837 vom 02.05.2024")
    b.add("prose", "en", "Coordinates: 52.520008, 13.404954")
    b.add("log", "en", "request_id=7f3e91c2 latency_ms=184 ts=1714652095")
    b.add("form", "en", "Serial: SN 4F2-998-1203  Model: X-200")
    b.add("prose", "ja", "2024年3月15日 14:30～16:45 に開催します。")
    b.add("csv", "en", "date,open,close\n2024-05-02,182.35,184.10\n2024-05-03,184.12,183.77")
    b.add("prose", "es", "Expediente 2023/004512, resolución del 12/01/2024")
    b.add("log", "en", "DHL tracking JD014600003812345678 out for delivery")
    b.add("prose", "pl", "Faktura VAT nr 2024/05/118, NIP 526-000-12-46")
    b.add("prose", "en", "Population grew from 1,234,567 to 1,310,002 between 2010 and 2020.")
    b.add("log", "en", "agent version 10.4.1.2233 (build 2024-118-0044)")
    b.add("prose", "de", "Zeitraum 01.01.2024–31.12.2024, Temperatur 21,5 °C, Luftdruck 1013 hPa")
    b.add("prose", "en", "Final score 98-87 after overtime; attendance 18,204.")
    b.add("form", "en", "Invoice INV-20240518-0077, PO 4500018830")
    return b


# --- US social security numbers ---------------------------------------------------------------


def ssns() -> Book:
    b = Book("us_ssn", "ho-ssn")
    texts = [
        ("form", "en", "Employee SSN: {0}\nFiling status: Married filing jointly", "-"),
        ("chat", "en", "my social is {0} if you need it for the lease", "-"),
        ("form", "en", "Form W-2  Box a Employee's social security number {0}", " "),
        (
            "email-body",
            "en",
            "Hi Karen,\nFor the payroll change, my SSN is {0}.\nThanks,\nMiguel",
            "",
        ),
        (
            "csv",
            "en",
            "emp_id,last_name,ssn,hire_date\nE1042,Nguyen,{0},2019-08-12\nE1043,Adeyemi,{1},2021-01-04",
            "-",
        ),
        (
            "sql",
            "en",
            "INSERT INTO applicants (id, name, ssn) VALUES (311, 'Harper Quinn', '{0}');",
            "-",
        ),
        (
            "json",
            "en",
            '{{"borrower": {{"name": "L. Park", "ssn": "{0}", "dob": "1986-04-17"}}}}',
            "",
        ),
        ("log", "en", "2024-02-28T16:04:11Z DEBUG kyc.verify payload ssn={0} result=match", "-"),
        ("form", "es", "Número de Seguro Social: {0}\nFecha de nacimiento: 03/09/1979", "-"),
        ("chat", "es", "el seguro social de mi mamá es {0}, ¿lo pongo aquí?", " "),
        ("form", "zh", "社会安全号码（SSN）：{0}", "-"),
        ("form", "ko", "사회보장번호(SSN): {0}", "-"),
        (
            "prose",
            "en",
            "Patient intake — SSN {0}, insurance Aetna PPO, allergies: penicillin.",
            "-",
        ),
        (
            "markdown",
            "en",
            "| Name | SSN | State |\n|---|---|---|\n| J. Ortiz | {0} | TX |\n| A. Brooks | {1} | OH |",
            "-",
        ),
        (
            "http",
            "en",
            'POST /v1/identity HTTP/1.1\nHost: api.lendfast.co\nContent-Type: application/json\n\n{{"ssn":"{0}","zip":"30309"}}',
            "",
        ),
        ("prose", "en", "Taxpayer identification: SSN {0} (primary), {1} (spouse).", "-"),
        ("form", "en", "SOCIAL SECURITY NO.\n{0}", " "),
        ("chat", "en", "ssn {0} dob 7/2/91", ""),
        ("email-body", "pt", "Olá, para o formulário americano meu SSN é {0}. Abraço, Rafael", "-"),
        ("form", "ru", "Номер социального страхования (США): {0}", "-"),
        ("log", "en", "WARN pii-scrubber missed field applicant.ssn value={0}", "-"),
        ("csv", "en", '"Doe, Jane",{0},"Sacramento, CA"', "-"),
        ("form", "ja", "米国社会保障番号：{0}", "-"),
        ("config", "en", 'test_fixtures:\n  applicant:\n    name: Grace Liu\n    ssn: "{0}"', "-"),
        ("form", "de", "US-Sozialversicherungsnummer des Antragstellers: {0}", "-"),
        ("prose", "en", "Dependents: Ava (SSN {0}) and Noah (SSN {1}).", "-"),
        ("prose", "en", "The letter listed SSN {0}; the correct one is {1}.", "-"),
    ]
    for context, language, template, sep in texts:
        values = [ssn(sep) for _ in range(sum(f"{{{k}}}" in template for k in range(3)))]
        b.add(context, language, template.format(*values), *(e("us_ssn", v) for v in values))
    # near misses
    b.add("form", "en", "SSN: 000-12-3456 (invalid area, test record)")
    b.add("form", "en", "SSN: 666-45-1290")
    b.add("form", "en", "ITIN: 912-78-4410")
    b.add("prose", "en", "Group 00 is never issued: 417-00-2231 is not an SSN.")
    b.add("form", "en", "SSN 523-41-0000 rejected: serial 0000")
    b.add("form", "en", "Employer Identification Number (EIN): 12-3456789")
    b.add("form", "en", "SSN: XXX-XX-4821")
    b.add("chat", "en", "last four of my social are 4821, full is ***-**-4821 on the letter")
    b.add("form", "en", "ZIP+4: 10027-6902")
    b.add("prose", "en", "Canadian SIN 046 454 286 is not a US number.")
    b.add("form", "en", "Medicare MBI: 1EG4-TE5-MK73")
    b.add("form", "en", "UK National Insurance number: QQ 12 34 56 C")
    b.add("log", "en", "part_no=123-45-67890 qty=4")
    b.add("prose", "fr", "Numéro de sécurité sociale : 1 85 05 78 006 084 36")
    b.add(
        "prose", "en", "Advertising uses 987-65-4320 through 987-65-4329, which are never issued."
    )
    b.add("form", "en", "Claim #123-45-678, filed 2019-12-31")
    b.add("form", "en", "Routing: 021000021")
    b.add("log", "en", "batch 2024-05-1107 processed 2,314 rows")
    return b


# --- IP addresses ----------------------------------------------------------------------------


def ip_addresses() -> Book:
    b = Book("ip_address", "ho-ip")
    # An address is a string, or (string, occurrence) when the text repeats it.
    p: list[tuple[str, str, str, list[str | tuple[str, int]]]] = [
        (
            "log",
            "en",
            '203.0.113.42 - - [12/Mar/2024:10:15:32 +0000] "GET /api/orders HTTP/1.1" 200 512 "-" "curl/8.4.0"',
            ["203.0.113.42"],
        ),
        (
            "http",
            "en",
            "GET /health HTTP/1.1\nHost: api.internal\nX-Forwarded-For: 198.51.100.17, 10.4.0.12\nX-Real-IP: 198.51.100.17",
            [("198.51.100.17", 1), "10.4.0.12", ("198.51.100.17", 2)],
        ),
        (
            "config",
            "en",
            "apiVersion: v1\nkind: Pod\nstatus:\n  hostIP: 172.31.20.4\n  podIP: 100.64.3.19\n  phase: Running",
            ["172.31.20.4", "100.64.3.19"],
        ),
        (
            "code",
            "en",
            'resource "aws_security_group_rule" "ssh" {\n  type        = "ingress"\n  from_port   = 22\n  to_port     = 22\n  cidr_blocks = ["10.20.0.0/16", "192.0.2.0/24"]\n}',
            ["10.20.0.0/16", "192.0.2.0/24"],
        ),
        (
            "config",
            "en",
            "# /etc/resolv.conf\nnameserver 1.1.1.1\nnameserver 2606:4700:4700::1111\nsearch corp.local",
            ["1.1.1.1", "2606:4700:4700::1111"],
        ),
        (
            "log",
            "en",
            "Mar 14 02:11:09 bastion sshd[2231]: Failed password for invalid user admin from 185.220.101.7 port 51122 ssh2",
            ["185.220.101.7"],
        ),
        ("log", "en", "iptables -A INPUT -s 45.83.64.0/22 -j DROP", ["45.83.64.0/22"]),
        (
            "sql",
            "en",
            "INSERT INTO logins (user_id, ip, at) VALUES (42, '2001:db8:85a3::8a2e:370:7334', now());",
            ["2001:db8:85a3::8a2e:370:7334"],
        ),
        (
            "csv",
            "en",
            "timestamp,user,ip\n2024-05-01T08:00:12Z,ana,81.2.69.160\n2024-05-01T08:03:40Z,li,2a02:8108:1dc0:4e00::1b",
            ["81.2.69.160", "2a02:8108:1dc0:4e00::1b"],
        ),
        ("log", "en", "connect to [2001:db8::10]:5432 failed: timeout", ["2001:db8::10"]),
        ("log", "en", "listening on 0.0.0.0:8080 and [::]:8080", ["0.0.0.0", "::"]),  # noqa: S104
        (
            "log",
            "en",
            "ping6 fe80::1c2a:3bff:fe4d:5e6f%en0 -c 3",
            ["fe80::1c2a:3bff:fe4d:5e6f%en0"],
        ),
        (
            "config",
            "en",
            "[Interface]\nAddress = 10.8.0.2/24\nDNS = 10.8.0.1\n\n[Peer]\nEndpoint = 91.198.174.192:51820\nAllowedIPs = 0.0.0.0/0",
            ["10.8.0.2/24", "10.8.0.1", "91.198.174.192", "0.0.0.0/0"],
        ),
        ("prose", "de", "Der Server ist unter 192.168.178.20 erreichbar.", ["192.168.178.20"]),
        (
            "chat",
            "fr",
            "l'imprimante a l'adresse 192.168.1.87, essaie depuis le wifi du bureau",
            ["192.168.1.87"],
        ),
        (
            "prose",
            "es",
            "La cámara responde en 10.0.5.33 pero no en la red de invitados.",
            ["10.0.5.33"],
        ),
        ("prose", "it", "Il gateway predefinito è 192.168.0.254.", ["192.168.0.254"]),
        ("chat", "nl", "kan je 172.16.8.200 even pingen?", ["172.16.8.200"]),
        (
            "prose",
            "pl",
            "Adres IP routera: 192.168.100.1, maska 255.255.255.0",
            ["192.168.100.1", "255.255.255.0"],
        ),
        ("prose", "pt", "O servidor de arquivos fica em 10.1.1.15 na VLAN 30.", ["10.1.1.15"]),
        ("prose", "ja", "サーバーのIPアドレスは192.168.10.5です。", ["192.168.10.5"]),
        ("prose", "zh", "请把白名单设置为203.0.113.0/24，然后重启。", ["203.0.113.0/24"]),
        ("chat", "ko", "서버 주소는 10.10.20.30 이에요", ["10.10.20.30"]),
        ("prose", "ru", "Доступ разрешён только с адреса 94.25.168.14.", ["94.25.168.14"]),
        ("prose", "ar", "عنوان الخادم هو 172.20.10.2 في الشبكة الداخلية", ["172.20.10.2"]),
        ("prose", "he", "כתובת השרת היא 10.0.0.138 ברשת הפנימית.", ["10.0.0.138"]),
        (
            "json",
            "en",
            '{"event":"login","src_ip":"::ffff:192.0.2.128","ok":true}',
            ["::ffff:192.0.2.128"],
        ),
        (
            "markdown",
            "en",
            "| Host | Address |\n|---|---|\n| db-1 | 10.30.1.11 |\n| db-2 | 2001:db8:0:1::11 |",
            ["10.30.1.11", "2001:db8:0:1::11"],
        ),
        (
            "log",
            "en",
            "curl: (7) Failed to connect to ::1 port 9200 after 0 ms: Connection refused",
            ["::1"],
        ),
        (
            "config",
            "en",
            "upstream backend {\n    server 10.0.1.21:8000 weight=3;\n    server 10.0.1.22:8000;\n}",
            ["10.0.1.21", "10.0.1.22"],
        ),
        (
            "log",
            "en",
            "BGP neighbor 2001:0db8:0000:0000:0000:ff00:0042:8329 state Established",
            ["2001:0db8:0000:0000:0000:ff00:0042:8329"],
        ),
    ]
    for context, language, text, items in p:
        expect = []
        for item in items:
            if isinstance(item, tuple):
                expect.append(e("ip_address", item[0], item[1]))
            else:
                expect.append(e("ip_address", item))
        b.add(context, language, text, *expect)
    # near misses
    b.add(
        "log",
        "en",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/124.0.6367.91 Safari/537.36",
    )
    b.add("prose", "en", "OID 1.3.6.1.4.1.311.21.7 identifies the certificate template.")
    b.add("prose", "de", "Stichtag: 24.12.2023, Version 3.11.4")
    b.add("log", "en", "eth0: link up, HWaddr 00:1A:2B:3C:4D:5E")
    b.add("log", "en", "invalid address 256.300.1.1 rejected; also 999.10.10.10")
    b.add("code", "en", "std::vector<int> v; auto it = std::find(v.begin(), v.end(), 3);")
    b.add("prose", "en", "Cite as doi:10.1038/s41586-024-07421-0 (Nature, 2024).")
    b.add(
        "log",
        "en",
        "ssh-keygen -l: 2048 MD5:43:51:43:a1:b5:fc:8b:b7:0a:3a:a9:b1:0f:66:73:a8 host (RSA)",
    )
    b.add("prose", "en", "Build 1.2.3.4.5 was never released; see 10.0.19045 for Windows.")
    b.add("log", "en", "uptime 12:30:45 up 3 days, load average: 0.52, 0.48, 0.50")
    b.add("code", "en", "ARG NODE_VERSION=20.11.1\nFROM node:${NODE_VERSION}-alpine3.19")
    b.add("config", "en", 'dependencies:\n  numpy: ">=1.26.4,<2.0"\n  django: "4.2.11"')
    b.add("prose", "fr", "Article 3.2.1.7 du règlement, alinéa 2.")
    b.add("log", "en", "git describe: v2.45.1-14-g3f9a2b1")
    b.add("prose", "en", "Windows build 10.0.22631.3447, released 2024.04.09.")
    b.add("code", "en", "sigAlg = '1.2.840.113549.1.1.11'  # sha256WithRSAEncryption")
    b.add("prose", "en", "Use 16:9 at 10:45:30.123; see figure 4.2.3.")
    b.add("config", "en", "aspect: a:b:c\nmac: 3c:22:fb:91:0e:7d")
    return b


# --- secrets: vendor formats -----------------------------------------------------------------


def secrets_vendor() -> Book:
    b = Book("secrets_vendor", "ho-vendor")

    def one(family: str, context: str, language: str, text: str, value: str) -> None:
        b.add(context, language, text, s(family, value), family=family)

    k = aws_key_id()
    one(
        "aws_access_key_id",
        "config",
        "en",
        f"[profile billing]\naws_access_key_id = {k}\nregion = eu-central-1",
        k,
    )
    k = aws_key_id("ASIA")
    one(
        "aws_access_key_id",
        "log",
        "en",
        f"botocore.credentials: found credentials in environment variables (key id {k})",
        k,
    )
    k = aws_key_id()
    one(
        "aws_access_key_id",
        "chat",
        "de",
        f"hab den Key {k} aus Versehen ins Wiki gestellt, bitte rotieren",
        k,
    )

    t = github("ghp_")
    one("github_token", "code", "en", f"git clone https://{t}@github.com/acme/billing.git", t)
    t = github("gho_")
    one(
        "github_token",
        "json",
        "en",
        f'{{"access_token":"{t}","token_type":"bearer","scope":"repo"}}',
        t,
    )
    t = github("ghs_")
    one(
        "github_token",
        "log",
        "en",
        f"##[debug]Using installation token {t} for actions/checkout",
        t,
    )
    t = github("ghu_")
    one("github_token", "chat", "fr", f"voici le token utilisateur : {t} (expire dans 8h)", t)
    t = github_fine_grained()
    one(
        "github_fine_grained_pat",
        "config",
        "en",
        f"# ~/.config/gh/hosts.yml\ngithub.com:\n    user: mkowalski\n    oauth_token: {t}\n    git_protocol: https",
        t,
    )
    t = github_fine_grained()
    one("github_fine_grained_pat", "prose", "ja", f"このトークン{t}をCIに設定してください。", t)

    t = gitlab()
    one(
        "gitlab_pat",
        "code",
        "en",
        f'curl --header "PRIVATE-TOKEN: {t}" "https://gitlab.example.org/api/v4/projects"',
        t,
    )
    t = gitlab()
    one("gitlab_pat", "chat", "nl", f"mijn gitlab token is {t}, niet delen aub", t)

    t = slack("xoxb")
    one("slack_token", "config", "en", f"SLACK_BOT_TOKEN={t}\nSLACK_CHANNEL=#deploys", t)
    t = slack("xoxp")
    one("slack_token", "code", "en", f'client = WebClient(token="{t}")', t)
    t = slack("xapp")
    one(
        "slack_token", "prose", "es", f"El token de la app de Slack es {t}; lo revocamos mañana.", t
    )
    w = slack_webhook()
    one(
        "slack_webhook",
        "code",
        "en",
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' {w}",
        w,
    )
    w = slack_webhook()
    one(
        "slack_webhook",
        "config",
        "en",
        f"alerting:\n  receivers:\n    - name: ops\n      slack_configs:\n        - api_url: {w}\n          channel: '#alerts'",
        w,
    )

    k = stripe("sk_live_")
    one("stripe_secret_key", "code", "en", f"const stripe = require('stripe')('{k}');", k)
    k = stripe("rk_live_")
    one("stripe_secret_key", "config", "en", f"STRIPE_RESTRICTED={k}", k)
    k = stripe("sk_live_")
    one("stripe_secret_key", "chat", "pt", f"a chave de produção é {k} — tira do README!", k)

    k = openai_key()
    one("openai_api_key", "code", "en", f'client = OpenAI(api_key="{k}")', k)
    k = openai_key()
    one("openai_api_key", "chat", "ko", f"이 키 써보세요 {k}", k)
    k = anthropic_key()
    one("anthropic_api_key", "config", "en", f"export ANTHROPIC_API_KEY={k}", k)
    k = anthropic_key()
    one(
        "anthropic_api_key",
        "log",
        "en",
        f"Traceback ...\nAuthenticationError: invalid x-api-key: {k}",
        k,
    )

    k = google_key()
    one(
        "google_api_key",
        "url",
        "en",
        f"https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={k}",
        k,
    )
    k = google_key()
    one("google_api_key", "code", "en", f'const YOUTUBE_KEY = "{k}";', k)
    k = google_key()
    one("google_api_key", "chat", "it", f"la chiave per Places è {k}", k)

    k = sendgrid()
    one("sendgrid_api_key", "config", "en", f"SENDGRID_API_KEY='{k}'", k)
    k = sendgrid()
    one(
        "sendgrid_api_key",
        "prose",
        "de",
        f"Der SendGrid-Schlüssel {k} wurde im Ticket gepostet.",
        k,
    )

    k = "npm_" + pick(ALNUM, 36)
    one("npm_token", "config", "en", f"//registry.npmjs.org/:_authToken={k}", k)
    k = "npm_" + pick(ALNUM, 36)
    one("npm_token", "log", "en", f"npm ERR! 403 Forbidden - token {k} lacks publish rights", k)
    k = "pypi-AgEIcHlwaS5vcmc" + pick(B64URL, 160)
    one("pypi_token", "config", "en", f"[pypi]\n  username = __token__\n  password = {k}", k)
    k = "pypi-AgEIcHlwaS5vcmc" + pick(B64URL, 140)
    one("pypi_token", "log", "en", f"twine upload dist/* -u __token__ -p {k}", k)

    k = huggingface()
    one("huggingface_token", "code", "en", f'login(token="{k}")', k)
    k = huggingface()
    one("huggingface_token", "chat", "zh", f"用这个令牌下载模型：{k}", k)

    k = "dop_v1_" + hexstr(64)
    one("digitalocean_token", "config", "en", f'provider "digitalocean" {{\n  token = "{k}"\n}}', k)
    k = "dop_v1_" + hexstr(64)
    one("digitalocean_token", "log", "en", f"doctl auth init --access-token {k}", k)

    k = "shpat_" + hexstr(32)
    one(
        "shopify_token",
        "http",
        "en",
        f"GET /admin/api/2024-04/orders.json HTTP/1.1\nHost: teashop.myshopify.com\nX-Shopify-Access-Token: {k}",
        k,
    )
    k = "shpss_" + hexstr(32)
    one("shopify_token", "config", "en", f"SHOPIFY_SHARED={k}", k)

    k = telegram()
    one(
        "telegram_bot_token",
        "url",
        "ru",
        f"https://api.telegram.org/bot{k}/sendMessage?chat_id=-1001234567890",
        k,
    )
    k = telegram()
    one("telegram_bot_token", "chat", "ru", f"токен бота: {k}", k)

    k = "hvs." + pick(ALNUM + "_-", 90)
    one(
        "vault_token",
        "config",
        "en",
        f"export VAULT_ADDR=https://vault.corp:8200\nexport VAULT_TOKEN={k}",
        k,
    )
    k = "hvs." + pick(ALNUM, 24)
    one("vault_token", "log", "en", f"vault login {k}", k)

    k = "dapi" + hexstr(32)
    one(
        "databricks_token",
        "config",
        "en",
        f"[DEFAULT]\nhost = https://adb-4410.11.azuredatabricks.net\ntoken = {k}",
        k,
    )
    k = "dapi" + hexstr(32) + "-2"
    one("databricks_token", "chat", "en", f"use {k} for the job cluster", k)

    k = age_key()
    one(
        "age_secret_key",
        "config",
        "en",
        f"# created: 2024-06-01T12:00:00+02:00\n# public key: age1{pick('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 58)}\n{k}",
        k,
    )
    k = age_key()
    one("age_secret_key", "chat", "de", f"SOPS-Schlüssel für staging: {k}", k)

    k = f"PMAK-{hexstr(24)}-{hexstr(34)}"
    one("postman_api_key", "config", "en", f"POSTMAN_API_KEY={k}", k)
    k = f"PMAK-{hexstr(24)}-{hexstr(34)}"
    one("postman_api_key", "chat", "es", f"la clave de Postman: {k}", k)

    k = f"glsa_{pick(ALNUM, 32)}_{hexstr(8)}"
    one(
        "grafana_token",
        "http",
        "en",
        f"GET /api/dashboards/uid/abc HTTP/1.1\nAuthorization: Bearer {k}",
        k,
    )
    k = f"glsa_{pick(ALNUM, 32)}_{hexstr(8)}"
    one("grafana_token", "config", "en", f"grafana:\n  service_account: {k}", k)

    k = "lin_api_" + pick(ALNUM, 40)
    one("linear_api_key", "code", "en", f'headers = {{"Authorization": "{k}"}}', k)
    k = "lin_api_" + pick(ALNUM, 40)
    one("linear_api_key", "chat", "en", f"linear key for the bot: {k}", k)

    k = "NRAK-" + pick(UPPER + DIGITS, 27)
    one("new_relic_key", "config", "en", f"NEW_RELIC_API_KEY={k}", k)
    k = "NRAK-" + pick(UPPER + DIGITS, 27)
    one("new_relic_key", "log", "pl", f"Błąd: klucz {k} wygasł", k)

    k = "dp.pt." + pick(ALNUM, 43)
    one("doppler_token", "config", "en", f"DOPPLER_TOKEN={k}", k)
    k = "dp.st.prd." + pick(ALNUM, 43)
    one("doppler_token", "code", "en", f"doppler run --token {k} -- ./start.sh", k)

    k = "pul-" + hexstr(40)
    one("pulumi_token", "log", "en", f"pulumi login --token {k}", k)
    k = "pul-" + hexstr(40)
    one(
        "pulumi_token",
        "config",
        "en",
        f"PULUMI_ACCESS_TOKEN={k}\nPULUMI_BACKEND_URL=https://api.pulumi.com",
        k,
    )
    k = f"{pick(ALNUM, 14)}.atlasv1.{pick(ALNUM, 67)}"
    one(
        "terraform_cloud_token",
        "config",
        "en",
        f'credentials "app.terraform.io" {{\n  token = "{k}"\n}}',
        k,
    )
    k = f"{pick(ALNUM, 14)}.atlasv1.{pick(ALNUM, 67)}"
    one("terraform_cloud_token", "config", "en", f"TF_TOKEN_app_terraform_io={k}", k)

    k = "LTAI" + pick(ALNUM, 20)
    one(
        "alibaba_access_key_id",
        "config",
        "zh",
        f"# 阿里云\naccess_key_id: {k}\nregion: cn-hangzhou",
        k,
    )
    k = "LTAI" + pick(ALNUM, 20)
    one("alibaba_access_key_id", "chat", "zh", f"阿里云的AccessKey ID是{k}，记得删掉", k)
    k = "sq0atp-" + pick(B64URL, 22)
    one(
        "square_token",
        "code",
        "en",
        f"square_client = Client(access_token='{k}', environment='production')",
        k,
    )
    k = "sq0atp-" + pick(B64URL, 22)
    one("square_token", "log", "en", f"square: refreshed merchant token {k} for location L8K2", k)
    k = "key-" + hexstr(32)
    one(
        "mailgun_api_key",
        "log",
        "en",
        f"curl -s --user 'api:{k}' https://api.mailgun.net/v3/mg.teashop.co/messages",
        k,
    )
    k = "key-" + hexstr(32)
    one("mailgun_api_key", "config", "en", f"MAILGUN_API_KEY={k}\nMAILGUN_DOMAIN=mg.teashop.co", k)

    a = azure_account_key()
    one(
        "azure_storage_key",
        "config",
        "en",
        f"AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=stteashopprod;AccountKey={a};EndpointSuffix=core.windows.net",
        a,
    )
    a = azure_account_key()
    one(
        "azure_storage_key",
        "json",
        "en",
        f'{{"ConnectionStrings": {{"Blob": "DefaultEndpointsProtocol=https;AccountName=logsarchive;AccountKey={a};EndpointSuffix=core.windows.net"}}}}',
        a,
    )

    # two tokens back to back
    t1, t2 = github("ghp_"), github("ghp_")
    b.add(
        "log",
        "en",
        f"rotated: {t1}{t2}",
        s("github_token", t1),
        s("github_token", t2),
        family="github_token",
    )
    # two vendors in one file
    k1, k2 = aws_key_id(), stripe("sk_live_")
    b.add(
        "config",
        "en",
        f"# .env.production\nAWS_ACCESS_KEY_ID={k1}\nSTRIPE_KEY={k2}\nNODE_ENV=production",
        s("aws_access_key_id", k1),
        s("stripe_secret_key", k2),
        family="aws_access_key_id",
    )
    return b


# --- secrets: key blocks, JWTs, URL passwords ------------------------------------------------


def secrets_keys() -> Book:
    b = Book("secrets_keys", "ho-keys")
    k = pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 1190)
    b.add(
        "config",
        "en",
        f"# deploy key, do not commit\n{k}\n",
        s("private_key_pem", k),
        family="private_key_pem",
    )
    k = pem("EC PRIVATE KEY", "MHcCAQEEI", 121)
    b.add(
        "chat",
        "de",
        f"hier der Schlüssel für den Testserver:\n{k}\nbitte danach löschen",
        s("private_key_pem", k),
        family="private_key_pem",
    )
    k = pem(
        "OPENSSH PRIVATE KEY",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        400,
    )
    b.add(
        "log",
        "en",
        f"$ cat ~/.ssh/id_ed25519\n{k}\n$ ",
        s("private_key_pem", k),
        family="private_key_pem",
    )
    k = pem("PRIVATE KEY", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC", 1210)
    escaped = k.replace("\n", "\\n")
    email = "ci-deployer@teashop-prod-4410.iam.gserviceaccount.com"
    b.add(
        "json",
        "en",
        f'{{\n  "type": "service_account",\n  "project_id": "teashop-prod-4410",\n  "private_key_id": "{hexstr(40)}",\n  "private_key": "{escaped}\\n",\n  "client_email": "{email}",\n  "client_id": "{pick(DIGITS, 21)}"\n}}',
        s("private_key_pem", escaped),
        e("email", email),
        family="private_key_pem",
    )
    k = pem(
        "ENCRYPTED PRIVATE KEY",
        "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI",
        1250,
        indent="    ",
    )
    b.add(
        "config",
        "en",
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls-signing\nstringData:\n  signing.key: |\n    {k}\ntype: Opaque",
        s("private_key_pem", k),
        family="private_key_pem",
    )
    k = pem("DSA PRIVATE KEY", "MIIBuwIBAAKBgQ", 440)
    b.add(
        "prose",
        "fr",
        f"Ancienne clé DSA retrouvée dans l'archive :\n{k}",
        s("private_key_pem", k),
        family="private_key_pem",
    )
    k = pgp_private_block()
    b.add(
        "email-body",
        "en",
        f"Hi,\nattaching my backup key as text, don't lose it:\n\n{k}\n\nCheers",
        s("pgp_private_key_block", k),
        family="pgp_private_key_block",
    )
    k = pgp_private_block()
    b.add(
        "code",
        "en",
        f'GPG_KEY = """{k}"""',
        s("pgp_private_key_block", k),
        family="pgp_private_key_block",
    )
    k = pem("PRIVATE KEY", "MC4CAQAwBQYDK2VwBCIEI", 48)
    b.add(
        "code",
        "en",
        f'resource "tls_locally_signed_cert" "x" {{\n  ca_private_key_pem = <<EOT\n{k}\nEOT\n}}',
        s("private_key_pem", k),
        family="private_key_pem",
    )

    # JWTs
    t = jwt({"sub": "u_8812", "name": "Ines Duarte", "iat": 1716200000, "exp": 1716203600})
    b.add(
        "http",
        "en",
        f"GET /api/me HTTP/1.1\nHost: app.teashop.co\nAuthorization: Bearer {t}",
        s("jwt", t),
        family="jwt",
    )
    t = jwt(
        {
            "iss": "https://auth.teashop.co",
            "sub": "svc-reports",
            "aud": "reports",
            "exp": 1893456000,
        },
        "RS256",
        256,
    )
    b.add(
        "log",
        "en",
        f"2024-05-21 09:12:44 DEBUG outgoing call with token={t}",
        s("jwt", t),
        family="jwt",
    )
    t = jwt({"user_id": 4410, "role": "admin"})
    b.add(
        "url",
        "en",
        f"https://reports.teashop.co/export?format=csv&jwt={t}",
        s("jwt", t),
        family="jwt",
    )
    t = jwt({"sub": "1204", "admin": True}, "none")
    b.add("chat", "en", f"lol their API accepts {t} as a valid token", s("jwt", t), family="jwt")
    t = jwt({"sub": "k.tanaka", "scope": "read write", "exp": 1735689600}, "ES256", 64)
    b.add("prose", "ja", f"このJWT {t} をヘッダーに入れてください。", s("jwt", t), family="jwt")
    t = jwt({"session": "c0ffee", "exp": 1767225600})
    b.add(
        "config",
        "en",
        f"cookies:\n  - name: session\n    value: {t}\n    domain: .teashop.co",
        s("jwt", t),
        family="jwt",
    )

    # URL credentials: the password only
    pw = secret_value(18, URL_SAFE)
    b.add(
        "config",
        "en",
        f"DATABASE_URL=postgres://app_user:{pw}@db.internal:5432/teashop",
        s("url_password", pw),
        family="url_password",
    )
    pw = secret_value(16, URL_SAFE)
    b.add(
        "code",
        "en",
        f'client = MongoClient("mongodb+srv://reporting:{pw}@cluster0.ab1cd.mongodb.net/?retryWrites=true")',
        s("url_password", pw),
        family="url_password",
    )
    pw = secret_value(20, URL_SAFE)
    b.add(
        "log",
        "en",
        f"Connecting to amqp://guest-admin:{pw}@rabbit-1.corp:5672/vhost ...",
        s("url_password", pw),
        family="url_password",
    )
    pw = secret_value(14, URL_SAFE)
    b.add(
        "config",
        "en",
        f"spring:\n  redis:\n    url: redis://default:{pw}@cache.corp:6379/0",
        s("url_password", pw),
        family="url_password",
    )
    pw = secret_value(12, URL_SAFE)
    b.add(
        "chat",
        "pt",
        f"o FTP é ftp://fornecedor:{pw}@ftp.distribuidora.com.br/notas",
        s("url_password", pw),
        family="url_password",
    )
    return b


# --- secrets: generic assignments ------------------------------------------------------------


def secrets_generic() -> Book:
    b = Book("secrets_generic", "ho-generic")
    g = "generic_assignment"

    def one(context: str, language: str, template: str, n: int = 20, alphabet: str = ALNUM) -> None:
        value = secret_value(n, alphabet)
        b.add(context, language, template.format(v=value), s(g, value), family=g)

    quoted = ALNUM + "!+-_.*"
    one("config", "en", "# .env\nDB_HOST=db.internal\nDB_PASSWORD={v}\nDB_POOL=10")
    one("config", "en", "database:\n  user: app\n  password: {v}\n  pool: 5", 16)
    one("json", "en", '{{"service": "reports", "apiKey": "{v}", "timeout": 30}}', 32, quoted)
    one("config", "en", "[smtp]\nhost = mail.corp\nsecret_key = {v}\nport = 587", 40)
    one("config", "en", '[auth]\ntoken = "{v}"\nrefresh = true', 28, quoted)
    one("code", "en", 'API_TOKEN = "{v}"\nBASE_URL = "https://api.partner.io"', 32)
    one(
        "code",
        "en",
        "const apiKey = '{v}';\nfetch(url, {{ headers: {{ 'x-api-key': apiKey }} }});",
        24,
    )
    one("code", "en", 'cfg := Config{{\n\tUser:     "svc",\n\tPassword: "{v}",\n}}', 18, quoted)
    one(
        "config",
        "en",
        "spring.datasource.url=jdbc:mysql://db:3306/shop\nspring.datasource.password={v}",
        16,
    )
    one(
        "code",
        "en",
        "<connection>\n  <user>etl</user>\n  <password>{v}</password>\n</connection>",
        14,
    )
    one("log", "en", "$ mysqldump --user=backup --password={v} shop > shop.sql", 16)
    one(
        "url",
        "en",
        "https://api.weather-partner.net/v2/forecast?city=Lyon&api_key={v}&units=metric",
        32,
    )
    one(
        "http",
        "en",
        "GET /v1/rates HTTP/1.1\nHost: fx.partner.io\nX-Api-Key: {v}\nAccept: application/json",
        36,
    )
    one("http", "en", "POST /webhooks/in HTTP/1.1\nHost: hooks.corp\nX-Auth-Token: {v}\n\n{{}}", 40)
    one("code", "en", "docker run -d -e POSTGRES_PASSWORD={v} -p 5432:5432 postgres:16", 20)
    one(
        "code",
        "en",
        'resource "aws_db_instance" "main" {{\n  engine          = "postgres"\n  master_password = "{v}"\n}}',
        24,
        quoted,
    )
    one("sql", "en", "CREATE USER reporting WITH PASSWORD '{v}';", 18, quoted)
    one("code", "en", "$env:SVC_PASSWORD = '{v}'\n& .\\sync.ps1 -Verbose", 18, quoted)
    encoded = base64.b64encode(secret_value(19).encode()).decode()
    b.add(
        "config",
        "en",
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: YXBw\n  password: {encoded}",
        s(g, encoded),
        family=g,
    )
    one(
        "config",
        "en",
        'env:\n  - name: REDIS_PASSWORD\n    value: "{v}"\n  - name: LOG_LEVEL\n    value: info',
        22,
        quoted,
    )
    one(
        "config",
        "en",
        "jobs:\n  deploy:\n    env:\n      DEPLOY_TOKEN: {v}\n    steps:\n      - run: ./deploy.sh",
        40,
    )
    one(
        "config",
        "en",
        "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {v}",
        40,
    )
    one("code", "en", 'client_secret = "{v}"  # OAuth app "reports"', 34)
    one(
        "json",
        "en",
        '{{"credentials": {{"username": "integration", "password": "{v}"}}}}',
        20,
        quoted,
    )
    one("config", "en", 'terraform.tfvars:\nadmin_pwd = "{v}"', 16, quoted)
    one("chat", "en", "wifi: TeaShop-Guest / password: {v}", 12)
    one("chat", "de", "Das Passwort für den Router lautet {v}", 14)
    one("chat", "fr", "le mot de passe du compte admin : {v}", 14)
    one("form", "es", "Usuario: jmartin\nContraseña: {v}", 12)
    one("chat", "pt", "senha do wi-fi: {v}", 12)
    one("form", "ru", "Логин: ivanov\nПароль: {v}", 12)
    one("form", "ja", "ユーザー名：tanaka\nパスワード：{v}", 12)
    one("chat", "zh", "服务器密码：{v}，别外传", 14)
    one("form", "it", "Nome utente: lbianchi\nPassword: {v}", 12)
    one("form", "pl", "Login: akowalska\nHasło: {v}", 12)
    one("form", "nl", "Gebruikersnaam: jdevries\nWachtwoord: {v}", 12)
    one("config", "en", 'TOKEN="{v}" ./run-backfill.sh --since 2024-01-01', 32)
    one("code", "en", "settings.SECRET_KEY = '{v}'", 50, quoted)
    return b


# --- secrets: near misses --------------------------------------------------------------------


def secrets_near_miss() -> Book:
    b = Book("secrets_near_miss", "ho-snm")
    g = "generic_assignment"
    sha = hexstr(40)
    b.add(
        "log",
        "en",
        f"commit {sha}\nMerge: {sha[:7]} {hexstr(7)}\nAuthor: ci-bot\n\n    Bump version to 2.14.1",
        family="github_token",
    )
    b.add(
        "json",
        "en",
        f'{{"id": "{uuid4()}", "tenant": "{uuid4()}", "created": "2024-05-01T12:00:00Z"}}',
        family=g,
    )
    b.add("config", "en", f"image: ghcr.io/acme/api@sha256:{hexstr(64)}", family=g)
    b.add(
        "json",
        "en",
        f'"node_modules/lodash": {{"version": "4.17.21", "integrity": "sha512-{pick(B64, 86)}=="}}',
        family=g,
    )
    b.add(
        "html",
        "en",
        f'<script src="/app.js" integrity="sha384-{pick(B64, 64)}" crossorigin="anonymous"></script>',
        family=g,
    )
    b.add(
        "http",
        "en",
        f'HTTP/1.1 200 OK\nETag: "{hexstr(32)}"\nx-amz-request-id: {pick(UPPER + DIGITS, 16)}\nx-amz-id-2: {pick(B64, 76)}',
        family=g,
    )
    b.add(
        "config",
        "en",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        family="aws_access_key_id",
    )
    b.add(
        "prose",
        "en",
        "Set GITHUB_TOKEN to a token like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (classic, repo scope).",
        family="github_token",
    )
    b.add(
        "code",
        "en",
        f"const stripe = Stripe('pk_live_{pick(ALNUM, 24)}');  // publishable, safe in the browser",
        family="stripe_secret_key",
    )
    b.add(
        "log",
        "en",
        f"charge ok id=ch_{pick(ALNUM, 24)} customer=cus_{pick(ALNUM, 14)} intent=pi_{pick(ALNUM, 24)}",
        family="stripe_secret_key",
    )
    b.add(
        "config",
        "en",
        f"TWILIO_ACCOUNT_SID=AC{hexstr(32)}\nTWILIO_AUTH_TOKEN=${{TWILIO_AUTH_TOKEN}}",
        family=g,
    )
    b.add(
        "chat",
        "en",
        "xoxo, see you friday! ps the slides are at https://slides.corp/xoxo-2024",
        family="slack_token",
    )
    b.add(
        "json",
        "en",
        f'{{"id": "chatcmpl-{pick(ALNUM, 29)}", "object": "chat.completion", "model": "gpt-4o", "usage": {{"total_tokens": 812}}}}',
        family="openai_api_key",
    )
    b.add("config", "en", "OPENAI_API_KEY=sk-...\nANTHROPIC_API_KEY=<your-api-key>", family=g)
    b.add(
        "config",
        "en",
        "api_key: ${API_KEY}\npassword: ${DB_PASSWORD:?missing}\ntoken: $TOKEN",
        family=g,
    )
    b.add(
        "config",
        "en",
        "env:\n  API_TOKEN: ${{ secrets.API_TOKEN }}\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        family=g,
    )
    b.add(
        "config",
        "en",
        "password: {{ .Values.db.password | quote }}\nsecret: {{ vault_db_secret }}",
        family=g,
    )
    b.add(
        "code",
        "en",
        "password = os.environ['DB_PASSWORD']\ntoken = os.getenv('API_TOKEN', '')",
        family=g,
    )
    b.add(
        "code",
        "en",
        "const secret = process.env.JWT_SECRET;\nconst apiKey = config.get('apiKey');",
        family=g,
    )
    b.add("config", "en", "password: ********\napi_key: xxxxxxxxxxxxxxxx", family=g)
    b.add("config", "en", "admin_password: changeme\nroot_password: CHANGE_ME", family=g)
    b.add(
        "config",
        "en",
        "max_tokens: 4096\ntoken_count: 12\npassword_min_length: 12\ntoken_ttl_seconds: 3600",
        family=g,
    )
    b.add(
        "config",
        "en",
        "password_reset_url: https://accounts.teashop.co/reset\nsecret_name: db-credentials",
        family=g,
    )
    b.add(
        "config",
        "en",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
        family=g,
    )
    b.add("log", "en", "PWD=/var/lib/app\nOLDPWD=/root\nSHELL=/bin/bash\nHOME=/root", family=g)
    b.add(
        "config",
        "en",
        "model:\n  tokenizer: cl100k_base\n  token_type: bearer\n  passwordless: true",
        family=g,
    )
    b.add(
        "config",
        "en",
        "[profile prod]\ncredential_process = /usr/local/bin/aws-vault export --format=json prod\nregion = eu-west-1",
        family=g,
    )
    b.add(
        "code",
        "en",
        "fetch('/api/me', { credentials: 'include', headers: { 'Content-Type': 'application/json' } })",
        family=g,
    )
    b.add("config", "en", 'password = ""\nsecret = false\napi_key = null', family=g)
    b.add(
        "config",
        "en",
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pick(B64, 43)} deploy@ci",
        family="private_key_pem",
    )
    b.add(
        "config",
        "en",
        pem("PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 294),
        family="private_key_pem",
    )
    b.add("config", "en", pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE", 700), family="private_key_pem")
    b.add(
        "email-body",
        "en",
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nRelease 2.3.0 is out.\n"
        + pem("PGP SIGNATURE", "iQIzBAEBCAAdFiEE", 300),
        family="pgp_private_key_block",
    )
    b.add(
        "prose",
        "en",
        "Paste your key between the markers:\n-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
        family="private_key_pem",
    )
    b.add(
        "prose",
        "en",
        "The token looks like eyJhbGciOi... followed by two more dot-separated parts.",
        family="jwt",
    )
    b.add(
        "config",
        "en",
        "DATABASE_URL=postgres://user:password@localhost:5432/dev\nREDIS_URL=redis://:@cache:6379",
        family="url_password",
    )
    b.add(
        "config",
        "en",
        "DATABASE_URL=postgres://app:${DB_PASS}@db.internal:5432/teashop",
        family="url_password",
    )
    b.add(
        "log",
        "en",
        f"secret arn: arn:aws:secretsmanager:eu-west-1:{pick(DIGITS, 12)}:secret:prod/db-{pick(ALNUM, 6)}",
        family=g,
    )
    b.add(
        "config",
        "en",
        "vault_path: secret/data/payments#api_key\nsops_kms: arn:aws:kms:eu-west-1:000000000000:alias/sops",
        family=g,
    )
    b.add("config", "en", "analytics:\n  ga_id: G-7Q2XK9M4PL\n  gtm: GTM-5KX2R8P", family=g)
    b.add("html", "en", f'<img alt="logo" src="data:image/png;base64,{pick(B64, 120)}=">', family=g)
    b.add("log", "en", f"ssh: host key SHA256:{pick(B64, 43)} (ED25519)", family=g)
    b.add(
        "code",
        "en",
        f'_SALT_ROUNDS = 12\nHASH_PREFIX = "$2b$12$"\nFIXTURE_USER_ID = "{uuid4()}"',
        family=g,
    )
    b.add(
        "prose",
        "de",
        "Das Passwort muss mindestens 12 Zeichen lang sein und eine Ziffer enthalten.",
        family=g,
    )
    b.add("chat", "fr", "j'ai oublié mon mot de passe, tu peux le réinitialiser ?", family=g)
    b.add("prose", "ja", "パスワードを忘れた場合は「再設定」をクリックしてください。", family=g)
    b.add(
        "config",
        "en",
        "TELEGRAM_BOT_TOKEN=110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        family="telegram_bot_token",
    )
    b.add(
        "log",
        "en",
        f"Downloading model {pick('abcdef0123456789', 12)}… revision {hexstr(40)} (safetensors)",
        family="huggingface_token",
    )
    b.add(
        "config",
        "en",
        'sentry:\n  dsn_public: true\n  release: "teashop@2.14.1"\n  environment: production',
        family=g,
    )
    b.add(
        "json",
        "en",
        f'{{"access_token_expires_in": 3600, "refresh_token_rotation": true, "token_endpoint": "https://auth.teashop.co/oauth/token", "kid": "{hexstr(16)}"}}',
        family=g,
    )
    b.add(
        "code",
        "en",
        'SECRET_KEY = get_random_secret_key()\nAPI_TOKEN = load_token(path="/run/secrets/api")',
        family=g,
    )
    b.add(
        "log",
        "en",
        f"npm notice shasum: {hexstr(40)}\nnpm notice integrity: sha512-{pick(B64, 20)}[...]{pick(B64, 6)}==",
        family="npm_token",
    )
    b.add(
        "config",
        "en",
        "spec:\n  serviceAccountName: build-bot\n  automountServiceAccountToken: false",
        family=g,
    )
    b.add("html", "en", '<meta name="csrf-param" content="authenticity_token">', family=g)
    b.add(
        "prose",
        "en",
        f"Donations: bc1q{pick('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 38)} (BTC)",
        family=g,
    )
    b.add("log", "en", f"tx 0x{hexstr(64)} confirmed in block 19876543", family=g)
    b.add("log", "en", "echo $CR_PAT | docker login ghcr.io -u ci --password-stdin", family=g)
    b.add(
        "code",
        "en",
        f"mapboxgl.accessToken = 'pk.eyJ1IjoidGVhc2hvcCIsImEiOiJ{pick(ALNUM, 20)}In0.{pick(B64URL, 22)}';  // public token",
        family="jwt",
    )
    b.add(
        "config",
        "en",
        "role_arn = arn:aws:iam::123456789012:role/deploy\nsource_profile = default",
        family="aws_access_key_id",
    )
    b.add("log", "en", "git tag -a v1.0.0 -m 'token refresh fix' && git push --tags", family=g)
    return b


# --- several entities in one text ------------------------------------------------------------


def mixed() -> Book:
    b = Book("mixed_pii", "ho-mixed")
    i, em, ph = iban("DE"), "buchhaltung@moebel-hartmann.de", "+49 221 9347 8810"
    b.add(
        "email-body",
        "de",
        f"Rechnung 2024-0419\nBitte überweisen Sie 1.240,00 € auf {i}.\n\nMöbel Hartmann GmbH · Buchhaltung\n{em} · Tel. {ph}",
        e("iban", i),
        e("email", em),
        e("phone", ph),
    )
    sn, em, ph = ssn(), "r.alvarez@gmail.com", "(305) 555-0164"
    b.add(
        "csv",
        "en",
        f"name,ssn,email,phone\nRosa Alvarez,{sn},{em},{ph}",
        e("us_ssn", sn),
        e("email", em),
        e("phone", ph),
    )
    c, ph, em = card("visa"), "+33 6 48 21 90 17", "claire.m@orange.fr"
    b.add(
        "chat",
        "fr",
        f"Bonjour, ma carte {c} a été débitée deux fois. Rappelez-moi au {ph} ou écrivez à {em}.",
        e("credit_card", c),
        e("phone", ph),
        e("email", em),
    )
    ip, em, tok = "185.199.110.42", "secops@teashop.co", github("ghp_")
    b.add(
        "log",
        "en",
        f"2024-06-03T22:41:09Z ALERT leaked credential {tok} used from {ip}; notified {em}",
        e("ip_address", ip),
        e("email", em),
        s("github_token", tok),
    )
    i, em = iban("NL"), "penningmeester@vv-rijnsoever.nl"
    b.add(
        "prose",
        "nl",
        f"Contributie graag voor 1 maart op {i} t.n.v. VV Rijnsoever. Vragen? {em}",
        e("iban", i),
        e("email", em),
    )
    ph, em, ip = "03-5555-0142", "yamada.t@kabu-shoji.co.jp", "10.12.0.7"
    b.add(
        "email-body",
        "ja",
        f"山田太郎\n株式会社カブ商事 情報システム部\nTEL：{ph}\nMail：{em}\n社内サーバー：{ip}",
        e("phone", ph),
        e("email", em),
        e("ip_address", ip),
    )
    pw, em = secret_value(16, URL_SAFE), "dba@teashop.co"
    b.add(
        "config",
        "en",
        f"# owner: {em}\nDATABASE_URL=mysql://root:{pw}@10.0.3.15:3306/shop",
        e("email", em),
        s("url_password", pw),
        e("ip_address", "10.0.3.15"),
    )
    sn, c = ssn(" "), card("mastercard", "-")
    b.add(
        "form",
        "en",
        f"Applicant SSN: {sn}\nCard for deposit: {c}\nSignature: ________",
        e("us_ssn", sn),
        e("credit_card", c),
    )
    ph, i = "+351 213 456 789", iban("PT")
    b.add("form", "pt", f"Telefone: {ph}\nIBAN para reembolso: {i}", e("phone", ph), e("iban", i))
    em, ph, ip = "noc@telco-baltic.lt", "+370 5 212 3456", "2001:db8:4410::53"
    b.add(
        "markdown",
        "en",
        f"## Escalation\n\n| Channel | Value |\n|---|---|\n| Mail | {em} |\n| Phone | {ph} |\n| Resolver | {ip} |",
        e("email", em),
        e("phone", ph),
        e("ip_address", ip),
    )
    tok, em = jwt({"sub": "m.rossi@teashop.co", "exp": 1767225600}), "m.rossi@teashop.co"
    b.add(
        "http",
        "it",
        f"GET /api/ordini HTTP/1.1\nAuthorization: Bearer {tok}\nX-User: {em}",
        s("jwt", tok),
        e("email", em),
    )
    c, sn = card("amex", ""), ssn("")
    b.add(
        "sql",
        "en",
        f"-- dump of table customers\n(1, 'Ortiz', '{sn}', '{c}'),\n(2, 'Nash', NULL, NULL);",
        e("us_ssn", sn),
        e("credit_card", c),
    )
    ph, em = "+82 2-3456-7890", "contact@hanul-soft.kr"
    b.add(
        "email-body",
        "ko",
        f"감사합니다.\n한울소프트 영업팀\n전화 {ph}\n이메일 {em}",
        e("phone", ph),
        e("email", em),
    )
    i, ph = iban("PL", False), "+48 58 301 22 47"
    b.add(
        "prose",
        "pl",
        f"Wpłaty na konto {i}, informacje pod numerem {ph}.",
        e("iban", i),
        e("phone", ph),
    )
    key, ip = stripe("sk_live_"), "52.14.200.9"
    b.add(
        "log",
        "en",
        f"POST https://{ip}/v1/charges Authorization: Bearer {key}",
        e("ip_address", ip),
        s("stripe_secret_key", key),
    )
    return b


def main() -> None:
    books = [emails(), cards(), ibans(), phones(), ssns(), ip_addresses(),
             secrets_vendor(), secrets_keys(), secrets_generic(), secrets_near_miss(), mixed()]  # fmt: skip
    write(books)
    cases = [c for book in books for c in book.cases]
    near = sum(1 for c in cases if not c["expect"])
    spans = sum(len(c["expect"]) for c in cases)
    print(f"{len(cases)} cases, {spans} expected spans, {near} near misses")


if __name__ == "__main__":
    main()
