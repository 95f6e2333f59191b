"""The Pydantic AI capability, against Pydantic AI's own FunctionModel, offline.

Needs the ``govcore[pydantic-ai]`` extra; skipped without it, except in CI (``CI=true``), which
installs it, so that its absence there fails instead of passing silently.
"""

from __future__ import annotations

import asyncio
import datetime
import importlib
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from pydantic import BaseModel

if os.environ.get("CI", "").lower() == "true":
    importlib.import_module("pydantic_ai")  # CI installs the extra: missing is a failure
else:
    pytest.importorskip("pydantic_ai", reason="needs the extra: pip install 'govcore[pydantic-ai]'")

from pydantic_ai import Agent, AgentRunResult, ModelRequestNode
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_graph import End

import govcore
from govcore.integrations import WITHHELD_TEXT, GovernanceUnavailableError
from govcore.integrations.pydantic_ai import GovernanceCapability
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

PAY_PROMPT = "Can I pay for the order with my credit card number now?"
INSTRUCTIONS = "You are the support desk's agent."

ModelFunction = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def answer(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)])


def call(tool: str, **arguments: Any) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(tool, arguments)])


def steps(*responses: ModelResponse | Callable[[], ModelResponse]) -> ModelFunction:
    """A model that answers each request with the next response, and keeps what it was sent."""
    remaining = list(responses)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append((list(messages), info))
        step = remaining.pop(0)
        return step() if callable(step) else step

    sent: list[tuple[list[ModelMessage], AgentInfo]] = []
    model.sent = sent  # type: ignore[attr-defined]
    return model


class Desk:
    """A support-desk agent with tools that note each run, governed by ``capability``."""

    def __init__(self, model: FunctionModel, capability: GovernanceCapability) -> None:
        self.runs: list[tuple[str, dict[str, Any]]] = []
        self.agent = Agent(model, instructions=INSTRUCTIONS, capabilities=[capability])

        @self.agent.tool_plain
        def issue_refund(order: int, amount: float) -> str:
            self.runs.append(("issue_refund", {"order": order, "amount": amount}))
            return f"Refunded {amount} on order {order}."

        @self.agent.tool_plain
        def delete_account(customer: str) -> str:
            self.runs.append(("delete_account", {"customer": customer}))
            return "Deleted."

        @self.agent.tool_plain
        def card_on_file(customer: str) -> str:
            self.runs.append(("card_on_file", {"customer": customer}))
            return f"The card on file for {customer} is {CARD}."

        @self.agent.tool_plain
        def email_customer(body: str) -> str:
            self.runs.append(("email_customer", {"body": body}))
            return "Sent."


def desk(
    model: ModelFunction,
    client: Any = None,
    *,
    stream: Callable[..., AsyncIterator[Any]] | None = None,
    **options: Any,
) -> Desk:
    client = client if client is not None else governance().client(KEY)
    return Desk(
        FunctionModel(model, stream_function=stream), GovernanceCapability(client, **options)
    )


def run(agent: Agent[None, str], prompt: str, **options: Any) -> AgentRunResult[str]:
    """``agent.run`` in a loop of its own (``run_sync`` leaves its loop open, which
    the warnings-as-errors setting reports)."""
    return asyncio.run(agent.run(prompt, **options))


def tool_returns(messages: list[ModelMessage]) -> list[Any]:
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if getattr(part, "tool_name", None) is not None and not isinstance(part, ToolCallPart)
    ]


# --- the injection block -------------------------------------------------------------------------


def test_the_block_is_in_every_model_request() -> None:
    """Each model call, the first and the one after a tool, has the policies in its instructions."""
    model = steps(call("issue_refund", order=7, amount=20), answer("Done, refunded 20."))
    governed = desk(model)
    run(governed.agent, PAY_PROMPT)
    sent = model.sent  # type: ignore[attr-defined]
    assert len(sent) == 2
    for _, info in sent:
        assert info.instructions is not None
        assert info.instructions.startswith(INSTRUCTIONS)
        assert "PAY-1" in info.instructions


