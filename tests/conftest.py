"""Shared test helpers: a fake clock and a small configuration built in code.

The configuration has a tenant (``acme``) with nine policies across three areas (one of them
``alwaysOn``, one with ``appliesWhen``, one without an area), a second tenant (``globex``), and keys
with various scopes and settings, one revoked and one given only as its SHA-256.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import govcore
from govcore.testing import FakeClock

EXAMPLE_CONFIG = (
    Path(__file__).resolve().parent.parent / "govcore" / "demo" / "acme" / "govcore.yaml"
)
"""The example deployment's configuration (policies are read relative to it)."""

START_TIME = 1_700_000_000.0
"""Where every fake clock starts: 2023-11-14T22:13:20Z."""

DEFAULT_TTL = 3600
"""``settings.conversation_ttl_seconds`` of the test configuration."""

UNLIMITED = 1_000_000
"""A rate limit no test reaches."""

# --- API keys ------------------------------------------------------------------------------

FULL_KEY = "gk_test_acme_full_0001"
"""acme, default scopes, every feature allowed, effectively no rate limit."""
READONLY_KEY = "gk_test_acme_readonly_0002"
"""acme, scope governance:read only."""
CHECK_ONLY_KEY = "gk_test_acme_checkonly_0003"
"""acme, scope governance:check only (no turns)."""
REVOKED_KEY = "gk_test_acme_revoked_0004"
"""acme, revoked."""
HASHED_KEY = "gk_test_acme_hashed_0005"
"""acme, configured by its SHA-256 only; default scopes and settings."""
SHORT_TTL_KEY = "gk_test_acme_shortttl_0006"
"""acme, conversation_ttl_seconds 300."""
SLOW_KEY = "gk_test_acme_slow_0007"
"""acme, rate limit of 2 requests a minute."""
GLOBEX_KEY = "gk_test_globex_0001"
"""globex (the second tenant), every feature allowed."""
SHORT_TTL = 300
SLOW_RATE = 2

ALL_KEYS = (
    FULL_KEY,
    READONLY_KEY,
    CHECK_ONLY_KEY,
    REVOKED_KEY,
    HASHED_KEY,
    SHORT_TTL_KEY,
    SLOW_KEY,
    GLOBEX_KEY,
)

# --- policies ------------------------------------------------------------------------------

ACME_POLICIES: list[dict[str, Any]] = [
    {
        "id": "data-subject-rights",
        "title": "Personal data access and export requests",
        "summary": "EU and UK customers may obtain and export their personal data (GDPR).",
        "text": "Verify identity, then export the customer's personal data as JSON or CSV "
        "within one month. GDPR data subject access requests are free of charge.",
        "severity": 4,
        "enforcement": "warning",
        "citationRef": "ACME-PRV-2.3 Data subject rights",
        "tags": ["gdpr", "personal-data", "export"],
        "area": "privacy",
        "appliesWhen": {"region": ["EU", "UK"]},
    },
    {
        "id": "account-deletion",
        "title": "Account closure and deletion",
        "summary": "Customers may ask to close and delete their account; file the request.",
        "text": "The assistant cannot delete accounts itself. It explains that order history "
        "and store credit are lost and files a closure request for the privacy office.",
        "severity": 3.5,
        "enforcement": "audit",
        "citationRef": "ACME-PRV-3.1 Account closure",
        "tags": ["account", "deletion", "erasure"],
        "area": "privacy",
    },
    {
        "id": "marketing-consent",
        "title": "Marketing email consent",
        "summary": "Send marketing emails and newsletters only with recorded consent.",
        "text": "Unsubscribe requests are honoured at once. Never add an email address to a "
        "newsletter or promotion list without opt-in consent.",
        "severity": 2,
        "enforcement": "warning",
        "citationRef": "ACME-PRV-4.0 Marketing consent",
        "tags": ["marketing", "newsletter", "consent", "unsubscribe"],
        "area": "privacy",
    },
    {
        "id": "refund-window",
        "title": "Refunds within 30 days",
        "summary": "Refund unused items returned within 30 days of delivery to the original "
        "payment method.",
        "text": "Refunds are issued to the original card or payment method. Returns after 30 "
        "days get store credit. Never promise a refund before the return is received.",
        "severity": 3,
        "enforcement": "fix",
        "citationRef": "ACME-PAY-1.2 Refund window",
        "tags": ["refund", "return", "money-back"],
        "area": "payments",
        "detect": [{"regex": "(?i)guaranteed refund", "confidence": 0.8}],
    },
    {
        "id": "card-data",
        "title": "Never ask for full card numbers",
        "summary": "Do not request, repeat or store full credit card numbers or CVV codes.",
        "text": "Payment card data is handled only by the payment page. If a customer pastes a "
        "credit card number, do not repeat it.",
        "severity": 5,
        "enforcement": "fix",
        "citationRef": "ACME-PAY-2.0 Card data",
        "tags": ["credit-card", "pci", "cvv", "payment"],
        "area": "payments",
        "detect": [{"pii": "credit_card"}],
    },
    {
        "id": "chargebacks",
        "title": "Chargebacks and payment disputes",
        "summary": "When a customer mentions a chargeback or bank dispute, hand over to billing.",
        "text": "Do not argue about chargebacks or disputed payments; open a billing ticket.",
        "severity": 2.5,
        "enforcement": "audit",
        "citationRef": "ACME-PAY-3.4 Chargebacks",
        "tags": ["chargeback", "dispute", "bank"],
        "area": "payments",
    },
    {
        "id": "respectful-tone",
        "title": "Respectful, honest tone",
        "summary": "Be courteous and honest; never insult or mislead the customer.",
        "severity": 1,
        "enforcement": "audit",
        "citationRef": "ACME-CON-1.0 Tone",
        "tags": ["tone", "courtesy"],
        "area": "conduct",
        "alwaysOn": True,
    },
    {
        "id": "no-legal-advice",
        "title": "No legal advice",
        "summary": "Do not give legal advice about lawsuits, lawyers or liability claims.",
        "text": "If a customer threatens to sue or asks about suing, a lawsuit, a lawyer or "
        "liability, refer them to the legal team and do not admit fault.",
        "severity": 4.5,
        "enforcement": "warning",
        "citationRef": "ACME-CON-2.2 Legal advice",
        "tags": ["legal", "lawsuit", "lawyer", "liability"],
        "area": "conduct",
    },
    {
        "id": "shipping-delays",
        "title": "Shipping delays and lost parcels",
        "summary": "Give tracking status honestly and reship lost parcels after 10 days.",
        "text": "A parcel without a tracking update for 10 business days is lost: reship it "
        "or refund it. Never invent delivery dates.",
        "severity": 2,
        "enforcement": "warning",
        "citationRef": "ACME-SHP-1.1 Shipping delays",
        "tags": ["shipping", "delivery", "tracking", "parcel"],
    },
]

