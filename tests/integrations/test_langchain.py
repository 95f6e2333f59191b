"""The LangChain adapter: GovernanceMiddleware on ``create_agent`` and its held-back stream,
against LangChain's own fake chat model, offline.

Every scenario runs through ``invoke`` and ``ainvoke`` (or ``stream`` and ``astream``): the
middleware's sync and async hooks share one implementation, and both are checked.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import runpy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("CI", "").lower() != "true":
    # Without the extra the module is skipped; in CI, which installs it, a missing extra fails.
    pytest.importorskip(
        "langchain.agents", reason="needs the extra: pip install 'govcore[langchain]'"
    )

from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import Field

import govcore
from govcore.integrations import WITHHELD_TEXT, GovernanceUnavailableError
from govcore.integrations.langchain import GovernanceMiddleware
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

INSTRUCTIONS = "You are the support desk's assistant."
FILLER = "Thank you for waiting while I looked into your order and its payment. "


def digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


class ScriptedModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, answering from a script, that also takes tools (as
    ``create_agent`` requires), streams tool calls (the generic model drops them when it
    streams) and keeps every request it was given."""

    requests: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.requests.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        assert isinstance(message, AIMessage)
        chunks: list[AIMessageChunk] = [
            AIMessageChunk(content=token, id=message.id)
            for token in re.split(r"(\s)", message.text)
            if token
        ]
        if message.tool_calls:
            chunks.append(
                AIMessageChunk(
                    content="",
                    id=message.id,
                    tool_call_chunks=[
                        {
                            "name": call["name"],
                            "args": json.dumps(call["args"]),
                            "id": call["id"],
                            "index": index,
                        }
                        for index, call in enumerate(message.tool_calls)
                    ],
                )
            )
        chunks[-1].chunk_position = "last"
        for chunk in chunks:
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=generation)
            yield generation


class SplitArgumentsModel(ScriptedModel):
    """The scripted model streaming each tool call's arguments in pieces of three characters, as
    providers do (a card number then spans several chunks)."""

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        for generation in super()._stream(messages, stop, run_manager, **kwargs):
            chunk = generation.message
            assert isinstance(chunk, AIMessageChunk)
            if not chunk.tool_call_chunks:
                yield generation
                continue
            for call in chunk.tool_call_chunks:
                args = call["args"] or ""
                for start in range(0, len(args), 3):
                    piece = {**call, "args": args[start : start + 3]}
                    if start:
                        piece.update(name=None, id=None)
                    yield ChatGenerationChunk(
                        message=AIMessageChunk(content="", id=chunk.id, tool_call_chunks=[piece])
                    )
            yield ChatGenerationChunk(
                message=AIMessageChunk(content="", id=chunk.id, chunk_position="last")
            )


def calls(*tool_calls: tuple[str, dict[str, Any]], text: str = "") -> AIMessage:
    """An assistant message calling tools (``(name, arguments)`` each)."""
    return AIMessage(
        content=text,
        tool_calls=[
            {"name": name, "args": args, "id": f"call-{index}"}
            for index, (name, args) in enumerate(tool_calls)
        ],
    )


class Desk:
    """The support desk's tools, each noting the arguments it ran with."""

    def __init__(self, lookup_result: str = "Order A1: delivered yesterday.") -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []
        desk = self

        @tool
        def issue_refund(order_id: str, amount: int) -> str:
            """Refund an order."""
            desk.ran.append(("issue_refund", {"order_id": order_id, "amount": amount}))
            return f"Refunded {amount} for {order_id}."

        @tool
        def delete_account(customer_id: str) -> str:
            """Delete a customer's account."""
            desk.ran.append(("delete_account", {"customer_id": customer_id}))
            return "Deleted."

        @tool
        def lookup_order(order_id: str) -> str:
            """Look an order up."""
            desk.ran.append(("lookup_order", {"order_id": order_id}))
            return lookup_result

        self.tools: list[BaseTool] = [issue_refund, delete_account, lookup_order]


def agent_of(
    model: ScriptedModel, middleware: GovernanceMiddleware, desk: Desk, *, checkpointer: Any = None
) -> Any:
    return create_agent(
        model,
        tools=desk.tools,
        middleware=[middleware],
        system_prompt=INSTRUCTIONS,
        checkpointer=checkpointer,
    )


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


Run = Callable[..., dict[str, Any]]


