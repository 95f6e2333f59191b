"""The one support module of the tests: configurations, keys and request builders.

Three configurations serve different groups of tests, and their keys have distinct names:

- :func:`config`: two tenants with keys for every access case (``FULL_KEY``, ``READ_KEY``, ...);
- :func:`checks_config`: one policy per kind of detect rule, for output, streaming, redaction and
  tool-call checks (``CHECKS_KEY``, ...);
- :func:`lifecycle_config`: nine policies across three areas (one ``alwaysOn``, one with
  ``appliesWhen``), for the conversation state machine and its properties (``LIFECYCLE_*``,
  ``SHORT_TTL_KEY``, ``GLOBEX_KEY``);
- :func:`gym_config`: a gym's policies with five examples each (two of them overlapping, one
  with ``appliesWhen``), one without examples and one ``alwaysOn``, for ``govcore coverage``.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

import govcore
from govcore.core.verdict import Finding, risk_score
from govcore.detection.scanner import Scanner, compile_rules
from govcore.policy import PolicyDocument
from govcore.testing import FakeClock, RedisServer

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


UNLIMITED = 1_000_000
"""A rate limit no test reaches."""


# --- the checks configuration ------------------------------------------------------------

CHECKS_KEY = "gk_test_checks_full_0001"
"""Scopes by default; post_inference_checking and tool_call_governance allowed."""
CHECKS_NO_FEATURE_KEY = "gk_test_checks_plain_002"
"""Default scopes, every feature setting off."""
CHECKS_READ_ONLY_KEY = "gk_test_checks_read_0003"
"""Scope governance:read only, every feature allowed."""

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
    "AKIAZ4QW7RT2LX5PJN3K": "secrets",
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
                {"key": CHECKS_KEY, "tenant": "acme", "settings": allowed},
                {
                    "key": CHECKS_NO_FEATURE_KEY,
                    "tenant": "acme",
                    "settings": {"rate_limit_per_minute": UNLIMITED},
                },
                {
                    "key": CHECKS_READ_ONLY_KEY,
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


# --- the lifecycle configuration ---------------------------------------------------------


START_TIME = 1_700_000_000.0
"""Where every fake clock starts: 2023-11-14T22:13:20Z."""

DEFAULT_TTL = 3600
"""``settings.conversation_ttl_seconds`` of the test configuration."""


# --- API keys ------------------------------------------------------------------------------

LIFECYCLE_FULL_KEY = "gk_test_acme_full_0001"
"""acme, default scopes, every feature allowed, effectively no rate limit."""
LIFECYCLE_READ_KEY = "gk_test_acme_readonly_0002"
"""acme, scope governance:read only."""
LIFECYCLE_CHECK_ONLY_KEY = "gk_test_acme_checkonly_0003"
"""acme, scope governance:check only (no turns)."""
LIFECYCLE_REVOKED_KEY = "gk_test_acme_revoked_0004"
"""acme, revoked."""
LIFECYCLE_HASHED_KEY = "gk_test_acme_hashed_0005"
"""acme, configured by its SHA-256 only; default scopes and settings."""
SHORT_TTL_KEY = "gk_test_acme_shortttl_0006"
"""acme, conversation_ttl_seconds 300."""
LIFECYCLE_SLOW_KEY = "gk_test_acme_slow_0007"
"""acme, rate limit of 2 requests a minute."""
GLOBEX_KEY = "gk_test_globex_0001"
"""globex (the second tenant), every feature allowed."""
SHORT_TTL = 300
SLOW_RATE = 2

LIFECYCLE_KEYS = (
    LIFECYCLE_FULL_KEY,
    LIFECYCLE_READ_KEY,
    LIFECYCLE_CHECK_ONLY_KEY,
    LIFECYCLE_REVOKED_KEY,
    LIFECYCLE_HASHED_KEY,
    SHORT_TTL_KEY,
    LIFECYCLE_SLOW_KEY,
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


def lifecycle_config() -> dict[str, Any]:
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
                {"key": LIFECYCLE_FULL_KEY, "tenant": "acme", "settings": settings_all},
                {
                    "key": LIFECYCLE_READ_KEY,
                    "tenant": "acme",
                    "scopes": ["governance:read"],
                    "settings": {"rate_limit_per_minute": UNLIMITED},
                },
                {
                    "key": LIFECYCLE_CHECK_ONLY_KEY,
                    "tenant": "acme",
                    "scopes": ["governance:check"],
                    "settings": {"rate_limit_per_minute": UNLIMITED},
                },
                {"key": LIFECYCLE_REVOKED_KEY, "tenant": "acme", "revoked": True},
                {
                    "key_sha256": hashlib.sha256(LIFECYCLE_HASHED_KEY.encode()).hexdigest(),
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
                    "key": LIFECYCLE_SLOW_KEY,
                    "tenant": "acme",
                    "settings": {"rate_limit_per_minute": SLOW_RATE},
                },
                {"key": GLOBEX_KEY, "tenant": "globex", "settings": settings_all},
            ],
        }
    )


def applies_when_verdict(policy_id: str, attributes: Mapping[str, Any] | None) -> bool | None:
    """A model of what attributes decide of a test policy's ``appliesWhen``: ``True`` when
    every entry matches, ``False`` when a named attribute has no allowed value, ``None`` when
    they decide neither way (docs/decisions/applies-when.md)."""
    wanted = APPLIES_WHEN.get(policy_id)
    if not wanted:
        return True
    missing = False
    for name, allowed in wanted.items():
        if not attributes or name not in attributes:
            missing = True
            continue
        allowed_values = allowed if isinstance(allowed, list) else [allowed]
        have = attributes[name]
        values = have if isinstance(have, list) else [have]
        if not any(type(v) is type(a) and v == a for v in values for a in allowed_values):
            return False
    return None if missing else True


class AppliesWhenModel:
    """A model of a conversation's ``appliesWhen`` verdicts: each condition keeps what the
    latest attributes that decided it said."""

    def __init__(self) -> None:
        self.verdicts: dict[str, bool] = {}

    def record(self, attributes: Mapping[str, Any] | None) -> None:
        """A turn with ``attributes`` (``None``: a turn without them)."""
        for policy_id in APPLIES_WHEN:
            verdict = applies_when_verdict(policy_id, attributes)
            if verdict is not None:
                self.verdicts[policy_id] = verdict

    def applies(self, policy_id: str) -> bool:
        """Whether the policy may apply at the turn last recorded."""
        return policy_id not in APPLIES_WHEN or self.verdicts.get(policy_id) is True

    def keep_for(self, active: Iterable[str]) -> None:
        """What the stored state keeps after a turn: the matches of conditions that an active
        policy has (policies with the same condition share its verdict)."""
        active_conditions = [APPLIES_WHEN[pid] for pid in active if pid in APPLIES_WHEN]
        self.verdicts = {
            pid: True
            for pid, matched in self.verdicts.items()
            if matched and APPLIES_WHEN[pid] in active_conditions
        }


# --- Redis ---------------------------------------------------------------------------------------

_IN_CI = os.environ.get("CI", "").lower() == "true"


def _unavailable() -> str | None:
    if shutil.which("redis-server") is None:
        return "no redis-server on PATH"
    if importlib.util.find_spec("redis") is None:
        return "needs the govcore[redis] extra: pip install 'govcore[redis]'"
    return None


def require_redis() -> None:
    """Skip the calling test without Redis (fail in CI)."""
    reason = _unavailable()
    if reason is not None:
        if _IN_CI:
            pytest.fail(f"Redis tests cannot run in CI: {reason}")
        pytest.skip(reason, allow_module_level=True)


# --- Hyperscan ------------------------------------------------------------------------------------

ENGINE_VARIABLE = "GOVCORE_DETECTION_ENGINE"
"""Runs the suite on one detection engine (see tests/conftest.py): ``re2`` hides the hyperscan
package, as if ``govcore[hyperscan]`` were not installed; ``hyperscan`` requires it."""

SHIPPED_DEFAULTS: dict[str, object] = {}
"""Settings defaults as govcore ships them, for the ones a run replaces (tests/conftest.py
makes ``hyperscan`` the ``detection_engine`` default of a Hyperscan run): what the
documentation must say whatever engine the run is on."""


def require_hyperscan() -> None:
    """Skip the calling test without the hyperscan package (fail in CI, which installs it),
    and when the run is on RE2 on purpose (``GOVCORE_DETECTION_ENGINE=re2``)."""
    if os.environ.get(ENGINE_VARIABLE) == "re2":
        pytest.skip(
            f"{ENGINE_VARIABLE}=re2: this run is on the RE2 engine", allow_module_level=True
        )
    if importlib.util.find_spec("hyperscan") is None:
        reason = "needs the govcore[hyperscan] extra: pip install 'govcore[hyperscan]'"
        if _IN_CI:
            pytest.fail(f"Hyperscan tests cannot run in CI: {reason}")
        pytest.skip(reason, allow_module_level=True)


def fresh_url(server: RedisServer, **parameters: str) -> str:
    """The server's URL with a key prefix no other test uses."""
    query = "&".join(
        f"{name}={value}"
        for name, value in {"prefix": f"t{uuid.uuid4().hex}:", **parameters}.items()
    )
    return f"{server.url}?{query}"


