"""Single characters as detection sees them (govcore/detection/chars.py): one word test, one
glue rule and one table of invisible characters, shared by the normalisation, the scanner, the
detectors and the identifier check of the wire models."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from govcore.detection.chars import (
    DEFAULT_IGNORABLE,
    digit,
    glues,
    is_default_ignorable,
    is_word,
)
from govcore.detection.normalize import is_invisible, normalize
from govcore.text_rules import check_identifier
from tests.detection.scanning import CARD, found

ACUTE = "\u0301"


@pytest.mark.parametrize(("char", "word"), [
    ("a", True), ("Z", True), ("7", True), ("_", True), ("é", True), ("٣", True), ("漢", True),
    (ACUTE, True),  # a mark that composed with nothing still belongs to its letter
    ("-", False), (".", False), (" ", False), ("@", False), ("\u200b", False),
])  # fmt: skip
def test_a_word_character_is_a_letter_digit_underscore_or_mark(char: str, word: bool) -> None:
    assert is_word(char) is word


@pytest.mark.parametrize(("char", "glued"), [
    ("a", True), ("7", True), ("_", True), ("é", True), ("ж", True),
    ("٣", True), ("๓", True),  # a digit of any script continues a number, Thai ones included
    ("は", False), ("漢", False), ("한", False), ("ก", False),  # scripts written without spaces
    ("-", False), (" ", False), (".", False), (ACUTE, False),
])  # fmt: skip
def test_glue_is_a_digit_underscore_or_a_letter_of_a_spaced_script(char: str, glued: bool) -> None:
    assert glues(char) is glued


def test_digits_of_every_script_have_their_value() -> None:
    assert [digit(c) for c in "7٣۷४๓"] == [7, 3, 7, 4, 3]
    assert digit("x") is None


def _default_ignorable_code_points() -> list[int]:
    return [c for low, high in DEFAULT_IGNORABLE for c in range(low, high + 1)]


def test_the_table_is_unicodes_default_ignorable_property() -> None:
    """Every format character (Cf) that Unicode also lists as default-ignorable is in the table,
    and the table holds no visible character: its assigned members are format characters,
    marks, fillers or variation selectors."""
    table = set(_default_ignorable_code_points())
    for code in range(sys.maxunicode + 1):
        if code in table:
            assert unicodedata.category(chr(code)) in {"Cf", "Mn", "Lo", "Cn"}, hex(code)
    for code in (0x00AD, 0x200B, 0x200D, 0x2060, 0x202E, 0xFEFF, 0xE0041, 0x034F, 0x3164):
        assert is_default_ignorable(chr(code)), hex(code)
    assert not is_default_ignorable("a")
    assert not is_default_ignorable("\u0600")  # the Arabic number sign is seen


def test_normalisation_removes_every_default_ignorable_character() -> None:
    """What the identifier check counts as invisible, normalisation removes: the two share one
    table (they disagreed on unassigned default-ignorable code points)."""
    for code in _default_ignorable_code_points():
        assert is_invisible(chr(code)), hex(code)
        assert normalize(f"a{chr(code)}b").text == "ab", hex(code)


@pytest.mark.parametrize("hidden", ["\U000e0080", "\ufff0", "\U000e01f0"])
def test_unassigned_default_ignorable_characters_do_not_split_a_match(hidden: str) -> None:
    """Code points Unicode reserves as default-ignorable are hidden by renderers even before
    they are assigned, so they do not split a card number either."""
    card = f"4111{hidden}1111 1111 1111"
    assert found(CARD, f"card {card} end") == [card]


def test_an_identifier_of_invisible_characters_is_blank() -> None:
    with pytest.raises(ValueError, match="blank"):
        check_identifier("\u200b\U000e0080\ufff0 ")
    assert check_identifier("a\u0600") == "a\u0600"
