"""GovernedConversation: the framework-neutral base every adapter is built on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.integrations import (
    WITHHELD_TEXT,
    GovernanceUnavailableError,
    GovernedConversation,
)
from govcore.integrations.base import TOOL_TURN_CHARACTERS
from govcore.testing import FakeClock
from tests.integrations.support import (
    CARD,
    CARD_DIGITS,
    CARD_REPLACEMENT,
    KEY,
    NO_TOOLS_KEY,
    REFUND_CAP,
    CountingClient,
    SwitchableStore,
    governance,
)
from tests.integrations.support import config as support_config


def conversation(**options: object) -> GovernedConversation:
    return GovernedConversation(governance().client(KEY), **options)  # type: ignore[arg-type]


def digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


# --- turns and the instructions ---------------------------------------------------------------


def test_the_block_of_the_user_turn_goes_into_the_instructions() -> None:
    governed = conversation()
    block = governed.record_user("Can I pay for the order with my credit card number now?")
    assert "PAY-1" in block
    assert governed.instructions("You are a support agent.") == (
        "You are a support agent.\n\n" + block
    )
    assert governed.instructions() == block


def test_a_conversation_without_a_session_id_gets_its_own() -> None:
    first, second = conversation(), conversation()
    assert first.session_id
    assert second.session_id
    assert first.session_id != second.session_id


def test_a_replayed_history_records_each_message_once() -> None:
    gov = governance()
    client = gov.client(KEY)
    governed = GovernedConversation(client, "replayed")
    history = [("u1", "user", "Where is my parcel?"), ("a1", "assistant", "It left the depot.")]
    for _ in range(3):  # the framework hands the whole history to every run
        for message_id, role, text in history:
            if role == "user":
                governed.record_user(text, message_id=message_id)
            else:
                governed.record_assistant(text, message_id=message_id)
    assert client.get_conversation("replayed").turn_count == 2
    # A second worker with a conversation object of its own agrees: the ids are in the store.
    other = GovernedConversation(gov.client(KEY), "replayed")
    other.record_user("Where is my parcel?", message_id="u1")
    assert client.get_conversation("replayed").turn_count == 2


def test_a_tool_result_is_a_tool_turn() -> None:
    gov = governance()
    governed = GovernedConversation(gov.client(KEY), "tools")
    governed.record_user("Refund my broken kettle please", message_id="u1")
    governed.record_tool_result("lookup_order", {"order": 17, "total": 40}, call_id="c1")
    governed.record_tool_result("lookup_order", {"order": 17, "total": 40}, call_id="c1")
    assert gov.client(KEY).get_conversation("tools").turn_count == 2


def test_empty_assistant_text_records_nothing() -> None:
    gov = governance()
    governed = GovernedConversation(gov.client(KEY), "quiet")
    governed.record_user("hello", message_id="u1")
    governed.record_assistant("   ")
    assert gov.client(KEY).get_conversation("quiet").turn_count == 1


# --- tool calls -------------------------------------------------------------------------------


def test_an_allowed_call_runs_with_its_own_arguments() -> None:
    gate = conversation().gate_tool("issue_refund", {"amount": REFUND_CAP - 1, "order": 3})
    assert gate.action == "allow"
    assert gate.runs
    assert gate.arguments == {"amount": REFUND_CAP - 1, "order": 3}


def test_a_call_over_the_cap_runs_with_the_safer_arguments() -> None:
    gate = conversation().gate_tool("issue_refund", {"amount": 900, "order": 3})
    assert gate.action == "modify"
    assert gate.runs
    assert gate.arguments["order"] == 3
    assert gate.arguments["amount"] <= REFUND_CAP


@pytest.mark.parametrize("reaction", ["block", "retry"])
def test_a_call_over_the_cap_is_refused_when_asked(reaction: str) -> None:
    gate = conversation(on_fix=reaction).gate_tool("issue_refund", {"amount": 900})
    assert gate.action == "block"
    assert not gate.runs
    assert gate.message
    assert "issue_refund" in gate.message
    assert gate.arguments == {"amount": 900}


def test_a_denied_tool_is_blocked_with_a_message_for_the_model() -> None:
    gate = conversation().gate_tool("delete_account", {"user": "u-9"})
    assert gate.action == "block"
    assert gate.message
    assert "delete_account" in gate.message


def test_a_card_number_in_a_tool_call_is_never_sent() -> None:
    gate = conversation().gate_tool("send_sms", {"to": "+44 20 7946 0000", "body": f"card {CARD}"})
    if gate.runs:
        assert CARD_DIGITS not in digits(str(gate.arguments))
    assert gate.action in ("modify", "block")


def test_a_caller_error_is_raised_not_ridden_out() -> None:
    governed = GovernedConversation(governance().client(NO_TOOLS_KEY))
    with pytest.raises(govcore.PermissionDeniedError):
        governed.gate_tool("issue_refund", {"amount": 1})


# --- answers and tool results -----------------------------------------------------------------


def test_an_answer_with_a_card_number_is_redacted() -> None:
    checked = conversation().check_answer(f"Your card {CARD} is on file.")
    assert checked.changed
    assert not checked.withheld
    assert CARD_DIGITS not in digits(checked.text)
    assert CARD_REPLACEMENT in checked.text
    assert checked.verdict is not None
    assert not checked.verdict.safe


def test_a_warning_only_answer_keeps_its_text() -> None:
    text = "It ships today with guaranteed delivery by Friday."
    checked = conversation().check_answer(text)
    assert checked.text == text
    assert not checked.changed
    assert checked.verdict is not None
    assert checked.verdict.safe
    assert [v.policy_id for v in checked.verdict.violations] == ["no-promises"]


def test_an_answer_is_checked_once() -> None:
    client = CountingClient(governance().client(KEY))
    governed = GovernedConversation(client, "once")  # type: ignore[arg-type]
    for _ in range(3):  # three hooks of a framework see the same answer
        governed.check_answer("Your parcel left the depot.", message_id="a1")
    checked = sum(client.calls.get(name, 0) for name in ("record_turn", "post_inference"))
    assert checked == 1


def test_a_new_answer_under_a_reused_message_id_is_checked() -> None:
    governed = conversation()
    governed.check_answer("Your parcel left the depot.", message_id="chatcmpl-7")
    checked = governed.check_answer(f"Your card {CARD} is on file.", message_id="chatcmpl-7")
    assert CARD_DIGITS not in digits(checked.text)
    assert checked.verdict is not None
    assert not checked.verdict.safe


def test_an_answer_is_checked_against_every_area_when_selection_is_restricted() -> None:
    governed = conversation(policy_area_ids=["refunds"])
    governed.record_user("I want a refund for the broken kettle")
    checked = governed.check_answer(f"Your refund goes back to card {CARD}.")
    assert CARD_DIGITS not in digits(checked.text)
    assert CARD_REPLACEMENT in checked.text


def test_a_tool_result_with_a_card_number_is_redacted() -> None:
    checked = conversation().check_tool_result("lookup_customer", {"card": CARD, "name": "Ada"})
    assert CARD_DIGITS not in digits(checked.text)
    assert "Ada" in checked.text


def test_a_tool_result_is_checked_and_recorded_in_one_request() -> None:
    gov = governance()
    client = CountingClient(gov.client(KEY))
    governed = GovernedConversation(client, "one-request")  # type: ignore[arg-type]
    governed.record_user("Look up the customer who paid by card", message_id="u1")
    result = {"card": CARD, "name": "Ada"}
    checked = governed.check_and_record_tool_result(
        "lookup_customer", result, call_id="c1", message_id="t1"
    )
    assert CARD_DIGITS not in digits(checked.text)
    assert "Ada" in checked.text
    assert checked.changed
    assert checked.recorded
    assert not checked.withheld
    assert checked.verdict is not None
    assert not checked.verdict.safe
    assert client.calls == {"record_turn": 2}
    assert gov.client(KEY).get_conversation("one-request").turn_count == 2
    # The same message again (a replayed history, or another worker) records nothing more,
    # and is still checked.
    again = governed.check_and_record_tool_result("lookup_customer", result, message_id="t1")
    assert again.text == checked.text
    assert gov.client(KEY).get_conversation("one-request").turn_count == 2
    # Later turns read what was delivered, never the card number, as their context.
    governed.record_user("Thanks, and the refund?", message_id="u2")
    _name, (request, *_), _ = client.sent[-1]
    context = request["recentContext"]
    assert isinstance(context, list)
    assert any("Ada" in text for text in context)
    assert all(CARD_DIGITS not in digits(text) for text in context)


def test_a_long_tool_result_is_checked_whole_and_recorded_by_its_head() -> None:
    gov = governance()
    client = CountingClient(gov.client(KEY))
    governed = GovernedConversation(client, "long")  # type: ignore[arg-type]
    result = "x" * TOOL_TURN_CHARACTERS + " card " + CARD
    checked = governed.check_and_record_tool_result("export", result, call_id="c1")
    assert CARD_DIGITS not in digits(checked.text)  # beyond the head, and still checked
    assert checked.recorded
    assert client.calls == {"check_tool_result": 1, "record_turn": 1}
    assert gov.client(KEY).get_conversation("long").turn_count == 1


def test_an_empty_tool_result_is_neither_checked_nor_recorded() -> None:
    client = CountingClient(governance().client(KEY))
    checked = GovernedConversation(client).check_and_record_tool_result("noop", "  ")  # type: ignore[arg-type]
    assert checked.text == "  "
    assert not checked.recorded
    assert checked.verdict is None
    assert client.calls == {}


@pytest.mark.parametrize("fail", ["closed", "open"])
def test_a_failing_store_costs_a_tool_result_its_turn_never_its_check(
    fail: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The turn needs the store, the check does not: with the store down the result is still
    # checked (and its card number redacted) in either mode, and only the turn is lost.
    governed, store = failing_conversation(fail)
    with caplog.at_level(logging.WARNING, logger="govcore.integrations"):
        checked = governed.check_and_record_tool_result(
            "lookup_customer", {"card": CARD, "name": "Ada"}, call_id="c1"
        )
    assert not checked.recorded
    assert checked.verdict is not None
    assert not checked.verdict.safe
    assert not checked.withheld
    assert CARD_DIGITS not in digits(checked.text)
    assert "Ada" in checked.text
    assert len(caplog.records) == 1
    assert "tool turn" in caplog.records[0].getMessage()
    store.down = False
    assert governed.blocking_client.get_conversation(governed.session_id).turn_count == 1


@pytest.mark.parametrize("fail", ["closed", "open"])
def test_an_answer_is_checked_when_its_turn_cannot_be_recorded(fail: str) -> None:
    governed, store = failing_conversation(fail)
    answer = governed.check_answer(f"Your card {CARD} is on file.")
    assert not answer.recorded
    assert answer.verdict is not None
    assert not answer.withheld
    assert CARD_DIGITS not in digits(answer.text)
    store.down = False
    # not remembered as checked: handed over again, the answer's turn is recorded this time
    again = governed.check_answer(f"Your card {CARD} is on file.")
    assert again.recorded
    assert governed.blocking_client.get_conversation(governed.session_id).turn_count == 2


def test_checking_and_recording_a_tool_result_asyncio_is_the_same() -> None:
    gov = governance()
    governed = GovernedConversation(gov.client(KEY).aio, "async-tool")
    checked = asyncio.run(
        governed.acheck_and_record_tool_result("lookup_customer", {"card": CARD}, call_id="c1")
    )
    assert CARD_DIGITS not in digits(checked.text)
    assert checked.recorded
    assert gov.client(KEY).get_conversation("async-tool").turn_count == 1


# --- streams ----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60),
    chunk_size=st.integers(min_value=1, max_value=300),
    lead=st.integers(min_value=0, max_value=600),
)
def test_no_chunk_a_streaming_caller_sees_holds_a_card_number(
    cuts: list[int], chunk_size: int, lead: int
) -> None:
    text = "word " * (lead // 5) + f"the card is {CARD} thanks " + "more text " * 30
    deltas, start = [], 0
    for cut in cuts * (len(text) // max(sum(cuts), 1) + 1):
        if start >= len(text):
            break
        deltas.append(text[start : start + cut])
        start += cut
    if start < len(text):
        deltas.append(text[start:])
    governed = conversation(chunk_size=chunk_size)
    seen = ""
    for piece in governed.stream(deltas):
        seen += piece
        assert CARD_DIGITS not in digits(seen)
    assert governed.last_stream is not None
    assert seen == governed.last_stream.deliverable
    assert CARD_REPLACEMENT in seen


def test_a_clean_stream_is_delivered_whole() -> None:
    text = "Your parcel left the depot this morning and should arrive soon. " * 10
    deltas = [text[i : i + 7] for i in range(0, len(text), 7)]
    assert "".join(conversation().stream(deltas)) == text


# --- when govcore cannot decide ---------------------------------------------------------------


def failing_conversation(fail: str) -> tuple[GovernedConversation, SwitchableStore]:
    store = SwitchableStore(FakeClock())
    governed = GovernedConversation(governance(store).client(KEY), fail=fail)  # type: ignore[arg-type]
    governed.record_user("Can I pay by card?")
    store.down = True
    return governed, store


class UnavailableClient:
    """A typed client whose every call fails, as when govcore's process cannot answer at all
    (a store outage alone still lets the output checks decide)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if not callable(target) or name in ("aio", "blocking"):
            return target

        def failing(*_args: Any, **_kwargs: Any) -> Any:
            raise govcore.BackendError("govcore is unavailable")

        return failing


