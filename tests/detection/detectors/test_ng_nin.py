"""The ``ng_nin`` detector (govcore/detection/detectors/ng_nin.py): eleven digits and Verhoeff;
after "NIN" at the rule's confidence, otherwise at half of it and never with a leading 0."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_verhoeff, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "ng_nin"}
NINS = [complete_verhoeff(b) for b in ("1234567890", "7150293846", "3389120457", "0801234567")]


@pytest.mark.parametrize("nin", NINS)
@pytest.mark.parametrize(
    "template", ["NIN: {}", "National Identification Number {}", "NIMC slip {}", '{{"nin":"{}"}}']
)
def test_named_nins_are_found(nin: str, template: str) -> None:
    """After its name a valid NIN is found at the rule's confidence."""
    text = template.format(nin)
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == nin
    assert hit.confidence == pytest.approx(0.9)


def test_a_bare_nin_is_found_at_half_the_confidence() -> None:
    """Without its name a valid NIN not starting with 0 is reported at half the rule's confidence."""
    [hit] = scanner(RULE).scan(f"enrolled {NINS[0]} today")
    assert hit.confidence == pytest.approx(0.45)


@pytest.mark.parametrize(
    "text",
    [
        f"call {NINS[3]} now",  # bare with a leading 0: a phone number's trunk prefix
        f"NIN {wrong_last(NINS[0])}",
        f"enrolled {wrong_last(NINS[1])}",
        f"NIN {NINS[0]}3",
        f"NIN {NINS[0][:10]}",
        f"NIN {NINS[0][:4]} {NINS[0][4:]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A bare run starting with 0, a failed check, wrong lengths or groups are no NIN."""
    assert found(RULE, text) == []
