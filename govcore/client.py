"""The typed, in-process clients: one method per endpoint, over the same pipeline as ``handle``.

:class:`GovernanceClient` runs each request on a blocking store; :class:`AsyncGovernanceClient`
has the same methods, each awaitable, and awaits an asynchronous store. Both run the same
handlers (:mod:`govcore.service.effects`), and share their plumbing in :class:`BaseClient` (as
httpx's ``Client`` and ``AsyncClient`` share ``BaseClient``): each method names its row of the
endpoint table (:mod:`govcore.service.endpoints`) and is one line in either facade, written out
so that its signature and types are exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

from govcore.core.selection import SelectionExplanation
from govcore.models import (
    ConversationSnapshot,
    FinalizeOutputRequest,
    PostInferenceRequest,
    PostInferenceResponse,
    PreInferenceRequest,
    PreInferenceResponse,
    StreamCheckRequest,
    StreamCheckResponse,
    ToolCallDecision,
    ToolCallRequest,
    TurnRequest,
    TurnResponse,
)
from govcore.service import endpoints
from govcore.service.conversations import IdentifiedTurn
from govcore.service.effects import Steps, run_async, run_sync
from govcore.service.endpoints import ClientCall, Endpoint, call
from govcore.service.shared import Result, Serving
from govcore.tool_gate import (
    FixReaction,
    ToolGate,
    after_recheck,
    check_fix_reaction,
    first_gate,
    tool_call_request,
    tool_result_request,
)
from govcore.types import AsyncStore, Store

__all__ = ["AsyncGovernanceClient", "BaseClient", "GovernanceClient"]

RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")
StoreT = TypeVar("StoreT", Store, AsyncStore)


class BaseClient(Generic[StoreT]):
    """What both typed clients share: the service, the store and the key of every request,
    turning a call into the pipeline's steps, and the answer of those steps.

    A facade adds only how it waits for its store: :class:`GovernanceClient` runs the steps on
    a blocking store, :class:`AsyncGovernanceClient` awaits them on an asynchronous one.
    """

    def __init__(self, serving: Serving, store: StoreT, api_key: str) -> None:
        self._serving = serving  # read once per request: a reload swaps what it holds
        self._store: StoreT = store
        self._api_key = api_key
        # The client of the other kind over the same service, key and state (``aio`` and
        # ``blocking``), made at first use and paired both ways.
        self._twin: BaseClient[Any] | None = None

    def _steps(
        self, endpoint: Endpoint[RequestT, ResponseT], payload: Any
    ) -> Steps[Result[ResponseT]]:
        """The pipeline of one request to ``endpoint`` (:func:`~govcore.service.endpoints.call`):
        ``payload`` is a request model, a mapping of wire fields, a path parameter or ``None``."""
        return call(self._serving.service, endpoint, self._api_key, payload)

    @staticmethod
    def _answer(result: Result[ResponseT]) -> ResponseT:
        """The model of an endpoint that answers one (every endpoint but a 204's)."""
        model = result.model
        assert model is not None
        return model

    @staticmethod
    def _turn(
        request: TurnRequest | Mapping[str, Any],
        message_id: str | None,
        tool_name: str | None,
        tool_call_id: str | None,
        check_result: bool,
    ) -> tuple[Endpoint[Any, TurnResponse], Any]:
        """The row and payload of ``record_turn``: the wire endpoint's own for a plain turn,
        the in-process row when the caller gives the framework's identifiers or asks for the
        tool's result to be checked."""
        if message_id is None and tool_name is None and tool_call_id is None and not check_result:
            return endpoints.RECORD_TURN, request
        turn = IdentifiedTurn(request, message_id, tool_name, tool_call_id, check_result)
        return endpoints.RECORD_IDENTIFIED_TURN, turn

    @staticmethod
    def _explain_request(
        message: str,
        session_id: str | None,
        recent_context: Sequence[str] | None,
        attributes: Mapping[str, Any] | None,
        policy_area_ids: Sequence[str] | None,
    ) -> dict[str, Any]:
        """The wire request of an explanation, from the explain methods' arguments."""
        request: dict[str, Any] = {"message": message}
        if session_id is not None:
            request["sessionId"] = session_id
        if recent_context is not None:
            request["recentContext"] = list(recent_context)
        if attributes is not None:
            request["endUserContext"] = {"attributes": dict(attributes)}
        if policy_area_ids is not None:
            request["policyAreaIds"] = list(policy_area_ids)
        return request


class GovernanceClient(BaseClient[Store]):
    """Typed, in-process access with one API key.

    Each method takes the endpoint's request model or a mapping with the wire (camelCase) field
    names, returns the response model and raises the :class:`~govcore.errors.GovcoreError`
    subclasses of docs/api.md: a refusal (401, 429, 403, 400), a missing conversation (404),
    :class:`~govcore.errors.BackendError` when the store is unavailable (retryable), or
    :class:`~govcore.errors.InternalError` for a bug in govcore (do not retry). A blocked tool
    call or a found violation is a result, not an exception.
    """

    def _run(self, endpoint: Endpoint[RequestT, ResponseT], payload: Any) -> Result[ResponseT]:
        return run_sync(self._steps(endpoint, payload), self._store)

    def _call(self, endpoint: Endpoint[RequestT, ResponseT], payload: Any) -> ResponseT:
        return self._answer(self._run(endpoint, payload))

    def record_turn(
        self,
        request: TurnRequest | Mapping[str, Any],
        *,
        message_id: str | None = None,
        tool_name: str | None = None,
        tool_call_id: str | None = None,
        check_result: bool = False,
    ) -> TurnResponse:
        """Record one turn and return the policies that apply now, with the diff.

        Args:
            request: the turn request (a model, or a mapping with the wire field names).
            message_id: the framework's own id of the message. The conversation keeps it (its
                digest, with the state, the latest ``message_ids_per_conversation``), so a
                turn whose id it recorded already is a replay: nothing is recorded, the TTL is
                not renewed, and the answer describes the conversation as it stands (its last
                turn's index, its active policies all ``stillActive``, no binding event).
            tool_name: a tool turn's tool (``turn.role`` must be ``tool``): retrieval reads it
                with the result, so a tool's name can make its policies applicable.
            tool_call_id: a tool turn's call id (``turn.role`` must be ``tool``): without a
                ``message_id``, a tool result is recorded once per call id.
            check_result: a tool turn (``turn.role`` must be ``tool``) whose content is also
                checked as the tool's result, against every detect rule, as
                :meth:`check_tool_result` checks it; the verdict is the answer's
                ``post_inference_check`` (on a replay too). Needs what post-inference needs
                (403). One request instead of two.

        The keywords are not wire fields: docs/decisions/integration-identifiers.md.

        Raises:
            InvalidRequestError: a bad request, or a keyword that is not valid (its name in
                ``details``).
        """
        return self._call(*self._turn(request, message_id, tool_name, tool_call_id, check_result))

    def get_conversation(self, session_id: str) -> ConversationSnapshot:
        """A read-only snapshot of a conversation; renews nothing."""
        return self._call(endpoints.GET_CONVERSATION, session_id)

    def delete_conversation(self, session_id: str) -> None:
        """Purge a conversation's state; deleting an absent one succeeds."""
        self._run(endpoints.DELETE_CONVERSATION, session_id)

    def explain_selection(
        self,
        message: str,
        *,
        session_id: str | None = None,
        recent_context: Sequence[str] | None = None,
        attributes: Mapping[str, Any] | None = None,
        policy_area_ids: Sequence[str] | None = None,
    ) -> SelectionExplanation:
        """Why each policy would or would not apply to ``message`` sent as a turn.

        For every policy of the key's tenant: its retrieval score (with its lexical and
        semantic parts and the terms or example phrase behind it), the floor and thresholds,
        and the reason it is or is not selected (see
        :data:`govcore.core.selection.REASONS`). With ``session_id``, the policies that
        conversation holds from earlier turns count as held. Records and renews nothing;
        needs ``governance:read``. Not part of the HTTP interface.
        """
        request = self._explain_request(
            message, session_id, recent_context, attributes, policy_area_ids
        )
        return self._call(endpoints.EXPLAIN_SELECTION, request)

    def pre_inference(
        self, request: PreInferenceRequest | Mapping[str, Any]
    ) -> PreInferenceResponse:
        """The legacy single-shot call: applicable policies for one prompt."""
        return self._call(endpoints.PRE_INFERENCE, request)

    def check_tool_call(
        self, request: ToolCallRequest | Mapping[str, Any], *, trace_id: str | None = None
    ) -> ToolCallDecision:
        """Gate a proposed tool call; a block is ``allow: false``, not an exception.

        Arguments given in a mapping are made JSON first (:func:`govcore.jsonable_arguments`:
        dates, decimals, UUIDs, enums, models, dataclasses); ``trace_id`` is the answer's
        ``traceId`` and the decision log's (default: a new id).
        """
        return self._call(endpoints.CHECK_TOOL_CALL, ClientCall(request, trace_id))

    def post_inference(
        self, request: PostInferenceRequest | Mapping[str, Any]
    ) -> PostInferenceResponse:
        """Check a finished output and propose a redaction."""
        return self._call(endpoints.POST_INFERENCE, request)

    def check_output_stream(
        self, request: StreamCheckRequest | Mapping[str, Any], *, trace_id: str | None = None
    ) -> StreamCheckResponse:
        """Check the new part of a streamed output; send back the ``watermark`` next time.

        ``trace_id`` is the answer's ``traceId`` and the decision log's (default: a new id).
        """
        return self._call(endpoints.CHECK_OUTPUT_STREAM, ClientCall(request, trace_id))

    def finalize_output(
        self, request: FinalizeOutputRequest | Mapping[str, Any], *, trace_id: str | None = None
    ) -> PostInferenceResponse:
        """The end-of-stream verdict on the whole output.

        ``trace_id`` is the answer's ``traceId`` and the decision log's (default: a new id).
        """
        return self._call(endpoints.FINALIZE_OUTPUT, ClientCall(request, trace_id))

    # --- tools: gating a call, checking its result ---------------------------------------

    def gate_tool_call(
        self,
        session_id: str,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        on_fix: FixReaction = "apply",
        trace_id: str | None = None,
    ) -> ToolGate:
        """Decide what to do with a proposed tool call: run it, run it with safer arguments, or
        block it with a message the model can read.

        The call is checked (:meth:`check_tool_call`, arguments made JSON); an allowed call
        runs as proposed. A blocked one is handled by ``on_fix``: ``apply`` re-checks the
        ``suggestedArguments`` and runs with them when they are allowed (``modify``), else
        blocks; ``block`` blocks; ``retry`` blocks and, when the suggested arguments pass a
        re-check, tells the model them. A re-check carries ``trace_id`` (default: the first
        check's traceId), so the decision log links the two.

        Raises:
            InvalidRequestError: an ``on_fix`` that is not a :data:`~govcore.FixReaction`, or
                what :meth:`check_tool_call` refuses; and the other refusals of
                :meth:`check_tool_call`. A block is a result, not an exception.
        """
        reaction = check_fix_reaction(on_fix)
        decision = self.check_tool_call(
            tool_call_request(session_id, tool_name, arguments), trace_id=trace_id
        )
        step = first_gate(tool_name, arguments, decision, reaction)
        if isinstance(step, ToolGate):
            return step
        recheck = self.check_tool_call(
            tool_call_request(session_id, tool_name, step), trace_id=trace_id or decision.trace_id
        )
        return after_recheck(tool_name, arguments, decision, step, recheck, reaction)

    def check_tool_result(
        self,
        session_id: str,
        tool_name: str,
        result: Any,
        *,
        call_id: str | None = None,
        trace_id: str | None = None,
    ) -> PostInferenceResponse:
        """Check a tool's result as output (post-inference), before a model or a user sees it.

        A string is checked as it is; anything else as its JSON text (by the rules of
        :func:`govcore.jsonable_arguments`). The post-inference ``surface`` is
        ``tool:<tool_name>``, with ``#<call_id>`` after it when given; ``trace_id`` is the
        answer's traceId. Deliver :func:`govcore.text_to_deliver` of the text and the verdict.

        Raises:
            InvalidRequestError: a result with no JSON form (naming its path under
                ``result``), an empty ``tool_name`` or ``call_id``: refused before the request
                is made, so before the key is checked; and the refusals of
                :meth:`post_inference`.
        """
        request = tool_result_request(session_id, tool_name, result, call_id, trace_id)
        return self.post_inference(request)

    # --- the same client for asyncio code ---------------------------------------------------

    @property
    def aio(self) -> AsyncGovernanceClient:
        """This client for ``asyncio`` code: an :class:`AsyncGovernanceClient` with the same
        key and service, over a store that shares this one's state (the memory store's
        :class:`~govcore.AsyncMemoryStore` twin; for Redis, an asyncio store on the same URL).
        Made at first use and kept; its :attr:`~AsyncGovernanceClient.blocking` is this client.

        Raises:
            TypeError: the store has no asyncio twin (it has no ``async_twin()`` method, or a
                Redis store was built from a client object rather than a URL).
        """
        if self._twin is None:
            make = getattr(self._store, "async_twin", None)
            if not callable(make):
                raise TypeError(
                    f"{self._store!r} has no asyncio twin: a store shares its state with "
                    "asyncio code through an async_twin() method"
                )
            twin = AsyncGovernanceClient(self._serving, cast(AsyncStore, make()), self._api_key)
            twin._twin = self
            self._twin = twin
        return cast(AsyncGovernanceClient, self._twin)


class AsyncGovernanceClient(BaseClient[AsyncStore]):
    """:class:`GovernanceClient` for asyncio: the same methods, each awaitable, returning the
    same models and raising the same errors. Waiting for the store never blocks the loop."""

    async def _run(
        self, endpoint: Endpoint[RequestT, ResponseT], payload: Any
    ) -> Result[ResponseT]:
        return await run_async(self._steps(endpoint, payload), self._store)

    async def _call(self, endpoint: Endpoint[RequestT, ResponseT], payload: Any) -> ResponseT:
        return self._answer(await self._run(endpoint, payload))

    async def record_turn(
        self,
        request: TurnRequest | Mapping[str, Any],
        *,
        message_id: str | None = None,
        tool_name: str | None = None,
        tool_call_id: str | None = None,
        check_result: bool = False,
    ) -> TurnResponse:
        """As :meth:`GovernanceClient.record_turn`."""
        return await self._call(
            *self._turn(request, message_id, tool_name, tool_call_id, check_result)
        )

    async def get_conversation(self, session_id: str) -> ConversationSnapshot:
        """As :meth:`GovernanceClient.get_conversation`."""
        return await self._call(endpoints.GET_CONVERSATION, session_id)

    async def delete_conversation(self, session_id: str) -> None:
        """As :meth:`GovernanceClient.delete_conversation`."""
        await self._run(endpoints.DELETE_CONVERSATION, session_id)

    async def explain_selection(
        self,
        message: str,
        *,
        session_id: str | None = None,
        recent_context: Sequence[str] | None = None,
        attributes: Mapping[str, Any] | None = None,
        policy_area_ids: Sequence[str] | None = None,
    ) -> SelectionExplanation:
        """As :meth:`GovernanceClient.explain_selection`."""
        request = self._explain_request(
            message, session_id, recent_context, attributes, policy_area_ids
        )
        return await self._call(endpoints.EXPLAIN_SELECTION, request)

    async def pre_inference(
        self, request: PreInferenceRequest | Mapping[str, Any]
    ) -> PreInferenceResponse:
        """As :meth:`GovernanceClient.pre_inference`."""
        return await self._call(endpoints.PRE_INFERENCE, request)

    async def check_tool_call(
        self, request: ToolCallRequest | Mapping[str, Any], *, trace_id: str | None = None
    ) -> ToolCallDecision:
        """As :meth:`GovernanceClient.check_tool_call`."""
        return await self._call(endpoints.CHECK_TOOL_CALL, ClientCall(request, trace_id))

    async def post_inference(
        self, request: PostInferenceRequest | Mapping[str, Any]
    ) -> PostInferenceResponse:
        """As :meth:`GovernanceClient.post_inference`."""
        return await self._call(endpoints.POST_INFERENCE, request)

    async def check_output_stream(
        self, request: StreamCheckRequest | Mapping[str, Any], *, trace_id: str | None = None
    ) -> StreamCheckResponse:
        """As :meth:`GovernanceClient.check_output_stream`."""
        return await self._call(endpoints.CHECK_OUTPUT_STREAM, ClientCall(request, trace_id))

    async def finalize_output(
        self, request: FinalizeOutputRequest | Mapping[str, Any], *, trace_id: str | None = None
    ) -> PostInferenceResponse:
        """As :meth:`GovernanceClient.finalize_output`."""
        return await self._call(endpoints.FINALIZE_OUTPUT, ClientCall(request, trace_id))

    # --- tools: gating a call, checking its result ---------------------------------------

    async def gate_tool_call(
        self,
        session_id: str,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        on_fix: FixReaction = "apply",
        trace_id: str | None = None,
    ) -> ToolGate:
        """As :meth:`GovernanceClient.gate_tool_call`."""
        reaction = check_fix_reaction(on_fix)
        decision = await self.check_tool_call(
            tool_call_request(session_id, tool_name, arguments), trace_id=trace_id
        )
        step = first_gate(tool_name, arguments, decision, reaction)
        if isinstance(step, ToolGate):
            return step
        recheck = await self.check_tool_call(
            tool_call_request(session_id, tool_name, step), trace_id=trace_id or decision.trace_id
        )
        return after_recheck(tool_name, arguments, decision, step, recheck, reaction)

    async def check_tool_result(
        self,
        session_id: str,
        tool_name: str,
        result: Any,
        *,
        call_id: str | None = None,
        trace_id: str | None = None,
    ) -> PostInferenceResponse:
        """As :meth:`GovernanceClient.check_tool_result`."""
        request = tool_result_request(session_id, tool_name, result, call_id, trace_id)
        return await self.post_inference(request)

    # --- the same client for blocking code --------------------------------------------------

    @property
    def blocking(self) -> GovernanceClient:
        """This client for blocking code (a framework's synchronous path): a
        :class:`GovernanceClient` with the same key and service, over a store that shares this
        one's state (the :class:`~govcore.MemoryStore` an :class:`~govcore.AsyncMemoryStore`
        awaits; for Redis, a blocking store on the same URL). Made at first use and kept; its
        :attr:`~GovernanceClient.aio` is this client.

        Raises:
            TypeError: the store has no blocking twin (no ``blocking_twin()`` method, or a
                Redis store built from a client object rather than a URL).
        """
        if self._twin is None:
            make = getattr(self._store, "blocking_twin", None)
            if not callable(make):
                raise TypeError(
                    f"{self._store!r} has no blocking twin: a store shares its state with "
                    "blocking code through a blocking_twin() method"
                )
            twin = GovernanceClient(self._serving, cast(Store, make()), self._api_key)
            twin._twin = self
            self._twin = twin
        return cast(GovernanceClient, self._twin)
