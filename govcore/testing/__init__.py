"""Helpers for testing code that embeds govcore, and the store conformance suite.

``FakeClock`` is a clock you move by hand; pass it to ``Governance.from_config(config,
clock=clock)``. ``StoreConformance`` holds the behaviour every :class:`~govcore.types.Store` must
have: subclass it in a pytest module and provide a ``make_store(clock)`` fixture method.
"""

from __future__ import annotations

from govcore.testing.clock import FakeClock
from govcore.testing.store import StoreConformance

__all__ = ["FakeClock", "StoreConformance"]
