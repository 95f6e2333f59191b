"""Governance for LiteLLM: a callback for ``acompletion``, a governed ``completion`` for sync code.

The user's code (``client`` is a :class:`~govcore.GovernanceClient`)::

    governance = GovernanceCallback(client)                        # a litellm CustomLogger
    litellm.callbacks.append(governance)                           # acompletion is governed
    response = governance.completion(model=model, messages=messages,
                                     litellm_session_id="conv-42")  # sync (and streams)
    messages.append(response.choices[0].message)
    messages += governance.run_tools(response, {"issue_refund": issue_refund})

What each part governs:

- ``async_pre_call_deployment_hook`` (every ``litellm.acompletion`` once the callback is in
  ``litellm.callbacks``): the messages of the request not yet recorded are recorded (user and
  assistant turns, tool results after they are checked and, if need be, redacted in the request),
  and the conversation's injection block is put into the system message of the request that goes
  to the model. The caller's own list of messages is never changed.
- ``async_post_call_success_deployment_hook``: each tool call in the response is gated (safer
  arguments written into the call; the :class:`~govcore.ToolGate` kept for :meth:`tool_gate` and
  :meth:`run_tools`), and the answer is checked once (which records it as the assistant's turn)
  and replaced by the text to deliver.
- :meth:`GovernanceCallback.completion`: LiteLLM's sync ``completion()`` runs no deployment hook
  and no other hook that can change a request or a response (its logging hooks swallow errors and
  see a copy), so sync code calls through this wrapper, which does the same as the two hooks.
- Streams (``stream=True`` through :meth:`~GovernanceCallback.completion` or
  :meth:`~GovernanceCallback.acompletion`): text is held back until a check has covered it
  (:class:`~govcore.StreamGuard` with hold-back); tool-call deltas are held to the end, gated, and
  sent in one last chunk. A stream asked of ``litellm.acompletion`` directly is refused by the
  pre-call hook: LiteLLM's per-chunk hook lets a chunk through unchanged whenever the hook fails,
  and is not called on every streaming path, so it cannot promise that text is held back.
- :meth:`~GovernanceCallback.run_tools` / :meth:`~GovernanceCallback.arun_tools`: the
  application's tool loop, gate first: a blocked call does not run and the model reads why; a
  modified call runs with the safer arguments; each result is checked before the model sees it.

The conversation of a request is named by LiteLLM's own ``litellm_session_id``; a request without
one belongs to the callback's default conversation (``session_id``, a new id when not given).
Messages in the OpenAI format carry no ids, so each turn's id is derived from the history
(:func:`message_ids`): a tool result's from its ``tool_call_id``, a user message's from its text
and how many identical user messages came before it, an assistant message's from the turn it
follows. A replayed history therefore records no turn twice, also across workers and restarts
(the ids are kept in the store with the conversation).

Fail closed (the default): when governance cannot decide, no model call runs (the pre-call hook
raises :class:`~govcore.integrations.GovernanceUnavailableError`), tool calls are blocked and
answers withheld. LiteLLM ignores errors raised by a post-call hook and returns the response as it
was, so the post-call hook never raises: anything that goes wrong there withholds the answer and
blocks every tool call of the response.
"""

from __future__ import annotations

