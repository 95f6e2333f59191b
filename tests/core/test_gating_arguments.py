"""What the tool-call check reads in ``arguments`` (docs/decisions/tool-calls.md): strings,
numbers as their JSON text (booleans never), object keys unless ``tool_call_check_keys`` is off;
and how ``suggestedArguments`` fixes a number (its redacted text) and a key (renamed, without
losing an entry when two names collide)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.gating import ToolCallOutcome, compile_tool_rules, gate_tool_call
from govcore.detection.scanner import compile_rules
from govcore.policy import PolicyDocument
from tests.support import policy

TOOL_KEY = "gk_test_tool_walk_00001"

PII_POLICY = PolicyDocument.model_validate(
    policy(
        "pii",
        enforcement="fix",
        alwaysOn=True,
        detect=[
            {"pii": "credit_card", "confidence": 0.95},
            {"pii": "email"},
            {"regex": "\\b1\\b", "replacement": "[one]"},
            {"regex": "true", "replacement": "[t]"},
        ],
    )
)
PII_SCANNER = compile_rules((PII_POLICY, rule) for rule in PII_POLICY.detect)

CARDS = ["4111111111111111", "5555555555554444", "378282246310005", "6011111111111117"]
NINETEEN_DIGIT_CARD = 4111111111111111110  # Luhn-valid, above 2**53, within 64 bits


def _check(arguments: dict[str, Any], *, check_keys: bool = True) -> ToolCallOutcome:
    return gate_tool_call(
        "crm.update",
        arguments,
        scanner=PII_SCANNER,
        applicable_policies=None,
        tool_rules=(),
        check_keys=check_keys,
    )


def _matched(outcome: ToolCallOutcome) -> list[str]:
    return [f.matched_text for f in outcome.findings]


# --- numbers ----------------------------------------------------------------------------------


REMOVED = "[card number removed]"


@pytest.mark.parametrize(
    ("value", "matched", "suggested"),
    [
        (4111111111111111, "4111111111111111", REMOVED),
        (NINETEEN_DIGIT_CARD, "4111111111111111110", REMOVED),
        (4111111111111111.0, "4111111111111111", REMOVED),
        (4111111111111111.5, "4111111111111111", f"{REMOVED}.5"),
        (-4111111111111111, "4111111111111111", f"-{REMOVED}"),
        (5555555555554444.0, "5555555555554444", REMOVED),
    ],
    ids=["int", "big-int", "float", "fraction", "negative", "float-mastercard"],
)
def test_a_card_sent_as_a_number_is_found_and_blocked(
    value: float, matched: str, suggested: str
) -> None:
    outcome = _check({"card": value})
    assert _matched(outcome) == [matched]
    assert outcome.allow is False
    # the number is replaced by its text with the card redacted: a string where a number was
    assert outcome.suggested_arguments == {"card": suggested}


@pytest.mark.parametrize(
    "value",
    [4111111111111112, 411111111111111, 12.5, -3, 0, 9223372036854775807, 1e22, 0.25],
    ids=["luhn-fails", "15-digits-visa", "price", "negative", "zero", "int64-max", "1e22", "0.25"],
)
def test_numbers_that_hold_no_card_pass(value: float) -> None:
    outcome = _check({"amount": value})
    assert outcome.findings == []
    assert outcome.suggested_arguments is None


def test_numbers_nested_in_lists_are_found_where_they_are() -> None:
    arguments = {"rows": [[2.5, [7, 4111111111111111]], {"n": [378282246310005]}], "ok": 42}
    outcome = _check(arguments)
    assert _matched(outcome) == ["4111111111111111", "378282246310005"]
    assert outcome.suggested_arguments == {
        "rows": [[2.5, [7, REMOVED]], {"n": [REMOVED]}],
        "ok": 42,
    }
    assert arguments["rows"][0][1][1] == 4111111111111111  # the request is left as it was


def test_a_number_is_read_as_one_text_not_joined_with_its_neighbours() -> None:
    """Two halves of a card in two numbers are two texts: nothing is found across them."""
    assert _check({"a": 41111111, "b": 11111111, "c": [4111, 1111, 1111, 1111]}).findings == []


def test_booleans_are_not_read_as_numbers_or_text() -> None:
    """`true` is not the number 1 nor the text "true": the rules `\\b1\\b` and `true` miss it."""
    assert _check({"flag": True, "other": [False, True], "n": None}).findings == []
    assert _matched(_check({"flag": 1})) == ["1"]
    assert _matched(_check({"flag": "true"})) == ["true"]


# --- keys -------------------------------------------------------------------------------------


def test_an_email_used_as_a_key_is_found_and_the_key_renamed() -> None:
    arguments = {"roles": {"jane@example.com": "owner", "team": "ops"}}
    outcome = _check(arguments)
    assert _matched(outcome) == ["jane@example.com"]
    assert outcome.suggested_arguments == {"roles": {"[email removed]": "owner", "team": "ops"}}
    assert list(arguments["roles"]) == ["jane@example.com", "team"]


def test_keys_are_not_read_when_the_setting_is_off() -> None:
    arguments = {"roles": {"jane@example.com": "owner", "4111111111111111": 5}}
    outcome = _check(arguments, check_keys=False)
    assert outcome.findings == []
    assert outcome.suggested_arguments is None


def test_plain_keys_pass() -> None:
    """Field names, and a key that looks like part of an email or a card, are not findings."""
    arguments = {"email": "x", "card_number": "y", "jane@": 5, "4111 1111": 2, "2": 3}
    assert _check(arguments).findings == []


def test_renamed_keys_that_collide_keep_every_entry_in_order() -> None:
    arguments = {
        "a@example.com": 5,
        "[email removed]": 2,
        "b@example.com": 3,
        "c": 4,
    }
    outcome = _check(arguments)
    assert _matched(outcome) == ["a@example.com", "b@example.com"]
    suggested = outcome.suggested_arguments
    assert suggested is not None
    assert list(suggested.items()) == [
        ("[email removed] (2)", 5),
        ("[email removed]", 2),
        ("[email removed] (3)", 3),
        ("c", 4),
    ]


def test_a_renamed_key_keeps_its_value_fixed_and_its_own_keys_renamed() -> None:
    arguments = {
        "jane@example.com": {"bob@example.com": 4111111111111111, "note": "ok"},
        "list": [{"4111 1111 1111 1111": "x"}],
    }
    outcome = _check(arguments)
    assert sorted(_matched(outcome)) == sorted(
        ["jane@example.com", "bob@example.com", "4111111111111111", "4111 1111 1111 1111"]
    )
    assert outcome.suggested_arguments == {
        "[email removed]": {"[email removed]": REMOVED, "note": "ok"},
        "list": [{REMOVED: "x"}],
    }


def test_checking_the_suggestion_again_finds_nothing() -> None:
    arguments = {"a@example.com": 4111111111111111, "[email removed]": ["b@example.com"]}
    first = _check(arguments)
    assert first.suggested_arguments is not None
    again = _check(first.suggested_arguments)
    assert again.findings == []


# --- tool rules with an argument path ---------------------------------------------------------


ACCOUNT_POLICY = PolicyDocument.model_validate(
    policy(
        "accounts",
        enforcement="fix",
        tools=[
            {
                "tool": "crm.*",
                "argument": "account",
                "detect": [{"regex": "^99[0-9]{4}", "replacement": "[internal]"}],
            }
        ],
    )
)
ACCOUNT_RULES = compile_tool_rules([ACCOUNT_POLICY])
EMPTY_SCANNER = compile_rules(())


@pytest.mark.parametrize(
    ("account", "suggested"),
    [
        (991234, "[internal]"),
        ("991234", "[internal]"),
        (99123456.5, "[internal]56.5"),
        (881234, None),
        (-991234, None),
        (True, None),
        ({"id": 991234}, None),
    ],
    ids=["int", "string", "float", "other-prefix", "negative", "boolean", "object"],
)
def test_a_tool_rule_detect_reads_a_number_at_its_path(account: Any, suggested: Any) -> None:
    outcome = gate_tool_call(
        "crm.update",
        {"account": account},
        scanner=EMPTY_SCANNER,
        applicable_policies=None,
        tool_rules=ACCOUNT_RULES,
    )
    if suggested is None:
        assert outcome.findings == []
        assert outcome.suggested_arguments is None
    else:
        assert _matched(outcome) == ["991234"]
        assert outcome.suggested_arguments == {"account": suggested}


# --- the setting, through the service ---------------------------------------------------------


@pytest.mark.parametrize(("check_keys", "allow"), [(None, False), (True, False), (False, True)])
def test_the_setting_reaches_the_check(check_keys: bool | None, allow: bool) -> None:
    config: dict[str, Any] = {
        "tenants": {
            "t": {
                "policies": [
                    policy("p", enforcement="fix", alwaysOn=True, detect=[{"pii": "email"}])
                ]
            }
        },
        "keys": [{"key": TOOL_KEY, "tenant": "t", "settings": {"tool_call_governance": "allowed"}}],
    }
    if check_keys is not None:
        config["settings"] = {"tool_call_check_keys": check_keys}
    client = govcore.Governance.from_config(config).client(TOOL_KEY)
    body = {"sessionId": "s", "toolName": "t", "arguments": {"to": {"jane@example.com": 1}}}
    decision = client.check_tool_call(body)
    assert decision.allow is allow
    if not allow:
        assert decision.suggested_arguments == {"to": {"[email removed]": 1}}


# --- property: a card anywhere is blocked -----------------------------------------------------

_KEYS = st.text(st.characters(codec="ascii", categories=("L",)), max_size=6)
_FILLER = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(st.characters(codec="ascii", categories=("L", "Zs")), max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _card_leaf(draw: st.DrawFn) -> Any:
    card = draw(st.sampled_from(CARDS))
    form = draw(st.sampled_from(["int", "float", "negative", "string", "spaced string"]))
    if form == "int":
        return int(card)
    if form == "float":
        return float(card)
    if form == "negative":
        return -int(card)
    if form == "string":
        return f"{draw(_KEYS)} {card} {draw(_KEYS)}"
    return " ".join(card[i : i + 4] for i in range(0, len(card), 4))


def _in_list(parts: tuple[list[Any], Any, list[Any]]) -> list[Any]:
    before, planted, after = parts
    return [*before, planted, *after]


def _in_object(parts: tuple[dict[str, Any], str, Any]) -> dict[str, Any]:
    others, key, planted = parts
    return {**{k: v for k, v in others.items() if k != key}, key: planted}


_HOLDING_A_CARD = st.recursive(
    _card_leaf(),
    lambda inner: (
        st.tuples(st.lists(_FILLER, max_size=2), inner, st.lists(_FILLER, max_size=2)).map(_in_list)
        | st.tuples(st.dictionaries(_KEYS, _FILLER, max_size=2), _KEYS, inner).map(_in_object)
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(value=_HOLDING_A_CARD, check_keys=st.booleans())
def test_any_json_value_holding_a_card_at_any_depth_is_blocked(
    value: Any, check_keys: bool
) -> None:
    outcome = _check({"payload": value}, check_keys=check_keys)
    assert outcome.allow is False
    assert any(f.policy_id == "pii" and f.confidence == 0.95 for f in outcome.findings)
    # and the suggestion holds the card nowhere
    assert outcome.suggested_arguments is not None
    assert _check(outcome.suggested_arguments, check_keys=check_keys).allow is True