# --- tool calls ----------------------------------------------------------------------------------


def test_a_denied_tool_never_runs_and_the_model_reads_why() -> None:
    """A tool a policy denies is not run; the model's next request says which policy stopped it."""
    model = steps(call("delete_account", customer="c-9"), answer("I cannot do that."))
    governed = desk(model)
    result = run(governed.agent, "Please delete my account.")
    assert governed.runs == []
    returned = tool_returns(model.sent[1][0])  # type: ignore[attr-defined]
    assert len(returned) == 1
    assert "no-account-deletion" in returned[0].model_response_str()
    assert result.output == "I cannot do that."


def test_a_call_over_the_cap_runs_with_the_safer_arguments() -> None:
    """A refund above the cap runs with the suggested amount, converted by the tool's schema."""
    model = steps(call("issue_refund", order=7, amount=REFUND_CAP + 150), answer("Refunded."))
    governed = desk(model)
    run(governed.agent, "Refund my damaged order 7 please.")
    assert governed.runs == [("issue_refund", {"order": 7, "amount": REFUND_CAP})]


@pytest.mark.parametrize("reaction", ["block", "retry"])
def test_a_call_over_the_cap_is_not_run_when_asked(reaction: str) -> None:
    """With on_fix "block" or "retry" the call over the cap does not run; "retry" tells the model
    the amount that would pass, so its next call runs."""
    model = steps(
        call("issue_refund", order=7, amount=REFUND_CAP + 150),
        call("issue_refund", order=7, amount=REFUND_CAP),
        answer("Refunded."),
    )
    governed = desk(model, on_fix=reaction)
    run(governed.agent, "Refund my damaged order 7 please.")
    assert governed.runs == [("issue_refund", {"order": 7, "amount": REFUND_CAP})]
    (told,) = tool_returns(model.sent[1][0])  # type: ignore[attr-defined]
    assert "refund-cap" in told.model_response_str()
    # "retry" asks the model to call again (a retry prompt), "block" reports a failed call.
    assert told.outcome == ("retried" if reaction == "retry" else "failed")


def test_a_tool_result_with_a_card_number_is_redacted_before_the_model_sees_it() -> None:
    """What a tool returns is checked: the model (and the history) get the redaction."""
    model = steps(call("card_on_file", customer="c-9"), answer("It is on file."))
    governed = desk(model)
    result = run(governed.agent, "Which card do you have on file for me?")
    assert governed.runs == [("card_on_file", {"customer": "c-9"})]
    returned = tool_returns(model.sent[1][0])  # type: ignore[attr-defined]
    assert CARD_DIGITS not in digits(returned[0].model_response_str())
    assert CARD_REPLACEMENT in returned[0].model_response_str()
    assert CARD_DIGITS not in digits(str(result.all_messages()))


# --- the answer ----------------------------------------------------------------------------------


class Recorder:
    """Forwards to an asyncio client and notes each call that checks output."""

    def __init__(self, client: govcore.AsyncGovernanceClient) -> None:
        self._client = client
        self.checks: list[str] = []

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if name == "blocking":
            return target

        def forward(*args: Any, **kwargs: Any) -> Any:
            request = args[0] if args else None
            if name in ("post_inference", "finalize_output") or (
                name == "record_turn" and isinstance(request, dict) and request.get("checkOutput")
            ):
                self.checks.append(name)
            return target(*args, **kwargs)

        return forward


def test_the_answer_is_redacted_and_checked_once() -> None:
    """A card number in the answer is replaced in the output and the history, by one check."""
    recorder = Recorder(governance().client(KEY).aio)
    model = steps(answer(f"Your card {CARD} is saved."))
    governed = desk(model, recorder)
    result = run(governed.agent, PAY_PROMPT)
    assert CARD_DIGITS not in digits(result.output)
    assert CARD_REPLACEMENT in result.output
    assert CARD_DIGITS not in digits(str(result.all_messages()))
    assert recorder.checks == ["record_turn"]


