"""What single characters are to detection: word characters, digits of any script, the letters
that glue a value to a longer word, and the characters a reader does not see.

One definition of each, shared by the normalisation, the scanner, the PII detectors and the
secret formats. The characters a reader does not see are :mod:`govcore.text_rules`' table,
which the identifier check of the wire models shares; it is re-exported here.
"""

from __future__ import annotations

import re
import unicodedata

from govcore.text_rules import DEFAULT_IGNORABLE, is_default_ignorable

__all__ = [
    "DEFAULT_IGNORABLE",
    "SPACELESS_LETTERS",
    "VALUE_START",
    "digit",
    "glues",
    "is_default_ignorable",
    "is_digit",
    "is_word",
]

SPACELESS_LETTERS = re.compile(
    "[\u0e00-\u0eff\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
"""Letters of scripts written without spaces between words: Thai, Lao, Khmer, Hiragana,
Katakana, Han (with its extensions and compatibility block) and Hangul syllables. Prose in them
runs straight into numbers, addresses and tokens ("请联系jane@example.com谢谢", "このトークン
ghp_...は"), which detectors must not take for parts of longer words."""

VALUE_START = re.compile(r"(?<![^\W_])(?<!\d[\-./])[^\W_]")
"""Where a new value may begin: a letter or digit after neither another one nor a hyphen, dot or
slash that joins it to a digit ("123-45-6789": "45" and "6789" continue the first group). A
detector that refuses a candidate looks for the next one from here inside it."""


def digit(char: str) -> int | None:
    """The value of a decimal digit of any script ("4", "٤", "४"), else None."""
    if "0" <= char <= "9":
        return ord(char) - 48
    return unicodedata.decimal(char, None)


def is_digit(char: str) -> bool:
    """Whether ``char`` is a decimal digit of any script."""
    return digit(char) is not None


def is_word(char: str) -> bool:
    """A letter, digit or ``_``, or a combining mark that no letter could be composed with
    (``q`` + U+0301 is no ``q``: the mark belongs to its letter, and so to the word)."""
    return (
        char.isalnum()
        or char == "_"
        or (not char.isascii() and unicodedata.category(char)[0] == "M")
    )


def glues(char: str) -> bool:
    """Whether ``char`` next to a value makes it part of a longer word: a digit of any script,
    ``_``, or a letter of a script written with spaces. Chinese, Japanese, Korean, Thai, Lao and
    Khmer prose runs straight into numbers and tokens ("カード番号は4111111111111111です",
    "このトークンghp_...は"), so their letters do not glue; their digits do, as any digit
    continues a number."""
    if char.isascii():
        return char.isalnum() or char == "_"
    if char.isdigit() or is_digit(char):
        return True
    return char.isalpha() and SPACELESS_LETTERS.match(char) is None
