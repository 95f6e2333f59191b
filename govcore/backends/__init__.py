"""Storage and retrieval backends, chosen by name in the configuration.

``settings.store`` is a URL whose scheme names a store (``memory://``, ``redis://``);
``settings.retriever`` names a retriever (``tfidf``). :func:`store_from_url`,
:func:`async_store_from_url` and :func:`retriever_from_name` look the name up in three
entry-point groups, ``govcore.stores`` and ``govcore.async_stores`` (scheme to
``"module:Class"``, for threads and for ``asyncio``) and ``govcore.retrievers`` (name to
``"module:Class"``), where govcore declares its built-ins and any installed distribution can
declare more; :func:`register_store`, :func:`register_async_store` and
:func:`register_retriever` add backends from code, and win over entry points.

Nothing is looked up or imported until a backend is asked for: ``import govcore`` reads no
distribution metadata and imports no backend module.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote, urlsplit

from govcore._clock import system_clock
from govcore.errors import ConfigError, ConfigProblem
from govcore.types import AsyncStore, Clock, Retriever, Store

if TYPE_CHECKING:
    from govcore.config import GovernanceSettings

__all__ = [
    "ASYNC_STORE_GROUP",
    "RETRIEVER_GROUP",
    "STORE_GROUP",
    "async_store_from_url",
    "from_url",
    "register_async_store",
    "register_retriever",
    "register_store",
    "retriever_from_name",
    "retriever_from_settings",
    "store_from_url",
]

STORE_GROUP = "govcore.stores"
"""Entry-point group of store backends: URL scheme -> ``"module:Class"``."""
ASYNC_STORE_GROUP = "govcore.async_stores"
"""Entry-point group of stores for ``asyncio``: URL scheme -> ``"module:Class"``."""
RETRIEVER_GROUP = "govcore.retrievers"
"""Entry-point group of retrievers: name -> ``"module:Class"``."""

# Query parameters whose value is a secret by the look of their name (password=, api_key=,
# access_token=, ...): redacted wherever a URL is echoed.
_SECRET_NAME = re.compile(r"pass|pwd|secret|token|key|auth|credential|sig", re.IGNORECASE)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_REDACTED = "***"


@dataclass
class _Registry:
    """The backends of one kind: registered from code, then declared as entry points."""

    group: str
    setting: str
    kind: str
    registered: dict[str, str | type[Any]] = field(default_factory=dict)

    def declared(self) -> dict[str, list[tuple[str, str]]]:
        """The group's entry points, read now: name -> distinct (target, distribution) pairs.

        Read on every call rather than cached: it happens once per ``Governance`` built, and a
        distribution installed (or a path added) since the last call is then seen.
        """
        from importlib import metadata  # reads every installed distribution's metadata

        found: dict[str, list[tuple[str, str]]] = {}
        for entry in metadata.entry_points(group=self.group):
            name = entry.name.lower() if self.group != RETRIEVER_GROUP else entry.name
            owner = entry.dist.name if entry.dist is not None else "an unknown distribution"
            targets = found.setdefault(name, [])
            # The same declaration seen twice (an editable install and its build directory
            # both on the path) is one declaration.
            if all(target != entry.value for target, _ in targets):
                targets.append((entry.value, owner))
        return found

    def load(self, name: str, shown: str, suffix: str = "") -> Any:
        """The backend class called ``name``; ``shown`` says what it is in error messages."""
        target: str | type[Any] | None = self.registered.get(name)
        owner = f"register_{self.kind}"
        if target is None:
            declared = self.declared()
            candidates = declared.get(name, [])
            if not candidates:
                known = sorted({*self.registered, *declared})
                choices = ", ".join(f"{k}{suffix}" for k in known) or "none"
                raise self.error(f"unknown {shown}; known: {choices}")
            if len(candidates) > 1:
                owners = ", ".join(f"{o} ({t})" for t, o in sorted(candidates))
                raise self.error(
                    f"{shown} is declared by more than one installed distribution: "
                    f"{owners}; uninstall one, or pick one with "
                    f"govcore.backends.register_{self.kind}"
                )
            target, owner = candidates[0]
        if not isinstance(target, str):
            return target
        module_name, _, attribute = target.partition(":")
        try:
            value: Any = importlib.import_module(module_name.strip())
            for part in filter(None, attribute.strip().split(".")):
                value = getattr(value, part)
        except ImportError as exc:
            raise self.error(
                f"{shown} is unavailable: {target!r} (from {owner}) needs the "
                f"module {exc.name or module_name!r}, which cannot be imported"
            ) from None
        except AttributeError:
            raise self.error(
                f"{shown} is unavailable: {target!r} (from {owner}) names nothing in its module"
            ) from None
        return value

    def error(self, reason: str) -> ConfigError:
        """A configuration error about this registry's setting."""
        return ConfigError([ConfigProblem(self.setting, reason)])


