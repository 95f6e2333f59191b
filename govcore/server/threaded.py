"""Serving a synchronous :class:`govcore.Governance` from an event loop."""

from __future__ import annotations

import asyncio

from govcore.config import GovernanceSettings
from govcore.governance import Governance, PolicySetVersion
from govcore.http import Headers, HttpResponse
from govcore.telemetry import Metrics

__all__ = ["ThreadedGovernance"]


class ThreadedGovernance:
    """A :class:`govcore.Governance` behind the asynchronous interface the HTTP application
    serves: each request runs in a worker thread (``asyncio.to_thread``), so a blocking store
    call never stalls the event loop. ``Governance`` is thread-safe, so requests overlap."""

    def __init__(self, governance: Governance) -> None:
        self.governance = governance

    @property
    def settings(self) -> GovernanceSettings:
        return self.governance.settings

    @property
    def metrics(self) -> Metrics | None:
        """The governance's Prometheus instruments (``/metrics``), if it has them."""
        return self.governance.metrics

    def served_versions(self) -> dict[str, PolicySetVersion]:
        """:meth:`govcore.Governance.served_versions` (``/readyz`` shows them)."""
        return self.governance.served_versions()

    def shadow_versions(self) -> dict[str, tuple[PolicySetVersion, float]]:
        """:meth:`govcore.Governance.shadow_versions` (``/readyz`` shows them)."""
        return self.governance.shadow_versions()

    async def handle(
        self, method: str, path: str, headers: Headers = None, body: bytes | str | None = None
    ) -> HttpResponse:
        """:meth:`govcore.Governance.handle` in a worker thread."""
        return await asyncio.to_thread(self.governance.handle, method, path, headers, body)

    async def ping(self) -> None:
        """:meth:`govcore.Governance.ping` in a worker thread.

        Raises:
            BackendError: the store is unavailable.
        """
        await asyncio.to_thread(self.governance.ping)

    async def aclose(self) -> None:
        """Flush the decision log and stop its thread."""
        await asyncio.to_thread(self.governance.close)
