"""The ``iban`` detector: a country code, check digits and the rest, of the country's length,
passing the ISO 13616 mod-97 check."""

from __future__ import annotations

from govcore.detection.chars import digit, glues
from govcore.detection.detectors.base import CandidatePattern, Detector, cut_points

__all__ = ["DETECTOR", "mod97_valid"]

_LETTER_VALUES = {ord(letter): str(ord(letter) - 55) for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def mod97_valid(iban: str) -> bool:
    """The ISO 13616 check of an IBAN (letters and digits only, any case)."""
    rearranged = iban[4:] + iban[:4]
    # The usual case, at C speed (IBANs have at most 34 characters; int() refuses huge ones).
    if len(rearranged) <= 64 and rearranged.isascii() and rearranged.isalnum():
        return int(rearranged.upper().translate(_LETTER_VALUES)) % 97 == 1
    number = 0
    for char in rearranged.upper():
        value = digit(char)
        if value is not None:
            number = (number * 10 + value) % 97
        elif "A" <= char <= "Z":
            number = (number * 100 + ord(char) - 55) % 97
        else:
            return False
    return number == 1


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


def _iban(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if start > 0 and glues(text[start - 1]):
        return None
    expected = _IBAN_LENGTHS.get(text[start : start + 2].upper())
    if expected is None:
        return None
    for cut in cut_points(text, start, end):
        compact = text[start:cut].replace(" ", "")  # the pattern allows single spaces only
        if len(compact) == expected and mod97_valid(compact):
            if cut < len(text) and glues(text[cut]):
                continue
            return start, cut, 1.0
    return None


DETECTOR = Detector(
    kind="iban",
    explanation="contains an IBAN (checksum-valid)",
    replacement="[IBAN removed]",
    example="GB82 WEST 1234 5698 7654 32",
    patterns=(
        CandidatePattern(
            # \b: a candidate starting inside a longer token ("sk_live_...eC39...") would be
            # refused and swallow a real IBAN right after it.
            r"\b[a-zA-Z]{2}\p{Nd}{2}(?: ?[a-zA-Z0-9]){11,34}",
            _iban,
        ),
    ),
    contains_other_kinds=True,
)
