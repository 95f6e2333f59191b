"""The ``phone`` detector (govcore/detection/detectors/phone.py): phone number shapes found with
the shape's confidence; dates and IP addresses are not phone numbers.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import pytest

from tests.detection.scanning import (
    PHONE,
    found,
    scanner,
)


@pytest.mark.parametrize(
    "phone",
    [
        "+44 20 7946 0958",
        "+1 415 555 2671",
        "+1 415-555-2671",
        "+1 (415) 555 2671",
        "(415) 555-2671",
        "020 7946 0958",
        "+1\u00a0415\u00a0555\u00a02671",
    ],
)
def test_phone_numbers_are_found_with_shape_confidence(phone: str) -> None:
    """International and national numbers are found, at 0.7 of the rule's confidence."""
    hits = scanner(PHONE).scan(f"call {phone} now")
    assert [f"call {phone} now"[h.start : h.end] for h in hits] == [phone]
    assert hits[0].confidence == pytest.approx(0.9 * 0.7)


@pytest.mark.parametrize("phone", ["+14155552671", "+442079460958", "+4930901820"])
def test_e164_phone_numbers_without_separators_are_found(phone: str) -> None:
    """A number in canonical E.164 form (plus sign and digits only) is a phone number."""
    assert found(PHONE, f"call {phone} now") == [phone]


@pytest.mark.parametrize(
    "text",
    [
        "on 2023-01-15 at noon",
        "due 15.01.2023",
        "due 01/15/2023",
        "due 1/5/23",
        "host 192.168.1.1",
        "host 10.0.0.1",
        "version 1.2.3.4",
        "at 12:30:45",
        "call 123 45",
    ],
)
def test_dates_and_ip_addresses_are_not_phone_numbers(text: str) -> None:
    """Dates, dotted quads, times and too-short digit groups are not phone numbers."""
    assert found(PHONE, text) == []


@pytest.mark.parametrize("text", ["meet on 2023-01-15 10:30 please", "released 2023.01.15"])
def test_dates_with_a_time_or_dots_are_not_phone_numbers(text: str) -> None:
    """An ISO date followed by a time, or a year-first date with dots, is not a phone number."""
    assert found(PHONE, text) == []


@pytest.mark.parametrize(
    "text",
    [
        "PAN: +1 415 555 2671",
        "TFN 020 7946 0958",
        "transit number: (415) 555-2671",
        "Call 1/+1 415 555 2671",
        "Room 12/+33 1 42 68 53 00",
        "2-(415) 555-2671",
    ],
)
def test_words_or_digits_before_a_phone_number_do_not_hide_it(text: str) -> None:
    """Another identifier's name, or a digit and a separator, just before a phone number do not
    hide it from a rule that asks for phone numbers: whether the tenant also enables that
    identifier is not this detector's to know, and an author of the text chooses the words."""
    assert found(PHONE, text) != []


@pytest.mark.parametrize(
    "text",
    [
        "Ligue-nos nas horas de expediente: 021 234 5678",
        "Bir numara daha: 0212 345 67 89",
        "Frying pan sold out, call 020 7946 0958",
    ],
)
def test_a_short_identifier_name_further_away_does_not_hide_a_phone_number(text: str) -> None:
    """Only a name right before the number (punctuation, "is" or "no." between) makes it that
    identifier's: "nas" or "bir" words earlier in the sentence do not."""
    assert found(PHONE, text) != []
