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
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from govcore.detection.normalize import SPACELESS_LETTERS, VALUE_START
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
    "card_issuer_valid",
    "iban_length_valid",
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
    restart_inside: bool = True
    """When the validator refuses a candidate, look for the next candidate from the next word
    inside it (``Step 2 4111 ...``: the refused ``2 4111 ...`` hides the card that starts at
    ``4111``); when false, from the candidate's end."""


def secret_detectors(options: SecretOptions | None = None) -> tuple[Detector, ...]:
    """The ``secret`` detector's patterns (govcore.detection.secrets), for ``options``."""
    if options is None:
        options = SecretOptions()
    return tuple(
        Detector(
            "secret",
            p.pattern,
            p.validate,
            SECRET_EXPLANATION,
            p.anchor,
            p.reach,
            restart_inside=p.restart_inside,
        )
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


def _glues(char: str) -> bool:
    """Whether ``char`` next to a number makes it part of a longer word: a digit, ``_``, or a
    letter of a script written with spaces. Chinese, Japanese, Korean, Thai, Lao and Khmer
    prose runs straight into numbers ("カード番号は4111111111111111です")."""
    if char.isdigit() or char == "_" or _is_digit(char):
        return True
    return char.isalpha() and (char.isascii() or SPACELESS_LETTERS.match(char) is None)


def _bounded(text: str, start: int, end: int, inside: Callable[[str], bool]) -> bool:
    """Whether the span is not glued to more characters of its own kind on either side."""
    return (start == 0 or not inside(text[start - 1])) and (
        end == len(text) or not inside(text[end])
    )


# Issuer identification number ranges and the lengths their cards have (ISO/IEC 7812 and the
# networks' published ranges), as (first prefix, last prefix, shortest, longest). Prefixes of the
# same length are compared as numbers. A Luhn-valid number outside all of them (a 13-digit
# millisecond timestamp starting with 1, an order number) is no card number.
_CARD_RANGES: tuple[tuple[str, str, int, int], ...] = (
    ("1", "1", 15, 15),  # UATP
    ("2200", "2204", 16, 19),  # Mir
    ("2221", "2720", 16, 16),  # Mastercard 2-series
    ("300", "305", 14, 19),  # Diners Club
    ("3095", "3095", 14, 19),
    ("34", "34", 15, 15),  # American Express
    ("36", "36", 14, 19),  # Diners Club International
    ("3528", "3589", 16, 19),  # JCB
    ("37", "37", 15, 15),  # American Express
    ("38", "39", 14, 19),  # Diners Club
    ("4", "4", 13, 19),  # Visa (13, 16 and 19 digits; Visa Electron and partners 13-19)
    ("50", "50", 12, 19),  # Maestro, Dankort, Verve
    ("51", "55", 16, 16),  # Mastercard
    ("56", "58", 12, 19),  # Maestro
    ("6", "6", 12, 19),  # Discover, UnionPay, Maestro, RuPay, InterPayment, Troy
    ("81", "82", 16, 16),  # RuPay
    ("9792", "9792", 16, 16),  # Troy
)
_VISA_LENGTHS = frozenset((13, 16, 19))


def card_issuer_valid(digits: list[int]) -> bool:
    """Whether a card number's first digits name an issuer that uses its length."""
    count = len(digits)
    for first, last, shortest, longest in _CARD_RANGES:
        if not shortest <= count <= longest:
            continue
        prefix = 0
        for digit in digits[: len(first)]:
            prefix = prefix * 10 + digit
        if int(first) <= prefix <= int(last):
            return first != "4" or count in _VISA_LENGTHS
    return False


_NON_DIGITS = re.compile(r"\D+")


def _card_grouping(candidate: str, *, consistent: bool) -> bool:
    """Whether a card number is written as cards are: when separated, a first group of four
    digits (4-4-4-4, 4-6-5, 4-6-4; eight or twelve when a separator was left out or hidden),
    and, if ``consistent``, one kind of separator throughout. So "390 4000 0000 0000 0002" is a
    number and then a card, not a card and then a number."""
    first = _NON_DIGITS.search(candidate)
    if first is None:
        return True
    if first.start() % 4:
        return False
    return not consistent or len(set(_NON_DIGITS.findall(candidate))) == 1


def _card_at(text: str, start: int, end: int, *, consistent: bool) -> int | None:
    """The end of the card number that starts at ``start`` within ``[start, end)``, if any."""
    first = _NON_DIGITS.search(text, start, end)
    if first is not None and (first.start() - start) % 4:
        return None  # the first group is not written as a card's (cheap, and true of any cut)
    # Each cut's digits are a prefix of the candidate's: read them once, count them per cut.
    digits: list[int] = []
    ends: list[int] = []  # ends[k]: the position just after the (k+1)-th digit
    for index in range(start, end):
        value = _digit(text[index])
        if value is not None:
            digits.append(value)
            ends.append(index + 1)
    if len(digits) < 13 or len(set(digits[:19])) < 2:
        return None
    for cut in _cut_points(text, start, end):
        count = bisect_left(ends, cut + 1)
        if not 13 <= count <= 19:
            continue
        prefix = digits[:count]
        if (
            len(set(prefix)) > 1
            and card_issuer_valid(prefix)
            and _card_grouping(text[start:cut], consistent=consistent)
            and luhn_valid(prefix)
        ):
            if cut < len(text) and _glues(text[cut]):
                continue
            return cut
    return None


def _card(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if start > 0 and _glues(text[start - 1]):
        return None
    if start > 1 and text[start - 1] in "-./" and _is_digit(text[start - 2]):
        return None  # "00-4111 ...": the digits continue a number, they do not begin one
    cut = _card_at(text, start, end, consistent=True)
    if cut is not None:
        return start, cut, 1.0
    # Mixed separators ("4111 1111-1111 1111") still make a card, unless a number written
    # with one kind starts inside: "2300 4111-1111-1111-1111" is a number and then a card.
    if len(set(_NON_DIGITS.findall(text, start, end))) < 2:
        return None  # one kind of separator or none: the reading above was the only one
    cut = _card_at(text, start, end, consistent=False)
    if cut is None:
        return None
    for later in VALUE_START.finditer(text, start + 1, cut):
        if _is_digit(later.group()) and _card_at(text, later.start(), end, consistent=True):
            return None
    return start, cut, 1.0


# The length of each country's IBAN (the SWIFT IBAN registry, plus the countries that publish
# IBANs outside it, French overseas territories with France's length). Checking it refuses an
# IBAN cut short that still passes mod 97, and a valid one that would take the next word along.
_IBAN_LENGTHS: dict[str, int] = {
    **dict.fromkeys(("NO",), 15),
    **dict.fromkeys(("BE",), 16),
    **dict.fromkeys(("DK", "FI", "FK", "FO", "GL", "NL", "SD"), 18),
    **dict.fromkeys(("MK", "SI"), 19),
    **dict.fromkeys(("AT", "BA", "EE", "KZ", "LT", "LU", "MN", "XK"), 20),
    **dict.fromkeys(("CH", "HR", "LI", "LV"), 21),
    **dict.fromkeys(("BG", "BH", "CR", "DE", "GB", "GE", "IE", "ME", "RS", "VA"), 22),
    **dict.fromkeys(("AE", "GI", "IL", "IQ", "OM", "SO", "TL"), 23),
    **dict.fromkeys(("AD", "CZ", "ES", "MD", "PK", "RO", "SA", "SE", "SK", "TN", "VG"), 24),
    **dict.fromkeys(("AO", "CV", "GW", "LY", "MZ", "PT", "ST"), 25),
    **dict.fromkeys(("DZ", "IR", "IS", "TR"), 26),
    **dict.fromkeys(
        ("BI", "CF", "CG", "CM", "DJ", "FR", "GA", "GQ", "GR", "IT", "KM", "MC", "MG", "MR"), 27
    ),
    **dict.fromkeys(("BL", "GF", "GP", "MF", "MQ", "NC", "PF", "PM", "RE", "TD", "TF"), 27),
    **dict.fromkeys(("WF", "YT", "SM"), 27),
    **dict.fromkeys(("AL", "AZ", "BF", "BJ", "BY", "CI", "CY", "DO", "GT", "HN", "HU"), 28),
    **dict.fromkeys(("LB", "ML", "NE", "NI", "PL", "SN", "SV", "TG"), 28),
    **dict.fromkeys(("BR", "EG", "PS", "QA", "UA"), 29),
    **dict.fromkeys(("JO", "KW", "MU", "YE"), 30),
    **dict.fromkeys(("MT", "SC"), 31),
    **dict.fromkeys(("LC",), 32),
    **dict.fromkeys(("RU",), 33),
}


def iban_length_valid(iban: str) -> bool:
    """Whether an IBAN (no spaces) has its country's length."""
    return _IBAN_LENGTHS.get(iban[:2].upper()) == len(iban)


def _iban(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if start > 0 and _glues(text[start - 1]):
        return None
    expected = _IBAN_LENGTHS.get(text[start : start + 2].upper())
    if expected is None:
        return None
    for cut in _cut_points(text, start, end):
        compact = text[start:cut].replace(" ", "")  # the pattern allows single spaces only
        if len(compact) == expected and mod97_valid(compact):
            if cut < len(text) and _glues(text[cut]):
                continue
            return start, cut, 1.0
    return None


_DATE = re.compile(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d)")


def _phone(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not _bounded(text, start, end, _glues):
        return None
    candidate = text[start:end]
    digits = _digits_of(candidate)
    if not 7 <= len(digits) <= 15:
        return None
    if _DATE.match(candidate):
        return None  # a date, perhaps with a time after it
    if re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}", candidate):
        return None  # an IPv4 address
    if re.fullmatch(r"\d{3}[-. ]\d{2}[-. ]\d{4}", candidate) and candidate[3] == candidate[6]:
        return None  # the US SSN shape, which its own detector judges
    return start, end, 0.7


# Words that announce a phone number, in the languages govcore has profiles for and a few more.
# A number of a weaker shape (two groups, or one run of digits) is a phone number only after one
# of them, with no other digits between: the word is part of the candidate, the span is not.
_PHONE_WORDS_ASCII = (
    "phone|telephone|tel|mobile|mob|cell|cellphone|call|fax|whatsapp|sms|hotline|telefon|"
    "telefonnummer|handy|mobil|portable|telefono|movil|celular|cellulare|telefone|telefoon|mobiel"
)
_PHONE_WORDS_OTHER = "tél|téléphone|teléfono|móvil|telemóvel|телефон|тел|電話|携帯|电话|手机|전화"
_WEAK_PHONE_NUMBER = re.compile(r"\+?\d{2,5}[ .\-/]\d{3,8}$|\d{7,12}$")


def _phone_after_word(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    number = _WEAK_PHONE_NUMBER.search(text, start, end)
    if number is None:
        return None
    return _phone(text, number.start(), end)


def _ssn(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not _bounded(text, start, end, _glues):
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
    separated = len(candidate) == 11 and candidate[3] == candidate[6] and candidate[3] in "- ."
    if len(candidate) != 9 and not separated:
        return None  # mixed or odd separators: not the SSN shape
    if separated or _SSN_WORDS.search(text[max(0, start - 48) : start]) is not None:
        return start, end, 1.0
    return start, end, 0.8


_SSN_WORDS = re.compile(r"(?i)\b(?:ssn|ssns|social security|soc\.? sec\.?|ss#)[^\d\n]{0,24}$")


_ZONE = re.compile(r"%[A-Za-z0-9_\-]+")
_PREFIX_LENGTH = re.compile(r"/(\d{1,3})(?![\w.])")


def _ipv4_valid(candidate: str) -> bool:
    """Four decimal parts of at most 255; zero-padded parts ("010") are accepted, as logs
    and configuration files write them."""
    parts = candidate.split(".")
    return len(parts) == 4 and all(
        part.isdigit() and len(part) <= 3 and int(part) <= 255 for part in parts
    )


def _ip(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    """An IPv4 or IPv6 address. The span is the address, with an IPv6 zone (``fe80::1%eth0``)
    and a CIDR prefix length (``10.0.0.0/8``), without a port or brackets."""
    candidate = text[start:end]
    if not any(c.isalnum() for c in candidate):
        return None  # "::" in prose ("x :: Int") is punctuation, not the unspecified address
    six = ":" in candidate
    size = len(text)
    # Glued to more of a dotted or colon-separated run ("1.2.3.4.5", "v1.2.3.4", a piece of a
    # longer IPv6 address), the candidate is part of something else. A full stop or colon
    # that ends a sentence is not glue: "IP: 192.168.1.1." is an address.
    if start > 0:
        before = text[start - 1]
        if _glues(before) or (six and before == ":"):
            return None
        if before == "." and start > 1 and _is_word(text[start - 2]):
            return None
    if end < size:
        after = text[end]
        if _glues(after):
            return None
        if (after == "." or (six and after == ":")) and end + 1 < size and _is_word(text[end + 1]):
            return None
    if not candidate.isascii():
        candidate = "".join(
            str(_digit(c)) if _is_digit(c) and not c.isascii() else c for c in candidate
        )
    if six:
        try:
            ipaddress.IPv6Address(candidate)
        except ValueError:
            return None
        zone = _ZONE.match(text, end)
        if zone is not None:
            end = zone.end()
    elif not _ipv4_valid(candidate):
        return None
    prefix = _PREFIX_LENGTH.match(text, end)
    if prefix is not None and int(prefix.group(1)) <= (128 if six else 32):
        end = prefix.end()
    return start, end, 1.0


def _unglued(candidate: str) -> tuple[int, int]:
    """The part of ``candidate`` that is the address when it mixes an ASCII address with
    letters of a script written without spaces: the local part starts after the last such
    letter, the domain ends before the first one that follows its last dot."""
    first, last = 0, len(candidate)
    if candidate.isascii():
        return first, last
    at = candidate.rfind("@")
    local, domain = candidate[:at], candidate[at + 1 :]
    glued = [m.end() for m in SPACELESS_LETTERS.finditer(local)]
    # Cut only where an ASCII local part remains: "用户@例子.广告" is an address as it is.
    if glued and glued[-1] < at and local[glued[-1] :].isascii() and not local.startswith('"'):
        first = glued[-1]
    dot = domain.rfind(".")
    tail = SPACELESS_LETTERS.search(domain, dot + 1)
    if tail is not None and domain[: tail.start()].isascii() and tail.start() > dot + 2:
        last = at + 1 + tail.start()
    return first, last


# Top-level domains that exist (docs/detection.md; scripts/make_tlds.py makes the file).
_TOP_LEVEL_DOMAINS = frozenset(
    line
    for line in resources.files("govcore.detection")
    .joinpath("top_level_domains.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if line and not line.startswith("#")
)
# A key and "=" before an address, as in a query string or a setting ("user=jane@x.io").
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=(?=.)")


def _email(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    cut_start, cut_end = _unglued(text[start:end])
    start, end = start + cut_start, start + cut_end
    at = text.rfind("@", start, end)
    # In a URL an address starts after the last "/", "?" or "&" ("https://x.io/a?to=jane@x.io"):
    # those are legal in a local part, but written there they delimit a path or a query.
    delimiter = max(text.rfind(char, start, at) for char in "/?&")
    if delimiter >= 0:
        start = delimiter + 1
    if text.endswith("://", 0, start) or _after_url_user(text, start):
        # "https://user@host", "https://user:password@host": a URL's login, not a mailbox;
        # a password there is the secret detector's.
        return None
    assigned = _ASSIGNED.match(text, start, end)
    if assigned is not None and "@" in text[assigned.end() : end]:
        start = assigned.end()
    local, _, domain = text[start:end].rpartition("@")
    if not local or len(local) > 64 or len(domain) > 255:
        return None
    if not local.startswith('"') and (
        local.startswith(".") or local.endswith(".") or ".." in local
    ):
        return None
    if domain.startswith("["):
        return start, end, 1.0
    if domain.replace(".", "").isdigit():
        # A bare IPv4 domain: four parts of at most 255, not followed by more of a number.
        glued = end < len(text) and (_is_word(text[end]) or text.startswith(".", end))
        return None if glued or not _ipv4_valid(domain) else (start, end, 1.0)
    top = domain.rsplit(".", 1)[-1].lower()
    if top.isascii() and top not in _TOP_LEVEL_DOMAINS:
        return None  # "logo@2x.png" is a file name
    if all(
        label and not label.startswith("-") and not label.endswith("-")
        for label in domain.split(".")
    ):
        return start, end, 1.0
    return None


def _after_url_user(text: str, start: int) -> bool:
    """Whether ``start`` follows "scheme://user:" (a URL's password comes next): "://" at most
    128 characters back, and nothing between that leaves a URL's user part. The bound keeps
    the answer the same wherever a streaming window starts (it sees 200 characters back)."""
    if start == 0 or text[start - 1] != ":":
        return False
    before = text[max(0, start - 128) : start - 1]
    scheme = before.rfind("://")
    return scheme >= 0 and not any(char in "/?#@ \t\r\n" for char in before[scheme + 3 :])


_ND = r"\p{Nd}"
_SEP = r"[ \-.]"  # Unicode dashes are "-" by now (normalisation)

DETECTORS: tuple[Detector, ...] = (
    Detector(
        "email",
        # Unbounded repeats, lengths checked by the validator: counted repeats of large
        # Unicode classes would blow up RE2's DFA and send it to its slow engine.
        r"(?:\"[^\"\r\n@]+\"|[\p{L}\p{N}!#$%&'*+/=?^_`{|}~.\-]+)@"
        r"(?:\[(?:IPv6:)?[0-9a-fA-F.:]+\]|[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)*"
        # An IDNA top-level label ("xn--p1ai") first: leftmost-first RE2 would stop at "xn".
        r"\.(?:xn--[a-zA-Z0-9\-]*[a-zA-Z0-9]|\p{L}\p{L}+)"
        # A bare IPv4 address as the domain ("jane@192.0.2.7").
        r"|\p{Nd}{1,3}(?:\.\p{Nd}{1,3}){3})",
        _email,
        "contains an email address",
        anchor=b"@",
        reach=(4 * 64 + 4, 4 * 255 + 4),
        restart_inside=False,
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
        # A country code may be written "+44", "(+44)" or "0044"; a North American number
        # may start with "1-".
        rf"(?:\+{_ND}{{1,3}}|\(\+{_ND}{{1,3}}\))(?:[ .\-]?\({_ND}{{1,4}}\))?"
        rf"(?:[ .\-]?{_ND}{{1,5}}){{2,5}}"
        rf"|\({_ND}{{1,4}}\)[ .\-]?{_ND}{{2,5}}(?:[ .\-]{_ND}{{2,5}}){{1,3}}"
        rf"|{_ND}{{2,5}}(?:[ .\-]{_ND}{{2,5}}){{2,4}}"
        rf"|1[ .\-]\(?{_ND}{{3}}\)?[ .\-]?{_ND}{{3}}[ .\-]{_ND}{{4}}"
        # Two groups after a trunk prefix 0 ("030 68677062", "06-81832411"): a national number.
        rf"|0{_ND}{{1,4}}[ .\-/]{_ND}{{5,8}}"
        rf"|00{_ND}{{9,13}}",
        _phone,
        "contains a phone number",
        # A run of groups refused as too long ("4111 1111 1111 1111") is not a phone number
        # from its second group on.
        restart_inside=False,
    ),
    Detector(
        "phone",
        # Two groups ("425 8829090", "03-1234567") or one run of digits: far more often a price,
        # a version or an order number, so only after a word such as "phone" or "Tel.".
        rf"(?:\b(?:{_PHONE_WORDS_ASCII})\b|(?:{_PHONE_WORDS_OTHER}))[^\d\n]{{0,24}}"
        rf"(?:\+?{_ND}{{2,5}}[ .\-/]{_ND}{{3,8}}|{_ND}{{7,12}})",
        _phone_after_word,
        "contains a phone number",
        restart_inside=False,
    ),
    Detector(
        "us_ssn",
        rf"{_ND}{{3}}[- .]?{_ND}{{2}}[- .]?{_ND}{{4}}",
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
