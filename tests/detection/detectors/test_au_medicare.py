"""The ``au_medicare`` detector (govcore/detection/detectors/au_medicare.py): the first digit 2
to 6, the ninth a weighted check digit, 4-5-1 groups weaker, a bare run only after "Medicare"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_medicare
from tests.detection.scanning import found, scanner

RULE = {"pii": "au_medicare"}
CARDS = [
    complete_medicare(body, issue)
    for body, issue in (("21234567", "1"), ("29513047", "3"), ("63372019", "2"), ("40918376", "5"))
]


def _printed(card: str) -> str:
    return f"{card[:4]} {card[4:9]} {card[9]}"


@pytest.mark.parametrize("card", CARDS)
def test_cards_are_found_by_form_and_name(card: str) -> None:
    """A Medicare number in 4-5-1 groups is found weaker; after its name, bare or grouped, at the rule's confidence."""
    for text, value, factor in (
        (f"card {_printed(card)} exp 06/27", _printed(card), 0.7),
        (f"Medicare number: {card}", card, 1.0),
        (f"Medicare card {_printed(card)}", _printed(card), 1.0),
    ):
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == value
        assert hit.confidence == pytest.approx(0.9 * factor)


def _bad_check(card: str) -> str:
    return card[:8] + str((int(card[8]) + 1) % 10) + card[9]


@pytest.mark.parametrize(
    "text",
    [
        f"call {CARDS[0]} now",  # ten bare digits: a phone number as often
        f"Medicare {_bad_check(CARDS[0])}",
        f"Medicare {_printed(_bad_check(CARDS[1]))}",
        f"Medicare {complete_medicare('71234567')}",  # first digit outside 2-6
        f"Medicare {complete_medicare('11234567')}",
        f"Medicare {CARDS[0]}9",
        f"Medicare {CARDS[0][:4]} {CARDS[0][4:8]} {CARDS[0][8:]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """Ten bare digits without the name, a failed check, a first digit outside 2-6, wrong lengths or groups are no Medicare number."""
    assert found(RULE, text) == []