import contextvars
import importlib
import inspect
import json
import logging
from collections import Counter, OrderedDict
from collections.abc import (
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

import xxhash

from govcore import FixReaction, ToolGate
from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.errors import InvalidRequestError
from govcore.integrations._recent import Recent, RecentIds
from govcore.integrations.base import (
    WITHHELD_TEXT,
    CheckedText,
    GovernanceUnavailableError,
    GovernedConversation,
)

__all__ = ["GovernanceCallback", "message_ids"]

T = TypeVar("T")
V = TypeVar("V")

MAX_CONVERSATIONS = 10_000
"""Conversations whose adapter state (ids recorded, checked tool results) a callback keeps in
memory; the least recently used beyond it are forgotten. What is forgotten is only a cache: the
store keeps the recorded ids, so a forgotten conversation records nothing twice."""
MAX_GATES = 10_000
"""Tool gates kept for :meth:`GovernanceCallback.tool_gate`, the oldest forgotten first."""
MAX_IDS_PER_CONVERSATION = 4_096
"""Turn ids recorded, and checked tool results, a callback keeps per conversation; the oldest
forgotten first. Forgetting is safe: the store keeps the recorded ids (the latest
``message_ids_per_conversation``), so a forgotten id that comes back costs a round trip, not a
turn recorded twice; a forgotten tool result is checked again, to the same text. And a history
of more than 4,096 messages no longer fits a model's context: the front has been trimmed, and
its ids never come back."""
BLOCKED_ARGUMENTS = "{}"
"""The arguments a blocked tool call carries in the response (and a stream's closing chunk):
none of the proposed ones, which the gate refused and which would otherwise reach the caller
(and, in the history, the next model request) unchecked. Why it was blocked is the gate's
message: :meth:`GovernanceCallback.tool_gate`, and the tool message of ``run_tools``."""
INSTRUCTION_ROLES = frozenset({"system", "developer"})

_LOG = logging.getLogger("govcore.integrations")
# Set while a governed wrapper calls LiteLLM, so that the hooks, which LiteLLM may also run on
# that call, do not govern the same call a second time (and let its stream through).
_INSIDE_WRAPPER: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "govcore_litellm_inside_wrapper", default=False
)


def _litellm(module: str) -> Any:
    """A LiteLLM module, imported when first needed (govcore imports without the extra)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            "govcore.integrations.litellm needs LiteLLM: pip install 'govcore[litellm]'"
        ) from error


# ---------------------------------------------------------------------------------------------
# Messages in the OpenAI format, as dicts or as LiteLLM's Message objects.
# ---------------------------------------------------------------------------------------------


def _field(item: Any, name: str) -> Any:
    """A field of a message, tool call or function, whether a mapping or an object."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def _as_dict(message: Any) -> dict[str, Any]:
    """A message as a plain dict (LiteLLM accepts both in ``messages``)."""
    if isinstance(message, Mapping):
        return dict(message)
    dumped: dict[str, Any] = message.model_dump(exclude_none=True)
    return dumped


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(
            str(_field(part, "text") or "") for part in content if _field(part, "type") == "text"
        )
    return ""


def _digest(*parts: str) -> str:
    return xxhash.xxh3_128_hexdigest("\x1f".join(parts).encode())


def message_ids(messages: Sequence[Any]) -> list[str | None]:
    """The turn id of each message, ``None`` for a message that is not a turn (instructions).

    - a tool result: ``tool:<tool_call_id>``;
    - a user message: a hash of its text, and how many identical user messages came before it;
    - an assistant message: a hash of the id of the turn it follows. Not of its text: the id is
      known before the answer is checked, and an answer comes back in the history as it was
      delivered (redacted, perhaps), not as the model wrote it.

    The same history therefore gives the same ids every time it is sent.
    """
    repeats: Counter[str] = Counter()
    ids: list[str | None] = []
    previous: str | None = None
    for message in messages:
        role = _field(message, "role")
        if role == "tool":
            previous = f"tool:{_field(message, 'tool_call_id')}"
        elif role == "user":
            key = _digest(_text(_field(message, "content")))
            previous = f"user:{key}:{repeats[key]}"
            repeats[key] += 1
        elif role == "assistant":
            previous = _following(previous)
        else:
            ids.append(None)
            continue
        ids.append(previous)
    return ids


def _following(previous: str | None) -> str:
    """The id of an assistant message that follows the turn ``previous`` (``None``: none)."""
    return f"assistant:{_digest(previous or '')}"


def _answer_id(history: Sequence[Any]) -> str:
    """The id the answer to ``history`` will have when the application sends it back."""
    turns = [message_id for message_id in message_ids(history) if message_id is not None]
    return _following(turns[-1] if turns else None)


