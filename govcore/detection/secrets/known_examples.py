"""Values that are not secrets however they look: published documentation examples,
placeholders, and the values a deployment lists itself (``settings.secret_known_examples`` and
``settings.secret_allowlist``, docs/detection.md "Known examples and the allow-list")."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["KNOWN_EXAMPLES", "SecretOptions", "is_known_example"]


@dataclass(frozen=True, slots=True)
class SecretOptions:
    """What counts as a known, harmless value (``settings.secret_known_examples`` and
    ``settings.secret_allowlist``). Values are compared with the normalised text."""

    known_examples: bool = True
    allowlist: frozenset[str] = frozenset()


KNOWN_EXAMPLES: frozenset[str] = frozenset(
    {
        # AWS documentation's access key ids and secret keys
        "AKIAIOSFODNN7EXAMPLE",
        "AKIAI44QH8DHBEXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        # Stripe's documentation test key
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        # HashiCorp Vault's dev-server tutorial root token
        "hvs.6j4cuewowBGit65rheNoceI7",
        # Databricks' documentation personal access token
        "dapi1234567890ab1cde2f3ab456c7d89efa",
        # Telegram's documentation token
        "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        # jwt.io's sample token
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)
"""Published example values, not reported while ``settings.secret_known_examples`` is on."""

_EXAMPLE_MARKERS = re.compile(
    r"example|sample|dummy|placeholder|redacted|notreal|(?<![a-z])your[-_ ]?(?![a-z])", re.I
)
"""A value holding one of these words is an example, not a secret (with known examples on)."""
_FILLER_RUN = re.compile(r"x{8}|X{8}|\*{8}|0{8}|#{8}|\.{8}")
"""A token holding a run of eight of one of these characters is a placeholder (``ghp_xxxx...``,
``sk_live_0000...``): a run that long is next to impossible in a random token."""


def is_known_example(value: str, options: SecretOptions) -> bool:
    """Whether ``value`` is one not to report: on the allow-list, or (with known examples on)
    a published example or a placeholder."""
    if value in options.allowlist:
        return True
    if not options.known_examples:
        return False
    if value in KNOWN_EXAMPLES or _EXAMPLE_MARKERS.search(value):
        return True
    return _FILLER_RUN.search(value) is not None
