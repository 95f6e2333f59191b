"""The typed clients: two thin facades over one base, with the same methods, one per row of the
endpoint table."""

from __future__ import annotations

import inspect

from govcore.client import AsyncGovernanceClient, BaseClient, GovernanceClient
from govcore.service.endpoints import ENDPOINTS, EXPLAIN_SELECTION


def _public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_")
    }


# Methods built on the endpoints' (tool gating and tool results), not rows of their own.
HELPERS = {"gate_tool_call", "check_tool_result"}


def test_every_endpoint_has_a_method_on_both_clients() -> None:
    """Each row's name is a method of both clients, and the clients have no other method but
    the helpers built on them."""
    names = {endpoint.name for endpoint in (*ENDPOINTS, EXPLAIN_SELECTION)} | HELPERS
    assert set(_public_methods(GovernanceClient)) == names
    assert set(_public_methods(AsyncGovernanceClient)) == names


def test_the_facades_have_the_same_signatures_and_share_one_base() -> None:
    """The asyncio client's methods are the blocking client's, awaitable: same parameters and
    annotations, same return annotations; the plumbing is the base's, not written twice."""
    blocking = _public_methods(GovernanceClient)
    awaitable = _public_methods(AsyncGovernanceClient)
    assert blocking == awaitable
    for name in awaitable:
        assert inspect.iscoroutinefunction(getattr(AsyncGovernanceClient, name)), name
        assert not inspect.iscoroutinefunction(getattr(GovernanceClient, name)), name
    assert GovernanceClient.__mro__[1] is BaseClient
    assert AsyncGovernanceClient.__mro__[1] is BaseClient
    assert "__init__" not in vars(GovernanceClient)
    assert "__init__" not in vars(AsyncGovernanceClient)
