"""The ``sg_nric_fin`` detector (govcore/detection/detectors/sg_nric_fin.py): the S, T, F, G and
M series and their check letters."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_nric
from tests.detection.scanning import found

RULE = {"pii": "sg_nric_fin"}
NRICS = [
    complete_nric(prefix, digits)
    for prefix, digits in (
        ("S", "1234567"),
        ("T", "0123456"),
        ("F", "2740116"),
        ("G", "5012344"),
        ("M", "1234567"),
        ("M", "7654321"),
        ("S", "8812390"),
    )
]


@pytest.mark.parametrize("nric", NRICS)
@pytest.mark.parametrize(
    "template", ["NRIC: {}", "holder {} applied", '{{"fin":"{}"}}', "身份证 {}。"]
)
def test_valid_numbers_are_found(nric: str, template: str) -> None:
    """Valid numbers of every series are found in forms, prose, JSON and Chinese text."""
    assert found(RULE, template.format(nric)) == [nric]


def test_lower_case_is_found_when_both_letters_are() -> None:
    """An NRIC written in lower case throughout is found."""
    assert found(RULE, f"nric {NRICS[0].lower()}") == [NRICS[0].lower()]


def _other_letter(nric: str) -> str:
    return nric[:8] + ("A" if nric[8] != "A" else "B")


@pytest.mark.parametrize(
    "text",
    [
        *(f"NRIC {_other_letter(n)}" for n in NRICS),
        f"NRIC A{NRICS[0][1:]}",  # no such series
        f"NRIC {NRICS[0][0].lower()}{NRICS[0][1:]}",  # the two letters differ in case
        f"NRIC X{NRICS[0]}",
        f"NRIC {NRICS[0]}9",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A wrong check letter, an unknown series, letters of different case or glue are no NRIC."""
    assert found(RULE, text) == []