def _tool_names(messages: Sequence[Any]) -> dict[str, str]:
    """Tool name by call id, from the assistant messages' tool calls."""
    names: dict[str, str] = {}
    for message in messages:
        for call in _field(message, "tool_calls") or ():
            names[str(_field(call, "id"))] = str(_field(_field(call, "function"), "name"))
    return names


def _with_instructions(messages: list[Any], conversation: GovernedConversation) -> list[Any]:
    """``messages`` with the injection block in the first system message (one put first when
    there is none and the block is not empty)."""
    first = messages[0] if messages else None
    if first is not None and _field(first, "role") in INSTRUCTION_ROLES:
        content = _field(first, "content")
        updated: str | list[Any]
        if isinstance(content, str) or content is None:
            updated = conversation.instructions(content or None)
        elif conversation.injection_block:
            updated = [*content, {"type": "text", "text": conversation.injection_block}]
        else:
            return messages
        return [{**_as_dict(first), "content": updated}, *messages[1:]]
    if not conversation.injection_block:
        return messages
    return [{"role": "system", "content": conversation.injection_block}, *messages]


def _parse_arguments(raw: Any) -> dict[str, Any] | None:
    """A tool call's arguments as a mapping; ``None`` when they are not a JSON object."""
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        parsed = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _unreadable_arguments_gate(tool_name: str, raw: Any) -> ToolGate:
    message = (
        f"The call to {tool_name} was blocked: its arguments are not a JSON object, so they "
        "could not be checked against the policies. Call it again with a JSON object."
    )
    return ToolGate("block", {"arguments": raw}, message, None)


def _withheld_gate(tool_name: str, arguments: dict[str, Any]) -> ToolGate:
    message = (
        f"The call to {tool_name} was blocked: governance could not check it. "
        "Do not call it again in this answer."
    )
    return ToolGate("block", arguments, message, None)


# ---------------------------------------------------------------------------------------------
# What the hooks and the wrappers do, written once: a plan yields each call to the governed
# conversation (the blocking method's name and its arguments) and receives its result; the
# blocking driver calls ``conversation.<name>``, the asyncio driver awaits ``conversation.a<name>``.
# ---------------------------------------------------------------------------------------------

_Step = tuple[str, tuple[Any, ...], dict[str, Any]]
_Plan = Generator[_Step, Any, T]
_RUN_TOOL = "run tool"
"""The step that runs one of the application's tools: (function, arguments)."""


def _drive(conversation: GovernedConversation, plan: _Plan[T]) -> T:
    """Run ``plan`` with the conversation's blocking methods; an error of a step is raised in
    the plan, at the step."""
    try:
        step = next(plan)
        while True:
            name, args, kwargs = step
            try:
                if name == _RUN_TOOL:
                    function, arguments = args
                    result = function(**arguments)
                    if inspect.isawaitable(result):
                        if inspect.iscoroutine(result):
                            result.close()  # never awaited: no warning about it
                        raise TypeError(f"{function!r} is async: run it with arun_tools")
                else:
                    result = getattr(conversation, name)(*args, **kwargs)
            except Exception as error:
                step = plan.throw(error)
            else:
                step = plan.send(result)
    except StopIteration as stop:
        value: T = stop.value
        return value


async def _adrive(conversation: GovernedConversation, plan: _Plan[T]) -> T:
    """Run ``plan`` with the conversation's asyncio methods (a tool may be a coroutine
    function); an error of a step is raised in the plan, at the step."""
    try:
        step = next(plan)
        while True:
            name, args, kwargs = step
            try:
                if name == _RUN_TOOL:
                    function, arguments = args
                    result = function(**arguments)
                    if inspect.isawaitable(result):
                        result = await result
                else:
                    result = await getattr(conversation, f"a{name}")(*args, **kwargs)
            except Exception as error:
                step = plan.throw(error)
            else:
                step = plan.send(result)
    except StopIteration as stop:
        value: T = stop.value
        return value


