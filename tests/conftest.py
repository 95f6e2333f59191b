"""Fixtures shared by the tests; the data they use lives in :mod:`tests.support`.

Redis needs a ``redis-server`` binary on PATH and the ``redis`` package (``govcore[redis]``):
without them the Redis tests skip, except in CI (``CI=true``), where they fail instead.

The detection engine: ``settings.detection_engine`` defaults to ``re2``, so the suite runs on
RE2. ``GOVCORE_DETECTION_ENGINE=hyperscan`` runs it on Hyperscan: the run's default engine (the
setting's and the compile functions') becomes ``hyperscan``, and the run fails at once without
the package. ``GOVCORE_DETECTION_ENGINE=re2`` also hides the package from the run (as if the
extra were not installed), so the tests that need it skip. The variable is read here only:
govcore itself never reads it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator

import pytest

import govcore
from govcore.testing import FakeClock, RedisServer
from tests.support import (
    ENGINE_VARIABLE,
    EXAMPLE_CONFIG,
    SHIPPED_DEFAULTS,
    START_TIME,
    fresh_url,
    lifecycle_config,
    require_redis,
)


def pytest_configure(config: pytest.Config) -> None:
    engine = os.environ.get(ENGINE_VARIABLE)
    if engine == "re2":
        # An entry of None makes every import of the package fail, so ``auto`` resolves to re2.
        sys.modules["hyperscan"] = None  # type: ignore[assignment]
    elif engine == "hyperscan":
        importlib.import_module("hyperscan")
        _make_the_default_engine("hyperscan")
    elif engine is not None:
        raise pytest.UsageError(f"{ENGINE_VARIABLE} must be re2 or hyperscan, not {engine!r}")


def _make_the_default_engine(engine: str) -> None:
    """Make ``engine`` what every configuration and compile call of this run gets when it names
    none: the setting's default and the compile functions' keyword defaults."""
    from govcore.core import gating
    from govcore.detection import scanner
    from govcore.service import tenants
    from govcore.settings import GovernanceSettings

    SHIPPED_DEFAULTS["detection_engine"] = GovernanceSettings.model_fields[
        "detection_engine"
    ].default
    GovernanceSettings.model_fields["detection_engine"].default = engine
    GovernanceSettings.model_rebuild(force=True)
    for function in (scanner.compile_rules, gating.compile_tool_rules, tenants.compile_tenants):
        defaults = function.__kwdefaults__ or {}
        if "engine" in defaults:
            defaults["engine"] = engine
        else:  # compile_tenants takes its engine by position, with a default
            values = list(function.__defaults__ or ())
            index = function.__code__.co_varnames.index("engine") - (
                function.__code__.co_argcount - len(values)
            )
            values[index] = engine
            function.__defaults__ = tuple(values)


@pytest.fixture(scope="module")
def module_clock() -> FakeClock:
    """One fake clock per test module, shared with that module's ``module_governance``."""
    return FakeClock(START_TIME)


@pytest.fixture(scope="module")
def module_governance(module_clock: FakeClock) -> govcore.Governance:
    """The test configuration, built once per module on the module's fake clock."""
    return govcore.Governance.from_config(lifecycle_config(), clock=module_clock)


@pytest.fixture(scope="module")
def module_example_governance(module_clock: FakeClock) -> govcore.Governance:
    """The example deployment (govcore/demo/acme/govcore.yaml) on the module's fake clock."""
    return govcore.Governance.from_config(EXAMPLE_CONFIG, clock=module_clock)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server for the session; tests keep apart by key prefix (:func:`redis_url`)."""
    require_redis()
    with RedisServer() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return fresh_url(redis_server)
