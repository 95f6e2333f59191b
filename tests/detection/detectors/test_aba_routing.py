"""The ``aba_routing`` detector (govcore/detection/detectors/aba_routing.py): the routing symbol,
the 3-7-1 checksum, the hyphenated form weaker, a bare run only after "routing" or "ABA"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_aba, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "aba_routing"}
NUMBERS = [complete_aba(b) for b in ("02600959", "12100035", "32207117", "61000010", "80000001")]


@pytest.mark.parametrize("number", NUMBERS)
def test_routing_numbers_are_found_by_form_and_name(number: str) -> None:
    """A routing number is found after its name, bare or hyphenated, at the rule's confidence, hyphenated alone weaker."""
    hyphenated = f"{number[:4]}-{number[4:8]}-{number[8]}"
    for text, value, factor in (
        (f"Routing number: {number}", number, 1.0),
        (f"ABA {number}, account 000123456789", number, 1.0),
        (f"RTN {hyphenated}", hyphenated, 1.0),
        (f"bank {hyphenated} wire", hyphenated, 0.7),
        (f'{{"routing": "{number}"}}', number, 1.0),
    ):
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == value
        assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        f"invoice {NUMBERS[0]} paid",  # a bare run without its name
        f"routing {wrong_last(NUMBERS[0])}",
        f"routing {complete_aba('42100035')}",  # routing symbol 42
        f"routing {complete_aba('90000001')}",  # routing symbol 90
        f"routing {NUMBERS[1]}8",
        f"routing {NUMBERS[1][:4]}-{NUMBERS[1][4:]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A bare run without its name, a failed checksum, an unassigned routing symbol or a wrong length or grouping are no routing number."""
    assert found(RULE, text) == []
