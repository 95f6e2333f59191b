"""Tool-call gating (spec §4.4, §5; contract §2 tool rules, §3; docs/decisions/tool-calls.md).

``deny`` and ``argument`` rules (``max``, ``min``, ``oneOf``, ``detect``) over dotted and ``[*]``
paths, the ``allow`` rule (false exactly when a ``fix`` violation has confidence >= 0.7),
``suggestedArguments``, the wire shape, which ``detect`` rules apply for a session, and access.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.gating import compile_tool_rules, gate_tool_call
from govcore.detection.scanner import compile_rules
from govcore.errors import InvalidRequestError, PermissionDeniedError
from govcore.policy import PolicyDocument
from govcore.service.requests import validate_request
from govcore.testing import FakeClock
from tests.support import VIOLATION_FIELDS, bearer, policy, risk_of

TOOL_KEY = "gk_test_tools_full_00001"
TOOLS_NO_FEATURE_KEY = "gk_test_tools_plain_0002"
TOOLS_READ_ONLY_KEY = "gk_test_tools_read_00003"

TOOL_POLICIES: list[dict[str, Any]] = [
    policy(
        "transfer-limits",
        title="Transfer limits",
        summary="Bank transfers stay within limits and approved currencies.",
        severity=4,
        enforcement="fix",
        area="payments",
        tools=[
            {"tool": "bank.transfer", "argument": "amount", "max": 1000, "confidence": 0.95},
            {"tool": "bank.transfer", "argument": "amount", "min": 1},
            {"tool": "bank.transfer", "argument": "currency", "oneOf": ["EUR", "USD"]},
            {"tool": "bank.*", "argument": "items[*].qty", "min": 1, "max": 10},
            {"tool": "bank.transfer", "argument": "beneficiary.address.country", "oneOf": ["DE"]},
            {"tool": "bank.transfer", "argument": "lines[*].tags[*]", "oneOf": ["a", "b"]},
            {"tool": "bank.transfer", "argument": "items[0].sku", "oneOf": ["SKU-1"]},
            {"tool": "bank.transfer", "argument": "flag", "oneOf": [1, 2]},
            {"tool": "bank.transfer", "argument": "enabled", "oneOf": [True]},
            {
                "tool": "bank.transfer",
                "argument": "memo",
                "detect": [{"pii": "email", "replacement": "[email]"}],
            },
        ],
    ),
    policy(
        "no-drop",
        title="No destructive database calls",
        summary="Never drop tables.",
        severity=5,
        enforcement="fix",
        tools=[{"tool": "db.drop*", "deny": True}],
    ),
    policy(
        "shell-audit",
        title="Shell use is audited",
        summary="Shell commands are logged.",
        severity=2,
        enforcement="audit",
        tools=[{"tool": "shell.exec", "deny": True}],
    ),
    policy(
        "mail-review",
        title="Outbound mail review",
        summary="Outbound mail is reviewed.",
        severity=3,
        enforcement="fix",
        tools=[{"tool": "mail.send", "deny": True, "confidence": 0.5}],
    ),
    policy(
        "card-data",
        title="Card numbers in chat",
        summary="Never ask for or repeat credit card numbers; card payments go through checkout.",
        text="Payment card numbers and security codes must never be typed into the chat.",
        severity=5,
        enforcement="fix",
        tags=["credit-card", "card", "payment"],
        detect=[{"pii": "credit_card", "replacement": "[card]"}],
        # Guards the session rule of whenActive; the default (always) is in
        # tests/core/test_tool_call_detect_scope.py.
        detectInToolCalls="whenActive",
    ),
    policy(
        "phones",
        title="Phone numbers",
        summary="Phone numbers are personal data.",
        severity=2,
        enforcement="fix",
        alwaysOn=True,
        detect=[{"pii": "phone"}],
    ),
    policy(
        "emails",
        title="Email addresses",
        summary="Email addresses are personal data.",
        severity=3,
        enforcement="warning",
        alwaysOn=True,
        detect=[{"pii": "email", "replacement": "[mail]"}],
    ),
]
DECISION_FIELDS = {"allow", "riskScore", "violations", "suggestedArguments", "traceId"}


def _config() -> dict[str, Any]:
    allowed = {
        "post_inference_checking": "allowed",
        "tool_call_governance": "allowed",
        "rate_limit_per_minute": 1_000_000,
    }
    return copy.deepcopy(
        {
            "tenants": {"acme": {"policies": TOOL_POLICIES}},
            "keys": [
                {"key": TOOL_KEY, "tenant": "acme", "settings": allowed},
                {"key": TOOLS_NO_FEATURE_KEY, "tenant": "acme"},
                {
                    "key": TOOLS_READ_ONLY_KEY,
                    "tenant": "acme",
                    "scopes": ["governance:read"],
                    "settings": allowed,
                },
            ],
        }
    )


@pytest.fixture(scope="module")
def gov() -> govcore.Governance:
    """The tool-call configuration on a fake clock."""
    return govcore.Governance.from_config(_config(), clock=FakeClock())


def _call(
    gov: govcore.Governance, tool: str, arguments: dict[str, Any], session: str = "no-such"
) -> dict[str, Any]:
    body = {"sessionId": session, "toolName": tool, "arguments": arguments, "intent": "proposed"}
    decision = gov.client(TOOL_KEY).check_tool_call(body)
    wire = decision.model_dump(mode="json", by_alias=True)
    assert set(wire) == DECISION_FIELDS
    for violation in wire["violations"]:
        assert set(violation) == VIOLATION_FIELDS
    return wire


def _found(decision: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((v["policyId"], v["matchedText"]) for v in decision["violations"])


# --- deny -----------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["db.drop", "db.drop_table", "db.dropAll"])
def test_denied_tool_is_blocked(gov: govcore.Governance, tool: str) -> None:
    """A tool matching a `deny` glob of a `fix` policy is blocked, with the tool name as match."""
    decision = _call(gov, tool, {"table": "users"})
    assert decision["allow"] is False
    [violation] = decision["violations"]
    assert violation["policyId"] == "no-drop"
    assert violation["matchedText"] == tool
    assert (violation["severity"], violation["enforcementType"]) == (5, "fix")
    assert violation["confidence"] == pytest.approx(0.9)
    assert decision["suggestedArguments"] is None
    assert decision["riskScore"] == pytest.approx(risk_of([(0.9, 5)]))


@pytest.mark.parametrize(
    "tool", ["DB.DROP_TABLE", " db.drop ", "db.\u200bdrop", "ｄｂ.ｄｒｏｐ", "Db.Drop_All"]
)
def test_a_denied_tool_cannot_be_reached_by_spelling_it_differently(
    gov: govcore.Governance, tool: str
) -> None:
    """Case, surrounding spaces, invisible characters and full-width letters do not get a tool
    past a `deny` glob: a runtime may well resolve such a name to the denied tool."""
    decision = _call(gov, tool, {"table": "users"})
    assert decision["allow"] is False
    assert [v["matchedText"] for v in decision["violations"]] == [tool]


@pytest.mark.parametrize("tool", ["db.create", "xdb.drop", "db_drop", "db"])
def test_tools_outside_the_glob_are_allowed(gov: govcore.Governance, tool: str) -> None:
    """Globs are shell patterns: other tools are not affected."""
    decision = _call(gov, tool, {})
    assert (decision["allow"], decision["violations"]) == (True, [])
    assert decision["riskScore"] == 0


@pytest.mark.parametrize(
    ("tool", "policy_id"), [("shell.exec", "shell-audit"), ("mail.send", "mail-review")]
)
def test_audit_or_low_confidence_deny_is_allowed_but_reported(
    gov: govcore.Governance, tool: str, policy_id: str
) -> None:
    """A deny of an `audit` policy, or of a `fix` policy below 0.7 confidence, allows but reports."""
    decision = _call(gov, tool, {"cmd": "ls"})
    assert decision["allow"] is True
    assert [v["policyId"] for v in decision["violations"]] == [policy_id]
    assert decision["riskScore"] > 0


# --- argument rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "fixed"),
    [
        (2500, 1000),
        ("2500", "1000"),
        (" 1e4 ", "1000"),
        (1000.5, 1000.0),
        (0, 1),
        (-3, 1),
        ("0.5", "1"),
    ],
)
def test_max_and_min_clamp_in_the_suggestion(
    gov: govcore.Governance, amount: Any, fixed: Any
) -> None:
    """A number or numeric string beyond `max`/`min` is a violation and clamped, keeping its type."""
    decision = _call(gov, "bank.transfer", {"amount": amount, "currency": "EUR", "to": "Bob"})
    [violation] = decision["violations"]
    assert violation["policyId"] == "transfer-limits"
    assert violation["matchedText"] == str(amount)
    assert decision["allow"] is False
    assert decision["suggestedArguments"] == {"amount": fixed, "currency": "EUR", "to": "Bob"}
    assert type(decision["suggestedArguments"]["amount"]) is type(fixed)


@pytest.mark.parametrize("amount", [1, 1000, 999.99, "750.00", " 42 ", 1.0])
def test_amounts_within_bounds_pass(gov: govcore.Governance, amount: Any) -> None:
    """Values (numbers or numeric strings) within `min`..`max`, bounds included, are no violation."""
    decision = _call(gov, "bank.transfer", {"amount": amount, "currency": "USD"})
    assert (decision["allow"], decision["violations"], decision["suggestedArguments"]) == (
        True,
        [],
        None,
    )


@pytest.mark.parametrize("amount", ["abc", "", "NaN", "inf", None, True, [5], {"v": 5}])
def test_non_numbers_under_max_are_violations_without_fix(
    gov: govcore.Governance, amount: Any
) -> None:
    """A value that is not a number where `max`/`min` apply is a violation with no fix."""
    decision = _call(gov, "bank.transfer", {"amount": amount})
    assert len(decision["violations"]) == 2  # the max rule and the min rule
    assert {v["policyId"] for v in decision["violations"]} == {"transfer-limits"}
    assert decision["suggestedArguments"] is None
    assert decision["allow"] is False


@pytest.mark.parametrize(
    ("arguments", "bad"),
    [
        ({"currency": "GBP"}, ["GBP"]),
        ({"currency": "eur"}, ["eur"]),
        ({"currency": "EUR"}, []),
        ({"flag": True}, ["true"]),
        ({"flag": 1.0}, []),
        ({"flag": "1"}, ["1"]),
        ({"enabled": 1}, ["1"]),
        ({"enabled": True}, []),
        ({"flag": None}, ["null"]),
        ({"currency": ["EUR"]}, ['["EUR"]']),
        ({"currency": {"code": "EUR", "name": "€"}}, ['{"code": "EUR", "name": "€"}']),
    ],
)
def test_one_of_compares_json_values(
    gov: govcore.Governance, arguments: dict[str, Any], bad: list[str]
) -> None:
    """`oneOf` accepts only the listed JSON values (`true` is not 1, "1" is not 1) and has no fix."""
    decision = _call(gov, "bank.transfer", arguments)
    assert [v["matchedText"] for v in decision["violations"]] == bad
    assert decision["suggestedArguments"] is None
    assert decision["allow"] is (not bad)


def test_list_paths_check_every_item_and_fix_each(gov: govcore.Governance) -> None:
    """`items[*].qty` checks each item and the suggestion clamps each offending one only."""
    arguments = {
        "items": [{"qty": 0}, {"qty": 5}, {"qty": "12"}, {"sku": "SKU-1"}, "loose", {"qty": 2.5}],
        "amount": 10,
    }
    decision = _call(gov, "bank.refund", arguments)
    assert _found(decision) == [("transfer-limits", "0"), ("transfer-limits", "12")]
    expected = copy.deepcopy(arguments)
    expected["items"][0]["qty"] = 1
    expected["items"][2]["qty"] = "10"
    assert decision["suggestedArguments"] == expected


def test_a_list_path_over_a_single_value_checks_that_value(gov: govcore.Governance) -> None:
    """`items[*].qty` over one item instead of a list of them still checks, and fixes, it."""
    decision = _call(gov, "bank.refund", {"items": {"qty": 50}, "amount": 10})
    assert _found(decision) == [("transfer-limits", "50")]
    assert decision["suggestedArguments"] == {"items": {"qty": 10}, "amount": 10}


def test_nested_list_paths_and_indexes(gov: govcore.Governance) -> None:
    """`lines[*].tags[*]` walks nested lists, and `items[0].sku` only the first item."""
    arguments = {
        "lines": [{"tags": ["a", "x"]}, {"tags": []}, {"tags": ["b", "y", "a"]}, {"no": 1}],
        "items": [{"sku": "SKU-9"}, {"sku": "SKU-8"}],
    }
    decision = _call(gov, "bank.transfer", arguments)
    assert _found(decision) == [
        ("transfer-limits", "SKU-9"),
        ("transfer-limits", "x"),
        ("transfer-limits", "y"),
    ]


@pytest.mark.parametrize(
    ("arguments", "bad"),
    [
        ({"beneficiary": {"address": {"country": "GB"}}}, ["GB"]),
        ({"beneficiary": {"address": {"country": "DE"}}}, []),
        ({"beneficiary": {"address": {}}}, []),
        ({"beneficiary": {"address": "Berlin"}}, []),
        ({"beneficiary": None}, []),
        ({}, []),
    ],
)
def test_dotted_paths_and_missing_arguments(
    gov: govcore.Governance, arguments: dict[str, Any], bad: list[str]
) -> None:
    """A nested dotted path is checked where it exists; a missing argument is no violation."""
    decision = _call(gov, "bank.transfer", arguments)
    assert [v["matchedText"] for v in decision["violations"]] == bad


def test_argument_detect_rule_redacts_the_argument(gov: govcore.Governance) -> None:
    """A tool rule's `detect` finds matches in its argument and the suggestion redacts them."""
    arguments = {"memo": "refund to jane@example.com please", "amount": 5}
    decision = _call(gov, "bank.transfer", arguments)
    matched = [(v["policyId"], v["matchedText"]) for v in decision["violations"]]
    # the tool rule's detect, and the alwaysOn email policy's detect on every string
    assert sorted(matched) == [
        ("emails", "jane@example.com"),
        ("transfer-limits", "jane@example.com"),
    ]
    assert decision["allow"] is False
    assert decision["suggestedArguments"]["amount"] == 5
    # the two matches overlap: the more severe policy's replacement wins
    assert decision["suggestedArguments"]["memo"] == "refund to [email] please"
    assert arguments == {"memo": "refund to jane@example.com please", "amount": 5}


