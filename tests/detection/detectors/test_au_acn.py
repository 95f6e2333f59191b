"""The ``au_acn`` detector (govcore/detection/detectors/au_acn.py): ASIC's check digit, three
printed groups weaker, a bare run only after "ACN"."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import complete_acn, wrong_last
from tests.detection.scanning import found, scanner

RULE = {"pii": "au_acn"}
ACNS = [complete_acn(body) for body in ("00408561", "01074987", "12345678", "61853095")]


def _printed(acn: str) -> str:
    return f"{acn[:3]} {acn[3:6]} {acn[6:]}"


@pytest.mark.parametrize("acn", ACNS)
def test_acns_are_found_by_form_and_name(acn: str) -> None:
    """An ACN in three groups is found weaker; after its name, bare or grouped, at the rule's confidence."""
    for text, value, factor in (
        (f"Company {_printed(acn)} Pty Ltd", _printed(acn), 0.7),
        (f"ACN {acn}", acn, 1.0),
        (f"Australian Company Number: {_printed(acn)}", _printed(acn), 1.0),
    ):
        [hit] = scanner(RULE).scan(text)
        assert text[hit.start : hit.end] == value
        assert hit.confidence == pytest.approx(0.9 * factor)


@pytest.mark.parametrize(
    "text",
    [
        f"Invoice {ACNS[2]} paid",
        f"ACN {wrong_last(ACNS[0])}",
        f"ACN {_printed(wrong_last(ACNS[3]))}",
        f"ACN {ACNS[0]}5",
        f"ACN {ACNS[0][1:]}",
        f"ACN a{ACNS[1]}",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """A bare run without its name, a failed check, wrong lengths or glue are no ACN."""
    assert found(RULE, text) == []