def test_a_clean_answer_is_delivered_unchanged() -> None:
    """An answer no policy objects to reaches the caller as the model wrote it."""
    governed = desk(steps(answer("Your refund is on its way.")))
    assert run(governed.agent, "Where is my refund?").output == "Your refund is on its way."


class Receipt(BaseModel):
    """A structured answer: Pydantic AI asks for it through an output tool."""

    order: int
    note: str


def test_a_structured_answer_is_redacted_and_checked_once() -> None:
    """An output tool's arguments are the answer: checked once, the card number redacted in the
    typed output."""
    recorder = Recorder(governance().client(KEY).aio)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        (output_tool,) = info.output_tools
        return call(output_tool.name, order=7, note=f"Paid with {CARD}.")

    agent = Agent(
        FunctionModel(model),
        output_type=Receipt,
        capabilities=[GovernanceCapability(recorder)],  # type: ignore[arg-type]
    )
    result = asyncio.run(agent.run(PAY_PROMPT))
    assert result.output.order == 7
    assert CARD_DIGITS not in digits(result.output.note)
    assert CARD_REPLACEMENT in result.output.note
    assert CARD_DIGITS not in digits(str(result.all_messages()))
    assert recorder.checks == ["record_turn"]


def test_a_streamed_structured_answer_is_checked_before_the_caller_sees_it() -> None:
    """With run_stream, every partial output the caller sees is already redacted."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        (output_tool,) = info.output_tools
        arguments = '{"order": 7, "note": "Paid with ' + CARD + '."}'
        for start in range(0, len(arguments), 5):
            yield {
                0: DeltaToolCall(
                    name=output_tool.name if start == 0 else None,
                    json_args=arguments[start : start + 5],
                )
            }

    agent = Agent(
        FunctionModel(stream_function=stream),
        output_type=Receipt,
        capabilities=[GovernanceCapability(governance().client(KEY))],
    )

    async def scenario() -> None:
        async with agent.run_stream(PAY_PROMPT) as run:
            async for partial in run.stream_output(debounce_by=None):
                assert CARD_DIGITS not in digits(str(partial))
            output = await run.get_output()
        assert CARD_REPLACEMENT in output.note

    asyncio.run(scenario())


def test_answers_stamped_alike_are_each_checked() -> None:
    """A provider may stamp responses with its own clock (a second's resolution): two responses of
    a run with one timestamp are still two answers, each checked, and a replayed history of them
    records no turn twice."""
    stamp = datetime.datetime(2026, 11, 27, 12, 0, 0, tzinfo=datetime.UTC)
    first = ModelResponse(
        parts=[TextPart("Let me look that up."), ToolCallPart("card_on_file", {"customer": "c-9"})],
        timestamp=stamp,
    )
    second = ModelResponse(parts=[TextPart(f"Your card on file is {CARD}.")], timestamp=stamp)
    client = governance().client(KEY)
    governed = desk(steps(first, second, answer("Bye.")), client)
    result = run(governed.agent, "Which card do you have on file for me?")
    assert CARD_DIGITS not in digits(result.output)
    assert CARD_REPLACEMENT in result.output
    session = result.conversation_id
    assert client.get_conversation(session).turn_count == 4  # user, answer, tool, answer
    run(governed.agent, "Thanks!", message_history=result.all_messages())
    assert client.get_conversation(session).turn_count == 4 + 2


def test_only_the_answer_a_stream_delivered_skips_its_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """after_model_request skips the check of a streamed answer only when the response is what
    the stream delivered: a response that merely shares its message id is checked."""
    from govcore.integrations import pydantic_ai as adapter

    # Every response of a run gets one id, as two responses stamped alike did before ids counted
    # them: what the stream remembered must not stand for another response.
    monkeypatch.setattr(adapter, "_response_id", lambda run_id, *_: f"pydantic-ai:{run_id}")

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall(name="issue_refund", json_args='{"order": 7, "amount": 20}')}

    governed = desk(steps(answer(f"Your card {CARD} is saved.")), stream=stream)

    async def scenario() -> str:
        async with governed.agent.iter(PAY_PROMPT) as agent_run:
            node = agent_run.next_node
            streamed = False
            while not isinstance(node, End):
                if isinstance(node, ModelRequestNode) and not streamed:
                    async with node.stream(agent_run.ctx) as events:  # the first call streams
                        async for _ in events:
                            pass
                    streamed = True
                node = await agent_run.next(node)
            assert agent_run.result is not None
            return agent_run.result.output

    output = asyncio.run(scenario())
    assert governed.runs == [("issue_refund", {"order": 7, "amount": 20})]
    assert CARD_DIGITS not in digits(output)
    assert CARD_REPLACEMENT in output


# --- streams -------------------------------------------------------------------------------------

LEAD = "Thanks for waiting, I have looked at the order and everything is in place now. " * 4


def streamed(*pieces: str) -> Callable[..., AsyncIterator[str]]:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    return stream


def card_pieces(size: int) -> list[str]:
    text = f"{LEAD}The card you gave is {CARD} and it is saved. Anything else?"
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 7, 64, 1000])
def test_no_chunk_of_run_stream_holds_a_card_number(size: int) -> None:
    """Every chunk stream_text hands the caller is checked text; the card number never shows,
    whatever size the model's deltas are, and the streamed answer is checked by its stream only."""

    async def scenario() -> None:
        recorder = Recorder(governance().client(KEY).aio)
        governed = desk(steps(), recorder, stream=streamed(*card_pieces(size)))
        seen: list[str] = []
        async with governed.agent.run_stream(PAY_PROMPT) as run:
            async for chunk in run.stream_text(delta=True, debounce_by=None):
                assert CARD_DIGITS not in digits(chunk)
                seen.append(chunk)
            output = await run.get_output()
        whole = "".join(seen)
        assert CARD_DIGITS not in digits(whole)
        assert CARD_REPLACEMENT in whole
        assert whole.startswith(LEAD)
        assert output == whole
        assert recorder.checks == ["finalize_output"]

    asyncio.run(scenario())


def test_no_event_of_a_streamed_run_holds_a_card_number() -> None:
    """The events of run_stream_events (what a UI streams) carry checked text only, and the tool
    call streamed before the answer still runs."""

    async def scenario() -> None:
        tool_then_answer = [
            {0: DeltaToolCall(name="issue_refund", json_args='{"order": 7, "amount": 20}')},
            None,
        ]

        async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
            if tool_then_answer[0] is not None:
                yield tool_then_answer.pop(0)
                return
            for piece in card_pieces(5):
                yield piece

        governed = desk(steps(), stream=stream)
        texts: list[str] = []
        async with governed.agent.run_stream_events(PAY_PROMPT) as events:
            async for event in events:
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    texts.append(event.part.content)
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    texts.append(event.delta.content_delta)
        assert texts
        for text in texts:
            assert CARD_DIGITS not in digits(text)
        assert CARD_REPLACEMENT in "".join(texts)
        assert governed.runs == [("issue_refund", {"order": 7, "amount": 20})]

    asyncio.run(scenario())


@pytest.mark.parametrize("reaction", ["apply", "block"])
def test_no_event_shows_the_arguments_of_a_proposed_call_unchecked(reaction: str) -> None:
    """A streamed tool call reaches the caller with its arguments checked (the card number
    redacted), in its events and in the history; the tool gate still decides on the arguments the
    model proposed: "apply" runs the call with the safer ones, "block" does not run it."""
    proposed = {"body": f"Your card {CARD} is saved."}
    script: list[Any] = [
        {0: DeltaToolCall(name="email_customer", json_args=json.dumps(proposed))},
        "Done.",
    ]

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield script.pop(0)

    async def scenario() -> list[Any]:
        governed = desk(steps(), stream=stream, on_fix=reaction)
        seen: list[Any] = []
        async with governed.agent.run_stream_events(PAY_PROMPT) as events:
            async for event in events:
                assert CARD_DIGITS not in digits(repr(event))
                seen.append(event)
        shown = [
            event.part
            for event in seen
            if isinstance(event, PartStartEvent) and isinstance(event.part, ToolCallPart)
        ]
        assert [part.args_as_dict() for part in shown] == [
            {"body": f"Your card {CARD_REPLACEMENT} is saved."}
        ]
        return governed.runs

    runs = asyncio.run(scenario())
    if reaction == "apply":
        assert runs == [("email_customer", {"body": f"Your card {CARD_REPLACEMENT} is saved."})]
    else:
        assert runs == []


def test_what_a_conversation_remembers_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ids a conversation remembers are capped; forgetting one records no turn twice (the
    store keeps the ids), it only costs a call."""
    from govcore.integrations import pydantic_ai as adapter

    monkeypatch.setattr(adapter, "MAX_REMEMBERED", 2)
    client = governance().client(KEY)
    capability = GovernanceCapability(client, session_id="bounded")
    agent = Desk(FunctionModel(steps(*(answer(f"Answer {n}.") for n in range(4)))), capability)
    history: list[ModelMessage] = []
    for n in range(4):
        history = run(agent.agent, f"Question {n}?", message_history=history).all_messages()
    assert len(capability._state("bounded").recorded) == 2
    assert client.get_conversation("bounded").turn_count == 8


# --- turns, once each ----------------------------------------------------------------------------


def test_a_replayed_history_records_no_turn_twice() -> None:
    """A history handed to the next run, in this process or another worker's, adds only its new
    turns: user, tool and assistant turns are each recorded once."""
    gov = governance()
    client = gov.client(KEY)
    first = desk(
        steps(call("issue_refund", order=7, amount=20), answer("Refunded 20."), answer("Bye.")),
        client,
    )
    result = run(first.agent, "Refund my damaged order 7 please.")
    session = result.conversation_id
    assert client.get_conversation(session).turn_count == 3  # user, tool, assistant

    again = run(first.agent, "Thanks!", message_history=result.all_messages())
    assert again.conversation_id == session
    assert client.get_conversation(session).turn_count == 3 + 0 + 2

    # Another worker, with a capability of its own, replays the whole history once more.
    other = desk(steps(answer("Bye.")), gov.client(KEY))
    run(other.agent, "Bye", message_history=again.all_messages())
    assert client.get_conversation(session).turn_count == 5 + 2


class CountingClient:
    """Forwards to the asyncio client, noting each method called and its keywords."""

    def __init__(self, client: govcore.AsyncGovernanceClient) -> None:
        self._client = client
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, kwargs))
            return await target(*args, **kwargs)

        return counted


def test_a_tool_result_is_checked_and_recorded_in_one_request() -> None:
    """A tool call costs two govcore requests, the gate and one that checks the result and
    records the tool turn; the next model call finds that turn recorded and adds nothing."""
    client = governance().client(KEY)
    counting = CountingClient(client.aio)
    governed = desk(
        steps(call("issue_refund", order=7, amount=20), answer("Refunded 20.")),
        counting,
    )
    result = run(governed.agent, "Refund my damaged order 7 please.")
    names = [name for name, _ in counting.calls]
    assert names.count("gate_tool_call") == 1
    assert "check_tool_result" not in names
    tool_turns = [kwargs for name, kwargs in counting.calls if kwargs.get("tool_name")]
    assert len(tool_turns) == 1
    assert tool_turns[0]["check_result"] is True
    assert client.get_conversation(result.conversation_id).turn_count == 3  # user, tool, answer


def test_a_fixed_session_id_governs_every_run_as_one_conversation() -> None:
    """With session_id, runs without a shared history still add to one govcore conversation."""
    client = governance().client(KEY)
    governed = desk(steps(answer("Hello."), answer("Hi again.")), client, session_id="desk-42")
    run(governed.agent, "Hello")
    run(governed.agent, "Hello again")
    assert client.get_conversation("desk-42").turn_count == 4


# --- failing closed, or open ---------------------------------------------------------------------


def switchable() -> tuple[SwitchableStore, Any]:
    store = SwitchableStore(FakeClock())
    gov = govcore.Governance.from_config(
        __import__("tests.integrations.support", fromlist=["config"]).config(),
        clock=store._clock,  # type: ignore[attr-defined]
        store=store,
    )
    return store, gov.client(KEY)


def going_down(store: SwitchableStore, response: ModelResponse) -> Callable[[], ModelResponse]:
    """A model step that takes govcore's store down just before answering."""

    def step() -> ModelResponse:
        store.down = True
        return response

    return step


def test_fail_closed_blocks_the_tool_and_stops_the_next_model_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """govcore down: the tool call is not run, and the run stops before a model call whose
    policies could not be recorded."""
    store, client = switchable()
    model = steps(going_down(store, call("issue_refund", order=7, amount=20)), answer("Done."))
    governed = desk(model, client)
    with (
        caplog.at_level(logging.WARNING, logger="govcore.integrations"),
        pytest.raises(GovernanceUnavailableError),
    ):
        run(governed.agent, "Refund my damaged order 7 please.")
    assert governed.runs == []
    assert len(model.sent) == 1  # type: ignore[attr-defined]
    assert any("blocked" in record.getMessage() for record in caplog.records)


def test_a_store_down_when_the_answer_comes_costs_its_turn_not_its_check() -> None:
    """The store down when the answer comes: the answer cannot be recorded, but its check
    needs no store, so the caller gets it checked and redacted, not withheld."""
    store, client = switchable()
    governed = desk(steps(going_down(store, answer(f"Your card {CARD} is saved."))), client)
    result = run(governed.agent, PAY_PROMPT)
    assert CARD_DIGITS not in digits(result.output)
    assert CARD_REPLACEMENT in result.output


def test_fail_closed_withholds_the_rest_of_a_stream() -> None:
    """govcore down during a stream: what was checked stays delivered, the rest is withheld."""

    async def scenario() -> None:
        store, client = switchable()
        pieces = card_pieces(40)

        async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
            for index, piece in enumerate(pieces):
                if index == len(pieces) // 2:
                    store.down = True
                yield piece

        governed = desk(steps(), client, stream=stream)
        seen: list[str] = []
        async with governed.agent.run_stream(PAY_PROMPT) as run:
            async for chunk in run.stream_text(delta=True, debounce_by=None):
                seen.append(chunk)
        assert CARD_DIGITS not in digits("".join(seen))
        assert seen[-1] == WITHHELD_TEXT

    asyncio.run(scenario())


def test_fail_open_runs_the_tool_and_delivers_the_answer(caplog: pytest.LogCaptureFixture) -> None:
    """fail="open": govcore down, the tool runs and the answer is delivered, each logged."""
    store, client = switchable()
    model = steps(going_down(store, call("issue_refund", order=7, amount=20)), answer("Done."))
    governed = desk(model, client, fail="open")
    with caplog.at_level(logging.WARNING, logger="govcore.integrations"):
        result = run(governed.agent, "Refund my damaged order 7 please.")
    assert governed.runs == [("issue_refund", {"order": 7, "amount": 20})]
    assert result.output == "Done."
    assert caplog.records
    assert all("fail open" in record.getMessage() for record in caplog.records)


def test_a_caller_error_is_raised() -> None:
    """A key that may not check output is a configuration bug: raised, not ridden out."""
    from tests.integrations.support import NO_TOOLS_KEY

    governed = desk(steps(answer("Hello.")), governance().client(NO_TOOLS_KEY))
    with pytest.raises(govcore.PermissionDeniedError):
        run(governed.agent, "Hello")
