"""The ``au_abn`` detector (govcore/detection/detectors/au_abn.py): the ABR's mod-89 check, the
2-3-3-3 printed groups at full confidence, a bare run weaker."""

from __future__ import annotations

import random

import pytest

from tests.detection.detectors.world_refs import abn_ok, complete_abn, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "au_abn"}
ABNS = [complete_abn(tail) for tail in ("824753556", "004085616", "123456789", "987650123")]


def _printed(abn: str, sep: str = " ") -> str:
    return sep.join((abn[:2], abn[2:5], abn[5:8], abn[8:]))


@pytest.mark.parametrize("abn", ABNS)
@pytest.mark.parametrize(
    ("form", "factor"),
    [("printed", 1.0), ("hyphens", 1.0), ("bare", 0.7), ("named", 1.0)],
)
def test_valid_abns_are_found(abn: str, form: str, factor: float) -> None:
    """Valid ABNs are found in the ABR's groups and after their name at the rule's confidence, bare runs weaker."""
    value = {"printed": _printed(abn), "hyphens": _printed(abn, "-")}.get(form, abn)
    text = f"ABN: {value}" if form == "named" else f"Supplier {value}, invoice 7"
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == value
    assert hit.confidence == pytest.approx(0.9 * factor)


def test_with_the_au_prefix_it_is_found_at_full_confidence() -> None:
    text = f"VAT AU{ABNS[1]} registered"
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == f"AU{ABNS[1]}"
    assert hit.confidence == pytest.approx(0.9)
    assert found(RULE, f"VAT AU{wrong_last(ABNS[1])} registered") == []
    assert found(RULE, f"VAT XAU{ABNS[1]} registered") == []


def test_abns_in_json_and_german_prose_are_found() -> None:
    """ABNs are found as JSON values and in German prose."""
    assert found(RULE, f'{{"abn":"{ABNS[0]}"}}') == [ABNS[0]]
    assert found(RULE, f"Die ABN lautet {_printed(ABNS[1])}.") == [_printed(ABNS[1])]


@pytest.mark.parametrize(
    "text",
    [
        f"ABN {wrong_last(ABNS[0])}",
        f"ABN {_printed(wrong_last(ABNS[2]))}",
        f"ABN {ABNS[0][:10]}",
        f"ABN {ABNS[0]}7",
        f"ABN Z{ABNS[0]}",
        f"ABN {ABNS[0][:3]} {ABNS[0][3:6]} {ABNS[0][6:]}",
        f"ABN {ABNS[0][:2]} {ABNS[0][2:5]}-{ABNS[0][5:8]} {ABNS[0][8:]}",
        "ABN 01 234 567 890",  # a leading 0: no ABN starts so
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A failed check, wrong lengths, glue, other groups, mixed separators or a leading 0 are no ABN."""
    assert found(RULE, text) == []


def test_every_other_last_digit_fails_the_check() -> None:
    """Changing the last digit of a valid ABN never gives another one (mod 89)."""
    for abn in ABNS:
        for digit in "0123456789".replace(abn[-1], ""):
            assert found(RULE, f"ABN {abn[:-1]}{digit}") == [], abn[:-1] + digit


def test_the_check_agrees_with_the_definition_on_random_numbers() -> None:
    """Over seeded random eleven-digit numbers (a tenth of them valid ABNs), an ABN is found
    exactly when the ABR's rule says it is one."""
    rng = random.Random(89)
    numbers = [complete_abn(f"{rng.randrange(10**9):09d}") for _ in range(40)]
    numbers += [f"{rng.randrange(10**10, 10**11)}" for _ in range(400)]
    for number in numbers:
        assert bool(found(RULE, f"ABN {number}")) is abn_ok(number), number
