"""The ``secret`` detector: one table of secret formats, with their validators.

Every format has a name, a family, an RE2 pattern, what its validator checks, a confidence factor
and a made-up example (docs/detection.md, "Secret formats", is checked against this table by the
tests). The formats are compiled into three scanner patterns, not one per format, so the cost
of the ``secret`` detector stays that of a few patterns however many formats there are:

- ``keys``: private-key blocks (PEM, OpenSSH and PGP armour, whole or cut short before their END
  line, and PuTTY key files);
- ``tokens``: vendor tokens that have a recognisable shape, most with a literal prefix
  (``ghp_``, ``sk_live_``, ``xoxb-``, ...), and JWTs;
- ``assignments``: a value assigned to a key whose name says it is a secret (``password``,
  ``api_key``, ``DB_TOKEN``, ...) in env files, YAML, JSON, INI, code, command lines and URL
  queries, and the password of a URL's ``user:password@``. The AWS secret access key and the
  Azure storage account key are recognised there too, by their key name and value shape.

A validator receives the candidate of its group's pattern, finds which format it is (the first of
the group, in table order, that matches there), checks it and returns the span to report and its
confidence factor. The patterns are also valid Python ``re`` patterns with the same meaning, which
the validators use on the candidate: the RE2 search has already bounded the work to the candidate.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from govcore.detection.normalize import (
    SPACELESS_LETTERS,
    VALUE_START,
    ascii_look_alike,
    look_alikes,
)

__all__ = [
    "FAMILIES",
    "GROUPS",
    "KNOWN_EXAMPLES",
    "PRIVATE_KEY_BEGIN",
    "PRIVATE_KEY_END",
    "SECRET_EXPLANATION",
    "SECRET_FORMATS",
    "SecretFormat",
    "SecretMatch",
    "SecretOptions",
    "SecretPattern",
    "find_secrets",
    "looks_like_secret",
    "secret_patterns",
]

# A validator gets the normalised text and a candidate span and returns the accepted span and
# its confidence factor, or None (the shape of govcore.detection.pii's validators).
Validator = Callable[[str, int, int], "tuple[int, int, float] | None"]

SECRET_EXPLANATION = "contains a secret (a private key, an API key, an access token or a password)"  # noqa: S105
"""One explanation for every secret format: a violation names its detector kind, not the format."""

FAMILIES = (
    "cloud",
    "code hosting",
    "chat",
    "payment",
    "package registry",
    "AI provider",
    "observability",
    "productivity",
    "private key",
    "token",
    "generic",
)

PRIVATE_KEY_BEGIN = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
"""The header line of an armoured private key: PEM (RSA, EC, DSA, PKCS #8, ENCRYPTED), OpenSSH
and PGP (``PRIVATE KEY BLOCK``). The streaming check holds back a block opened by it."""
PRIVATE_KEY_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"

GENERIC_CONFIDENCE = 0.7
"""The factor of a value found only by the name of the key it is assigned to."""


@dataclass(frozen=True, slots=True)
class SecretFormat:
    """One kind of secret the ``secret`` detector reports."""

    name: str
    family: str
    looks_like: str  # what it looks like, in words, for the documentation
    pattern: str  # RE2 (and Python re) syntax; for assignment formats, the value's shape
    validator: str  # what is checked beyond the pattern, in words
    confidence: float
    example: str  # a made-up value of the format, as it would appear in text
    group: str  # the scanner pattern it belongs to: keys, tokens or assignments
    prefixes: tuple[str, ...] = ()  # literal starts (case-sensitive); glued tokens split there
    check: Callable[[str], bool] | None = None  # a check of the token itself
    key: str | None = None  # assignments: a pattern the key's name must match (whole)


@dataclass(frozen=True, slots=True)
class SecretOptions:
    """What counts as a known, harmless value (``settings.secret_known_examples`` and
    ``settings.secret_allowlist``). Values are compared with the normalised text."""

    known_examples: bool = True
    allowlist: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One scanner pattern of the ``secret`` detector (a group of formats)."""

    group: str
    pattern: str
    validate: Validator
    anchor: bytes | None = None
    reach: tuple[int, int] = (0, 0)
    restart_inside: bool = True
    """Whether a refused candidate is looked into again from its next word (the scanner's
    rule); not for key blocks, whose refused candidate runs from a BEGIN line to an END line
    and would be read again from every BEGIN line inside it."""


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """A secret found by :func:`find_secrets`: ``text[start:end]`` is a ``name`` secret."""

    name: str
    start: int
    end: int
    confidence: float


# --- checks of tokens -------------------------------------------------------------------------


def _b64decode(part: str, *, url_safe: bool = True) -> bytes | None:
    """``part`` decoded from base64url (or standard base64), padding optional."""
    altchars = b"-_" if url_safe else None
    try:
        return base64.b64decode(part + "=" * (-len(part) % 4), altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return None


def _json_object(part: str, *, url_safe: bool = True) -> dict[str, object] | None:
    raw = _b64decode(part.rstrip("="), url_safe=url_safe)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _jwt(token: str) -> bool:
    """A JWT's header and payload are base64url JSON objects, and the header names an ``alg``."""
    header, payload = token.split(".")[:2]
    decoded = _json_object(header)
    return decoded is not None and "alg" in decoded and _json_object(payload) is not None


def _discord(token: str) -> bool:
    """A Discord bot token starts with the bot's numeric id in base64."""
    raw = _b64decode(token.split(".", 1)[0])
    return raw is not None and raw.isdigit() and 15 <= len(raw) <= 21


def _base64_bytes(size: int) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        try:
            return len(base64.b64decode(value, validate=True)) == size
        except (binascii.Error, ValueError):
            return False

    return check


def _base64_json(start: int, *, url_safe: bool, cut: str = "") -> Callable[[str], bool]:
    """A check that the token, from ``start`` (and up to the last ``cut``, if given), is a
    JSON object in base64: Grafana, Sentry and Mapbox tokens carry one."""

    def check(token: str) -> bool:
        part = token[start:]
        if cut:
            part = part.rsplit(cut, 1)[0]
        return _json_object(part, url_safe=url_safe) is not None

    return check


# Words of an identifier, camelCase or snake_case: "ServiceProviderFactory", "read_only_mode".
_IDENTIFIER = re.compile(r"(?:[A-Z]?[a-z]{2,}_?)+")


def _not_words(start: int) -> Callable[[str], bool]:
    """A check that the token's random part (from ``start``) is not an identifier made of
    words, which a short prefix followed by one would otherwise be (``hvs.ServiceFactory``):
    random letters and digits next to never are."""

    def check(token: str) -> bool:
        return _IDENTIFIER.fullmatch(token, start) is None

    return check


def _run_before(marker: str, length: int) -> Callable[[str], bool]:
    """A check that the token's run before ``marker`` is ``length`` characters long."""

    def check(token: str) -> bool:
        return token.index(marker) == length

    return check


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _bech32(token: str) -> bool:
    """A Bech32 string (BIP 173) whose checksum holds: age secret keys are one, upper-cased."""
    human, _, data = token.lower().rpartition("1")
    values = [ord(c) >> 5 for c in human] + [0] + [ord(c) & 31 for c in human]
    values += [_BECH32.index(c) for c in data]
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for bit, generator in enumerate(_BECH32_GENERATOR):
            if top >> bit & 1:
                checksum ^= generator
    return checksum == 1


# --- the table ------------------------------------------------------------------------------

_BOUNDED = "not glued to letters or digits (unless to another token)"
_NL = r"(?:\r?\n|(?:\\r)?\\n)"  # a line break, real or JSON-escaped
_GUID = r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"

_PEM_EXAMPLE = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpQIBAAKCAQEAr7Wq0dVn3Jk9ZpT2mXcL8uQe4sHbYf1GxRtN6oA5vKiD2wMz\n"
    "Qj8LsPnE3yTu7cRb1VhGmW4kXa9ZoFd6iNq2JrBt0SlUe5CxHgYv3DpMwKn7zIfA\n"
    "-----END RSA PRIVATE KEY-----"
)
_PUTTY_EXAMPLE = (
    "PuTTY-User-Key-File-3: ssh-ed25519\n"
    "Encryption: none\n"
    "Comment: deploy-key\n"
    "Public-Lines: 2\n"
    "AAAAC3NzaC1lZDI1NTE5AAAAIHq4bT0mV8sYkR2cN7eL1wPz5uJ9aF3dG6hK0xQ\n"
    "iE4r\n"
    "Private-Lines: 1\n"
    "AAAAIG0rB7nW2sQ5vX8kT1cF4zL9dH3jP6mY0aR2eU7gN5wS\n"
    "Private-MAC: 3f7a9c2e5b8d1f4a6c0e9b2d5f8a1c4e7b0d3f6a9c2e5b8d1f4a7c0e3b6d9f2a"
)

SECRET_FORMATS: tuple[SecretFormat, ...] = (
    # --- private keys (group "keys"; whole blocks before cut-short ones) --------------------
    SecretFormat(
        "private-key-block",
        "private key",
        "an armoured private key from its BEGIN line to its END line: PEM (RSA, EC, DSA, "
        "PKCS #8, ENCRYPTED), OpenSSH, PGP (`PRIVATE KEY BLOCK`)",
        PRIVATE_KEY_BEGIN + r"[^\x00]*?" + PRIVATE_KEY_END,
        "a line of key material (16+ base64 characters) between the lines: `...` is no key",
        1.0,
        _PEM_EXAMPLE,
        "keys",
    ),
    SecretFormat(
        "private-key-block-cut-short",
        "private key",
        "a BEGIN line whose END line never comes (an output cut short): the header, any "
        "`Name: value` header lines, then lines of 16+ base64 characters and a last padded "
        "line; real or JSON-escaped line breaks",
        PRIVATE_KEY_BEGIN
        + rf"(?:{_NL}[A-Za-z-]+: ?[^\r\n\\]*)*"
        + rf"(?:(?:{_NL}|[ \t])+[A-Za-z0-9+/=]{{16,}})+"
        + rf"(?:{_NL}[A-Za-z0-9+/]{{0,15}}={{1,2}})?",
        "at least one line of key material",
        1.0,
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACDk3R8qVb",
        "keys",
    ),
    SecretFormat(
        "putty-private-key",
        "private key",
        "a PuTTY key file from `PuTTY-User-Key-File-N:` to its private lines and `Private-MAC`",
        r"PuTTY-User-Key-File-[0-9]+: [^\r\n\\]+(?:"
        + _NL
        + r"[^\r\n\\]*)*?"
        + _NL
        + r"Private-Lines: [0-9]+(?:"
        + _NL
        + r"(?:Private-MAC: [0-9a-fA-F]+|[A-Za-z0-9+/=]+))+",
        "none: the header and the private lines are the format",
        1.0,
        _PUTTY_EXAMPLE,
        "keys",
    ),
    SecretFormat(
        "age-secret-key",
        "private key",
        "`AGE-SECRET-KEY-1` and 58 upper-case Bech32 characters (an age encryption key)",
        r"(?-i:AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58})",
        _BOUNDED + "; the Bech32 checksum holds",
        1.0,
        "AGE-SECRET-KEY-1YUFF5TZWQNESZ5MWNSCSAP9H3ND40WS9MNWWVYF04F9YZ9KGNRESC7UQXF",
        "tokens",
        ("AGE-SECRET-KEY-1",),
        check=_bech32,
    ),
    # --- cloud ----------------------------------------------------------------------------------
    SecretFormat(
        "aws-access-key-id",
        "cloud",
        "`AKIA`, `ASIA`, `ABIA` or `ACCA` and 16 upper-case letters or digits",
        r"(?-i:(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})",
        _BOUNDED,
        1.0,
        "AKIAZ4QW7RT2LX5PJN3K",
        "tokens",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    SecretFormat(
        "google-api-key",
        "cloud",
        "`AIza` and 35 letters, digits, `_` or `-`",
        r"(?-i:AIza[0-9A-Za-z_\-]{35})",
        _BOUNDED,
        1.0,
        "AIzaSyD4k9Qm2Xv7Lp0Rt5Wn8Jc3Hb6Fg1Ze2Ua",
        "tokens",
        ("AIza",),
    ),
    SecretFormat(
        "digitalocean-token",
        "cloud",
        "`dop_v1_`, `doo_v1_` or `dor_v1_` and 64 hex digits",
        r"(?-i:do[opr]_v1_[a-f0-9]{64})",
        _BOUNDED,
        1.0,
        "dop_v1_" + "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a9c1e3b5d7f2a4c6e8b0d1f3a",
        "tokens",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
    ),
    SecretFormat(
        "alibaba-access-key-id",
        "cloud",
        "`LTAI` and 12 to 20 letters or digits",
        r"(?-i:LTAI[A-Za-z0-9]{12,20})",
        _BOUNDED + "; not a camelCase or snake_case word after the prefix",
        1.0,
        "LTAIHITErAO2mDSbo7Xhe8lv",
        "tokens",
        ("LTAI",),
        check=_not_words(4),
    ),
    SecretFormat(
        "azure-ad-client-secret",
        "cloud",
        "3 characters, a digit, `Q~` and 31 to 34 letters, digits, `_`, `~`, `.` or `-` (an "
        "Entra ID application's client secret)",
        r"(?-i:[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})",  # 3 counted: dots join words
        _BOUNDED + "; 3 characters before the digit (no prefix, only the `Q~` marker: weaker)",
        0.9,
        "J7S8Q~yfmf0G.DL~nreCX320o~dIdpV~ALGZgvoE",
        "tokens",
        check=_run_before("Q~", 4),
    ),
    SecretFormat(
        "hashicorp-vault-token",
        "cloud",
        "`hvs.` (service), `hvb.` (batch) or `hvr.` (recovery) and 24 to 255 letters, digits, "
        "`_` or `-`",
        r"(?-i:hv[sbr]\.[A-Za-z0-9_\-]{24,255})",
        _BOUNDED + "; not a camelCase or snake_case word after the prefix",
        1.0,
        (
            "hvs.CAES3_pFDwRqKd4-fMBwmDwe1tHBNG_oLrM_4m76ARO55EF8WX9-WfRRb7yjiSdA9XBGEgBW"
            "wv8G69DGVy4jBbxj-W_"
        ),
        "tokens",
        ("hvs.", "hvb.", "hvr."),
        check=_not_words(4),
    ),
    SecretFormat(
        "terraform-cloud-token",
        "cloud",
        "14 letters or digits, `.atlasv1.` and 60 to 70 letters, digits, `_` or `-` (Terraform "
        "Cloud and HCP)",
        # A run from the start of a word, not {14}: a counted run costs the scanner's DFA
        # states on every text made of token characters, and a run that could start inside a
        # word would be read to the word's end again from every candidate inside it. The
        # check counts the 14.
        r"(?-i:\b[A-Za-z0-9]+\.atlasv1\.[A-Za-z0-9_\-]{60,70})",
        _BOUNDED + "; 14 characters before `.atlasv1.`",
        1.0,
        (
            "wkvLwDgXHeueFn.atlasv1.kxbz5hNJwToQl8O6APHwG7LDEZfJH00iUprq7w7uSze0frUHsnBcc"
            "FAwfOen0ARVLMp"
        ),
        "tokens",
        check=_run_before(".atlasv1.", 14),
    ),
    SecretFormat(
        "doppler-token",
        "cloud",
        "`dp.pt.`, `dp.st.` (with an optional config name and `.`), `dp.ct.`, `dp.sa.`, "
        "`dp.scim.` or `dp.audit.` and 40 to 44 letters or digits",
        r"(?-i:dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_\-]{2,35}\.)?[A-Za-z0-9]{40,44})",
        _BOUNDED,
        1.0,
        "dp.st.prd.8EY5ArS8RcKiFVBa8KgfvJ0HkwFAnUpV1hPZp5r7",
        "tokens",
        ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
    ),
    SecretFormat(
        "databricks-token",
        "cloud",
        "`dapi` and 32 lower-case hex digits, optionally `-` and a number",
        r"(?-i:dapi[a-f0-9]{32}(?:-[0-9]{1,2})?)",
        _BOUNDED,
        1.0,
        "dapi8e48f4d74a88fd86f85c5a4ec69736b4",
        "tokens",
        ("dapi",),
    ),
    SecretFormat(
        "heroku-api-key",
        "cloud",
        "`HRKU-AA` and 58 letters, digits, `_` or `-`",
        r"(?-i:HRKU-AA[A-Za-z0-9_\-]{58})",
        _BOUNDED,
        1.0,
        "HRKU-AAfZFAggQv-oO7CXowplDGbyr4bAdanF4-aCtMqddP9jmFkQ6k7ANUR8LFRO",
        "tokens",
        ("HRKU-",),
    ),
    SecretFormat(
        "flyio-token",
        "cloud",
        "`fo1_` and 43 letters, digits, `_` or `-`; or `FlyV1 ` and one or more `fm1a_`, "
        "`fm1r_` or `fm2_` macaroons of 100+ base64 characters, separated by `,`",
        r"(?-i:fo1_[A-Za-z0-9_\-]{43}"
        r"|FlyV1 fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3}(?:,fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3})*)",
        _BOUNDED,
        1.0,
        (
            "FlyV1 fm2_m3URdh6L+9npcVY1Edik6zrVrtbgbr0iQvT3586TEH9A8sZRibIETcTFrO3xs+GHgt"
            "+O+X9nb4fBb4qEDoHnPiqQ0VB/yA4KbjT+slRxRMuaMeIraAv4r4QHtw/Zq0QhfeEQQ8vrnpgVbQ"
            "wtgknWew84Q9ZlJCa3V5t8NgJ1xQUY/Pq/ko3v,fm2_DyEvNFPxX0o4iJaWZntd2clBx/7wJ6jyD"
            "9odxVoonjllpGV3JJdajxn1m9pb57IIAjLPJTlND9YeLRlINdUSrIU6lSL1p0qOUVsbnTQ6RSf/J"
            "00UVstnF/6n"
        ),
        "tokens",
        ("fo1_", "FlyV1 fm"),
    ),
    SecretFormat(
        "netlify-token",
        "cloud",
        "`nfp_` and 36 letters or digits",
        r"(?-i:nfp_[A-Za-z0-9]{36})",
        _BOUNDED,
        1.0,
        "nfp_0kxExP7vPinPpB0DEAgIOtsvBQN3ekl31lmt",
        "tokens",
        ("nfp_",),
    ),
    SecretFormat(
        "supabase-token",
        "cloud",
        "`sbp_` and 40 lower-case hex digits",
        r"(?-i:sbp_[a-f0-9]{40})",
        _BOUNDED,
        1.0,
        "sbp_159c46ed9fac0dc1e6ac1dde5cd9b7dab4cf1d04",
        "tokens",
        ("sbp_",),
    ),
    SecretFormat(
        "planetscale-token",
        "cloud",
        "`pscale_tkn_`, `pscale_pw_` or `pscale_oauth_` and 32 to 64 letters, digits, `_` or `-`",
        r"(?-i:pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-]{32,64})",
        _BOUNDED,
        1.0,
        "pscale_tkn_SXU7g7XEzFuRe2D2EpTVzgdXX6WGCNJLHwsBsVRppip",
        "tokens",
        ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
    ),
    SecretFormat(
        "pulumi-token",
        "cloud",
        "`pul-` and 40 lower-case hex digits",
        r"(?-i:pul-[a-f0-9]{40})",
        _BOUNDED,
        1.0,
        "pul-8140a1c9b4684ae673d710727561ddfec0c09f0e",
        "tokens",
        ("pul-",),
    ),
    SecretFormat(
        "mapbox-secret-token",
        "cloud",
        "`sk.eyJ` (a base64url JSON object), `.` and 22 letters, digits, `_` or `-` (public "
        "`pk.` tokens are not secrets)",
        r"(?-i:sk\.eyJ[A-Za-z0-9_\-]{20,200}\.[A-Za-z0-9_\-]{22})",
        _BOUNDED + "; the middle part decodes to a JSON object",
        1.0,
        (
            "sk.eyJ1IjoiYWNtZS1tYXBzIiwiYSI6ImNsYWt1eTBidGhicnpxdnQzcGcwaGQ3enQifQ.3FxH-h"
            "3nvxQ1Vh5tx0T9wG"
        ),
        "tokens",
        ("sk.eyJ",),
        check=_base64_json(3, url_safe=True, cut="."),
    ),
    # --- code hosting ---------------------------------------------------------------------------
    SecretFormat(
        "github-token",
        "code hosting",
        "`ghp_`, `gho_`, `ghu_`, `ghs_` or `ghr_` and 36+ letters or digits",
        r"(?-i:gh[pousr]_[A-Za-z0-9]{36,})",
        _BOUNDED,
        1.0,
        "ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u",
        "tokens",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    SecretFormat(
        "github-fine-grained-token",
        "code hosting",
        "`github_pat_` and 22+ letters, digits or `_`",
        r"(?-i:github_pat_[A-Za-z0-9_]{22,})",
        _BOUNDED,
        1.0,
        "github_pat_11AB3CD5E0kq7Rz2Xw9Lm4_Tn8Vb1Hc6Jd0Pf3Sg5Ya7Ue2Wi9Qo4Kr6Mt1Nx8Bv3Cz5Dl7Fh0Gj2",
        "tokens",
        ("github_pat_",),
    ),
    SecretFormat(
        "gitlab-token",
        "code hosting",
        "a GitLab token prefix (`glpat-`, `gldt-`, `glptt-`, `glrt-`, `glrtr-`, `glagent-`, "
        "`glft-`, `gloas-`, `glcbt-`, `glimt-`, `glsoat-`, `glffct-`) and 20+ letters, digits, "
        "`_`, `-` or `.`",
        r"(?-i:gl(?:pat|dt|ptt|rtr|rt|agent|ft|oas|cbt|imt|soat|ffct)-[A-Za-z0-9_\-]"
        r"(?:[A-Za-z0-9_\-]|\.[A-Za-z0-9_\-]){19,})",
        _BOUNDED,
        1.0,
        "glpat-Xq3vR8mZ2kT7wL9bN4cY",
        "tokens",
        tuple(
            f"gl{kind}-"
            for kind in (
                "pat",
                "dt",
                "ptt",
                "rtr",
                "rt",
                "agent",
                "ft",
                "oas",
                "cbt",
                "imt",
                "soat",
                "ffct",
            )
        ),
    ),
    SecretFormat(
        "gitlab-runner-registration-token",
        "code hosting",
        "`GR1348941` and 20+ letters, digits, `_` or `-` (legacy runner registration)",
        r"(?-i:GR1348941[A-Za-z0-9_\-]{20,})",
        _BOUNDED,
        1.0,
        "GR1348941zK7pQ2xW9mV4bT6nR3cL",
        "tokens",
        ("GR1348941",),
    ),
    SecretFormat(
        "bitbucket-app-password",
        "code hosting",
        "`ATBB` and 32 to 48 letters, digits, `_`, `-` or `=`",
        r"(?-i:ATBB[A-Za-z0-9_\-=]{32,48})",
        _BOUNDED,
        1.0,
        "ATBBZY4FDXtAiEfd5qhlCEKd7WsQwRCj773D",
        "tokens",
        ("ATBB",),
    ),
    SecretFormat(
        "buildkite-token",
        "code hosting",
        "`bkua_` and 40 lower-case hex digits",
        r"(?-i:bkua_[a-f0-9]{40})",
        _BOUNDED,
        1.0,
        "bkua_11549ea52bc8b24345102bedb84986941ae62c4b",
        "tokens",
        ("bkua_",),
    ),
    SecretFormat(
        "circleci-token",
        "code hosting",
        "`CCIPAT_` (personal) or `CCIPRJ_` (project), 22 letters or digits, `_` and 40 hex digits",
        r"(?-i:CCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40})",
        _BOUNDED,
        1.0,
        "CCIPAT_TSMyEB6pF0b5FnA17uAq2K_88e13d71112fe163ae24ca1f4e2466e0a151ba1a",
        "tokens",
        ("CCIPAT_", "CCIPRJ_"),
    ),
    # --- chat -----------------------------------------------------------------------------------
    SecretFormat(
        "slack-token",
        "chat",
        "`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-` or `xoxs-` and 10+ letters, digits or `-`",
        r"(?-i:xox[bpars]-[0-9A-Za-z\-]{10,})",
        _BOUNDED,
        1.0,
        "xoxb-2468013579-1357924680-Zk8Qw3Rt6Yp1",
        "tokens",
        ("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"),
    ),
    SecretFormat(
        "slack-config-token",
        "chat",
        "`xoxe.xoxp-` or `xoxe.xoxb-`, a digit and 10+ letters, digits or `-` (rotating "
        "configuration token)",
        r"(?-i:xoxe\.xox[bp]-[0-9]-[0-9A-Za-z\-]{10,})",
        _BOUNDED,
        1.0,
        "xoxe.xoxp-1-Mi0yLTI0NjgwMTM1NzktOTg3NjU0MzIx",
        "tokens",
        ("xoxe.xoxp-", "xoxe.xoxb-"),
    ),
    SecretFormat(
        "slack-refresh-token",
        "chat",
        "`xoxe-`, a digit and 10+ letters, digits or `-`",
        r"(?-i:xoxe-[0-9]-[0-9A-Za-z\-]{10,})",
        _BOUNDED,
        1.0,
        "xoxe-1-My0xLTI0NjgwMTM1NzktNzY1NDMyMTA",
        "tokens",
        ("xoxe-",),
    ),
    SecretFormat(
        "slack-app-token",
        "chat",
        "`xapp-`, a digit, `-` and 10+ letters, digits or `-`",
        r"(?-i:xapp-[0-9]-[0-9A-Za-z\-]{10,})",
        _BOUNDED,
        1.0,
        "xapp-1-A0246813579-8642097531-c3f9a1e7b5d2",
        "tokens",
        ("xapp-",),
    ),
    SecretFormat(
        "slack-webhook-url",
        "chat",
        "`https://hooks.slack.com/services/T.../B.../...`: the whole URL",
        r"(?-i:(?:https?://)?hooks\.slack\.com/services/T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}"
        r"/[A-Za-z0-9]{16,48})",
        _BOUNDED,
        1.0,
        "https://hooks.slack.com/services/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",
        "tokens",
        ("https://hooks.slack.com/", "http://hooks.slack.com/", "hooks.slack.com/"),
    ),
    SecretFormat(
        "discord-bot-token",
        "chat",
        "the bot's id in base64, `.`, 6 characters, `.`, 27 to 40 characters",
        # the id's first digit in base64: 1-3 give M?, 4-7 N?, 8-9 O?
        r"(?-i:(?:M[Tjz]|N[DTjz]|O[DT])[A-Za-z0-9_\-]{22,26}\.[A-Za-z0-9_\-]{6}"
        r"\.[A-Za-z0-9_\-]{27,40})",
        _BOUNDED + "; the first part decodes to a numeric id",
        1.0,
        "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GkXq2v.Rz8mT4wL1bN7cY3pJ6hF0dS9gA5eK2uQw",
        "tokens",
        check=_discord,
    ),
    SecretFormat(
        "telegram-bot-token",
        "chat",
        "the bot's id (8 to 10 digits), `:AA` and 33 letters, digits, `_` or `-`",
        r"(?-i:[0-9]{8,10}:AA[A-Za-z0-9_\-]{33})",
        _BOUNDED,
        1.0,
        "5829136470:AAF3kR8mQ2xW7vL1bN4cY9pJ6hT0dS5gZ3e",
        "tokens",
    ),
    SecretFormat(
        "twilio-api-key",
        "chat",
        "`SK` and 32 lower-case hex digits",
        r"(?-i:SK[0-9a-f]{32})",
        _BOUNDED + " (a short prefix: weaker)",
        0.9,
        "SK3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e",
        "tokens",
        ("SK",),
    ),
    SecretFormat(
        "sendgrid-api-key",
        "chat",
        "`SG.`, 22 characters, `.`, 43 characters",
        r"(?-i:SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("SG.",),
    ),
    SecretFormat(
        "mailgun-api-key",
        "chat",
        "`key-` and 32 lower-case hex digits",
        r"(?-i:key-[0-9a-f]{32})",
        _BOUNDED + " (a short prefix: weaker)",
        0.9,
        "key-7c2e9a4f1b8d3e6a0c5f2b9d4e7a1c3f",
        "tokens",
        ("key-",),
    ),
    SecretFormat(
        "discord-webhook-url",
        "chat",
        "`https://discord.com/api/webhooks/`, the webhook's id (17 to 20 digits), `/` and its "
        "token (60 to 80 letters, digits, `_` or `-`): the whole URL",
        r"(?-i:(?:https?://)?(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v[0-9]{1,2}/)?"
        r"webhooks/[0-9]{17,20}/[A-Za-z0-9_\-]{60,80})",
        _BOUNDED,
        1.0,
        (
            "https://discord.com/api/webhooks/6457663181241020651/wPYiIZjkfsbG4GDjM7rZ1Qx"
            "yHSgHiK_mESS2X6A79xWM8Gta7B5tGLR-dyk0p6P7JCfH"
        ),
        "tokens",
        tuple(
            f"{scheme}{host}/api/"
            for scheme in ("https://", "http://", "")
            for host in ("discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com")
        ),
    ),
    SecretFormat(
        "teams-webhook-url",
        "chat",
        "a Microsoft Teams incoming webhook, `https://<tenant>.webhook.office.com/webhookb2/"
        "<id>@<id>/IncomingWebhook/<32 hex digits>/<id>` and an optional `/V2...` part, or the "
        "older `https://outlook.office.com/webhook/...`: the whole URL",
        r"(?-i:https://(?:[a-z0-9\-]{1,63}\.webhook\.office\.com/webhookb2"
        r"|outlook\.office(?:365)?\.com/webhook)/"
        + _GUID
        + "@"
        + _GUID
        + r"/IncomingWebhook/[a-f0-9]{32}/"
        + _GUID
        + r"(?:/V2[A-Za-z0-9_\-]{20,120})?)",
        _BOUNDED,
        1.0,
        (
            "https://acmecorp.webhook.office.com/webhookb2/5a836725-3f47-d17d-0255-3bfe38"
            "96d5d5@f5917fad-0f71-6dad-44e0-2e262ca81e39/IncomingWebhook/386e2a84f10e1ee6"
            "4b119ca7ad17e17c/b6762cfe-84b9-f85d-111d-1fd8af8a34a4/V2VKCdU2w3quDsPKGrZeuE"
            "UVUs-axZ_Hb-8HSE6Ehx9MT"
        ),
        "tokens",
    ),
    SecretFormat(
        "mailchimp-api-key",
        "chat",
        "32 lower-case hex digits, `-us` and the data centre's number",
        r"(?-i:\b[a-f0-9]+-us[0-9]{1,2})",  # a run from a word's start: see Terraform's tokens
        _BOUNDED + "; 32 hex digits before `-us` (no prefix, only the `-us` suffix: weaker)",
        0.9,
        "adeda90e816c1f5fa72cc62df6d1e819-us18",
        "tokens",
        check=_run_before("-us", 32),
    ),
    # --- payment --------------------------------------------------------------------------------
    SecretFormat(
        "stripe-secret-key",
        "payment",
        "`sk_` (secret) or `rk_` (restricted), `live_`, `test_` or `prod_`, and 16+ letters "
        "or digits",
        r"(?-i:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,})",
        _BOUNDED,
        1.0,
        "sk_live_51Hq2xKz7RmT4wL9bN3cY8pJ",
        "tokens",
        tuple(f"{kind}_{mode}_" for kind in ("sk", "rk") for mode in ("live", "test", "prod")),
    ),
    SecretFormat(
        "stripe-webhook-secret",
        "payment",
        "`whsec_` and 24+ letters or digits",
        r"(?-i:whsec_[A-Za-z0-9]{24,})",
        _BOUNDED,
        1.0,
        "whsec_Qz8mT3wL6bN1cY4pJ7hF0dS2gA5eK9u",
        "tokens",
        ("whsec_",),
    ),
    SecretFormat(
        "square-token",
        "payment",
        "`sq0atp-` or `sq0csp-` and 22+ characters, or `EAAA` and 60 characters",
        r"(?-i:sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,60}|EAAA[A-Za-z0-9_\-]{60})",
        _BOUNDED,
        1.0,
        "sq0atp-Rk7Qx2mT9wL4bN1cY8pJ5h",
        "tokens",
        ("sq0atp-", "sq0csp-", "EAAA"),
    ),
    SecretFormat(
        "shopify-token",
        "payment",
        "`shpat_`, `shpca_`, `shppa_` or `shpss_` and 32 hex digits",
        r"(?-i:shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    # --- observability --------------------------------------------------------------------------
    SecretFormat(
        "grafana-cloud-token",
        "observability",
        "`glc_` and a base64 JSON object (`eyJ...`, 32 to 300 characters)",
        r"(?-i:glc_eyJ[A-Za-z0-9+/]{29,300}={0,2})",
        _BOUNDED + "; decodes to a JSON object",
        1.0,
        (
            "glc_eyJvIjoiNzUwMDY1IiwibiI6InN0YWNrLTgwMTI4NC1obS13cml0ZS1jaSIsImsiOiJ3RTFo"
            "bXBYQUNmNkZ2c2FnY0RvVWpMYXUiLCJtIjp7InIiOiJwcm9kLWV1LXdlc3QtMiJ9fQ=="
        ),
        "tokens",
        ("glc_",),
        check=_base64_json(4, url_safe=False),
    ),
    SecretFormat(
        "grafana-service-account-token",
        "observability",
        "`glsa_`, 32 letters or digits, `_` and 8 hex digits",
        r"(?-i:glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8})",
        _BOUNDED,
        1.0,
        "glsa_yE4hg8CnKhGJChxe1Dpw8bUVwwLcXr4z_58388828",
        "tokens",
        ("glsa_",),
    ),
    SecretFormat(
        "new-relic-key",
        "observability",
        "`NRAK-` and 27 upper-case letters or digits (user key), or `NRII-` and 32 letters, "
        "digits, `_` or `-` (insert key); browser keys (`NRJS-`) are public",
        r"(?-i:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_\-]{32})",
        _BOUNDED,
        1.0,
        "NRAK-Y2G9D9RJ62WZMYITLTFH59K6P6P",
        "tokens",
        ("NRAK-", "NRII-"),
    ),
    SecretFormat(
        "sentry-org-token",
        "observability",
        "`sntrys_`, a base64 JSON object (`eyJ...`), `_` and 43 base64 characters",
        r"(?-i:sntrys_eyJ[A-Za-z0-9+/]{20,300}={0,2}_[A-Za-z0-9+/]{43})",
        _BOUNDED + "; the middle part decodes to a JSON object",
        1.0,
        (
            "sntrys_eyJpYXQiOjE3NDMyMTQzNjIsInVybCI6Imh0dHBzOi8vc2VudHJ5LmlvIiwicmVnaW9uX"
            "3VybCI6Imh0dHBzOi8vdXMuc2VudHJ5LmlvIiwib3JnIjoiYWNtZS1yb2JvdGljcyJ9_lWGxeT4F"
            "FKa/SN+Ti459pwJLz+sPTZQpH8R8YatoONi"
        ),
        "tokens",
        ("sntrys_",),
        check=_base64_json(7, url_safe=False, cut="_"),
    ),
    SecretFormat(
        "sentry-user-token",
        "observability",
        "`sntryu_` and 64 lower-case hex digits",
        r"(?-i:sntryu_[a-f0-9]{64})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("sntryu_",),
    ),
    # --- productivity ---------------------------------------------------------------------------
    SecretFormat(
        "atlassian-api-token",
        "productivity",
        "`ATATT3` and 186 letters, digits, `_`, `-` or `=` (Jira, Confluence)",
        r"(?-i:ATATT3[A-Za-z0-9_\-=]{186})",
        _BOUNDED,
        1.0,
        (
            "ATATT33M2D92pZrL_swkKLy3IcGLCYy-Or2hTB1HMHSr_3KcHIGyiHGe4GtFk1LATtA61StH14jD"
            "f3vDDboKgGgCPW4K4xweDQ2Uo0IKyo72HElSTHjc2XWrBcnIzsgg0fpjoSU_n41AEs3sahuhqXX_"
            "lhgoDV7IkIDKA0IFWrOybl27klTjFC9=B2A1F9B6"
        ),
        "tokens",
        ("ATATT3",),
    ),
    SecretFormat(
        "linear-api-key",
        "productivity",
        "`lin_api_` and 40 letters or digits",
        r"(?-i:lin_api_[A-Za-z0-9]{40})",
        _BOUNDED,
        1.0,
        "lin_api_zlfMbmh0UFJS6Y1oPKSfkMBrW9410zEhNk0mZPNM",
        "tokens",
        ("lin_api_",),
    ),
    SecretFormat(
        "notion-token",
        "productivity",
        "`ntn_`, 11 digits and 35 letters or digits",
        r"(?-i:ntn_[0-9]{11}[A-Za-z0-9]{35})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("ntn_",),
    ),
    SecretFormat(
        "notion-legacy-token",
        "productivity",
        "`secret_` and 43 letters or digits (integration tokens made before `ntn_`)",
        r"(?-i:secret_[A-Za-z0-9]{43})",
        _BOUNDED
        + "; not a camelCase or snake_case word after the prefix (a common word as prefix: "
        "weaker)",
        0.9,
        "secret_xxZRZ0DgEnMNtWaRPUM0qaCiPfbP3KZc17wDCBHO0OS",
        "tokens",
        ("secret_",),
        check=_not_words(7),
    ),
    SecretFormat(
        "airtable-token",
        "productivity",
        "`pat`, 14 letters or digits, `.` and 64 lower-case hex digits",
        r"(?-i:pat[A-Za-z0-9]{14}\.[a-f0-9]{64})",
        _BOUNDED,
        1.0,
        ("pat9yDlXbNVjPnBso.716c78b092ae84c585bc7fa0c58e3985bcaf33562e7a107da5dc5032a6500f82"),
        "tokens",
        ("pat",),
    ),
    SecretFormat(
        "figma-token",
        "productivity",
        "`figd_` and 36 to 48 letters, digits, `_` or `-`",
        r"(?-i:figd_[A-Za-z0-9_\-]{36,48})",
        _BOUNDED,
        1.0,
        "figd_T3Yd2Wl3xB35lFq6e-hpgxx46jD_wCPB1vIXo44A",
        "tokens",
        ("figd_",),
    ),
    SecretFormat(
        "postman-api-key",
        "productivity",
        "`PMAK-`, 24 hex digits, `-` and 34 hex digits",
        r"(?-i:PMAK-[a-f0-9]{24}-[a-f0-9]{34})",
        _BOUNDED,
        1.0,
        "PMAK-1d1dd2277166a1c52207f870-36b91fde72c22136b49a557f16507bf9d2",
        "tokens",
        ("PMAK-",),
    ),
    SecretFormat(
        "dropbox-token",
        "productivity",
        "`sl.` (or `sl.u.`) and 130+ letters, digits, `_` or `-` (short-lived access token; a "
        "shorter `sl.` is not one)",
        r"(?-i:sl\.(?:u\.)?[A-Za-z0-9_\-]{130,})",
        _BOUNDED + " (a short prefix, however long the token: weaker)",
        0.9,
        (
            "sl.NTceR-HqYcWnu1DBd5_m-Ya9JI_J2DEJUYWNlrhPimlHL0ToN6ByaTjw5jWesPQ50cleCiig5"
            "7PV7RIRurLz0QiTBlMmwzYCZaQd0fdAb3x0XwJ1QmJuTkhyCZ400x-66uOQMyjm"
        ),
        "tokens",
        ("sl.",),
    ),
    # --- package registries ---------------------------------------------------------------------
    SecretFormat(
        "npm-token",
        "package registry",
        "`npm_` and 36 letters or digits",
        r"(?-i:npm_[A-Za-z0-9]{36})",
        _BOUNDED,
        1.0,
        "npm_Wq4Zt8Kx2Rm7Vb1Ln5Pc9Hj3Fd6Sg0Ya2Eu7",
        "tokens",
        ("npm_",),
    ),
    SecretFormat(
        "pypi-token",
        "package registry",
        "`pypi-AgEIcHlwaS5vcmc` (pypi.org) or `pypi-AgENdGVzdC5weXBpLm9yZw` (test.pypi.org) and "
        "50+ base64url characters",
        r"(?-i:pypi-Ag(?:EIcHlwaS5vcmc|ENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{50,})",
        _BOUNDED,
        1.0,
        "pypi-AgEIcHlwaS5vcmcCJGE3ZjJkOWI0LTVjOGUtNDFhMy05YjJlLTZkNGY4YTFjM2U3YgACKlsz",
        "tokens",
        ("pypi-Ag",),
    ),
    SecretFormat(
        "rubygems-api-key",
        "package registry",
        "`rubygems_` and 48 hex digits",
        r"(?-i:rubygems_[a-f0-9]{48})",
        _BOUNDED,
        1.0,
        "rubygems_9c2e5b8d1f4a7c0e3b6d9f2a5c8e1b4d7f0a3c6e9b2d5f8a",
        "tokens",
        ("rubygems_",),
    ),
    SecretFormat(
        "nuget-api-key",
        "package registry",
        "`oy2` and 43 lower-case letters or digits",
        r"(?-i:oy2[a-z0-9]{43})",
        _BOUNDED + " (a short prefix: weaker)",
        0.9,
        "oy2k7qx2m9tw4lb1nc8yp5jh3fd6sg0za2eu7vr4kq1x9m",
        "tokens",
        ("oy2",),
    ),
    SecretFormat(
        "docker-hub-token",
        "package registry",
        "`dckr_pat_` and 27+ letters, digits, `_` or `-`",
        r"(?-i:dckr_pat_[A-Za-z0-9_\-]{27,60})",
        _BOUNDED,
        1.0,
        "dckr_pat_Xq7mR2kT9wL4bN1cY8pJ5hF3dS6",
        "tokens",
        ("dckr_pat_",),
    ),
    SecretFormat(
        "crates-io-token",
        "package registry",
        "`cio` and 32 letters or digits",
        r"(?-i:cio[A-Za-z0-9]{32})",
        _BOUNDED + " (a short prefix: weaker)",
        0.9,
        "cioRk7Qx2mT9wL4bN1cY8pJ5hF3dS6gZ0eA",
        "tokens",
        ("cio",),
    ),
    # --- AI providers (Anthropic before OpenAI's prefixes, which share sk-) ----------------
    SecretFormat(
        "anthropic-api-key",
        "AI provider",
        "`sk-ant-` and 20+ letters, digits, `_` or `-`",
        r"(?-i:sk-ant-[A-Za-z0-9_\-]{20,})",
        _BOUNDED,
        1.0,
        "sk-ant-api03-Zq8mT3wL6bN1cY4pJ7hF0dS2gA5eK9uRx",
        "tokens",
        ("sk-ant-",),
    ),
    SecretFormat(
        "openai-api-key",
        "AI provider",
        "`sk-proj-`, `sk-svcacct-` or `sk-admin-` and 20+ letters, digits, `_` or `-`; or "
        "`sk-` and 20+ letters or digits",
        r"(?-i:sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9]{20,})",
        _BOUNDED,
        1.0,
        "sk-proj-Hx4Zt8Kq2Rm7Vb1Ln5Pc9Jw3Fd6Sg0Ya",
        "tokens",
        ("sk-",),
    ),
    SecretFormat(
        "huggingface-token",
        "AI provider",
        "`hf_` and 34 to 40 letters or digits",
        r"(?-i:hf_[A-Za-z0-9]{34,40})",
        _BOUNDED,
        1.0,
        "hf_Rk7QxTmZwLbNcYpJhFdSgAeKuVqMrTwLbN",
        "tokens",
        ("hf_",),
    ),
    SecretFormat(
        "groq-api-key",
        "AI provider",
        "`gsk_` and 52 letters or digits",
        r"(?-i:gsk_[A-Za-z0-9]{52})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("gsk_",),
    ),
    SecretFormat(
        "replicate-token",
        "AI provider",
        "`r8_` and 37 letters or digits",
        r"(?-i:r8_[A-Za-z0-9]{37})",
        _BOUNDED + " (a short prefix: weaker)",
        0.9,
        "r8_ywB97znDlfj8rZHGnBENGPS1CUFM1vswJVq1P",
        "tokens",
        ("r8_",),
    ),
    SecretFormat(
        "perplexity-api-key",
        "AI provider",
        "`pplx-` and 48 letters or digits",
        r"(?-i:pplx-[A-Za-z0-9]{48})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("pplx-",),
    ),
    SecretFormat(
        "xai-api-key",
        "AI provider",
        "`xai-` and 80 letters or digits",
        r"(?-i:xai-[A-Za-z0-9]{80})",
        _BOUNDED,
        1.0,
        ("xai-AEZQSijUkQowbKQ0pcSAeK9BSQZqYxrvPepnrHLSZQcIzLbirXDc30pHHdpl7RvZfMn8xPpCXtOypr12"),
        "tokens",
        ("xai-",),
    ),
    SecretFormat(
        "langsmith-api-key",
        "AI provider",
        "`lsv2_pt_` (personal) or `lsv2_sk_` (service), 32 hex digits, `_` and 10 hex digits",
        r"(?-i:lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})",
        _BOUNDED,
        1.0,
        "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",
        "tokens",
        ("lsv2_pt_", "lsv2_sk_"),
    ),
    # --- tokens ---------------------------------------------------------------------------------
    SecretFormat(
        "jwt",
        "token",
        "three base64url parts separated by `.`, the first two starting `eyJ` (JSON); the "
        "third, the signature, may be empty (`alg: none`)",
        r"(?-i:eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.(?:[A-Za-z0-9_\-]{8,})?)",
        _BOUNDED + "; header and payload decode to JSON objects, the header has `alg`",
        1.0,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLW5vdC1yZWFsLXZhbHVl",
        "tokens",
        ("eyJ",),
        check=_jwt,
    ),
    # --- assignments (a key name tells what the value is) ---------------------------------------
    SecretFormat(
        "aws-secret-access-key",
        "cloud",
        "40 base64 characters assigned to `aws_secret_access_key`, `SecretAccessKey` or similar",
        r"[A-Za-z0-9/+]{40}",
        "the key's name; the value's length and alphabet",
        1.0,
        'aws_secret_access_key = "q8Zt3Kx7Rm2Vb9Ln4Pc1Hj6Fd0Sg5Ya8Eu2Wi/3k"',
        "assignments",
        key=r"(?:aws)?_?secret_?(?:access_?)?key(?:_?id)?",
    ),
    SecretFormat(
        "azure-storage-account-key",
        "cloud",
        "88 base64 characters assigned to `AccountKey` (a storage connection string)",
        r"[A-Za-z0-9/+]{86}==",
        "the key's name; the value decodes to 64 bytes",
        1.0,
        "AccountKey=" + "Zq8mT3wL6bN1cY4pJ7hF0dS2gA5eK9uRx" * 2 + "Wq4Zt8Kx2Rm7Vb1Ln5Pc==",
        "assignments",
        check=_base64_bytes(64),
        key=r"account_?key",
    ),
    SecretFormat(
        "url-credentials",
        "generic",
        "the password of `scheme://user:password@host`",
        r"[^\s/?#@]{1,256}",
        "the value looks like a secret (see below)",
        GENERIC_CONFIDENCE,
        "postgres://app:Vq7xK2mR9tLw@db.internal:5432/orders",
        "assignments",
    ),
    SecretFormat(
        "generic-assignment",
        "generic",
        "a value assigned to a key whose name contains `password`, `passwd`, `pwd`, "
        "`passphrase`, `secret`, `token`, `api key`, `access key` or `credential`",
        r"[^\s]+|\"[^\"]*\"|'[^']*'",
        "the key's name; the value looks like a secret (see below)",
        GENERIC_CONFIDENCE,
        "DB_PASSWORD=Tz4!qW9#mK2x",
        "assignments",
    ),
)


# --- known examples and placeholders ----------------------------------------------------------

KNOWN_EXAMPLES: frozenset[str] = frozenset(
    {
        # AWS documentation's access key ids and secret keys
        "AKIAIOSFODNN7EXAMPLE",
        "AKIAI44QH8DHBEXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        # Stripe's documentation test key
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        # HashiCorp Vault's dev-server tutorial root token
        "hvs.6j4cuewowBGit65rheNoceI7",
        # Databricks' documentation personal access token
        "dapi1234567890ab1cde2f3ab456c7d89efa",
        # Telegram's documentation token
        "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        # jwt.io's sample token
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)
"""Published example values, not reported while ``settings.secret_known_examples`` is on."""

_EXAMPLE_MARKERS = re.compile(
    r"example|sample|dummy|placeholder|redacted|notreal|(?<![a-z])your[-_ ]?(?![a-z])", re.I
)
"""A value holding one of these words is an example, not a secret (with known examples on)."""
_FILLER_RUN = re.compile(r"x{8}|X{8}|\*{8}|0{8}|#{8}|\.{8}")
"""A token holding a run of eight of one of these characters is a placeholder (``ghp_xxxx...``,
``sk_live_0000...``): a run that long is next to impossible in a random token."""


def _is_known_example(value: str, fmt: SecretFormat, options: SecretOptions) -> bool:
    if value in options.allowlist:
        return True
    if not options.known_examples:
        return False
    if value in KNOWN_EXAMPLES or _EXAMPLE_MARKERS.search(value):
        return True
    return _FILLER_RUN.search(value) is not None


# --- generic values ---------------------------------------------------------------------------

# Chosen on the labelled set of tests/detection/secret_cases.py (docs/detection.md, "Generic
# assignments", says how).
MIN_SECRET_LENGTH = 8
"""A shorter value assigned to a secret-named key is not reported."""
MIN_URL_PASSWORD_LENGTH = 6
"""The password of a URL is a password by its place: a shorter length is enough."""
MIN_ENTROPY_BITS = 2.5
"""Least Shannon entropy per character of a reported value."""
ONE_CLASS_MIN_LENGTH = 16
"""A value of one character class (only lower-case letters, say) needs this length."""
ONE_CLASS_MIN_ENTROPY_BITS = 3.0

_PLACEHOLDER_VALUE = re.compile(
    r"(?:change[_\-. ]?(?:me|it)|replace[_\-. ]?me|password|passwd|pass|secret|token|"
    r"api[_\-. ]?key|key|none|null|nil|true|false|yes|no|on|off|undefined|required|optional|"
    r"string|str|bool|int|hidden|masked|empty|todo|tbd|fixme|n/?a|test|default|"
    r"bearer|basic|ask|prompt|unset|secret[_\-. ]?here|token[_\-. ]?here|"
    r"0?1234(?:5(?:6(?:7(?:8(?:90?)?)?)?)?)?)",
    re.I,
)
_PLACEHOLDER_PART = re.compile(
    r"(?:^|[^a-z])your[_\-. ]?|_here\b|-here\b|xxx|\.\.\.|example|placeholder|dummy|sample|"
    r"redacted|changeme|change_me|replace_?me|insert[_\-. ]|^<.*>$|^\[.*\]$|^\(.*\)$",
    re.I,
)
_REFERENCE = re.compile(
    r"\$\{|\$\(|^\$[A-Za-z_]|\{\{|\{%|%\(\w+\)s|^%s$|<%|#\{|os\.environ|environ\.get|"
    r"process\.env|getenv\s*\(|ENV\[|\benv\(|\bsecrets\.[A-Za-z_]|^vault:|^!(?:Ref|Sub)\b|"
    r"^@Microsoft\.KeyVault|^ref\+|^arn:aws:secretsmanager",
    re.I,
)
_CODE_REFERENCE = re.compile(r"[A-Za-z_][\w.]*\(.*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
"""An unquoted value that is an attribute or a call in code: ``self.password``, ``get()``."""
_NEXT_PARAMETER = re.compile(r"&(?:amp;)?[A-Za-z0-9_.\-\[\]]+=")
_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)*")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.\-]+(?:/[\w.\-]+)+/?|[A-Za-z]:\\.*")
"""A file path of two or more parts (one part, ``/2xK...``, may start a base64 secret)."""
_MASK = frozenset("*•●xX#.-_ ")


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character of the value's character distribution."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _classes(value: str) -> int:
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    other = any(not c.isalnum() for c in value)
    return lower + upper + digit + other


def looks_like_secret(value: str, *, password: bool, quoted: bool, url: bool = False) -> bool:
    """Whether ``value``, assigned to a secret-named key, looks like a secret.

    Args:
        value: the value, without its quotes.
        password: the key names a password (a plain number may be one).
        quoted: the value was quoted (an unquoted attribute or call is code, not a value).
        url: the value is the password of a URL (a shorter one counts).
    """
    if len(value) < (MIN_URL_PASSWORD_LENGTH if url else MIN_SECRET_LENGTH):
        return False
    if set(value) <= _MASK or len(set(value)) == 1:
        return False  # a mask: "********", "xxxxxxxx"
    if _PLACEHOLDER_VALUE.fullmatch(value) or _PLACEHOLDER_PART.search(value):
        return False
    if _REFERENCE.search(value):
        return False  # ${VAR}, $VAR, {{ var }}, os.environ[...], getenv(...)
    if not quoted and _CODE_REFERENCE.fullmatch(value):
        return False
    if _NUMBER.fullmatch(value):
        if not password:
            return False  # max_tokens: 2048
        return _entropy(value) >= MIN_ENTROPY_BITS  # a PIN-like password: 84629175
    if not url and (_URL.match(value) or _PATH.fullmatch(value)):
        return False  # password_reset_url: https://..., password_file: /run/secrets/db
    entropy = _entropy(value)
    if entropy < MIN_ENTROPY_BITS:
        return False
    if _classes(value) == 1:
        return len(value) >= ONE_CLASS_MIN_LENGTH and entropy >= ONE_CLASS_MIN_ENTROPY_BITS
    return True


# Words of a key's name that make it name something other than the secret itself.
_NOT_THE_SECRET = frozenset(
    "url uri urls endpoint file path dir name type count length len size limit ref env var "
    "policy expiry expires expiration ttl timeout header prompt hint field label required "
    "enabled min max format id ids reset link mode manager version rotation store age "
    "question questions strength confirm confirmation user username login".split()
)
# Continuations of a secret word that make another word: tokenizer, secretary, passwordless.
_OTHER_WORD = re.compile(r"(?:token|secret|password)(?:i[sz]|ar[iy]|less)", re.I)
_CAMEL = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# "Password" in the languages people write configuration and chat in: a password under any of
# these names is a password.
_TRANSLATED_KEY_WORDS = (
    "passwort|kennwort|mot[_\\-. ]?de[_\\-. ]?passe|contrase[nñ]a|senha|wachtwoord|has[lł]o"
    "|l[oö]senord|salasana|adgangskode|passord|[sş]ifre|пароль|パスワード|密码|密碼|비밀번호"
    "|סיסמה|كلمة[_ ]المرور"
)
_PASSWORD_KEY = re.compile(f"pass|pwd|identified|{_TRANSLATED_KEY_WORDS}", re.I)


def _secret_key(key: str) -> bool:
    """Whether a key's name says its value is a secret."""
    if _OTHER_WORD.search(key):
        return False
    words = [w.lower() for part in re.split(r"[^A-Za-z0-9]+", key) for w in _CAMEL.findall(part)]
    return not any(word in _NOT_THE_SECRET for word in words)


# --- group patterns -------------------------------------------------------------------------


def _look_alike_letters(pattern: str) -> str:
    """``pattern`` with each ASCII letter outside a character class also matching the letters
    of other scripts that look like it (UTS 39 confusables): a key written ``раssword`` with
    Cyrillic ``р`` and ``а`` is still a password's key."""
    pieces: list[str] = []
    in_class = escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char.isascii() and char.isalpha() and not in_class:
            others = look_alikes(char.lower())
            if others:
                pieces.append(f"[{char}{others}]")
                continue
        pieces.append(char)
    return "".join(pieces)


_KEYWORD = (
    "(?:"
    + _look_alike_letters(
        r"pass(?:word|wd|phrase)|pwd|secret|token|api[_\-. ]?key|access[_\-. ]?key"
        r"|account[_\-. ]?key|credential"
    )
    + "|"
    + _TRANSLATED_KEY_WORDS
    + ")"
)
# Unbounded repeats, not counted ones: counted repeats multiply the states of the scanner's
# RE2 set, which every text goes through.
_KEY_TAIL = r"[A-Za-z0-9_.\-]*"
# At most 7 spaces or tabs around a separator: a blanked-out match (the scanner looks again
# around a match with the match blanked, govcore/detection/scanner.py) is at least 8 long, and
# the value after it must not be taken for this key's.
_SEPARATOR = r"[ \t]{0,7}(?::=|=>|=|:)[ \t]{0,7}"
_VALUE = (
    r"(?:\\?\"(?P<dq>(?:[^\"\\\r\n]|\\[^\"\r\n])*)\\?\"|'(?P<sq>[^'\r\n]*)'|`(?P<bq>[^`\r\n]*)`"
    r"|(?P<bare>[^\s\"'`,;<>\\]+))"
)
_QUOTED = r"(?:\"(?P<{0}dq>[^\"\r\n]*)\"|'(?P<{0}sq>[^'\r\n]*)')"
_ASSIGNMENT = (
    rf"(?P<cli>--[A-Za-z0-9_\-]*{_KEYWORD}{_KEY_TAIL}[ \t]{{1,7}})"
    r"(?:\"(?P<cdq>[^\"\r\n]*)\"|'(?P<csq>[^'\r\n]*)'|(?P<cv>[^\s\"'`,;<>\\-][^\s\"'`,;<>\\]*))"
    # In the next field of a JSON object ({"name": "DB_PASSWORD", "value": "..."}).
    rf"|(?P<jkey>{_KEYWORD}{_KEY_TAIL})[\"'][ \t]*,[ \t]*[\"']value[\"'][ \t]*:[ \t]*"
    + _QUOTED.format("j")
    # A call or a pair of quoted strings: setdefault("API_SECRET", "..."), ("password", '...').
    + rf"|(?P<pkey>{_KEYWORD}{_KEY_TAIL})[\"'][ \t]{{0,7}},[ \t]{{0,7}}"
    r"(?:\"(?P<pdq>[^\"\r\n]*)\"|'(?P<psq>[^'\r\n]*)')"
    rf"|(?P<key>{_KEYWORD}{_KEY_TAIL})\\?[\"'`)\]]?{_SEPARATOR}{_VALUE}"
    # Prose, as a model's answer is written ("the wifi password is ..."): an unquoted value
    # must hold a digit or a sign, so that ordinary sentences ("the token was revoked") are
    # not candidates at all.
    + rf"|(?P<skey>{_KEYWORD}{_KEY_TAIL})[ \t]{{1,7}}(?:is|was)[ \t]{{1,7}}"
    + r"(?:\"(?P<sdq>[^\"\r\n]*)\"|'(?P<ssq>[^'\r\n]*)'"
    + r"|(?P<sbare>[^\s\"'`,;<>\\]*[0-9!#$%&*+/=?@^_~\-][^\s\"'`,;<>\\]*))"
    # A name and its value on the next line (a Kubernetes env entry: "- name: DB_PASSWORD",
    # then "value: ...").
    rf"|(?P<nkey>{_KEYWORD}{_KEY_TAIL})[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*"
    r"(?:\"(?P<ndq>[^\"\r\n]*)\"|'(?P<nsq>[^'\r\n]*)'|(?P<nbare>[^\s\"'`,;<>\\]+))"
    # An XML element (<password>...</password>) or an .NET appSettings entry
    # (<add key="ApiSecret" value="..."/>).
     + rf"|(?P<tkey>{_KEYWORD}{_KEY_TAIL})>(?P<tv>[^<\r\n]+)<"
    rf"|(?P<akey>{_KEYWORD}{_KEY_TAIL})[\"'][ \t]+value[ \t]*=[ \t]*"
    + _QUOTED.format("a")
    # SQL: CREATE USER ... WITH PASSWORD '...', ... IDENTIFIED BY '...'. Only a password
    # word: other key words before a quoted string name a block or a resource
    # (credentials "app.example.io" { ... }, token "deploy").
    + rf"|(?P<qkey>{_look_alike_letters('pass(?:word|wd|phrase)|pwd')}|identified[ \t]+by)"
    + r"[ \t]{1,7}"
    + _QUOTED.format("q")
    + r"|://(?P<user>[^\s/?#@:]*):(?P<pw>[^\s/?#@]+)@"
)
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def _re2(pattern: str) -> str:
    """The RE2 form of a pattern: group names are only needed by the validators."""
    return _NAMED_GROUP.sub("(?:", pattern)


def _python(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)  # as the scanner matches


_ASSIGNMENT_PY = _python(_ASSIGNMENT)
_FORMATS_BY_GROUP: dict[str, tuple[SecretFormat, ...]] = {}
for _format in SECRET_FORMATS:
    _FORMATS_BY_GROUP.setdefault(_format.group, ())
    _FORMATS_BY_GROUP[_format.group] += (_format,)
GROUPS = tuple(_FORMATS_BY_GROUP)
_COMPILED = {fmt.name: _python(fmt.pattern) for fmt in SECRET_FORMATS}
_KEY_PATTERNS = {fmt.name: _python(fmt.key) for fmt in SECRET_FORMATS if fmt.key is not None}
_BY_NAME = {fmt.name: fmt for fmt in SECRET_FORMATS}
_TOKENS = _FORMATS_BY_GROUP["tokens"]
_UNPREFIXED = tuple(fmt for fmt in _TOKENS if not fmt.prefixes)


def _prefix_pattern(prefixes: Iterable[str]) -> re.Pattern[str]:
    """Any of ``prefixes``, the longest first, grouped by their first character: Python's
    ``re`` then tries one branch per position, not one per prefix."""
    by_first: dict[str, list[str]] = {}
    for prefix in sorted(set(prefixes), key=len, reverse=True):
        by_first.setdefault(prefix[0], []).append(re.escape(prefix[1:]))
    return re.compile(
        "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in by_first.items())
    )


_PREFIX = _prefix_pattern(p for f in _TOKENS for p in f.prefixes)
# The formats that may match where a character is: the prefixed ones whose prefix starts with it
# and the unprefixed ones, in table order (a candidate is not tried against every format).
_CANDIDATES: dict[str, tuple[SecretFormat, ...]] = {
    first: tuple(f for f in _TOKENS if not f.prefixes or any(p[0] == first for p in f.prefixes))
    for first in {p[0] for f in _TOKENS for p in f.prefixes}
}
_LONGEST_PREFIX = max(len(p) for f in _TOKENS for p in f.prefixes)
_GLUE_REACH = 300  # a glued token is looked for this far back: longer than most tokens
# How far a token is read when checking whether one starts somewhere: more than any format's
# longest token, and a bound, so that the check costs the same on a megabyte of base64.
_TOKEN_REACH = 2048


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _glues(char: str) -> bool:
    """Whether ``char`` next to a token makes it part of a longer word."""
    return (char.isalnum() or char == "_") and SPACELESS_LETTERS.match(char) is None


def _token_at(text: str, start: int, end: int) -> tuple[SecretFormat, int] | None:
    """The first token format (in table order) matching at ``start``, and where it ends."""
    for fmt in _CANDIDATES.get(text[start : start + 1], _UNPREFIXED):
        if fmt.prefixes and not any(text.startswith(p, start) for p in fmt.prefixes):
            continue
        match = _COMPILED[fmt.name].match(text, start, end)
        if match is not None:
            return fmt, match.end()
    return None


def _token_ends_at(text: str, position: int) -> bool:
    """Whether a token of a prefixed format ends exactly at ``position``."""
    for prefix in _PREFIX.finditer(text, max(0, position - _GLUE_REACH), position):
        found = _token_at(text, prefix.start(), position)
        if found is not None and found[1] == position:
            return True
    return False


def _token_starts_at(text: str, position: int) -> bool:
    return _PREFIX.match(text, position) is not None and (
        _token_at(text, position, min(len(text), position + _TOKEN_REACH)) is not None
    )


def _judge_token(
    text: str, start: int, end: int, options: SecretOptions
) -> tuple[int, int, float, str] | None:
    found = _token_at(text, start, end)
    if found is None:
        return None
    fmt, stop = found
    # Two tokens written together: the first ends where the second's prefix begins.
    for prefix in _PREFIX.finditer(text, start + 1, min(len(text), stop + _LONGEST_PREFIX)):
        cut = prefix.start()
        if cut >= stop:
            break
        if _COMPILED[fmt.name].fullmatch(text, start, cut) and _token_starts_at(text, cut):
            stop = cut
            break
    if (
        start > 0
        and _glues(text[start - 1])
        and not _token_ends_at(text, start)
        and not (fmt.name == "telegram-bot-token" and text.endswith("/bot", 0, start))
    ):
        return None  # "xAKIA...": inside a longer word (Telegram's API writes ".../bot<token>")
    glued_after = stop < len(text) and _glues(text[stop]) and text[stop - 1].isalnum()
    if glued_after and not _token_starts_at(text, stop):
        return None  # a fixed-length format inside a longer word is not that format
    value = text[start:stop]
    if fmt.check is not None and not fmt.check(value):
        return None
    if _is_known_example(value, fmt, options):
        return None
    return start, stop, fmt.confidence, fmt.name


_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/=]{16,}")


def _judge_key(
    text: str, start: int, end: int, options: SecretOptions
) -> tuple[int, int, float, str] | None:
    for fmt in _FORMATS_BY_GROUP["keys"]:
        if _COMPILED[fmt.name].fullmatch(text, start, end):
            if fmt.name == "private-key-block":
                # The armour around "..." or "<your key here>" in a how-to is no key.
                body = re.sub(r"-----[^-]*-----", " ", text[start:end])
                if _KEY_MATERIAL.search(body) is None:
                    return None
            return start, end, fmt.confidence, fmt.name
    return None


# Each form of assignment: its key's group and its value's groups.
_KEY_GROUPS = (
    ("pkey", ("pdq", "psq")),
    ("key", ("dq", "sq", "bq", "bare")),
    ("nkey", ("ndq", "nsq", "nbare")),
    ("skey", ("sdq", "ssq", "sbare")),
    ("jkey", ("jdq", "jsq")),
    ("tkey", ("tv",)),
    ("akey", ("adq", "asq")),
    ("qkey", ("qdq", "qsq")),
)
_UNQUOTED = frozenset({"bare", "cv", "nbare", "sbare", "tv"})


def _judge_assignment(
    text: str, start: int, end: int, options: SecretOptions
) -> tuple[int, int, float, str] | None:
    match = _ASSIGNMENT_PY.match(text, start, end)
    if match is None:
        return None
    if match.group("pw") is not None:
        value_start, value_end = match.span("pw")
        value = match.group("pw")
        if len(match.group("user")) > 128 or len(value) > 256:
            return None  # longer than a URL's user and password are
        if not looks_like_secret(value, password=True, quoted=False, url=True):
            return None
        return _named(text, value_start, value_end, _BY_NAME["url-credentials"], options)
    if match.group("cli") is not None:
        key_end = match.end("cli")
        key = match.group("cli").strip().lstrip("-")
        group = next(g for g in ("cdq", "csq", "cv") if match.group(g) is not None)
    else:
        key_group, values = next(
            (name, groups) for name, groups in _KEY_GROUPS if match.group(name) is not None
        )
        key_end = match.end(key_group)
        key = match.group(key_group)
        group = next(g for g in values if match.group(g) is not None)
    # The key's name may begin before the matched keyword: "DB_PASSWORD", "self.api_key".
    key_start = key_end - len(key)
    while key_start > 0 and (_is_word(text[key_start - 1]) or text[key_start - 1] in ".-"):
        key_start -= 1
        if key_end - key_start > 80:
            return None
    key = ascii_look_alike(text[key_start:key_end].strip().strip("\"'`\\").lstrip("-").lstrip("."))
    value_start, value_end = match.span(group)
    if group in _UNQUOTED:
        query = _NEXT_PARAMETER.search(text, value_start, min(len(text), value_end + 80))
        if query is not None and query.start() < value_end:
            value_end = query.start()  # "?api_key=...&page=2": the next query parameter
        armour = text.find("-----", value_start, value_end)
        if armour != -1:
            value_end = armour  # "...=value-----BEGIN ... KEY-----": a key block begins there
        while value_end > value_start and text[value_end - 1] in ".,:)]}":
            value_end -= 1  # the end of a sentence or of a call, not of the value
    value = text[value_start:value_end]
    if _PREFIX.fullmatch(value):
        return None  # "github_pat_" + suffix(): a token's prefix, not a token
    # A vendor token or a known key name and value shape outranks the generic rule.
    token = _token_at(text, value_start, value_end)
    if token is not None and token[1] == value_end:
        judged = _judge_token(text, value_start, value_end, options)
        return judged if judged is not None and judged[1] == value_end else None
    for fmt in _FORMATS_BY_GROUP["assignments"]:
        if fmt.key is None or not _KEY_PATTERNS[fmt.name].fullmatch(key):
            continue
        if _COMPILED[fmt.name].fullmatch(value) and (fmt.check is None or fmt.check(value)):
            return _named(text, value_start, value_end, fmt, options)
    if not _secret_key(key):
        return None
    if not looks_like_secret(
        value, password=bool(_PASSWORD_KEY.search(key)), quoted=group not in _UNQUOTED
    ):
        return None
    return _named(text, value_start, value_end, _BY_NAME["generic-assignment"], options)


def _named(
    text: str, start: int, end: int, fmt: SecretFormat, options: SecretOptions
) -> tuple[int, int, float, str] | None:
    if _is_known_example(text[start:end], fmt, options):
        return None
    return start, end, fmt.confidence, fmt.name


_Judge = Callable[[str, int, int, SecretOptions], "tuple[int, int, float, str] | None"]
_JUDGES: dict[str, _Judge] = {
    "keys": _judge_key,
    "tokens": _judge_token,
    "assignments": _judge_assignment,
}


def _group_pattern(group: str) -> str:
    if group == "assignments":
        return _re2(_ASSIGNMENT)
    return "|".join(f"(?:{fmt.pattern})" for fmt in _FORMATS_BY_GROUP[group])


def _validator(judge: _Judge, options: SecretOptions) -> Validator:
    def validate(text: str, start: int, end: int) -> tuple[int, int, float] | None:
        judged = judge(text, start, end, options)
        return None if judged is None else judged[:3]

    return validate


_DEFAULT_OPTIONS = SecretOptions()


def secret_patterns(options: SecretOptions = _DEFAULT_OPTIONS) -> tuple[SecretPattern, ...]:
    """The scanner patterns of the ``secret`` detector, with validators bound to ``options``."""
    return tuple(
        SecretPattern(
            group,
            _group_pattern(group),
            _validator(_JUDGES[group], options),
            restart_inside=group != "keys",
        )
        for group in GROUPS
    )


_RE2_GROUPS: dict[str, re.Pattern[str]] = {}


def find_secrets(text: str, options: SecretOptions = _DEFAULT_OPTIONS) -> list[SecretMatch]:
    """Every secret in ``text`` with its format's name, leftmost-longest, not overlapping.

    The scanner's ``secret`` detector reports the same spans (without names); this function
    is for tools and tests that want to know which format was found. ``text`` is taken as it
    is (not normalised).
    """
    found: list[SecretMatch] = []
    for group in GROUPS:
        pattern = _RE2_GROUPS.get(group)
        if pattern is None:
            pattern = _RE2_GROUPS[group] = _python(_group_pattern(group))
        position = 0
        while position < len(text):
            candidate = pattern.search(text, position)
            if candidate is None:
                break
            begin, stop = candidate.span()
            position = stop if stop > begin else stop + 1
            judged = _JUDGES[group](text, begin, stop, options)
            if judged is None:
                # As the scanner does: a refused candidate ("see.abc8Q~...", whose run before
                # the marker is too long) may hide one that starts at a later word inside it.
                if group == "keys":
                    continue
                inside = VALUE_START.search(text, begin + 1, stop)
                if inside is not None:
                    position = inside.start()
                continue
            found.append(SecretMatch(judged[3], judged[0], judged[1], judged[2]))
            if judged[1] < stop:
                position = judged[1]
    return _leftmost_longest(found)


def _leftmost_longest(matches: Iterable[SecretMatch]) -> list[SecretMatch]:
    kept: list[SecretMatch] = []
    reach = -1
    for match in sorted(matches, key=lambda m: (m.start, -m.end)):
        if match.start >= reach:
            kept.append(match)
            reach = match.end
    return kept
