"""Taking credentials out of a URL before it is echoed: the one place govcore does it.

A backend's address is often a URL holding a user, a password or a token (``redis://:pw@host``,
``...?api_key=...``). Wherever such a URL, or a backend's error message about it, is shown (a
:class:`~govcore.errors.ConfigError`, a ``repr``), it first goes through :func:`redact_url` and
:func:`scrub`. The rules and their reasons: docs/decisions/backend-registry.md, "Errors".
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote

__all__ = ["REDACTED", "has_scheme", "redact_url", "scrub", "url_secrets"]

REDACTED = "***"
"""What a secret is replaced with."""

# Query parameters whose value is a secret by the look of their name (password=, api_key=,
# access_token=, ...).
_SECRET_NAME = re.compile(r"pass|pwd|secret|token|key|auth|credential|sig", re.IGNORECASE)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def has_scheme(url: str) -> bool:
    """Whether ``url`` starts with ``scheme://``."""
    return _SCHEME.match(url) is not None


def redact_url(url: str) -> str:
    """``url`` with its user information and password-like query values replaced by ``***``.

    Works on text that does not parse as a URL too: everything before the last ``@`` after
    the scheme is user information, even where a parser would disagree (a password holding
    ``/`` or ``#``); hiding too much is harmless, hiding too little is not.
    """
    scheme = _SCHEME.match(url)
    start = scheme.end() if scheme else 0
    at = url.rfind("@", start)
    if at >= 0:
        url = f"{url[:start]}{REDACTED}{url[at:]}"
    head, mark, query = url.partition("?")
    if not mark:
        return url
    query, hash_mark, fragment = query.partition("#")
    pieces = []
    for piece in re.split(r"([&;])", query):
        name, equals, _value = piece.partition("=")
        redact = equals and _SECRET_NAME.search(unquote(name))
        pieces.append(f"{name}={REDACTED}" if redact else piece)
    return f"{head}?{''.join(pieces)}{hash_mark}{fragment}"


def url_secrets(url: str) -> list[str]:
    """The secrets in ``url`` (user, password, password-like query values, each also
    percent-decoded), longest first: what :func:`scrub` takes out of a message about it."""
    found: set[str] = set()
    scheme = _SCHEME.match(url)
    start = scheme.end() if scheme else 0
    at = url.rfind("@", start)
    if at >= 0:
        userinfo = url[start:at]
        found.update([userinfo, *userinfo.split(":")])
    query = url.partition("?")[2].partition("#")[0]
    found.update(value for name, value in parse_qsl(query) if _SECRET_NAME.search(name))
    found |= {unquote(secret) for secret in found}
    return sorted((s for s in found if s), key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """``text`` (a backend's error message, which may quote the URL it was given) with every
    secret of ``url`` replaced by ``***``."""
    for secret in url_secrets(url):
        text = text.replace(secret, REDACTED)
    return text
