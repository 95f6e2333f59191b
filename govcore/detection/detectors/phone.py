"""The ``phone`` detector: international and national shapes of phone numbers, 7 to 15 digits;
weaker shapes (two groups, one run of digits) only after a word such as "phone" or "Tel."."""

from __future__ import annotations

import re

from govcore.detection.chars import glues
from govcore.detection.detectors.base import (
    DECIMAL_DIGIT,
    CandidatePattern,
    Detector,
    bounded,
    digits_of,
)

__all__ = ["DETECTOR"]

_DATE = re.compile(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d)")
# Compiled once: the validator runs on every candidate, and re's own cache costs a lookup each.
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_SSN_SHAPE = re.compile(r"\d{3}[-. ]\d{2}[-. ]\d{4}")


def _phone(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    digits = digits_of(candidate)
    if not 7 <= len(digits) <= 15:
        return None
    if _DATE.match(candidate):
        return None  # a date, perhaps with a time after it
    if _IPV4.fullmatch(candidate):
        return None  # an IPv4 address
    if _SSN_SHAPE.fullmatch(candidate) and candidate[3] == candidate[6]:
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


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="phone",
    explanation="contains a phone number",
    replacement="[phone number removed]",
    example="+44 20 7946 0958",
    patterns=(
        CandidatePattern(
            # International (+), a bracketed area code, or at least three groups: two groups of
            # digits are far more often a price or a version than a phone number.
            # A country code may be written "+44", "(+44)" or "0044"; a North American number
            # may start with "1-".
            rf"(?:\+{_ND}{{1,3}}|\(\+{_ND}{{1,3}}\))(?:[ .\-]?\({_ND}{{1,4}}\))?"
            rf"(?:[ .\-]?{_ND}{{1,5}}){{2,5}}"
            rf"|\({_ND}{{1,4}}\)[ .\-]?{_ND}{{2,5}}(?:[ .\-]{_ND}{{2,5}}){{1,3}}"
            rf"|{_ND}{{2,5}}(?:[ .\-]{_ND}{{2,5}}){{2,4}}"
            rf"|1[ .\-]\(?{_ND}{{3}}\)?[ .\-]?{_ND}{{3}}[ .\-]{_ND}{{4}}"
            # Two groups after a trunk prefix 0 ("030 68677062", "06-81832411"): a national
            # number.
            rf"|0{_ND}{{1,4}}[ .\-/]{_ND}{{5,8}}"
            rf"|00{_ND}{{9,13}}",
            _phone,
            # A run of groups refused as too long ("4111 1111 1111 1111") is not a phone number
            # from its second group on.
            restart_inside=False,
        ),
        CandidatePattern(
            # Two groups ("425 8829090", "03-1234567") or one run of digits: far more often a
            # price, a version or an order number, so only after a word such as "phone" or
            # "Tel.".
            rf"(?:\b(?:{_PHONE_WORDS_ASCII})\b|(?:{_PHONE_WORDS_OTHER}))[^\d\n]{{0,24}}"
            rf"(?:\+?{_ND}{{2,5}}[ .\-/]{_ND}{{3,8}}|{_ND}{{7,12}})",
            _phone_after_word,
            restart_inside=False,
        ),
    ),
)
