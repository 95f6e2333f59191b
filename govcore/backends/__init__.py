"""Backends, chosen by the configuration and found in one registry of entry points.

Four kinds of backend are looked up the same way, each in its own entry-point group where govcore
declares its built-ins and any installed distribution can declare more (name to
``"module:Class"``):

- ``govcore.stores``: a :class:`~govcore.types.Store`, chosen by the scheme of
  ``settings.store``;
- ``govcore.async_stores``: an :class:`~govcore.types.AsyncStore`, chosen the same way;
- ``govcore.retrievers``: a :class:`~govcore.types.Retriever`, chosen by
  ``settings.retriever``;
- ``govcore.decision_logs``: a :class:`~govcore.DecisionLog`; the one named ``N`` is chosen by
  the setting ``decision_log_N`` (``memory`` when none is set).

:func:`register_store`, :func:`register_async_store`, :func:`register_retriever` and
:func:`register_decision_log` add backends from code, and win over entry points.

Every backend builds itself from the settings through one hook, a class method
``from_settings(settings, **context)`` (``clock=`` for a store, ``language=`` for a retriever,
nothing more for a decision log), and reads its own keys with
``settings.section(cls.settings_model)``: a backend class declares the keys of ``settings:`` it
owns as ``settings_model``, a :class:`~govcore.settings.SettingsSection`, and
:func:`settings_models` finds them for the loader. A store class without ``from_settings`` is
built from its URL alone (``from_url``, else ``Class(clock=..., **query)``), a retriever or
decision log class without it with no arguments. Adding a backend: docs/architecture.md,
"Adding a backend".

Nothing is looked up or imported until a backend is asked for: ``import govcore`` reads no
distribution metadata and imports no backend module.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from govcore.backends.url_redaction import has_scheme, redact_url, scrub
from govcore.errors import ConfigError, ConfigProblem
from govcore.types import AsyncStore, Clock, Retriever, Store

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from govcore.decision_log import DecisionLog
    from govcore.settings import GovernanceSettings, SettingsSection

__all__ = [
    "ASYNC_STORE_GROUP",
    "DECISION_LOG_GROUP",
    "RETRIEVER_GROUP",
    "STORE_GROUP",
    "async_store_from_settings",
    "async_store_from_url",
    "backend_settings_keys",
    "decision_log_from_settings",
    "register_async_store",
    "register_decision_log",
    "register_retriever",
    "register_store",
    "retriever_from_name",
    "retriever_from_settings",
    "settings_models",
    "shared_lookup",
    "store_from_settings",
    "store_from_url",
]

STORE_GROUP = "govcore.stores"
"""Entry-point group of store backends: URL scheme -> ``"module:Class"``."""
ASYNC_STORE_GROUP = "govcore.async_stores"
"""Entry-point group of stores for ``asyncio``: URL scheme -> ``"module:Class"``."""
RETRIEVER_GROUP = "govcore.retrievers"
"""Entry-point group of retrievers: name -> ``"module:Class"``."""
DECISION_LOG_GROUP = "govcore.decision_logs"
"""Entry-point group of decision logs: name -> ``"module:Class"``; the log named ``N`` is
chosen by the setting ``decision_log_N``."""

DEFAULT_DECISION_LOG = "memory"
"""The decision log built when no ``decision_log_<name>`` setting chooses one."""
_DECISION_LOG_SETTING = "decision_log_"


@dataclass
class _Registry:
    """The backends of one kind: registered from code, then declared as entry points."""

    group: str
    setting: str
    kind: str
    case_sensitive: bool = False
    registered: dict[str, str | type[Any]] = field(default_factory=dict)

    def normal(self, name: str) -> str:
        """``name`` as this registry compares it (URL schemes ignore case)."""
        return name if self.case_sensitive else name.lower()

    def declared(
        self, declarations: _Declarations | None = None
    ) -> dict[str, list[tuple[str, str]]]:
        """The group's entry points (from ``declarations``, else read now): name -> distinct
        (target, distribution) pairs."""
        if declarations is None:
            declarations = _declarations()
        found: dict[str, list[tuple[str, str]]] = {}
        for entry in declarations[self.group]:
            owner = entry.dist.name if entry.dist is not None else "an unknown distribution"
            targets = found.setdefault(self.normal(entry.name), [])
            # The same declaration seen twice (an editable install and its build directory
            # both on the path) is one declaration.
            if all(target != entry.value for target, _ in targets):
                targets.append((entry.value, owner))
        return found

    def names(self, declarations: _Declarations | None = None) -> list[str]:
        """Every name registered or declared, registered first; nothing is imported."""
        registered = list(self.registered)
        return registered + sorted(set(self.declared(declarations)) - set(registered))

    def load(
        self,
        name: str,
        shown: str,
        suffix: str = "",
        declarations: _Declarations | None = None,
    ) -> Any:
        """The backend class called ``name``; ``shown`` says what it is in error messages."""
        target: str | type[Any] | None = self.registered.get(name)
        owner = f"register_{self.kind}"
        if target is None:
            declared = self.declared(declarations)
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

    def error(self, reason: str, setting: str | None = None) -> ConfigError:
        """A configuration error about this registry's setting (or ``setting``)."""
        return ConfigError([ConfigProblem(setting or self.setting, reason)])