# --- detect rules and the session -----------------------------------------------------------

CARD_ARGUMENTS = {
    "message": {"body": "card 4111 1111 1111 1111, call +44 20 7946 0958"},
    "cc": ["x@y.org"],
}


def test_unknown_session_skips_when_active_detect_rules(gov: govcore.Governance) -> None:
    """For an unknown session a `whenActive` policy's detect rules do not check the arguments;
    `alwaysOn` policies' do."""
    decision = _call(gov, "chat.reply", CARD_ARGUMENTS, session="never-seen")
    assert _found(decision) == [("emails", "x@y.org"), ("phones", "+44 20 7946 0958")]
    # phone: fix at 0.9 x 0.7 = 0.63 (< 0.7); email: warning -> allowed, reported for audit
    assert decision["allow"] is True
    assert decision["suggestedArguments"] == {
        "message": {"body": "card 4111 1111 1111 1111, call [phone number removed]"},
        "cc": ["[mail]"],
    }


def test_active_session_adds_its_policies_detect_rules(gov: govcore.Governance) -> None:
    """A session whose turn made a `whenActive` policy active also gets its detect rules."""
    client = gov.client(TOOL_KEY)
    turn = client.record_turn(
        {
            "sessionId": "card-chat",
            "turn": {"role": "user", "content": "Can I type my credit card number in the chat?"},
        }
    )
    assert "card-data" in [p.id for p in turn.active_policies]
    decision = _call(gov, "chat.reply", CARD_ARGUMENTS, session="card-chat")
    assert _found(decision) == [
        ("card-data", "4111 1111 1111 1111"),
        ("emails", "x@y.org"),
        ("phones", "+44 20 7946 0958"),
    ]
    assert decision["allow"] is False
    assert decision["suggestedArguments"]["message"]["body"] == (
        "card [card], call [phone number removed]"
    )


