"""A configuration for the output, streaming and redaction tests: one policy per kind of rule.

Every built-in detector, a `terms` rule and an author's `regex` each belong to a policy of their
own, with distinct severities and enforcements, so a violation's policy tells which rule found
it. Planted samples (``SAMPLES``) are values each of those rules finds on its own.
"""

from __future__ import annotations

import copy
from typing import Any

import govcore
from govcore.detection.scanner import Scanner, compile_rules
from govcore.policy import PolicyDocument
from govcore.testing import FakeClock
from tests.support import policy

CHECK_KEY = "gk_test_checks_full_0001"
"""Scopes by default; post_inference_checking and tool_call_governance allowed."""
NO_FEATURE_KEY = "gk_test_checks_plain_002"
"""Default scopes, every feature setting off."""
READ_ONLY_KEY = "gk_test_checks_read_0003"
"""Scope governance:read only, every feature allowed."""
UNLIMITED = 1_000_000

DETECT_POLICIES: list[dict[str, Any]] = [
    policy(
        "card-data",
        title="Card numbers",
        summary="Never repeat payment card numbers.",
        severity=5,
        enforcement="fix",
        area="payments",
        detect=[{"pii": "credit_card", "replacement": "[card removed]"}],
    ),
    policy(
        "bank-details",
        title="Bank account numbers",
        summary="Never repeat IBANs.",
        severity=4,
        enforcement="fix",
        area="payments",
        detect=[{"pii": "iban", "confidence": 0.95}],
    ),
    policy(
        "contact-data",
        title="Contact details",
        summary="Do not disclose email addresses.",
        severity=2,
        enforcement="warning",
        area="privacy",
        detect=[{"pii": "email", "confidence": 0.85, "explanation": "An email address."}],
    ),
    policy(
        "gov-ids",
        title="Government identifiers",
        summary="Never disclose social security numbers.",
        severity=4.5,
        enforcement="fix",
        area="privacy",
        detect=[{"pii": "us_ssn"}],
    ),
    policy(
        "secrets",
        title="Credentials",
        summary="Never disclose keys, tokens or passwords.",
        severity=5,
        enforcement="fix",
        area="security",
        detect=[{"pii": "secret", "replacement": "[secret removed]"}],
    ),
    policy(
        "network",
        title="Internal addresses",
        summary="Internal IP addresses are audited.",
        severity=1,
        enforcement="audit",
        area="security",
        detect=[{"pii": "ip_address"}],
    ),
    policy(
        "promises",
        title="No promises",
        summary="Do not promise refunds or warranties.",
        severity=3,
        enforcement="warning",
        area="commerce",
        detect=[
            {
                "terms": ["guaranteed refund", "lifetime warranty", "risk-free"],
                "confidence": 0.8,
            }
        ],
    ),
    policy(
        "internal-codes",
        title="Project code names",
        summary="Do not reveal project codes.",
        severity=2.5,
        enforcement="audit",
        detect=[{"regex": r"proj-[0-9]{4}", "confidence": 0.75, "replacement": "[code]"}],
    ),
]

POLICY_OF_SAMPLE: dict[str, str] = {
    "4111 1111 1111 1111": "card-data",
    "5500-0000-0000-0004": "card-data",
    "GB82 WEST 1234 5698 7654 32": "bank-details",
    "DE89370400440532013000": "bank-details",
    "jane.doe+orders@mail.example.co.uk": "contact-data",
    "123-45-6789": "gov-ids",
    "AKIAIOSFODNN7EXAMPLE": "secrets",
    "ghp_" + "A1b2C3d4" * 5: "secrets",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc": "secrets",
    "10.20.30.40": "network",
    "guaranteed refund": "promises",
    "Lifetime Warranty": "promises",
    "PROJ-4242": "internal-codes",
}
"""Samples that each policy's rule finds whole, standing alone between spaces."""
SAMPLES = tuple(POLICY_OF_SAMPLE)


def private_key_block(lines: int = 6, width: int = 64) -> str:
    """A PEM private-key block; with the defaults far longer than 200 characters."""
    body = "\n".join(("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" * 3)[:width] for _ in range(lines))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


def checks_config(**settings: Any) -> dict[str, Any]:
    """One tenant with ``DETECT_POLICIES`` and the three keys above."""
    allowed = {
        "post_inference_checking": "allowed",
        "tool_call_governance": "allowed",
        "rate_limit_per_minute": UNLIMITED,
    }
    return copy.deepcopy(
        {
            "settings": settings,
            "tenants": {"acme": {"policies": DETECT_POLICIES}},
            "keys": [
                {"key": CHECK_KEY, "tenant": "acme", "settings": allowed},
                {
                    "key": NO_FEATURE_KEY,
                    "tenant": "acme",
                    "settings": {"rate_limit_per_minute": UNLIMITED},
                },
                {
                    "key": READ_ONLY_KEY,
                    "tenant": "acme",
                    "scopes": ["governance:read"],
                    "settings": allowed,
                },
            ],
        }
    )


def checks_governance(
    decision_log: govcore.DecisionLog | None = None, **settings: Any
) -> govcore.Governance:
    """A fresh governance of ``checks_config(**settings)`` on a fake clock."""
    return govcore.Governance.from_config(
        checks_config(**settings), clock=FakeClock(), decision_log=decision_log
    )


def detect_scanner(policies: list[dict[str, Any]] | None = None) -> Scanner:
    """The scanner of every detect rule of ``policies`` (default ``DETECT_POLICIES``)."""
    documents = [PolicyDocument.model_validate(p) for p in policies or DETECT_POLICIES]
    return compile_rules((doc, rule) for doc in documents for rule in doc.detect)


# The wire fields of the three violation shapes (specification §2.4).
VIOLATION_FIELDS = frozenset(
    {"policyId", "matchedText", "explanation", "severity", "confidence", "enforcementType"}
)
OUTPUT_VIOLATION_FIELDS = VIOLATION_FIELDS | {"enforcementText"}
STREAM_VIOLATION_FIELDS = OUTPUT_VIOLATION_FIELDS | {"offset"}
