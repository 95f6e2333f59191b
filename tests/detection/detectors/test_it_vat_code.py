"""The ``it_vat_code`` detector (govcore/detection/detectors/it_vat_code.py): the office code,
the check digit, the ``IT`` prefix, and the name of the number before bare digits."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

VAT = {"pii": "it_vat_code"}


def complete(ten: str) -> str:
    """Reference: the Agenzia delle Entrate's rule: odd positions added, even positions doubled
    (minus 9 above 9) and added, the check digit takes the total to a multiple of 10."""
    odd = sum(int(c) for c in ten[0::2])
    even = sum(2 * int(c) - (9 if int(c) > 4 else 0) for c in ten[1::2])
    return ten + str((10 - (odd + even) % 10) % 10)


VALID = [
    complete(t) for t in ("0123456001", "0789123058", "1234567012", "0000001120", "0251234099")
]


def test_the_reference_values() -> None:
    assert VALID[0] == "01234560017"


@pytest.mark.parametrize("vat", VALID)
def test_with_the_it_prefix_it_is_found_anywhere(vat: str) -> None:
    for written in (f"IT{vat}", f"IT {vat}", f"IT-{vat}", f"IT - {vat}", f"IT: {vat}"):
        text = f"Fattura a {written} del 3 marzo"
        [hit] = scanner(VAT).scan(text)
        assert text[hit.start : hit.end] == written
        assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize("vat", VALID)
def test_bare_digits_only_after_its_name(vat: str) -> None:
    for text in (f"Partita IVA: {vat}", f"P.IVA {vat}", f"VAT number {vat}"):
        assert found(VAT, text) == [vat]
    assert found(VAT, f"ordine {vat} spedito") == []


def wrong_check(vat: str) -> str:
    return vat[:10] + str((int(vat[10]) + 1) % 10)


@pytest.mark.parametrize(
    "text",
    [
        f"P.IVA {wrong_check(VALID[0])}",
        f"P.IVA {complete('0123456101')}",  # office 101 does not exist
        f"P.IVA {complete('0000000001')}",  # company number all zeros
        f"P.IVA {VALID[0]}0",
        f"P.IVA {VALID[0][:10]}",
        f"it{VALID[0]}",  # a lower-case prefix is not the EU's
        f"IT{wrong_check(VALID[1])}",
        f"IT-{wrong_check(VALID[2])}",
        f"IT / {VALID[0]}",  # no separator the EU number is printed with
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(VAT, text) == []
