"""Governance for LangChain agents: an ``AgentMiddleware`` for ``create_agent``, and a stream.

Install with ``pip install 'govcore[langchain]'`` (LangChain 1.5 and LangGraph 1.2 or later).
The user's code::

    governance = GovernanceMiddleware(gov.client(API_KEY))
    agent = create_agent(model, tools, middleware=[governance])
    result = agent.invoke({"messages": [{"role": "user", "content": text}]}, config)
    for chunk, metadata in governance.stream(agent, inputs, config):   # held back until checked
        show(chunk.text)

What each hook of the middleware governs (``invoke`` and ``ainvoke`` alike, one implementation):

- ``wrap_model_call``, before each model call: every message of the request that this
  conversation has not recorded yet is recorded by its own message id (user, assistant and tool
  turns; a replayed history records nothing twice), and the conversation's injection block is
  added to the system message. After the call, the text of each answer is checked once and
  replaced by what may be delivered (unchanged, redacted, or withheld), then recorded.
- ``wrap_tool_call``, before each tool runs: the call is gated; it runs with the original or
  the safer arguments, or is not run and the model reads why (``on_fix`` chooses). The tool's
  result is checked and redacted before the model or the caller sees it, and recorded.

``stream_mode="messages"`` hands the caller a model's tokens as they are generated, before any
middleware has seen the answer: :meth:`GovernanceMiddleware.stream` (and ``astream``) yields
the same ``(message chunk, metadata)`` pairs but holds back every assistant text until a check
has covered it, and ends each answer with the remainder of the text that may be delivered, then
its proposed tool calls with their arguments checked (the call itself is gated on the arguments
the model proposed).

The conversation is the run's LangGraph ``thread_id`` when the run has one (given in
``config["configurable"]``), otherwise the middleware's own session. By default governance
fails closed: when govcore cannot decide, the tool is not run, the answer is withheld, and no
model call runs without its policies (``fail="open"`` lets them through); either way one log
line on the ``govcore.integrations`` logger says what happened.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, ParamSpec, TypeVar

from langchain.agents.middleware import (
    AgentMiddleware,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call, tool_call_chunk
from langgraph.config import get_config
from langgraph.types import Command

from govcore.integrations import GovernanceUnavailableError, GovernedConversation

if TYPE_CHECKING:
    import logging

    from govcore import FixReaction, ToolGate
    from govcore.client import AsyncGovernanceClient, GovernanceClient
    from govcore.integrations import CheckedText

__all__ = ["GovernanceMiddleware"]

T = TypeVar("T")
P = ParamSpec("P")

DEFAULT_MAX_CONVERSATIONS = 1024
"""Conversations (LangGraph threads) whose state one middleware keeps in memory, least recently
used first out; a thread that comes back after being dropped finds its turns in the store."""

MAX_REMEMBERED_IDS = 4096
"""Message ids one conversation remembers as recorded, the least recently added dropped first,
so that a long thread does not grow the process without bound. Forgetting one is safe: the store
keeps the authoritative ids, and a forgotten message costs one record call that records nothing."""


# --- one implementation for blocking and asyncio code ------------------------------------------
#
# Each hook is written once, as a generator that yields the calls it needs (a governance call,
# or the framework's handler) and receives their results. `_run` performs those calls blocking,
# `_arun` awaits them: LangChain calls `wrap_*` from `invoke` and `awrap_*` from `ainvoke`, and
# both drive the same generator, so the two paths cannot drift apart.


@dataclass(frozen=True, slots=True)
class _Govern(Generic[T]):
    """A call of the conversation, in its blocking and its awaited form."""

    blocking: Callable[[], T]
    awaited: Callable[[], Awaitable[T]]


@dataclass(frozen=True, slots=True)
class _Handle:
    """A call of the framework's handler (the model or the tool) with ``request``."""

    request: Any


_Plan = Generator["_Govern[Any] | _Handle", Any, T]


def _govern(
    blocking: Callable[P, T], awaited: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs
) -> _Govern[T]:
    """The step calling ``blocking`` or ``awaited`` (the same method's two forms) with the same
    arguments."""
    return _Govern(lambda: blocking(*args, **kwargs), lambda: awaited(*args, **kwargs))


