"""The LiteLLM adapter (``govcore.integrations.litellm``) against LiteLLM's own test models.

Two of them, both offline: a scripted model registered as a LiteLLM custom provider (a
``CustomLLM``, which receives exactly the request LiteLLM would send a provider, so the tests can
read what the model was given), and LiteLLM's ``mock_response=`` for streams. The adapter is
exercised on both LiteLLM paths: ``litellm.acompletion`` governed by the callback's hooks, and
sync ``completion()`` through the callback's governed wrapper.

Without the extra (``pip install 'govcore[litellm]'``) the module skips, except in CI
(``CI=true``), where it fails instead.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import runpy
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of the cost map

if importlib.util.find_spec("litellm") is None:  # pragma: no cover - depends on the extras
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("the LiteLLM tests cannot run in CI: install govcore[litellm]", pytrace=False)
    pytest.skip("needs the govcore[litellm] extra", allow_module_level=True)

import litellm
from litellm import CustomLLM
from litellm.integrations.custom_logger import CustomLogger

import govcore
from govcore.errors import InvalidRequestError
from govcore.integrations import WITHHELD_TEXT, GovernanceUnavailableError
from govcore.integrations.litellm import GovernanceCallback, message_ids
from govcore.testing import FakeClock
from tests.integrations import support
from tests.integrations.support import CARD, CARD_REPLACEMENT, KEY, REFUND_CAP, SwitchableStore

CARD_DIGITS = ("4111", "1111")
MODEL = "scripted/support-bot"
SEEN_CARD = "I'd like to pay by card for order A-1."
"""A user turn that makes the card-data policy applicable, so the block is not empty."""

# LiteLLM's types make pydantic warn about their ReadOnly TypedDict items; nothing of ours.
pytestmark = pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")


def tool_call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


class ScriptedModel(CustomLLM):
    """A LiteLLM custom provider that answers from a script and keeps every request it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[list[dict[str, Any]]] = []
        self.script: list[tuple[str, list[dict[str, Any]] | None]] = []
        self.after_answer: Callable[[], None] | None = None

    def says(self, text: str = "", *calls: dict[str, Any]) -> ScriptedModel:
        self.script.append((text, list(calls) or None))
        return self

    def _answer(self, messages: list[Any]) -> Any:
        self.requests.append([_plain(message) for message in messages])
        text, calls = self.script.pop(0)
        response = litellm.mock_completion(
            model=MODEL, messages=messages, mock_response=text, mock_tool_calls=calls
        )
        if self.after_answer is not None:
            self.after_answer()
        return response

    def completion(self, *args: Any, **kwargs: Any) -> Any:
        return self._answer(kwargs["messages"])

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        return self._answer(kwargs["messages"])


class SentMessages(CustomLogger):
    """The messages of each call as LiteLLM hands them to the model (here: to its mock)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[dict[str, Any]]] = []

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        self.calls.append([_plain(message) for message in messages])


def _plain(message: Any) -> dict[str, Any]:
    return dict(message) if isinstance(message, dict) else message.model_dump(exclude_none=True)


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    scripted = ScriptedModel()
    saved = litellm.custom_provider_map
    litellm.custom_provider_map = [{"provider": "scripted", "custom_handler": scripted}]
    try:
        yield scripted
    finally:
        litellm.custom_provider_map = saved


@pytest.fixture
def client() -> govcore.GovernanceClient:
    return support.governance().client(KEY)


@pytest.fixture
def sent() -> SentMessages:
    return SentMessages()


@pytest.fixture
def callback(client: govcore.GovernanceClient, sent: SentMessages) -> Iterator[GovernanceCallback]:
    governed = GovernanceCallback(client, "conv-litellm")
    saved = list(litellm.callbacks)
    litellm.callbacks = [governed, sent]
    try:
        yield governed
    finally:
        litellm.callbacks = saved


def system_text(request: list[dict[str, Any]]) -> str:
    assert request[0]["role"] == "system", request
    content = request[0]["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


# --- the injection block ---------------------------------------------------------------------


def test_block_is_in_every_model_request_of_a_sync_tool_loop(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """Sync completion() through the wrapper: each model call's instructions carry the block."""
    model.says("", tool_call("c1", "lookup_order", order="A-1")).says("It ships today.")
    messages: list[Any] = [
        {"role": "system", "content": "You are the shop's assistant."},
        {"role": "user", "content": SEEN_CARD},
    ]
    tools = {"lookup_order": lambda order: {"order": order, "status": "packed"}}
    response = callback.completion(model=MODEL, messages=messages)
    messages += [response.choices[0].message, *callback.run_tools(response, tools)]
    final = callback.completion(model=MODEL, messages=messages)

    block = callback.conversation().injection_block
    assert "PAY-1" in block
    assert len(model.requests) == 2
    for request in model.requests:
        assert system_text(request).startswith("You are the shop's assistant.")
        assert block in system_text(request)
    assert final.choices[0].message.content == "It ships today."
    assert messages[0]["content"] == "You are the shop's assistant."  # the caller's list as it was


