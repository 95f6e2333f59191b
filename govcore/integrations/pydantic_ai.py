"""Governance for Pydantic AI agents, as one capability.

Install with ``pip install 'govcore[pydantic-ai]'``; the user's code is::

    import govcore
    from govcore.integrations.pydantic_ai import GovernanceCapability

    client = govcore.Governance.from_config("govcore.yaml").client("gk_...")
    agent = Agent(model, instructions="...", capabilities=[GovernanceCapability(client)])
    result = await agent.run(prompt, message_history=history)   # or run_sync, run_stream, iter

What each hook of the capability governs (through :class:`~govcore.integrations.GovernedConversation`):

* ``before_model_request`` (each model call): the turns of the history not recorded yet (the user's
  prompt, tool results, earlier answers of a replayed history) are recorded once each by their
  message id, and the injection block of the policies is appended to the instructions;
* ``wrap_tool_validate`` (each tool call, after its arguments are validated and before it runs):
  the call is allowed, run with safer arguments (validated again by the tool's schema), or not run,
  with a message the model reads (``ToolFailed``; ``ModelRetry`` with ``on_fix="retry"``);
* ``after_tool_execute``: the tool's result is checked and, when a policy says so, redacted before
  the model (or anyone reading the history) sees it, and recorded as the tool turn in the same
  request;
* ``after_model_request``: an answer (the text of a response) is checked once and redacted by the
  public rule, in the result and in the message history, and recorded as the assistant's turn;
* ``get_wrapper_model``: a streamed response is held back until checked, so a caller of
  ``run_stream``, ``run_stream_events``, ``iter`` or an ``event_stream_handler`` sees only
  checked text; the streamed answer is checked by the stream's checks and not again. A streamed
  tool call is shown with its arguments checked by the output rule; the gate still decides on the
  arguments the model proposed.

The conversation is Pydantic AI's ``conversation_id`` (kept on the message history, so a history
passed to the next run continues it) unless ``session_id`` names one. When govcore cannot decide,
the capability fails closed by default: the run stops before a model call whose policies could not
be recorded (:class:`~govcore.integrations.GovernanceUnavailableError`), a tool call is not run, an
answer or a tool result is withheld; ``fail="open"`` lets them through. One line is logged either
way, on the ``govcore.integrations`` logger.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from pydantic_ai.capabilities import (
    AbstractCapability,
    RawToolArgs,
    ValidatedToolArgs,
    WrapToolValidateHandler,
)
from pydantic_ai.exceptions import ModelRetry, ToolFailed
from pydantic_ai.messages import (
    BaseToolCallPart,
    InstructionPart,
    ModelMessage,
    ModelResponse,
    ModelResponsePart,
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestContext, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_ai.usage import RequestUsage

from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.integrations.base import FailMode, GovernanceUnavailableError, GovernedConversation
from govcore.tool_gate import FixReaction

__all__ = ["GovernanceCapability"]

# Conversations kept in one process (each holds its injection block and the ids it recorded);
# the least recently used is dropped beyond this. A dropped conversation loses nothing: its
# message ids are kept in govcore's store, so a later run records no turn twice.
DEFAULT_MAX_CONVERSATIONS = 1024

# The text of a held-back stream goes into one text part of the response under this vendor id.
_GOVERNED_TEXT = "govcore-text"

# Entries each per-conversation memory below keeps, the least recently added dropped first, so a
# long conversation does not grow this process without bound. Forgetting is safe: govcore's store
# keeps the authoritative message ids (a forgotten id costs one record call that records nothing),
# a forgotten stream costs one more check of its answer, and a forgotten proposed call is gated on
# the checked arguments its stream showed.
MAX_REMEMBERED = 4096

V = TypeVar("V")
CallT = TypeVar("CallT", bound=BaseToolCallPart[Any])


def _remember(memory: OrderedDict[str, V], key: str, value: V) -> None:
    memory[key] = value
    memory.move_to_end(key)
    while len(memory) > MAX_REMEMBERED:
        memory.popitem(last=False)


@dataclass
class _ConversationState:
    """One conversation's governance and what this process remembers of it (each bounded by
    :data:`MAX_REMEMBERED`, but ``scanned``, which holds only live messages):

    * ``recorded``: the message ids recorded or checked (as keys);
    * ``streamed``: for each answer a held-back stream checked and delivered, the fingerprint of
      what it delivered, so that ``after_model_request`` skips only that very text;
    * ``proposed``: for each tool call a stream showed with checked arguments, the arguments shown
      and the ones the model proposed, which the tool gate decides on;
    * ``scanned``: the history messages gone through (by identity: a message of the history does
      not change once the model has been sent it, and the next model call skips it in one look-up).
    """

    conversation: GovernedConversation
    recorded: OrderedDict[str, None] = field(default_factory=OrderedDict)
    streamed: OrderedDict[str, str] = field(default_factory=OrderedDict)
    proposed: OrderedDict[str, tuple[Any, Any]] = field(default_factory=OrderedDict)
    scanned: dict[int, weakref.ref[ModelMessage]] = field(default_factory=dict)

    def record(self, message_id: str) -> None:
        _remember(self.recorded, message_id, None)

    def was_scanned(self, message: ModelMessage) -> bool:
        seen = self.scanned.get(id(message))
        return seen is not None and seen() is message

    def mark_scanned(self, message: ModelMessage) -> None:
        key = id(message)
        # The entry goes with the message, before its id can be given to another object.
        self.scanned[key] = weakref.ref(message, lambda _: self.scanned.pop(key, None))


@dataclass
class GovernanceCapability(AbstractCapability[Any]):
    """Governs an agent's runs with an organisation's policies (see the module docstring).

    Args:
        client: a typed client, blocking or asyncio (the other is reached through it). Its key
            needs ``post_inference_checking`` and ``tool_call_governance`` allowed.
        session_id: one govcore conversation for every run; by default each Pydantic AI
            conversation (``conversation_id``) is its own.
        on_fix: a tool call with a blocking violation: ``"apply"`` runs it with the safer
            arguments when they check clean, ``"block"`` does not run it, ``"retry"`` does not run
            it and asks the model to call again with the safer arguments (``ModelRetry``, counted
            against the tool's retries).
        fail: ``"closed"`` (default) or ``"open"``: what happens when govcore cannot decide.
        token_budget, attributes, policy_area_ids, context_turns, chunk_size, logger: passed to
            each :class:`~govcore.integrations.GovernedConversation`.
        max_conversations: conversations kept in this process (least recently used dropped).
    """

    client: GovernanceClient | AsyncGovernanceClient
    session_id: str | None = None
    _: KW_ONLY
    on_fix: FixReaction = "apply"
    fail: FailMode = "closed"
    token_budget: int | None = None
    attributes: Mapping[str, Any] | None = None
    policy_area_ids: Sequence[str] | None = None
    context_turns: int = 2
    chunk_size: int = 200
    logger: logging.Logger | None = None
    max_conversations: int = DEFAULT_MAX_CONVERSATIONS
    id: str | None = "govcore"
    _conversations: OrderedDict[str, _ConversationState] = field(
        default_factory=OrderedDict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.max_conversations < 1:
            raise ValueError("max_conversations must be at least 1")
        if self.on_fix not in ("apply", "block", "retry"):
            raise ValueError(f"on_fix must be 'apply', 'block' or 'retry', not {self.on_fix!r}")
        if self.fail not in ("closed", "open"):
            raise ValueError(f"fail must be 'closed' or 'open', not {self.fail!r}")

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # It holds a client, which an agent spec cannot describe.
        return None

    def conversation(self, session_id: str) -> GovernedConversation:
        """The governed conversation of ``session_id`` (created on first use)."""
        return self._state(session_id).conversation

    # --- the conversation of a run ---------------------------------------------------------------

    def _state(self, session_id: str) -> _ConversationState:
        state = self._conversations.get(session_id)
        if state is not None:
            self._conversations.move_to_end(session_id)
            return state
        state = _ConversationState(
            GovernedConversation(
                self.client,
                session_id,
                on_fix=self.on_fix,
                fail=self.fail,
                token_budget=self.token_budget,
                attributes=self.attributes,
                policy_area_ids=self.policy_area_ids,
                context_turns=self.context_turns,
                chunk_size=self.chunk_size,
                logger=self.logger,
            )
        )
        self._conversations[session_id] = state
        while len(self._conversations) > self.max_conversations:
            self._conversations.popitem(last=False)
        return state

    def _run_state(self, ctx: RunContext[Any]) -> _ConversationState:
        # Pydantic AI always sets conversation_id (taken from the message history, else new).
        return self._state(self.session_id or ctx.conversation_id or "pydantic-ai")

    # --- before each model call: record what is new, put the policies in the instructions -------

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        state = self._run_state(ctx)
        await _record_history(state, ctx.messages)
        block = state.conversation.injection_block
        if block:
            parameters = request_context.model_request_parameters
            parts = [*(parameters.instruction_parts or []), InstructionPart(block, dynamic=True)]
            request_context.model_request_parameters = dataclasses.replace(
                parameters, instruction_parts=InstructionPart.sorted(parts)
            )
        return request_context

    # --- each tool call: gate before it runs, check what it returned ------------------------------

    async def wrap_tool_validate(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        handler: WrapToolValidateHandler,
    ) -> ValidatedToolArgs:
        state = self._run_state(ctx)
        shown = state.proposed.pop(call.tool_call_id, None)
        if shown is not None and shown[0] == args:
            # A stream showed this call with checked arguments; the gate decides on what the model
            # proposed, as it does for a call that was not streamed.
            args = shown[1]
        # Gate the validated arguments (typed values: dates, models, enums are made JSON by the
        # client), so a call the tool's schema refuses never costs a check.
        validated = await handler(args)
        conversation = state.conversation
        gate = await conversation.agate_tool(call.tool_name, validated)
        if gate.action == "allow":
            return validated
        if gate.action == "modify":
            # The safer arguments are JSON: the tool's own schema turns them into its types.
            return await handler(gate.arguments)
        message = gate.message or f"The call of {call.tool_name!r} was blocked by policy."
        if self.on_fix == "retry" and gate.decision is not None:
            raise ModelRetry(message)
        raise ToolFailed(message)

    async def after_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        result: Any,
    ) -> Any:
        state = self._run_state(ctx)
        # Checked and recorded as the tool turn in one request, under the id the next model
        # request finds its result by in the history, so that request records nothing more.
        message_id = _tool_result_id(ctx.run_id, call.tool_call_id)
        checked = await state.conversation.acheck_and_record_tool_result(
            call.tool_name, result, call_id=call.tool_call_id, message_id=message_id
        )
        if checked.recorded:
            state.record(message_id)
        return checked.text if checked.changed else result

    # --- each answer: checked once, redacted in the result and the history -----------------------

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        state = self._run_state(ctx)
        occurrence = _occurrence(ctx.messages, ctx.run_id, response.timestamp, response)
        message_id = _response_id(ctx.run_id, response.timestamp, occurrence)
        delivered = state.streamed.pop(message_id, None)
        if delivered is not None and delivered == _fingerprint(response.parts):
            # A streamed answer, as its stream delivered it: checked by the stream and recorded.
            return response
        output_tools = _output_tool_names(request_context.model_request_parameters)
        parts = list(response.parts)
        changed = False
        text = _response_text(response)
        if text:
            checked = await state.conversation.acheck_answer(text, message_id=message_id)
            if checked.changed:
                parts, changed = _with_text(parts, checked.text), True
        for index, part in enumerate(parts):
            if isinstance(part, ToolCallPart) and part.tool_name in output_tools:
                governed = await _checked_output_call(state, part, f"{message_id}:output:{index}")
                if governed is not part:
                    parts[index], changed = governed, True
        state.record(message_id)
        return dataclasses.replace(response, parts=parts) if changed else response

    # --- streams: held back until checked --------------------------------------------------------

    def get_wrapper_model(self, model: Model) -> Model | None:
        return _HoldBackModel(model, self)


# --- recording the history ------------------------------------------------------------------------


async def _record_history(state: _ConversationState, messages: Sequence[ModelMessage]) -> None:
    """Record, in order, each turn of ``messages`` this process has not recorded yet.

    A history replayed from another worker or after a restart comes here whole: govcore keeps the
    message ids in its store, so those turns record nothing a second time.
    """
    # Responses of one run stamped alike, counted in order: each one's id tells it apart.
    stamped: dict[tuple[str | None, datetime], int] = {}
    for message in messages:
        occurrence = 0
        if isinstance(message, ModelResponse):
            stamp = (message.run_id, message.timestamp)
            occurrence = stamped.get(stamp, 0)
            stamped[stamp] = occurrence + 1
        if not state.was_scanned(message):
            await _record_message(state, message, occurrence)
            state.mark_scanned(message)


async def _record_message(
    state: _ConversationState, message: ModelMessage, occurrence: int
) -> None:
    conversation = state.conversation
    recorded = state.recorded
    if isinstance(message, ModelResponse):
        text = _response_text(message)
        message_id = _response_id(message.run_id, message.timestamp, occurrence)
        if text and message_id not in recorded:
            await conversation.arecord_assistant(text, message_id=message_id)
            state.record(message_id)
        return
    for index, part in enumerate(message.parts):
        if isinstance(part, UserPromptPart):
            message_id = _part_id(message.run_id, "user", part.timestamp, index)
            if message_id in recorded:
                continue
            prompt = _prompt_text(part)
            if prompt:
                await conversation.arecord_user(prompt, message_id=message_id)
            state.record(message_id)
        elif isinstance(part, ToolReturnPart):
            message_id = _tool_result_id(message.run_id, part.tool_call_id)
            if message_id in recorded:
                continue
            await conversation.arecord_tool_result(
                part.tool_name,
                part.model_response_str(),
                call_id=part.tool_call_id,
                message_id=message_id,
            )
            state.record(message_id)


def _part_id(run_id: str | None, kind: str, timestamp: datetime, index: int) -> str:
    # Run id and timestamp survive the history's serialisation, so a replayed history gives the
    # same ids; the index tells apart parts of one message stamped in the same microsecond.
    return f"pydantic-ai:{run_id or '-'}:{kind}:{timestamp.isoformat()}:{index}"


def _tool_result_id(run_id: str | None, tool_call_id: str) -> str:
    # Without the part's timestamp: after_tool_execute records the result before Pydantic AI
    # makes its part, and the history's part must name the same turn. A call id names one call
    # of a run (Pydantic AI makes one up, unique, when the provider gives none).
    return f"pydantic-ai:{run_id or '-'}:tool:{tool_call_id}"


def _response_id(run_id: str | None, timestamp: datetime, occurrence: int) -> str:
    # Not provider_response_id: a stream learns it only at its end, after its text was checked.
    # A provider may stamp a response with its own clock (a second's resolution, say), so two
    # responses of a run can share a timestamp: ``occurrence`` counts the run's earlier responses
    # stamped alike, which a replayed history keeps in order. (The first one's id is the id the
    # response had before the count was added, so ids already in a store still match.)
    return _part_id(run_id, "response", timestamp, occurrence)


def _occurrence(
    messages: Sequence[ModelMessage],
    run_id: str | None,
    timestamp: datetime,
    response: ModelResponse | None = None,
) -> int:
    """How many responses of ``run_id`` stamped ``timestamp`` come before a new response: those
    of the history (``response``, the new one, is not counted should the history hold it)."""
    return sum(
        1
        for message in messages
        if isinstance(message, ModelResponse)
        and message is not response
        and message.run_id == run_id
        and message.timestamp == timestamp
    )


def _fingerprint(parts: Sequence[ModelResponsePart]) -> str:
    """A digest of what a response says (its text and its calls' arguments): equal for the same
    delivered response, different as soon as one of them differs."""
    said = [
        [part.tool_name, part.args_as_json_str()]
        if isinstance(part, BaseToolCallPart)
        else part.content
        for part in parts
        if isinstance(part, (TextPart, BaseToolCallPart))
    ]
    return hashlib.sha256(json.dumps(said).encode("utf-8", "surrogatepass")).hexdigest()


def _output_tool_names(parameters: ModelRequestParameters) -> frozenset[str]:
    return frozenset(tool.name for tool in parameters.output_tools)


async def _checked_output_call(
    state: _ConversationState, part: ToolCallPart, message_id: str
) -> ToolCallPart:
    """A structured answer (the arguments of an output tool's call), checked once as the answer.

    Redacted, its arguments are the redaction's JSON (or, should a replacement have broken the
    JSON, its text, which the output's validation refuses and asks the model to redo). Withheld
    (fail closed), the run stops: a typed output has no withheld notice to deliver instead.
    """
    checked = await state.conversation.acheck_answer(part.args_as_json_str(), message_id=message_id)
    if checked.withheld:
        raise GovernanceUnavailableError(
            f"govcore could not check the output of {part.tool_name!r}: it is withheld"
        )
    if not checked.changed:
        return part
    arguments: str | dict[str, Any] = checked.text
    try:
        decoded = json.loads(checked.text)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        arguments = decoded
    return dataclasses.replace(part, args=arguments)


def _prompt_text(part: UserPromptPart) -> str:
    if isinstance(part.content, str):
        return part.content
    return "\n".join(item for item in part.content if isinstance(item, str))


def _response_text(response: ModelResponse) -> str:
    return "".join(part.content for part in response.parts if isinstance(part, TextPart))


def _with_text(parts: Sequence[ModelResponsePart], text: str) -> list[ModelResponsePart]:
    """The parts with their text replaced by ``text``, in the place of the first text part."""
    replaced: list[ModelResponsePart] = []
    placed = False
    for part in parts:
        if not isinstance(part, TextPart):
            replaced.append(part)
        elif not placed:
            replaced.append(dataclasses.replace(part, content=text))
            placed = True
    return replaced


# --- the held-back stream -------------------------------------------------------------------------


class _HoldBackModel(WrapperModel):
    """The run's model, with each streamed response held back until checked."""

    def __init__(self, wrapped: Model, capability: GovernanceCapability) -> None:
        super().__init__(wrapped)
        self._capability = capability

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as stream:
            if run_context is None:
                # Only an agent run governs; a direct model call has no conversation.
                yield stream
                return
            state = self._capability._run_state(run_context)
            yield _HeldBackResponse(
                model_request_parameters=model_request_parameters,
                source=stream,
                conversation_state=state,
                agent_run_id=run_context.run_id,
                occurrence=_occurrence(run_context.messages, run_context.run_id, stream.timestamp),
            )


@dataclass
class _HeldBackResponse(StreamedResponse):
    """A model's stream whose text reaches the caller only once checked.

    Text deltas go through the conversation's hold-back stream guard, which releases only text a
    check has covered and, at the end, the rest of what the public rule delivers (the redaction of
    a violating answer). Other parts (tool calls, thinking) are passed on whole when they end.
    """

    # Names of their own: StreamedResponse has a `state` field of its own, set by the framework.
    source: StreamedResponse = field(kw_only=True)
    conversation_state: _ConversationState = field(kw_only=True)
    agent_run_id: str | None = field(kw_only=True)
    # The run's earlier responses stamped as this one (see _response_id).
    occurrence: int = field(kw_only=True)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        message_id = _response_id(self.agent_run_id, self.source.timestamp, self.occurrence)
        output_tools = _output_tool_names(self.model_request_parameters)
        finished: list[ModelResponsePart] = []
        events = aiter(self.source)
        first = ""
        async for event in events:
            first = _delta_text(event)
            if first:
                break
            part = _finished_part(event)
            if part is not None:
                yield await self._governed_part(part, message_id, output_tools)

        async def deltas() -> AsyncIterator[str]:
            yield first
            async for event in events:
                text = _delta_text(event)
                if text:
                    yield text
                    continue
                part = _finished_part(event)
                if part is not None:
                    finished.append(part)

        if first:
            source = deltas()
            conversation = self.conversation_state.conversation
            async for piece in conversation.astream(source, message_id=message_id):
                for part in finished:
                    yield await self._governed_part(part, message_id, output_tools)
                finished.clear()
                for text_event in self._parts_manager.handle_text_delta(
                    vendor_part_id=_GOVERNED_TEXT, content=piece
                ):
                    yield text_event
            # Withheld after a failure, the rest of the text is dropped; other parts still count.
            async for _ in source:
                pass
            for part in finished:
                yield await self._governed_part(part, message_id, output_tools)
        state = self.conversation_state
        state.record(message_id)
        _remember(state.streamed, message_id, _fingerprint(self._parts_manager.get_parts()))

    async def _governed_part(
        self, part: ModelResponsePart, message_id: str, output_tools: frozenset[str]
    ) -> ModelResponseStreamEvent:
        """The event that passes a finished part on: a structured answer checked first, a tool
        call shown with its arguments checked."""
        if isinstance(part, ToolCallPart) and part.tool_name in output_tools:
            index = len(self._parts_manager.get_parts())
            part = await _checked_output_call(
                self.conversation_state, part, f"{message_id}:output:{index}"
            )
        elif isinstance(part, BaseToolCallPart):
            part = await self._shown_call(part)
        return self._parts_manager.handle_part(vendor_part_id=id(part), part=part)

    async def _shown_call(self, part: CallT) -> CallT:
        """A proposed tool call as the caller may see it: its arguments checked by the output rule
        (like a tool's result), redacted when a policy says so, the withheld notice when govcore
        cannot decide (fail closed).

        The response keeps the call as shown, so the history shows no more than the stream did;
        the call the agent runs is still gated on the arguments the model proposed
        (``wrap_tool_validate`` takes them back by the call's id).
        """
        proposed = part.args_as_json_str()
        checked = await self.conversation_state.conversation.acheck_tool_result(
            part.tool_name, proposed, call_id=f"{part.tool_call_id}:arguments"
        )
        if not checked.changed:
            return part
        shown: str | dict[str, Any] = checked.text
        with contextlib.suppress(ValueError):
            decoded = json.loads(checked.text)
            if isinstance(decoded, dict):
                shown = decoded
        if isinstance(part, ToolCallPart):
            _remember(self.conversation_state.proposed, part.tool_call_id, (shown, part.args))
        return dataclasses.replace(part, args=shown)

    def get(self) -> ModelResponse:
        return dataclasses.replace(self.source.get(), parts=self._parts_manager.get_parts())

    @property
    def usage(self) -> RequestUsage:
        return self.source.usage

    @property
    def model_name(self) -> str:
        return self.source.model_name

    @property
    def provider_name(self) -> str | None:
        return self.source.provider_name

    @property
    def provider_url(self) -> str | None:
        return self.source.provider_url

    @property
    def timestamp(self) -> datetime:
        return self.source.timestamp

    async def close_stream(self) -> None:
        await self.source.close_stream()


def _delta_text(event: ModelResponseStreamEvent) -> str:
    """The text an event adds to a text part ("" for any other event)."""
    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return event.part.content
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return event.delta.content_delta
    return ""


def _finished_part(event: ModelResponseStreamEvent) -> ModelResponsePart | None:
    """A part other than text, once the model has finished it."""
    if isinstance(event, PartEndEvent) and not isinstance(event.part, TextPart):
        return event.part
    return None
