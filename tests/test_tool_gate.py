"""gate_tool_call and check_tool_result on both typed clients: allow, run with safer arguments,
or block with a message a model can read; a tool's result checked as output."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.testing import FakeClock
from tests.tool_gate_support import (
    CARD,
    GATE_KEY,
    GATE_NO_TOOLS_KEY,
    gate_config,
    gate_governance,
)

SESSION = "s-gate"


@pytest.fixture
def client() -> govcore.GovernanceClient:
    return gate_governance().client(GATE_KEY)


def test_an_allowed_call_runs_as_proposed(client: govcore.GovernanceClient) -> None:
    """An allowed call runs with the caller's own arguments, with no message and no re-check."""
    arguments = {"amount": 40, "reason": "damaged"}
    gate = client.gate_tool_call(SESSION, "issue_refund", arguments)
    assert gate.action == "allow"
    assert gate.runs
    assert gate.arguments == arguments
    assert gate.message is None
    assert gate.decision is not None
    assert gate.decision.allow
    assert gate.recheck is None


def test_apply_runs_the_call_with_the_rechecked_safer_arguments(
    client: govcore.GovernanceClient,
) -> None:
    """With on_fix="apply" (the default) a blocked call with suggested arguments that pass a
    re-check runs with them."""
    gate = client.gate_tool_call(SESSION, "issue_refund", {"amount": 500, "reason": "late"})
    assert gate.action == "modify"
    assert gate.runs
    assert gate.arguments == {"amount": 100, "reason": "late"}
    assert gate.message is None
    assert gate.decision is not None
    assert not gate.decision.allow
    assert gate.recheck is not None
    assert gate.recheck.allow


def test_apply_redacts_a_card_number_out_of_the_arguments(
    client: govcore.GovernanceClient,
) -> None:
    """A detect rule's match in an argument is replaced by its redaction, which re-checks
    clean, so the tool runs without the card number."""
    gate = client.gate_tool_call(SESSION, "send_email", {"body": f"card {CARD} on file"})
    assert gate.action == "modify"
    assert gate.arguments == {"body": "card [card removed] on file"}


def test_an_allowed_call_runs_with_the_callers_objects_not_their_json_form(
    client: govcore.GovernanceClient,
) -> None:
    """Arguments are made JSON to be checked, but an allowed tool gets what it was given."""
    arguments = {"amount": 40, "on": date(2026, 1, 2)}
    gate = client.gate_tool_call(SESSION, "issue_refund", arguments)
    assert gate.action == "allow"
    assert gate.arguments["on"] == date(2026, 1, 2)


def test_the_block_message_names_only_the_blocking_policies(
    client: govcore.GovernanceClient,
) -> None:
    """A warning found beside the blocking violation is not what the model must change."""
    gate = client.gate_tool_call(
        SESSION, "send_email", {"body": f"we guarantee it, card {CARD}"}, on_fix="block"
    )
    assert gate.decision is not None
    assert {v.policy_id for v in gate.decision.violations} == {"tone", "card-data"}
    assert gate.message is not None
    assert "card-data" in gate.message
    assert "tone" not in gate.message


def test_apply_blocks_when_the_safer_arguments_are_blocked_too(
    client: govcore.GovernanceClient,
) -> None:
    """A suggestion that fixes only part of a call (the quantity, not the plan, which has no
    fix) is re-checked, found blocked, and never run: the call is blocked."""
    arguments = {"quantity": 50, "plan": "gold"}
    gate = client.gate_tool_call(SESSION, "update_order", arguments)
    assert gate.action == "block"
    assert not gate.runs
    assert gate.arguments == arguments
    assert gate.recheck is not None
    assert not gate.recheck.allow
    assert gate.message is not None
    assert "order-limits" in gate.message


def test_apply_without_a_suggestion_blocks(client: govcore.GovernanceClient) -> None:
    """A denied tool has nothing to fix: blocked, with the policy's explanation."""
    gate = client.gate_tool_call(SESSION, "shell", {"command": "ls"})
    assert gate.action == "block"
    assert gate.recheck is None
    assert gate.message == (
        "The call to the tool shell was blocked and did not run. Policy no-shell: Agents may "
        "not run shell commands. Change the arguments as the policy requires, or answer "
        "without this tool; do not repeat the same call."
    )


def test_block_blocks_and_says_what_to_change_without_the_values(
    client: govcore.GovernanceClient,
) -> None:
    """on_fix="block" blocks a fixable call without re-checking; the message names the tool,
    the policy and the rule, and not the offending value."""
    gate = client.gate_tool_call(SESSION, "send_email", {"body": f"card {CARD}"}, on_fix="block")
    assert gate.action == "block"
    assert gate.recheck is None
    assert gate.message is not None
    assert "send_email" in gate.message
    assert "card-data" in gate.message
    assert CARD not in gate.message
    refund = client.gate_tool_call(SESSION, "issue_refund", {"amount": 500}, on_fix="block")
    assert refund.message is not None
    assert "amount is above the maximum of 100." in refund.message
    assert "500" not in refund.message