def _run(plan: _Plan[T], handler: Callable[[Any], Any] | None = None) -> T:
    """Carry out ``plan`` with blocking calls; an error of a step is raised inside the plan."""
    value: Any = None
    error: Exception | None = None
    while True:
        try:
            step = plan.send(value) if error is None else plan.throw(error)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]  # the plan's declared result
        value, error = None, None
        try:
            if isinstance(step, _Handle):
                assert handler is not None, "a plan without a handler asked for one"
                value = handler(step.request)
            else:
                value = step.blocking()
        except Exception as exc:
            error = exc


async def _arun(plan: _Plan[T], handler: Callable[[Any], Awaitable[Any]] | None = None) -> T:
    """Carry out ``plan``, awaiting every call."""
    value: Any = None
    error: Exception | None = None
    while True:
        try:
            step = plan.send(value) if error is None else plan.throw(error)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]  # the plan's declared result
        value, error = None, None
        try:
            if isinstance(step, _Handle):
                assert handler is not None, "a plan without a handler asked for one"
                value = await handler(step.request)
            else:
                value = await step.awaited()
        except Exception as exc:
            error = exc


# --- conversations, one per LangGraph thread ----------------------------------------------------


@dataclass
class _Thread:
    """What the middleware keeps about one conversation."""

    conversation: GovernedConversation
    recorded: OrderedDict[str, None] = field(default_factory=OrderedDict)
    """Ids (as keys) of the messages recorded (or found already recorded) through this
    middleware, at most :data:`MAX_REMEMBERED_IDS`: the store de-duplicates by message id too,
    this only saves it the calls."""

    def record(self, message_id: str) -> None:
        self.recorded[message_id] = None
        self.recorded.move_to_end(message_id)
        while len(self.recorded) > MAX_REMEMBERED_IDS:
            self.recorded.popitem(last=False)


def _thread_id(runtime: Any) -> str | None:
    """The run's LangGraph thread id: LangGraph reports it with a checkpointer; without one, a
    ``thread_id`` the caller put in ``config["configurable"]`` still names the conversation."""
    info = getattr(runtime, "execution_info", None)
    thread_id = getattr(info, "thread_id", None)
    if thread_id is not None:
        return str(thread_id)
    config = getattr(runtime, "config", None)  # a tool's runtime carries the run's config
    if config is None:
        try:
            config = get_config()
        except RuntimeError:  # outside a LangGraph run: no thread
            return None
    return _configured_thread_id(config)


def _configured_thread_id(config: Mapping[str, Any] | None) -> str | None:
    configurable = (config or {}).get("configurable") or {}
    thread_id = configurable.get("thread_id")
    return None if thread_id is None else str(thread_id)


