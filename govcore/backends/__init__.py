"""Storage and retrieval backends, and :func:`from_url` to pick a store by URL.

The registry maps each URL scheme to ``"module:Class"``, imported on first use, so a backend
whose driver is not installed costs nothing until it is asked for.
"""

from __future__ import annotations

import importlib
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from govcore._clock import system_clock
from govcore.errors import ConfigError
from govcore.types import Clock, Store

__all__ = ["from_url", "register_store"]

_STORES: dict[str, str] = {
    "memory": "govcore.backends.memory:MemoryStore",
}


def register_store(scheme: str, target: str) -> None:
    """Make ``from_url`` build ``target`` (``"module:Class"``) for URLs of ``scheme``.

    The class is called as ``Class.from_url(url, clock=clock)`` when it has that method, else
    as ``Class(clock=clock, **query_parameters)``.
    """
    _STORES[scheme.lower()] = target


def from_url(url: str, *, clock: Clock = system_clock) -> Store:
    """Build a store from a URL such as ``"memory://"`` or ``"memory://?maxsize=10000"``.

    Raises:
        ConfigError: unknown scheme or bad parameters (the URL is echoed without credentials).
    """
    parts = urlsplit(url)
    safe_url = parts._replace(netloc=parts.hostname or "").geturl() if parts.password else url
    target = _STORES.get(parts.scheme.lower())
    if target is None:
        known = ", ".join(sorted(f"{s}://" for s in _STORES))
        raise ConfigError(f"store URL {safe_url!r}: unknown scheme (known: {known})")
    module_name, _, class_name = target.partition(":")
    try:
        cls: Any = getattr(importlib.import_module(module_name), class_name)
    except ImportError as exc:
        raise ConfigError(f"store URL {safe_url!r}: backend unavailable ({exc})") from None
    if hasattr(cls, "from_url"):
        return cls.from_url(url, clock=clock)  # type: ignore[no-any-return]
    options: dict[str, Any] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        options[name] = int(value) if value.isdigit() else value
    try:
        return cls(clock=clock, **options)  # type: ignore[no-any-return]
    except TypeError as exc:
        raise ConfigError(f"store URL {safe_url!r}: bad parameters ({exc})") from None
