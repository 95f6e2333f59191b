"""The ``iban`` detector (govcore/detection/detectors/iban.py): checksum-valid IBANs with and without
spaces, wrong checksums, glued and truncated ones, and the mod-97 arithmetic.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from govcore.detection.detectors.iban import mod97_valid
from tests.detection.scanning import (
    IBAN,
    ZWSP,
    found,
)


@pytest.mark.parametrize(
    "iban",
    [
        "GB82 WEST 1234 5698 7654 32",
        "GB82WEST12345698765432",
        "gb82west12345698765432",
        "gb82 west 1234 5698 7654 32",
        "DE89370400440532013000",
        "DE89 3704 0044 0532 0130 00",
        "FR14 2004 1010 0505 0001 3M02 606",
        "NL91ABNA0417164300",
        f"GB82{ZWSP}WEST12345698765432",
    ],
)
def test_checksum_valid_ibans_are_found(iban: str) -> None:
    """An IBAN with a valid mod-97 checksum is found with and without spaces, in any case."""
    assert found(IBAN, f"IBAN: {iban}.") == [iban]


@pytest.mark.parametrize(
    "text",
    [
        "GB83 WEST 1234 5698 7654 32",
        "GB82WEST12345698765433",
        "DE88370400440532013000",
        "XGB82WEST12345698765432",
        "GB82WEST12345698765432X",
        "GB82 WEST 1234",
    ],
)
def test_ibans_with_wrong_checksum_or_glued_are_not_found(text: str) -> None:
    """A wrong check digit, a glued letter or a truncated IBAN is not an IBAN."""
    assert found(IBAN, text) == []


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet="0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ٣۷", max_size=80
    )
)
def test_mod97_agrees_with_base36_arithmetic(candidate: str) -> None:
    """The IBAN checksum (fast path for ASCII, digit by digit otherwise) equals the ISO 13616
    definition: letters as 10..35, the first four characters moved to the end, mod 97 is 1."""
    rearranged = candidate[4:] + candidate[:4]
    digits = "".join(
        str(int(c, 36)) if c.isascii() else str(unicodedata.digit(c)) for c in rearranged
    )
    expected = bool(digits) and int(digits) % 97 == 1
    assert mod97_valid(candidate) is expected


def test_iban_right_after_a_key_is_found() -> None:
    """An IBAN candidate that starts inside the key before it must not swallow the IBAN."""
    text = "sk_live_4eC39HqLyjWDarjtT1zdp7dc GB82 WEST 1234 5698 7654 32 now"
    assert found(IBAN, text) == ["GB82 WEST 1234 5698 7654 32"]