_STORES = _Registry(STORE_GROUP, "settings.store", "store")
_ASYNC_STORES = _Registry(ASYNC_STORE_GROUP, "settings.store", "async_store")
_RETRIEVERS = _Registry(RETRIEVER_GROUP, "settings.retriever", "retriever")


def register_store(scheme: str, target: str | type[Any]) -> None:
    """Make :func:`store_from_url` build ``target`` for URLs of ``scheme``.

    ``target`` is a class or ``"module:Class"`` (imported when first asked for). It is called
    as ``Class.from_url(url, clock=clock)`` when it has that method, else as
    ``Class(clock=clock, **query_parameters)``. Registration wins over entry points.
    """
    _STORES.registered[scheme.lower()] = target


def register_async_store(scheme: str, target: str | type[Any]) -> None:
    """Make :func:`async_store_from_url` build ``target`` for URLs of ``scheme`` (as
    :func:`register_store` does for :func:`store_from_url`)."""
    _ASYNC_STORES.registered[scheme.lower()] = target


def register_retriever(name: str, target: str | type[Any]) -> None:
    """Make :func:`retriever_from_name` build ``target`` (a class or ``"module:Class"``)."""
    _RETRIEVERS.registered[name] = target


def store_from_url(url: str, *, clock: Clock) -> Store:
    """Build the store a URL names, such as ``"memory://"`` or ``"memory://?conv_mb=256"``.

    The scheme picks the backend (:func:`register_store`, then the ``govcore.stores`` entry
    points). A backend class with a ``from_url`` class method gets the whole URL; any other
    takes only query parameters, passed as keyword arguments (digits become integers), so a
    URL with a user, password, host or path is refused for it rather than half ignored.

    Raises:
        ConfigError: about ``settings.store``: a malformed URL, an unknown scheme, a backend
            that cannot be imported or that refuses the URL. The URL is echoed with its user,
            password and password-like query parameters replaced by ``***``.
    """
    return _build_store(_STORES, url, clock)  # type: ignore[no-any-return]


def async_store_from_url(url: str, *, clock: Clock) -> AsyncStore:
    """:func:`store_from_url` for ``asyncio``: the store a URL names, with awaitable methods.

    The scheme is looked up with :func:`register_async_store`, then the
    ``govcore.async_stores`` entry points (govcore declares ``memory``, ``redis`` and
    ``rediss``); the rest is as :func:`store_from_url`.

    Raises:
        ConfigError: about ``settings.store``, as :func:`store_from_url`.
    """
    return _build_store(_ASYNC_STORES, url, clock)  # type: ignore[no-any-return]


def _build_store(registry: _Registry, url: str, clock: Clock) -> Any:
    shown = repr(_redact_url(url))
    secrets = _secrets_of(url)
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        raise registry.error(f"malformed store URL {shown}") from None
    scheme = parts.scheme.lower()
    if not scheme or not _SCHEME.match(url):
        raise registry.error(f"store URL {shown} has no scheme (for example memory://)")
    cls = registry.load(scheme, f"scheme {scheme!r} (store URL {shown})", suffix="://")
    try:
        if hasattr(cls, "from_url"):
            return cls.from_url(url, clock=clock)
        if parts.netloc or parts.path not in ("", "/") or parts.fragment:
            raise ValueError(
                f"{scheme}:// takes only query parameters, not a user, password, host or path"
            )
        return cls(clock=clock, **_query_options(parts.query))
    except (TypeError, ValueError) as exc:
        reason = _scrub(str(exc), secrets)
        raise registry.error(f"store URL {shown} is refused: {reason}") from None


