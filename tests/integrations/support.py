"""A small deployment for the integration tests: a support desk that takes payments and refunds.

Written for these tests (not the demo's retailer): a card-data policy whose detector blocks, a
refund cap a tool call can be brought under, a tool nobody may call, and a warning-only wording
rule whose text a user still sees.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

import govcore
from govcore.backends.memory import MemoryStore
from govcore.testing import FakeClock
from govcore.types import StoreWrite

KEY = "gk_integration_full_0001"
NO_TOOLS_KEY = "gk_integration_plain_0002"

CARD = "4111 1111 1111 1111"
CARD_DIGITS = "4111111111111111"
CARD_REPLACEMENT = "[card number removed]"
REFUND_CAP = 250

POLICIES: list[dict[str, Any]] = [
    {
        "id": "card-data",
        "title": "Never repeat payment card numbers",
        "summary": "Card numbers given by a customer are never repeated, stored or sent on.",
        "text": "When a customer pays by card or reads out a credit card number, never repeat "
        "the card number in a reply, a message or a tool call.",
        "severity": 5,
        "enforcement": "fix",
        "citationRef": "PAY-1",
        "tags": ["payment", "card"],
        "area": "payments",
        "detect": [{"pii": "credit_card", "replacement": CARD_REPLACEMENT}],
    },
    {
        "id": "refund-cap",
        "title": "Refunds above the cap need a manager",
        "summary": f"An agent refunds at most {REFUND_CAP} without a manager.",
        "text": "Refunds for a damaged or late order are issued by the agent up to the cap; "
        "anything above goes to a manager.",
        "severity": 4,
        "enforcement": "fix",
        "citationRef": "REF-2",
        "tags": ["refund"],
        "area": "refunds",
        "tools": [{"tool": "issue_refund", "argument": "amount", "max": REFUND_CAP}],
    },
    {
        "id": "no-account-deletion",
        "title": "Agents never delete accounts",
        "summary": "Closing an account is done by the customer in their settings.",
        "severity": 4,
        "enforcement": "fix",
        "citationRef": "ACC-3",
        "tools": [{"tool": "delete_account", "deny": True}],
    },
    {
        "id": "no-promises",
        "title": "Do not promise delivery dates",
        "summary": "Agents give estimates, never guarantees.",
        "text": "When a customer asks when a parcel will arrive, give an estimate and never "
        "guarantee a delivery date.",
        "severity": 2,
        "enforcement": "warning",
        "citationRef": "DEL-4",
        "tags": ["delivery"],
        "detect": [{"terms": ["guaranteed delivery"]}],
    },
]


def config() -> dict[str, Any]:
    """One tenant with ``POLICIES``; ``KEY`` may do everything, ``NO_TOOLS_KEY`` not tool calls."""
    return copy.deepcopy(
        {
            "tenants": {"desk": {"policies": POLICIES}},
            "keys": [
                {
                    "key": KEY,
                    "tenant": "desk",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                        "rate_limit_per_minute": "unlimited",
                    },
                },
                {
                    "key": NO_TOOLS_KEY,
                    "tenant": "desk",
                    "settings": {"rate_limit_per_minute": "unlimited"},
                },
            ],
        }
    )


T = TypeVar("T")


class SwitchableStore(MemoryStore):
    """The memory store, with a switch that makes every call fail as a driver would."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock=clock)
        self.backend_errors = (ConnectionError,)
        self.down = False

    def _check(self) -> None:
        if self.down:
            raise ConnectionError("the store is unreachable")

    def get(self, key: str) -> bytes | None:
        self._check()
        return super().get(key)

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self._check()
        super().set(key, value, expires_at=expires_at)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        self._check()
        return super().update(key, mutate)

    def update_many(self, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return super().update_many(*args, **kwargs)

    def delete(self, key: str) -> None:
        self._check()
        super().delete(key)


def governance(store: MemoryStore | None = None) -> govcore.Governance:
    """A fresh governance of ``config()`` on a fake clock (and ``store`` when given)."""
    clock = FakeClock()
    if store is None:
        return govcore.Governance.from_config(config(), clock=clock)
    return govcore.Governance.from_config(config(), clock=clock, store=store)


class CountingClient:
    """Forwards to a typed client, counting and keeping the calls of each method (a tracing
    wrapper)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: dict[str, int] = {}
        self.sent: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        """Each call: the method's name, its arguments and keywords."""

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if not callable(target) or name in ("aio", "blocking"):
            return target

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            self.sent.append((name, args, kwargs))
            return target(*args, **kwargs)

        return counted
