"""govcore's reference HTTP service (docs/server.md).

The ASGI application needs no web framework; only ``govcore serve`` needs the ``server`` extra
(uvicorn), and it is imported when the command runs, so this package imports without it.
"""

from __future__ import annotations

from govcore.server.app import ASGIApp, GovernanceApp, ServedGovernance, body_limit, create_app
from govcore.server.threaded import ThreadedGovernance

__all__ = [
    "ASGIApp",
    "GovernanceApp",
    "ServedGovernance",
    "ThreadedGovernance",
    "body_limit",
    "create_app",
]