@pytest.fixture(params=["invoke", "ainvoke"])
def run(request: pytest.FixtureRequest) -> Run:
    """Runs an agent to its end, with ``invoke`` or with ``ainvoke``."""

    def blocking(agent: Any, inputs: Any, config: Any = None) -> dict[str, Any]:
        return agent.invoke(inputs, config)  # type: ignore[no-any-return]

    def awaited(agent: Any, inputs: Any, config: Any = None) -> dict[str, Any]:
        return asyncio.run(agent.ainvoke(inputs, config))  # type: ignore[no-any-return]

    return blocking if request.param == "invoke" else awaited


Stream = Callable[..., list[tuple[BaseMessage, dict[str, Any]]]]


@pytest.fixture(params=["stream", "astream"])
def stream(request: pytest.FixtureRequest) -> Stream:
    """Collects the governed stream of a run, from ``stream`` or ``astream``, asserting on
    every chunk as it comes that no card number has reached the caller."""

    def check(seen: str, message: BaseMessage) -> str:
        if isinstance(message, AIMessage):
            seen += message.text
        assert CARD_DIGITS not in digits(seen)
        return seen

    def blocking(
        middleware: GovernanceMiddleware, agent: Any, inputs: Any, config: Any = None
    ) -> list[tuple[BaseMessage, dict[str, Any]]]:
        pairs, seen = [], ""
        for message, metadata in middleware.stream(agent, inputs, config):
            seen = check(seen, message)
            pairs.append((message, metadata))
        return pairs

    def awaited(
        middleware: GovernanceMiddleware, agent: Any, inputs: Any, config: Any = None
    ) -> list[tuple[BaseMessage, dict[str, Any]]]:
        async def collect() -> list[tuple[BaseMessage, dict[str, Any]]]:
            pairs, seen = [], ""
            async for message, metadata in middleware.astream(agent, inputs, config):
                seen = check(seen, message)
                pairs.append((message, metadata))
            return pairs

        return asyncio.run(collect())

    return blocking if request.param == "stream" else awaited


def answer_text(pairs: list[tuple[BaseMessage, dict[str, Any]]]) -> str:
    return "".join(message.text for message, _ in pairs if isinstance(message, AIMessageChunk))


# --- instructions ------------------------------------------------------------------------------