def _recent_ids() -> RecentIds:
    return RecentIds(MAX_IDS_PER_CONVERSATION)


def _recent_texts() -> Recent[str]:
    return Recent(MAX_IDS_PER_CONVERSATION)


@dataclass
class _Session:
    """The adapter's own state of one conversation: which turns it has recorded, and what each
    tool result became after its check (so that a replayed history is neither recorded nor
    checked again)."""

    conversation: GovernedConversation
    # Bounded (see MAX_IDS_PER_CONVERSATION): a long conversation would otherwise grow them
    # for as long as the callback lives.
    recorded: RecentIds = field(default_factory=_recent_ids)
    tool_texts: Recent[str] = field(default_factory=_recent_texts)


def _prepare(session: _Session, messages: Sequence[Any]) -> _Plan[list[Any]]:
    """Record the new turns of ``messages`` and return the request's messages: tool results as
    checked, the injection block in the instructions."""
    conversation = session.conversation
    outgoing = list(messages)
    names: dict[str, str] | None = None
    for index, (message, message_id) in enumerate(
        zip(messages, message_ids(messages), strict=True)
    ):
        if message_id is None:
            continue
        role = _field(message, "role")
        if role == "tool":
            content = _field(message, "content")
            delivered = session.tool_texts.get(message_id)
            if delivered is not None and message_id in session.recorded:
                if delivered != _text(content):
                    outgoing[index] = {**_as_dict(message), "content": delivered}
                continue
            call_id = str(_field(message, "tool_call_id"))
            if names is None:
                names = _tool_names(messages)
            tool_name = names.get(call_id) or str(_field(message, "name") or "tool")
            if delivered is None:
                checked: CheckedText = yield (
                    "check_tool_result",
                    (tool_name, _text(content)),
                    {"call_id": call_id},
                )
                delivered = checked.text
                if not checked.withheld:  # withheld now, perhaps checkable on the next call
                    session.tool_texts[message_id] = delivered
            if message_id not in session.recorded:
                yield (
                    "record_tool_result",
                    (tool_name, delivered),
                    {"call_id": call_id, "message_id": message_id},
                )
                session.recorded.add(message_id)
            if delivered != _text(content):
                outgoing[index] = {**_as_dict(message), "content": delivered}
            continue
        if message_id in session.recorded:
            continue
        text = _text(_field(message, "content"))
        if role == "user":
            yield ("record_user", (text,), {"message_id": message_id})
        elif text:
            # An assistant message with only tool calls is no turn: its calls were gated.
            yield ("record_assistant", (text,), {"message_id": message_id})
        session.recorded.add(message_id)
    return _with_instructions(outgoing, conversation)


def _govern_response(
    session: _Session, gates: _Gates, response: Any, history: Sequence[Any]
) -> _Plan[None]:
    """Gate the response's tool calls; check its answer once (which records it) and replace it
    with the text to deliver."""
    answer_id = _answer_id(history)
    for choice in response.choices:
        message = choice.message
        for call in message.tool_calls or ():
            yield from _gate_call(gates, call)
        text = message.content
        if not isinstance(text, str) or not text:
            continue
        # Only the first choice becomes the conversation's turn when the history comes back.
        message_id = answer_id if choice.index == 0 else f"{answer_id}:{choice.index}"
        if message_id in session.recorded:
            # Another answer to the same history (a regenerated one): the conversation checks
            # once per message id, so this answer is checked under an id of its own.
            message_id = f"{message_id}:{_digest(text)}"
        checked: CheckedText = yield ("check_answer", (text,), {"message_id": message_id})
        message.content = checked.text
        session.recorded.add(message_id)


