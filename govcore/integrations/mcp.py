"""Governance for the Model Context Protocol (the MCP Python SDK): ``pip install 'govcore[mcp]'``.

Two pieces, one for each side of an MCP connection:

- :class:`GovernedToolsMiddleware`, a server middleware (the SDK's ``ServerMiddleware``, the
  context tier that runs before a request's parameters are validated). On every ``tools/call``
  it gates the arguments before the tool runs (the safer arguments replace the caller's, or the
  call is answered with a message the model can read and the tool never runs), checks the
  tool's result in both ``content`` and ``structuredContent`` and redacts it by the public rule
  (and, when asked, records it as a tool turn). A server in five lines::

      import govcore
      from govcore.integrations.mcp import GovernedToolsMiddleware
      from mcp.server.mcpserver import MCPServer

      gov = govcore.AsyncGovernance.from_config("govcore.yaml")
      server = MCPServer("shop", middleware=[GovernedToolsMiddleware(gov.client(API_KEY))])

- :class:`GovernedMCPClient`, for a host calling someone else's server: the same gate before
  ``call_tool`` and the same check of what comes back, in the host's own conversation::

      conversation = GovernedConversation(gov.client(API_KEY), session_id)
      async with mcp.Client(server_url) as session:
          tools = GovernedMCPClient(session, conversation)
          result = await tools.call_tool("send_email", arguments, call_id=tool_call.id)

Which conversation a server's tool call belongs to comes from the MCP connection, not from a
key made up in ``_meta``: the transport's session (Streamable HTTP's ``Mcp-Session-Id``) when
there is one, else the middleware's own ``session_id`` (stdio serves one client per process; a
stateless connection carries no session at all). ``session_id_from`` takes a function of the
request context for anything better an application knows (an authenticated user, a gateway's
header).

Fail closed by default (``fail="closed"``): when govcore cannot decide, the tool does not run
and a result that could not be checked is withheld; ``fail="open"`` runs and passes through.
Either way :mod:`govcore.integrations` logs one line saying which.

The SDK is imported only by this module, so govcore imports without the extra.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from mcp_types import CallToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from govcore.integrations.base import (
    WITHHELD_TEXT,
    GovernanceUnavailableError,
    GovernedConversation,
)

if TYPE_CHECKING:
    from govcore import FixReaction, ToolGate
    from govcore.client import AsyncGovernanceClient, GovernanceClient
    from govcore.models import OutputViolation

__all__ = [
    "SESSION_HEADER",
    "GovernedMCPClient",
    "GovernedToolsMiddleware",
    "SessionResolver",
    "ToolSession",
    "transport_session_id",
]

SESSION_HEADER = "mcp-session-id"
"""The header in which Streamable HTTP carries the transport's session id (the MCP
specification's ``Mcp-Session-Id``; HTTP header names are case-insensitive)."""

DEFAULT_MAX_SESSIONS = 1024
"""Conversations the middleware keeps at hand. A conversation's state lives in govcore's store;
what an evicted one loses is only its local copy, which the next call builds again."""

_TOOLS_CALL = "tools/call"
_BLOCKED_FALLBACK = "The tool call was blocked by policy and did not run."

# The SDK's types are used as Any (mypy skips the package, see pyproject.toml): these name what
# this module relies on, so that the contract with the SDK is written down in one place.
SessionResolver = Callable[[Any], str | None]
"""A function of the SDK's ``ServerRequestContext`` that names the conversation, or None."""


class _CallNext(Protocol):
    async def __call__(self, ctx: Any, /) -> Any: ...


