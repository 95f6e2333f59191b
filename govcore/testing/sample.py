"""A small configuration for tests: one tenant, a few policies that exercise every kind of rule,
and one key with every scope and feature setting.

It is what the pytest plugin's ``govcore_config`` fixture gives unless a test suite overrides it
(docs/testing.md). Small on purpose: a governance built from it takes a few milliseconds, so
each test can have its own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SAMPLE_KEY", "SAMPLE_TENANT", "sample_config"]

SAMPLE_TENANT = "sample"
"""The tenant of :func:`sample_config`."""

SAMPLE_KEY = "gk_sample_full_access_0001"
"""The key of :func:`sample_config`: every scope, ``post_inference_checking`` and
``tool_call_governance`` allowed, no rate limit."""


def sample_config() -> dict[str, Any]:
    """A new copy of the sample configuration (a mapping for ``Governance.from_config``).

    Its policies: ``privacy-pii`` (``email``, ``credit_card``, ``iban`` and ``secret`` rules,
    enforcement fix), ``refunds`` (a terms rule, warning), ``conduct`` (always on, a regex rule,
    audit), ``payments-tools`` (a denied tool and a maximum on an argument, fix) and
    ``eu-data`` (applies only to end users whose ``region`` is ``EU``).
    """
    return {
        "tenants": {
            SAMPLE_TENANT: {
                "policies": [
                    {
                        "id": "privacy-pii",
                        "title": "Never disclose personal data",
                        "summary": "Do not reveal e-mail addresses, card numbers, IBANs or secrets.",
                        "severity": 8,
                        "enforcement": "fix",
                        "citationRef": "Privacy 1.1",
                        "area": "privacy",
                        "tags": ["privacy", "pii"],
                        "examples": ["what is the customer's email address"],
                        "detect": [
                            {"pii": ["email", "credit_card", "iban"]},
                            {"pii": "secret", "replacement": "[secret removed]"},
                        ],
                    },
                    {
                        "id": "refunds",
                        "title": "Refunds follow the returns policy",
                        "summary": "Refunds within 30 days of delivery; never promise more.",
                        "severity": 5,
                        "enforcement": "warning",
                        "citationRef": "Returns 2.3",
                        "area": "payments",
                        "examples": ["can I get my money back", "I want a refund"],
                        "detect": [{"terms": ["guaranteed refund"], "confidence": 0.8}],
                    },
                    {
                        "id": "conduct",
                        "title": "Be courteous",
                        "summary": "Never insult the customer.",
                        "severity": 2.5,
                        "enforcement": "audit",
                        "citationRef": "Conduct 1",
                        "alwaysOn": True,
                        "detect": [{"regex": "(?i)\\bstupid\\b"}],
                    },
                    {
                        "id": "payments-tools",
                        "title": "Payments need approval",
                        "summary": "Refunds over 500 need a human; never delete accounts.",
                        "severity": 9,
                        "enforcement": "fix",
                        "citationRef": "Payments 4",
                        "area": "payments",
                        "tools": [
                            {"tool": "delete_account", "deny": True},
                            {"tool": "refund", "argument": "amount", "max": 500},
                        ],
                    },
                    {
                        "id": "eu-data",
                        "title": "EU customers' data stays in the EU",
                        "summary": "Do not move an EU customer's data outside the EU.",
                        "severity": 7,
                        "enforcement": "warning",
                        "citationRef": "GDPR 44",
                        "area": "privacy",
                        "appliesWhen": {"region": "EU"},
                        "examples": ["send my data to the US office"],
                    },
                ]
            }
        },
        "keys": [
            {
                "key": SAMPLE_KEY,
                "tenant": SAMPLE_TENANT,
                "scopes": [
                    "governance:read",
                    "governance:check",
                    "policies:read",
                    "policies:ack",
                    "feedback:write",
                ],
                "settings": {
                    "post_inference_checking": "allowed",
                    "tool_call_governance": "allowed",
                    "rate_limit_per_minute": "unlimited",
                },
            }
        ],
    }
