"""The ``au_tfn`` detector (govcore/detection/detectors/au_tfn.py): the ATO's mod-11 check, the
three printed groups, and the word "TFN" that a bare run of nine digits needs."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_tfn, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "au_tfn"}
TFNS = [complete_tfn(body) for body in ("12345678", "87654321", "45937164", "30011452")]


def _spaced(tfn: str, sep: str = " ") -> str:
    return sep.join((tfn[:3], tfn[3:6], tfn[6:]))


@pytest.mark.parametrize("tfn", TFNS)
@pytest.mark.parametrize("sep", [" ", "-"])
def test_printed_tfns_are_found_weaker_without_their_name(tfn: str, sep: str) -> None:
    """Three groups of three with a valid check: a TFN at 0.7 of the rule's confidence."""
    text = f"reference {_spaced(tfn, sep)} on file"
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == _spaced(tfn, sep)
    assert hit.confidence == pytest.approx(0.9 * 0.7)


@pytest.mark.parametrize("tfn", TFNS)
@pytest.mark.parametrize(
    "template",
    [
        "TFN: {}",
        "My tax file number is {}.",
        "Tax File Number (TFN) {}",
        '{{"tfn": "{}"}}',
    ],
)
def test_named_tfns_are_found_in_any_form(tfn: str, template: str) -> None:
    """After its name, bare or grouped, at the rule's confidence."""
    for value in (tfn, _spaced(tfn)):
        text = template.format(value)
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == value
        assert hit.confidence == pytest.approx(0.9)


@pytest.mark.parametrize(
    "text",
    [
        f"Order {TFNS[0]} shipped",  # a bare run without its name
        f"TFN {wrong_last(TFNS[0])}",  # the check fails
        f"TFN {_spaced(wrong_last(TFNS[1]))}",
        f"TFN {TFNS[0]}1",  # ten digits
        f"TFN {TFNS[0][:8]}",  # eight digits
        f"TFN X{TFNS[0]}",  # glued to a letter
        f"TFN {TFNS[0][:3]} {TFNS[0][3:5]} {TFNS[0][5:]}",  # not the ATO's groups
        f"TFN {TFNS[0][:3]}-{TFNS[0][3:6]} {TFNS[0][6:]}",  # mixed separators
        f"The TFN form.\n{TFNS[0]}",  # the word is on another line
        f"call {_spaced(TFNS[2])}0",  # glued to more digits
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A bare run without its name, a failed check, wrong lengths or groups, glue or a name on the line before are no TFN."""
    assert found(RULE, text) == []