def unavailable_conversation(fail: str) -> GovernedConversation:
    client = governance().client(KEY)
    governed = GovernedConversation(client, fail=fail)
    governed.record_user("Can I pay by card?")
    governed._client = UnavailableClient(client)  # type: ignore[assignment]
    return governed


def test_fail_closed_blocks_withholds_and_stops_the_model_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    governed = unavailable_conversation("closed")
    with caplog.at_level(logging.WARNING, logger="govcore.integrations"):
        gate = governed.gate_tool("issue_refund", {"amount": 1})
        answer = governed.check_answer("Your parcel left the depot.")
        with pytest.raises(GovernanceUnavailableError) as raised:
            governed.record_user("and now?")
    assert gate.action == "block"
    assert gate.decision is None
    assert gate.message
    assert answer.text == WITHHELD_TEXT
    assert answer.withheld
    assert answer.verdict is None
    assert isinstance(raised.value.__cause__, govcore.BackendError)
    assert len(caplog.records) == 3
    assert all("fail closed" in record.getMessage() for record in caplog.records)


def test_fail_open_lets_through_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    governed = unavailable_conversation("open")
    with caplog.at_level(logging.WARNING, logger="govcore.integrations"):
        gate = governed.gate_tool("issue_refund", {"amount": 900})
        answer = governed.check_answer("Your parcel left the depot.")
        block = governed.record_user("and now?")
    assert gate.action == "allow"
    assert gate.arguments == {"amount": 900}
    assert answer.text == "Your parcel left the depot."
    assert not answer.withheld
    assert "PAY-1" in block  # the last block stays in the instructions
    assert len(caplog.records) == 3
    assert all("fail open" in record.getMessage() for record in caplog.records)


