"""``govcore serve``: the HTTP application on uvicorn (the ``server`` extra).

With one worker the application is built here and handed to uvicorn; with several, uvicorn
starts each worker process from an import string, so every worker builds its own from the
configuration path in the environment variable :data:`CONFIG_ENV`.

The configuration is reloaded without a restart (:mod:`govcore.server.reload`) on SIGHUP and,
every ``--watch-interval`` seconds, when its files changed; a configuration that fails to load is
refused and logged, and the one served before keeps serving. With several workers, each worker
watches the files itself; SIGHUP sent to the supervisor makes uvicorn replace the workers one by
one instead (each replacement serves before the worker it replaces stops), and SIGHUP sent to a
worker reloads that worker.

A graceful stop (SIGTERM, or SIGINT): the application reports not ready (``/readyz`` 503), the
server stops accepting connections, the requests in flight get up to ``graceful_timeout``
seconds to finish (any still running then are cancelled), the governance is closed, which
flushes the decision log, and the process exits with status 0 (docs/server.md, "Stopping").
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

from govcore.governance import AsyncGovernance
from govcore.server.app import GovernanceApp, create_app
from govcore.server.reload import DEFAULT_WATCH_INTERVAL, ConfigWatcher
from govcore.telemetry import Metrics, metrics_available

if TYPE_CHECKING:
    import uvicorn

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_GRACEFUL_TIMEOUT",
    "METRICS_TOKEN_ENV",
    "WATCH_ENV",
    "ServerExtraMissingError",
    "app_from_environment",
    "build_app",
    "serve",
]

CONFIG_ENV = "GOVCORE_CONFIG"
"""The environment variable through which each worker process learns the configuration path."""
WATCH_ENV = "GOVCORE_WATCH_INTERVAL"
"""The environment variable through which each worker learns ``--watch-interval`` (0: off)."""
METRICS_TOKEN_ENV = "GOVCORE_METRICS_TOKEN"  # noqa: S105 (the variable's name, not a secret)
"""When set, ``/metrics`` answers only requests bearing this token (``Authorization: Bearer``)."""

_FACTORY = "govcore.server.serve:app_from_environment"

DEFAULT_GRACEFUL_TIMEOUT = 30.0
"""Seconds the requests in flight get to finish after SIGTERM (``--graceful-timeout``): as long
as Kubernetes waits by default before it sends SIGKILL."""
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class ServerExtraMissingError(RuntimeError):
    """uvicorn is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "govcore serve needs the server extra (uvicorn): pip install 'govcore[server]'"
        )


def build_app(
    config: str, *, watch_interval: float | None = DEFAULT_WATCH_INTERVAL
) -> GovernanceApp:
    """The application serving the configuration at ``config``, reloading it on SIGHUP and,
    every ``watch_interval`` seconds (``None``: never), when its files changed.

    Raises:
        ConfigError: the configuration is invalid.
    """
    # /metrics: the server extra brings prometheus-client; without it the rest still serves.
    metrics = Metrics.with_process_metrics() if metrics_available() else False
    governance = AsyncGovernance.from_config(config, metrics=metrics)
    return create_app(
        governance,
        metrics_token=os.environ.get(METRICS_TOKEN_ENV) or None,
        watcher=ConfigWatcher(
            governance.areload,
            config,
            interval=watch_interval,
            versions=governance.served_versions,
        ),
    )


def app_from_environment() -> GovernanceApp:
    """The application of the configuration named by :data:`CONFIG_ENV` (a worker's factory)."""
    _log_access_lines()
    config = os.environ.get(CONFIG_ENV)
    if not config:
        raise RuntimeError(f"{CONFIG_ENV} must name the configuration file")
    interval = float(os.environ.get(WATCH_ENV) or DEFAULT_WATCH_INTERVAL)
    app = build_app(config, watch_interval=interval if interval > 0 else None)
    _report_not_ready_on_stop(app)
    return app


def _report_not_ready_on_stop(app: GovernanceApp) -> None:
    """In a worker process: a stop signal makes ``app`` report not ready, then goes on to the
    handler uvicorn's server installed before it built the application (which drains)."""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers belong to the main thread (and uvicorn installs none elsewhere)
    for number in _STOP_SIGNALS:
        previous = signal.getsignal(number)
        if not callable(previous):
            continue  # not started by uvicorn's server (which installs its handler first)

        def stop(sig: int, frame: FrameType | None, previous: Any = previous) -> None:
            app.begin_stop()
            previous(sig, frame)

        signal.signal(number, stop)


def serve(
    app: GovernanceApp | None,
    config: str,
    *,
    host: str,
    port: int,
    workers: int,
    graceful_timeout: float = DEFAULT_GRACEFUL_TIMEOUT,
    watch_interval: float | None = DEFAULT_WATCH_INTERVAL,
) -> None:
    """Run the server until it is stopped (SIGINT or SIGTERM), then stop gracefully (see the
    module).

    Args:
        app: the application, with one worker; ``None`` with several (each builds its own).
        config: the configuration file's path, handed to the workers.
        graceful_timeout: seconds the requests in flight get to finish once stopped.
        watch_interval: seconds between two looks at the configuration's files, handed to
            the workers (with one worker, ``app`` was built with its own); ``None``: never.

    Raises:
        ServerExtraMissingError: uvicorn is not installed.
        SystemExit: the server did not start (status 3, as uvicorn's own).
    """
    if importlib.util.find_spec("uvicorn") is None:
        raise ServerExtraMissingError()
    import uvicorn

    _log_access_lines()
    # uvicorn's own access log is off: the application writes its lines (govcore.access).
    common: dict[str, Any] = {
        "host": host,
        "port": port,
        "access_log": False,
        "lifespan": "on",
        "timeout_graceful_shutdown": graceful_timeout,
    }
    if workers == 1 and app is not None:
        server = _graceful_server(uvicorn.Config(app, **common), app)
        server.run()
        if not server.started:
            raise SystemExit(3)
        return
    os.environ[CONFIG_ENV] = os.path.abspath(config)
    os.environ[WATCH_ENV] = str(watch_interval or 0)
    uvicorn.run(_FACTORY, factory=True, workers=workers, **common)


def _graceful_server(config: uvicorn.Config, app: GovernanceApp) -> uvicorn.Server:
    """A ``uvicorn.Server`` that makes ``app`` report not ready as it starts to stop, and
    exits with status 0 after a SIGTERM (uvicorn's own raises the signal again once stopped,
    so that the process ends killed by it: an orchestrator's ordinary stop would then look
    like a crash)."""
    import uvicorn

    class GracefulServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            app.begin_stop()
            if sig == signal.SIGTERM and not self.should_exit:
                self.should_exit = True
                return
            super().handle_exit(sig, frame)

    return GracefulServer(config=config)


def _log_access_lines() -> None:
    """Access lines to standard error, one JSON object a line (govcore's warnings reach standard
    error through Python's last-resort handler unless logging is configured otherwise)."""
    for name in ("govcore.access", "govcore.reload"):  # reloads: what was swapped in, or why not
        logger = logging.getLogger(name)
        if logger.handlers:
            continue
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