GLOBEX_POLICIES: list[dict[str, Any]] = [
    {
        "id": "globex-refunds",
        "title": "Globex refund rules",
        "summary": "Globex refunds only within 14 days.",
        "severity": 3,
        "enforcement": "fix",
        "citationRef": "GLX-1 Refunds",
        "tags": ["refund"],
        "area": "payments",
    },
    {
        "id": "globex-greeting",
        "title": "Globex greeting",
        "summary": "Introduce yourself as the Globex assistant.",
        "severity": 0.5,
        "enforcement": "audit",
        "citationRef": "GLX-0 Greeting",
        "alwaysOn": True,
    },
]

ACME_AREAS = ("privacy", "payments", "conduct")
ALWAYS_ON_IDS = frozenset(p["id"] for p in ACME_POLICIES if p.get("alwaysOn"))
APPLIES_WHEN: dict[str, dict[str, Any]] = {
    p["id"]: p["appliesWhen"] for p in ACME_POLICIES if p.get("appliesWhen")
}
AREA_OF: dict[str, str | None] = {p["id"]: p.get("area") for p in ACME_POLICIES}
ACME_BY_ID: dict[str, dict[str, Any]] = {p["id"]: p for p in ACME_POLICIES}


def build_config() -> dict[str, Any]:
    """A fresh copy of the test configuration mapping."""
    settings_all = {
        "post_inference_checking": "allowed",
        "tool_call_governance": "allowed",
        "rate_limit_per_minute": UNLIMITED,
    }
    return copy.deepcopy(
        {
            "settings": {"conversation_ttl_seconds": DEFAULT_TTL},
            "tenants": {
                "acme": {"policies": ACME_POLICIES},
                "globex": {"policies": GLOBEX_POLICIES},
            },
            "keys": [
                {"key": FULL_KEY, "tenant": "acme", "settings": settings_all},
                {
                    "key": READONLY_KEY,
                    "tenant": "acme",
                    "scopes": ["governance:read"],
                    "settings": {"rate_limit_per_minute": UNLIMITED},
                },
                {
                    "key": CHECK_ONLY_KEY,
                    "tenant": "acme",
                    "scopes": ["governance:check"],
                    "settings": {"rate_limit_per_minute": UNLIMITED},
                },
                {"key": REVOKED_KEY, "tenant": "acme", "revoked": True},
                {
                    "key_sha256": hashlib.sha256(HASHED_KEY.encode()).hexdigest(),
                    "tenant": "acme",
                },
                {
                    "key": SHORT_TTL_KEY,
                    "tenant": "acme",
                    "settings": {
                        "conversation_ttl_seconds": SHORT_TTL,
                        "rate_limit_per_minute": UNLIMITED,
                    },
                },
                {
                    "key": SLOW_KEY,
                    "tenant": "acme",
                    "settings": {"rate_limit_per_minute": SLOW_RATE},
                },
                {"key": GLOBEX_KEY, "tenant": "globex", "settings": settings_all},
            ],
        }
    )


def applies_when_matches(policy_id: str, attributes: Mapping[str, Any] | None) -> bool:
    """A model of ``appliesWhen`` (contract §2) for the test policies."""
    wanted = APPLIES_WHEN.get(policy_id)
    if not wanted:
        return True
    if not attributes:
        return False
    for name, allowed in wanted.items():
        if name not in attributes:
            return False
        allowed_values = allowed if isinstance(allowed, list) else [allowed]
        have = attributes[name]
        values = have if isinstance(have, list) else [have]
        if not any(type(v) is type(a) and v == a for v in values for a in allowed_values):
            return False
    return True


@pytest.fixture(scope="module")
def module_clock() -> FakeClock:
    """One fake clock per test module, shared with that module's ``module_governance``."""
    return FakeClock(START_TIME)


@pytest.fixture(scope="module")
def module_governance(module_clock: FakeClock) -> govcore.Governance:
    """The test configuration, built once per module on the module's fake clock."""
    return govcore.Governance.from_config(build_config(), clock=module_clock)


@pytest.fixture(scope="module")
def module_example_governance(module_clock: FakeClock) -> govcore.Governance:
    """The example deployment (govcore/demo/acme/govcore.yaml) on the module's fake clock."""
    return govcore.Governance.from_config(EXAMPLE_CONFIG, clock=module_clock)
