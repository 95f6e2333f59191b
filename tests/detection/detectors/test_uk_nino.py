"""The ``uk_nino`` detector (govcore/detection/detectors/uk_nino.py): HMRC's prefix rules, the
suffix, and the name of the number before one written without its suffix."""

from __future__ import annotations

import json

import pytest

from tests.detection.scanning import found, scanner

NINO = {"pii": "uk_nino"}


@pytest.mark.parametrize(
    "nino", ["AB 12 34 56 C", "AB123456C", "JG 10 37 29 B", "CE 123456 A", "ZY-55-01-72-D"]
)
def test_a_number_with_its_suffix_is_found_anywhere(nino: str) -> None:
    text = f"Our records show {nino} for this employee."
    assert found(NINO, text) == [nino]
    [hit] = scanner(NINO).scan(text)
    assert hit.confidence == pytest.approx(0.9 * 0.85)  # a shape: no check digit


@pytest.mark.parametrize(
    "text",
    [
        "National Insurance number: AB 12 34 56 C",
        "NINO AB123456C",
        "your NI number is AB 12 34 56 C.",
    ],
)
def test_after_its_name_it_is_found_at_the_full_confidence(text: str) -> None:
    [hit] = scanner(NINO).scan(text)
    assert text[hit.start : hit.end].replace(" ", "") == "AB123456C"
    assert hit.confidence == pytest.approx(0.9)


def test_without_its_suffix_only_after_its_name() -> None:
    assert found(NINO, "National Insurance no. AB 12 34 56 next") == ["AB 12 34 56"]
    assert found(NINO, "Ticket AB 12 34 56 next") == []
    assert found(NINO, "Ticket AB123456 next") == []


@pytest.mark.parametrize(
    "text",
    [
        "DA 12 34 56 C",  # D is never a first letter
        "QQ 12 34 56 C",  # Q neither (QQ is the prefix of HMRC's examples)
        "QA 12 34 56 C",
        "AO 12 34 56 C",  # O is never a second letter
        "GB 12 34 56 C",  # not allocated
        "NK 12 34 56 C",
        "TN 12 34 56 C",
        "AB 12 34 56 E",  # suffixes are A to D
        "Ab 12 34 56 C",  # mixed cases
        "ab 12 34 56 C",
        "qq 12 34 56 c",  # the prefix rules hold in lower case too
        "ab 12 34 56 e",
        "XAB123456C",  # glued to a letter
        "AB1234567C",  # seven digits
        "AB 12 34 56 C7",
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(NINO, f"value {text} end") == []


def test_in_json_and_other_languages() -> None:
    payload = json.dumps({"employee": {"ni": "JG103729B", "name": "Ann"}})
    assert found(NINO, payload) == ["JG103729B"]
    assert found(NINO, "Die Versicherungsnummer lautet CE 123456 A.") == ["CE 123456 A"]


def test_in_lower_case_only_after_its_name() -> None:
    """Some forms store the number in lower case; unnamed, a lower-case token of that shape is
    more often a sort code's line or a build id."""
    assert found(NINO, "ref ab 12 34 56 c ok") == []
    assert found(NINO, "sc 12-34-56 a/c 12345678") == []
    text = "NINO: tw987654a"
    [named] = scanner(NINO).scan(text)
    assert text[named.start : named.end] == "tw987654a"
    assert named.confidence == pytest.approx(0.9)
    assert found(NINO, "NI number ab 12 34 56 next") == ["ab 12 34 56"]
    assert found(NINO, "ticket ab 12 34 56 next") == []