def test_tool_rules_apply_whatever_the_session(gov: govcore.Governance) -> None:
    """Tool rules of every policy apply, though no conversation made their policy active."""
    for session in ("never-seen", "card-chat"):
        assert _call(gov, "db.drop_table", {}, session=session)["allow"] is False


# --- allow as a property --------------------------------------------------------------------

CONFIDENCES = [0.0, 0.3, 0.5, 0.69, 0.6999, 0.7, 0.7001, 0.85, 1.0]
GENERATED_RULE = st.fixed_dictionaries(
    {
        "enforcement": st.sampled_from(["fix", "warning", "audit"]),
        "confidence": st.sampled_from(CONFIDENCES),
        "severity": st.sampled_from([0, 0.5, 1, 3, 4.5, 5, 10]),
        "kind": st.sampled_from(["deny", "max", "oneOf", "pass"]),
    }
)


def _generated_policy(index: int, spec: dict[str, Any]) -> dict[str, Any]:
    rule: dict[str, Any] = {"tool": "ops.*", "confidence": spec["confidence"]}
    if spec["kind"] == "deny":
        rule["deny"] = True
    elif spec["kind"] == "max":
        rule.update(argument="count", max=10)
    elif spec["kind"] == "oneOf":
        rule.update(argument="mode", oneOf=["safe"])
    else:
        rule.update(argument="count", max=1000)
    return policy(
        f"gen-{index}",
        severity=spec["severity"],
        enforcement=spec["enforcement"],
        tools=[rule],
    )


