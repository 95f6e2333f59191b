"""The default token estimate."""

from __future__ import annotations

__all__ = ["estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """Estimate the model tokens of ``text`` without a tokenizer.

    English text runs at about four characters a token in the common BPE vocabularies; other
    scripts often take a token or more per character, so each non-ASCII character counts as one.
    The estimate errs high, and it is subadditive: the estimates of two pieces add up to at least
    the estimate of the pieces joined, which lets the renderer budget piece by piece.
    """
    if text.isascii():
        return -(-len(text) // 4)
    ascii_chars = sum(1 for ch in text if ch < "\x80")
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)
