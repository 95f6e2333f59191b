"""The ``ph_tin`` detector (govcore/detection/detectors/ph_tin.py): the mod-11 ninth digit, the
hyphenated groups weaker, a bare run only after "TIN" or "BIR"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_ph_tin, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "ph_tin"}
TINS = [t for b in ("12345678", "40251367", "20718403", "31109875") if (t := complete_ph_tin(b))]


def _printed(tin: str, branch: str = "") -> str:
    return "-".join(p for p in (tin[:3], tin[3:6], tin[6:], branch) if p)


@pytest.mark.parametrize("tin", TINS)
def test_tins_are_found_by_form_and_name(tin: str) -> None:
    """A hyphenated TIN with or without its branch code is found weaker; after its name at the rule's confidence."""
    for text, value, factor in (
        (f"payee {_printed(tin, '000')} OR", _printed(tin, "000"), 0.7),
        (f"payee {_printed(tin)} OR", _printed(tin), 0.7),
        (f"TIN: {tin}000", f"{tin}000", 1.0),
        (f"BIR TIN {_printed(tin, '00000')}", _printed(tin, "00000"), 1.0),
        (f'{{"tin":"{tin}"}}', tin, 1.0),
    ):
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == value
        assert hit.confidence == pytest.approx(0.9 * factor)


def test_four_tins_are_made() -> None:
    """The reference made a TIN of each body, so the tests above check four values."""
    assert len(TINS) == 4


@pytest.mark.parametrize(
    "text",
    [
        f"order {TINS[0]} shipped",
        f"TIN {wrong_last(TINS[0])}",
        f"TIN {_printed(wrong_last(TINS[1]), '000')}",
        f"TIN {TINS[0]}0",  # ten digits
        f"TIN {TINS[0][:3]} {TINS[0][3:6]} {TINS[0][6:]}",  # spaces: not the printed form
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A bare run without its name, a failed check, a wrong length or spaces for hyphens are no TIN."""
    assert found(RULE, text) == []


def test_every_other_ninth_digit_fails_the_check() -> None:
    """Any other ninth digit than the check's is refused."""
    for tin in TINS:
        for digit in "0123456789".replace(tin[8], ""):
            value = f"{tin[:3]}-{tin[3:6]}-{tin[6:8]}{digit}-000"
            assert found(RULE, f"TIN {value}") == [], value
