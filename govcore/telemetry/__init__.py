"""Metrics and traces of govcore: what an operator watches (docs/observability.md).

Two optional signals, each behind a package of its own, neither imported with govcore:

- **Metrics** (Prometheus, the ``metrics`` extra: ``prometheus-client``): requests by endpoint
  and status, latency per endpoint, store calls with their errors and timeouts, evictions,
  decision records dropped, policies per turn, violations by policy and enforcement, and the
  policy-set version each tenant serves. Switched on per facade,
  ``Governance.from_config(config, metrics=True)`` (the instruments of
  :meth:`Metrics.default`, on ``prometheus_client``'s default registry) or
  ``metrics=Metrics(registry)``; ``govcore serve`` shows them at ``/metrics``.
- **Traces** (OpenTelemetry, the ``tracing`` extra: ``opentelemetry-api`` only): a span per
  endpoint call, from the tracer ``govcore`` of the global tracer provider, with each store round
  trip as a child span. Nothing is recorded until the application installs an SDK's provider.

Neither carries an API key, a session id, checked text or a matched value: labels and
attributes are endpoint names, statuses, operation names, policy ids, enforcement types,
counts, tenant ids (the version metric) and govcore's ``traceId``.

With neither switched on, a request costs nothing more: the facade builds no observer at all
(docs/decisions/telemetry.md).
"""

from __future__ import annotations

import functools
import importlib.util
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from govcore.telemetry._readings import Readings

if TYPE_CHECKING:
    from govcore.telemetry._prometheus import Instruments

__all__ = [
    "METRICS_EXTRA_MISSING",
    "Metrics",
    "Readings",
    "metrics_available",
    "tracing_available",
]

METRICS_EXTRA_MISSING = "govcore's metrics need prometheus-client: pip install 'govcore[metrics]'"
"""The message of the :class:`ImportError` raised when metrics are asked for without it."""


@functools.cache
def metrics_available() -> bool:
    """Whether ``prometheus-client`` is installed (looked up once, without importing it)."""
    return importlib.util.find_spec("prometheus_client") is not None


@functools.cache
def tracing_available() -> bool:
    """Whether the OpenTelemetry API is installed (looked up once; imports only the empty
    ``opentelemetry`` namespace package, never the API itself)."""
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ModuleNotFoundError:  # no ``opentelemetry`` package at all
        return False


class Metrics:
    """govcore's Prometheus instruments, registered on one registry.

    A facade built with ``metrics=`` records into them; several facades may share one (their
    counts add up). The instruments are made once, here; a request only finds the ones of its
    endpoint (made at its first request) and counts.

    Args:
        registry: a ``prometheus_client.CollectorRegistry``; default the client's process-wide
            ``REGISTRY`` (use :meth:`default` for that, since a registry takes each metric name
            once).

    Raises:
        ImportError: ``prometheus-client`` is not installed (``govcore[metrics]``).
    """

    _default: ClassVar[Metrics | None] = None
    _default_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, registry: Any = None) -> None:
        if not metrics_available():
            raise ImportError(METRICS_EXTRA_MISSING)
        from govcore.telemetry._prometheus import Instruments

        self._sources: list[weakref.WeakMethod[Callable[[], Readings]]] = []
        self._sources_lock = threading.Lock()
        self.instruments: Instruments = Instruments(registry, self._readings)

    @classmethod
    def default(cls) -> Metrics:
        """The instruments on ``prometheus_client``'s default registry, made once per process
        (what ``metrics=True`` means): an application that already exposes that registry shows
        govcore's metrics beside its own."""
        with cls._default_lock:
            if cls._default is None:
                cls._default = cls()
            return cls._default

    @classmethod
    def with_process_metrics(cls) -> Metrics:
        """The instruments on a registry of their own, with the process's CPU time, memory and
        open files as ``govcore_process_*`` (what ``govcore serve`` shows at ``/metrics``:
        every name starts with ``govcore_``).

        Raises:
            ImportError: ``prometheus-client`` is not installed.
        """
        if not metrics_available():
            raise ImportError(METRICS_EXTRA_MISSING)
        from prometheus_client import CollectorRegistry, ProcessCollector

        registry = CollectorRegistry()
        ProcessCollector(namespace="govcore", registry=registry)
        return cls(registry)

    @property
    def registry(self) -> Any:
        """The ``prometheus_client.CollectorRegistry`` the instruments are registered on."""
        return self.instruments.registry

    def exposition(self) -> tuple[bytes, str]:
        """The registry in Prometheus' text format, with its content type (``/metrics``)."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def watch(self, readings: Callable[[], Readings]) -> None:
        """Report what the bound method ``readings`` returns at each scrape, for as long as its
        object lives (a facade registers itself; it is not kept alive by this)."""
        with self._sources_lock:
            self._sources.append(weakref.WeakMethod(readings))

    def _readings(self) -> list[Readings]:
        """The readings of every facade still alive (the dead ones forgotten)."""
        with self._sources_lock:
            alive = [(ref, ref()) for ref in self._sources]
            self._sources = [ref for ref, method in alive if method is not None]
        return [method() for _, method in alive if method is not None]