def test_retry_blocks_and_offers_the_rechecked_safer_arguments(
    client: govcore.GovernanceClient,
) -> None:
    """on_fix="retry" blocks and tells the model arguments it may call again with, once they
    passed a re-check."""
    gate = client.gate_tool_call(SESSION, "issue_refund", {"amount": 500}, on_fix="retry")
    assert gate.action == "block"
    assert gate.arguments == {"amount": 500}
    assert gate.recheck is not None
    assert gate.recheck.allow
    assert gate.message is not None
    assert gate.message.endswith(
        'To go ahead, call issue_refund again with these arguments: {"amount": 100}'
    )


def test_retry_offers_nothing_that_would_be_blocked_again(
    client: govcore.GovernanceClient,
) -> None:
    """Safer arguments that fail their re-check are not offered to the model."""
    gate = client.gate_tool_call(
        SESSION, "update_order", {"quantity": 50, "plan": "gold"}, on_fix="retry"
    )
    assert gate.action == "block"
    assert gate.message is not None
    assert "again with these arguments" not in gate.message


def test_a_fix_finding_below_the_threshold_does_not_block(
    client: govcore.GovernanceClient,
) -> None:
    """A fix rule at confidence 0.69 is reported and allowed (the public rule agrees)."""
    gate = client.gate_tool_call(SESSION, "note", {"text": "this is maybe secret"})
    assert gate.action == "allow"
    assert gate.decision is not None
    [violation] = gate.decision.violations
    assert violation.enforcement_type == "fix"
    assert violation.confidence == 0.69
    assert not govcore.blocks(violation)


