"""A tenant for tool gating, tool results and the delivery rule: one policy per reaction."""

from __future__ import annotations

import copy
from typing import Any

import govcore
from govcore.testing import FakeClock

GATE_KEY = "gk_test_gate_full_00001"
"""Every feature allowed, no rate limit (``rate_limit_per_minute: unlimited``)."""
GATE_NO_TOOLS_KEY = "gk_test_gate_plain_0002"
"""No feature allowed."""
CARD = "4111 1111 1111 1111"


def _policy(pid: str, enforcement: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": pid,
        "title": pid.replace("-", " ").title(),
        "summary": f"Summary of {pid}.",
        "severity": 4,
        "enforcement": enforcement,
        "citationRef": f"POL-{pid.upper()}",
        **fields,
    }


GATE_POLICIES: list[dict[str, Any]] = [
    _policy(
        "refund-cap",
        "fix",
        tools=[{"tool": "issue_refund", "argument": "amount", "max": 100}],
    ),
    _policy(
        "order-limits",
        "fix",
        tools=[
            {"tool": "update_order", "argument": "quantity", "max": 10},
            {"tool": "update_order", "argument": "plan", "oneOf": ["basic", "pro"]},
        ],
    ),
    _policy(
        "no-shell",
        "fix",
        tools=[{"tool": "shell", "deny": True, "explanation": "Agents may not run shell commands"}],
    ),
    _policy(
        "card-data",
        "fix",
        alwaysOn=True,
        detect=[{"pii": "credit_card", "replacement": "[card removed]"}],
    ),
    _policy(
        "tone",
        "warning",
        alwaysOn=True,
        detect=[{"terms": ["guarantee"], "replacement": "[promise removed]"}],
    ),
    _policy(
        "internal-names",
        "audit",
        alwaysOn=True,
        detect=[{"terms": ["project falcon"], "replacement": "[internal]"}],
    ),
    _policy(
        "unsure",
        "fix",
        alwaysOn=True,
        detect=[{"terms": ["maybe secret"], "confidence": 0.69, "replacement": "[unsure]"}],
    ),
]


def gate_config() -> dict[str, Any]:
    """One tenant of :data:`GATE_POLICIES`, a key allowed everything and one allowed nothing."""
    return copy.deepcopy(
        {
            "tenants": {"shop": {"policies": GATE_POLICIES}},
            "keys": [
                {
                    "key": GATE_KEY,
                    "tenant": "shop",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                        "rate_limit_per_minute": "unlimited",
                    },
                },
                {"key": GATE_NO_TOOLS_KEY, "tenant": "shop"},
            ],
        }
    )


def gate_governance(**kwargs: Any) -> govcore.Governance:
    """A :class:`~govcore.Governance` of :func:`gate_config` on a fake clock."""
    return govcore.Governance.from_config(gate_config(), clock=FakeClock(), **kwargs)
