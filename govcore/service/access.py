"""API keys, tenants, scopes and per-key settings: who is calling and what they may do."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from govcore.config import DEFAULT_SCOPES, KeyConfig, KeySettings
from govcore.errors import AuthenticationError, PermissionDeniedError

__all__ = ["KeyRing", "Principal", "bearer_token"]


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
            raise PermissionDeniedError(f"{setting} is not allowed for this API key")


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

    def authenticate(self, secret: str | None) -> Principal:
        """The principal of ``secret``.

        Raises:
            AuthenticationError: no secret, an unknown one or a revoked one.
        """
        if not secret:
            raise AuthenticationError("missing API key: send 'Authorization: Bearer <key>'")
        digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()
        entry = self._entries.get(digest)
        if entry is None or not hmac.compare_digest(entry.digest, digest):
            raise AuthenticationError("invalid API key")
        if entry.revoked:
            raise AuthenticationError("this API key has been revoked")
        return entry.principal


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The secret of an ``Authorization: Bearer <key>`` header (names already lower-cased)."""
    value = headers.get("authorization")
    if not value:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None