def _gate_call(gates: _Gates, call: Any) -> _Plan[ToolGate]:
    """Gate one tool call of a response; the gated arguments are written into the call: the
    safer ones on ``modify``, :data:`BLOCKED_ARGUMENTS` on ``block``."""
    function = call.function
    tool_name = str(function.name)
    arguments = _parse_arguments(function.arguments)
    if arguments is None:
        gate = _unreadable_arguments_gate(tool_name, function.arguments)
    else:
        gate = yield ("gate_tool", (tool_name, arguments), {})
    if gate.action == "modify":
        function.arguments = json.dumps(gate.arguments)
    elif not gate.runs:
        function.arguments = BLOCKED_ARGUMENTS
    gates.put(str(call.id), gate)
    return gate


def _run_tools(
    session: _Session,
    gates: _Gates,
    response: Any,
    tools: Mapping[str, Callable[..., Any]],
) -> _Plan[list[dict[str, Any]]]:
    """Run the response's tool calls as their gates say; the tool messages for the history."""
    replies: list[dict[str, Any]] = []
    for choice in response.choices[:1]:
        for call in choice.message.tool_calls or ():
            call_id = str(call.id)
            tool_name = str(call.function.name)
            gate = gates.get(call_id)
            if gate is None:
                gate = yield from _gate_call(gates, call)
            function = tools.get(tool_name)
            message_id = f"tool:{call_id}"
            if not gate.runs:
                content = gate.message or f"The call to {tool_name} was blocked."
            elif function is None:
                content = f"There is no tool named {tool_name}."
            else:
                result = yield (_RUN_TOOL, (function, gate.arguments), {})
                # Checked and recorded in one request (a replay of a recorded id records
                # nothing); a turn that could not be recorded is recorded below or later.
                checked: CheckedText = yield (
                    "check_and_record_tool_result",
                    (tool_name, result),
                    {"call_id": call_id, "message_id": message_id},
                )
                content = checked.text
                if checked.recorded:
                    session.recorded.add(message_id)
            # What the model reads is known now: the pre-call step does not check it again when
            # the history comes back, and records it then only if it could not be recorded here
            # (fail closed stops that model call if governance is still unavailable).
            session.tool_texts[message_id] = content
            if message_id not in session.recorded:
                try:
                    yield (
                        "record_tool_result",
                        (tool_name, content),
                        {"call_id": call_id, "message_id": message_id},
                    )
                except GovernanceUnavailableError:
                    pass
                else:
                    session.recorded.add(message_id)
            replies.append(
                {"role": "tool", "tool_call_id": call_id, "name": tool_name, "content": content}
            )
    return replies


class _Gates:
    """Tool gates by call id, the oldest forgotten beyond :data:`MAX_GATES`."""

    def __init__(self, limit: int = MAX_GATES) -> None:
        self._gates: OrderedDict[str, ToolGate] = OrderedDict()
        self._limit = limit

    def put(self, call_id: str, gate: ToolGate) -> None:
        self._gates[call_id] = gate
        self._gates.move_to_end(call_id)
        while len(self._gates) > self._limit:
            self._gates.popitem(last=False)

    def get(self, call_id: str) -> ToolGate | None:
        return self._gates.get(call_id)


# ---------------------------------------------------------------------------------------------
# Streams: text released only once checked; tool calls gated at the end.
# ---------------------------------------------------------------------------------------------


