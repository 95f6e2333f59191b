"""``govcore serve``: the HTTP application on uvicorn (the ``server`` extra).

With one worker the application is built here and handed to uvicorn; with several, uvicorn
starts each worker process from an import string, so every worker builds its own from the
configuration path in the environment variable :data:`CONFIG_ENV`.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys

from govcore.governance import AsyncGovernance
from govcore.server.app import GovernanceApp, create_app
from govcore.telemetry import Metrics, metrics_available

__all__ = ["CONFIG_ENV", "ServerExtraMissingError", "app_from_environment", "build_app", "serve"]

CONFIG_ENV = "GOVCORE_CONFIG"
"""The environment variable through which each worker process learns the configuration path."""

_FACTORY = "govcore.server.serve:app_from_environment"


class ServerExtraMissingError(RuntimeError):
    """uvicorn is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "govcore serve needs the server extra (uvicorn): pip install 'govcore[server]'"
        )


def build_app(config: str) -> GovernanceApp:
    """The application serving the configuration at ``config``.

    Raises:
        ConfigError: the configuration is invalid.
    """
    # /metrics: the server extra brings prometheus-client; without it the rest still serves.
    metrics = Metrics.with_process_metrics() if metrics_available() else False
    return create_app(AsyncGovernance.from_config(config, metrics=metrics))


def app_from_environment() -> GovernanceApp:
    """The application of the configuration named by :data:`CONFIG_ENV` (a worker's factory)."""
    _log_access_lines()
    config = os.environ.get(CONFIG_ENV)
    if not config:
        raise RuntimeError(f"{CONFIG_ENV} must name the configuration file")
    return build_app(config)


def serve(app: GovernanceApp | None, config: str, *, host: str, port: int, workers: int) -> None:
    """Run the server until it is stopped (SIGINT or SIGTERM).

    Args:
        app: the application, with one worker; ``None`` with several (each builds its own).
        config: the configuration file's path, handed to the workers.

    Raises:
        ServerExtraMissingError: uvicorn is not installed.
    """
    if importlib.util.find_spec("uvicorn") is None:
        raise ServerExtraMissingError()
    import uvicorn

    _log_access_lines()
    # uvicorn's own access log is off: the application writes its lines (govcore.access).
    if workers == 1 and app is not None:
        uvicorn.run(app, host=host, port=port, access_log=False, lifespan="on")
        return
    os.environ[CONFIG_ENV] = os.path.abspath(config)
    uvicorn.run(
        _FACTORY, factory=True, workers=workers, host=host, port=port, access_log=False,
        lifespan="on",
    )  # fmt: skip


def _log_access_lines() -> None:
    """Access lines to standard error, one JSON object a line (govcore's warnings reach standard
    error through Python's last-resort handler unless logging is configured otherwise)."""
    logger = logging.getLogger("govcore.access")
    if logger.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