_Declarations = dict[str, list["EntryPoint"]]
"""The entry points of each group, by group."""


# Inside shared_lookup(): the one read of that block, once made.
_SHARED: ContextVar[list[_Declarations] | None] = ContextVar("govcore_backends", default=None)


def _declarations() -> _Declarations:
    """The entry points of govcore's groups: one pass over every installed distribution's
    metadata (about 4 ms), read now, or once for a whole :func:`shared_lookup` block.

    Not cached beyond that: a distribution installed (or a path added) since is then seen.
    """
    shared = _SHARED.get()
    if shared:
        return shared[0]
    from importlib import metadata

    everything = metadata.entry_points()
    declarations = {group: list(everything.select(group=group)) for group in _GROUPS}
    if shared is not None:
        shared.append(declarations)
    return declarations


@contextmanager
def shared_lookup() -> Iterator[None]:
    """Within the block, every backend lookup shares one read of the entry points: a
    ``Governance`` built from a configuration looks up its settings' owners, store, retriever
    and decision log, and reads the installed distributions' metadata once for all of them."""
    if _SHARED.get() is not None:  # an enclosing block reads for this one too
        yield
        return
    token = _SHARED.set([])
    try:
        yield
    finally:
        _SHARED.reset(token)


_GROUPS = (STORE_GROUP, ASYNC_STORE_GROUP, RETRIEVER_GROUP, DECISION_LOG_GROUP)
_STORES = _Registry(STORE_GROUP, "settings.store", "store")
_ASYNC_STORES = _Registry(ASYNC_STORE_GROUP, "settings.store", "async_store")
_RETRIEVERS = _Registry(RETRIEVER_GROUP, "settings.retriever", "retriever", case_sensitive=True)
_DECISION_LOGS = _Registry(
    DECISION_LOG_GROUP, "settings.decision_log", "decision_log", case_sensitive=True
)
_REGISTRIES = (_STORES, _ASYNC_STORES, _RETRIEVERS, _DECISION_LOGS)


# --- registration from code -----------------------------------------------------------------


def register_store(scheme: str, target: str | type[Any]) -> None:
    """Make URLs of ``scheme`` build ``target``, a class or ``"module:Class"`` (imported when
    first asked for). Registration wins over entry points.

    Built from a configuration, the class is called as
    ``Class.from_settings(settings, clock=clock)`` when it has that method; otherwise, and in
    :func:`store_from_url`, as ``Class.from_url(url, clock=clock)`` when it has that one, else
    as ``Class(clock=clock, **query_parameters)``.
    """
    _STORES.registered[scheme.lower()] = target


def register_async_store(scheme: str, target: str | type[Any]) -> None:
    """:func:`register_store` for ``asyncio`` stores (:func:`async_store_from_settings`,
    :func:`async_store_from_url`)."""
    _ASYNC_STORES.registered[scheme.lower()] = target


def register_retriever(name: str, target: str | type[Any]) -> None:
    """Make ``settings.retriever: name`` build ``target`` (a class or ``"module:Class"``):
    ``Class.from_settings(settings, language=...)`` when it has that method, else ``Class()``;
    :func:`retriever_from_name` calls ``Class(**options)``."""
    _RETRIEVERS.registered[name] = target


def register_decision_log(name: str, target: str | type[Any]) -> None:
    """Make the setting ``decision_log_<name>`` choose ``target`` (a class or
    ``"module:Class"``) as the decision log: ``Class.from_settings(settings)`` when it has
    that method, else ``Class()``. Its ``settings_model`` must declare that setting."""
    _DECISION_LOGS.registered[name] = target


# --- stores ---------------------------------------------------------------------------------


