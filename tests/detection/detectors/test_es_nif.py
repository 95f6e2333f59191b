"""The ``es_nif`` and ``es_nie`` detectors (govcore/detection/detectors/es_nif.py, es_nie.py):
the check letter of the Ministry of the Interior's table, and the written forms."""

from __future__ import annotations

import json

import pytest

from tests.detection.scanning import found, scanner

NIF = {"pii": "es_nif"}
NIE = {"pii": "es_nie"}

# Reference: the remainder of the number divided by 23 picks the letter, in the order the
# Ministry publishes (0 is T, 1 is R, ..., 22 is E).
TABLE = dict(enumerate("T R W A G M Y F P D X B N J Z S Q V H L C K E".split()))


def dni(number: int) -> str:
    return f"{number:08d}{TABLE[number % 23]}"


def nie(prefix: str, number: int) -> str:
    whole = "XYZ".index(prefix) * 10_000_000 + number
    return f"{prefix}{number:07d}{TABLE[whole % 23]}"


def test_the_reference_table() -> None:
    assert dni(12345678) == "12345678Z"
    assert nie("X", 1234567) == "X1234567L"
    assert nie("Y", 1234567) == "Y1234567X"


DNIS = [dni(n) for n in (12345678, 48392017, 70123456, 5551234, 99999998)]


@pytest.mark.parametrize("value", DNIS)
def test_a_dni_is_found_in_every_printed_form(value: str) -> None:
    digits, letter = value[:8], value[8]
    for written in (value, f"{digits}-{letter}", f"{digits} {letter}",
                    f"{digits[:2]}.{digits[2:5]}.{digits[5:]}-{letter}", value.lower()):  # fmt: skip
        text = f"Mi DNI es {written}, gracias."
        [hit] = scanner(NIF).scan(text)
        assert text[hit.start : hit.end] == written
        assert hit.confidence == pytest.approx(0.9)


def test_the_k_l_m_forms() -> None:
    value = f"L{dni(1234567)[1:]}"  # seven digits, the letter of their number
    assert found(NIF, f"NIF {value}") == [value]
    dashed = f"M-{value[1:8]}-{value[8]}"
    assert found(NIF, f"NIF {dashed}") == [dashed]


@pytest.mark.parametrize("digit", [1, 5, 9])
def test_a_number_of_one_repeated_digit_is_a_number_like_any_other(digit: int) -> None:
    """Only the all-zero number is a placeholder; 55555555K has its letter and is issued."""
    value = dni(int(str(digit) * 8))
    assert found(NIF, f"DNI {value}") == [value]


def off_by_one(value: str) -> str:
    letters = "".join(TABLE.values())
    return value[:-1] + letters[(letters.index(value[-1]) + 1) % 23]


@pytest.mark.parametrize(
    "text",
    [
        off_by_one(DNIS[0]),
        DNIS[0][1:],  # seven digits and a letter
        "1" + DNIS[0],  # nine digits
        DNIS[0] + "X",  # glued to a letter
        "A" + DNIS[0][1:],  # not a K, L or M form
        "00000000T",  # passes the table, a placeholder
        "M-1234567L".replace("L", off_by_one(f"L{dni(1234567)[1:]}")[-1]),  # dashed, wrong letter
    ],
)
def test_dni_near_misses_are_not_found(text: str) -> None:
    assert found(NIF, f"doc {text} end") == []


NIES = [nie(p, n) for p, n in (("X", 1234567), ("Y", 7654321), ("Z", 1112223), ("X", 9003001))]


@pytest.mark.parametrize("value", NIES)
def test_an_nie_is_found(value: str) -> None:
    for written in (value, f"{value[0]}-{value[1:8]}-{value[8]}", f"{value[0]} {value[1:]}"):
        text = f"NIE: {written}."
        assert found(NIE, text) == [written]
    assert found(NIF, f"NIE: {value}.") == []  # not a DNI


@pytest.mark.parametrize("text", [off_by_one(NIES[0]), "W1234567L", NIES[0] + "5", "X123456L"])
def test_nie_near_misses_are_not_found(text: str) -> None:
    assert found(NIE, f"NIE {text} fin") == []


def test_in_json_and_prose() -> None:
    payload = json.dumps({"cliente": {"dni": DNIS[1], "nie": NIES[1]}})
    assert found(NIF, payload) == [DNIS[1]]
    assert found(NIE, payload) == [NIES[1]]
    assert found(NIF, f"Il codice {DNIS[2]} è spagnolo.") == [DNIS[2]]
