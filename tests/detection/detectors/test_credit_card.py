"""The ``credit_card`` detector (govcore/detection/detectors/credit_card.py): Luhn-valid card
numbers in any script and with the usual separators, near misses, and cards next to other digits.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import pytest

from tests.detection.scanning import (
    CARD,
    SOFT_HYPHEN,
    ZWSP,
    found,
)


@pytest.mark.parametrize(
    "card",
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111111111111111",
        "4111.1111.1111.1111",
        "4111\u20131111\u20131111\u20131111",
        "５５００ ００００ ００００ ０００４",
        "٤١١١١١١١١١١١١١١١",
        "४१११११११११११११११",
        "378282246310005",
        "3782 822463 10005",
        "4222222222222",
        "6011111111111117",
        f"4111{ZWSP}1111{ZWSP}1111{ZWSP}1111",
        f"4111{SOFT_HYPHEN}1111 1111 1111",
    ],
)
def test_luhn_valid_card_numbers_are_found_whole(card: str) -> None:
    """A Luhn-valid card number in any script and with any usual separators is one match."""
    assert found(CARD, f"my card is {card}, thanks") == [card]


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",
        "4111-1111-1111-1113",
        "4111111111111112",
        "0000 0000 0000 0000",
        "1234 5678 9012 3456",
        "4111 1111 1111 11",
        "12345678901234567890123",
        "41111111111111110000000",
        "x4111111111111111",
        "4111111111111111x",
        "order 99999999999999999999999 shipped",
        "٤١١١١١١١١١١١١١١٢",
    ],
)
def test_card_near_misses_are_not_found(text: str) -> None:
    """Luhn-invalid numbers, one-digit runs, too short or too long runs and glued digits are no cards."""
    assert found(CARD, text) == []


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("card 4111111111111111 2025", "4111111111111111"),
        ("card 4111 1111 1111 1111 2025", "4111 1111 1111 1111"),
        ("card 4111-1111-1111-1111-2025", "4111-1111-1111-1111"),
        ("card 4111111111111111 12/26", "4111111111111111"),
        ("card 4111111111111111/2025", "4111111111111111"),
        ("card 4111 1111 1111 1111 12345678", "4111 1111 1111 1111"),
    ],
)
def test_card_followed_by_a_year_is_shortened_to_the_card(text: str, card: str) -> None:
    """A card number followed by an expiry year or more digits matches only the card."""
    assert found(CARD, text) == [card]


@pytest.mark.parametrize(
    "separator",
    [" ", ", ", " and ", "\n", ",", " / "],
    ids=["sp", "comma-sp", "and", "nl", ",", "/"],
)
def test_two_cards_in_a_row_are_two_matches(separator: str) -> None:
    """Two cards one after the other are reported as two matches, each whole."""
    text = f"4111111111111111{separator}5500 0000 0000 0004"
    assert found(CARD, text) == ["4111111111111111", "5500 0000 0000 0004"]


def test_a_value_glued_to_plain_text_stays_refused() -> None:
    """The card number in an order reference is still no card number."""
    assert found(CARD, "ref ORDER4111111111111111 ok") == []
