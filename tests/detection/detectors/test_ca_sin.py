"""The ``ca_sin`` detector (govcore/detection/detectors/ca_sin.py): Luhn, the first digit, three
groups weaker, a bare run only after "SIN" or "NAS"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import luhn_complete, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "ca_sin"}
SINS = [luhn_complete(b) for b in ("13069254", "27364810", "45012377", "91234560", "71600432")]


def _printed(sin: str, sep: str = " ") -> str:
    return sep.join((sin[:3], sin[3:6], sin[6:]))


@pytest.mark.parametrize("sin", SINS)
def test_sins_are_found_by_form_and_name(sin: str) -> None:
    """A SIN in three groups is found weaker; after its English or French name, bare or grouped, at the rule's confidence."""
    for text, value, factor in (
        (f"employee {_printed(sin)} hired", _printed(sin), 0.7),
        (f"employee {_printed(sin, '-')} hired", _printed(sin, "-"), 0.7),
        (f"SIN: {sin}", sin, 1.0),
        (f"Numéro d'assurance sociale : {_printed(sin)}", _printed(sin), 1.0),
        (f'{{"social_insurance_number": "{sin}"}}', sin, 1.0),
    ):
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == value
        assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        f"order {SINS[0]} shipped",
        f"SIN {wrong_last(SINS[0])}",
        f"SIN {_printed(wrong_last(SINS[1]))}",
        f"SIN {luhn_complete('04645428')}",  # first digit 0: never issued
        f"SIN {luhn_complete('81234567')}",  # first digit 8: business numbers
        f"SIN {SINS[0]}1",
        f"SINGLE {_printed(SINS[2])}7",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A bare run without its name, a failed Luhn check, a first digit 0 or 8, a wrong length or a look-alike word are no SIN."""
    assert found(RULE, text) == []


def test_another_identifiers_name_does_not_hide_a_sin() -> None:
    """A SIN in three groups after "TFN" or "routing number" is still reported by a rule that
    asks for SINs (as a printed SIN without its own name): the words before a value are the
    text's author's, and a rule that never enabled TFNs must not lose SINs to that word."""
    sin = _printed(SINS[0])
    assert found(RULE, f"TFN {sin}") == [sin]
    assert found(RULE, f"ABA routing {sin}") == [sin]
