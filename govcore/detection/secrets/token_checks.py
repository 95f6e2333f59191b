"""Checks of a token's own structure, named in the format table (``check = { name = ... }``):
a JWT's JSON header, a Discord token's numeric id, an age key's Bech32 checksum, a base64 JSON
object inside a Grafana, Sentry or Mapbox token, the length of a run before a marker.

Each entry of :data:`CHECKS` makes a check from the table's arguments; a check gets the token
and says whether it is one of its format.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable

__all__ = ["BECH32_ALPHABET", "CHECKS", "TokenCheck", "bech32_residue"]

TokenCheck = Callable[[str], bool]


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


BECH32_ALPHABET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
"""The 32 characters of Bech32 data, by value (BIP 173)."""
_BECH32_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def bech32_residue(text: str) -> int:
    """The residue of a Bech32 string's checksum (BIP 173): 1 when a Bech32 checksum holds,
    0x2BC830A3 when a Bech32m one does (BIP 350). ``text`` is lower case, its human-readable part
    and its data separated by the last ``1``, the data of Bech32 characters only."""
    human, _, data = text.rpartition("1")
    values = [ord(c) >> 5 for c in human] + [0] + [ord(c) & 31 for c in human]
    values += [BECH32_ALPHABET.index(c) for c in data]
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for bit, generator in enumerate(_BECH32_GENERATOR):
            if top >> bit & 1:
                checksum ^= generator
    return checksum


def _bech32(token: str) -> bool:
    """A Bech32 string (BIP 173) whose checksum holds: age secret keys are one, upper-cased."""
    return bech32_residue(token.lower()) == 1


def _base64_bytes(size: int) -> TokenCheck:
    """A check that the token is standard base64 of ``size`` bytes."""

    def check(value: str) -> bool:
        try:
            return len(base64.b64decode(value, validate=True)) == size
        except (binascii.Error, ValueError):
            return False

    return check


def _base64_json(start: int, *, url_safe: bool, cut: str = "") -> TokenCheck:
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


def _not_words(start: int) -> TokenCheck:
    """A check that the token's random part (from ``start``) is not an identifier made of
    words, which a short prefix followed by one would otherwise be (``hvs.ServiceFactory``):
    random letters and digits next to never are."""

    def check(token: str) -> bool:
        return _IDENTIFIER.fullmatch(token, start) is None

    return check


def _run_before(marker: str, length: int) -> TokenCheck:
    """A check that the token's run before ``marker`` is ``length`` characters long."""

    def check(token: str) -> bool:
        return token.index(marker) == length

    return check


def _always(check: TokenCheck) -> Callable[[], TokenCheck]:
    """The factory of a check that takes no arguments."""
    return lambda: check


CHECKS: dict[str, Callable[..., TokenCheck]] = {
    "base64_bytes": _base64_bytes,
    "base64_json": _base64_json,
    "bech32": _always(_bech32),
    "discord": _always(_discord),
    "jwt": _always(_jwt),
    "not_words": _not_words,
    "run_before": _run_before,
}
"""The checks the format table may name, each a factory taking the table's arguments."""