@dataclass
class _StreamState:
    """What a governed stream has seen: its chunks, kept for the tool calls, the first chunk
    (the template of the text chunks sent) and the last (its finish reason and usage)."""

    chunks: list[Any] = field(default_factory=list)

    def delta(self, chunk: Any) -> str:
        """Keep ``chunk``; its text (the only part released before the stream ends)."""
        self.chunks.append(chunk)
        if not chunk.choices:
            return ""
        content = chunk.choices[0].delta.content
        return content if isinstance(content, str) else ""

    def text_chunk(self, text: str) -> Any:
        """A chunk carrying ``text`` and nothing else."""
        chunk = self.chunks[0].model_copy(deep=True)
        choice = chunk.choices[0]
        _clear_delta(choice, content=text)
        choice.finish_reason = None
        return chunk

    def closing_chunk(self, final: Any) -> Any:
        """The last chunk without its text: the finish reason and usage, and the gated tool
        calls of ``final`` (the assembled response), if any."""
        if not self.chunks:
            return None
        last = self.chunks[-1].model_copy(deep=True)
        if not last.choices:
            return last
        delta = _clear_delta(last.choices[0], content=None)
        if final is not None:
            types = _litellm("litellm.types.utils")
            delta.tool_calls = [
                types.ChatCompletionDeltaToolCall(
                    id=call.id,
                    type="function",
                    index=index,
                    function=types.Function(
                        name=call.function.name, arguments=call.function.arguments
                    ),
                )
                for index, call in enumerate(final.choices[0].message.tool_calls or ())
            ]
        return last


def _clear_delta(choice: Any, content: str | None) -> Any:
    """Give a streamed choice a delta of its own carrying only ``content`` (and the role): a
    chunk the caller sees repeats nothing of the model's chunk it was copied from, whose tool
    calls, reasoning, legacy function call or logprobs have not been checked."""
    types = _litellm("litellm.types.utils")
    delta = types.Delta(content=content, role=choice.delta.role)
    choice.delta = delta
    choice.logprobs = None
    return delta


