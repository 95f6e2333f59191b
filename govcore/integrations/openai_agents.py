"""Governance for the OpenAI Agents SDK (``pip install 'govcore[openai-agents]'``).

The user's code, around an agent and a run that already work::

    from agents import Runner
    from govcore.integrations import GovernedConversation
    from govcore.integrations.openai_agents import govern

    conversation = GovernedConversation(gov.client(api_key), session_id="conv-42")
    agent, run_config = govern(support_agent, conversation)
    result = await Runner.run(agent, "Please refund order 1234", run_config=run_config)
    print(result.final_output)  # checked once, redacted by govcore's rule

:func:`govern` returns a clone of the agent and a run configuration; the agent itself is left as
it was. What each part governs:

* **the model** (a wrapper over the SDK's ``Model``: the agent's model when it is a ``Model``
  object, the run configuration's, and every model the run configuration's provider looks up by
  name). Before each model call, streamed or not, the input's turns that are new to the
  conversation are recorded (user messages, replayed assistant messages, tool outputs) and the
  policies' injection block is appended to the instructions. The model's messages are checked
  once each and replaced by what :func:`govcore.text_to_deliver` says a user may see; a streamed
  message is held back until checked (the caller's stream carries only checked text, in its
  deltas and in every event that repeats the text). The SDK's output guardrails cannot change an
  answer, which is why the model is wrapped.
* **the function tools** (a wrapper over each ``FunctionTool``'s invoker): each call is gated
  when the model proposes it, so the caller (stream events, the run's items) and the history see
  only the gated arguments (``{}`` for a blocked call); a call with safer arguments runs with
  them, a blocked call does not run and the model reads why; what the tool returns is checked, redacted when needed, and recorded as a
  tool turn. The SDK's tool guardrails cannot change arguments, which is why the invoker is
  wrapped.
* **handoffs**: the agents handed off to (an ``Agent`` in ``handoffs``, or the agent a
  ``Handoff`` object returns) get the same treatment.

Turns are recorded by the SDK's own identities, so a history handed to the next run (for example
``result.to_input_list()``, or a ``Session``) records nothing twice: an assistant message by its
id, a tool output by its call id, a user message (which has no id in the SDK) by the identified
item before it, its distance from that item and its text. A message that a model returned
without an id of its own (the Chat Completions models use a placeholder) is given one, so that
it is recognised when it comes back.

When govcore cannot decide, the conversation fails closed by default (see
:class:`~govcore.integrations.GovernedConversation`): a tool call is blocked, a message or tool
result is replaced by :data:`~govcore.integrations.WITHHELD_TEXT`, and a model call whose turns
cannot be recorded does not happen: the run raises
:class:`~govcore.integrations.GovernanceUnavailableError`.

Not governed: hosted tools that run on the model provider's side (web or file search, code
interpreter), tools of ``mcp_servers`` (govern the MCP server or client with
``govcore.integrations.mcp``), computer, shell and patch tools, and reasoning summaries.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import hashlib
import json
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, TypeGuard, TypeVar

from agents import Agent, FunctionTool, Model, ModelProvider, ModelResponse, RunConfig
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.models.interface import ModelTracing
from agents.tool import Tool
from agents.tool_context import ToolContext
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFailedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseRefusalDeltaEvent,
    ResponseRefusalDoneEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam

from govcore.integrations._recent import RecentIds
from govcore.integrations.base import GovernanceUnavailableError, GovernedConversation
from govcore.tool_gate import ToolGate

__all__ = [
    "AgentsGovernance",
    "GovernedModel",
    "GovernedModelProvider",
    "govern",
]

ContextT = TypeVar("ContextT")

BLOCKED_ARGUMENTS = "{}"
"""The arguments a blocked function call shows the caller (its stream events, the run's
``ToolCallItem``) and the model's history: none of the proposed ones, which the gate refused."""

MAX_IDS_PER_CONVERSATION = 4_096
"""Identities of recorded (or checked) items an :class:`AgentsGovernance` keeps, the oldest
forgotten first. Forgetting is safe: the store keeps the recorded message ids (the latest
``message_ids_per_conversation``), so a forgotten item that comes back costs a round trip, not
a turn recorded twice. And a history of more than 4,096 items no longer fits a model's context:
its front has been trimmed, and those items never come back."""

