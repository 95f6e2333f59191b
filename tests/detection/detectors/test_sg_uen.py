"""The ``sg_uen`` detector (govcore/detection/detectors/sg_uen.py): ACRA's three forms and their
check letters; the digit forms weaker without the word "UEN"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import (
    complete_uen_business,
    complete_uen_local,
    complete_uen_other,
)
from tests.detection.scanning import found, scanner

RULE = {"pii": "sg_uen"}
BUSINESS = [complete_uen_business(d) for d in ("53312345", "52800012", "47123098")]
LOCAL = [complete_uen_local(d) for d in ("200012345", "199701234", "201912345")]
OTHER = [complete_uen_other(b) for b in ("T09LL0001", "S99CC0123", "T22LP1234", "R18SS0007")]


@pytest.mark.parametrize("uen", BUSINESS + LOCAL)
def test_digit_forms_are_found_weaker_without_their_name(uen: str) -> None:
    """The business and local-company forms are found at the rule's confidence after UEN, weaker without it."""
    for text, factor in ((f"UEN: {uen}", 1.0), (f"registered as {uen} in 2019", 0.8)):
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == uen
        assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize("uen", OTHER)
def test_entity_forms_are_found_anywhere(uen: str) -> None:
    """The third form, with its entity type, is found at the rule's confidence without a name."""
    [hit] = scanner(RULE).scan(f'{{"entity": "{uen}"}}')
    assert hit.confidence == pytest.approx(0.9)
    assert found(RULE, f"Society {uen} renewed") == [uen]


def _other_letter(uen: str) -> str:
    return uen[:-1] + ("A" if uen[-1] != "A" else "B")


@pytest.mark.parametrize(
    "text",
    [
        *(f"UEN {_other_letter(u)}" for u in BUSINESS + LOCAL + OTHER),
        f"UEN {complete_uen_other('T09QQ0001')}",  # no entity type QQ
        f"UEN {complete_uen_local('250012345')}",  # year 2500
        f"UEN {OTHER[0].lower()}",
        f"UEN {BUSINESS[0]}X",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A wrong check letter, an unknown entity type, a year outside 1800-2099, lower case or glue are no UEN."""
    assert found(RULE, text) == []
