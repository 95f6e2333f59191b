"""What text and identifiers may hold, wherever they come from: a request, a configuration or a
policy file.

One table of the characters a reader does not see (:data:`DEFAULT_IGNORABLE`, which detection's
normalisation strips too), and the rules built on it: :func:`check_text` for any text, and
:func:`check_identifier` for ids a person or a log line must be able to tell apart.
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "DEFAULT_IGNORABLE",
    "MAX_ID_LENGTH",
    "check_identifier",
    "check_text",
    "encodable",
    "is_default_ignorable",
]

MAX_ID_LENGTH = 256
"""Longest identifier, in characters: session ids, idempotency keys, tenant and policy ids."""

DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters a
renderer displays as nothing, unassigned ones of these ranges included, since the standard tells
renderers to hide them too. unicodedata has no lookup for the property, and category Cf alone
would miss the Hangul fillers, the variation selectors and the combining grapheme joiner."""


def is_default_ignorable(char: str) -> bool:
    """Whether ``char`` is a default-ignorable code point (:data:`DEFAULT_IGNORABLE`)."""
    code = ord(char)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def check_text(value: str) -> str:
    """Refuse unpaired surrogates: they cannot be encoded, stored or echoed as UTF-8."""
    if not value.isascii() and not encodable(value):
        raise ValueError("contains an unpaired surrogate (not valid Unicode text)")
    return value


def encodable(text: str) -> bool:
    """Whether ``text`` can be encoded as UTF-8 (it holds no unpaired surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# Characters that reorder the text around them when displayed: an id holding one can show as
# another id in a log, a dashboard or a terminal ("Trojan Source").
_BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)


def _invisible(char: str) -> bool:
    """Whitespace or a default-ignorable character: nothing a reader could tell apart."""
    return char.isspace() or is_default_ignorable(char)


_CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
_ANNOTATION_MARKS = frozenset("\ufff9\ufffa\ufffb")


def check_identifier(value: str) -> str:
    """The one rule for identifiers: session ids, idempotency keys, tenant and policy ids.

    Refuses control characters (Unicode category Cc, NEL included), line and paragraph
    separators (U+2028, U+2029: log lines break on them), bidirectional controls, interlinear
    annotation marks (U+FFF9 to U+FFFB), blank text (only whitespace or default-ignorable
    characters) and unpaired surrogates.
    Length limits are the caller's: they differ between requests and configurations. The
    message names the offending code point, never the value, which may be long or unprintable.

    Raises:
        ValueError: the reason, for pydantic or the config loader to place.
    """
    if value.isascii():  # the common case: one pass in C
        if not value.isprintable():
            bad = next(ch for ch in value if not ch.isprintable())
            raise ValueError(f"contains a control character (U+{ord(bad):04X})")
        if not value.strip():
            raise ValueError("is blank (only whitespace)")
        return value
    if all(_invisible(char) for char in value):
        raise ValueError("is blank (only whitespace or invisible characters)")
    for char in value:
        if unicodedata.category(char) in _CONTROL_CATEGORIES or char in _ANNOTATION_MARKS:
            raise ValueError(f"contains a control character (U+{ord(char):04X})")
        if char in _BIDI_CONTROLS:
            raise ValueError(f"contains a bidirectional control character (U+{ord(char):04X})")
    return check_text(value)