class GovernanceMiddleware(AgentMiddleware):  # type: ignore[misc]  # LangChain's base is untyped to mypy here
    """Governs a ``create_agent`` agent: turns, instructions, tool calls, tool results, answers.

    Args:
        client: the typed client (:meth:`govcore.Governance.client`); its key needs
            ``tool_call_governance`` and ``post_inference_checking`` allowed. A blocking or an
            asyncio client serves both ``invoke`` and ``ainvoke``.
        session_id: the session of runs without a LangGraph ``thread_id`` (a new one when
            None). A run with a ``thread_id`` is governed as the conversation of that name.
        on_fix: what a tool call with a ``fix`` violation does: ``"apply"`` runs it with the
            safer arguments (when they pass), ``"block"`` does not run it, ``"retry"`` does
            not run it and tells the model the safer arguments.
        fail: ``"closed"`` (default) or ``"open"``: what happens when govcore cannot decide.
        token_budget, attributes, policy_area_ids, context_turns, chunk_size, logger: passed to
            each :class:`~govcore.integrations.GovernedConversation`.
        max_conversations: conversations kept in memory, least recently used dropped first.
    """

    def __init__(
        self,
        client: GovernanceClient | AsyncGovernanceClient,
        session_id: str | None = None,
        *,
        on_fix: FixReaction = "apply",
        fail: Literal["closed", "open"] = "closed",
        token_budget: int | None = None,
        attributes: Mapping[str, Any] | None = None,
        policy_area_ids: Sequence[str] | None = None,
        context_turns: int = 2,
        chunk_size: int = 200,
        logger: logging.Logger | None = None,
        max_conversations: int = DEFAULT_MAX_CONVERSATIONS,
    ) -> None:
        super().__init__()
        if max_conversations < 1:
            raise ValueError("max_conversations must be at least 1")
        self._client = client
        self._options: dict[str, Any] = {
            "on_fix": on_fix,
            "fail": fail,
            "token_budget": token_budget,
            "attributes": attributes,
            "policy_area_ids": policy_area_ids,
            "context_turns": context_turns,
            "chunk_size": chunk_size,
            "logger": logger,
        }
        self._default = _Thread(GovernedConversation(client, session_id, **self._options))
        self._threads: OrderedDict[str, _Thread] = OrderedDict()
        self._max_conversations = max_conversations
        self._lock = threading.Lock()

    @property
    def session_id(self) -> str:
        """The session of runs without a ``thread_id``."""
        return self._default.conversation.session_id

    def conversation(self, thread_id: str | None = None) -> GovernedConversation:
        """The governed conversation of ``thread_id`` (the middleware's own when None)."""
        return self._thread(thread_id).conversation

    def _thread(self, thread_id: str | None) -> _Thread:
        if thread_id is None:
            return self._default
        with self._lock:
            thread = self._threads.get(thread_id)
            if thread is None:
                thread = _Thread(GovernedConversation(self._client, thread_id, **self._options))
                self._threads[thread_id] = thread
                if len(self._threads) > self._max_conversations:
                    self._threads.popitem(last=False)
            else:
                self._threads.move_to_end(thread_id)
            return thread

    # --- the hooks: LangChain calls wrap_* from invoke/stream, awrap_* from ainvoke/astream ----

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse | AIMessage | ExtendedModelResponse:
        """Record the new turns, instruct, call the model, check and record its answer."""
        return _run(self._model_call(request), handler)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse | AIMessage | ExtendedModelResponse:
        """:meth:`wrap_model_call` for ``ainvoke`` and ``astream``."""
        return await _arun(self._model_call(request), handler)

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Gate the call, run the tool (or not), check and record its result."""
        return _run(self._tool_call(request), handler)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """:meth:`wrap_tool_call` for ``ainvoke`` and ``astream``."""
        return await _arun(self._tool_call(request), handler)

    # --- the plans ------------------------------------------------------------------------------

    def _model_call(self, request: ModelRequest) -> _Plan[ModelResponse | AIMessage]:
        thread = self._thread(_thread_id(request.runtime))
        yield from _record_history(thread, request.messages)
        block = thread.conversation.injection_block
        if block:
            request = request.override(system_message=_instructed(request.system_message, block))
        response = yield _Handle(request)
        if isinstance(response, AIMessage):  # an inner middleware may answer with the message
            return (yield from _checked_answer(thread, response))
        messages = []
        for message in response.result:
            if isinstance(message, AIMessage):
                message = yield from _checked_answer(thread, message)
            messages.append(message)
        return ModelResponse(result=messages, structured_response=response.structured_response)

    def _tool_call(self, request: ToolCallRequest) -> _Plan[ToolMessage | Command[Any]]:
        thread = self._thread(_thread_id(request.runtime))
        conversation = thread.conversation
        call = request.tool_call
        name = call["name"]
        call_id = call.get("id")
        gate: ToolGate = yield _govern(
            conversation.gate_tool, conversation.agate_tool, name, call["args"]
        )
        if not gate.runs:
            # The tool does not run; the model reads why, as the result of its call.
            blocked = ToolMessage(
                content=gate.message or f"The call of {name} was not run.",
                tool_call_id=call_id or "",
                name=name,
                status="error",
                id=str(uuid.uuid4()),
            )
            yield from _record_tool_message(thread, blocked)
            return blocked
        if gate.action == "modify":
            request = request.override(tool_call={**call, "args": gate.arguments})
        result = yield _Handle(request)
        if isinstance(result, ToolMessage):
            return (yield from _checked_tool_message(thread, result))
        if isinstance(result, Command) and isinstance(result.update, dict):
            # A tool may answer with a Command whose update carries its ToolMessage.
            update = dict(result.update)
            messages = update.get("messages")
            if isinstance(messages, list):
                checked: list[Any] = []
                for message in messages:
                    if isinstance(message, ToolMessage):
                        message = yield from _checked_tool_message(thread, message)
                    checked.append(message)
                update["messages"] = checked
                return dataclasses.replace(result, update=update)
        return result

    # --- the governed stream --------------------------------------------------------------------

    def stream(
        self,
        agent: Any,
        inputs: Any,
        config: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[tuple[BaseMessage, dict[str, Any]]]:
        """``agent.stream(inputs, config, stream_mode="messages")``, with every assistant text
        held back until a check has covered it.

        Yields the same ``(message chunk, metadata)`` pairs. An answer's text comes in pieces
        that checks have cleared, and ends with the rest of what may be delivered (redacted, or
        withheld when govcore cannot decide and the middleware fails closed). Tool messages pass
        as they are: the middleware checked them before LangGraph emitted them.

        Args:
            agent: an agent of ``create_agent`` with this middleware among its middleware.
            inputs, config, kwargs: as for ``agent.stream`` (``stream_mode`` is "messages").
        """
        _refuse_stream_options(kwargs)
        conversation = self._thread(_configured_thread_id(config)).conversation
        events = _Lookahead(iter(agent.stream(inputs, config, stream_mode="messages", **kwargs)))
        for message, metadata in events:
            answer = _Answer.starting(message, metadata)
            if answer is None:
                yield message, metadata
                continue
            deltas = answer.deltas(events)
            first = next(deltas, None)
            if first is None:  # no text (only tool calls, say): no answer to check
                yield from answer.delivered(iter(()), deltas, conversation)
                continue
            pieces = conversation.stream(
                itertools.chain([first], deltas), message_id=answer.message_id
            )
            yield from answer.delivered(pieces, deltas, conversation)

    async def astream(
        self,
        agent: Any,
        inputs: Any,
        config: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[tuple[BaseMessage, dict[str, Any]]]:
        """:meth:`stream` over ``agent.astream``."""
        _refuse_stream_options(kwargs)
        conversation = self._thread(_configured_thread_id(config)).conversation
        events = _AsyncLookahead(
            aiter(agent.astream(inputs, config, stream_mode="messages", **kwargs))
        )
        async for message, metadata in events:
            answer = _Answer.starting(message, metadata)
            if answer is None:
                yield message, metadata
                continue
            deltas = answer.adeltas(events)
            first = await anext(deltas, None)
            if first is None:  # no text (only tool calls, say): no answer to check
                async for pair in answer.adelivered(_nothing(), deltas, conversation):
                    yield pair
                continue
            pieces = conversation.astream(_prepended(first, deltas), message_id=answer.message_id)
            async for pair in answer.adelivered(pieces, deltas, conversation):
                yield pair


# --- the plans' parts ------------------------------------------------------------------------


def _record_history(thread: _Thread, messages: Sequence[BaseMessage]) -> _Plan[None]:
    """Record, in order, every message of the request that was not recorded yet (by id).

    A run with a checkpointer hands the model the thread's whole history, a run without one the
    history its caller passed in: either way the messages' ids say what was recorded before,
    here or (the store keeps the ids) in another worker.
    """
    conversation = thread.conversation
    for message in messages:
        message_id = message.id
        if message_id is None or message_id in thread.recorded:
            continue
        if isinstance(message, HumanMessage):
            if not message.text.strip():  # only images or files: no text for a turn
                thread.record(message_id)
                continue
            yield _govern(
                conversation.record_user,
                conversation.arecord_user,
                message.text,
                message_id=message_id,
            )
        elif isinstance(message, ToolMessage):
            yield _govern(
                conversation.record_tool_result,
                conversation.arecord_tool_result,
                message.name or "tool",
                message.content,
                call_id=message.tool_call_id,
                message_id=message_id,
            )
        elif isinstance(message, AIMessage):
            # Empty for an answer that only calls tools: those calls are gated one by one.
            yield _govern(
                conversation.record_assistant,
                conversation.arecord_assistant,
                message.text,
                message_id=message_id,
            )
        thread.record(message_id)


def _checked_answer(thread: _Thread, message: AIMessage) -> _Plan[AIMessage]:
    """The answer with its text replaced by what may be delivered (checked once, and recorded
    as the assistant's turn by the check)."""
    text = message.text
    if not text:
        return message
    conversation = thread.conversation
    checked: CheckedText = yield _govern(
        conversation.check_answer, conversation.acheck_answer, text, message_id=message.id
    )
    if checked.verdict is not None and message.id is not None:
        # Recorded by the check. Without a verdict govcore could not decide, and the turn is
        # left to the next model call's history, which records it or fails closed.
        thread.record(message.id)
    if checked.changed:
        message = message.model_copy(update={"content": checked.text})
    return message


def _checked_tool_message(thread: _Thread, message: ToolMessage) -> _Plan[ToolMessage]:
    """A tool's result checked as output and recorded (one request), given an id, redacted."""
    conversation = thread.conversation
    if message.id is None:
        # Given here rather than by LangGraph's reducer later, so that the turn recorded now
        # carries the id the thread's history shows when it is replayed. (The message is the
        # tool's own new object; a redacted copy keeps it. LangGraph assigns ids the same way.)
        message.id = str(uuid.uuid4())
    checked: CheckedText = yield _govern(
        conversation.check_and_record_tool_result,
        conversation.acheck_and_record_tool_result,
        message.name or "tool",
        message.content,
        call_id=message.tool_call_id,
        message_id=message.id,
    )
    if checked.changed:
        message = message.model_copy(update={"content": checked.text})
    if checked.recorded:
        thread.record(message.id)
    # Otherwise (the turn could not be recorded, or nothing to record) it is left to the next
    # model call's history, which records it or fails closed before that call runs.
    return message


def _record_tool_message(thread: _Thread, message: ToolMessage) -> _Plan[None]:
    """Record a tool message (checked, or the notice of a blocked call) as a tool turn.

    When govcore cannot record it, the run goes on: the result was checked, which is what
    protects the user, and the next model call's history records the turn or fails closed
    before that call runs.
    """
    conversation = thread.conversation
    message_id = message.id
    assert message_id is not None, "tool messages are given an id before they are recorded"
    try:
        yield _govern(
            conversation.record_tool_result,
            conversation.arecord_tool_result,
            message.name or "tool",
            message.content,
            call_id=message.tool_call_id,
            message_id=message_id,
        )
    except GovernanceUnavailableError:
        return
    thread.record(message_id)


def _instructed(system: SystemMessage | None, block: str) -> SystemMessage:
    """The system message with the injection block after the agent's own instructions."""
    if system is None:
        return SystemMessage(content=block)
    if isinstance(system.content, str):
        text = f"{system.content}\n\n{block}" if system.content else block
        return system.model_copy(update={"content": text})
    # Content blocks (with cache-control marks, say) stay as they are; the block comes last.
    return system.model_copy(update={"content": [*system.content, {"type": "text", "text": block}]})


# --- the stream's parts -------------------------------------------------------------------------


def _refuse_stream_options(kwargs: Mapping[str, Any]) -> None:
    for name in ("stream_mode", "subgraphs"):
        if name in kwargs:
            raise TypeError(
                f"the governed stream does not take {name!r}: it streams the agent's "
                '(message, metadata) pairs of stream_mode="messages"'
            )


async def _prepended(first: str, rest: AsyncIterator[str]) -> AsyncIterator[str]:
    yield first
    async for item in rest:
        yield item


async def _nothing() -> AsyncIterator[str]:
    return
    yield  # an async generator that yields nothing


def _shown_arguments(
    conversation: GovernedConversation, name: str, arguments: str, call_id: str | None
) -> _Plan[str]:
    """The arguments of a proposed tool call as a streaming caller may see them: checked by the
    output rule, like a tool's result (redacted when a policy says so; the withheld notice when
    govcore cannot decide and the middleware fails closed).

    JSON arguments are checked as JSON without escapes, so that a card number written with
    ``\\u`` escapes is read as the digits the caller would decode. The call itself is gated on
    the arguments the model proposed (LangGraph's state keeps them), before it runs.
    """
    try:
        decoded = json.loads(arguments)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        arguments = json.dumps(decoded, ensure_ascii=False)
    checked: CheckedText = yield _govern(
        conversation.check_tool_result,
        conversation.acheck_tool_result,
        name or "tool",
        arguments,
        call_id=f"{call_id}:arguments" if call_id else "arguments",
    )
    return checked.text


class _Lookahead(Iterator[T]):
    """An iterator that can show its next item without taking it."""

    def __init__(self, source: Iterator[T]) -> None:
        self._source = source
        self._next: list[T] = []

    def __next__(self) -> T:
        return self._next.pop() if self._next else next(self._source)

    def peek(self) -> T | None:
        if not self._next:
            try:
                self._next.append(next(self._source))
            except StopIteration:
                return None
        return self._next[0]


class _AsyncLookahead(AsyncIterator[T]):
    """:class:`_Lookahead` for an async iterator."""

    def __init__(self, source: AsyncIterator[T]) -> None:
        self._source = source
        self._next: list[T] = []

    async def __anext__(self) -> T:
        return self._next.pop() if self._next else await anext(self._source)

    async def peek(self) -> T | None:
        if not self._next:
            try:
                self._next.append(await anext(self._source))
            except StopAsyncIteration:
                return None
        return self._next[0]


_Pair = tuple[BaseMessage, dict[str, Any]]


class _Answer:
    """One assistant message in the stream: its text goes through the conversation's held-back
    stream; its tool calls pass after it, their arguments checked (gathered from the chunks first:
    a card number may be split across two of them), then what else its chunks carry (usage, the
    end mark).

    LangGraph streams a model's chunks one after another, so the message's chunks are those that
    follow with the same id; its last chunk carries ``chunk_position="last"``. A model that does
    not stream gives one whole ``AIMessage``, delivered whole once checked.
    """

    def __init__(self, message: AIMessage, metadata: dict[str, Any]) -> None:
        self.first = message
        self.metadata = metadata
        self.message_id = message.id
        self.ended = False
        self.trailing: list[_Pair] = []
        # The proposed calls by their position (a chunk's index), their arguments' text joined.
        self.calls: dict[Any, dict[str, Any]] = {}

    @classmethod
    def starting(cls, message: BaseMessage, metadata: dict[str, Any]) -> _Answer | None:
        """The answer ``message`` starts, or None when it is not an assistant's message."""
        if not isinstance(message, AIMessage):
            return None
        return cls(message, metadata)

    def _take(self, message: AIMessage, metadata: dict[str, Any]) -> str:
        """The text of one of the answer's chunks; keeps what else it carries for later."""
        if not isinstance(message, AIMessageChunk) or message.chunk_position == "last":
            self.ended = True
        if isinstance(message, AIMessageChunk):
            for chunk in message.tool_call_chunks:
                self._gather(chunk["index"], chunk["name"], chunk["args"], chunk["id"])
            if message.usage_metadata or message.chunk_position:
                self.trailing.append((_without_calls(message), metadata))
        else:
            for call in message.tool_calls:
                self._gather(None, call["name"], json.dumps(call["args"]), call["id"])
            for invalid in message.invalid_tool_calls:
                self._gather(None, invalid["name"], invalid["args"], invalid["id"])
        text: str = message.text
        return text

    def _gather(self, index: Any, name: str | None, args: str | None, call_id: str | None) -> None:
        """Add a tool call's chunk, merged as LangChain merges chunks: by index, the name and id
        from the first chunk that has them, the arguments' text joined."""
        key = index if index is not None else ("position", len(self.calls))
        call = self.calls.setdefault(key, {"index": index, "name": None, "id": None, "args": ""})
        call["name"] = call["name"] or name
        call["id"] = call["id"] or call_id
        call["args"] += args or ""

    def _shown_calls(self, conversation: GovernedConversation) -> _Plan[list[dict[str, Any]]]:
        """The proposed calls with their arguments as the caller may see them."""
        shown = []
        for call in self.calls.values():
            arguments = yield from _shown_arguments(
                conversation, call["name"], call["args"], call["id"]
            )
            shown.append({**call, "args": arguments})
        return shown

    def _closing(self, shown: list[dict[str, Any]]) -> list[_Pair]:
        """What follows a streamed answer's text: one chunk of its checked calls, then the rest."""
        if not shown:
            return self.trailing
        chunks = [
            tool_call_chunk(
                name=call["name"], args=call["args"], id=call["id"], index=call["index"]
            )
            for call in shown
        ]
        calls = AIMessageChunk(content="", id=self.message_id, tool_call_chunks=chunks)
        return [(calls, self.metadata), *self.trailing]

    def _continues(self, pair: Any) -> bool:
        if self.ended or pair is None:
            return False
        message = pair[0]
        return isinstance(message, AIMessageChunk) and message.id == self.message_id

    def deltas(self, events: _Lookahead[Any]) -> Iterator[str]:
        """The answer's text deltas, taking its chunks from ``events``."""
        text = self._take(self.first, self.metadata)
        if text:
            yield text
        while self._continues(events.peek()):
            message, metadata = next(events)
            text = self._take(message, metadata)
            if text:
                yield text

    async def adeltas(self, events: _AsyncLookahead[Any]) -> AsyncIterator[str]:
        """:meth:`deltas` from an async stream."""
        text = self._take(self.first, self.metadata)
        if text:
            yield text
        while self._continues(await events.peek()):
            message, metadata = await anext(events)
            text = self._take(message, metadata)
            if text:
                yield text

    def _piece(self, text: str) -> _Pair:
        return AIMessageChunk(content=text, id=self.message_id), self.metadata

    def _whole(self, text: str, shown: list[dict[str, Any]]) -> list[_Pair]:
        """A whole (not streamed) message, its text and its calls' arguments checked; nothing
        when it has neither."""
        if not text and not shown:
            return []
        calls, invalid = [], []
        for call in shown:
            try:
                arguments = json.loads(call["args"])
            except ValueError:
                arguments = None
            if isinstance(arguments, dict):
                calls.append(tool_call(name=call["name"], args=arguments, id=call["id"]))
            else:  # withheld, or a redaction that broke the JSON: shown as LangChain shows those
                invalid.append(
                    invalid_tool_call(
                        name=call["name"], args=call["args"], id=call["id"], error="not JSON"
                    )
                )
        update: dict[str, Any] = {
            "content": text,
            "tool_calls": calls,
            "invalid_tool_calls": invalid,
        }
        if self.first.additional_kwargs:
            update["additional_kwargs"] = _without_raw_calls(self.first.additional_kwargs)
        return [(self.first.model_copy(update=update), self.metadata)]

    def delivered(
        self, pieces: Iterator[str], deltas: Iterator[str], conversation: GovernedConversation
    ) -> Iterator[_Pair]:
        """What the caller receives: the checked pieces, then the proposed calls with their
        arguments checked, then the chunks' other contents.

        When govcore fails mid-answer the held-back stream stops taking ``deltas``: the rest of
        the answer's chunks are taken here (their text withheld, or passed on by the stream
        when it fails open), so that they do not start an answer of their own.
        """
        streamed = isinstance(self.first, AIMessageChunk)
        text = ""
        for piece in pieces:
            if streamed:
                yield self._piece(piece)
            else:
                text += piece
        for _ in deltas:
            pass
        shown = _run(self._shown_calls(conversation))
        yield from self._closing(shown) if streamed else self._whole(text, shown)

    async def adelivered(
        self,
        pieces: AsyncIterator[str],
        deltas: AsyncIterator[str],
        conversation: GovernedConversation,
    ) -> AsyncIterator[_Pair]:
        """:meth:`delivered` from an async stream of pieces."""
        streamed = isinstance(self.first, AIMessageChunk)
        text = ""
        async for piece in pieces:
            if streamed:
                yield self._piece(piece)
            else:
                text += piece
        async for _ in deltas:
            pass
        shown = await _arun(self._shown_calls(conversation))
        for pair in self._closing(shown) if streamed else self._whole(text, shown):
            yield pair


def _without_raw_calls(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A message's provider fields without the raw form of its tool calls (which some providers
    keep there beside LangChain's own)."""
    return {
        key: value for key, value in kwargs.items() if key not in ("tool_calls", "function_call")
    }


def _without_calls(message: AIMessageChunk) -> AIMessageChunk:
    """A chunk with neither text nor tool calls: what else it carries (usage, the end mark)."""
    return message.model_copy(
        update={
            "content": "",
            "tool_call_chunks": [],
            "tool_calls": [],
            "invalid_tool_calls": [],
            "additional_kwargs": _without_raw_calls(message.additional_kwargs),
        }
    )
