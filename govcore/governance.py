"""The facade: :class:`Governance` wires the backends and serves the endpoints.

The endpoints themselves live in :mod:`govcore.service`; this module builds the service from a
configuration and offers its two doors: :meth:`Governance.client` (typed calls) and
:meth:`Governance.handle` (one HTTP request, no network). Both run the same pipeline.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from govcore._clock import system_clock
from govcore.backends import (
    async_store_from_settings,
    decision_log_from_settings,
    retriever_from_settings,
    shared_lookup,
    store_from_settings,
)
from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.config import GovernanceSettings, LoadedConfig, load_config
from govcore.core.tokens import estimate_tokens
from govcore.decision_log import DecisionLog, DecisionQueue
from govcore.detection.scanner import resolve_engine
from govcore.errors import ConfigError, ConfigProblem
from govcore.http import HttpResponse, dispatch
from govcore.policy import PolicySet
from govcore.retrieval.lexicon import shipped_lexicons
from govcore.service.effects import Get, Steps, perform, run_async, run_sync
from govcore.service.shared import Service, Serving, random_id
from govcore.service.tenants import ExampleMiss, engine_fallbacks, examples_that_miss
from govcore.types import AsyncStore, Clock, Retriever, Store, TokenCounter

if TYPE_CHECKING:
    from govcore.http import Headers
    from govcore.telemetry import Metrics, Readings

__all__ = ["AsyncGovernance", "Governance", "PolicySetVersion"]

_log = logging.getLogger("govcore")


@dataclass(frozen=True, slots=True)
class PolicySetVersion:
    """Which policy set a tenant is served: its content hash and its label.

    Attributes:
        version: the content hash (:attr:`govcore.policy.PolicySet.version`): equal policies
            give an equal version.
        label: the name its authors gave it (``tenants.<id>.label``), or ``None``.
    """

    version: str
    label: str | None = None

    def __str__(self) -> str:
        return self.version if self.label is None else f"{self.label} ({self.version})"


StoreT = TypeVar("StoreT", Store, AsyncStore)


class _GovernanceBase(Generic[StoreT]):
    """What both facades share: building the service, its store and decision log from a
    configuration, and the read-only views of the configuration. The facades differ only in
    how they wait for their store (``StoreT``)."""

    def __init__(
        self,
        config: LoadedConfig,
        *,
        clock: Clock | None = None,
        store: StoreT | None = None,
        retriever: Retriever | None = None,
        token_counter: TokenCounter | None = None,
        trace_ids: Callable[[], str] | None = None,
        decision_log: DecisionLog | None = None,
        metrics: bool | Metrics = False,
        tracing: bool = True,
    ) -> None:
        settings = config.settings
        clock = clock or system_clock
        self._owns_store = store is None
        self._store: StoreT = (
            store if store is not None else self._store_from_settings(settings, clock)
        )
        self._given_retriever = retriever
        self._retriever_for: Callable[[str], Retriever] | None = None
        self._lexicons = ""
        if decision_log is None:
            decision_log = decision_log_from_settings(settings)
        self.decision_log: DecisionLog = decision_log
        """The sink of decision records (they reach it from a background queue)."""
        self._decisions = DecisionQueue(decision_log, settings.decision_log_queue_size)
        # Imported here, not with govcore: ``import govcore`` costs what it cost without it.
        from govcore.telemetry import Metrics, tracing_available
        from govcore.telemetry._observer import Observer

        self.metrics: Metrics | None = Metrics.default() if metrics is True else metrics or None
        """The Prometheus instruments this facade counts into, or ``None`` (docs/observability.md)."""
        traced = tracing and tracing_available()
        self._clock = clock
        self._token_counter = token_counter or estimate_tokens
        self._trace_ids = trace_ids or random_id
        # Neither signal on: no observer at all, so a request costs nothing more.
        self._observer = (
            Observer(self.metrics, tracing=traced) if self.metrics is not None or traced else None
        )
        self._reloading = threading.Lock()
        self._serving = Serving(self._build_service(config, None))
        if self.metrics is not None:
            self.metrics.watch(self._readings)

    def _build_service(self, config: LoadedConfig, previous: Service | None) -> Service:
        """The service of ``config``; ``previous``: the one it replaces (a reload), whose
        retrievers and compiled tenants are reused when the settings are the same."""
        settings = config.settings
        lexicons = _lexicons_digest(settings)
        # The retrievers read the settings and the lexicon files' content (a path in the
        # settings may name a file that changed): with both the same, what they built stands.
        same_retrieval = (
            previous is not None
            and previous.settings == settings
            and lexicons == self._lexicons
            and self._retriever_for is not None
        )
        retriever_for: Callable[[str], Retriever]
        if same_retrieval and self._retriever_for is not None:
            retriever_for = self._retriever_for
        elif self._given_retriever is not None:
            given = self._given_retriever

            def retriever_for(language: str) -> Retriever:
                return given  # the caller's retriever indexes every tenant, whatever its language
        else:
            # Built here for the default language: a bad name or option fails at once.
            default = retriever_from_settings(settings)

            def retriever_for(language: str) -> Retriever:
                if language == settings.language:
                    return default
                return retriever_from_settings(settings, language)

        service = Service(
            config,
            clock=self._clock,
            retriever=retriever_for,
            token_counter=self._token_counter,
            trace_ids=self._trace_ids,
            decisions=self._decisions,
            observer=self._observer,
            previous=previous,
            reuse_compiled=same_retrieval,
        )
        self._retriever_for = retriever_for
        self._lexicons = lexicons
        return service

    @property
    def settings(self) -> GovernanceSettings:
        """The settings of the configuration served now (a reload changes them with
        everything else)."""
        return self._serving.service.settings

    @property
    def _service(self) -> Service:
        """The service of the configuration served now."""
        return self._serving.service

    def reload(self, config: Mapping[str, Any] | str | os.PathLike[str]) -> None:
        """Serve another configuration from now on, swapped in whole.

        The new configuration is loaded and compiled first (only the policy sets whose
        version changed are compiled again when the settings are the same); then one
        assignment makes it the one served. A request that started before the swap finishes
        on the configuration it started with; every later one runs on the new one. Nothing
        is ever half-swapped: keys, tenants, policies and settings change together.

        Conversations keep their state. A policy the new configuration lacks is released at
        the next turn of each conversation that held it, with a ``binding_released`` event;
        this process shows it in that turn's ``diff.newlyReleased`` as the configuration it
        left described it.

        The store and the decision log stay the ones the facade was built with: a
        configuration that changes ``settings.store``, ``settings.decision_log_queue_size`` or
        a store's or decision log's own settings needs a new facade (a restart), and is
        refused here.

        Args:
            config: a mapping or the path of a YAML or JSON file, as :meth:`from_config`.

        Raises:
            ConfigError: the configuration is invalid or changes what needs a restart; the
                configuration served before keeps serving.
        """
        # One reload at a time, loading included: each runs from reading its files to its
        # swap before the next starts, so none swaps in files older than one already served.
        with self._reloading, shared_lookup():
            loaded = load_config(config)
            current = self._serving.service
            _check_reloadable(current.settings, loaded.settings, self._owns_store)
            service = self._build_service(loaded, current)
            self._serving.service = service  # the swap: one assignment
        _log.info(
            "configuration reloaded: %s",
            ", ".join(
                f"{tenant} {version}" for tenant, version in service.policy_set_versions().items()
            ),
        )

    def served_versions(self) -> dict[str, PolicySetVersion]:
        """The version of the policy set each tenant is served now, by tenant id (what
        ``/readyz`` of ``govcore serve`` answers and each decision record carries)."""
        return {
            tenant_id: PolicySetVersion(tenant.policy_set.version, tenant.policy_set.label)
            for tenant_id, tenant in self._service.tenants.items()
        }

    def shadow_versions(self) -> dict[str, tuple[PolicySetVersion, float]]:
        """Per tenant that has one, the version of its shadow policy set and the share of
        conversations it decides (``tenants.<id>.shadow``)."""
        return {
            tenant_id: (
                PolicySetVersion(shadow.tenant.policy_set.version, shadow.tenant.policy_set.label),
                shadow.sample_rate,
            )
            for tenant_id, shadow in self._service.shadows.items()
        }

    @staticmethod
    def _store_from_settings(  # pragma: no cover - overridden
        settings: GovernanceSettings, clock: Clock
    ) -> StoreT:
        raise NotImplementedError

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any] | str | os.PathLike[str],
        clock: Clock | None = None,
        *,
        store: StoreT | None = None,
        retriever: Retriever | None = None,
        token_counter: TokenCounter | None = None,
        trace_ids: Callable[[], str] | None = None,
        decision_log: DecisionLog | None = None,
        metrics: bool | Metrics = False,
        tracing: bool = True,
    ) -> Self:
        """Build the facade from a configuration.

        Args:
            config: a mapping or the path of a YAML or JSON file (docs/configuration.md).
            clock: returns the current epoch seconds; every time-dependent behaviour uses it.
            store: where conversation state, idempotency records and rate-limit windows live
                (a :class:`~govcore.types.Store` for :class:`Governance`, an
                :class:`~govcore.types.AsyncStore` for :class:`AsyncGovernance`); default the
                store ``settings.store`` names (in memory unless configured otherwise).
            retriever: builds the policy index; default the retriever ``settings.retriever``
                names (:class:`~govcore.backends.tfidf.TfidfRetriever` unless configured).
            token_counter: estimates tokens of the injection block.
            trace_ids: makes trace ids; default random 128-bit hex ids.
            decision_log: receives one record per check; default in memory, the JSON-lines
                file of ``settings.decision_log_path`` or the Redis stream of
                ``settings.decision_log_stream``.
            metrics: count requests, store calls and what they found in Prometheus
                instruments: ``True`` for those of :meth:`govcore.telemetry.Metrics.default`
                (``prometheus_client``'s default registry), or a
                :class:`govcore.telemetry.Metrics` of a registry of your own. Needs
                ``govcore[metrics]``. Off by default (docs/observability.md).
            tracing: make OpenTelemetry spans (tracer ``govcore``) once the application has
                installed an SDK's tracer provider; ``False`` never. Without the OpenTelemetry
                API installed there are none either way.

        Raises:
            ConfigError: the configuration is invalid; the message lists every problem.
            ImportError: ``metrics`` asked for without ``prometheus-client``.
        """
        with shared_lookup():  # the loader's lookups and the build's share one read
            return cls(
                load_config(config),
                clock=clock,
                store=store,
                retriever=retriever,
                token_counter=token_counter,
                trace_ids=trace_ids,
                decision_log=decision_log,
                metrics=metrics,
                tracing=tracing,
            )

    def _readings(self) -> Readings:
        """What this facade reports at a metrics scrape: counted elsewhere, read now."""
        from govcore.telemetry import Readings

        # A store that counts its evictions says so with ``evictions`` (namespace -> count);
        # the asyncio memory store's are its blocking twin's.
        store: object = self._store
        twin = getattr(store, "blocking_twin", None)
        evictions = getattr(twin() if callable(twin) else store, "evictions", None)
        return Readings(
            decisions_dropped=self._decisions.dropped,
            evictions=dict(evictions) if evictions else {},
            policy_set_versions=self._service.policy_set_versions(),
        )

    def policy_set(self, tenant: str) -> PolicySet:
        """The policy set of ``tenant``.

        Raises:
            KeyError: no such tenant.
        """
        return self._service.tenants[tenant].policy_set

    def examples_that_miss(self) -> list[ExampleMiss]:
        """Every policy ``examples`` phrase that, sent alone as a turn, would not select its
        policy (``govcore validate`` warns about each): usually a phrase made only of stop
        words, or one shared with another policy that scores higher."""
        service = self._service
        top_k = service.settings.retrieval_top_k
        return [
            miss
            for tenant in service.tenants.values()
            for miss in examples_that_miss(tenant, top_k)
        ]

    def detection_fallbacks(self) -> dict[str, list[str]]:
        """Per tenant, the ``detect`` patterns that the Hyperscan engine
        (``settings.detection_engine``) leaves to RE2 in the same scan, each with the reason
        (``govcore validate`` lists them); empty lists with the RE2 engine."""
        return {
            tenant_id: [str(f) for f in engine_fallbacks(tenant)]
            for tenant_id, tenant in self._service.tenants.items()
        }

    def detection_engine(self) -> str:
        """The engine the ``detect`` rules run on: ``re2`` or ``hyperscan`` (``auto``
        resolved)."""
        return resolve_engine(self.settings.detection_engine)

    @property
    def tenants(self) -> tuple[str, ...]:
        """The configured tenant ids."""
        return tuple(self._service.tenants)

    @property
    def decisions_dropped(self) -> int:
        """Decision records dropped because the queue to the sink was full."""
        return self._decisions.dropped

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Wait until every decision recorded so far has reached the decision log's sink.

        Returns:
            Whether it finished within ``timeout`` seconds.
        """
        return self._decisions.flush(timeout)


class Governance(_GovernanceBase[Store]):
    """Governance of one deployment: tenants, keys, policies and conversation state.

    Build it with :meth:`from_config`. It is safe to share between threads, and it holds no
    lock of its own: every change of shared state is one atomic update of the store. Close it
    (or use it as a context manager) to flush the decision log.
    """

    @staticmethod
    def _store_from_settings(settings: GovernanceSettings, clock: Clock) -> Store:
        return store_from_settings(settings, clock=clock)

    # --- the two doors ---------------------------------------------------------------------

    def client(self, api_key: str) -> GovernanceClient:
        """A typed client acting with ``api_key``; its methods raise :class:`GovcoreError`."""
        return GovernanceClient(self._serving, self._store, api_key)

    def handle(
        self,
        method: str,
        path: str,
        headers: Headers = None,
        body: bytes | str | None = None,
    ) -> HttpResponse:
        """Answer one HTTP request without a network: the transport-neutral dispatcher.

        ``headers`` is a mapping of names to values, or name-value pairs as servers pass them
        (an ASGI scope's list of ``(bytes, bytes)``); names are case-insensitive.

        Returns:
            A :class:`govcore.HttpResponse`. Never raises for anything a caller can send.
        """
        return run_sync(dispatch(self._serving.service, method, path, headers, body), self._store)

    def ping(self) -> None:
        """Check that the store answers (a readiness probe).

        Raises:
            BackendError: the store is unavailable.
        """
        run_sync(_probe(), self._store)

    # --- lifecycle -------------------------------------------------------------------------

    def close(self, timeout: float | None = 10.0) -> bool:
        """Flush the decision log and stop its thread; decisions recorded later are dropped.
        A store built from ``settings.store`` is closed too.

        Returns:
            Whether everything recorded reached the sink within ``timeout`` seconds.
        """
        flushed = self._decisions.close(timeout)
        close = getattr(self._store, "close", None)
        if self._owns_store and callable(close):
            close()
        return flushed

    def __enter__(self) -> Governance:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncGovernance(_GovernanceBase[AsyncStore]):
    """:class:`Governance` for asyncio applications: the same behaviour, on an asynchronous
    store, so that no call blocks the event loop waiting for the store's server.

    The handlers are the blocking facade's own (the service yields what it needs from the
    store, and this facade awaits it). Retrieval and checks are computation in the calling
    thread, as they are with :class:`Governance`. Close it with :meth:`aclose` (or
    ``async with``) to flush the decision log and close the store.
    """

    @staticmethod
    def _store_from_settings(settings: GovernanceSettings, clock: Clock) -> AsyncStore:
        return async_store_from_settings(settings, clock=clock)

    def client(self, api_key: str) -> AsyncGovernanceClient:
        """A typed client acting with ``api_key``: the methods of
        :class:`~govcore.GovernanceClient`, each awaitable."""
        return AsyncGovernanceClient(self._serving, self._store, api_key)

    async def handle(
        self,
        method: str,
        path: str,
        headers: Headers = None,
        body: bytes | str | None = None,
    ) -> HttpResponse:
        """As :meth:`Governance.handle`, awaited. Never raises for anything a caller can send."""
        return await run_async(
            dispatch(self._serving.service, method, path, headers, body), self._store
        )

    async def areload(self, config: Mapping[str, Any] | str | os.PathLike[str]) -> None:
        """:meth:`reload` in a worker thread: loading and compiling a configuration is
        computation that would otherwise hold the event loop.

        Raises:
            ConfigError: as :meth:`reload`; the configuration served before keeps serving.
        """
        await asyncio.to_thread(self.reload, config)

    async def ping(self) -> None:
        """As :meth:`Governance.ping`, awaited."""
        await run_async(_probe(), self._store)

    async def aclose(self, timeout: float | None = 10.0) -> bool:
        """Flush the decision log (in a worker thread) and stop its thread; a store built from
        ``settings.store`` is closed too.

        Returns:
            Whether everything recorded reached the sink within ``timeout`` seconds.
        """
        flushed = await asyncio.to_thread(self._decisions.close, timeout)
        close = getattr(self._store, "aclose", None)
        if self._owns_store and callable(close):
            await close()
        return flushed

    async def __aenter__(self) -> AsyncGovernance:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


def _lexicons_digest(settings: GovernanceSettings) -> str:
    """A hash of the content of the lexicon files the settings name (shipped lexicons are
    named only: they change with govcore itself)."""
    digest = hashlib.sha256()
    for entry in settings.lexicons:
        digest.update(entry.encode() + b"\0")
        path = Path(entry)
        if entry not in shipped_lexicons():
            try:
                digest.update(path.read_bytes())
            except OSError:  # unreadable now: never taken for the content read before
                digest.update(os.urandom(16))
    return digest.hexdigest()


_RESTART_SETTINGS = ("store", "decision_log_queue_size")
"""Shared settings that name or size what a facade builds once: changing them needs a new
facade. (The backends' own sections are compared too.)"""


def _check_reloadable(
    served: GovernanceSettings, loaded: GovernanceSettings, owns_store: bool
) -> None:
    """Refuse a reload that changes what only a new facade can change.

    Raises:
        ConfigError: naming each such setting.
    """
    changed = [
        f"settings.{name}"
        for name in _RESTART_SETTINGS
        if getattr(served, name) != getattr(loaded, name) and (name != "store" or owns_store)
    ]
    before, after = served.restart_sections(), loaded.restart_sections()
    for kind in sorted({*before, *after}, key=lambda k: k.__name__):
        old_values = (before.get(kind) or kind()).model_dump()
        new_values = (after.get(kind) or kind()).model_dump()
        changed += [f"settings.{k}" for k in old_values if old_values[k] != new_values.get(k)]
    if changed:
        raise ConfigError(
            [
                ConfigProblem(where, "cannot change on reload: it needs a restart")
                for where in changed
            ]
        )


_PROBE_KEY = "health:probe"


def _probe() -> Steps[None]:
    """One read of the store: it answers, or its declared errors raise BackendError."""
    yield from perform(Get(_PROBE_KEY))