@settings(max_examples=200, deadline=None)
@given(specs=st.lists(GENERATED_RULE, max_size=8))
def test_allow_is_false_exactly_when_a_confident_fix_violation_exists(
    specs: list[dict[str, Any]],
) -> None:
    """`allow` is false exactly when some violation is `fix` with confidence >= 0.7."""
    documents = [
        PolicyDocument.model_validate(_generated_policy(i, s)) for i, s in enumerate(specs)
    ]
    outcome = gate_tool_call(
        "ops.run",
        {"count": 50, "mode": "fast"},
        scanner=compile_rules([]),
        applicable_policies=None,
        tool_rules=compile_tool_rules(documents),
    )
    violating = [(f"gen-{i}", s) for i, s in enumerate(specs) if s["kind"] != "pass"]
    assert [v.policy_id for v in outcome.findings] == [pid for pid, _ in violating]
    for violation, (_, spec) in zip(outcome.findings, violating, strict=True):
        assert violation.enforcement == spec["enforcement"]
        assert violation.confidence == spec["confidence"]
        assert violation.severity == spec["severity"]
    blocked = any(s["enforcement"] == "fix" and s["confidence"] >= 0.7 for _, s in violating)
    assert outcome.allow is (not blocked)
    assert outcome.risk_score == risk_of((s["confidence"], s["severity"]) for _, s in violating)
    has_fix = any(s["kind"] == "max" for _, s in violating)
    assert (outcome.suggested_arguments is not None) is has_fix
    if has_fix:
        assert outcome.suggested_arguments == {"count": 10, "mode": "fast"}