def test_block_is_in_every_model_request_of_an_async_tool_loop(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """litellm.acompletion governed by the hooks: a system message with the block is added."""
    model.says("", tool_call("c1", "lookup_order", order="A-1")).says("It ships today.")

    async def run() -> None:
        messages: list[Any] = [{"role": "user", "content": SEEN_CARD}]
        response = await litellm.acompletion(
            model=MODEL, messages=messages, litellm_session_id="conv-async"
        )
        tools = {"lookup_order": lambda order: "packed"}
        messages += [
            response.choices[0].message,
            *await callback.arun_tools(response, tools, session_id="conv-async"),
        ]
        await litellm.acompletion(model=MODEL, messages=messages, litellm_session_id="conv-async")

    asyncio.run(run())
    block = callback.conversation("conv-async").injection_block
    assert "PAY-1" in block
    assert len(model.requests) == 2
    for request in model.requests:
        assert system_text(request) == block


# --- tool calls ------------------------------------------------------------------------------


def test_a_denied_tool_never_runs_and_the_model_reads_why(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """A tool that a policy denies does not run; its tool message is the gate's message."""
    model.says("", tool_call("c1", "delete_account", customer="C-7"))
    ran: list[str] = []
    response = callback.completion(
        model=MODEL, messages=[{"role": "user", "content": "Delete my account"}]
    )
    replies = callback.run_tools(
        response, {"delete_account": lambda customer: ran.append(customer)}
    )

    gate = callback.tool_gate(response.choices[0].message.tool_calls[0])
    assert gate is not None
    assert gate.action == "block"
    assert ran == []
    assert replies == [
        {"role": "tool", "tool_call_id": "c1", "name": "delete_account", "content": gate.message}
    ]
    assert gate.message
    assert "delete_account" in gate.message


def test_a_modified_call_runs_with_the_safer_arguments(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """A refund over the limit runs at the limit, and the response's call says so too."""
    model.says("", tool_call("c1", "issue_refund", order="A-1", amount=900))
    refunds: list[tuple[str, float]] = []
    response = callback.completion(
        model=MODEL, messages=[{"role": "user", "content": "Refund order A-1 please"}]
    )
    callback.run_tools(
        response, {"issue_refund": lambda order, amount: refunds.append((order, amount))}
    )

    assert refunds == [("A-1", REFUND_CAP)]
    call = response.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"order": "A-1", "amount": REFUND_CAP}
    gate = callback.tool_gate(call)
    assert gate is not None
    assert gate.action == "modify"


def test_a_tool_result_is_checked_before_the_model_reads_it(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """A card number in a tool's result is redacted in the tool message and the next request."""
    model.says("", tool_call("c1", "lookup_payment", order="A-1")).says("Paid by card.")
    messages: list[Any] = [{"role": "user", "content": "How did I pay for A-1?"}]
    response = callback.completion(model=MODEL, messages=messages)
    replies = callback.run_tools(
        response, {"lookup_payment": lambda order: f"visa {CARD}, settled"}
    )
    messages += [response.choices[0].message, *replies]
    callback.completion(model=MODEL, messages=messages)

    assert CARD_REPLACEMENT in replies[0]["content"]
    assert all(CARD not in str(message) for message in model.requests[1])


def test_a_raw_tool_result_in_the_history_is_redacted_in_the_request(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """A tool result the application ran itself is checked by the hook and redacted in the
    request the model gets; the application's history keeps what it had."""
    model.says("Done.")
    history: list[Any] = [
        {"role": "user", "content": "Read me my payment method"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call("c9", "read_card")]},
        {"role": "tool", "tool_call_id": "c9", "content": f"card {CARD}"},
    ]
    asyncio.run(litellm.acompletion(model=MODEL, messages=history))

    tool_message = model.requests[0][-1]
    assert tool_message["role"] == "tool"
    assert CARD not in tool_message["content"]
    assert CARD_REPLACEMENT in tool_message["content"]
    assert history[2]["content"] == f"card {CARD}"


# --- answers ---------------------------------------------------------------------------------


def test_the_final_answer_is_redacted_on_the_sync_path(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """Sync completion() (which runs no LiteLLM hook) returns the redacted answer."""
    model.says(f"Your card {CARD} is on file.")
    response = callback.completion(model=MODEL, messages=[{"role": "user", "content": "Card?"}])
    assert response.choices[0].message.content == f"Your card {CARD_REPLACEMENT} is on file."


def test_the_final_answer_is_redacted_on_the_async_path(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """litellm.acompletion: the post-call hook replaces the answer with the redaction."""
    model.says(f"Your card {CARD} is on file.")
    response = asyncio.run(
        litellm.acompletion(model=MODEL, messages=[{"role": "user", "content": "Card?"}])
    )
    assert response.choices[0].message.content == f"Your card {CARD_REPLACEMENT} is on file."


def test_a_clean_answer_is_delivered_unchanged(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """An answer without violations passes through as the model wrote it."""
    model.says("Returns are free within 30 days.")
    response = callback.completion(model=MODEL, messages=[{"role": "user", "content": "Returns?"}])
    assert response.choices[0].message.content == "Returns are free within 30 days."


# --- streams ---------------------------------------------------------------------------------

STREAMED = "Thanks for waiting. " * 15 + f"The card on file is {CARD}. " + "Anything else? " * 15


def assert_no_card_in_any_chunk(chunks: list[Any]) -> str:
    """Every chunk the caller sees, and everything seen so far, is free of the card number."""
    seen = ""
    for chunk in chunks:
        text = chunk.choices[0].delta.content or ""
        seen += text
        assert CARD_DIGITS[0] not in text
        assert CARD not in seen
    return seen


def test_no_unchecked_text_reaches_a_sync_stream(
    callback: GovernanceCallback, sent: SentMessages
) -> None:
    """completion(stream=True) through the wrapper: no chunk carries the card; the text
    delivered is the redaction, and the request had the block."""
    stream = callback.completion(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Which card do I use?"}],
        mock_response=STREAMED,
        stream=True,
    )
    chunks = list(stream)
    delivered = assert_no_card_in_any_chunk(chunks)
    assert delivered == STREAMED.replace(CARD, CARD_REPLACEMENT)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert callback.conversation().injection_block in system_text(sent.calls[-1])


def test_no_unchecked_text_reaches_an_async_stream(callback: GovernanceCallback) -> None:
    """acompletion(stream=True) through the wrapper: the same, on the asyncio path."""

    async def run() -> list[Any]:
        stream = await callback.acompletion(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Which card do I use?"}],
            mock_response=STREAMED,
            stream=True,
        )
        return [chunk async for chunk in stream]

    chunks = asyncio.run(run())
    delivered = assert_no_card_in_any_chunk(chunks)
    assert delivered == STREAMED.replace(CARD, CARD_REPLACEMENT)


def test_a_streamed_tool_call_is_held_to_the_end_and_gated(callback: GovernanceCallback) -> None:
    """Tool-call deltas reach the caller only in the closing chunk, with the safer arguments."""
    proposed = litellm.mock_completion(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Refund A-1"}],
        mock_response="Refunding now.",
        mock_tool_calls=[tool_call("c1", "issue_refund", order="A-1", amount=900)],
    )
    chunks = list(
        callback.completion(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Refund A-1"}],
            mock_response=proposed,
            stream=True,
        )
    )

    with_calls = [chunk for chunk in chunks if chunk.choices[0].delta.tool_calls]
    assert with_calls == [chunks[-1]]
    (call,) = chunks[-1].choices[0].delta.tool_calls
    assert json.loads(call.function.arguments) == {"order": "A-1", "amount": REFUND_CAP}
    gate = callback.tool_gate(call)
    assert gate is not None
    assert gate.action == "modify"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def streamed_tool_calls(governed: GovernanceCallback, *calls: dict[str, Any]) -> list[Any]:
    """Every chunk a caller gets of a governed sync stream whose model proposes ``calls``
    after some text."""
    proposed = litellm.mock_completion(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Email me my card"}],
        mock_response="Sending it now.",
        mock_tool_calls=list(calls),
    )
    return list(
        governed.completion(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Email me my card"}],
            mock_response=proposed,
            stream=True,
        )
    )


@pytest.mark.parametrize("on_fix", ["apply", "block", "retry"])
def test_no_chunk_of_a_stream_carries_a_card_number_a_tool_call_proposed(
    client: govcore.GovernanceClient, on_fix: govcore.FixReaction
) -> None:
    """send_email(body=<card>) in a stream: whatever the gate does with it (safer arguments, or
    a block), no chunk the caller sees carries the card number, in any field."""
    governed = GovernanceCallback(client, on_fix=on_fix)
    chunks = streamed_tool_calls(
        governed, tool_call("c1", "send_email", to="ada@example.com", body=f"card {CARD}")
    )

    assert chunks
    for chunk in chunks:
        assert CARD_DIGITS[0] not in chunk.model_dump_json()
    (call,) = chunks[-1].choices[0].delta.tool_calls
    gate = governed.tool_gate(call)
    assert gate is not None
    if on_fix == "apply":
        assert gate.action == "modify"
        assert json.loads(call.function.arguments) == {
            "to": "ada@example.com",
            "body": f"card {CARD_REPLACEMENT}",
        }
    else:
        assert gate.action == "block"
        assert json.loads(call.function.arguments) == {}
        assert gate.message


def test_a_blocked_call_of_a_stream_keeps_its_id_and_does_not_run(
    callback: GovernanceCallback,
) -> None:
    """The closing chunk names a blocked call (no arguments), so the application's tool loop
    answers it with the gate's message and the tool does not run."""
    chunks = streamed_tool_calls(callback, tool_call("c1", "delete_account", customer="C-7"))
    (call,) = chunks[-1].choices[0].delta.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == ("c1", "delete_account", "{}")
    ran: list[str] = []
    response = SimpleNamespace(
        choices=[SimpleNamespace(message=SimpleNamespace(tool_calls=[call]))]
    )
    replies = callback.run_tools(response, {"delete_account": lambda **kw: ran.append("ran")})
    gate = callback.tool_gate(call)
    assert gate is not None
    assert ran == []
    assert replies[0]["content"] == gate.message


def test_a_blocked_call_of_a_response_carries_no_proposed_arguments(
    client: govcore.GovernanceClient, model: ScriptedModel
) -> None:
    """Without a stream too: the response the caller gets (and puts in its history) does not
    carry the arguments the gate refused."""
    governed = GovernanceCallback(client, on_fix="block")
    model.says("", tool_call("c1", "send_email", to="ada@example.com", body=f"card {CARD}"))
    response = governed.completion(model=MODEL, messages=[{"role": "user", "content": "Email"}])
    assert CARD_DIGITS[0] not in response.model_dump_json()
    gate = governed.tool_gate(response.choices[0].message.tool_calls[0])
    assert gate is not None
    assert gate.action == "block"


def test_a_stream_straight_from_litellm_is_refused(callback: GovernanceCallback) -> None:
    """A stream asked of litellm.acompletion directly, which no hook can hold back, is refused
    before the model is called."""
    with pytest.raises(InvalidRequestError, match=r"GovernanceCallback\.acompletion"):
        asyncio.run(
            litellm.acompletion(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": "hi"}],
                mock_response="hello",
                stream=True,
            )
        )


# --- turns -----------------------------------------------------------------------------------


def test_a_replayed_history_records_no_turn_twice(
    client: govcore.GovernanceClient, callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """Sending the whole history on every call, and again through a new callback (another
    worker), records each user, assistant and tool turn once."""
    model.says("", tool_call("c1", "lookup_order", order="A-1")).says("It ships today.")
    messages: list[Any] = [{"role": "user", "content": "Where is my order A-1?"}]
    response = callback.completion(model=MODEL, messages=messages)
    messages += [
        response.choices[0].message,
        *callback.run_tools(response, {"lookup_order": lambda order: "packed"}),
    ]
    final = callback.completion(model=MODEL, messages=messages)
    messages.append(final.choices[0].message)
    # user, tool result, answer: the assistant message with only a tool call is no turn
    recorded = client.get_conversation("conv-litellm").turn_count
    assert recorded == 3

    other_worker = GovernanceCallback(client, "conv-litellm")
    model.says("You're welcome.")
    replay = [*messages, {"role": "user", "content": "Thanks!"}]
    asyncio.run(other_worker.acompletion(model=MODEL, messages=replay))
    assert client.get_conversation("conv-litellm").turn_count == recorded + 2


def test_the_ids_kept_per_conversation_are_bounded_and_forgetting_records_nothing_twice(
    client: govcore.GovernanceClient, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long conversation does not grow the callback's memory without end: it keeps the
    latest ids only. A forgotten id sent again in the history is recognised by the store."""
    import govcore.integrations.litellm as adapter

    monkeypatch.setattr(adapter, "MAX_IDS_PER_CONVERSATION", 3)
    callback = GovernanceCallback(client, "conv-litellm")
    messages: list[Any] = []
    for question in ("Hi", "Where is A-1?", "And A-2?", "Thanks"):
        model.says(f"Answer to: {question}")
        messages.append({"role": "user", "content": question})
        messages.append(callback.completion(model=MODEL, messages=messages).choices[0].message)
    assert client.get_conversation("conv-litellm").turn_count == 8
    assert len(callback._session(None).recorded) == 3

    model.says("Bye.")
    callback.completion(model=MODEL, messages=[*messages, {"role": "user", "content": "Bye"}])
    assert client.get_conversation("conv-litellm").turn_count == 10
    assert len(callback._session(None).recorded) == 3


def test_a_model_call_costs_two_govcore_calls(model: ScriptedModel) -> None:
    """Per model call with a text answer: the new user turn recorded and the answer checked
    once (which records it); the history sent again costs nothing more."""
    counting = support.CountingClient(support.governance().client(KEY))
    governed = GovernanceCallback(counting)
    model.says("Hello!").says("It ships today.")
    messages: list[Any] = [{"role": "user", "content": "Hi"}]
    messages.append(governed.completion(model=MODEL, messages=messages).choices[0].message)
    messages.append({"role": "user", "content": "Where is A-1?"})
    governed.completion(model=MODEL, messages=messages)
    assert counting.calls == {"record_turn": 4}


def test_message_ids_are_stable_and_tell_repeats_apart() -> None:
    """The same history gives the same ids; a repeated message gets the next id."""
    history = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "yes"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "yes"},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    ids = message_ids(history)
    assert ids == message_ids([dict(message) for message in history])
    assert ids[0] is None
    assert ids[1] != ids[3]
    assert ids[4] == "tool:c1"


_ROLE_MESSAGES = st.one_of(
    st.builds(lambda text: {"role": "user", "content": text}, st.sampled_from(["yes", "no", "hi"])),
    st.builds(lambda text: {"role": "assistant", "content": text}, st.sampled_from(["ok", ""])),
    st.builds(
        lambda call: {"role": "tool", "tool_call_id": call, "content": "done"},
        st.sampled_from(["c1", "c2", "c3"]),
    ),
    st.just({"role": "system", "content": "be brief"}),
)


@given(st.lists(_ROLE_MESSAGES, max_size=12), st.integers(min_value=0, max_value=12))
def test_a_history_keeps_its_ids_when_it_grows(history: list[dict[str, Any]], cut: int) -> None:
    """The ids of a history's first messages do not change when messages are appended: what was
    recorded is recognised when the longer history is sent."""
    assert message_ids(history)[:cut] == message_ids(history[:cut])


def test_arguments_that_are_not_json_block_the_call(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """A call whose arguments cannot be read cannot be checked: it is blocked, the model told."""
    broken = {
        "id": "c1",
        "type": "function",
        "function": {"name": "lookup_order", "arguments": "{"},
    }
    model.says("", broken)
    ran: list[str] = []
    response = callback.completion(model=MODEL, messages=[{"role": "user", "content": "A-1?"}])
    replies = callback.run_tools(response, {"lookup_order": lambda **kwargs: ran.append("ran")})
    assert ran == []
    assert "not a JSON object" in replies[0]["content"]


def test_an_async_tool_is_refused_by_the_sync_tool_loop(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """run_tools cannot await: a coroutine tool is a TypeError naming arun_tools."""
    model.says("", tool_call("c1", "lookup_payment", order="A-1"))

    async def lookup_payment(order: str) -> str:
        return "visa"

    response = callback.completion(model=MODEL, messages=[{"role": "user", "content": "Paid?"}])
    with pytest.raises(TypeError, match="arun_tools"):
        callback.run_tools(response, {"lookup_payment": lookup_payment})


def test_an_async_tool_runs_through_arun_tools(
    callback: GovernanceCallback, model: ScriptedModel
) -> None:
    """arun_tools awaits a coroutine tool and checks its result."""
    model.says("", tool_call("c1", "lookup_payment", order="A-1"))

    async def lookup_payment(order: str) -> str:
        return f"visa {CARD}"

    async def run() -> list[dict[str, Any]]:
        response = await litellm.acompletion(
            model=MODEL, messages=[{"role": "user", "content": "How did I pay?"}]
        )
        return await callback.arun_tools(response, {"lookup_payment": lookup_payment})

    (reply,) = asyncio.run(run())
    assert reply["content"] == f"visa {CARD_REPLACEMENT}"


# --- fail closed and open --------------------------------------------------------------------


def fallible(store_down: bool = False) -> tuple[govcore.GovernanceClient, SwitchableStore]:
    store = SwitchableStore(FakeClock())
    client = support.governance(store).client(KEY)
    store.down = store_down
    return client, store


def test_fail_closed_refuses_the_model_call_when_turns_cannot_be_recorded(
    model: ScriptedModel,
) -> None:
    """With the store down no model call runs: the wrapper raises before calling the model."""
    client, _ = fallible(store_down=True)
    governed = GovernanceCallback(client)
    model.says("never sent")
    with pytest.raises(GovernanceUnavailableError):
        governed.completion(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    assert model.requests == []


def test_fail_closed_blocks_the_tool_and_checks_the_answer(model: ScriptedModel) -> None:
    """The store goes down while the model answers: the tool call is blocked (it never runs:
    its gate reads the conversation) and the answer, whose check needs no store, is delivered
    checked and redacted."""
    client, store = fallible()
    governed = GovernanceCallback(client)
    model.says(f"Card {CARD}", tool_call("c1", "lookup_order", order="A-1"))
    model.after_answer = lambda: setattr(store, "down", True)
    ran: list[str] = []
    response = governed.completion(model=MODEL, messages=[{"role": "user", "content": "A-1?"}])
    replies = governed.run_tools(response, {"lookup_order": lambda order: ran.append(order)})

    assert ran == []
    assert response.choices[0].message.content == f"Card {CARD_REPLACEMENT}"
    gate = governed.tool_gate(response.choices[0].message.tool_calls[0])
    assert gate is not None
    assert gate.action == "block"
    assert replies[0]["content"] == gate.message
    assert response.choices[0].message.tool_calls[0].function.arguments == "{}"


def test_fail_open_lets_the_model_call_and_the_answer_through(model: ScriptedModel) -> None:
    """fail='open': with the store down the call runs and the answer is delivered as written."""
    client, _ = fallible(store_down=True)
    governed = GovernanceCallback(client, fail="open")
    model.says("All good.")
    response = governed.completion(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    assert response.choices[0].message.content == "All good."
    assert len(model.requests) == 1


def test_an_error_in_the_post_call_hook_withholds_the_answer(
    callback: GovernanceCallback, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM returns a response unchanged when a post-call hook raises; the hook therefore
    withholds the answer itself when checking it fails unexpectedly."""
    conversation = callback.conversation()

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in a check")

    monkeypatch.setattr(conversation, "acheck_answer", broken)
    model.says(f"Your card {CARD} is on file.")
    response = asyncio.run(
        litellm.acompletion(model=MODEL, messages=[{"role": "user", "content": "Card?"}])
    )
    assert response.choices[0].message.content == WITHHELD_TEXT


def test_the_example_runs_offline_and_shows_no_card_number(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """examples/litellm_app.py runs in-process; what it prints holds no card number."""
    example = Path(__file__).resolve().parents[2] / "examples" / "litellm_app.py"
    saved = (list(litellm.callbacks), litellm.custom_provider_map)
    try:
        runpy.run_path(str(example), run_name="__main__")
    finally:
        litellm.callbacks, litellm.custom_provider_map = saved
    printed = capsys.readouterr().out
    assert "the email call was gated: modify" in printed
    assert CARD_REPLACEMENT in printed
    assert CARD not in printed