class ToolSession(Protocol):
    """What :class:`GovernedMCPClient` needs of an MCP client: ``mcp.Client`` and
    ``mcp.ClientSession`` both have it."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *args: Any, **kwargs: Any
    ) -> Any: ...


def transport_session_id(ctx: Any) -> str | None:
    """The transport's session id of a request: the ``Mcp-Session-Id`` header that a stateful
    Streamable HTTP connection carries on every request after the first; None on stdio, on the
    in-memory transport and on stateless connections, which have no session.

    Read from the request the transport attached (``ctx.request``, Starlette's on HTTP), the
    public form of what the SDK keeps as its connection's ``session_id``.
    """
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return None
    value = headers.get(SESSION_HEADER)
    return value if isinstance(value, str) and value else None


class GovernedToolsMiddleware:
    """An MCP server middleware that governs every ``tools/call`` (see the module docstring).

    Register it on ``MCPServer(middleware=[...])`` or append it to ``server.middleware`` (the
    low-level ``Server`` has the same list). Every other method passes through untouched.

    Args:
        client: the typed client (its key needs ``tool_call_governance`` and
            ``post_inference_checking``).
        session_id: the conversation of calls whose connection names none (stdio, in-memory,
            stateless HTTP); a new id when None, one for the life of the middleware.
        session_id_from: names the conversation of a request from its context; None (or a
            None answer) falls back to :func:`transport_session_id`, then to ``session_id``.
        on_fix: what a call blocked by a ``fix`` policy does: ``apply`` the safer arguments
            (the default), ``block``, or ``retry`` (block and tell the model the safer ones).
        fail: ``closed`` (the default) blocks the call and withholds its result when govcore
            cannot decide; ``open`` runs it and passes the result through.
        record_results: also record each delivered result as a tool turn of the
            conversation. Off by default: a server's conversation holds no user or model turn
            and nobody reads its injection block, and gating applies every policy's rules in
            any session; what a record adds is that ``whenActive`` rules see the policies its
            results activate, for about 0.4 ms a call (a turn is the costliest govcore call).
            Worth it when ``session_id_from`` names the host's own conversation.
        max_sessions: conversations kept at hand (least recently used first out).
        logger: where the one line about a failure goes (``govcore.integrations`` by default).
    """

    def __init__(
        self,
        client: GovernanceClient | AsyncGovernanceClient,
        *,
        session_id: str | None = None,
        session_id_from: SessionResolver | None = None,
        on_fix: FixReaction = "apply",
        fail: Literal["closed", "open"] = "closed",
        record_results: bool = False,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        logger: logging.Logger | None = None,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, not {max_sessions}")
        self._client = client
        self._on_fix: FixReaction = on_fix
        self._fail: Literal["closed", "open"] = fail
        self._logger = logger
        self._session_id_from = session_id_from
        self._record_results = record_results
        self._max_sessions = max_sessions
        self._conversations: OrderedDict[str, GovernedConversation] = OrderedDict()
        # The base names a new conversation when given None: that one is the default.
        self._default = self._new_conversation(session_id)
        self.session_id: str = self._default.session_id
        """The conversation of calls whose connection names none."""

    def _new_conversation(self, session_id: str | None) -> GovernedConversation:
        return GovernedConversation(
            self._client, session_id, on_fix=self._on_fix, fail=self._fail, logger=self._logger
        )

    def conversation(self, ctx: Any) -> GovernedConversation:
        """The governed conversation a request belongs to (see the class's ``session_id_from``)."""
        session_id = self._session_id_from(ctx) if self._session_id_from is not None else None
        if session_id is None:
            session_id = transport_session_id(ctx)
        if session_id is None or session_id == self._default.session_id:
            return self._default
        conversations = self._conversations
        conversation = conversations.get(session_id)
        if conversation is None:
            conversation = conversations[session_id] = self._new_conversation(session_id)
            if len(conversations) > self._max_sessions:
                conversations.popitem(last=False)
        else:
            conversations.move_to_end(session_id)
        return conversation

    async def __call__(self, ctx: Any, call_next: _CallNext) -> Any:
        if ctx.method != _TOOLS_CALL or ctx.request_id is None:
            return await call_next(ctx)
        params = ctx.params
        name = params.get("name") if params is not None else None
        arguments = params.get("arguments") if params is not None else None
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, Mapping)):
            # Malformed: the SDK's own validation answers it, and no tool runs.
            return await call_next(ctx)
        conversation = self.conversation(ctx)
        # The JSON-RPC request id names the call within its connection only (every connection
        # counts from 1 again, and a stateless one is a connection per request): it labels the
        # check, and is no identity for the recorded turn, which would make the next
        # connection's call of the same id a "replay" that is not recorded. The server sees
        # each call once, so its turn needs no identity.
        request_label = str(ctx.request_id)
        gate = await conversation.agate_tool(name, dict(arguments or {}))
        if not gate.runs:
            return _blocked_result(gate, modern=_is_modern(ctx.protocol_version))
        if gate.action == "modify":
            ctx = replace(ctx, params={**params, "arguments": gate.arguments})
        result = _wire(await call_next(ctx))
        if not _is_complete_tool_result(result):
            return result
        governed, delivered = await _govern_result(conversation, name, result, request_label)
        if self._record_results and delivered:
            try:
                await conversation.arecord_tool_result(name, delivered)
            except GovernanceUnavailableError:
                # Fail closed: the base has logged it; nothing unrecorded reaches the model.
                return _replaced_result(governed, WITHHELD_TEXT)
        return governed


