"""The ``credit_card`` detector: 13 to 19 digits of any script that pass the Luhn check, start
with an issuer's prefix at a length that issuer uses, and are grouped as cards are written."""

from __future__ import annotations

import re
from bisect import bisect_left

from govcore.detection.chars import VALUE_START, digit, glues, is_digit
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector, cut_points

__all__ = ["DETECTOR", "card_issuer_valid", "luhn_valid"]


def luhn_valid(digits: list[int]) -> bool:
    """The Luhn checksum of payment card numbers."""
    total = 0
    for position, value in enumerate(reversed(digits)):
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


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
        for value in digits[: len(first)]:
            prefix = prefix * 10 + value
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
        value = digit(text[index])
        if value is not None:
            digits.append(value)
            ends.append(index + 1)
    if len(digits) < 13 or len(set(digits[:19])) < 2:
        return None
    for cut in cut_points(text, start, end):
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
            if cut < len(text) and glues(text[cut]):
                continue
            return cut
    return None


def _card(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if start > 0 and glues(text[start - 1]):
        return None
    if start > 1 and text[start - 1] in "-./" and is_digit(text[start - 2]):
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
        if is_digit(later.group()) and _card_at(text, later.start(), end, consistent=True):
            return None
    return start, cut, 1.0


_ND = DECIMAL_DIGIT
_SEP = r"[ \-.]"  # Unicode dashes are "-" by now (normalisation)

DETECTOR = Detector(
    kind="credit_card",
    explanation="contains a payment card number (Luhn-valid)",
    replacement="[card number removed]",
    example="4111 1111 1111 1111",
    patterns=(CandidatePattern(rf"{_ND}(?:{_SEP}{{0,2}}{_ND}){{12,22}}", _card),),
    contains_other_kinds=True,
)
