"""The armour lines of a private key block, shared by the secret formats (their patterns name
them as fragments) and the streaming check, which holds back a block opened by a BEGIN line
until its END line arrives."""

from __future__ import annotations

__all__ = ["PRIVATE_KEY_BEGIN", "PRIVATE_KEY_END"]

PRIVATE_KEY_BEGIN = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
"""The header line of an armoured private key: PEM (RSA, EC, DSA, PKCS #8, ENCRYPTED), OpenSSH
and PGP (``PRIVATE KEY BLOCK``)."""
PRIVATE_KEY_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
"""The last line of an armoured private key."""