class GovernedMCPClient:
    """A host's calls to an MCP server, governed in the host's conversation.

    :meth:`call_tool` gates the call before it reaches the server (a blocked call is answered
    here with an error result carrying the message, and never sent), sends the safer arguments
    of a modified one, checks and redacts the result like the server middleware, and records it
    as a tool turn by its ``call_id``, so that a call the host replays is recorded once.

    Args:
        session: the connected MCP client (``mcp.Client`` or ``mcp.ClientSession``).
        conversation: the host's governed conversation (shared with its model adapter).
        record_results: record each delivered result as a tool turn.
    """

    def __init__(
        self,
        session: ToolSession,
        conversation: GovernedConversation,
        *,
        record_results: bool = True,
    ) -> None:
        self.session = session
        self.conversation = conversation
        self._record_results = record_results

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """``session.call_tool(name, arguments, **kwargs)``, governed; returns the SDK's
        ``CallToolResult``.

        Args:
            name: the tool.
            arguments: its arguments as the model proposed them.
            call_id: the model's id of this tool call: the recorded turn's message id.
            kwargs: passed to the session's ``call_tool`` (``read_timeout_seconds``, ``meta``, ...).
        """
        conversation = self.conversation
        gate = await conversation.agate_tool(name, dict(arguments or {}))
        if not gate.runs:
            return CallToolResult.model_validate(_blocked_result(gate, modern=False))
        result = await self.session.call_tool(name, gate.arguments, **kwargs)
        wire = _wire(result)
        governed, delivered = await _govern_result(conversation, name, wire, call_id)
        if self._record_results and delivered:
            try:
                await conversation.arecord_tool_result(
                    name, delivered, call_id=call_id, message_id=call_id
                )
            except GovernanceUnavailableError:
                governed = _replaced_result(governed, WITHHELD_TEXT)
        return result if governed is wire else CallToolResult.model_validate(governed)


# --- the result of a tool call, in its wire form ---------------------------------------------


def _is_modern(protocol_version: str) -> bool:
    return protocol_version in MODERN_PROTOCOL_VERSIONS


def _wire(result: Any) -> dict[str, Any]:
    """A handler's result as its wire dict (camelCase): what the SDK's chain returns below the
    middleware, or a model a short-circuiting inner middleware or a client returned."""
    if isinstance(result, dict):
        return result
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _is_complete_tool_result(result: Mapping[str, Any]) -> bool:
    # A 2026-era tool may answer "input_required" (it asks the user something first); only a
    # complete result carries the tool's output, and the retried call is gated and checked again.
    return result.get("resultType", "complete") == "complete" and "content" in result


def _blocked_result(gate: ToolGate, *, modern: bool) -> dict[str, Any]:
    """The answer to a blocked call, in place of the tool's: an error result whose text is the
    gate's message, which the model reads and can act on (the SDK reports a failing tool the
    same way, so a client needs nothing new)."""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": gate.message or _BLOCKED_FALLBACK}],
        "isError": True,
    }
    if modern:
        # A 2026-era result must say what it is; a middleware that answers owns its envelope.
        result["resultType"] = "complete"
    return result


def _replaced_result(result: Mapping[str, Any], text: str) -> dict[str, Any]:
    """``result`` with its content replaced by ``text`` and no structured content, as an error
    (so that a client does not validate the missing structured content against the tool's
    output schema, and the model does not take a notice for the tool's own answer)."""
    replaced = {k: v for k, v in result.items() if k not in ("content", "structuredContent")}
    replaced["content"] = [{"type": "text", "text": text}]
    replaced["isError"] = True
    return replaced


