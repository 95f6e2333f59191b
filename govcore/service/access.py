"""API keys, tenants, scopes and per-key settings: who is calling and what they may do."""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from govcore.config import DEFAULT_SCOPES, KeyConfig, KeySettings
from govcore.errors import AuthenticationError, PermissionDeniedError

__all__ = ["KeyRing", "Principal", "bearer_token"]

_log = logging.getLogger(__name__)

MISSING_KEY = "missing API key: send 'Authorization: Bearer <key>'"
NOT_BEARER = (
    "the Authorization header must use the Bearer scheme: send 'Authorization: Bearer <key>'"
)
INVALID_KEY = "invalid API key"

# HTTP's optional whitespace (RFC 9110 §5.6.3) is space and tab, nothing else: str.strip() would
# also remove NEL, no-break and em spaces, line separators, CR, LF, VT and FF, so a key with any of
# those around it would still authenticate.
_OWS = " \t"

# How many secret objects a key ring remembers (a service has a few typed clients; the strings
# a transport parses from headers are new objects each time and are hashed anyway).
_SECRETS_KNOWN = 64


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller: the key's tenant, scopes and settings.

    ``key_id`` is a short, non-secret name of the key (a prefix of its SHA-256) for rate
    limits and decision logs.
    """

    key_id: str
    tenant: str
    scopes: frozenset[str]
    settings: KeySettings

    def require_scope(self, scope: str) -> None:
        """Raises PermissionDeniedError unless the key has ``scope``."""
        if scope not in self.scopes:
            raise PermissionDeniedError(f"this API key lacks the scope {scope!r}")

    def require_feature(self, setting: str) -> None:
        """Raises PermissionDeniedError unless the key's feature ``setting`` is ``allowed``."""
        if getattr(self.settings, setting) != "allowed":
            raise PermissionDeniedError(
                f"{setting} is not allowed for this API key (allow it with "
                f"'settings: {{{setting}: allowed}}' on the key in the configuration)"
            )


@dataclass(frozen=True, slots=True)
class _KeyEntry:
    digest: bytes
    principal: Principal
    revoked: bool


class KeyRing:
    """Resolves bearer secrets to principals.

    Only SHA-256 digests of the secrets are kept. A presented secret is hashed and looked up by
    its digest; the match is then confirmed with :func:`hmac.compare_digest`, so the comparison
    takes the same time wherever the digests differ. (The dictionary lookup itself compares
    digests, not secrets: its timing can tell an attacker about a SHA-256 output, which does not
    help to find a secret.)
    """

    def __init__(self, keys: Iterable[KeyConfig]) -> None:
        self._entries: dict[bytes, _KeyEntry] = {}
        for key in keys:
            digest = key.digest
            principal = Principal(
                key_id=digest.hex()[:12],
                tenant=key.tenant,
                scopes=frozenset(key.scopes) if key.scopes is not None else DEFAULT_SCOPES,
                settings=key.settings,
            )
            self._entries[digest] = _KeyEntry(digest, principal, key.revoked)
        # The principals of the secret objects last authenticated, by the object's id, with the
        # object itself, which keeps it alive so that no other object can have that id while
        # the entry exists: a typed client sends the same string object with every request,
        # and finding it again costs no hashing. A hit is decided by identity alone, so it
        # reveals nothing about the secret's value; the keys never change after construction,
        # so a principal found once stays right.
        self._known: dict[int, tuple[str, Principal]] = {}

    def authenticate(self, secret: str | None) -> Principal:
        """The principal of ``secret``.

        The secret is compared exactly, as given: nothing is stripped here (the header parser
        removes only HTTP's optional whitespace). Unknown and revoked keys get the same
        message, so a caller cannot learn that a key once existed.

        Raises:
            AuthenticationError: no secret, an unknown one or a revoked one.
        """
        if not secret:
            raise AuthenticationError(MISSING_KEY)
        # Only a built-in string is remembered: its value cannot change under the same object
        # (a str-like object such as UserString can be changed in place, keeping its id).
        exact = type(secret) is str
        known = self._known.get(id(secret)) if exact else None
        if known is not None:
            return known[1]
        digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()
        entry = self._entries.get(digest)
        if entry is None or not hmac.compare_digest(entry.digest, digest):
            raise AuthenticationError(INVALID_KEY)
        if entry.revoked:
            # The operator may want to know a revoked key is still in use; the key id is a
            # digest prefix, never the secret.
            _log.debug("revoked API key %s was presented", entry.principal.key_id)
            raise AuthenticationError(INVALID_KEY)
        if exact:
            if len(self._known) >= _SECRETS_KNOWN:
                self._known = {}  # many different objects: start again rather than grow
            self._known[id(secret)] = (secret, entry.principal)
        return entry.principal


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The secret of an ``Authorization: Bearer <key>`` header (names already lower-cased).

    Spaces and tabs around the value and between scheme and key are removed; nothing else is,
    so the key is the exact text that follows. The scheme name is case-insensitive (RFC 9110
    §11.1). ``None`` when there is no header or no key after the scheme.

    Raises:
        AuthenticationError: the header names another scheme or none (``Authorization: <key>``).
            The message never quotes the header, which may be the key itself.
    """
    value = headers.get("authorization")
    if value is None:
        return None
    value = value.strip(_OWS)
    if not value:
        return None
    end = len(value)
    for index, char in enumerate(value):
        if char in _OWS:
            end = index
            break
    # ASCII-only comparison: str.lower() would fold other scripts' letters too.
    if not (value[:end].isascii() and value[:end].lower() == "bearer"):
        raise AuthenticationError(NOT_BEARER)
    return value[end:].lstrip(_OWS) or None
