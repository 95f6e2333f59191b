"""The OpenAI Agents SDK adapter, run by the SDK's own Runner against its scripted test model.

Offline: ``agents.testing.ScriptedModel`` answers each model call from a script (text, tool
calls, or an exact event stream), and records what each call received.
"""

from __future__ import annotations

import asyncio
import json
import os
import runpy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("CI", "").lower() == "true":
    # CI installs the extra: without it these tests fail rather than skip.
    import agents
else:
    agents = pytest.importorskip(
        "agents", reason="needs the extra: pip install 'govcore[openai-agents]'"
    )

from agents import Agent, FunctionTool, RunConfig, Runner, function_tool
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)

import govcore
from govcore.integrations import WITHHELD_TEXT, GovernanceUnavailableError, GovernedConversation
from govcore.integrations.openai_agents import AgentsGovernance, govern
from govcore.testing import FakeClock
from tests.integrations.support import (
    CARD,
    CARD_DIGITS,
    CARD_REPLACEMENT,
    KEY,
    REFUND_CAP,
    SwitchableStore,
    governance,
)

BASE_INSTRUCTIONS = "You are the support desk's assistant."
PAYMENT_QUESTION = "Can I pay for the order with my credit card number now?"


@pytest.fixture(autouse=True)
def _no_tracing() -> Iterator[None]:
    # The SDK exports traces to its platform by default; these runs are offline.
    agents.set_tracing_disabled(True)
    yield
    agents.set_tracing_disabled(False)


class Desk:
    """The support desk's tools, recording each call they really ran."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

        @function_tool
        def issue_refund(order: int, amount: int) -> str:
            """Refund an order."""
            self.ran.append(("issue_refund", {"order": order, "amount": amount}))
            return f"Refunded {amount} on order {order}."

        @function_tool
        def delete_account(user: str) -> str:
            """Delete a customer's account."""
            self.ran.append(("delete_account", {"user": user}))
            return "Account deleted."

        @function_tool
        def card_on_file(user: str) -> str:
            """The card a customer pays with."""
            self.ran.append(("card_on_file", {"user": user}))
            return f"{user} pays with {CARD}."

        self.tools: list[FunctionTool] = [issue_refund, delete_account, card_on_file]


def desk_agent(model: ScriptedModel, desk: Desk | None = None) -> Agent[Any]:
    return Agent(
        name="desk",
        instructions=BASE_INSTRUCTIONS,
        model=model,
        tools=list((desk or Desk()).tools),
    )


def run(agent: Agent[Any], conversation: GovernedConversation, user_input: Any) -> agents.RunResult:
    governed, run_config = govern(agent, conversation)
    return asyncio.run(Runner.run(governed, user_input, run_config=run_config))


