"""A governed conversation: what every framework adapter does, framework-neutral.

An adapter maps its framework's hooks onto one :class:`GovernedConversation`:

* before each model call, the user's turn is recorded (:meth:`~GovernedConversation.record_user`)
  and :meth:`~GovernedConversation.instructions` puts the policies' injection block into the
  model's instructions;
* before a tool runs, :meth:`~GovernedConversation.gate_tool` allows it, hands back safer arguments
  or blocks it with a message the model can read; after it ran,
  :meth:`~GovernedConversation.check_tool_result` checks what it returned and
  :meth:`~GovernedConversation.record_tool_result` records it as a tool turn, or
  :meth:`~GovernedConversation.check_and_record_tool_result` does both in one request;
* the model's answer is checked once and recorded (:meth:`~GovernedConversation.check_answer`),
  and a streamed answer is held back until checked (:meth:`~GovernedConversation.stream`).

Every turn can carry the framework's own message id, so a history replayed into the next run
records nothing twice, across workers and restarts (the ids are kept in the store with the
conversation).

When govcore cannot decide (its store is down, a timeout, a bug), the conversation *fails
closed* by default: a tool call is blocked, an answer or tool result is withheld, and recording
a turn raises :class:`GovernanceUnavailableError` so that no model call runs without its
policies. ``fail="open"`` lets the call, the text or the model call through instead. Either way
one line is logged on the ``govcore.integrations`` logger. Errors of the caller's own making (a
bad request, a missing scope, an unknown key) are raised as they are: they are bugs to fix, not
outages to ride out.

Each method has an asyncio twin (``arecord_user``, ``agate_tool``, ...). The conversation takes
either typed client and reaches the other through ``client.aio`` or ``client.blocking``, so one
object serves a framework's sync and async paths.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import inspect
import json
import logging
import uuid
from collections import OrderedDict, deque
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from govcore import FixReaction, ToolGate, jsonable_arguments, text_to_deliver
from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.errors import (
    BackendError,
    GovcoreError,
    InternalError,
    RateLimitedError,
)
from govcore.models import PostInferenceResponse, TurnResponse
from govcore.stream_guard import StreamGuard

__all__ = [
    "WITHHELD_TEXT",
    "CheckedText",
    "FailMode",
    "GovernanceUnavailableError",
    "GovernedConversation",
]

FailMode = Literal["closed", "open"]
"""What a conversation does when govcore cannot decide: block and withhold, or let through."""

WITHHELD_TEXT = "[withheld: this text could not be checked against the organisation's policies]"
"""What a user sees instead of an answer or tool result that could not be checked (fail closed)."""

BLOCKED_UNCHECKED = (
    "The tool call was not run: it could not be checked against the organisation's policies. "
    "Do not retry it now."
)
"""What the model reads when a tool call could not be checked (fail closed)."""

# A tool turn is recorded for selection, which reads a bounded number of terms: the whole result
# is checked by check_tool_result, so the turn keeps only its head (under the turn size limit).
TOOL_TURN_CHARACTERS = 16_000

# Verdicts of answers kept so that several hooks seeing one answer pay one check; the oldest go
# first (a long conversation checks each new answer once all the same).
ANSWERS_KEPT = 1024

_LOG = logging.getLogger("govcore.integrations")

ResultT = TypeVar("ResultT")


@dataclass(frozen=True, slots=True)
class _Call:
    """One call a plan asks of the client: the method's name and its arguments (the same for
    the blocking and the asyncio client)."""

    method: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


_Plan = Generator[_Call, Any, ResultT]

# Failures that mean "govcore could not decide", as opposed to a refusal of the caller's own
# making (a bad request, a missing scope, an unknown key), which is raised as it is.
_UNDECIDED: tuple[type[BaseException], ...] = (
    BackendError,
    InternalError,
    RateLimitedError,
    TimeoutError,
)


class GovernanceUnavailableError(GovcoreError):
    """govcore could not decide and the conversation fails closed: the model call must not run.

    Raised by the ``record_*`` methods of a :class:`GovernedConversation` with ``fail="closed"``;
    the error govcore met is its ``__cause__``.
    """

    status = 503
    code = "governance_unavailable"


@dataclass(frozen=True, slots=True)
class CheckedText:
    """A checked answer or tool result, and what to deliver.

    Attributes:
        text: what to deliver: the original, its redaction, or :data:`WITHHELD_TEXT`.
        verdict: the check's verdict; ``None`` when govcore could not decide.
        changed: ``text`` differs from the text that was checked.
        withheld: govcore could not decide and the conversation fails closed.
        recorded: the text was also recorded as a turn (by
            :meth:`GovernedConversation.check_answer` and
            :meth:`GovernedConversation.check_and_record_tool_result`); not when the store
            failed and only the check could be made.
    """

    text: str
    verdict: PostInferenceResponse | None
    changed: bool
    withheld: bool
    recorded: bool = False


class GovernedConversation:
    """One conversation governed through a typed client, for any framework.

    Args:
        client: a :class:`~govcore.GovernanceClient` or :class:`~govcore.AsyncGovernanceClient`
            (or an object that forwards to one). Its key needs the scopes of the calls made:
            turns, tool calls and output checks.
        session_id: the conversation; a new random id when the framework has none.
        on_fix: how a tool call with a blocking violation is handled (:data:`govcore.FixReaction`):
            ``"apply"`` runs it with the safer arguments when they check clean, ``"block"``
            refuses it, ``"retry"`` refuses it and tells the model the safer arguments.
        fail: ``"closed"`` (the default) or ``"open"``: what happens when govcore cannot decide.
        token_budget: the injection block's budget in tokens (the interface's default when None).
        attributes: end-user attributes sent with each user turn (``appliesWhen`` reads them).
        policy_area_ids: restrict selection to these policy areas (answers, tool results and
            streams are still checked against every rule of the tenant).
        context_turns: how many earlier turns of this conversation are sent as context.
        chunk_size: characters between two checks of a streamed answer.
        logger: where the one line about a failure goes (``govcore.integrations`` by default).
    """

    def __init__(
        self,
        client: GovernanceClient | AsyncGovernanceClient,
        session_id: str | None = None,
        *,
        on_fix: FixReaction = "apply",
        fail: FailMode = "closed",
        token_budget: int | None = None,
        attributes: Mapping[str, Any] | None = None,
        policy_area_ids: Sequence[str] | None = None,
        context_turns: int = 2,
        chunk_size: int = 200,
        logger: logging.Logger | None = None,
    ) -> None:
        if fail not in ("closed", "open"):
            raise ValueError(f"fail must be 'closed' or 'open', not {fail!r}")
        if on_fix not in ("apply", "block", "retry"):
            raise ValueError(f"on_fix must be 'apply', 'block' or 'retry', not {on_fix!r}")
        if context_turns < 0:
            raise ValueError("context_turns must be 0 or more")
        self._client = client
        self.session_id = session_id if session_id else uuid.uuid4().hex
        self.on_fix: FixReaction = on_fix
        self.fail: FailMode = fail
        self.token_budget = token_budget
        self.attributes = dict(attributes) if attributes is not None else None
        self.policy_area_ids = list(policy_area_ids) if policy_area_ids is not None else None
        self.chunk_size = chunk_size
        self.injection_block = ""
        self.last_turn: TurnResponse | None = None
        self.last_stream: StreamGuard | None = None
        self._context: deque[str] = deque(maxlen=context_turns or None)
        self._context_turns = context_turns
        self._answers: OrderedDict[str, CheckedText] = OrderedDict()
        self._log = logger if logger is not None else _LOG

    # --- the two clients -----------------------------------------------------------------------

    @property
    def blocking_client(self) -> GovernanceClient:
        """The client for blocking calls (the given one, or the async one's blocking twin)."""
        client: Any = self._client
        blocking = getattr(client, "blocking", None)
        return client if blocking is None else blocking  # type: ignore[no-any-return]

    @property
    def async_client(self) -> AsyncGovernanceClient:
        """The client for asyncio (the given one, or the blocking one's asyncio twin)."""
        client: Any = self._client
        aio = getattr(client, "aio", None)
        return client if aio is None else aio  # type: ignore[no-any-return]

    # --- requests ------------------------------------------------------------------------------

    def _turn_request(self, role: str, text: str, *, with_context: bool) -> dict[str, Any]:
        request: dict[str, Any] = {
            "sessionId": self.session_id,
            "turn": {"role": role, "content": text},
        }
        if with_context and self._context_turns and self._context:
            request["recentContext"] = list(self._context)
        if role == "user" and self.attributes is not None:
            request["endUserContext"] = {"attributes": self.attributes}
        if self.policy_area_ids is not None:
            request["policyAreaIds"] = self.policy_area_ids
        if self.token_budget is not None:
            request["tokenBudget"] = self.token_budget
        return request

    def _took(self, response: TurnResponse, text: str) -> None:
        self.last_turn = response
        self.injection_block = response.injection_block
        if self._context_turns:
            self._context.append(text)

    @staticmethod
    def _tool_text(result: Any) -> str:
        if isinstance(result, str):
            return result
        return json.dumps(jsonable_arguments({"result": result})["result"], ensure_ascii=False)

    @staticmethod
    def _answer_key(text: str, message_id: str | None) -> str:
        # The text is always part of the key: a framework (or a provider) that gives two
        # different answers the same id must not get the first one's verdict for the second.
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return f"{message_id or ''}\x00{digest}"

    def _known_answer(self, key: str) -> CheckedText | None:
        known = self._answers.get(key)
        if known is not None:
            self._answers.move_to_end(key)
        return known

    def _remember_answer(self, key: str, checked: CheckedText) -> None:
        self._answers[key] = checked
        if len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)

    def _answer_request(self, text: str) -> dict[str, Any]:
        request = self._turn_request("assistant", text, with_context=True)
        # One call records the answer and checks it, unless the conversation restricts
        # selection to some policy areas: checkOutput would restrict the check to those areas
        # too, and an answer is checked against every rule of the tenant, as a stream is.
        if self.policy_area_ids is None:
            request["checkOutput"] = True
        return request

    @staticmethod
    def _verdict_of(response: TurnResponse) -> PostInferenceResponse:
        verdict = response.post_inference_check
        if verdict is None:  # a checked turn always answers a verdict, on a replay too
            raise InternalError("a turn sent with a check answered no verdict")
        return verdict

    def _answer_check(self, text: str) -> dict[str, Any]:
        return {"sessionId": self.session_id, "output": text}

    # --- failure -------------------------------------------------------------------------------

    def _undecided(
        self, what: str, error: BaseException, outcome_closed: str, outcome_open: str
    ) -> None:
        """Log the one line about a failure to decide."""
        outcome = outcome_closed if self.fail == "closed" else outcome_open
        self._log.warning(
            "govcore could not decide on %s (%s: %s); %s (fail %s)",
            what,
            type(error).__name__,
            getattr(error, "message", str(error)),
            outcome,
            self.fail,
        )

    def _record_failed(self, what: str, error: BaseException) -> None:
        self._undecided(
            what,
            error,
            "the model call is stopped",
            "the model call goes on with the last policies",
        )
        if self.fail == "closed":
            raise GovernanceUnavailableError(
                f"govcore could not record the {what}: {type(error).__name__}"
            ) from error

    def _gate_failed(
        self, tool_name: str, arguments: Mapping[str, Any], error: BaseException
    ) -> ToolGate:
        self._undecided(
            f"the tool call {tool_name!r}",
            error,
            "the tool call is blocked",
            "the tool call runs unchecked",
        )
        if self.fail == "closed":
            return ToolGate(
                action="block",
                arguments=dict(arguments),
                message=BLOCKED_UNCHECKED,
                decision=None,
                recheck=None,
            )
        return ToolGate(
            action="allow", arguments=dict(arguments), message=None, decision=None, recheck=None
        )

    def _check_failed(self, what: str, text: str, error: BaseException) -> CheckedText:
        self._undecided(what, error, "it is withheld", "it is delivered unchecked")
        if self.fail == "closed":
            return CheckedText(WITHHELD_TEXT, None, changed=True, withheld=True)
        return CheckedText(text, None, changed=False, withheld=False)

    @staticmethod
    def _checked(text: str, verdict: PostInferenceResponse) -> CheckedText:
        delivered = text_to_deliver(text, verdict)
        return CheckedText(delivered, verdict, changed=delivered != text, withheld=False)

    # --- one plan per call, carried out blocking or awaited ------------------------------------

    # Each public method and its asyncio twin run the same plan: a generator that yields the
    # client calls it needs (:class:`_Call`) and gets their answers (or their errors) back, so
    # the rules live once and only the waiting differs.

    def _carry_out(self, plan: _Plan[ResultT]) -> ResultT:
        """Run ``plan`` with the blocking client; a call's error is raised inside the plan."""
        client: Any = self.blocking_client
        answer: Any = None
        error: Exception | None = None
        while True:
            try:
                call = plan.send(answer) if error is None else plan.throw(error)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]  # the plan's declared result
            answer, error = None, None
            try:
                answer = getattr(client, call.method)(*call.args, **call.kwargs)
            except Exception as exc:
                error = exc

    async def _acarry_out(self, plan: _Plan[ResultT]) -> ResultT:
        """Run ``plan`` with the asyncio client, awaiting every call."""
        client: Any = self.async_client
        answer: Any = None
        error: Exception | None = None
        while True:
            try:
                call = plan.send(answer) if error is None else plan.throw(error)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]  # the plan's declared result
            answer, error = None, None
            try:
                answer = await self._await(getattr(client, call.method)(*call.args, **call.kwargs))
            except Exception as exc:
                error = exc

    def _record_plan(
        self, role: str, text: str, what: str, **identifiers: str | None
    ) -> _Plan[None]:
        request = self._turn_request(role, text, with_context=True)
        try:
            response = yield _Call("record_turn", (request,), identifiers)
        except _UNDECIDED as error:
            self._record_failed(what, error)
            return
        self._took(response, text)

    def _record_user_plan(self, text: str, message_id: str | None) -> _Plan[str]:
        yield from self._record_plan("user", text, "user turn", message_id=message_id)
        return self.injection_block

    def _record_assistant_plan(self, text: str, message_id: str | None) -> _Plan[None]:
        if text.strip():
            yield from self._record_plan("assistant", text, "assistant turn", message_id=message_id)

    def _record_tool_result_plan(
        self, tool_name: str, result: Any, call_id: str | None, message_id: str | None
    ) -> _Plan[None]:
        text = self._tool_text(result)[:TOOL_TURN_CHARACTERS]
        if text.strip():
            yield from self._record_plan(
                "tool",
                text,
                "tool turn",
                message_id=message_id,
                tool_name=tool_name,
                tool_call_id=call_id,
            )

    def _gate_plan(
        self, tool_name: str, arguments: Mapping[str, Any], trace_id: str | None
    ) -> _Plan[ToolGate]:
        try:
            gate: ToolGate = yield _Call(
                "gate_tool_call",
                (self.session_id, tool_name, arguments),
                {"on_fix": self.on_fix, "trace_id": trace_id},
            )
        except _UNDECIDED as error:
            return self._gate_failed(tool_name, arguments, error)
        return gate

    def _check_tool_result_plan(
        self, tool_name: str, result: Any, call_id: str | None
    ) -> _Plan[CheckedText]:
        text = self._tool_text(result)
        if not text.strip():
            return CheckedText(text, None, changed=False, withheld=False)
        try:
            verdict = yield _Call(
                "check_tool_result", (self.session_id, tool_name, text), {"call_id": call_id}
            )
        except _UNDECIDED as error:
            return self._check_failed(f"the result of {tool_name!r}", text, error)
        return self._checked(text, verdict)

    def _check_and_record_tool_result_plan(
        self, tool_name: str, result: Any, call_id: str | None, message_id: str | None
    ) -> _Plan[CheckedText]:
        text = self._tool_text(result)
        if not text.strip():  # nothing to check, and no turn (as either call alone decides)
            return CheckedText(text, None, changed=False, withheld=False)
        identifiers = {"message_id": message_id, "tool_name": tool_name, "tool_call_id": call_id}
        if len(text) > TOOL_TURN_CHARACTERS:
            # The turn keeps the head and the check reads the whole: two requests, the turn
            # with what is delivered, as record_tool_result after check_tool_result records it.
            checked = yield from self._check_tool_result_plan(tool_name, text, call_id)
            head = checked.text[:TOOL_TURN_CHARACTERS]
            if checked.verdict is None or not head.strip():
                return checked
            try:
                response = yield _Call(
                    "record_turn",
                    (self._turn_request("tool", head, with_context=True),),
                    identifiers,
                )
            except _UNDECIDED as error:
                self._undecided(
                    "a tool turn", error, "it is not recorded now", "it is not recorded now"
                )
                return checked
            self._took(response, head)
            return dataclasses.replace(checked, recorded=True)
        request = self._turn_request("tool", text, with_context=True)
        try:
            response = yield _Call("record_turn", (request,), {**identifiers, "check_result": True})
            verdict = self._verdict_of(response)
        except _UNDECIDED as error:
            # The turn needs the store and the check does not: a store that fails must not
            # cost the check (a result delivered unredacted, or withheld, that one stateless
            # request can still decide). The turn is left to a later record. One line is
            # logged: the turn's when the check decides, else the check's.
            checked = yield from self._check_tool_result_plan(tool_name, text, call_id)
            if checked.verdict is not None:
                self._undecided(
                    "a tool turn", error, "it is not recorded now", "it is not recorded now"
                )
            return checked
        checked = dataclasses.replace(self._checked(text, verdict), recorded=True)
        # Later turns read what was delivered as their context, as after record_tool_result.
        self._took(response, checked.text)
        return checked

    def _check_answer_plan(self, text: str, message_id: str | None) -> _Plan[CheckedText]:
        key = self._answer_key(text, message_id)
        known = self._known_answer(key)
        if known is not None:
            return known
        if not text.strip():
            checked = CheckedText(text, None, changed=False, withheld=False)
        else:
            request = self._answer_request(text)
            response = None
            try:
                response = yield _Call("record_turn", (request,), {"message_id": message_id})
                if "checkOutput" in request:
                    verdict = self._verdict_of(response)
                else:
                    verdict = yield _Call("post_inference", (self._answer_check(text),), {})
            except _UNDECIDED as error:
                if response is not None:  # recorded, but the check itself could not decide
                    return self._check_failed("the answer", text, error)
                # The turn needs the store and the check does not: as for a tool's result,
                # a failing store costs the record, never the check (one line logged).
                try:
                    verdict = yield _Call("post_inference", (self._answer_check(text),), {})
                except _UNDECIDED as check_error:
                    return self._check_failed("the answer", text, check_error)
                self._undecided(
                    "the answer's turn", error, "it is not recorded now", "it is not recorded now"
                )
                # Not remembered: the same answer handed over again tries its turn again.
                return self._checked(text, verdict)
            self._took(response, text)
            checked = dataclasses.replace(self._checked(text, verdict), recorded=True)
        self._remember_answer(key, checked)
        return checked

    # --- blocking ------------------------------------------------------------------------------

    def record_user(self, text: str, *, message_id: str | None = None) -> str:
        """Record the user's turn; returns the injection block to put in the instructions."""
        return self._carry_out(self._record_user_plan(text, message_id))

    def record_assistant(self, text: str, *, message_id: str | None = None) -> None:
        """Record an assistant turn without checking it (an answer already checked, or one that
        only calls tools). Empty text records nothing."""
        self._carry_out(self._record_assistant_plan(text, message_id))

    def record_tool_result(
        self,
        tool_name: str,
        result: Any,
        *,
        call_id: str | None = None,
        message_id: str | None = None,
    ) -> None:
        """Record what a tool returned as a tool turn (its head only: selection reads a bounded
        number of terms, and :meth:`check_tool_result` checks the whole of it)."""
        self._carry_out(self._record_tool_result_plan(tool_name, result, call_id, message_id))

    def gate_tool(
        self, tool_name: str, arguments: Mapping[str, Any], *, trace_id: str | None = None
    ) -> ToolGate:
        """Allow, modify or block a proposed tool call (see ``on_fix``)."""
        return self._carry_out(self._gate_plan(tool_name, arguments, trace_id))

    def check_tool_result(
        self, tool_name: str, result: Any, *, call_id: str | None = None
    ) -> CheckedText:
        """Check what a tool returned before the model or the user sees it."""
        return self._carry_out(self._check_tool_result_plan(tool_name, result, call_id))

    def check_and_record_tool_result(
        self,
        tool_name: str,
        result: Any,
        *,
        call_id: str | None = None,
        message_id: str | None = None,
    ) -> CheckedText:
        """:meth:`check_tool_result` and :meth:`record_tool_result` in one request: the result
        is checked against every rule and recorded as the tool turn (a result longer than
        the turn's head takes two requests).

        The turn records the result as the tool returned it (the check is of the same
        request; a result longer than the turn's head records the head of what is delivered,
        in a second request); later turns read what is delivered as their context.
        ``recorded`` says whether the turn was recorded: not for an empty result, and not when
        the request failed. Then the result is checked by a request of its own, which needs no
        store (a store outage costs the turn, not the check), and handled as
        :meth:`check_tool_result` handles it; record the delivered text later, or let the next
        model call's history do it.
        """
        return self._carry_out(
            self._check_and_record_tool_result_plan(tool_name, result, call_id, message_id)
        )

    def check_answer(self, text: str, *, message_id: str | None = None) -> CheckedText:
        """Check the model's answer once and record it as the assistant's turn.

        The same answer (the same text under the same ``message_id``, or none) is checked once
        per conversation object: a framework that hands the answer to several hooks pays one
        check. With ``policy_area_ids`` the turn and the check are two calls (the check reads
        every rule of the tenant; a turn's ``checkOutput`` would read only those areas').
        """
        return self._carry_out(self._check_answer_plan(text, message_id))

    def stream(self, deltas: Iterable[str], *, message_id: str | None = None) -> Iterator[str]:
        """Deliver a streamed answer held back until checked, then record it.

        Yields only text a check has covered; at the end, the rest of the deliverable text. If
        govcore fails mid-stream, what was delivered stays delivered and the rest is withheld
        (fail closed: :data:`WITHHELD_TEXT` is yielded once) or passed on unchecked (fail open).
        """
        guard = self._guard(self.blocking_client)
        self.last_stream = guard
        source = iter(deltas)
        try:
            yield from guard.wrap(source)
        except _UNDECIDED as error:
            yield from self._stream_failed(guard, error, source)
            return
        self._record_streamed(guard, message_id)

    def _stream_failed(
        self, guard: StreamGuard, error: BaseException, rest: Iterable[str]
    ) -> Iterator[str]:
        self._undecided(
            "a streamed answer", error, "the rest is withheld", "the rest is passed on unchecked"
        )
        if self.fail == "closed":
            yield WITHHELD_TEXT
            return
        unreleased = guard.text[len(guard.released) :]
        if unreleased:
            yield unreleased
        yield from rest

    def _record_streamed(self, guard: StreamGuard, message_id: str | None) -> None:
        # The answer was checked and delivered; a lost record is logged, not raised.
        with contextlib.suppress(GovernanceUnavailableError):
            self.record_assistant(guard.text, message_id=message_id)

    def stream_guard(self) -> StreamGuard:
        """A hold-back guard over this conversation (for adapters that drive the stream), on the
        client the conversation was given."""
        return self._guard(self._client)

    def _guard(self, client: Any) -> StreamGuard:
        return StreamGuard(client, self.session_id, chunk_size=self.chunk_size, hold_back=True)

    def instructions(self, base: str | None = None) -> str:
        """``base`` instructions followed by the current injection block (either may be empty)."""
        parts = [part for part in (base, self.injection_block) if part]
        return "\n\n".join(parts)

    # --- asyncio -------------------------------------------------------------------------------

    @staticmethod
    async def _await(value: Awaitable[ResultT] | ResultT) -> ResultT:
        # A tracing wrapper may hand back either a value or an awaitable: accept both.
        if inspect.isawaitable(value):
            return await value
        return value

    async def arecord_user(self, text: str, *, message_id: str | None = None) -> str:
        """:meth:`record_user` for asyncio."""
        return await self._acarry_out(self._record_user_plan(text, message_id))

    async def arecord_assistant(self, text: str, *, message_id: str | None = None) -> None:
        """:meth:`record_assistant` for asyncio."""
        await self._acarry_out(self._record_assistant_plan(text, message_id))

    async def arecord_tool_result(
        self,
        tool_name: str,
        result: Any,
        *,
        call_id: str | None = None,
        message_id: str | None = None,
    ) -> None:
        """:meth:`record_tool_result` for asyncio."""
        await self._acarry_out(
            self._record_tool_result_plan(tool_name, result, call_id, message_id)
        )

    async def agate_tool(
        self, tool_name: str, arguments: Mapping[str, Any], *, trace_id: str | None = None
    ) -> ToolGate:
        """:meth:`gate_tool` for asyncio."""
        return await self._acarry_out(self._gate_plan(tool_name, arguments, trace_id))

    async def acheck_tool_result(
        self, tool_name: str, result: Any, *, call_id: str | None = None
    ) -> CheckedText:
        """:meth:`check_tool_result` for asyncio."""
        return await self._acarry_out(self._check_tool_result_plan(tool_name, result, call_id))

    async def acheck_and_record_tool_result(
        self,
        tool_name: str,
        result: Any,
        *,
        call_id: str | None = None,
        message_id: str | None = None,
    ) -> CheckedText:
        """:meth:`check_and_record_tool_result` for asyncio."""
        return await self._acarry_out(
            self._check_and_record_tool_result_plan(tool_name, result, call_id, message_id)
        )

    async def acheck_answer(self, text: str, *, message_id: str | None = None) -> CheckedText:
        """:meth:`check_answer` for asyncio."""
        return await self._acarry_out(self._check_answer_plan(text, message_id))

    async def astream(
        self, deltas: AsyncIterable[str], *, message_id: str | None = None
    ) -> AsyncIterator[str]:
        """:meth:`stream` for an async stream of deltas."""
        # The asyncio client, so that no check blocks the loop.
        guard = self._guard(self.async_client)
        self.last_stream = guard
        source = aiter(deltas)
        try:
            async for piece in guard.awrap(source):
                yield piece
        except _UNDECIDED as error:
            for piece in self._stream_failed(guard, error, ()):
                yield piece
            if self.fail == "open":
                async for delta in source:
                    yield delta
            return
        with contextlib.suppress(GovernanceUnavailableError):
            await self.arecord_assistant(guard.text, message_id=message_id)