@settings(max_examples=25, deadline=None)
@given(specs=st.lists(GENERATED_RULE, min_size=1, max_size=5))
def test_allow_rule_holds_through_the_client(specs: list[dict[str, Any]]) -> None:
    """Through `check_tool_call` of the client, `allow` follows the fix-and-confidence rule."""
    config = _config()
    config["tenants"]["acme"]["policies"] = [_generated_policy(i, s) for i, s in enumerate(specs)]
    client = govcore.Governance.from_config(config, clock=FakeClock()).client(TOOL_KEY)
    decision = client.check_tool_call(
        {"sessionId": "s", "toolName": "ops.run", "arguments": {"count": 50, "mode": "fast"}}
    )
    blocked = any(
        s["kind"] != "pass" and s["enforcement"] == "fix" and s["confidence"] >= 0.7 for s in specs
    )
    assert decision.allow is (not blocked)
    assert len(decision.violations) == sum(s["kind"] != "pass" for s in specs)


# --- access ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key", [TOOLS_NO_FEATURE_KEY, TOOLS_READ_ONLY_KEY], ids=["no-feature", "read-only"]
)
def test_check_tool_call_needs_the_feature_and_scope(gov: govcore.Governance, key: str) -> None:
    """Without `tool_call_governance` or scope governance:check the call is 403."""
    body = {"sessionId": "s", "toolName": "db.drop", "arguments": {}}
    with pytest.raises(PermissionDeniedError):
        gov.client(key).check_tool_call(body)
    response = gov.handle("POST", "/governance/check-tool-call", bearer(key), json.dumps(body))
    assert response.status == 403