def store_from_settings(settings: GovernanceSettings, *, clock: Clock) -> Store:
    """Build the store ``settings.store`` names, configured by ``settings``.

    Raises:
        ConfigError: about ``settings.store``, as :func:`store_from_url`.
    """
    return _build_store(_STORES, settings.store, clock, settings)  # type: ignore[no-any-return]


def async_store_from_settings(settings: GovernanceSettings, *, clock: Clock) -> AsyncStore:
    """:func:`store_from_settings` for ``asyncio`` (the ``govcore.async_stores`` group).

    Raises:
        ConfigError: about ``settings.store``, as :func:`store_from_url`.
    """
    return _build_store(_ASYNC_STORES, settings.store, clock, settings)  # type: ignore[no-any-return]


def store_from_url(url: str, *, clock: Clock) -> Store:
    """Build the store a URL names, such as ``"memory://"`` or ``"memory://?conv_mb=256"``,
    with no other settings.

    The scheme picks the backend (:func:`register_store`, then the ``govcore.stores`` entry
    points). A backend class with a ``from_url`` class method gets the whole URL; any other
    takes only query parameters, passed as keyword arguments (digits become integers), so a
    URL with a user, password, host or path is refused for it rather than half ignored.

    Raises:
        ConfigError: about ``settings.store``: a malformed URL, an unknown scheme, a backend
            that cannot be imported or that refuses the URL. The URL is echoed with its user,
            password and password-like query parameters replaced by ``***``.
    """
    return _build_store(_STORES, url, clock, None)  # type: ignore[no-any-return]


def async_store_from_url(url: str, *, clock: Clock) -> AsyncStore:
    """:func:`store_from_url` for ``asyncio``: the store a URL names, with awaitable methods.

    The scheme is looked up with :func:`register_async_store`, then the
    ``govcore.async_stores`` entry points (govcore declares ``memory``, ``redis`` and
    ``rediss``); the rest is as :func:`store_from_url`.

    Raises:
        ConfigError: about ``settings.store``, as :func:`store_from_url`.
    """
    return _build_store(_ASYNC_STORES, url, clock, None)  # type: ignore[no-any-return]


def _build_store(
    registry: _Registry, url: str, clock: Clock, settings: GovernanceSettings | None
) -> Any:
    shown = repr(redact_url(url))
    try:
        parts = urlsplit(url)
        if "," not in parts.netloc:
            # Raises ValueError for a port that is not a number in range. A list of hosts
            # (redis+sentinel://h:p,h:p/...) is no single host and port: its backend reads it.
            _ = parts.port
    except ValueError:
        raise registry.error(f"malformed store URL {shown}") from None
    scheme = parts.scheme.lower()
    if not scheme or not has_scheme(url):
        raise registry.error(f"store URL {shown} has no scheme (for example memory://)")
    cls = registry.load(scheme, f"scheme {scheme!r} (store URL {shown})", suffix="://")
    try:
        if settings is not None and hasattr(cls, "from_settings"):
            return cls.from_settings(settings, clock=clock)
        if hasattr(cls, "from_url"):
            return cls.from_url(url, clock=clock)
        if parts.netloc or parts.path not in ("", "/") or parts.fragment:
            raise ValueError(
                f"{scheme}:// takes only query parameters, not a user, password, host or path"
            )
        return cls(clock=clock, **_query_options(parts.query))
    except (TypeError, ValueError) as exc:
        raise registry.error(f"store URL {shown} is refused: {scrub(str(exc), url)}") from None


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


# --- retrievers -----------------------------------------------------------------------------


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
    relevance, and the ``hybrid`` one its model and cache); any other is built with no
    arguments.

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


# --- decision logs --------------------------------------------------------------------------