def test_the_policies_are_in_every_model_request(run: Run) -> None:
    """Each model call gets the agent's instructions followed by the injection block."""
    model = ScriptedModel(
        messages=iter([calls(("lookup_order", {"order_id": "A1"})), AIMessage("It arrived.")])
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    run(agent_of(model, middleware, Desk()), user("Can I pay for order A1 with my credit card?"))
    assert len(model.requests) == 2
    for request in model.requests:
        system = request[0]
        assert isinstance(system, SystemMessage)
        assert system.text.startswith(INSTRUCTIONS + "\n\n")
        assert "PAY-1" in system.text  # the card-data policy the question made applicable
    assert model.requests[-1][0].text == INSTRUCTIONS + "\n\n" + (
        middleware.conversation().injection_block
    )


# --- tool calls --------------------------------------------------------------------------------


def test_a_denied_tool_never_runs_and_the_model_reads_why(run: Run) -> None:
    """A denied tool is not run; the model's next request carries the block as its result."""
    desk = Desk()
    model = ScriptedModel(
        messages=iter([calls(("delete_account", {"customer_id": "c-7"})), AIMessage("Sorry.")])
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    state = run(agent_of(model, middleware, desk), user("Please delete my account."))
    assert desk.ran == []
    [result] = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert result.status == "error"
    assert "delete_account" in result.text
    assert "no-account-deletion" in result.text
    assert result in model.requests[-1]


def test_a_call_over_the_cap_runs_with_the_safer_arguments(run: Run) -> None:
    """A fixable call runs with the arguments the policy allows, and the model sees so."""
    desk = Desk()
    model = ScriptedModel(
        messages=iter(
            [calls(("issue_refund", {"order_id": "A1", "amount": 900})), AIMessage("Refunded.")]
        )
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    state = run(agent_of(model, middleware, desk), user("Refund order A1 please, it broke."))
    assert desk.ran == [("issue_refund", {"order_id": "A1", "amount": REFUND_CAP})]
    [result] = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert result.text == f"Refunded {REFUND_CAP} for A1."


@pytest.mark.parametrize("on_fix", ["block", "retry"])
def test_a_call_over_the_cap_is_not_run_when_asked(run: Run, on_fix: Any) -> None:
    """With on_fix "block" or "retry" a fixable call is not run at all."""
    desk = Desk()
    model = ScriptedModel(
        messages=iter(
            [calls(("issue_refund", {"order_id": "A1", "amount": 900})), AIMessage("Sorry.")]
        )
    )
    middleware = GovernanceMiddleware(governance().client(KEY), on_fix=on_fix)
    state = run(agent_of(model, middleware, desk), user("Refund order A1 please, it broke."))
    assert desk.ran == []
    [result] = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert result.status == "error"
    assert "refund-cap" in result.text


def test_parallel_calls_are_gated_one_by_one(run: Run) -> None:
    """Of two calls in one answer, the allowed one runs and the denied one does not."""
    desk = Desk()
    model = ScriptedModel(
        messages=iter(
            [
                calls(
                    ("lookup_order", {"order_id": "A1"}),
                    ("delete_account", {"customer_id": "c-7"}),
                ),
                AIMessage("Done."),
            ]
        )
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    run(agent_of(model, middleware, desk), user("Look up A1 and delete my account."))
    assert desk.ran == [("lookup_order", {"order_id": "A1"})]


def test_a_tool_result_is_redacted_before_the_model_sees_it(run: Run) -> None:
    """A card number in what a tool returned reaches neither the model nor the history."""
    desk = Desk(lookup_result=f"Order A1 was paid with card {CARD}.")
    model = ScriptedModel(
        messages=iter([calls(("lookup_order", {"order_id": "A1"})), AIMessage("It is paid.")])
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    state = run(agent_of(model, middleware, desk), user("How was order A1 paid?"))
    [result] = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert CARD_REPLACEMENT in result.text
    assert CARD_DIGITS not in digits(" ".join(m.text for m in model.requests[-1]))


def test_a_tool_answering_with_a_command_has_its_message_checked(run: Run) -> None:
    """A tool that updates the state with a Command has the ToolMessage in it checked too."""

    @tool
    def card_on_file(customer_id: str, runtime: ToolRuntime) -> Command[Any]:
        """The customer's card on file."""
        message = ToolMessage(f"Card on file: {CARD}.", tool_call_id=runtime.tool_call_id)
        return Command(update={"messages": [message]})

    desk = Desk()
    desk.tools.append(card_on_file)
    model = ScriptedModel(
        messages=iter([calls(("card_on_file", {"customer_id": "c-7"})), AIMessage("Noted.")])
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    state = run(agent_of(model, middleware, desk), user("Which card do I have on file?"))
    [result] = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert result.text == f"Card on file: {CARD_REPLACEMENT}."


# --- answers -----------------------------------------------------------------------------------


def test_the_answer_is_redacted(run: Run) -> None:
    """A card number in the model's answer is replaced in the result the caller gets."""
    model = ScriptedModel(messages=iter([AIMessage(f"Your card {CARD} is on file.")]))
    middleware = GovernanceMiddleware(governance().client(KEY))
    state = run(agent_of(model, middleware, Desk()), user("Which card do I pay with?"))
    answer = state["messages"][-1]
    assert isinstance(answer, AIMessage)
    assert CARD_DIGITS not in digits(answer.text)
    assert CARD_REPLACEMENT in answer.text


def test_a_warning_only_answer_keeps_its_text(run: Run) -> None:
    """An answer that only breaks a warning-only rule is delivered as written."""
    text = "Your parcel has guaranteed delivery tomorrow."
    model = ScriptedModel(messages=iter([AIMessage(text)]))
    middleware = GovernanceMiddleware(governance().client(KEY))
    state = run(agent_of(model, middleware, Desk()), user("When will my parcel arrive?"))
    assert state["messages"][-1].text == text


# --- the governed stream -------------------------------------------------------------------------


def test_no_chunk_a_streaming_caller_sees_holds_unchecked_text(stream: Stream) -> None:
    """A long answer streams in checked pieces; the card number in it never reaches the caller
    (the fixture asserts on every chunk) and the pieces add up to the redacted answer."""
    text = FILLER * 5 + f"The card on file is {CARD}. " + FILLER * 5
    model = ScriptedModel(messages=iter([AIMessage(text)]))
    middleware = GovernanceMiddleware(governance().client(KEY), chunk_size=50)
    agent = agent_of(model, middleware, Desk(), checkpointer=InMemorySaver())
    pairs = stream(middleware, agent, user("Which card is on file?"), thread("streamed"))
    delivered = answer_text(pairs)
    assert delivered == text.replace(CARD, CARD_REPLACEMENT)
    assert len([m for m, _ in pairs if isinstance(m, AIMessageChunk) and m.text]) > 1
    assert agent.get_state(thread("streamed")).values["messages"][-1].text == delivered


def test_a_streamed_run_with_tools_is_governed_end_to_end(stream: Stream) -> None:
    """Tool calls stream through, tool results come checked, and the answer is held back."""
    desk = Desk(lookup_result=f"Paid with card {CARD}.")
    model = ScriptedModel(
        messages=iter(
            [
                calls(
                    ("lookup_order", {"order_id": "A1"}),
                    ("issue_refund", {"order_id": "A1", "amount": 900}),
                ),
                AIMessage(f"Refunded; the card {CARD} gets the money."),
            ]
        )
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    pairs = stream(middleware, agent_of(model, middleware, desk), user("Refund A1 to my card."))
    assert ("issue_refund", {"order_id": "A1", "amount": REFUND_CAP}) in desk.ran
    tool_calls = [
        chunk["name"]
        for message, _ in pairs
        if isinstance(message, AIMessageChunk)
        for chunk in message.tool_call_chunks
    ]
    assert sorted(tool_calls) == ["issue_refund", "lookup_order"]
    results = [m for m, _ in pairs if isinstance(m, ToolMessage)]
    assert len(results) == 2
    assert all(CARD_DIGITS not in digits(m.text) for m in results)
    assert answer_text(pairs) == f"Refunded; the card {CARD_REPLACEMENT} gets the money."


def test_a_model_that_does_not_stream_is_delivered_whole_once_checked(stream: Stream) -> None:
    """A model that does not stream gives LangGraph one whole message: it reaches the caller
    whole, redacted."""
    model = ScriptedModel(
        messages=iter([AIMessage(f"Your card {CARD} is on file.")]), disable_streaming=True
    )
    middleware = GovernanceMiddleware(governance().client(KEY))
    pairs = stream(middleware, agent_of(model, middleware, Desk()), user("Which card is it?"))
    [answer] = [m for m, _ in pairs if isinstance(m, AIMessage)]
    assert not isinstance(answer, AIMessageChunk)
    assert answer.text == f"Your card {CARD_REPLACEMENT} is on file."


def email_tool(desk: Desk) -> BaseTool:
    @tool
    def email_customer(body: str) -> str:
        """Email the customer."""
        desk.ran.append(("email_customer", {"body": body}))
        return "Sent."

    return email_customer


@pytest.mark.parametrize("model_kind", ["split", "whole"])
@pytest.mark.parametrize("on_fix", ["apply", "block"])
def test_no_chunk_shows_the_arguments_of_a_proposed_call_unchecked(
    stream: Stream, model_kind: str, on_fix: Any
) -> None:
    """A proposed call's arguments reach a streaming caller checked: no chunk, nor all the
    chunks together, show the card number, streamed in pieces or in one whole message. The tool
    gate still decides on what the model proposed: "apply" runs the call with the safer
    arguments, "block" does not run it."""
    desk = Desk()
    desk.tools.append(email_tool(desk))
    script = iter(
        [
            calls(("email_customer", {"body": f"Your card {CARD} is saved."}), text="Sending."),
            AIMessage("Sent."),
        ]
    )
    if model_kind == "split":
        model: ScriptedModel = SplitArgumentsModel(messages=script)
    else:
        model = ScriptedModel(messages=script, disable_streaming=True)
    middleware = GovernanceMiddleware(governance().client(KEY), on_fix=on_fix)
    pairs = stream(middleware, agent_of(model, middleware, desk), user("Email me my card."))
    shown = ""
    for message, _ in pairs:
        assert CARD_DIGITS not in digits(repr(message))
        if isinstance(message, AIMessage):
            shown += "".join(
                chunk["args"] or "" for chunk in getattr(message, "tool_call_chunks", [])
            )
            shown += "".join(json.dumps(call["args"]) for call in message.tool_calls)
    assert CARD_DIGITS not in digits(shown)
    assert CARD_REPLACEMENT in shown
    if on_fix == "apply":
        assert desk.ran == [("email_customer", {"body": f"Your card {CARD_REPLACEMENT} is saved."})]
    else:
        assert desk.ran == []


def test_the_stream_takes_only_messages_mode() -> None:
    """The governed stream refuses another stream mode, which it could not hold back."""
    middleware = GovernanceMiddleware(governance().client(KEY))
    agent = agent_of(ScriptedModel(messages=iter([AIMessage("Hi.")])), middleware, Desk())
    with pytest.raises(TypeError, match="stream_mode"):
        next(middleware.stream(agent, user("Hi"), stream_mode="updates"))


# --- turns, sessions and replayed histories ---------------------------------------------------------


def test_a_replayed_history_records_no_turn_twice(run: Run) -> None:
    """Without a checkpointer the caller hands the history back each run: only new messages are
    recorded, also by a new middleware (another worker, or after a restart)."""
    gov = governance()
    client = gov.client(KEY)
    middleware = GovernanceMiddleware(client, "replayed")
    model = ScriptedModel(
        messages=iter(
            [
                calls(("lookup_order", {"order_id": "A1"})),
                AIMessage("It arrived yesterday."),
                AIMessage("You are welcome."),
                AIMessage("Goodbye."),
            ]
        )
    )
    agent = agent_of(model, middleware, Desk())
    first = run(agent, user("Where is order A1?"))
    # user, tool result and answer (the message that only calls the tool is no turn)
    assert client.get_conversation("replayed").turn_count == 3
    history = [*first["messages"], HumanMessage("Thanks!")]
    second = run(agent, {"messages": history})
    assert client.get_conversation("replayed").turn_count == 5
    restarted = GovernanceMiddleware(gov.client(KEY), "replayed")
    history = [*second["messages"], HumanMessage("Bye.")]
    run(agent_of(model, restarted, Desk()), {"messages": history})
    assert client.get_conversation("replayed").turn_count == 7


def test_a_thread_is_its_own_conversation(run: Run) -> None:
    """A run with a thread id is governed as the conversation of that id; its checkpointed
    history is recorded once across runs."""
    client = governance().client(KEY)
    middleware = GovernanceMiddleware(client)
    model = ScriptedModel(messages=iter([AIMessage("It arrived."), AIMessage("Welcome.")]))
    agent = agent_of(model, middleware, Desk(), checkpointer=InMemorySaver())
    run(agent, user("Where is order A1?"), thread("thread-1"))
    run(agent, user("Thanks!"), thread("thread-1"))
    assert client.get_conversation("thread-1").turn_count == 4
    assert middleware.conversation("thread-1").session_id == "thread-1"
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation(middleware.session_id)


def test_a_user_message_without_text_is_no_turn(run: Run) -> None:
    """A user message of only an image is not recorded (a turn needs text), and the run goes on."""
    client = governance().client(KEY)
    middleware = GovernanceMiddleware(client)
    model = ScriptedModel(messages=iter([AIMessage("A nice picture.")]))
    image = {"type": "image", "url": "https://example.com/parcel.png"}
    run(agent_of(model, middleware, Desk()), {"messages": [HumanMessage(content=[image])]})
    assert client.get_conversation(middleware.session_id).turn_count == 1  # the answer


def test_a_run_without_a_thread_uses_the_middlewares_session(run: Run) -> None:
    """Without a thread id the middleware's own session (given, or a new one) is used."""
    client = governance().client(KEY)
    middleware = GovernanceMiddleware(client)
    model = ScriptedModel(messages=iter([AIMessage("It arrived.")]))
    run(agent_of(model, middleware, Desk()), user("Where is order A1?"))
    assert client.get_conversation(middleware.session_id).turn_count == 2


def test_a_thread_dropped_from_memory_records_nothing_twice_when_it_returns(run: Run) -> None:
    """Beyond max_conversations the least recent thread is dropped from memory; when it comes
    back, the ids kept in the store keep its history from being recorded again."""
    client = governance().client(KEY)
    middleware = GovernanceMiddleware(client, max_conversations=1)
    model = ScriptedModel(
        messages=iter([AIMessage("One."), AIMessage("Two."), AIMessage("Three.")])
    )
    agent = agent_of(model, middleware, Desk(), checkpointer=InMemorySaver())
    run(agent, user("Where is order A1?"), thread("first"))
    remembered = middleware.conversation("first")
    run(agent, user("Where is order B2?"), thread("second"))
    assert middleware.conversation("first") is not remembered  # dropped, and made anew
    run(agent, user("Thanks!"), thread("first"))
    assert client.get_conversation("first").turn_count == 4


def test_the_ids_a_thread_remembers_are_bounded(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread remembers a bounded number of recorded ids; forgetting them records no turn
    twice, since the store keeps the ids."""
    from govcore.integrations import langchain as adapter

    monkeypatch.setattr(adapter, "MAX_REMEMBERED_IDS", 2)
    client = governance().client(KEY)
    middleware = GovernanceMiddleware(client)
    model = ScriptedModel(messages=iter([AIMessage(f"Answer {n}.") for n in range(4)]))
    agent = agent_of(model, middleware, Desk(), checkpointer=InMemorySaver())
    for n in range(4):
        run(agent, user(f"Question {n}?"), thread("long"))
    assert len(middleware._thread("long").recorded) == 2
    assert client.get_conversation("long").turn_count == 8


# --- when govcore cannot decide --------------------------------------------------------------------


def failing_after_first_turn() -> tuple[govcore.GovernanceClient, SwitchableStore]:
    store = SwitchableStore(FakeClock())
    return governance(store).client(KEY), store


def test_fail_closed_does_not_run_the_tool_nor_the_next_model_call(run: Run) -> None:
    """The store goes down during the model call: the tool is not run, and the next model call
    does not run without its policies."""
    client, store = failing_after_first_turn()
    desk = Desk()

    def script() -> Iterator[AIMessage]:
        store.down = True  # after the user turn was recorded, before the tool is gated
        yield calls(("lookup_order", {"order_id": "A1"}))
        yield AIMessage("never")

    model = ScriptedModel(messages=script())
    middleware = GovernanceMiddleware(client)
    with pytest.raises(GovernanceUnavailableError):
        run(agent_of(model, middleware, desk), user("Where is order A1?"))
    assert desk.ran == []
    assert len(model.requests) == 1


def test_a_store_down_when_the_answer_comes_costs_its_turn_not_its_check(run: Run) -> None:
    """The answer cannot be recorded, but its check needs no store: checked and redacted."""
    client, store = failing_after_first_turn()

    def script() -> Iterator[AIMessage]:
        store.down = True
        yield AIMessage(f"Your card {CARD} is on file.")

    middleware = GovernanceMiddleware(client)
    state = run(
        agent_of(ScriptedModel(messages=script()), middleware, Desk()),
        user("Which card do I pay with?"),
    )
    assert CARD_DIGITS not in digits(state["messages"][-1].text)
    assert CARD_REPLACEMENT in state["messages"][-1].text


def test_fail_closed_withholds_a_streamed_answer(stream: Stream) -> None:
    """A streamed answer that cannot be checked ends in the withheld notice, and no unchecked
    text reaches the caller."""
    client, store = failing_after_first_turn()

    def script() -> Iterator[AIMessage]:
        store.down = True
        yield AIMessage(FILLER * 4 + f"Your card {CARD} is on file.")

    middleware = GovernanceMiddleware(client, chunk_size=30)
    agent = agent_of(ScriptedModel(messages=script()), middleware, Desk())
    pairs = stream(middleware, agent, user("Which card do I pay with?"))
    assert answer_text(pairs) == WITHHELD_TEXT


def test_fail_open_lets_the_tool_and_the_answer_through(run: Run) -> None:
    """With fail="open" the tool runs with its own arguments and the answer is delivered."""
    client, store = failing_after_first_turn()
    desk = Desk()

    def script() -> Iterator[AIMessage]:
        store.down = True
        yield calls(("issue_refund", {"order_id": "A1", "amount": 900}))
        yield AIMessage("Refunded 900.")

    middleware = GovernanceMiddleware(client, fail="open")
    state = run(
        agent_of(ScriptedModel(messages=script()), middleware, desk),
        user("Refund order A1 please."),
    )
    assert desk.ran == [("issue_refund", {"order_id": "A1", "amount": 900})]
    assert state["messages"][-1].text == "Refunded 900."


def test_max_conversations_must_be_positive() -> None:
    """A middleware keeping no conversation is refused, naming the argument."""
    with pytest.raises(ValueError, match="max_conversations"):
        GovernanceMiddleware(governance().client(KEY), max_conversations=0)


def test_the_example_application_runs_offline(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/langchain_app.py runs with the fake model and no card number reaches its user."""
    example = Path(__file__).resolve().parents[2] / "examples" / "langchain_app.py"
    runpy.run_path(str(example), run_name="__main__")
    printed = capsys.readouterr().out
    said_to_user = [line for line in printed.splitlines() if "answer:" in line or "saw:" in line]
    assert len(said_to_user) == 2
    assert all(CARD_DIGITS not in digits(line) for line in said_to_user)
    assert all("[card number removed]" in line for line in said_to_user)  # the demo's wording
    assert "send_email ran with body: 'Your card [card number removed] is saved.'" in printed
    assert "5 turns recorded" in printed