# Governance state shared by every wrapper made for one conversation, so that calling govern()
# again for the next run of the same conversation keeps what this process already recorded.
_GOVERNANCE: weakref.WeakKeyDictionary[GovernedConversation, AgentsGovernance] = (
    weakref.WeakKeyDictionary()
)


def govern(
    agent: Agent[ContextT],
    conversation: GovernedConversation,
    *,
    run_config: RunConfig | None = None,
) -> tuple[Agent[ContextT], RunConfig]:
    """A governed clone of ``agent`` and a governed copy of ``run_config`` for one conversation.

    Pass both to ``Runner.run``, ``Runner.run_sync`` or ``Runner.run_streamed``. Calling it again
    for the next run of the same conversation is cheap and keeps what was already recorded.
    """
    governance = AgentsGovernance.of(conversation)
    return governance.agent(agent), governance.run_config(run_config)


class AgentsGovernance:
    """The wrappers for one conversation, and what they share: the identities of the turns
    this process has recorded, so that each model call sends only the new ones.

    :func:`govern` is the usual entry point; use this class to wrap a single model or tool.
    """

    def __init__(self, conversation: GovernedConversation) -> None:
        self.conversation = conversation
        # Identities of the items recorded (or checked) through this object. The store keeps
        # the message ids across processes; this set only spares a round trip per old item,
        # and is bounded so that a long-lived conversation does not grow it without end.
        self.recorded = RecentIds(MAX_IDS_PER_CONVERSATION)
        # Gates of function calls decided when the model proposed them (so that the caller
        # sees the gated arguments), by call id, until the tool's invoker takes its own.
        self._gates: OrderedDict[str, tuple[ToolGate, bool]] = OrderedDict()

    @classmethod
    def of(cls, conversation: GovernedConversation) -> AgentsGovernance:
        """The governance of ``conversation`` (one per conversation object)."""
        governance = _GOVERNANCE.get(conversation)
        if governance is None:
            governance = _GOVERNANCE[conversation] = cls(conversation)
        return governance

    # --- wrapping the SDK's objects -----------------------------------------------------------

    def agent(self, agent: Agent[ContextT]) -> Agent[ContextT]:
        """A clone of ``agent`` (and of the agents it hands off to) with governed function
        tools and, when its model is a ``Model`` object, a governed model."""
        return self._agent(agent, {})

    def _agent(self, agent: Agent[Any], done: dict[int, Agent[Any]]) -> Agent[Any]:
        known = done.get(id(agent))
        if known is not None:
            return known
        # A shallow copy, as Agent.clone makes, without re-running the dataclass's validation
        # of fields the original already passed (a sixth of a millisecond per agent, per run).
        governed = copy.copy(agent)
        governed.tools = [self.tool(tool) for tool in agent.tools]
        if isinstance(agent.model, Model):
            governed.model = self.model(agent.model)
        # Registered before the handoffs are wrapped: two agents may hand off to each other.
        done[id(agent)] = governed
        governed.handoffs = [
            self._agent(target, done) if isinstance(target, Agent) else self._handoff(target)
            for target in agent.handoffs
        ]
        return governed

    def _handoff(self, handoff: Handoff[Any, Any]) -> Handoff[Any, Any]:
        """A copy of a ``Handoff`` whose target agent is governed when the handoff happens."""
        invoke = handoff.on_invoke_handoff

        async def governed_target(context: Any, arguments: str) -> Any:
            return self.agent(await invoke(context, arguments))

        governed = object.__new__(type(handoff))
        governed.__dict__.update(handoff.__dict__)
        governed.on_invoke_handoff = governed_target
        return governed

    def model(self, model: Model) -> Model:
        """``model`` governed (a model already governed for this conversation is kept; one
        governed for another conversation is governed for this one instead)."""
        if isinstance(model, GovernedModel):
            if model.governance is self:
                return model
            model = model.model
        return GovernedModel(model, self)

    def tool(self, tool: Tool) -> Tool:
        """A copy of a ``FunctionTool`` whose calls are gated and whose results are checked;
        any other tool unchanged."""
        if not isinstance(tool, FunctionTool):
            return tool
        invoke = tool.on_invoke_tool
        if isinstance(invoke, _GovernedInvoker):
            if invoke.governance is self:
                return tool
            invoke = invoke.invoke  # governed for another conversation: this one instead
        # A shallow copy whose invoker is the governed one, which calls the original's (bound
        # to the original tool, with the same failure policy). FunctionTool's own copy would
        # re-normalise the schema the original already normalised (0.1 ms per tool, per run).
        governed = object.__new__(type(tool))
        governed.__dict__.update(tool.__dict__)
        governed.on_invoke_tool = _GovernedInvoker(self, invoke)
        return governed

    def run_config(self, run_config: RunConfig | None = None) -> RunConfig:
        """A copy of ``run_config`` (a default one when None) whose models are governed: its
        ``model`` when that is a ``Model`` object, and every model its provider looks up."""
        base = run_config if run_config is not None else RunConfig()
        changes: dict[str, Any] = {}
        provider = base.model_provider
        if isinstance(provider, GovernedModelProvider) and provider.governance is not self:
            provider = provider.provider
        if not isinstance(provider, GovernedModelProvider):
            changes["model_provider"] = GovernedModelProvider(provider, self)
        if isinstance(base.model, Model):
            changes["model"] = self.model(base.model)
        return dataclasses.replace(base, **changes)

    # --- the model's function calls ------------------------------------------------------------

    def gated_tool_names(self, tools: Iterable[Tool]) -> frozenset[str]:
        """The names of the function tools among ``tools`` whose invoker is this governance's
        (the calls whose gate the invoker takes over)."""
        return frozenset(
            tool.name
            for tool in tools
            if isinstance(tool, FunctionTool)
            and isinstance(tool.on_invoke_tool, _GovernedInvoker)
            and tool.on_invoke_tool.governance is self
        )

    async def gated_call(self, call: ResponseFunctionToolCall) -> ResponseFunctionToolCall:
        """``call`` with the gated arguments: the proposed ones on allow, the safer ones on
        modify, :data:`BLOCKED_ARGUMENTS` on block. The gate is kept for the tool's invoker."""
        known = self._gates.get(call.call_id)
        if known is None:
            arguments, wrapped = _arguments(call.arguments)
            gate = await self.conversation.agate_tool(call.name, arguments)
            known = self._gates[call.call_id] = (gate, wrapped)
            while len(self._gates) > MAX_IDS_PER_CONVERSATION:
                self._gates.popitem(last=False)  # a call whose tool never ran
        gate, wrapped = known
        if gate.action == "allow":
            return call
        shown = BLOCKED_ARGUMENTS if not gate.runs else _input_of(gate.arguments, wrapped)
        return call.model_copy(update={"arguments": shown})

    def take_gate(self, call_id: str) -> tuple[ToolGate, bool] | None:
        """The gate decided for ``call_id`` when the model proposed it, if any (given once)."""
        return self._gates.pop(call_id, None)

    async def gated_output(
        self, output: Iterable[TResponseOutputItem], gated_names: frozenset[str]
    ) -> list[TResponseOutputItem]:
        """The output items with each function call of a governed tool gated."""
        return [
            await self.gated_call(item)
            if isinstance(item, ResponseFunctionToolCall) and item.name in gated_names
            else item
            for item in output
        ]

    # --- before each model call ---------------------------------------------------------------

    async def before_model_call(
        self,
        instructions: str | None,
        input: str | list[TResponseInputItem],
        *,
        origin: str,
    ) -> str:
        """Record the turns of ``input`` that are new, then the instructions with the block.

        Raises :class:`~govcore.integrations.GovernanceUnavailableError` when a turn cannot be
        recorded and the conversation fails closed: the model call must not happen.
        """
        conversation = self.conversation
        for turn in _turns(input, origin):
            if turn.key in self.recorded:
                continue
            if turn.role == "user":
                await conversation.arecord_user(turn.text, message_id=turn.key)
            elif turn.role == "assistant":
                await conversation.arecord_assistant(turn.text, message_id=turn.key)
            else:
                await conversation.arecord_tool_result(
                    turn.tool_name, turn.text, call_id=turn.call_id, message_id=turn.key
                )
            self.recorded.add(turn.key)
        return conversation.instructions(instructions)

    # --- the model's messages -----------------------------------------------------------------

    async def checked_output(
        self, output: Iterable[TResponseOutputItem], delivered: Mapping[str, str] | None = None
    ) -> list[TResponseOutputItem]:
        """The output items with each message's text checked and replaced by what to deliver.

        ``delivered`` holds the text already delivered for streamed parts (by part key), which
        is used as it is rather than checked again.
        """
        result: list[TResponseOutputItem] = []
        for item in output:
            if isinstance(item, ResponseOutputMessage):
                item = await self._checked_message(item, delivered or {})
            result.append(item)
        return result

    async def _checked_message(
        self, message: ResponseOutputMessage, delivered: Mapping[str, str]
    ) -> ResponseOutputMessage:
        content = []
        changed = False
        for index, part in enumerate(message.content):
            text = _part_text(part)
            if text is None:
                content.append(part)
                continue
            key = _part_key(message.id, index)
            deliver = delivered.get(key)
            if deliver is None:
                checked = await self.conversation.acheck_answer(text, message_id=key)
                deliver = checked.text
                self.recorded.add(key)
            if deliver != text:
                part = _with_text(part, deliver)
                changed = True
            content.append(part)
        return message.model_copy(update={"content": content}) if changed else message

    def message_id(self, item_id: str | None) -> str:
        """The id a message keeps: its own, or a new one when the model gave a placeholder."""
        if item_id and item_id != FAKE_RESPONSES_ID:
            return item_id
        return f"msg_govcore_{uuid.uuid4().hex}"