def test_handle_answers_the_decision(gov: govcore.Governance) -> None:
    """Through `handle` the decision is 200 JSON with exactly the specified fields."""
    body = {"sessionId": "s", "toolName": "bank.transfer", "arguments": {"amount": 5000}}
    response = gov.handle("POST", "/governance/check-tool-call", bearer(TOOL_KEY), json.dumps(body))
    assert response.status == 200
    decision = response.json()
    assert set(decision) == DECISION_FIELDS
    assert decision["allow"] is False
    assert decision["suggestedArguments"] == {"amount": 1000}
    assert [set(v) for v in decision["violations"]] == [VIOLATION_FIELDS]


# --- suggested arguments satisfy the rules ---------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True], ids=["loose-first", "strict-first"])
def test_suggestion_satisfies_every_limit_on_the_same_argument(reverse: bool) -> None:
    """When two policies limit one argument, the suggestion meets the stricter limit in any order."""
    policies = [
        policy(
            "loose", enforcement="fix", tools=[{"tool": "pay", "argument": "amount", "max": 1000}]
        ),
        policy(
            "strict", enforcement="fix", tools=[{"tool": "pay", "argument": "amount", "max": 500}]
        ),
    ]
    config = _config()
    config["tenants"]["acme"]["policies"] = policies[::-1] if reverse else policies
    client = govcore.Governance.from_config(config, clock=FakeClock()).client(TOOL_KEY)
    decision = client.check_tool_call(
        {"sessionId": "s", "toolName": "pay", "arguments": {"amount": 2000}}
    )
    assert decision.allow is False
    assert decision.suggested_arguments == {"amount": 500}


ARGUMENT_VALUES = st.one_of(
    st.integers(-50, 5000),
    st.floats(-50, 5000, allow_nan=False).map(lambda x: round(x, 2)),
    st.integers(-50, 5000).map(str),
    st.sampled_from(["EUR", "GBP", "x", "", "1,000"]),
)


