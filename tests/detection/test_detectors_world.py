"""The built-in detectors on values as the world writes them: numbers after other numbers,
issuer prefixes and lengths, each country's IBAN length, addresses at the end of a sentence,
with ports, prefixes and zones, punycode domains, and phone and SSN shapes that need a word
before them.

Checksums are computed here, independently of govcore's validators.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.detection.scanning import CARD, EMAIL, IBAN, IP, PHONE, SSN, found, scanner


def luhn_digit(body: str) -> str:
    """The check digit that makes ``body`` + digit Luhn-valid."""
    total = 0
    for position, char in enumerate(reversed(body)):
        digit = int(char)
        if position % 2 == 0:  # doubled once the check digit is appended
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return str((10 - total % 10) % 10)


def with_luhn(body: str) -> str:
    return body + luhn_digit(body)


def iban(country: str, bban: str) -> str:
    """A checksum-valid IBAN of ``country`` with ``bban``."""
    rearranged = bban + country + "00"
    number = int("".join(str(int(c, 36)) for c in rearranged))
    return f"{country}{98 - number % 97:02d}{bban}"


def grouped(value: str, size: int = 4) -> str:
    return " ".join(value[i : i + size] for i in range(0, len(value), size))


# --- cards ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("1. 4111 1111 1111 1111", "4111 1111 1111 1111"),
        ("Step 2 4111 1111 1111 1111 then", "4111 1111 1111 1111"),
        ("in 2024 4111-1111-1111-1111 was used", "4111-1111-1111-1111"),
        ("items: 3 5500 0000 0000 0004", "5500 0000 0000 0004"),
        ("row 17.4111111111111111", None),  # glued by a dot: one number
        ("ref 00-4111 1111 1111 1111", None),  # joined by a hyphen: one number
        ("ref " + "00-" * 40 + "4111 1111 1111 1111", None),  # however long the number before
        ("order 12 34 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ],
)
def test_a_card_right_after_another_number_is_found(text: str, card: str | None) -> None:
    """A number before the card, separated by a space or a full stop and a space, does not hide
    it; a dot with no space joins the two into one number."""
    assert found(CARD, text) == ([card] if card else [])


@pytest.mark.parametrize(
    "card",
    [
        with_luhn("411111111111"),  # Visa, 13 digits
        with_luhn("400000000000000"),  # Visa, 16
        with_luhn("411111111111111111"),  # Visa, 19
        with_luhn("222300312200320"),  # Mastercard 2-series, 16
        with_luhn("510510510510510"),  # Mastercard, 16
        with_luhn("37144963539843"),  # American Express, 15
        with_luhn("601100099013942"),  # Discover, 16
        with_luhn("353011133330000"),  # JCB, 16
        with_luhn("3056930902590"),  # Diners Club, 14
        with_luhn("620000000000000"),  # UnionPay, 16
        with_luhn("220412345678901"),  # Mir, 16
        with_luhn("67596498264384"),  # Maestro, 15
    ],
)
def test_cards_of_every_network_are_found(card: str) -> None:
    assert found(CARD, f"paid with {card} today") == [card]


@pytest.mark.parametrize(
    "number",
    [
        with_luhn("170000000000"),  # a 13-digit millisecond timestamp (UATP wants 15)
        with_luhn("169999999999"),
        with_luhn("7123456789012"),  # no issuer starts with 7
        with_luhn("912345678901234"),  # 9 other than Troy's 9792
        with_luhn("41111111111111"),  # Visa has 13, 16 or 19 digits, not 15
        with_luhn("4111111111111111"),  # nor 17
        with_luhn("371449635398431"),  # American Express has 15, not 16
        with_luhn("51051051051051001"),  # Mastercard has 16, not 18
    ],
)
def test_luhn_valid_numbers_no_issuer_uses_are_not_cards(number: str) -> None:
    """A Luhn-valid number whose prefix names no issuer, or whose length its issuer does not
    use, is no card number (a millisecond timestamp passes Luhn one time in ten)."""
    assert found(CARD, f"id {number} logged") == []


@given(
    # Not four or eight digits: "6777 4000 0000 0000 0002" reads as a card and a number as
    # well as a number and a card.
    before=st.integers(min_value=0, max_value=9_999_999)
    .map(str)
    .filter(lambda digits: len(digits) % 4 != 0),
    separator=st.sampled_from([" ", ". ", ", ", " - ", ": ", "\n"]),
    body=st.text(alphabet="0123456789", min_size=14, max_size=14),
    style=st.sampled_from([" ", "-", ""]),
)
def test_a_valid_card_after_any_number_is_found_whole(
    before: str, separator: str, body: str, style: str
) -> None:
    """Property: a valid Visa number after any other number is found, whole, and nothing else."""
    card = with_luhn("4" + body)
    written = style.join(card[i : i + 4] for i in range(0, 16, 4))
    assert found(CARD, f"{before}{separator}{written} end") == [written]


# --- IBAN -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("country", "bban"),
    [
        ("NO", "86011117947"),  # 15
        ("BE", "539007547034"),  # 16
        ("NL", "ABNA0417164300"),  # 18
        ("DE", "370400440532013000"),  # 22
        ("FR", "20041010050500013M02606"),  # 27
        ("MT", "MALT011000012345MTLCAST001S"),  # 31
        ("LC", "HEMM000100010012001200023015"),  # 32
        ("RU", "044525225" + "40702810" * 2 + "1234"),  # 33
        ("BR", "00360305000010009795493P1"),  # 29
    ],
)
def test_ibans_of_each_length_are_found(country: str, bban: str) -> None:
    value = iban(country, bban)
    assert found(IBAN, f"pay to {value} please") == [value]
    spaced = grouped(value)
    assert found(IBAN, f"IBAN {spaced}.") == [spaced]


@pytest.mark.parametrize(
    ("country", "bban"),
    [
        ("DE", "37040044053201300"),  # one short of 22
        ("DE", "3704004405320130001"),  # one over
        ("GB", "WEST123456987654"),  # 20 instead of 22
        ("ZZ", "1234567890123456"),  # no such country
    ],
)
def test_a_checksum_valid_iban_of_the_wrong_length_is_not_found(country: str, bban: str) -> None:
    """mod 97 passes (the check digits are computed for the value as it is), but the country's
    IBANs have another length: a truncated or padded IBAN."""
    assert found(IBAN, f"account {iban(country, bban)} ok") == []


@pytest.mark.parametrize("word", ["Thanks", "AB12", "Zahlung", "X9"])
def test_an_iban_does_not_take_the_next_word(word: str) -> None:
    value = grouped(iban("DE", "370400440532013000"))
    assert found(IBAN, f"IBAN {value} {word} more") == [value]


# --- IP addresses ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("IP: 192.168.1.1.", ["192.168.1.1"]),
        ("The server is 2001:db8::1.", ["2001:db8::1"]),
        ("hosts 10.0.0.1, 10.0.0.2; and 10.0.0.3!", ["10.0.0.1", "10.0.0.2", "10.0.0.3"]),
        ("(at 172.16.5.4)", ["172.16.5.4"]),
        ("connect to 10.1.2.3:8080 now", ["10.1.2.3"]),
        ("url http://[2001:db8::7]:443/x", ["2001:db8::7"]),
        ("allow 10.0.0.0/8 and 2001:db8::/32", ["10.0.0.0/8", "2001:db8::/32"]),
        ("link fe80::1ff:fe23:4567:890a%eth0 up", ["fe80::1ff:fe23:4567:890a%eth0"]),
        ("padded 192.168.001.010 in the log", ["192.168.001.010"]),
        ("mapped ::ffff:192.0.2.128 here", ["::ffff:192.0.2.128"]),
    ],
)
def test_ip_addresses_next_to_punctuation_ports_prefixes_and_zones(
    text: str, expected: list[str]
) -> None:
    """The span is the address, with a CIDR prefix length and an IPv6 zone, without a port,
    brackets or the full stop that ends the sentence."""
    assert found(IP, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "oid 1.3.6.1.4.1 here",
        "run 1.2.3.4.5 now",
        "build v1.2.3.4 shipped",
        "value 256.1.1.1 bad",
        "range 10.0.0.0/33",  # a prefix too long for IPv4: the address alone
        "time 12:30:45 today",
    ],
)
def test_ip_near_misses(text: str) -> None:
    hits = found(IP, text)
    assert hits in ([], ["10.0.0.0"]), hits


# --- email ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    ["a@xn--d1acufc.xn--p1ai", "team@studio.photography", "x@sub.example.international"],
)
def test_punycode_and_long_top_level_domains_are_whole(address: str) -> None:
    assert found(EMAIL, f"write to {address}.") == [address]


# --- SSN and phone --------------------------------------------------------------------------


def test_ssn_with_dots_and_the_word_before_it() -> None:
    assert found(SSN, "SSN 078.05.1123, or 078-05-1123") == ["078.05.1123", "078-05-1123"]
    assert found(SSN, "mixed 078-05.1123 seps") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("phone: 425 8829090", ["425 8829090"]),
        ("Tel. 03-1234567", ["03-1234567"]),
        ("Telefon 030901820", ["030901820"]),
        ("call me at 4258829090", ["4258829090"]),
        ("price 425 8829090", []),
        ("order 4258829090 shipped", []),
        ("Tel. 03-1234567, price 425 8829090", ["03-1234567"]),
    ],
)
def test_weaker_phone_shapes_need_a_word_before_them(text: str, expected: list[str]) -> None:
    """Two groups or one run of digits is a phone number only after a word such as "phone"
    or "Tel.", with no other number between them."""
    assert found(PHONE, text) == expected


@pytest.mark.parametrize(
    "number",
    [
        "(+44) (555)123-1234",
        "1-555-123-1234",
        "00441707774707",
        "0044 1707 774 707",
        "+44 (0) 1707 774 707",
        "(415)555-0132",
        "+1-(800)-123-4567",
    ],
)
def test_country_codes_in_every_usual_writing(number: str) -> None:
    """A country code as "(+44)", "0044" or a leading "1-" is part of the number."""
    assert found(PHONE, f"reach us at {number} today") == [number]


def _mastercard_prefix_making_a_card_of(body: str) -> str:
    """A 2-series Mastercard prefix P such that P + ``body`` is Luhn-valid (16 digits)."""
    return next(
        prefix
        for prefix in map(str, range(2221, 2721))
        if with_luhn(prefix + body[:-1])[-1] == body[-1]
    )


def test_a_number_before_a_card_is_not_taken_for_its_start_whatever_the_separators() -> None:
    """ "2300 4111-1111-1111-1111": even when "2300 4111-1111-1111" happens to pass Luhn with a
    real issuer prefix, the card written with one kind of separator after it wins."""
    prefix = _mastercard_prefix_making_a_card_of("411111111111")
    assert found(CARD, f"in {prefix} 4111-1111-1111-1111 now") == ["4111-1111-1111-1111"]


@pytest.mark.parametrize(
    "card", ["4111 1111-1111 1111", "4111.1111 1111-1111", "5500-0000 0000.0004"]
)
def test_a_card_with_mixed_separators_is_found(card: str) -> None:
    assert found(CARD, f"card {card} end") == [card]


@pytest.mark.parametrize(
    "iban_bban",
    ["370400440532013000", "500105175407324931"],
)
def test_the_digits_of_an_iban_are_not_also_a_phone_number_or_a_card(iban_bban: str) -> None:
    """A shape-only match (a phone number) or another kind's match inside a validated IBAN is
    the IBAN's digits, and is not reported; alone, the same digits are."""
    value = grouped(iban("DE", iban_bban))
    text = f"IBAN {value} ok"
    kinds = {h.rule.label for h in scanner(IBAN, PHONE, CARD, SSN).scan(text)}
    assert kinds == {"iban"}
    digits_only = value[5:]
    assert found(PHONE, f"call {digits_only} now")  # the same groups without the IBAN
