"""The ``uk_driving_licence`` detector (govcore/detection/detectors/uk_driving_licence.py): the
DVLA's sixteen characters, the birth date inside them, and the weight of the name."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

LICENCE = {"pii": "uk_driving_licence"}


def licence(surname: str, born: tuple[int, int, int], female: bool, initials: str) -> str:
    """Reference: the DVLA's layout, with 9 for the arbitrary digit and AB for the check letters."""
    year, month, day = born
    head = (surname.upper() + "99999")[:5]
    month += 50 if female else 0
    return f"{head}{str(year)[2]}{month:02d}{day:02d}{str(year)[3]}{(initials + '9')[:2]}9AB"


VALID = [
    "MORGA753116SM9IJ",
    licence("Smith", (1980, 4, 30), False, "JR"),
    licence("Li", (1992, 2, 29), True, "W"),
    licence("Okonkwo", (2001, 12, 1), True, "AN"),
]


@pytest.mark.parametrize("number", VALID)
def test_a_licence_number_is_found_anywhere(number: str) -> None:
    text = f"Copy of licence {number} attached."
    [hit] = scanner(LICENCE).scan(text)
    assert text[hit.start : hit.end] == number
    assert hit.confidence == pytest.approx(0.9 * 0.85)


def test_the_reference_layout() -> None:
    assert VALID[1] == "SMITH804300JR9AB"
    assert VALID[2] == "LI999952292W99AB"


def test_after_its_name_at_full_confidence_and_spaced_as_printed() -> None:
    text = "Driving licence number: MORGA 753116 SM9IJ"
    [hit] = scanner(LICENCE).scan(text)
    assert text[hit.start : hit.end] == "MORGA 753116 SM9IJ"
    assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize(
    "text",
    [
        "MORGA713116SM9IJ",  # month 13
        "MORGA764016SM9IJ",  # month 14 for a woman (64)
        "MORGA702316SM9IJ",  # 31 February
        "MORGA753326SM9IJ",  # day 32
        "MO9GA753116SM9IJ",  # a letter after the padding
        "9ORGA753116SM9IJ",
        "MORGA753116sm9ij",  # mixed cases
        "morga713116sm9ij",  # month 13, in lower case
        "XMORGA753116SM9IJ",
        "MORGA753116SM9IJK",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(LICENCE, f"licence {text} end") == []


def test_in_lower_case_weaker_unless_named() -> None:
    [bare] = scanner(LICENCE).scan("copy morga753116sm9ij attached")
    assert bare.confidence == pytest.approx(0.9 * 0.7)
    text = "Driving licence: morga753116sm9ij"
    [named] = scanner(LICENCE).scan(text)
    assert text[named.start : named.end] == "morga753116sm9ij"
    assert named.confidence == pytest.approx(0.9)
