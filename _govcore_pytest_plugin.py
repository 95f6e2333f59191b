"""govcore's pytest plugin: fixtures for a governance instance, its typed client and a fake
clock (docs/testing.md).

Installed with govcore, pytest loads it through the ``pytest11`` entry point named ``govcore``
(``-p no:govcore`` leaves it out); without autoloading, ``-p _govcore_pytest_plugin`` or
``pytest_plugins = ["_govcore_pytest_plugin"]`` in a ``conftest.py`` loads it.

A module of its own outside the ``govcore`` package, as hypothesis keeps its plugin in
``_hypothesis_pytestplugin``: pytest imports every installed plugin when it starts, and importing
anything inside ``govcore`` imports the whole package first (about 0.3 s). This module imports
only pytest; each fixture imports govcore when a test asks for it, so a suite that uses none of
them does not wait for govcore (docs/decisions/testing-kit.md).

Every fixture name starts with ``govcore_``, so none takes the name of a suite's own fixture
(``governance``, ``client``, ``clock`` are common ones). Override ``govcore_config`` (and
``govcore_key``, unless the configuration has the sample key) in a ``conftest.py`` to test your
own configuration. All are function-scoped: each test gets a fresh clock and a fresh governance
with empty conversation state.
"""

from __future__ import annotations

from collections.abc import Iterator
from os import PathLike
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Mapping

    from govcore.client import GovernanceClient
    from govcore.governance import Governance
    from govcore.testing.clock import FakeClock

__all__ = [
    "GOVCORE_START_TIME",
    "govcore_client",
    "govcore_clock",
    "govcore_config",
    "govcore_governance",
    "govcore_key",
]

GOVCORE_START_TIME = 1_800_000_000.0
"""Where ``govcore_clock`` starts: 2027-01-15 08:00:00 UTC, in epoch seconds."""


@pytest.fixture
def govcore_clock() -> FakeClock:
    """A :class:`~govcore.testing.FakeClock` at :data:`GOVCORE_START_TIME`, the clock of
    ``govcore_governance``: ``govcore_clock.advance(300)`` moves that governance's time."""
    from govcore.testing.clock import FakeClock

    return FakeClock(GOVCORE_START_TIME)


@pytest.fixture
def govcore_config() -> Mapping[str, Any] | str | PathLike[str]:
    """The configuration ``govcore_governance`` is built from: by default
    :func:`govcore.testing.sample_config`. Override it to return your own (a mapping or the
    path of a YAML or JSON file)."""
    from govcore.testing.sample import sample_config

    return sample_config()


@pytest.fixture
def govcore_key() -> str:
    """The API key ``govcore_client`` uses: by default :data:`govcore.testing.SAMPLE_KEY`, the
    sample configuration's key with every scope and feature. Override it with your
    configuration's key."""
    from govcore.testing.sample import SAMPLE_KEY

    return SAMPLE_KEY


@pytest.fixture
def govcore_governance(
    govcore_config: Mapping[str, Any] | str | PathLike[str], govcore_clock: FakeClock
) -> Iterator[Governance]:
    """A :class:`govcore.Governance` built from ``govcore_config`` on ``govcore_clock``, with
    the default in-memory store; closed (its decision log flushed) after the test."""
    from govcore.governance import Governance

    governance = Governance.from_config(govcore_config, clock=govcore_clock)
    with governance:
        yield governance


@pytest.fixture
def govcore_client(govcore_governance: Governance, govcore_key: str) -> GovernanceClient:
    """The typed client of ``govcore_governance`` for ``govcore_key``."""
    return govcore_governance.client(govcore_key)