def tool_outputs(call: ModelCall) -> dict[str, str]:
    """The tool outputs a model call received, by call id."""
    return {
        item["call_id"]: item["output"]
        for item in call.input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def streamed_message(
    text: str, *, item_id: str, delta_size: int = 7, announced: bool = False
) -> ModelStep:
    """A scripted step that streams ``text`` as one message in small deltas, as a provider
    would (the scripted model's own stream sends a whole message in one delta). ``announced``:
    the provider also puts the whole text in the events that start the message."""
    message = assistant_message(text, item_id=item_id)
    assert isinstance(message, ResponseOutputMessage)
    part = ResponseOutputText(type="output_text", text=text, annotations=[], logprobs=[])
    empty = part if announced else part.model_copy(update={"text": ""})
    in_progress = message.model_copy(
        update={"content": [empty] if announced else [], "status": "in_progress"}
    )
    response = Response.model_validate(
        {
            "id": "resp-stream",
            "object": "response",
            "created_at": 0,
            "model": "scripted",
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "status": "in_progress",
        }
    )
    events: list[Any] = [
        ResponseCreatedEvent(type="response.created", response=response, sequence_number=0),
        ResponseOutputItemAddedEvent(
            type="response.output_item.added", item=in_progress, output_index=0, sequence_number=1
        ),
        ResponseContentPartAddedEvent(
            type="response.content_part.added",
            item_id=item_id,
            output_index=0,
            content_index=0,
            part=empty,
            sequence_number=2,
        ),
    ]
    for delta in chunked(text, delta_size):
        events.append(
            ResponseTextDeltaEvent(
                type="response.output_text.delta",
                item_id=item_id,
                output_index=0,
                content_index=0,
                delta=delta,
                logprobs=[],
                sequence_number=len(events),
            )
        )
    done = len(events)
    events += [
        ResponseTextDoneEvent(
            type="response.output_text.done",
            item_id=item_id,
            output_index=0,
            content_index=0,
            text=text,
            logprobs=[],
            sequence_number=done,
        ),
        ResponseContentPartDoneEvent(
            type="response.content_part.done",
            item_id=item_id,
            output_index=0,
            content_index=0,
            part=part,
            sequence_number=done + 1,
        ),
        ResponseOutputItemDoneEvent(
            type="response.output_item.done", item=message, output_index=0, sequence_number=done + 2
        ),
        ResponseCompletedEvent(
            type="response.completed",
            response=response.model_copy(update={"output": [message], "status": "completed"}),
            sequence_number=done + 3,
        ),
    ]
    return ModelStep.stream(events, output=[message])


def stream(
    agent: Agent[Any], conversation: GovernedConversation, user_input: str
) -> tuple[list[Any], Any]:
    """Every event a streaming caller sees, and the run's final output."""

    async def consume() -> tuple[list[Any], Any]:
        governed, run_config = govern(agent, conversation)
        result = Runner.run_streamed(governed, user_input, run_config=run_config)
        seen = [event async for event in result.stream_events()]
        return seen, result.final_output

    return asyncio.run(consume())


def shows_card(event: Any) -> bool:
    text = repr(event)
    return CARD in text or CARD_DIGITS in text


def released_text(events: list[Any]) -> str:
    return "".join(
        event.data.delta
        for event in events
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta"
    )


# --- the instructions -------------------------------------------------------------------------


def test_the_block_is_in_every_model_request() -> None:
    conversation = GovernedConversation(governance().client(KEY))
    blocks: list[str] = []

    def answer(output: list[Any]) -> ModelStep:
        def respond(call: ModelCall) -> list[Any]:
            blocks.append(conversation.injection_block)  # the block when the model is called
            return output

        return ModelStep.respond(respond)

    model = ScriptedModel(
        [
            answer([function_call("issue_refund", {"order": 7, "amount": 20}, call_id="c1")]),
            answer([assistant_message("Refunded, and yes, you can pay by card.", item_id="m1")]),
        ]
    )
    run(desk_agent(model), conversation, PAYMENT_QUESTION)
    assert len(model.calls) == 2
    assert "PAY-1" in blocks[0]
    # The refund tool's turn brought the refund policy in before the second call.
    assert "REF-2" in blocks[1]
    assert "REF-2" not in blocks[0]
    for call, block in zip(model.calls, blocks, strict=True):
        assert call.system_instructions == BASE_INSTRUCTIONS + "\n\n" + block


@pytest.mark.parametrize("as_handoff_object", [False, True], ids=["agent", "handoff"])
def test_the_block_is_in_a_streamed_request_and_a_handed_off_agents(
    as_handoff_object: bool,
) -> None:
    billing_model = ScriptedModel(
        [[assistant_message("Billing here, how can I help?", item_id="b1")]]
    )
    billing = Agent(name="billing", instructions="You handle billing.", model=billing_model)
    front_model = ScriptedModel([[function_call("transfer_to_billing", {}, call_id="h1")]])
    front = Agent(
        name="front",
        instructions=BASE_INSTRUCTIONS,
        model=front_model,
        handoffs=[agents.handoff(billing) if as_handoff_object else billing],
    )
    conversation = GovernedConversation(governance().client(KEY))
    _, final = stream(front, conversation, PAYMENT_QUESTION)
    assert final == "Billing here, how can I help?"
    block = conversation.injection_block
    assert "PAY-1" in block
    assert front_model.calls[0].system_instructions == BASE_INSTRUCTIONS + "\n\n" + block
    assert billing_model.calls[0].system_instructions == "You handle billing.\n\n" + block


def test_a_model_named_by_the_run_configuration_is_governed() -> None:
    scripted = ScriptedModel([[assistant_message("Yes, by card.", item_id="m1")]])

    class Provider(agents.ModelProvider):
        def get_model(self, model_name: str | None) -> agents.Model:
            assert model_name == "desk-model"
            return scripted

    agent = Agent(name="desk", instructions=BASE_INSTRUCTIONS, model="desk-model")
    conversation = GovernedConversation(governance().client(KEY))
    governed, run_config = govern(
        agent, conversation, run_config=RunConfig(model_provider=Provider())
    )
    asyncio.run(Runner.run(governed, PAYMENT_QUESTION, run_config=run_config))
    assert "PAY-1" in (scripted.calls[0].system_instructions or "")


def test_the_original_agent_is_left_ungoverned() -> None:
    desk = Desk()
    model = ScriptedModel([[function_call("delete_account", {"user": "u-9"}, call_id="c1")], []])
    agent = desk_agent(model, desk)
    govern(agent, GovernedConversation(governance().client(KEY)))
    asyncio.run(Runner.run(agent, "Delete my account", max_turns=2))
    assert desk.ran == [("delete_account", {"user": "u-9"})]
    assert model.calls[0].system_instructions == BASE_INSTRUCTIONS


# --- tool calls -------------------------------------------------------------------------------


def test_a_denied_tool_never_runs_and_the_model_reads_why() -> None:
    desk = Desk()
    model = ScriptedModel(
        [
            [function_call("delete_account", {"user": "u-9"}, call_id="c1")],
            [
                assistant_message(
                    "I cannot delete accounts; you can close it in your settings.", item_id="m1"
                )
            ],
        ]
    )
    run(
        desk_agent(model, desk), GovernedConversation(governance().client(KEY)), "Delete my account"
    )
    assert desk.ran == []
    message = tool_outputs(model.calls[1])["c1"]
    assert "delete_account" in message


def test_a_call_over_the_cap_runs_with_the_safer_arguments() -> None:
    desk = Desk()
    model = ScriptedModel(
        [
            [function_call("issue_refund", {"order": 7, "amount": 900}, call_id="c1")],
            [assistant_message("Refund issued.", item_id="m1")],
        ]
    )
    run(desk_agent(model, desk), GovernedConversation(governance().client(KEY)), "Refund order 7")
    assert len(desk.ran) == 1
    name, arguments = desk.ran[0]
    assert name == "issue_refund"
    assert arguments["order"] == 7
    assert arguments["amount"] <= REFUND_CAP


@pytest.mark.parametrize("reaction", ["block", "retry"])
def test_a_call_over_the_cap_does_not_run_when_the_reaction_refuses_it(reaction: str) -> None:
    desk = Desk()
    model = ScriptedModel(
        [
            [function_call("issue_refund", {"order": 7, "amount": 900}, call_id="c1")],
            [assistant_message("A manager will follow up.", item_id="m1")],
        ]
    )
    conversation = GovernedConversation(governance().client(KEY), on_fix=reaction)  # type: ignore[arg-type]
    run(desk_agent(model, desk), conversation, "Refund order 7")
    assert desk.ran == []
    assert "issue_refund" in tool_outputs(model.calls[1])["c1"]


def card_email(reaction: str) -> tuple[Agent[Any], GovernedConversation, list[str], list[str]]:
    """An agent whose model proposes send_email(body=<a card number>), its conversation (with
    ``reaction`` to a fixable call), the bodies really sent, and the calls gated."""
    sent: list[str] = []

    @function_tool
    def send_email(to: str, body: str) -> str:
        """Send an e-mail to a customer."""
        sent.append(body)
        return "sent"

    model = ScriptedModel(
        [
            [
                function_call(
                    "send_email", {"to": "ada@example.com", "body": f"card {CARD}"}, call_id="c1"
                )
            ],
            [assistant_message("Done.", item_id="m1")],
        ]
    )
    agent = Agent(name="desk", instructions=BASE_INSTRUCTIONS, model=model, tools=[send_email])
    conversation = GovernedConversation(governance().client(KEY), on_fix=reaction)  # type: ignore[arg-type]
    gated: list[str] = []
    gate = conversation.agate_tool

    async def counted(tool_name: str, arguments: Any, **kwargs: Any) -> Any:
        gated.append(tool_name)
        return await gate(tool_name, arguments, **kwargs)

    conversation.agate_tool = counted  # type: ignore[method-assign]
    return agent, conversation, sent, gated


@pytest.mark.parametrize("reaction", ["apply", "block"])
def test_a_streaming_caller_sees_only_the_gated_arguments_of_a_tool_call(reaction: str) -> None:
    """The arguments a model proposes are gated before any event shows them: no argument
    delta, done event, item or run item the caller sees carries the card number; the call is
    gated once (the tool's invoker takes the gate made for the stream)."""
    agent, conversation, sent, gated = card_email(reaction)
    events, _ = stream(agent, conversation, "Email me my card")

    assert not any(shows_card(event) for event in events)
    assert gated == ["send_email"]
    [called] = [event for event in events if getattr(event, "name", None) == "tool_called"]
    arguments = json.loads(called.item.raw_item.arguments)
    if reaction == "apply":
        assert sent == [f"card {CARD_REPLACEMENT}"]
        assert arguments == {"to": "ada@example.com", "body": f"card {CARD_REPLACEMENT}"}
    else:
        assert sent == []
        assert arguments == {}


@pytest.mark.parametrize("reaction", ["apply", "block"])
def test_the_run_s_items_show_only_the_gated_arguments_of_a_tool_call(reaction: str) -> None:
    """Without a stream: the run's ToolCallItem (and the history handed to the next run) holds
    the gated arguments, not the card number the model proposed."""
    agent, conversation, sent, gated = card_email(reaction)
    result = run(agent, conversation, "Email me my card")

    assert CARD not in repr(result.new_items)
    assert CARD not in repr(result.to_input_list())
    assert gated == ["send_email"]
    assert sent == ([f"card {CARD_REPLACEMENT}"] if reaction == "apply" else [])


def test_a_tool_result_is_checked_before_the_model_reads_it() -> None:
    model = ScriptedModel(
        [
            [function_call("card_on_file", {"user": "Ada"}, call_id="c1")],
            [assistant_message("You pay with the card on file.", item_id="m1")],
        ]
    )
    run(desk_agent(model), GovernedConversation(governance().client(KEY)), "Which card do I use?")
    output = tool_outputs(model.calls[1])["c1"]
    assert CARD_REPLACEMENT in output
    assert CARD not in output


# --- answers ----------------------------------------------------------------------------------


def test_the_final_answer_is_redacted_everywhere_the_caller_reads_it() -> None:
    answer = f"Your card {CARD} is on file."
    model = ScriptedModel([[assistant_message(answer, item_id="m1")]])
    result = run(
        desk_agent(model), GovernedConversation(governance().client(KEY)), PAYMENT_QUESTION
    )
    assert result.final_output == f"Your card {CARD_REPLACEMENT} is on file."
    replay = json.dumps(result.to_input_list())
    assert CARD not in replay
    assert CARD_REPLACEMENT in replay
    assert not any(shows_card(item) for item in result.new_items)


def test_a_safe_answer_is_delivered_as_it_is() -> None:
    answer = "Your refund is on its way and should arrive in 3 to 5 days."
    model = ScriptedModel([[assistant_message(answer, item_id="m1")]])
    result = run(desk_agent(model), GovernedConversation(governance().client(KEY)), "Refund?")
    assert result.final_output == answer


@pytest.mark.parametrize("announced", [False, True], ids=["deltas", "announced"])
def test_no_unchecked_text_reaches_a_streaming_caller(announced: bool) -> None:
    answer = (
        "Thanks for waiting. "
        + "I looked at the order and everything is in place. " * 12
        + f"For the record, the card is {CARD}, as you said. "
        + "Anything else I can do for you today? " * 8
    )
    model = ScriptedModel([streamed_message(answer, item_id="m1", announced=announced)])
    events, final = stream(
        desk_agent(model), GovernedConversation(governance().client(KEY)), PAYMENT_QUESTION
    )
    for event in events:
        assert not shows_card(event), event
    released = released_text(events)
    assert CARD_DIGITS not in "".join(ch for ch in released if ch.isdigit())
    assert CARD_REPLACEMENT in released
    assert final == released
    assert released == answer.replace(CARD, CARD_REPLACEMENT)


def test_a_long_safe_stream_is_released_before_it_ends() -> None:
    answer = "I looked at the order and everything is in place. " * 30
    model = ScriptedModel([streamed_message(answer, item_id="m1")])
    events, final = stream(
        desk_agent(model), GovernedConversation(governance().client(KEY)), "Status?"
    )
    raw = [event.data for event in events if event.type == "raw_response_event"]
    done = next(data for data in raw if data.type == "response.output_text.done")
    # A released delta carries the sequence number of the model's event that released it.
    early = "".join(
        data.delta
        for data in raw
        if data.type == "response.output_text.delta" and data.sequence_number < done.sequence_number
    )
    # Held back is only the tail that a later check could still turn into a violation.
    assert early
    assert answer.startswith(early)
    assert len(early) < len(answer)
    assert final == answer == released_text(events)


# --- turns ------------------------------------------------------------------------------------


def test_a_replayed_history_records_no_turn_twice() -> None:
    gov = governance()
    client = gov.client(KEY)
    model = ScriptedModel(
        [
            [function_call("issue_refund", {"order": 7, "amount": 20}, call_id="c1")],
            [assistant_message("Refunded 20 on order 7.", item_id="m1")],
            [assistant_message("You're welcome.", item_id="m2")],
            [assistant_message("Goodbye.", item_id="m3")],
        ]
    )
    agent = desk_agent(model)
    first = run(agent, GovernedConversation(client, "replay"), "Refund order 7 please")
    # user, tool output, answer
    assert client.get_conversation("replay").turn_count == 3
    # Another worker (a conversation object of its own) gets the whole history with a new turn.
    second = run(
        agent,
        GovernedConversation(gov.client(KEY), "replay"),
        [*first.to_input_list(), {"role": "user", "content": "Thanks!"}],
    )
    assert client.get_conversation("replay").turn_count == 5
    # The same conversation object again, with the same words as an earlier user turn.
    run(
        agent,
        GovernedConversation(gov.client(KEY), "replay"),
        [*second.to_input_list(), {"role": "user", "content": "Thanks!"}],
    )
    assert client.get_conversation("replay").turn_count == 7


def test_the_ids_kept_per_conversation_are_bounded_and_forgetting_records_nothing_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long conversation does not grow the adapter's memory without end: it keeps the latest
    identities only; a forgotten one that comes back in the history is recognised by the
    store, so nothing is recorded twice."""
    import govcore.integrations.openai_agents as adapter

    monkeypatch.setattr(adapter, "MAX_IDS_PER_CONVERSATION", 3)
    client = governance().client(KEY)
    conversation = GovernedConversation(client, "bounded")
    model = ScriptedModel(
        [[assistant_message(f"Answer {n}.", item_id=f"m{n}")] for n in range(1, 5)]
    )
    agent = desk_agent(model)
    history: list[Any] = []
    for question in ("Hi", "Where is order 7?", "And order 8?", "Thanks"):
        result = run(agent, conversation, [*history, {"role": "user", "content": question}])
        history = result.to_input_list()
    assert client.get_conversation("bounded").turn_count == 8
    assert len(AgentsGovernance.of(conversation).recorded) == 3


def test_messages_without_ids_of_their_own_are_recorded_once_each() -> None:
    # Chat Completions models give every message the same placeholder id.
    client = governance().client(KEY)
    model = ScriptedModel(
        [
            [assistant_message("It left the depot.", item_id=FAKE_RESPONSES_ID)],
            [assistant_message("It arrives tomorrow.", item_id=FAKE_RESPONSES_ID)],
        ]
    )
    agent = desk_agent(model)
    first = run(agent, GovernedConversation(client, "fake-ids"), "Where is my parcel?")
    history = [*first.to_input_list(), {"role": "user", "content": "And when will it arrive?"}]
    second = run(agent, GovernedConversation(client, "fake-ids"), history)
    assert second.final_output == "It arrives tomorrow."
    assert client.get_conversation("fake-ids").turn_count == 4
    ids = [item.raw_item.id for item in [*first.new_items, *second.new_items]]
    assert len(set(ids)) == 2
    assert FAKE_RESPONSES_ID not in ids


# --- failing closed and open ------------------------------------------------------------------


def on_a_failing_store(
    fail: str,
) -> tuple[GovernedConversation, Callable[[list[Any]], ModelStep]]:
    """A conversation on a store that can go down, and a scripted step that answers with the
    given output and takes the store down as the model answers."""
    store = SwitchableStore(FakeClock())
    conversation = GovernedConversation(governance(store).client(KEY), fail=fail)  # type: ignore[arg-type]

    def going_down(output: list[Any]) -> ModelStep:
        def respond(call: ModelCall) -> list[Any]:
            store.down = True
            return output

        return ModelStep.respond(respond)

    return conversation, going_down


def test_fail_closed_blocks_the_tool_and_stops_the_run() -> None:
    desk = Desk()
    conversation, going_down = on_a_failing_store("closed")
    model = ScriptedModel(
        [
            going_down([function_call("issue_refund", {"order": 7, "amount": 20}, call_id="c1")]),
            [assistant_message("Refunded.", item_id="m1")],
        ]
    )
    with pytest.raises(GovernanceUnavailableError):
        run(desk_agent(model, desk), conversation, "Refund order 7")
    assert desk.ran == []
    # The model was not called again without its policies.
    assert len(model.calls) == 1


def test_a_store_down_when_the_answer_comes_costs_its_turn_not_its_check() -> None:
    # The answer cannot be recorded, but its check needs no store: checked and redacted.
    conversation, going_down = on_a_failing_store("closed")
    model = ScriptedModel([going_down([assistant_message(f"Card {CARD}.", item_id="m1")])])
    result = run(desk_agent(model), conversation, PAYMENT_QUESTION)
    assert CARD_DIGITS not in "".join(c for c in result.final_output if c.isdigit())
    assert CARD_REPLACEMENT in result.final_output


def test_fail_closed_withholds_the_rest_of_a_stream() -> None:
    store = SwitchableStore(FakeClock())
    conversation = GovernedConversation(governance(store).client(KEY))
    answer = "Let me see. " * 40 + f"The card is {CARD}."

    async def events(call: ModelCall) -> Any:
        step = streamed_message(answer, item_id="m1")
        assert isinstance(step.stream_events, tuple)
        for index, event in enumerate(step.stream_events):
            if index == 20:
                store.down = True
            yield event

    model = ScriptedModel([ModelStep.stream(events)])
    seen, final = stream(desk_agent(model), conversation, PAYMENT_QUESTION)
    assert not any(shows_card(event) for event in seen)
    assert final.endswith(WITHHELD_TEXT)


def test_fail_open_runs_the_tool_and_delivers_the_answer() -> None:
    desk = Desk()
    conversation, going_down = on_a_failing_store("open")
    model = ScriptedModel(
        [
            going_down([function_call("issue_refund", {"order": 7, "amount": 20}, call_id="c1")]),
            [assistant_message("Refunded.", item_id="m1")],
        ]
    )
    result = run(desk_agent(model, desk), conversation, "Refund order 7")
    assert desk.ran == [("issue_refund", {"order": 7, "amount": 20})]
    assert result.final_output == "Refunded."


# --- the SDK's other entry points -------------------------------------------------------------


def test_run_sync_is_governed() -> None:
    desk = Desk()
    model = ScriptedModel(
        [
            [function_call("delete_account", {"user": "u-9"}, call_id="c1")],
            [assistant_message(f"Done, card {CARD}.", item_id="m1")],
        ]
    )
    governed, run_config = govern(
        desk_agent(model, desk), GovernedConversation(governance().client(KEY))
    )
    try:
        result = Runner.run_sync(governed, "Delete my account", run_config=run_config)
    finally:
        # run_sync leaves the thread's default event loop open for the next call: close it.
        policy = asyncio.get_event_loop_policy()
        policy.get_event_loop().close()
        policy.set_event_loop(None)
    assert desk.ran == []
    assert CARD not in result.final_output
    assert CARD_REPLACEMENT in result.final_output


def test_governing_twice_wraps_once() -> None:
    conversation = GovernedConversation(governance().client(KEY))
    model = ScriptedModel([[assistant_message("Hello.", item_id="m1")]])
    once, config_once = govern(desk_agent(model), conversation)
    twice, config_twice = govern(once, conversation, run_config=config_once)
    assert AgentsGovernance.of(conversation) is AgentsGovernance.of(conversation)
    assert twice.model is once.model
    assert [tool.on_invoke_tool for tool in twice.tools] == [
        tool.on_invoke_tool for tool in once.tools
    ]  # type: ignore[union-attr]
    assert config_twice.model_provider is config_once.model_provider


def test_an_agent_governed_for_one_conversation_is_governed_for_the_next_instead() -> None:
    gov = governance()
    desk = Desk()
    model = ScriptedModel(
        [
            [function_call("issue_refund", {"order": 7, "amount": 20}, call_id="c1")],
            [assistant_message("Refunded.", item_id="m1")],
        ]
    )
    first, _ = govern(desk_agent(model, desk), GovernedConversation(gov.client(KEY), "first"))
    again, run_config = govern(first, GovernedConversation(gov.client(KEY), "second"))
    asyncio.run(Runner.run(again, "Refund order 7", run_config=run_config))
    assert desk.ran == [("issue_refund", {"order": 7, "amount": 20})]
    client = gov.client(KEY)
    assert client.get_conversation("second").turn_count == 3  # user, tool, answer
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("first")


def test_a_tool_that_takes_raw_text_is_gated_on_that_text() -> None:
    received: list[str] = []

    async def note(ctx: Any, text: str) -> str:
        received.append(text)
        return "Noted."

    raw_tool = FunctionTool(
        name="write_note",
        description="Write a free-text note on the order.",
        params_json_schema={"type": "object", "properties": {}, "additionalProperties": False},
        on_invoke_tool=note,
        strict_json_schema=False,
    )
    model = ScriptedModel(
        [
            [function_call("write_note", f"Customer card {CARD}, call back", call_id="c1")],
            [assistant_message("Noted on the order.", item_id="m1")],
        ]
    )
    agent = Agent(name="desk", instructions=BASE_INSTRUCTIONS, model=model, tools=[raw_tool])
    run(agent, GovernedConversation(governance().client(KEY)), PAYMENT_QUESTION)
    assert CARD not in "".join(received)
    assert all(CARD_DIGITS not in "".join(ch for ch in text if ch.isdigit()) for text in received)


def test_a_streamed_refusal_is_held_back_too() -> None:
    refusal = ResponseOutputRefusal(type="refusal", refusal=f"I will not keep the card {CARD}.")
    message = ResponseOutputMessage(
        id="m1", type="message", role="assistant", status="completed", content=[refusal]
    )
    model = ScriptedModel([[message]])  # the scripted model streams it as refusal events
    governed, run_config = govern(desk_agent(model), GovernedConversation(governance().client(KEY)))
    seen: list[Any] = []

    async def consume() -> None:
        result = Runner.run_streamed(governed, PAYMENT_QUESTION, run_config=run_config)
        async for event in result.stream_events():
            seen.append(event)

    # The SDK ends a run whose answer is a refusal with an error that quotes it.
    with pytest.raises(agents.ModelRefusalError) as refused:
        asyncio.run(consume())
    assert CARD_REPLACEMENT in str(refused.value)
    assert CARD not in str(refused.value)
    kinds = {event.data.type for event in seen if event.type == "raw_response_event"}
    assert "response.refusal.delta" in kinds
    assert not any(shows_card(event) for event in seen)


def test_the_example_application_runs_offline(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/openai_agents_app.py runs on the scripted model; no card number reaches its user."""
    example = Path(__file__).resolve().parents[2] / "examples" / "openai_agents_app.py"
    runpy.run_path(str(example), run_name="__main__")
    printed = capsys.readouterr().out
    assert CARD not in printed
    assert "[card number removed]" in printed
    assert "amount=500" in printed  # the refund ran with the safer amount
    assert "it ran []" in printed  # the account deletion did not run
    assert printed.rstrip().endswith(": 6")  # six turns, each recorded once


def test_a_session_replays_its_history_without_recording_it_twice() -> None:
    client = governance().client(KEY)
    model = ScriptedModel(
        [
            [assistant_message("It left the depot.", item_id="m1")],
            [assistant_message("It arrives tomorrow.", item_id="m2")],
        ]
    )
    session = agents.SQLiteSession("parcel")  # in memory
    conversation = GovernedConversation(client, "session")
    governed, run_config = govern(desk_agent(model), conversation)

    async def two_runs() -> None:
        for question in ("Where is my parcel?", "When will it arrive?"):
            await Runner.run(governed, question, run_config=run_config, session=session)

    asyncio.run(two_runs())
    assert len(model.calls[1].input) == 3  # the session handed the first exchange back
    assert client.get_conversation("session").turn_count == 4


def test_the_same_words_in_two_server_side_runs_are_two_turns() -> None:
    # With previous_response_id the SDK sends only the new items; the same "Yes" in two runs is
    # two turns, told apart by the response each follows.
    client = governance().client(KEY)
    model = ScriptedModel(
        [
            [assistant_message("Refund issued.", item_id="m1")],
            [assistant_message("Replacement sent.", item_id="m2")],
        ]
    )
    governed, run_config = govern(desk_agent(model), GovernedConversation(client, "server"))

    async def two_runs() -> None:
        for previous in ("resp-1", "resp-2"):
            await Runner.run(governed, "Yes", run_config=run_config, previous_response_id=previous)

    asyncio.run(two_runs())
    assert [call.previous_response_id for call in model.calls] == ["resp-1", "resp-2"]
    assert client.get_conversation("server").turn_count == 4