def retriever_from_name(name: str, **options: Any) -> Retriever:
    """Build the retriever called ``name`` (such as ``"tfidf"``) with keyword ``options``.

    Raises:
        ConfigError: about ``settings.retriever``: an unknown name (the message lists the
            known ones), a backend that cannot be imported, or options it does not accept.
    """
    cls = _RETRIEVERS.load(name, f"retriever {name!r}")
    try:
        return cls(**options)  # type: ignore[no-any-return]
    except (TypeError, ValueError) as exc:
        raise _RETRIEVERS.error(f"retriever {name!r} is refused: {exc}") from None


def retriever_from_settings(settings: GovernanceSettings, language: str | None = None) -> Retriever:
    """Build the retriever ``settings.retriever`` names, configured by ``settings``.

    A retriever class with a ``from_settings(settings, language=...)`` class method reads what
    it needs from the settings (the built-in ones do: lexicons, synonyms, language, minimum
    relevance, model); any other is built with no arguments.

    Args:
        settings: the configuration's settings.
        language: the language of the index it will build (default ``settings.language``).

    Raises:
        ConfigError: about ``settings.retriever`` (see :func:`retriever_from_name`), or a
            retriever that refuses the settings.
    """
    name = settings.retriever
    cls = _RETRIEVERS.load(name, f"retriever {name!r}")
    build = getattr(cls, "from_settings", None)
    try:
        if build is None:
            return cls()  # type: ignore[no-any-return]
        return build(settings, language=language or settings.language)  # type: ignore[no-any-return]
    except (TypeError, ValueError) as exc:
        raise _RETRIEVERS.error(f"retriever {name!r} is refused: {exc}") from None


def from_url(url: str, *, clock: Clock = system_clock) -> Store:
    """:func:`store_from_url` with the system clock by default (the older name)."""
    return store_from_url(url, clock=clock)


def _redact_url(url: str) -> str:
    """``url`` with its user information and password-like query values replaced by ``***``.

    Works on text that does not parse as a URL too: everything before the last ``@`` after
    the scheme is user information, even where a parser would disagree (a password holding
    ``/`` or ``#``); hiding too much is harmless, hiding too little is not.
    """
    scheme = _SCHEME.match(url)
    start = scheme.end() if scheme else 0
    at = url.rfind("@", start)
    if at >= 0:
        url = f"{url[:start]}{_REDACTED}{url[at:]}"
    head, mark, query = url.partition("?")
    if not mark:
        return url
    query, hash_mark, fragment = query.partition("#")
    pieces = []
    for piece in re.split(r"([&;])", query):
        name, equals, _value = piece.partition("=")
        redact = equals and _SECRET_NAME.search(unquote(name))
        pieces.append(f"{name}={_REDACTED}" if redact else piece)
    return f"{head}?{''.join(pieces)}{hash_mark}{fragment}"


def _secrets_of(url: str) -> list[str]:
    """The secrets in ``url`` (user, password, password-like query values), longest first."""
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


def _scrub(text: str, secrets: list[str]) -> str:
    """``text`` with every secret in it replaced (a backend's error message may quote one)."""
    for secret in secrets:
        text = text.replace(secret, _REDACTED)
    return text


def _query_options(query: str) -> dict[str, Any]:
    """Query parameters as keyword arguments; ASCII digits become integers."""
    options: dict[str, Any] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name in options:
            raise ValueError(f"parameter {name!r} is given twice")
        if not name.isidentifier():
            raise ValueError(f"parameter {name!r} is not a valid name")
        options[name] = int(value) if value.isascii() and value.isdigit() else value
    return options