def decision_log_from_settings(settings: GovernanceSettings) -> DecisionLog:
    """Build the decision log the settings choose: the one named ``N`` when the setting
    ``decision_log_N`` is set (``decision_log_path``: a JSON-lines file;
    ``decision_log_stream``: a Redis stream), else ``memory`` (the latest
    ``decision_log_size`` decisions).

    Raises:
        ConfigError: two decision logs are chosen at once, the chosen one cannot be loaded, or
            it refuses its settings (a URL in the message never shows its credentials).
    """
    given = settings.backend_keys
    declarations = _declarations()
    names = _DECISION_LOGS.names(declarations)
    chosen = [n for n in names if f"{_DECISION_LOG_SETTING}{n}" in given]
    if len(chosen) > 1:
        keys = sorted(f"{_DECISION_LOG_SETTING}{n}" for n in chosen)
        which = (
            f"either {keys[0]} or {keys[1]}, not both"
            if len(keys) == 2
            else (f"only one of {', '.join(keys)}")
        )
        raise _DECISION_LOGS.error(f"set {which}", f"settings.{keys[-1]}")
    name = chosen[0] if chosen else DEFAULT_DECISION_LOG
    key = f"{_DECISION_LOG_SETTING}{name}"
    setting = f"settings.{key}" if chosen else None
    cls = _DECISION_LOGS.load(name, f"decision log {name!r}", declarations=declarations)
    build = getattr(cls, "from_settings", None)
    try:
        if build is None:
            return cls()  # type: ignore[no-any-return]
        return build(settings)  # type: ignore[no-any-return]
    except (TypeError, ValueError) as exc:
        model = getattr(cls, "settings_model", None)
        value = getattr(settings.section(model), key, None) if chosen and model else None
        if not isinstance(value, str):
            reason = f"decision log {name!r} is refused: {exc}"
            raise _DECISION_LOGS.error(reason, setting) from None
        # The setting is the log's address, often a URL with a password: shown redacted.
        reason = f"{redact_url(value)!r} is refused: {scrub(str(exc), value)}"
        raise _DECISION_LOGS.error(reason, setting) from None


# --- the backends' own settings -------------------------------------------------------------


def settings_models(
    keys: Sequence[str], settings: GovernanceSettings | None = None
) -> dict[type[SettingsSection], list[str]]:
    """Which backend's settings model owns each of ``keys`` (keys of ``settings:`` that are
    not shared ones): model -> its keys among them. A key no installed backend declares is
    left out (the loader reports it as unknown).

    The backends ``settings`` chooses are asked first, and the decision log each
    ``decision_log_<name>`` key names; only keys none of them owns make the others load, so a
    configuration that sets only its chosen backends' keys imports no other backend. A
    backend that cannot be loaded owns nothing here (building it reports why, if it is
    chosen).
    """
    wanted = list(dict.fromkeys(keys))
    owners: dict[type[SettingsSection], list[str]] = {}
    if not wanted:
        return owners
    for model in _candidate_models(wanted, settings):
        mine = [key for key in wanted if key in model.model_fields]
        if mine:
            owners.setdefault(model, []).extend(mine)
            wanted = [key for key in wanted if key not in mine]
            if not wanted:
                break
    return owners


def backend_settings_keys() -> list[str]:
    """Every key of ``settings:`` that an installed backend declares (each backend is loaded):
    the names an unknown key is compared with to suggest the one probably meant."""
    return sorted({name for model in _candidate_models([], None) for name in model.model_fields})


def _candidate_models(
    keys: Sequence[str], settings: GovernanceSettings | None
) -> Iterator[type[SettingsSection]]:
    """The settings models of the backends most likely to own ``keys`` first, then of every
    other backend, each loaded only when the one before did not own every key."""
    first: list[tuple[_Registry, str]] = [
        (_DECISION_LOGS, key.removeprefix(_DECISION_LOG_SETTING))
        for key in keys
        if key.startswith(_DECISION_LOG_SETTING)
    ]
    if settings is not None:
        scheme = urlsplit(settings.store).scheme.lower() if has_scheme(settings.store) else ""
        first += [(_STORES, scheme), (_ASYNC_STORES, scheme), (_RETRIEVERS, settings.retriever)]
        first.append((_DECISION_LOGS, DEFAULT_DECISION_LOG))
    declarations = _declarations()  # read once for every backend looked at
    seen: set[tuple[str, str]] = set()

    def fresh(candidates: Iterable[tuple[_Registry, str]]) -> Iterator[type[SettingsSection]]:
        for registry, name in candidates:
            if name and (registry.group, name) not in seen:
                seen.add((registry.group, name))
                model = _settings_model_of(registry, name, declarations)
                if model is not None:
                    yield model

    yield from fresh(first)
    yield from fresh((r, name) for r in _REGISTRIES for name in r.names(declarations))


def _settings_model_of(
    registry: _Registry, name: str, declarations: _Declarations
) -> type[SettingsSection] | None:
    from govcore.settings import SettingsSection

    try:
        cls = registry.load(name, f"{registry.kind} {name!r}", declarations=declarations)
    except Exception:
        # A backend that cannot even be imported (a third party's, broken) owns no keys here;
        # building it, when it is chosen, reports why.
        return None
    model = getattr(cls, "settings_model", None)
    return model if isinstance(model, type) and issubclass(model, SettingsSection) else None