def _text_pieces(content: Sequence[Any]) -> list[str]:
    """The text of a result's content blocks that a model reads: text blocks and the text of
    embedded resources (images, audio and links carry no text to check)."""
    pieces: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            pieces.append(block["text"])
        elif kind == "resource":
            resource = block.get("resource")
            if isinstance(resource, Mapping) and isinstance(resource.get("text"), str):
                pieces.append(resource["text"])
    return pieces


def _structured_text(structured: Any) -> str:
    # Non-ASCII unescaped, so that a match in the checked text is a match in the value.
    return json.dumps(structured, ensure_ascii=False, separators=(", ", ": "))


async def _govern_result(
    conversation: GovernedConversation, tool_name: str, result: dict[str, Any], call_id: str | None
) -> tuple[dict[str, Any], str]:
    """``result`` checked and, when the public rule changes it, redacted in every place the
    text occurs; and the text to record as the tool turn ("" for none).

    One check covers the whole result: its text blocks and its structured content as JSON, in
    that order, joined by newlines (a tool returns little text, and one check is a fraction of
    the cost of one per field). Only when that check changes the text are the places redacted
    one by one: each match is replaced by its ``enforcementText`` wherever it occurs, in the
    text blocks and in the values of the structured content. When a match is still there after
    that (it spans two fields, is a key, or is a number, which cannot become text without
    breaking the tool's output schema), the result is the redacted whole as one text, as an
    error and without structured content.

    The turn is the delivered text blocks (what a host shows its model), or the structured
    content's JSON when there are none: ``MCPServer`` renders structured content as a text block
    too, and recording it twice would cost a turn twice the terms for nothing new.
    """
    content = result.get("content")
    pieces = _text_pieces(content) if isinstance(content, list) else []
    structured = result.get("structuredContent")
    checked_pieces = pieces if structured is None else [*pieces, _structured_text(structured)]
    text = "\n".join(checked_pieces)
    if not text.strip():
        return result, ""
    checked = await conversation.acheck_tool_result(tool_name, text, call_id=call_id)
    if checked.withheld:
        return _replaced_result(result, checked.text), ""
    if not checked.changed or checked.verdict is None:
        return result, "\n".join(pieces) if pieces else text
    redaction = _Redaction(checked.verdict.violations)
    redacted = dict(result)
    pieces = []
    if isinstance(content, list):
        redacted["content"] = [redaction.block(block) for block in content]
        pieces = _text_pieces(redacted["content"])
    checked_pieces = pieces
    if structured is not None:
        redacted["structuredContent"] = redaction.value(structured)
        checked_pieces = [*pieces, _structured_text(redacted["structuredContent"])]
    redacted_text = "\n".join(checked_pieces)
    if redaction.remains_in(redacted_text):
        return _replaced_result(result, checked.text), checked.text
    return redacted, "\n".join(pieces) if pieces else redacted_text


class _Redaction:
    """Replaces each violation's matched text by its enforcement text."""

    def __init__(self, violations: Sequence[OutputViolation]) -> None:
        # Longest first, so that a match inside a longer one does not break the longer one.
        by_text = {v.matched_text: v.enforcement_text for v in violations if v.matched_text}
        self._replacements = sorted(by_text.items(), key=lambda item: -len(item[0]))

    def remains_in(self, text: str) -> bool:
        """Whether a match is still in ``text`` (the redacted places, joined as checked)."""
        return any(matched in text for matched, _ in self._replacements)

    def text(self, text: str) -> str:
        for matched, replacement in self._replacements:
            if matched in text:
                text = text.replace(matched, replacement)
        return text

    def block(self, block: Any) -> Any:
        if not isinstance(block, Mapping):
            return block
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            return {**block, "text": self.text(block["text"])}
        if kind == "resource":
            resource = block.get("resource")
            if isinstance(resource, Mapping) and isinstance(resource.get("text"), str):
                return {**block, "resource": {**resource, "text": self.text(resource["text"])}}
        return block

    def value(self, value: Any) -> Any:
        """A structured value with its strings redacted. A number that is a match stays (a
        string in its place would fail the tool's output schema at the client): the match
        remains, and the caller delivers the redacted whole instead."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {key: self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value
