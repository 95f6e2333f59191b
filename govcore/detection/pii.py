"""The built-in PII and secret detectors: candidate patterns (RE2 syntax) and validators.

A detector finds candidates with a pattern, then a validator decides: payment cards must pass
the Luhn check, IBANs the mod-97 check, US social security numbers the area/group/serial rules,
IP addresses must parse. A validator may shorten a candidate (a card number followed by a
year) and returns the confidence factor of the match: 1.0 for a validated match, less for a
shape alone (a phone number, a nine-digit SSN without separators, a generic ``api_key=...``).
Digits of any script count as digits, and odd separators inside numbers are tolerated.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from govcore.detection.secrets import (
    PRIVATE_KEY_BEGIN,
    PRIVATE_KEY_END,
    SECRET_EXPLANATION,
    SecretOptions,
    secret_patterns,
)

__all__ = [
    "DEFAULT_REPLACEMENTS",
    "DETECTORS",
    "PRIVATE_KEY_BEGIN",
    "PRIVATE_KEY_END",
    "Detector",
    "luhn_valid",
    "mod97_valid",
    "secret_detectors",
]

# A validator gets the normalised text and a candidate span and returns the accepted span and
# its confidence factor, or None.
Validator = Callable[[str, int, int], "tuple[int, int, float] | None"]


@dataclass(frozen=True, slots=True)
class Detector:
    """One candidate pattern of a PII kind with its validator."""

    kind: str
    pattern: str
    validate: Validator
    explanation: str
    anchor: bytes | None = None
    """A literal every match contains; when set, only windows around its occurrences are
    searched (``reach`` bytes before and after), which is much faster for patterns that could
    start almost anywhere."""
    reach: tuple[int, int] = (0, 0)


def secret_detectors(options: SecretOptions | None = None) -> tuple[Detector, ...]:
    """The ``secret`` detector's patterns (govcore.detection.secrets), for ``options``."""
    if options is None:
        options = SecretOptions()
    return tuple(
        Detector("secret", p.pattern, p.validate, SECRET_EXPLANATION, p.anchor, p.reach)
        for p in secret_patterns(options)
    )


def _digit(char: str) -> int | None:
    if "0" <= char <= "9":
        return ord(char) - 48
    return unicodedata.decimal(char, None)


def _is_digit(char: str) -> bool:
    return _digit(char) is not None


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _digits_of(text: str) -> list[int]:
    if text.isascii():
        return [ord(c) - 48 for c in text if "0" <= c <= "9"]
    return [d for d in map(_digit, text) if d is not None]


def luhn_valid(digits: list[int]) -> bool:
    """The Luhn checksum of payment card numbers."""
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


