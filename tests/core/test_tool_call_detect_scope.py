"""Which policies' ``detect`` rules read a tool call's arguments (``detectInToolCalls``;
docs/decisions/tool-calls.md, docs/configuration.md).

The default, ``always``, enforces a policy on every tool call of the tenant whether or not the
conversation selected it, so that a selection miss never lets a card number out through a
tool; ``whenActive`` keeps the session rule of the specification's wording. A session's
``appliesWhen`` verdicts rule out a conditional ``always`` policy only when its end user's
attributes were judged not to match.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.gating import DetectScope
from govcore.policy import PolicySet
from govcore.testing import FakeClock
from tests.support import policy

KEY = "gk_test_detect_scope_0001"
CARD = "4111 1111 1111 1111"  # Luhn-valid
NOT_A_CARD = "4111 1111 1111 1112"  # same shape, Luhn-invalid

POLICIES: list[dict[str, Any]] = [
    policy(
        "card-data",
        title="Card numbers",
        summary="Never repeat payment card numbers.",
        text="Payment card numbers must never be typed into the chat or sent on.",
        severity=5,
        enforcement="fix",
        detect=[{"pii": "credit_card", "replacement": "[card]"}],
    ),
    policy(
        "shipping",
        title="Delivery estimates",
        summary="Quote delivery ranges for parcels, never a guaranteed date.",
        text="Delivery of parcels takes three to seven business days by courier.",
        severity=2,
    ),
    policy(
        "codename",
        title="Project codename",
        summary="The unreleased product codename stays internal.",
        text="Never reveal the internal codename of the unreleased glacier product line.",
        severity=4,
        enforcement="fix",
        detect=[{"terms": ["bluefin"]}],
        detectInToolCalls="whenActive",
    ),
    policy(
        "internal-hosts",
        title="Internal hosts",
        summary="Internal host names are reported for audit.",
        severity=2,
        enforcement="warning",
        detect=[{"regex": r"\bhost-[0-9]{3}\.corp\b"}],
    ),
    policy(
        "eu-ids",
        title="EU national ids",
        summary="Personal identity numbers of EU customers stay out of tools.",
        text="Personal identity numbers of European customers are personal data.",
        severity=4,
        enforcement="fix",
        appliesWhen={"region": "EU"},
        detect=[{"regex": r"\bID-[0-9]{6}\b"}],
    ),
]


def _config(policies: list[dict[str, Any]]) -> dict[str, Any]:
    allowed = {"tool_call_governance": "allowed", "rate_limit_per_minute": 1_000_000}
    return copy.deepcopy(
        {
            "tenants": {"acme": {"policies": policies}},
            "keys": [{"key": KEY, "tenant": "acme", "settings": allowed}],
        }
    )


@pytest.fixture
def client() -> govcore.GovernanceClient:
    return govcore.Governance.from_config(_config(POLICIES), clock=FakeClock()).client(KEY)


def _sms(client: govcore.GovernanceClient, session: str, body: str) -> govcore.ToolCallDecision:
    return client.check_tool_call(
        {"sessionId": session, "toolName": "send_sms", "arguments": {"to": "x", "body": body}}
    )


def _policies(decision: govcore.ToolCallDecision) -> list[str]:
    return sorted(v.policy_id for v in decision.violations)


def _active(response: govcore.TurnResponse) -> set[str]:
    return {p.id for p in response.active_policies}


def test_a_card_number_in_an_unknown_sessions_tool_call_is_blocked(
    client: govcore.GovernanceClient,
) -> None:
    """No conversation ever selected the card policy: its detect rule still blocks the call."""
    decision = _sms(client, "never-seen", f"Your card {CARD} is on file")
    assert _policies(decision) == ["card-data"]
    assert decision.allow is False
    assert decision.risk_score > 0
    assert decision.suggested_arguments == {"to": "x", "body": "Your card [card] is on file"}


def test_a_card_number_is_caught_in_a_session_that_never_selected_the_card_policy(
    client: govcore.GovernanceClient,
) -> None:
    """The reported hole: a conversation about something else, then a card number in a tool."""
    turn = client.record_turn(
        {
            "sessionId": "parcel",
            "turn": {"role": "user", "content": "When will my parcel be delivered?"},
        }
    )
    assert "shipping" in _active(turn)
    assert "card-data" not in _active(turn)
    decision = _sms(client, "parcel", f"Charged {CARD} for the courier")
    assert _policies(decision) == ["card-data"]
    assert decision.allow is False


@pytest.mark.parametrize("body", [f"Order {NOT_A_CARD}", "Order 4111 1111 1111", "no digits"])
def test_near_misses_are_not_card_numbers(client: govcore.GovernanceClient, body: str) -> None:
    """A Luhn-invalid or too short number is no card number, policy active or not."""
    decision = _sms(client, "never-seen", body)
    assert decision.violations == []
    assert decision.allow is True
    assert decision.risk_score == 0.0


def test_a_when_active_policy_stays_silent_until_its_session_selects_it(
    client: govcore.GovernanceClient,
) -> None:
    """`whenActive`: the session rule, for a policy whose detect rules would be noise elsewhere."""
    assert _sms(client, "launch", "ship bluefin to the store").violations == []
    turn = client.record_turn(
        {
            "sessionId": "launch",
            "turn": {
                "role": "user",
                "content": "What is the internal codename of the unreleased glacier product?",
            },
        }
    )
    assert "codename" in _active(turn)
    decision = _sms(client, "launch", "ship bluefin to the store")
    assert _policies(decision) == ["codename"]
    assert decision.allow is False
    # Another session has not selected it: still silent there.
    assert _sms(client, "other", "ship bluefin to the store").violations == []


def test_an_inactive_policy_carries_its_own_enforcement(client: govcore.GovernanceClient) -> None:
    """A warning policy that is not active is reported and allowed, as an active one would be;
    beside a fix violation the call is blocked."""
    decision = _sms(client, "never-seen", "see host-042.corp")
    assert _policies(decision) == ["internal-hosts"]
    assert [v.enforcement_type for v in decision.violations] == ["warning"]
    assert decision.allow is True
    both = _sms(client, "never-seen", f"see host-042.corp, card {CARD}")
    assert _policies(both) == ["card-data", "internal-hosts"]
    assert both.allow is False


def _turn_with(client: govcore.GovernanceClient, session: str, **attributes: Any) -> None:
    request: dict[str, Any] = {
        "sessionId": session,
        "turn": {"role": "user", "content": "When will my parcel be delivered?"},
    }
    if attributes:
        request["endUserContext"] = {"attributes": attributes}
    client.record_turn(request)


@pytest.mark.parametrize(
    ("attributes", "enforced"),
    [
        (None, True),  # unknown session: nothing says the condition fails
        ({}, True),  # a session whose turns carried no attributes
        ({"tier": "gold"}, True),  # attributes that do not name region decide nothing
        ({"region": "EU"}, True),
        # Judged not to match, but a conversation keeps only the matches of active policies'
        # conditions (docs/decisions/applies-when.md): nothing remembers it, so the tool call
        # errs on the side of enforcing.
        ({"region": "US"}, True),
    ],
)
def test_a_conditional_policy_is_enforced_whatever_the_session_said_of_it(
    client: govcore.GovernanceClient, attributes: dict[str, Any] | None, enforced: bool
) -> None:
    """An `always` policy with appliesWhen, never selected, on a tool call of the session."""
    session = "conditional"
    if attributes is not None:
        _turn_with(client, session, **attributes)
    decision = _sms(client, session, "customer ID-123456")
    assert (_policies(decision) == ["eu-ids"]) is enforced
    assert decision.allow is not enforced


def test_every_check_of_output_is_unchanged() -> None:
    """`detectInToolCalls` concerns tool calls only: output checks apply every policy, a
    `whenActive` one included."""
    config = _config(POLICIES)
    config["keys"][0]["settings"]["post_inference_checking"] = "allowed"
    client = govcore.Governance.from_config(config, clock=FakeClock()).client(KEY)
    verdict = client.post_inference(
        {"sessionId": "s", "output": "ship bluefin now", "prompt": "p", "surface": "chat"}
    )
    assert verdict.policy_citations == ["codename"]


def test_the_default_is_always() -> None:
    """A policy that says nothing is enforced on every tool call."""
    document = PolicySet.from_documents("t", [policy("p", detect=[{"pii": "email"}])])
    assert document.policies[0].detect_in_tool_calls == "always"


@pytest.mark.parametrize("value", ["sometimes", "when_active", "", True, None])
def test_a_bad_value_is_a_config_error_naming_the_field_and_the_values(value: Any) -> None:
    bad = policy("p", detect=[{"pii": "email"}], detectInToolCalls=value)
    with pytest.raises(govcore.ConfigError) as caught:
        govcore.Governance.from_config(_config([bad]))
    message = str(caught.value)
    assert "policy 'p'" in message
    assert "detectInToolCalls" in message
    assert "'always'" in message
    assert "'whenActive'" in message


def test_the_scope_costs_nothing_when_every_policy_is_enforced() -> None:
    """No whenActive policy, no ruled-out condition: the scanner is given no filter at all."""
    policies = PolicySet.from_documents(
        "t",
        [
            policy("a", detect=[{"pii": "email"}]),
            policy("b", detect=[{"pii": "phone"}], appliesWhen={"region": "EU"}),
            # whenActive without detect rules never scans: nothing to exclude
            policy("c", detectInToolCalls="whenActive"),
            # alwaysOn: enforced on every tool call whatever the session says, as before
            policy("d", detect=[{"pii": "iban"}], alwaysOn=True, detectInToolCalls="whenActive"),
            policy("e", detect=[{"pii": "iban"}], alwaysOn=True, appliesWhen={"region": "EU"}),
        ],
    ).policies
    scope = DetectScope.of(policies)
    assert scope.applicable(active=(), ruled_out=()) is None
    assert scope.applicable(active=(), ruled_out=("e",)) is None
    assert scope.applicable(active=("b",), ruled_out=("b",)) is None
    ruling_out_b = scope.applicable(active=(), ruled_out=("b",))
    assert ruling_out_b is not None
    assert [pid for pid in "abcde" if pid in ruling_out_b] == ["a", "c", "d", "e"]


POLICY_FLAGS = st.fixed_dictionaries(
    {
        "when_active": st.booleans(),
        "always_on": st.booleans(),
        "conditional": st.booleans(),
        "active": st.booleans(),
        "ruled_out": st.booleans(),
    }
)


@settings(max_examples=200, deadline=None)
@given(flags=st.lists(POLICY_FLAGS, min_size=1, max_size=8))
def test_the_scope_only_ever_adds_to_the_session_rule(flags: list[dict[str, bool]]) -> None:
    """Every policy the session rule enforced (active or alwaysOn) is still enforced; of the
    others, a whenActive one never is, an always one is unless its condition was ruled out."""
    documents = [
        policy(
            f"p{i}",
            detect=[{"pii": "email"}],
            alwaysOn=f["always_on"],
            detectInToolCalls="whenActive" if f["when_active"] else "always",
            **({"appliesWhen": {"region": "EU"}} if f["conditional"] else {}),
        )
        for i, f in enumerate(flags)
    ]
    scope = DetectScope.of(PolicySet.from_documents("t", documents).policies)
    active = [f"p{i}" for i, f in enumerate(flags) if f["active"]]
    ruled_out = [f"p{i}" for i, f in enumerate(flags) if f["ruled_out"] and f["conditional"]]
    applicable = scope.applicable(active, ruled_out)
    for i, f in enumerate(flags):
        enforced = applicable is None or f"p{i}" in applicable
        if f["active"] or f["always_on"]:
            assert enforced, f
        elif f["when_active"]:
            assert not enforced, f
        else:
            assert enforced is not (f["conditional"] and f["ruled_out"]), f