def test_a_stream_that_loses_govcore_withholds_the_rest() -> None:
    store = SwitchableStore(FakeClock())
    governed = GovernedConversation(governance(store).client(KEY), chunk_size=20)  # type: ignore[arg-type]
    text = "Your parcel left the depot this morning. " * 20

    def deltas() -> list[str]:
        return [text[i : i + 10] for i in range(0, len(text), 10)]

    seen = []
    stream = governed.stream(deltas())
    for index, piece in enumerate(stream):
        seen.append(piece)
        if index == 3:
            store.down = True
    assert seen[-1] == WITHHELD_TEXT
    assert len("".join(seen[:-1])) < len(text)


# --- asyncio ----------------------------------------------------------------------------------


def test_the_async_twins_behave_the_same() -> None:
    async def scenario() -> None:
        gov = govcore.AsyncGovernance.from_config(support_config(), clock=FakeClock())
        governed = GovernedConversation(gov.client(KEY), "async")
        block = await governed.arecord_user("Can I pay with my credit card?", message_id="u1")
        await governed.arecord_user("Can I pay with my credit card?", message_id="u1")
        assert "PAY-1" in block
        gate = await governed.agate_tool("issue_refund", {"amount": 900})
        assert gate.action == "modify"
        assert gate.arguments["amount"] <= REFUND_CAP
        checked = await governed.acheck_answer(f"Card {CARD} noted.")
        assert CARD_DIGITS not in digits(checked.text)

        async def deltas() -> AsyncIterator[str]:
            for piece in ("Card ", CARD[:7], CARD[7:], " is on file.", " Thanks!"):
                yield piece

        seen = ""
        async for piece in governed.astream(deltas()):
            seen += piece
            assert CARD_DIGITS not in digits(seen)
        assert CARD_REPLACEMENT in seen
        # the blocking twin of the same client sees the same conversation
        assert governed.blocking_client.get_conversation("async").turn_count == 3
        await gov.aclose()

    asyncio.run(scenario())


def test_a_stream_that_loses_govcore_fails_open_with_the_text_once() -> None:
    store = SwitchableStore(FakeClock())
    governed = GovernedConversation(  # type: ignore[arg-type]
        governance(store).client(KEY), chunk_size=20, fail="open"
    )
    text = "Your parcel left the depot this morning. " * 20
    seen = []
    for index, piece in enumerate(
        governed.stream(text[i : i + 10] for i in range(0, len(text), 10))
    ):
        seen.append(piece)
        if index == 3:
            store.down = True
    assert "".join(seen) == text