_LETTER_VALUES = {ord(letter): str(ord(letter) - 55) for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def mod97_valid(iban: str) -> bool:
    """The ISO 13616 check of an IBAN (letters and digits only, any case)."""
    rearranged = iban[4:] + iban[:4]
    # The usual case, at C speed (IBANs have at most 34 characters; int() refuses huge ones).
    if len(rearranged) <= 64 and rearranged.isascii() and rearranged.isalnum():
        return int(rearranged.upper().translate(_LETTER_VALUES)) % 97 == 1
    number = 0
    for char in rearranged.upper():
        value = _digit(char)
        if value is not None:
            number = (number * 10 + value) % 97
        elif "A" <= char <= "Z":
            number = (number * 100 + ord(char) - 55) % 97
        else:
            return False
    return number == 1


def _cut_points(text: str, start: int, end: int) -> list[int]:
    """Ends at which a candidate may be shortened: after any digit or letter followed by a
    separator, longest first, so a number followed by more digits after a space can still be
    found."""
    cuts = [match.end() for match in _ALNUM_BEFORE_OTHER.finditer(text, start, end)]
    cuts.append(end)
    cuts.reverse()
    return cuts


# A letter or digit followed by anything else (underscore counts as "else", as for isalnum).
_ALNUM_BEFORE_OTHER = re.compile(r"[^\W_](?=[\W_])")


def _bounded(text: str, start: int, end: int, inside: Callable[[str], bool]) -> bool:
    """Whether the span is not glued to more characters of its own kind on either side."""
    return (start == 0 or not inside(text[start - 1])) and (
        end == len(text) or not inside(text[end])
    )


def _card(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if start > 0 and (_is_digit(text[start - 1]) or text[start - 1].isalpha()):
        return None
    for cut in _cut_points(text, start, end):
        digits = _digits_of(text[start:cut])
        if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_valid(digits):
            if cut < len(text) and (_is_digit(text[cut]) or text[cut].isalpha()):
                continue
            return start, cut, 1.0
    return None


def _iban(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if start > 0 and _is_word(text[start - 1]):
        return None
    for cut in _cut_points(text, start, end):
        compact = text[start:cut].replace(" ", "")  # the pattern allows single spaces only
        if 15 <= len(compact) <= 34 and mod97_valid(compact):
            if cut < len(text) and _is_word(text[cut]):
                continue
            return start, cut, 1.0
    return None


_DATE = re.compile(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d)")


def _phone(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not _bounded(text, start, end, lambda c: _is_digit(c) or c.isalpha()):
        return None
    candidate = text[start:end]
    digits = _digits_of(candidate)
    if not 7 <= len(digits) <= 15:
        return None
    if _DATE.match(candidate):
        return None  # a date, perhaps with a time after it
    if re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}", candidate):
        return None  # an IPv4 address
    if re.fullmatch(r"\d{3}-\d{2}-\d{4}", candidate):
        return None  # the US SSN shape, which its own detector judges
    return start, end, 0.7


def _ssn(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not _bounded(text, start, end, lambda c: _is_digit(c) or c.isalpha()):
        return None
    candidate = text[start:end]
    digits = _digits_of(candidate)
    if len(digits) != 9:
        return None
    area = digits[0] * 100 + digits[1] * 10 + digits[2]
    group = digits[3] * 10 + digits[4]
    serial = digits[5] * 1000 + digits[6] * 100 + digits[7] * 10 + digits[8]
    if area in (0, 666) or area >= 900 or group == 0 or serial == 0:
        return None
    separated = len(candidate) == 11 and candidate[3] == candidate[6] and candidate[3] in "- "
    if len(candidate) != 9 and not separated:
        return None  # mixed or odd separators: not the SSN shape
    return start, end, 1.0 if separated else 0.8


def _ip(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    # A dotted quad may sit next to a colon ("10.1.2.3:8080", "host:10.1.2.3"); an IPv6
    # candidate next to one is a piece of a longer address, and is left to the whole.
    glue = ".:" if ":" in text[start:end] else "."
    if not _bounded(text, start, end, lambda c: _is_word(c) or c in glue):
        return None
    if not any(c.isalnum() for c in text[start:end]):
        return None  # "::" in prose ("x :: Int") is punctuation, not the unspecified address
    candidate = text[start:end]
    if not candidate.isascii():
        candidate = "".join(
            str(_digit(c)) if _is_digit(c) and not c.isascii() else c for c in candidate
        )
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return None
    return start, end, 1.0


# Scripts written without spaces between words: Thai, Lao, Khmer, Hiragana, Katakana, Han
# (with its extensions and compatibility block) and Hangul syllables. Prose in them runs straight
# into an address ("请联系jane@example.com谢谢"), and the email pattern, which accepts Unicode
# letters, would take the words with it.
_SPACELESS_LETTERS = re.compile(
    "[\u0e00-\u0eff\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)


def _unglued(candidate: str) -> tuple[int, int]:
    """The part of ``candidate`` that is the address when it mixes an ASCII address with
    letters of a script written without spaces: the local part starts after the last such
    letter, the domain ends before the first one that follows its last dot."""
    first, last = 0, len(candidate)
    if candidate.isascii():
        return first, last
    at = candidate.rfind("@")
    local, domain = candidate[:at], candidate[at + 1 :]
    glued = [m.end() for m in _SPACELESS_LETTERS.finditer(local)]
    # Cut only where an ASCII local part remains: "用户@例子.广告" is an address as it is.
    if glued and glued[-1] < at and local[glued[-1] :].isascii() and not local.startswith('"'):
        first = glued[-1]
    dot = domain.rfind(".")
    tail = _SPACELESS_LETTERS.search(domain, dot + 1)
    if tail is not None and domain[: tail.start()].isascii() and tail.start() > dot + 2:
        last = at + 1 + tail.start()
    return first, last


def _email(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    cut_start, cut_end = _unglued(text[start:end])
    start, end = start + cut_start, start + cut_end
    while start < end and text[start] == "/":
        start += 1  # "https://user@host": the slashes belong to the URL, not the address
    local, _, domain = text[start:end].rpartition("@")
    if not local or len(local) > 64 or len(domain) > 255:
        return None
    if not local.startswith('"') and (
        local.startswith(".") or local.endswith(".") or ".." in local
    ):
        return None
    if domain.startswith("[") or all(
        label and not label.startswith("-") and not label.endswith("-")
        for label in domain.split(".")
    ):
        return start, end, 1.0
    return None


_ND = r"\p{Nd}"
_SEP = r"[ \-.]"  # Unicode dashes are "-" by now (normalisation)

DETECTORS: tuple[Detector, ...] = (
    Detector(
        "email",
        # Unbounded repeats, lengths checked by the validator: counted repeats of large
        # Unicode classes would blow up RE2's DFA and send it to its slow engine.
        r"(?:\"[^\"\r\n@]+\"|[\p{L}\p{N}!#$%&'*+/=?^_`{|}~.\-]+)@"
        r"(?:\[(?:IPv6:)?[0-9a-fA-F.:]+\]|[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)*\.\p{L}\p{L}+)",
        _email,
        "contains an email address",
        anchor=b"@",
        reach=(4 * 64 + 4, 4 * 255 + 4),
    ),
    Detector(
        "credit_card",
        rf"{_ND}(?:{_SEP}{{0,2}}{_ND}){{12,22}}",
        _card,
        "contains a payment card number (Luhn-valid)",
    ),
    Detector(
        "iban",
        # \b: a candidate starting inside a longer token ("sk_live_...eC39...") would be
        # refused and swallow a real IBAN right after it.
        r"\b[a-zA-Z]{2}\p{Nd}{2}(?: ?[a-zA-Z0-9]){11,34}",
        _iban,
        "contains an IBAN (checksum-valid)",
    ),
    Detector(
        "phone",
        # International (+), a bracketed area code, or at least three groups: two groups of
        # digits are far more often a price or a version than a phone number.
        rf"\+{_ND}{{1,3}}(?:[ .\-]?\({_ND}{{1,4}}\))?(?:[ .\-]?{_ND}{{1,5}}){{2,5}}"
        rf"|\({_ND}{{1,4}}\)[ .\-]?{_ND}{{2,5}}(?:[ .\-]{_ND}{{2,5}}){{1,3}}"
        rf"|{_ND}{{2,5}}(?:[ .\-]{_ND}{{2,5}}){{2,4}}",
        _phone,
        "contains a phone number",
    ),
    Detector(
        "us_ssn",
        rf"{_ND}{{3}}[- ]?{_ND}{{2}}[- ]?{_ND}{{4}}",
        _ssn,
        "contains a US social security number",
    ),
    Detector(
        "ip_address",
        rf"(?:[0-9a-fA-F]{{0,4}}:){{2,6}}{_ND}{{1,3}}(?:\.{_ND}{{1,3}}){{3}}"
        rf"|{_ND}{{1,3}}(?:\.{_ND}{{1,3}}){{3}}|(?:[0-9a-fA-F]{{0,4}}:){{2,7}}[0-9a-fA-F]{{0,4}}",
        _ip,
        "contains an IP address",
    ),
    *secret_detectors(),
)

DEFAULT_REPLACEMENTS: dict[str, str] = {
    "email": "[email removed]",
    "credit_card": "[card number removed]",
    "iban": "[IBAN removed]",
    "phone": "[phone number removed]",
    "us_ssn": "[SSN removed]",
    "ip_address": "[IP address removed]",
    "secret": "[secret removed]",
}