class GovernanceCallback:
    """A LiteLLM ``CustomLogger`` that governs ``acompletion``, with governed wrappers for what no
    LiteLLM hook can govern (sync ``completion()`` and streams).

    The instance is a subclass of ``litellm.integrations.custom_logger.CustomLogger`` (built on
    first use, so that govcore imports without LiteLLM): put it in ``litellm.callbacks``.

    Args:
        client: the typed client, blocking or asyncio (its key needs tool-call governance and
            post-inference checking).
        session_id: the default conversation, for requests without ``litellm_session_id``
            (a new id when ``None``).
        on_fix: what a tool call blocked by a ``fix`` violation becomes (``apply`` the safer
            arguments, ``block``, or ``retry``: block and tell the model the safer arguments).
        fail: ``closed`` (block, withhold, refuse the model call) or ``open`` when governance
            cannot decide.
        conversation_options: the other keyword arguments of
            :class:`~govcore.integrations.GovernedConversation` (token_budget, attributes,
            policy_area_ids, context_turns, chunk_size, logger), the same for every
            conversation.
    """

    _litellm_classes: ClassVar[dict[type, type]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> GovernanceCallback:
        # LiteLLM runs the hooks only of instances of its CustomLogger: the class instantiated
        # derives from this one (or the subclass asked for) and from CustomLogger, made once per
        # class when first needed, so that govcore imports without LiteLLM.
        made = GovernanceCallback._litellm_classes.get(cls)
        if made is None:
            custom_logger = _litellm("litellm.integrations.custom_logger").CustomLogger
            made = cls
            if not issubclass(cls, custom_logger):
                namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
                made = type(cls.__name__, (cls, custom_logger), namespace)
            GovernanceCallback._litellm_classes[cls] = made
        instance: GovernanceCallback = object.__new__(made)
        return instance

    def __init__(
        self,
        client: GovernanceClient | AsyncGovernanceClient,
        session_id: str | None = None,
        *,
        on_fix: FixReaction = "apply",
        fail: Literal["closed", "open"] = "closed",
        max_conversations: int = MAX_CONVERSATIONS,
        **conversation_options: Any,
    ) -> None:
        super().__init__()
        self._client = client
        self._on_fix: FixReaction = on_fix
        self._fail: Literal["closed", "open"] = fail
        self._options = conversation_options
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._max_sessions = max_conversations
        self._gates = _Gates()
        default = self._new_conversation(session_id)
        self.session_id: str = default.session_id
        self._sessions[self.session_id] = _Session(default)

    # --- conversations -------------------------------------------------------------------

    def _new_conversation(self, session_id: str | None) -> GovernedConversation:
        return GovernedConversation(
            self._client, session_id, on_fix=self._on_fix, fail=self._fail, **self._options
        )

    def _session(self, session_id: Any) -> _Session:
        key = str(session_id) if session_id else self.session_id
        session = self._sessions.get(key)
        if session is None:
            session = _Session(self._new_conversation(key))
            self._sessions[key] = session
            while len(self._sessions) > self._max_sessions:
                oldest = next(iter(self._sessions))
                if oldest == self.session_id:
                    self._sessions.move_to_end(oldest)
                    oldest = next(iter(self._sessions))
                del self._sessions[oldest]
        else:
            self._sessions.move_to_end(key)
        return session

    def conversation(self, session_id: str | None = None) -> GovernedConversation:
        """The governed conversation of ``session_id`` (the default one when ``None``)."""
        return self._session(session_id).conversation

    def tool_gate(self, call: Any) -> ToolGate | None:
        """The gate of a tool call of a governed response (by its id); ``None`` for a call
        that no governed response carried."""
        return self._gates.get(str(_field(call, "id")))

    # --- LiteLLM's hooks (acompletion) ------------------------------------------------------

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """Record the request's new turns and put the injection block into its instructions;
        refuse a stream that would reach the caller unchecked."""
        if _INSIDE_WRAPPER.get() or "messages" not in kwargs:
            return None
        if kwargs.get("stream"):
            raise InvalidRequestError.for_field(
                "stream",
                "litellm.acompletion would pass the stream to the caller unchecked; stream "
                "through GovernanceCallback.acompletion, which holds text back until checked",
            )
        session = self._session(kwargs.get("litellm_session_id"))
        messages = await _adrive(session.conversation, _prepare(session, kwargs["messages"]))
        return {**kwargs, "messages": messages}

    async def async_post_call_success_deployment_hook(
        self, request_data: dict[str, Any], response: Any, call_type: Any
    ) -> Any:
        """Gate the tool calls, check and replace the answer, record it. Never raises (LiteLLM
        would return the response unchecked): a failure withholds the answer."""
        if _INSIDE_WRAPPER.get() or not hasattr(response, "choices"):
            return None
        try:
            session = self._session(request_data.get("litellm_session_id"))
            await _adrive(
                session.conversation,
                _govern_response(
                    session, self._gates, response, _history(request_data.get("messages"))
                ),
            )
        except Exception:
            _LOG.exception(
                "litellm: governing the response failed; answer withheld, tool calls blocked"
            )
            self._withhold(response)
        return response

    def _withhold(self, response: Any) -> None:
        for choice in response.choices:
            message = choice.message
            if message.content:
                message.content = WITHHELD_TEXT
            for call in message.tool_calls or ():
                arguments = _parse_arguments(call.function.arguments) or {}
                self._gates.put(str(call.id), _withheld_gate(str(call.function.name), arguments))
                call.function.arguments = BLOCKED_ARGUMENTS

    # --- governed wrappers ----------------------------------------------------------------

    def completion(self, **kwargs: Any) -> Any:
        """``litellm.completion(**kwargs)``, governed: the new turns recorded, the block in the
        instructions, tool calls gated, the answer checked and replaced; with ``stream=True``
        an iterator of chunks whose text is held back until checked.

        Raises:
            GovernanceUnavailableError: governance could not record the turns and fails closed
                (no model call was made).
        """
        litellm = _litellm("litellm")
        session = self._session(kwargs.get("litellm_session_id"))
        history = list(kwargs["messages"])
        request = {**kwargs, "messages": _drive(session.conversation, _prepare(session, history))}
        token = _INSIDE_WRAPPER.set(True)
        try:
            response = litellm.completion(**request)
        finally:
            _INSIDE_WRAPPER.reset(token)
        if kwargs.get("stream"):
            return self._stream(session, response, history)
        _drive(session.conversation, _govern_response(session, self._gates, response, history))
        return response

    async def acompletion(self, **kwargs: Any) -> Any:
        """``litellm.acompletion(**kwargs)``, governed as :meth:`completion`; with
        ``stream=True`` an async iterator of chunks whose text is held back until checked."""
        litellm = _litellm("litellm")
        session = self._session(kwargs.get("litellm_session_id"))
        history = list(kwargs["messages"])
        messages = await _adrive(session.conversation, _prepare(session, history))
        token = _INSIDE_WRAPPER.set(True)
        try:
            response = await litellm.acompletion(**{**kwargs, "messages": messages})
        finally:
            _INSIDE_WRAPPER.reset(token)
        if kwargs.get("stream"):
            return self._astream(session, response, history)
        await _adrive(
            session.conversation, _govern_response(session, self._gates, response, history)
        )
        return response

    def run_tools(
        self,
        response: Any,
        tools: Mapping[str, Callable[..., Any]],
        *,
        session_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """Run the tool calls of ``response`` (its first choice) as governance decided.

        A blocked call does not run and its tool message is the gate's message; a modified
        call runs with the safer arguments; each result is checked (and redacted) before it
        goes into the tool message. A call that no governed response carried is gated here.

        Args:
            response: the model's response.
            tools: the application's tools by name, each called with the arguments as keywords.
            session_id: the conversation, when the request named one (``litellm_session_id``).

        Returns:
            One tool message per call, in order, to append to the history.
        """
        session = self._session(session_id)
        return _drive(session.conversation, _run_tools(session, self._gates, response, tools))

    async def arun_tools(
        self,
        response: Any,
        tools: Mapping[str, Callable[..., Any]],
        *,
        session_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """:meth:`run_tools` for asyncio; a tool may be a coroutine function."""
        session = self._session(session_id)
        return await _adrive(
            session.conversation, _run_tools(session, self._gates, response, tools)
        )

    # --- streams --------------------------------------------------------------------------

    def _stream(
        self, session: _Session, stream: Iterable[Any], history: list[Any]
    ) -> Iterator[Any]:
        """Chunks of the answer's text as the conversation releases it (checked, held back),
        then one closing chunk with the gated tool calls."""
        state = _StreamState()
        answer_id = _answer_id(history)
        deltas = (state.delta(chunk) for chunk in stream)
        for released in session.conversation.stream(deltas, message_id=answer_id):
            if released:
                yield state.text_chunk(released)
        session.recorded.add(answer_id)
        last = _drive(session.conversation, self._finish_stream(state))
        if last is not None:
            yield last

    async def _astream(
        self, session: _Session, stream: Any, history: list[Any]
    ) -> AsyncIterator[Any]:
        """:meth:`_stream` for an async stream."""
        state = _StreamState()
        answer_id = _answer_id(history)

        async def deltas() -> AsyncIterator[str]:
            async for chunk in stream:
                yield state.delta(chunk)

        async for released in session.conversation.astream(deltas(), message_id=answer_id):
            if released:
                yield state.text_chunk(released)
        session.recorded.add(answer_id)
        last = await _adrive(session.conversation, self._finish_stream(state))
        if last is not None:
            yield last

    def _finish_stream(self, state: _StreamState) -> _Plan[Any]:
        """Gate the streamed tool calls; the closing chunk that carries them."""
        final = _assembled(state)
        if final is not None:
            for call in final.choices[0].message.tool_calls or ():
                yield from _gate_call(self._gates, call)
        return state.closing_chunk(final)


def _assembled(state: _StreamState) -> Any:
    """The streamed tool calls assembled into a response; ``None`` when there are none."""
    if not any(chunk.choices and chunk.choices[0].delta.tool_calls for chunk in state.chunks):
        return None
    return _litellm("litellm").stream_chunk_builder(state.chunks)


def _history(messages: Any) -> list[Any]:
    """The request's messages as sent (the assistant turns in them are the application's)."""
    return list(messages) if isinstance(messages, Sequence) else []
