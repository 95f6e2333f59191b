"""Fixtures shared by the tests; the data they use lives in :mod:`tests.support`."""

from __future__ import annotations

import pytest

import govcore
from govcore.testing import FakeClock
from tests.support import EXAMPLE_CONFIG, START_TIME, lifecycle_config


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
