"""The ``it_fiscal_code`` detector (govcore/detection/detectors/it_fiscal_code.py): the
Agenzia delle Entrate's check letter, months, days, and omocodia."""

from __future__ import annotations

import json

import pytest

from tests.detection.scanning import found, scanner

CF = {"pii": "it_fiscal_code"}

# Reference: the conversion tables of the Ministry of Finance's decree of 1976, written out.
ODD = {
    "0": 1, "1": 0, "2": 5, "3": 7, "4": 9, "5": 13, "6": 15, "7": 17, "8": 19, "9": 21,
    "A": 1, "B": 0, "C": 5, "D": 7, "E": 9, "F": 13, "G": 15, "H": 17, "I": 19, "J": 21,
    "K": 2, "L": 4, "M": 18, "N": 20, "O": 11, "P": 3, "Q": 6, "R": 8, "S": 12, "T": 14,
    "U": 16, "V": 10, "W": 22, "X": 25, "Y": 24, "Z": 23,
}  # fmt: skip
EVEN = {**{str(d): d for d in range(10)}, **{chr(65 + i): i for i in range(26)}}


def complete(fifteen: str) -> str:
    odd = sum(ODD[c] for c in fifteen[0::2])
    even = sum(EVEN[c] for c in fifteen[1::2])
    return fifteen + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(odd + even) % 26]


VALID = [
    complete("RSSMRA85T10A562"),
    complete("BNCLRA92E55F205"),  # a woman: day 15 + 40
    complete("VRDGPP13A01H501"),
    complete("RSSMRA85T10A5N2"),  # omocodia: the 6 of the place written N
    complete("CLMGNN70L5LH501"),  # omocodia in the day
]


def test_the_reference_check_letter() -> None:
    assert VALID[0] == "RSSMRA85T10A562S"


@pytest.mark.parametrize("code", VALID)
def test_a_fiscal_code_is_found(code: str) -> None:
    text = f"Il mio codice fiscale è {code}, grazie."
    [hit] = scanner(CF).scan(text)
    assert text[hit.start : hit.end] == code
    assert hit.confidence == pytest.approx(0.9)
    assert found(CF, f"cf: {code.lower()}") == [code.lower()]


def wrong_check(code: str) -> str:
    return code[:15] + ("A" if code[15] != "A" else "B")


@pytest.mark.parametrize(
    "text",
    [
        wrong_check(VALID[0]),
        complete("RSSMRA85Z10A562"),  # Z is no month letter
        complete("RSSMRA85T32A562"),  # day 32
        complete("RSSMRA85T75A562"),  # day 75 (35 for a woman)
        VALID[0][:15],
        VALID[0] + "X",
        "X" + VALID[0],
        "RsSMRA85T10A562S",  # mixed case
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    assert found(CF, f"codice {text} fine") == []


def test_in_json_and_other_languages() -> None:
    payload = json.dumps({"codiceFiscale": VALID[1], "nome": "Laura"})
    assert found(CF, payload) == [VALID[1]]
    assert found(CF, f"Steuernummer (Italien): {VALID[2]}.") == [VALID[2]]
