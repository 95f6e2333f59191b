"""The ``in_gstin`` detector (govcore/detection/detectors/in_gstin.py): state code, PAN, entity
number, ``Z`` and the mod-36 check character."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_gstin
from tests.detection.scanning import found

RULE = {"pii": "in_gstin"}
GSTINS = [
    complete_gstin(body)
    for body in (
        "27AAPFU0939F1Z",
        "29ABCPE1234F2Z",
        "07AAACR5055K1Z",
        "33BNZPM2501F1Z",
        "97AAAGT0001AAZ",
    )
]


@pytest.mark.parametrize("gstin", GSTINS)
@pytest.mark.parametrize(
    "template", ["GSTIN: {}", "Invoice from {} dated 3 May", '{{"gstin":"{}"}}', "जीएसटीआईएन {}"]
)
def test_valid_gstins_are_found(gstin: str, template: str) -> None:
    """Valid GSTINs are found in forms, prose, JSON and Hindi text."""
    assert found(RULE, template.format(gstin)) == [gstin]


def _other_check(gstin: str) -> str:
    return gstin[:14] + ("A" if gstin[14] != "A" else "B")


@pytest.mark.parametrize(
    "text",
    [
        f"GSTIN {_other_check(GSTINS[0])}",
        f"GSTIN {_other_check(GSTINS[1])}",
        f"GSTIN {complete_gstin('40AAPFU0939F1Z')}",  # no state 40
        f"GSTIN {GSTINS[0].lower()}",
        f"GSTIN {GSTINS[0]}X",
        f"GSTIN {GSTINS[0][:14]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A wrong check character, an unknown state code, lower case, an extra or a missing character are no GSTIN."""
    assert found(RULE, text) == []