# Without the extra installed, mypy sees the SDK as Any (pyproject.toml): the ignore covers that.
class GovernedModel(Model):  # type: ignore[misc, unused-ignore]
    """A ``Model`` whose calls are governed: turns recorded and the block in the instructions
    before the call, messages checked (and a stream held back) after it."""

    def __init__(self, model: Model, governance: AgentsGovernance) -> None:
        self.model = model
        self.governance = governance

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        instructions = await self.governance.before_model_call(
            system_instructions, input, origin=previous_response_id or conversation_id or ""
        )
        response = await self.model.get_response(
            instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        output = [_with_message_id(item, self.governance.message_id) for item in response.output]
        output = await self.governance.checked_output(output)
        output = await self.governance.gated_output(output, self.governance.gated_tool_names(tools))
        return dataclasses.replace(response, output=output)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        instructions = await self.governance.before_model_call(
            system_instructions, input, origin=previous_response_id or conversation_id or ""
        )
        events = self.model.stream_response(
            instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        held = _HeldBackStream(self.governance, self.governance.gated_tool_names(tools))
        try:
            async for event in events:
                for governed in await held.handle(event):
                    yield governed
        finally:
            held.close()
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    def get_retry_advice(self, request: Any) -> Any:
        return self.model.get_retry_advice(request)

    async def close(self) -> None:
        await self.model.close()

    async def _cleanup_on_run_end(self, owner: object) -> None:
        await self.model._cleanup_on_run_end(owner)


class GovernedModelProvider(ModelProvider):  # type: ignore[misc, unused-ignore]
    """A ``ModelProvider`` whose models are governed (for agents that name their model)."""

    def __init__(self, provider: ModelProvider, governance: AgentsGovernance) -> None:
        self.provider = provider
        self.governance = governance

    def get_model(self, model_name: str | None) -> Model:
        return self.governance.model(self.provider.get_model(model_name))

    async def aclose(self) -> None:
        await self.provider.aclose()


class _GovernedInvoker:
    """A function tool's invoker with the gate before it and the result check after it."""

    def __init__(
        self,
        governance: AgentsGovernance,
        invoke: Callable[[ToolContext[Any], str], Awaitable[Any]],
    ) -> None:
        self.governance = governance
        self.invoke = invoke

    async def __call__(self, ctx: ToolContext[Any], input: str) -> Any:
        conversation = self.governance.conversation
        name = ctx.tool_name
        decided = self.governance.take_gate(ctx.tool_call_id)
        if decided is not None:
            # Gated when the model proposed it: ``input`` already holds the gated arguments.
            gate, wrapped = decided
        else:
            arguments, wrapped = _arguments(input)
            gate = await conversation.agate_tool(name, arguments)
        key = _output_key(ctx.tool_call_id)
        if gate.runs:
            if gate.action == "modify":
                input = _input_of(gate.arguments, wrapped)
            result = await self.invoke(ctx, input)
            # Checked and recorded in one request; a turn that could not be recorded is
            # left to the next model call, which records it or stops the run.
            checked = await conversation.acheck_and_record_tool_result(
                name, result, call_id=ctx.tool_call_id, message_id=key
            )
            if checked.recorded:
                self.governance.recorded.add(key)
            return checked.text if checked.changed else result
        output = gate.message or f"The tool call {name!r} was blocked."
        try:
            await conversation.arecord_tool_result(
                name, output, call_id=ctx.tool_call_id, message_id=key
            )
        except GovernanceUnavailableError:
            # Logged by the conversation; the next model call records it or stops the run.
            return output
        self.governance.recorded.add(key)
        return output


class _HeldBackPart:
    """One streamed text part, delivered through the conversation's held-back stream.

    The conversation's ``astream`` pulls deltas; the model's stream pushes them. A task runs
    ``astream`` over a queue: :meth:`push` hands it text and returns once the stream asks for
    more, with whatever text it released meanwhile. Text is handed over a check's worth at a
    time (``chunk_size`` characters): a held-back stream releases text only after a check, and
    it checks only once that much new text has come, so smaller hand-overs release nothing
    sooner and each would cost a task switch.
    """

    def __init__(
        self, conversation: GovernedConversation, message_id: str, *, refusal: bool
    ) -> None:
        self.refusal = refusal
        self.delivered = ""
        self._chunk_size = conversation.chunk_size
        self._pending: list[str] = []
        self._pending_length = 0
        self._inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self._released: list[str] = []
        self._waiting = asyncio.Event()
        self._task = asyncio.ensure_future(
            self._pump(conversation.astream(self._deltas(), message_id=message_id))
        )

    async def _deltas(self) -> AsyncIterator[str]:
        while True:
            if self._inbox.empty():
                self._waiting.set()
            delta = await self._inbox.get()
            if delta is None:
                return
            yield delta

    async def _pump(self, pieces: AsyncIterator[str]) -> None:
        try:
            async for piece in pieces:
                self._released.append(piece)
        finally:
            self._waiting.set()

    def _take(self) -> list[str]:
        if self._task.done() and not self._task.cancelled():
            error = self._task.exception()
            if error is not None:
                raise error
        pieces, self._released = self._released, []
        self.delivered += "".join(pieces)
        return pieces

    def _hand_over(self) -> None:
        if self._pending:
            self._inbox.put_nowait("".join(self._pending))
            self._pending, self._pending_length = [], 0

    async def push(self, delta: str) -> list[str]:
        """Feed a delta; the text released so far and not yet returned."""
        self._pending.append(delta)
        self._pending_length += len(delta)
        if self._pending_length < self._chunk_size or self._task.done():
            return self._take()
        self._waiting.clear()
        self._hand_over()
        await self._waiting.wait()
        return self._take()

    async def finish(self) -> list[str]:
        """End the part; the rest of the text to deliver."""
        self._hand_over()
        self._inbox.put_nowait(None)
        await asyncio.wait({self._task})
        return self._take()

    def cancel(self) -> None:
        self._task.cancel()


class _HeldBackStream:
    """Rewrites a model's event stream so that a caller only ever sees checked text.

    Text deltas go through a held-back part per (output index, content index); every event that
    repeats the text (a part or item done, the completed response) carries the delivered text.
    """

    def __init__(self, governance: AgentsGovernance, gated_names: frozenset[str]) -> None:
        self._governance = governance
        self._gated_names = gated_names
        self._calls: dict[int, ResponseFunctionToolCall] = {}  # output index -> a gated call
        self._ids: dict[int, str] = {}  # output index -> the message's id
        self._parts: dict[tuple[int, int], _HeldBackPart] = {}
        self._delivered: dict[str, str] = {}  # part key -> the text delivered

    def _id(self, output_index: int, item_id: str | None) -> str:
        known = self._ids.get(output_index)
        if known is None:
            known = self._ids[output_index] = self._governance.message_id(item_id)
        return known

    async def handle(self, event: TResponseStreamEvent) -> list[TResponseStreamEvent]:
        """The events to pass on in place of ``event`` (often just ``event``)."""
        calls = await self._function_call(event)
        if calls is not None:
            return calls
        if isinstance(event, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
            return await self._delta(event)
        if isinstance(event, ResponseTextDoneEvent):
            released, delivered = await self._part_done(event, event.text)
            changes: dict[str, Any] = {"item_id": released.item_id, "text": delivered}
            if delivered != event.text:
                changes["logprobs"] = []
            return [*released.events, _copy(event, **changes)]
        if isinstance(event, ResponseRefusalDoneEvent):
            released, delivered = await self._part_done(event, event.refusal)
            done = _copy(event, item_id=released.item_id, refusal=delivered)
            return [*released.events, done]
        if isinstance(event, ResponseContentPartDoneEvent):
            text = _part_text(event.part)
            if text is None:
                return [_copy(event, item_id=self._id(event.output_index, event.item_id))]
            released, delivered = await self._part_done(event, text)
            part = _with_text(event.part, delivered)
            return [*released.events, _copy(event, item_id=released.item_id, part=part)]
        if isinstance(event, ResponseContentPartAddedEvent):
            item_id = self._id(event.output_index, event.item_id)
            return [_copy(event, item_id=item_id, part=_blank_part(event.part))]
        if isinstance(event, ResponseOutputItemAddedEvent):
            if not isinstance(event.item, ResponseOutputMessage):
                return [event]
            # The text arrives in deltas: nothing is shown before they are checked.
            item_id = self._id(event.output_index, event.item.id)
            return [_copy(event, item=_blank(event.item.model_copy(update={"id": item_id})))]
        if isinstance(event, ResponseOutputItemDoneEvent):
            if not isinstance(event.item, ResponseOutputMessage):
                return [event]
            events = await self._finish_item(event.output_index)
            item = event.item.model_copy(update={"id": self._id(event.output_index, event.item.id)})
            checked = await self._governance.checked_output([item], self._delivered)
            return [*events, _copy(event, item=checked[0])]
        if isinstance(
            event, ResponseCompletedEvent | ResponseIncompleteEvent | ResponseFailedEvent
        ):
            events = []
            for output_index in sorted({slot[0] for slot in self._parts}):
                events.extend(await self._finish_item(output_index))
            output = [
                item.model_copy(update={"id": self._id(index, item.id)})
                if isinstance(item, ResponseOutputMessage)
                else item
                for index, item in enumerate(event.response.output)
            ]
            output = await self._governance.checked_output(output, self._delivered)
            output = await self._governance.gated_output(output, self._gated_names)
            response = event.response.model_copy(update={"output": output})
            return [*events, _copy(event, response=response)]
        if isinstance(event, ResponseCreatedEvent | ResponseInProgressEvent) and (
            event.response.output
        ):
            output = [
                _blank(item) if isinstance(item, ResponseOutputMessage) else self._blank_call(item)
                for item in event.response.output
            ]
            response = event.response.model_copy(update={"output": output})
            return [_copy(event, response=response)]
        return [event]

    def _is_gated(self, item: object) -> TypeGuard[ResponseFunctionToolCall]:
        return isinstance(item, ResponseFunctionToolCall) and item.name in self._gated_names

    def _blank_call(self, item: Any) -> Any:
        """A governed function call before it is gated: without its arguments."""
        if self._is_gated(item) and item.arguments:
            return item.model_copy(update={"arguments": ""})
        return item

    # A provider's stream announces each output item (``output_item.added``) before its argument
    # deltas, as the SDK's own models do: that is where a governed call is recognised.
    async def _function_call(
        self, event: TResponseStreamEvent
    ) -> list[TResponseStreamEvent] | None:
        """The events in place of one about a governed function call (its arguments are held
        until complete, then gated: the caller sees only the gated ones); None for others."""
        if isinstance(event, ResponseOutputItemAddedEvent) and self._is_gated(event.item):
            self._calls[event.output_index] = event.item
            return [_copy(event, item=self._blank_call(event.item))]
        call = self._calls.get(getattr(event, "output_index", -1))
        if call is None:
            return None
        if isinstance(event, ResponseFunctionCallArgumentsDeltaEvent):
            return []
        if isinstance(event, ResponseFunctionCallArgumentsDoneEvent):
            gated = await self._governance.gated_call(
                call.model_copy(update={"arguments": event.arguments})
            )
            delta = ResponseFunctionCallArgumentsDeltaEvent(
                type="response.function_call_arguments.delta",
                item_id=event.item_id,
                output_index=event.output_index,
                delta=gated.arguments,
                sequence_number=event.sequence_number,
            )
            return [delta, _copy(event, arguments=gated.arguments)]
        if isinstance(event, ResponseOutputItemDoneEvent) and self._is_gated(event.item):
            del self._calls[event.output_index]
            return [_copy(event, item=await self._governance.gated_call(event.item))]
        return None

    async def _delta(
        self, event: ResponseTextDeltaEvent | ResponseRefusalDeltaEvent
    ) -> list[TResponseStreamEvent]:
        item_id = self._id(event.output_index, event.item_id)
        slot = (event.output_index, event.content_index)
        part = self._parts.get(slot)
        if part is None:
            part = self._parts[slot] = _HeldBackPart(
                self._governance.conversation,
                _part_key(item_id, event.content_index),
                refusal=isinstance(event, ResponseRefusalDeltaEvent),
            )
        pieces = await part.push(event.delta)
        return [
            _delta_event(part.refusal, item_id, slot, event.sequence_number, piece)
            for piece in pieces
        ]

    async def _part_done(
        self,
        event: ResponseTextDoneEvent | ResponseRefusalDoneEvent | ResponseContentPartDoneEvent,
        original: str,
    ) -> tuple[_Released, str]:
        """Finish a part at its done event: the text still to release, and all it delivers."""
        item_id = self._id(event.output_index, event.item_id)
        events = await self._finish(event.output_index, event.content_index, event.sequence_number)
        key = _part_key(item_id, event.content_index)
        delivered = self._delivered.get(key)
        if delivered is None:
            # A provider that sends a part's text only when it is done: check it whole.
            checked = await self._governance.conversation.acheck_answer(original, message_id=key)
            delivered = self._delivered[key] = checked.text
            self._governance.recorded.add(key)
        return _Released(item_id, events), delivered

    async def _finish(
        self, output_index: int, content_index: int, sequence_number: int
    ) -> list[TResponseStreamEvent]:
        part = self._parts.pop((output_index, content_index), None)
        if part is None:
            return []
        pieces = await part.finish()
        item_id = self._id(output_index, None)
        key = _part_key(item_id, content_index)
        self._delivered[key] = part.delivered
        self._governance.recorded.add(key)
        slot = (output_index, content_index)
        return [
            _delta_event(part.refusal, item_id, slot, sequence_number, piece) for piece in pieces
        ]

    async def _finish_item(self, output_index: int) -> list[TResponseStreamEvent]:
        released: list[TResponseStreamEvent] = []
        for slot in sorted(slot for slot in self._parts if slot[0] == output_index):
            released.extend(await self._finish(*slot, sequence_number=0))
        return released

    def close(self) -> None:
        for part in self._parts.values():
            part.cancel()
        self._parts.clear()


@dataclasses.dataclass(frozen=True, slots=True)
class _Released:
    """A finished part's message id and the delta events with the rest of its text."""

    item_id: str
    events: list[TResponseStreamEvent]


# --- the SDK's items -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _Turn:
    key: str
    role: str
    text: str
    tool_name: str = ""
    call_id: str | None = None


def _field(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        text = _part_text(part)
        if text:
            texts.append(text)
    return "\n".join(texts)


def _part_text(part: Any) -> str | None:
    kind = _field(part, "type")
    if kind in ("output_text", "input_text", "text"):
        text = _field(part, "text")
    elif kind == "refusal":
        text = _field(part, "refusal")
    else:
        return None
    return text if isinstance(text, str) else None


def _with_text(part: Any, text: str) -> Any:
    kind = _field(part, "type")
    if kind == "refusal":
        return part.model_copy(update={"refusal": text})
    changes: dict[str, Any] = {"text": text}
    if _part_text(part) != text:
        # Annotations point into the text and logprobs spell it out: neither fits new text.
        changes["annotations"] = []
        if "logprobs" in type(part).model_fields:
            changes["logprobs"] = []
    return part.model_copy(update=changes)


def _blank_part(part: Any) -> Any:
    return _with_text(part, "") if _part_text(part) else part


def _blank(message: ResponseOutputMessage) -> ResponseOutputMessage:
    """The message without its text (for events that come before the text is checked)."""
    if not any(_part_text(part) for part in message.content):
        return message
    return message.model_copy(update={"content": [_blank_part(part) for part in message.content]})


def _copy(event: Any, **changes: Any) -> Any:
    return event.model_copy(update=changes)


def _delta_event(
    refusal: bool, item_id: str, slot: tuple[int, int], sequence_number: int, piece: str
) -> TResponseStreamEvent:
    """A delta event carrying released text, of the kind of the part it belongs to."""
    output_index, content_index = slot
    if refusal:
        return ResponseRefusalDeltaEvent(
            type="response.refusal.delta",
            item_id=item_id,
            output_index=output_index,
            content_index=content_index,
            delta=piece,
            sequence_number=sequence_number,
        )
    return ResponseTextDeltaEvent(
        type="response.output_text.delta",
        item_id=item_id,
        output_index=output_index,
        content_index=content_index,
        delta=piece,
        logprobs=[],
        sequence_number=sequence_number,
    )


def _with_message_id(
    item: TResponseOutputItem, message_id: Callable[[str | None], str]
) -> TResponseOutputItem:
    if isinstance(item, ResponseOutputMessage):
        given = message_id(item.id)
        if given != item.id:
            return item.model_copy(update={"id": given})
    return item


def _part_key(message_id: str, content_index: int) -> str:
    key = "msg:" + message_id
    return key if content_index == 0 else f"{key}#{content_index}"


def _output_key(call_id: str) -> str:
    return "output:" + call_id


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _arguments(text: str) -> tuple[dict[str, Any], bool]:
    """A tool call's arguments to gate, and whether they were wrapped: a JSON object as it is;
    anything else (a hand-written tool may take any text) as ``{"input": ...}``, so that the
    tool's deny rules and the detect rules still read it."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {"input": text}, True
    if isinstance(value, dict):
        return value, False
    return {"input": value}, True


def _input_of(arguments: Mapping[str, Any], wrapped: bool) -> str:
    """The tool input for (safer) arguments, in the form the tool was called with."""
    if not wrapped:
        return json.dumps(arguments, ensure_ascii=False)
    value = arguments.get("input")
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _turns(input: str | list[TResponseInputItem], origin: str) -> Iterator[_Turn]:
    """The turns of a model input, each with the identity it is recorded under."""
    if isinstance(input, str):
        if input.strip():
            # The identity the same text has as the first item of a list input.
            yield _Turn(f"user:{origin}:1:{_digest(input)}", "user", input)
        return
    tool_names: dict[str, str] = {}
    anchor, distance = origin, 0
    for item in input:
        kind = _field(item, "type")
        role = _field(item, "role")
        distance += 1
        if kind == "function_call":
            call_id = _field(item, "call_id")
            if isinstance(call_id, str):
                tool_names[call_id] = str(_field(item, "name") or "")
                anchor, distance = "call:" + call_id, 0
        elif kind == "function_call_output":
            call_id = _field(item, "call_id")
            if isinstance(call_id, str):
                output = _field(item, "output")
                text = output if isinstance(output, str) else _content_text(output)
                key = _output_key(call_id)
                # With a server-side history the call may not be in the input: a generic name.
                name = tool_names.get(call_id) or "tool"
                yield _Turn(key, "tool", text, name, call_id)
                anchor, distance = key, 0
        elif role == "assistant" and kind in (None, "message"):
            item_id = _field(item, "id")
            content = _field(item, "content")
            if isinstance(item_id, str) and item_id and item_id != FAKE_RESPONSES_ID:
                if isinstance(content, list):
                    for index, part in enumerate(content):
                        part_text = _part_text(part)
                        if part_text:
                            yield _Turn(_part_key(item_id, index), "assistant", part_text)
                elif isinstance(content, str) and content.strip():
                    yield _Turn(_part_key(item_id, 0), "assistant", content)
                anchor, distance = "msg:" + item_id, 0
            else:
                text = _content_text(content)
                if text.strip():
                    yield _Turn(f"assistant:{anchor}:{distance}:{_digest(text)}", "assistant", text)
        elif role == "user" and kind in (None, "message"):
            text = _content_text(_field(item, "content"))
            if text.strip():
                yield _Turn(f"user:{anchor}:{distance}:{_digest(text)}", "user", text)
        else:
            item_id = _field(item, "id")
            if isinstance(item_id, str) and item_id and item_id != FAKE_RESPONSES_ID:
                anchor, distance = "item:" + item_id, 0