@settings(max_examples=100, deadline=None)
@given(
    amount=ARGUMENT_VALUES,
    quantities=st.lists(st.one_of(st.integers(-5, 20), st.integers(-5, 20).map(str)), max_size=5),
    memo=st.sampled_from(["", "thanks", "write to jane@example.com", "call +1 415 555 2671"]),
)
def test_checking_the_suggestion_again_finds_nothing_fixable(
    gov: govcore.Governance, amount: Any, quantities: list[Any], memo: str
) -> None:
    """Re-checking `suggestedArguments` finds no violation that a fix could have removed."""
    arguments = {"amount": amount, "items": [{"qty": q} for q in quantities], "memo": memo}
    first = _call(gov, "bank.transfer", arguments)
    if first["suggestedArguments"] is None:
        return
    again = _call(gov, "bank.transfer", first["suggestedArguments"])
    # what had a fix is gone, what had none (oneOf, not a number) is still there, nothing new
    assert Counter(_found(again)) <= Counter(_found(first))
    assert len(again["violations"]) < len(first["violations"])


def test_matches_are_found_per_argument_string() -> None:
    """Each string argument is checked on its own: a header left open in one argument does not
    hide a key block in another, and every match is fixed in the argument it came from."""
    secret_policy = PolicyDocument.model_validate(
        policy("secrets", enforcement="fix", alwaysOn=True, detect=[{"pii": "secret"}])
    )
    scanner = compile_rules((secret_policy, rule) for rule in secret_policy.detect)
    block = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----"
    arguments = {"note": "-----BEGIN PRIVATE KEY----- (pasted by mistake)", "body": f"key: {block}"}
    outcome = gate_tool_call(
        "send_email", arguments, scanner=scanner, applicable_policies=None, tool_rules=()
    )
    assert [v.matched_text for v in outcome.findings] == [block]
    assert outcome.suggested_arguments == {
        "note": arguments["note"],
        "body": "key: [secret removed]",
    }


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


# --- argument validation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"items": [{"price": 1.0}, {"price": float("nan")}]},
            "non-finite number at items[1].price",
        ),
        ({"a": {"b": [float("inf")]}}, "non-finite number at a.b[0]"),
        ({"n": 2**64}, "integer at n is out of the 64-bit range"),
        ({"memo": ["ok", "bad \ud800"]}, "text at memo[1] contains an unpaired surrogate"),
        ({"outer": {"bad \udfff": 1}}, "text at outer contains an unpaired surrogate"),
        ({"x": _nested(40)}, "is nested more than 32 levels deep"),
        ({"to": ({"address": "a@b.co"},)}, "value at to is not JSON (a tuple;"),
        ({"memo": b"a@b.co"}, "value at memo is not JSON (a bytes;"),
        ({"tags": {"a", "b"}}, "value at tags is not JSON (a set;"),
        ({"outer": {1: "x"}}, "key 1 at outer is not a string"),
    ],
    ids=[
        "nan",
        "infinity",
        "big-int",
        "surrogate",
        "surrogate-key",
        "depth",
        "tuple",
        "bytes",
        "set",
        "int-key",
    ],
)
def test_arguments_json_cannot_carry_is_refused_with_its_path(
    arguments: dict[str, Any], message: str
) -> None:
    """A value JSON cannot carry faithfully is a 400 on `arguments` saying where it is, as the
    wire validates a request (the typed clients first give common Python values their JSON
    form: the next test)."""
    body = {"sessionId": "s", "toolName": "bank.transfer", "arguments": arguments}
    with pytest.raises(InvalidRequestError) as refused:
        validate_request(govcore.ToolCallRequest, body)
    [detail] = refused.value.details
    assert detail.field == "arguments"
    assert message in detail.message


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"items": [{"price": 1}, {"price": float("nan")}]}, "arguments.items[1].price"),
        ({"a": {"b": [float("inf")]}}, "arguments.a.b[0]"),
        ({"memo": b"a@b.co"}, "arguments.memo"),
        ({"outer": {1: "x"}}, "arguments.outer"),
        ({"n": 2**64}, "arguments"),
        ({"x": _nested(40)}, "arguments"),
    ],
)
def test_the_typed_client_refuses_what_has_no_json_form_at_its_path(
    gov: govcore.Governance, arguments: dict[str, Any], field: str
) -> None:
    """Through the typed client, a value with no JSON form is refused by jsonable_arguments at
    its own path; what has one but breaks the wire's rules is refused by the wire's check."""
    body = {"sessionId": "s", "toolName": "bank.transfer", "arguments": arguments}
    with pytest.raises(InvalidRequestError) as refused:
        gov.client(TOOL_KEY).check_tool_call(body)
    assert refused.value.details[0].field == field