def test_an_unknown_reaction_is_refused_naming_on_fix(client: govcore.GovernanceClient) -> None:
    """on_fix takes apply, block or retry."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.gate_tool_call(SESSION, "issue_refund", {"amount": 1}, on_fix="ignore")  # type: ignore[arg-type]
    assert caught.value.details[0].field == "on_fix"


def test_a_key_without_tool_governance_is_refused() -> None:
    """The gate is a tool-call check: it needs tool_call_governance (403)."""
    plain = gate_governance().client(GATE_NO_TOOLS_KEY)
    with pytest.raises(govcore.PermissionDeniedError):
        plain.gate_tool_call(SESSION, "issue_refund", {"amount": 1})


def test_the_recheck_joins_the_first_checks_trace() -> None:
    """Both checks of a gate carry the caller's trace id, or else the first check's, so the
    decision log links them."""
    log = govcore.MemoryDecisionLog()
    client = gate_governance(decision_log=log).client(GATE_KEY)
    chosen = client.gate_tool_call(SESSION, "issue_refund", {"amount": 500}, trace_id="run-7")
    assert chosen.decision is not None
    assert chosen.recheck is not None
    assert chosen.decision.trace_id == chosen.recheck.trace_id == "run-7"
    made = client.gate_tool_call(SESSION, "issue_refund", {"amount": 500})
    assert made.decision is not None
    assert made.recheck is not None
    assert made.recheck.trace_id == made.decision.trace_id != "run-7"
    traces = [d.trace_id for d in log.decisions() if d.endpoint == "check-tool-call"]
    assert traces == ["run-7", "run-7", made.decision.trace_id, made.decision.trace_id]


CASES: list[tuple[str, dict[str, Any], govcore.FixReaction]] = [
    ("issue_refund", {"amount": 40}, "apply"),
    ("issue_refund", {"amount": 500}, "apply"),
    ("issue_refund", {"amount": 500}, "retry"),
    ("update_order", {"quantity": 50, "plan": "gold"}, "apply"),
    ("shell", {"command": "ls"}, "block"),
]


@pytest.mark.parametrize(("tool", "arguments", "on_fix"), CASES)
def test_the_asyncio_client_gates_alike(
    tool: str, arguments: dict[str, Any], on_fix: govcore.FixReaction
) -> None:
    """AsyncGovernanceClient.gate_tool_call decides exactly as the blocking client."""
    blocking = gate_governance().client(GATE_KEY)
    expected = blocking.gate_tool_call(SESSION, tool, arguments, on_fix=on_fix, trace_id="t")

    async def gate() -> govcore.ToolGate:
        agov = govcore.AsyncGovernance.from_config(gate_config(), clock=FakeClock())
        async with agov:
            return await agov.client(GATE_KEY).gate_tool_call(
                SESSION, tool, arguments, on_fix=on_fix, trace_id="t"
            )

    assert asyncio.run(gate()) == expected


amounts = st.integers(min_value=-(10**6), max_value=10**6)
plans = st.sampled_from(["basic", "pro", "gold", "free"])
bodies = st.sampled_from(["hello", f"card {CARD}", "guarantee it", "maybe secret", ""])


@settings(max_examples=60, deadline=None)
@given(
    quantity=amounts,
    plan=plans,
    body=bodies,
    tool=st.sampled_from(["update_order", "issue_refund", "send_email"]),
)
def test_arguments_a_gate_runs_always_check_clean(
    quantity: int, plan: str, body: str, tool: str
) -> None:
    """Whatever the call, the arguments a gate runs the tool with (allow or modify) are
    allowed when checked again on their own."""
    client = gate_governance().client(GATE_KEY)
    arguments = {"quantity": quantity, "amount": quantity, "plan": plan, "body": body}
    gate = client.gate_tool_call(SESSION, tool, arguments)
    if gate.runs:
        again = client.check_tool_call(
            {"sessionId": SESSION, "toolName": tool, "arguments": gate.arguments}
        )
        assert again.allow
    else:
        assert gate.arguments == arguments
        assert gate.message


# --- tool results ------------------------------------------------------------------------


def test_a_tool_result_is_checked_as_output_and_redacted_by_the_public_rule(
    client: govcore.GovernanceClient,
) -> None:
    """A result holding a card number is unsafe; what to deliver is its redaction."""
    result = f"Customer card: {CARD}"
    verdict = client.check_tool_result(SESSION, "lookup_customer", result, call_id="call_1")
    assert not verdict.safe
    assert govcore.text_to_deliver(result, verdict) == "Customer card: [card removed]"


def test_a_structured_result_is_checked_as_its_json_text(
    client: govcore.GovernanceClient,
) -> None:
    """A non-string result is serialised by the jsonable rules and checked as that text."""
    result = {"customer": {"card": CARD, "since": date(2024, 5, 1)}}
    verdict = client.check_tool_result(SESSION, "lookup_customer", result)
    assert not verdict.safe
    assert json.loads(verdict.suggested_redaction) == {
        "customer": {"card": "[card removed]", "since": "2024-05-01"}
    }


def test_a_tool_result_names_its_tool_in_the_surface(
    client: govcore.GovernanceClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The post-inference surface is tool:<name>, with #<call id> when there is one, and the
    trace id is the caller's."""
    sent: list[dict[str, Any]] = []
    check = client.post_inference

    def spy(request: Any) -> govcore.PostInferenceResponse:
        sent.append(request)
        return check(request)

    monkeypatch.setattr(client, "post_inference", spy)
    client.check_tool_result(SESSION, "search_orders", "3 orders", call_id="call_7")
    answer = client.check_tool_result(SESSION, "search_orders", [1, 2], trace_id="trace-9")
    assert [r["surface"] for r in sent] == ["tool:search_orders#call_7", "tool:search_orders"]
    assert sent[1]["output"] == "[1, 2]"
    assert answer.trace_id == "trace-9"


def test_a_result_with_no_json_form_is_refused_naming_its_path(
    client: govcore.GovernanceClient,
) -> None:
    """bytes have no JSON form: refused, naming the path under result."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.check_tool_result(SESSION, "fetch", {"rows": [{"blob": b"\x00"}]})
    assert caught.value.details[0].field == "result.rows[0].blob"
    assert "bytes" in caught.value.details[0].message


def test_the_asyncio_client_checks_tool_results_alike() -> None:
    """AsyncGovernanceClient.check_tool_result answers as the blocking client."""
    expected = (
        gate_governance()
        .client(GATE_KEY)
        .check_tool_result(SESSION, "lookup", {"card": CARD}, trace_id="t")
    )

    async def check() -> govcore.PostInferenceResponse:
        agov = govcore.AsyncGovernance.from_config(gate_config(), clock=FakeClock())
        async with agov:
            return await agov.client(GATE_KEY).check_tool_result(
                SESSION, "lookup", {"card": CARD}, trace_id="t"
            )

    assert asyncio.run(check()) == expected


@pytest.mark.parametrize(
    ("tool_name", "call_id", "field"), [("", None, "tool_name"), ("lookup", "", "call_id")]
)
def test_an_empty_tool_name_or_call_id_is_refused(
    client: govcore.GovernanceClient, tool_name: str, call_id: str | None, field: str
) -> None:
    """The surface names a tool and, when given, a call: neither may be empty."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.check_tool_result(SESSION, tool_name, "ok", call_id=call_id)
    assert caught.value.details[0].field == field
