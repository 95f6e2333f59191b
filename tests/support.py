"""Configurations shared by the unit tests."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from govcore.core.verdict import Finding, risk_score

EXAMPLE_CONFIG = (
    Path(__file__).resolve().parent.parent / "govcore" / "demo" / "acme" / "govcore.yaml"
)

FULL_KEY = "gk_test_full_000000001"
READ_KEY = "gk_test_read_000000002"
CHECK_KEY = "gk_test_check_00000003"
REVOKED_KEY = "gk_test_revoked_000004"
HASHED_KEY = "gk_test_hashed_0000005"
OTHER_TENANT_KEY = "gk_test_other_00000006"
SLOW_KEY = "gk_test_slow_000000007"


def policy(pid: str, **fields: Any) -> dict[str, Any]:
    """A valid policy document with sensible defaults."""
    document: dict[str, Any] = {
        "id": pid,
        "title": pid.replace("-", " ").title(),
        "summary": f"Summary of {pid}.",
        "severity": 3,
        "enforcement": "warning",
        "citationRef": f"POL-{pid.upper()}",
    }
    document.update(fields)
    return document


POLICIES: list[dict[str, Any]] = [
    policy(
        "refunds",
        title="Refund window",
        summary="Refunds within 30 days of delivery to the original payment method.",
        text="Customers may ask for a refund of unused items within thirty days.",
        severity=3.5,
        tags=["refund", "returns"],
        area="commerce",
        examples=["can I get my money back"],
    ),
    policy(
        "card-data",
        title="Card numbers in chat",
        summary="Never ask for or repeat card numbers; payment details go through checkout only.",
        text="Payment card numbers and security codes must never be typed into the chat.",
        severity=5,
        enforcement="fix",
        area="payments",
        detect=[{"pii": "credit_card", "replacement": "[card removed]"}],
    ),
    policy(
        "shipping",
        title="Delivery estimates",
        summary="Quote delivery ranges, never a guaranteed arrival date for parcels.",
        text="Delivery of parcels takes three to seven business days by courier.",
        severity=2,
        area="commerce",
    ),
    policy(
        "gdpr",
        title="Personal data requests",
        summary="Data access and erasure requests go to the privacy team within 30 days.",
        text="Customers may ask for a copy of their personal data or ask us to erase it.",
        severity=4,
        area="privacy",
        appliesWhen={"region": ["EU", "UK"]},
    ),
    policy(
        "ai-disclosure",
        title="Say you are an AI",
        summary="The assistant says it is an AI when asked.",
        severity=4,
        alwaysOn=True,
        area="conduct",
    ),
]

OTHER_POLICIES: list[dict[str, Any]] = [
    policy(
        "other-refunds", title="Refund rules", summary="Refunds need a receipt.", tags=["refund"]
    ),
]


def config(**settings: Any) -> dict[str, Any]:
    """A two-tenant configuration with keys for every access case."""
    return copy.deepcopy(
        {
            "settings": settings,
            "tenants": {
                "acme": {"policies": POLICIES},
                "globex": {"policies": OTHER_POLICIES},
            },
            "keys": [
                {
                    "key": FULL_KEY,
                    "tenant": "acme",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                        "rationale_required": True,
                    },
                },
                {"key": READ_KEY, "tenant": "acme", "scopes": ["governance:read"]},
                {"key": CHECK_KEY, "tenant": "acme", "scopes": ["governance:check"]},
                {"key": REVOKED_KEY, "tenant": "acme", "revoked": True},
                {"key_sha256": hashlib.sha256(HASHED_KEY.encode()).hexdigest(), "tenant": "acme"},
                {"key": OTHER_TENANT_KEY, "tenant": "globex"},
                {
                    "key": SLOW_KEY,
                    "tenant": "acme",
                    "settings": {"rate_limit_per_minute": 3, "conversation_ttl_seconds": 600},
                },
            ],
        }
    )


def turn(session_id: str, content: str, role: str = "user", **extra: Any) -> dict[str, Any]:
    """A turn request body in wire form."""
    return {"sessionId": session_id, "turn": {"role": role, "content": content}, **extra}


def bearer(key: str) -> dict[str, str]:
    """Headers carrying ``key``."""
    return {"Authorization": f"Bearer {key}"}


def risk_of(pairs: Iterable[tuple[float, float]]) -> float:
    """The core's risk score of findings given as ``(confidence, severity)`` pairs."""
    return risk_score(
        Finding("p", "x", "e", severity=severity, confidence=confidence, enforcement="fix")
        for confidence, severity in pairs
    )