def test_the_typed_client_checks_tuples_and_sets_as_lists(gov: govcore.Governance) -> None:
    """A tuple or set in arguments is checked as a list (the wire would refuse it)."""
    body = {
        "sessionId": "s",
        "toolName": "bank.transfer",
        "arguments": {"to": ({"address": "a@b.co"},), "tags": {"b", "a"}},
    }
    assert gov.client(TOOL_KEY).check_tool_call(body).violations


def _one_policy_client(**fields: Any) -> govcore.GovernanceClient:
    config = {
        "tenants": {"t": {"policies": [policy("p", enforcement="fix", **fields)]}},
        "keys": [{"key": TOOL_KEY, "tenant": "t", "settings": {"tool_call_governance": "allowed"}}],
    }
    return govcore.Governance.from_config(config).client(TOOL_KEY)


@pytest.mark.parametrize(("confidence", "allow"), [(0.5, True), (0.8, False), (None, False)])
def test_tool_rule_confidence_applies_to_what_its_detect_rules_find(
    confidence: float | None, allow: bool
) -> None:
    """A tool rule's own `confidence`, like its `explanation`, overrides its detect rules'."""
    rule: dict[str, Any] = {"tool": "*", "argument": "memo", "detect": [{"regex": "secret[0-9]"}]}
    if confidence is not None:
        rule["confidence"] = confidence
    client = _one_policy_client(tools=[rule])
    body = {"sessionId": "s", "toolName": "notes.add", "arguments": {"memo": "secret1"}}
    decision = client.check_tool_call(body)
    assert [v.confidence for v in decision.violations] == [confidence or 0.9]
    assert decision.allow is allow


@pytest.mark.parametrize(("confidence", "allow"), [(0.699995, True), (0.7, False)])
def test_a_confidence_just_below_the_threshold_is_not_rounded_up_to_it(
    confidence: float, allow: bool
) -> None:
    """The confidence reported is the one `allow` was decided on, and 0.699995 is below 0.7."""
    client = _one_policy_client(
        alwaysOn=True, detect=[{"regex": "secret[0-9]", "confidence": confidence}]
    )
    body = {"sessionId": "s", "toolName": "notes.add", "arguments": {"memo": "secret1"}}
    decision = client.check_tool_call(body)
    assert [v.confidence for v in decision.violations] == [confidence]
    assert decision.allow is allow


def test_an_empty_tool_name_is_refused_in_characters() -> None:
    client = _one_policy_client()
    with pytest.raises(InvalidRequestError) as refused:
        client.check_tool_call({"sessionId": "s", "toolName": "", "arguments": {}})
    [detail] = refused.value.details
    assert (detail.field, detail.message) == ("toolName", "String should have at least 1 character")


def test_an_index_path_over_a_single_value_checks_it_as_item_0(gov: govcore.Governance) -> None:
    """`items[0].sku` over one item instead of a list checks that item."""
    decision = _call(gov, "bank.transfer", {"items": {"sku": "SKU-9"}})
    assert _found(decision) == [("transfer-limits", "SKU-9")]


def test_string_enum_keys_are_json_keys() -> None:
    """A key that is a str subclass (a StrEnum member) is a string."""
    import enum

    class ArgumentName(enum.StrEnum):
        MEMO = "memo"

    client = _one_policy_client()
    body = {"sessionId": "s", "toolName": "notes.add", "arguments": {ArgumentName.MEMO: "hello"}}
    assert client.check_tool_call(body).allow is True