def decision(number: int) -> govcore.Decision:
    """The ``number``-th of a run of made-up tool-call decisions, one second apart."""
    return govcore.Decision(
        f"d{number}", "t", "acme", "key1", "check-tool-call", "s", ("p",), "allow", 0, 0.0, 1.0,
        1_800_000_000.0 + number,
    )  # fmt: skip


# --- a gym, for `govcore coverage` -------------------------------------------------------------

# The last example of membership-freeze speaks only of cancelling a contract with notice: the
# words of membership-cancellation, none of membership-freeze's own (freeze, frozen, pause).
FREEZE_EXAMPLE_OF_CANCELLING = "I want to end my membership contract and cancel with notice"


def gym_config() -> dict[str, Any]:
    """A gym's configuration: ``locker-theft`` (its examples all speak of lockers and theft,
    as its title does), ``personal-training`` (``appliesWhen`` a premium plan),
    ``membership-freeze`` and ``membership-cancellation`` (overlapping: one example of the
    first is about cancelling), ``pool-hours`` (no examples) and ``no-medical-advice``
    (``alwaysOn``). Default settings: the ``tfidf`` retriever, top-K 6."""
    gym = [
        policy(
            "locker-theft",
            title="Items stolen from lockers",
            summary="Report a theft from a changing-room locker to the front desk; the gym is "
            "not liable for valuables left in a locker.",
            examples=[
                "my wallet was stolen from my locker",
                "someone broke into my locker and took my phone",
                "my locker was broken and my keys are gone",
                "things were stolen out of the locker while I swam",
                "is the gym liable when a locker gets robbed",
            ],
        ),
        policy(
            "personal-training",
            title="Personal training sessions",
            summary="Premium members book personal training with a coach; sessions are "
            "cancelled free up to 24 hours before.",
            appliesWhen={"plan": ["premium", "elite"]},
            examples=[
                "can I book a personal training session with a coach",
                "I want a coach for personal training twice a week",
                "how do I reschedule my personal training session",
                "which coach does personal training on Mondays",
                "is personal training with a coach included for me",
            ],
        ),
        policy(
            "membership-freeze",
            title="Freezing a membership",
            summary="A membership can be frozen (paused) for one to three months for an "
            "injury, illness or travel; fees stop while it is frozen.",
            examples=[
                "can I freeze my membership while my knee injury heals",
                "I'm travelling for two months, can the membership be frozen",
                "pause my membership, I'm ill",
                "how long can a membership stay frozen",
                FREEZE_EXAMPLE_OF_CANCELLING,
            ],
        ),
        policy(
            "membership-cancellation",
            title="Cancelling a membership contract",
            summary="A membership contract is cancelled in writing with one month's notice; "
            "the minimum term still applies.",
            examples=[
                "how do I cancel my contract",
                "I want to cancel, what notice do I give",
                "can I cancel before the minimum term ends",
                "cancel my contract in writing",
                "what notice period applies when I cancel",
            ],
        ),
        policy(
            "pool-hours",
            title="Swimming pool opening hours",
            summary="The pool opens at 6:00 and closes at 21:00; lanes are reserved for "
            "lessons on weekend mornings.",
        ),
        policy(
            "no-medical-advice",
            title="No medical advice",
            summary="The assistant gives no medical advice and refers members to a doctor.",
            alwaysOn=True,
            examples=["is this rash from the sauna", "should I train with a fever"],
        ),
    ]
    return {"tenants": {"ironworks": {"policies": gym}}, "keys": []}
