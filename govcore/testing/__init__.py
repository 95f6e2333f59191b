"""Helpers for testing code that embeds govcore, and the store conformance suites.

``FakeClock`` is a clock you move by hand; pass it to ``Governance.from_config(config,
clock=clock)``. ``StoreConformance`` holds the behaviour every :class:`~govcore.types.Store` must
have: subclass it in a pytest module and provide a ``make_store(clock)`` method.
``AsyncStoreConformance`` is the same for an :class:`~govcore.types.AsyncStore`, and
``PipelinedStoreConformance`` / ``AsyncPipelinedStoreConformance`` hold the behaviour of the
optional ``admit`` and ``reads`` (skipped for a store without them). ``RedisServer``
(:mod:`govcore.testing.redis`) starts a throwaway ``redis-server`` for tests, ``RedisCluster``
a throwaway Redis Cluster of a few of them, ``RedisSentinel`` a primary, a replica and three
sentinels.

``sample_config()`` is a small configuration whose key ``SAMPLE_KEY`` has every scope and
feature. :mod:`govcore.testing.strategies` holds hypothesis strategies (it needs
``govcore[testing]`` and is not imported here). The pytest fixtures (``govcore_governance``,
``govcore_client``, ``govcore_clock``...) come from the plugin ``_govcore_pytest_plugin``, a
module outside this package that pytest loads through the ``pytest11`` entry point.
docs/testing.md describes the whole kit.
"""

from __future__ import annotations

from govcore.testing.async_store import AsyncStoreConformance
from govcore.testing.clock import FakeClock
from govcore.testing.pipelined import AsyncPipelinedStoreConformance, PipelinedStoreConformance
from govcore.testing.redis import RedisCluster, RedisSentinel, RedisServer, RedisServerError
from govcore.testing.sample import SAMPLE_KEY, SAMPLE_TENANT, sample_config
from govcore.testing.store import StoreConformance

__all__ = [
    "SAMPLE_KEY",
    "SAMPLE_TENANT",
    "AsyncPipelinedStoreConformance",
    "AsyncStoreConformance",
    "FakeClock",
    "PipelinedStoreConformance",
    "RedisCluster",
    "RedisSentinel",
    "RedisServer",
    "RedisServerError",
    "StoreConformance",
    "sample_config",
]
