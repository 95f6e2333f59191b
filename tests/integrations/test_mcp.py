"""The MCP adapter: a server middleware and a host-side client wrapper, driven through the SDK's
own in-process client (``mcp.Client(server)``), offline.

Each server scenario runs on both of the SDK's in-process paths: ``legacy`` (the initialize
handshake over in-memory streams, as stdio runs) and ``2026-07-28`` (the stateless per-request
path). Of the tests every adapter has, these apply to MCP: a denied tool never runs, a modified
call runs with the safer arguments, the answer (here: a tool's result, in ``content`` and
``structuredContent``) is redacted, a replayed call records no turn twice (the host side: the
server sees no history), and fail closed / open. MCP has no model request to put the block in
and no streamed result to hold back: a ``tools/call`` answers once, with the whole result.
"""

from __future__ import annotations

import json
import logging
import os
import runpy
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

if os.environ.get("CI", "").lower() == "true":
    # In CI the extra is installed: a missing SDK fails here instead of skipping.
    import mcp
else:
    mcp = pytest.importorskip("mcp", reason="needs the govcore[mcp] extra")

import anyio  # the SDK's dependency
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

import govcore
from govcore.backends.awaited import AwaitedStore
from govcore.backends.memory import MemoryStore
from govcore.integrations import GovernedConversation
from govcore.integrations.mcp import (
    GovernedMCPClient,
    GovernedToolsMiddleware,
    transport_session_id,
)
from govcore.testing import FakeClock

KEY = "gk_test_mcp_full_0001"
CARD = "4111 1111 1111 1111"
CARD_REMOVED = "[card number removed]"
MODES = ["legacy", "2026-07-28"]

CONFIG: dict[str, Any] = {
    "tenants": {
        "shop": {
            "policies": [
                {
                    "id": "card-data",
                    "title": "Card data",
                    "summary": "Never repeat or send full card numbers.",
                    "severity": 5,
                    "enforcement": "fix",
                    "citationRef": "SHOP-1 Card data",
                    "detect": [{"pii": "credit_card", "replacement": CARD_REMOVED}],
                    "tools": [
                        {
                            "tool": "send_email",
                            "argument": "body",
                            "detect": [{"pii": "credit_card", "replacement": CARD_REMOVED}],
                        }
                    ],
                },
                {
                    "id": "account-deletion",
                    "title": "Account deletion",
                    "summary": "Accounts are deleted by a human agent only.",
                    "severity": 4,
                    "enforcement": "fix",
                    "citationRef": "SHOP-2 Account deletion",
                    "tools": [{"tool": "delete_account", "deny": True}],
                },
            ]
        }
    },
    "keys": [
        {
            "key": KEY,
            "tenant": "shop",
            "settings": {"post_inference_checking": "allowed", "tool_call_governance": "allowed"},
        }
    ],
}


class Customer(BaseModel):
    name: str
    card: str
    orders: int


class SwitchableStore(AwaitedStore):
    """The in-memory store, which raises BackendError (as a store whose server is down does)
    while ``down`` is set."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(MemoryStore(clock=clock))
        self.down = False

    def _check(self) -> None:
        if self.down:
            raise govcore.BackendError("the store is down")

    async def get(self, key: str) -> bytes | None:
        self._check()
        return await super().get(key)

    async def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self._check()
        await super().set(key, value, expires_at=expires_at)

    async def update(self, key: str, mutate: Any) -> Any:
        self._check()
        return await super().update(key, mutate)

    async def update_many(self, keys: Any, mutate: Any) -> Any:
        self._check()
        return await super().update_many(keys, mutate)

    async def delete(self, key: str) -> None:
        self._check()
        await super().delete(key)


class Shop:
    """An MCP server with three tools that note every run, and the governance around it."""

    def __init__(self, middleware: Any = None, *, store: SwitchableStore | None = None) -> None:
        from mcp.server.mcpserver import MCPServer

        self.runs: list[tuple[str, dict[str, Any]]] = []
        self.store = store
        self.server = MCPServer("shop", middleware=[middleware] if middleware else None)

        @self.server.tool()
        def send_email(to: str, body: str) -> str:
            """Send an e-mail to a customer."""
            self.runs.append(("send_email", {"to": to, "body": body}))
            return f"sent to {to}"

        @self.server.tool()
        def delete_account(customer_id: str) -> str:
            """Delete a customer's account."""
            self.runs.append(("delete_account", {"customer_id": customer_id}))
            return "deleted"

        @self.server.tool()
        def lookup_customer(customer_id: str) -> Customer:
            """A customer's record."""
            self.runs.append(("lookup_customer", {"customer_id": customer_id}))
            if self.store is not None and customer_id == "store-fails-now":
                self.store.down = True
            return Customer(name="Ada Lovelace", card=f"card on file: {CARD}", orders=3)


@pytest.fixture
def store() -> SwitchableStore:
    return SwitchableStore(FakeClock(1_700_000_000.0))


@pytest.fixture
def client(store: SwitchableStore) -> govcore.AsyncGovernanceClient:
    return govcore.AsyncGovernance.from_config(CONFIG, store=store).client(KEY)


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(scenario)


async def call(shop: Shop, mode: str, name: str, arguments: dict[str, Any]) -> CallToolResult:
    async with mcp.Client(shop.server, mode=mode) as session:
        result: CallToolResult = await session.call_tool(name, arguments)
        return result


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


def everything(result: CallToolResult) -> str:
    """All a client receives, as one text (what must not carry a violation)."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), ensure_ascii=False)


# --- the server middleware -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_denied_tool_never_runs_and_the_model_reads_why(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    shop = Shop(GovernedToolsMiddleware(client))
    result = run(lambda: call(shop, mode, "delete_account", {"customer_id": "c-7"}))
    assert shop.runs == []
    assert result.is_error
    (message,) = texts(result)
    assert "delete_account" in message
    assert result.structured_content is None


def test_the_middleware_takes_a_blocking_client_too() -> None:
    """The SDK is asyncio: a blocking client's asyncio twin makes the calls."""
    blocking = govcore.Governance.from_config(CONFIG).client(KEY)
    shop = Shop(GovernedToolsMiddleware(blocking))
    result = run(lambda: call(shop, "2026-07-28", "delete_account", {"customer_id": "c-7"}))
    assert shop.runs == []
    assert result.is_error


@pytest.mark.parametrize("mode", MODES)
def test_a_modified_call_runs_with_the_safer_arguments(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    shop = Shop(GovernedToolsMiddleware(client))
    body = f"Your card {CARD} is saved."
    result = run(lambda: call(shop, mode, "send_email", {"to": "ada@example.com", "body": body}))
    ((name, arguments),) = shop.runs
    assert name == "send_email"
    assert CARD not in arguments["body"]
    assert CARD_REMOVED in arguments["body"]
    assert arguments["to"] == "ada@example.com"
    assert not result.is_error
    assert texts(result) == ["sent to ada@example.com"]


@pytest.mark.parametrize("mode", MODES)
def test_the_low_level_server_takes_the_middleware_too(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    from mcp.server import Server
    from mcp_types import ListToolsResult, Tool

    received: list[dict[str, Any]] = []
    schema = {
        "type": "object",
        "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
    }

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="send_email", input_schema=schema)])

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        received.append(params.arguments)
        return CallToolResult(content=[TextContent(type="text", text="sent")])

    server = Server("low", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(GovernedToolsMiddleware(client))

    async def scenario() -> CallToolResult:
        async with mcp.Client(server, mode=mode) as session:
            result: CallToolResult = await session.call_tool(
                "send_email", {"to": "ada@example.com", "body": f"Card {CARD}."}
            )
            return result

    assert texts(run(scenario)) == ["sent"]
    assert received == [{"to": "ada@example.com", "body": f"Card {CARD_REMOVED}."}]


@pytest.mark.parametrize("mode", MODES)
def test_on_fix_block_blocks_the_call_the_safer_arguments_would_have_fixed(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    shop = Shop(GovernedToolsMiddleware(client, on_fix="block"))
    body = f"Your card {CARD} is saved."
    result = run(lambda: call(shop, mode, "send_email", {"to": "ada@example.com", "body": body}))
    assert shop.runs == []
    assert result.is_error
    assert CARD not in everything(result)


@pytest.mark.parametrize("mode", MODES)
def test_a_result_is_redacted_in_content_and_in_structured_content(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    shop = Shop(GovernedToolsMiddleware(client))
    result = run(lambda: call(shop, mode, "lookup_customer", {"customer_id": "c-7"}))
    assert len(shop.runs) == 1
    assert CARD not in everything(result)
    assert not result.is_error
    # The structure stays: the same fields, only the matched text replaced.
    assert result.structured_content == {
        "name": "Ada Lovelace",
        "card": f"card on file: {CARD_REMOVED}",
        "orders": 3,
    }
    (text,) = texts(result)
    assert json.loads(text) == result.structured_content


@pytest.mark.parametrize("mode", MODES)
def test_a_result_with_nothing_to_redact_is_delivered_as_the_tool_gave_it(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    governed = Shop(GovernedToolsMiddleware(client))
    plain = Shop()
    arguments = {"to": "ada@example.com", "body": "Your parcel ships today."}
    assert run(lambda: call(governed, mode, "send_email", arguments)) == run(
        lambda: call(plain, mode, "send_email", arguments)
    )
    assert governed.runs == plain.runs


@pytest.mark.parametrize("mode", MODES)
def test_each_delivered_result_is_recorded_as_a_tool_turn_when_asked(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    middleware = GovernedToolsMiddleware(client, session_id="conv-42", record_results=True)

    async def scenario() -> None:
        shop = Shop(middleware)
        async with mcp.Client(shop.server, mode=mode) as session:
            await session.call_tool("lookup_customer", {"customer_id": "c-7"})
            await session.call_tool("lookup_customer", {"customer_id": "c-7"})
        snapshot = await client.get_conversation("conv-42")
        # The server sees each call once: two calls are two turns.
        assert snapshot.turn_count == 2

    run(scenario)


@pytest.mark.parametrize("mode", MODES)
def test_calls_of_two_connections_into_one_conversation_are_each_recorded(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    """A reconnect (or two clients of one conversation): each connection numbers its requests
    from 1 again, and its call is still a turn of its own, not a replay of the other's."""
    middleware = GovernedToolsMiddleware(client, session_id="conv-44", record_results=True)

    async def scenario() -> None:
        shop = Shop(middleware)
        for customer in ("c-1", "c-2"):
            async with mcp.Client(shop.server, mode=mode) as session:
                await session.call_tool("lookup_customer", {"customer_id": customer})
        assert len(shop.runs) == 2
        assert (await client.get_conversation("conv-44")).turn_count == 2

    run(scenario)


def test_by_default_the_server_records_no_turn(client: govcore.AsyncGovernanceClient) -> None:
    middleware = GovernedToolsMiddleware(client, session_id="conv-43")

    async def scenario() -> None:
        shop = Shop(middleware)
        async with mcp.Client(shop.server) as session:
            await session.call_tool("lookup_customer", {"customer_id": "c-7"})
        with pytest.raises(govcore.NotFoundError):
            await client.get_conversation("conv-43")

    run(scenario)


def test_over_streamable_http_each_transport_session_is_its_own_conversation(
    client: govcore.AsyncGovernanceClient,
) -> None:
    """Stateful Streamable HTTP, served in-process (the ASGI app behind an ASGI transport):
    two clients, two ``Mcp-Session-Id`` sessions, two conversations; none under the fallback."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    sessions: list[str | None] = []

    async def observe(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            sessions.append(transport_session_id(ctx))
        return await call_next(ctx)

    middleware = GovernedToolsMiddleware(client, session_id="fallback", record_results=True)
    shop = Shop(middleware)
    shop.server.middleware.insert(-1, observe)
    url = "http://127.0.0.1:8000/mcp"

    async def scenario() -> None:
        app = shop.server.streamable_http_app(json_response=True)
        async with (
            shop.server.session_manager.run(),
            httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as http,
        ):
            for customer in ("c-1", "c-2"):
                transport = streamable_http_client(url, http_client=http)
                async with mcp.Client(transport, mode="legacy") as session:
                    await session.call_tool("lookup_customer", {"customer_id": customer})
        for session_id in sessions:
            assert session_id is not None
            assert (await client.get_conversation(session_id)).turn_count == 1
        with pytest.raises(govcore.NotFoundError):
            await client.get_conversation("fallback")

    run(scenario)
    assert len(set(sessions)) == 2


def test_the_conversation_is_the_transport_s_session_when_it_has_one(
    client: govcore.AsyncGovernanceClient,
) -> None:
    middleware = GovernedToolsMiddleware(client, session_id="fallback")
    over_http = SimpleNamespace(request=SimpleNamespace(headers={"mcp-session-id": "abc123"}))
    over_stdio = SimpleNamespace(request=None)
    assert transport_session_id(over_http) == "abc123"
    assert transport_session_id(over_stdio) is None
    assert middleware.conversation(over_http).session_id == "abc123"
    assert middleware.conversation(over_http) is middleware.conversation(over_http)
    assert middleware.conversation(over_stdio).session_id == "fallback"


def test_session_id_from_names_the_conversation_before_the_transport(
    client: govcore.AsyncGovernanceClient,
) -> None:
    middleware = GovernedToolsMiddleware(client, session_id_from=lambda ctx: ctx.user)
    ctx = SimpleNamespace(user="user-9", request=SimpleNamespace(headers={"mcp-session-id": "x"}))
    assert middleware.conversation(ctx).session_id == "user-9"
    anonymous = SimpleNamespace(user=None, request=None)
    assert middleware.conversation(anonymous).session_id == middleware.session_id


def test_the_conversations_kept_at_hand_are_bounded(client: govcore.AsyncGovernanceClient) -> None:
    middleware = GovernedToolsMiddleware(client, max_sessions=2)

    def over(session: str) -> Any:
        return SimpleNamespace(request=SimpleNamespace(headers={"mcp-session-id": session}))

    first = middleware.conversation(over("a"))
    middleware.conversation(over("b"))
    middleware.conversation(over("c"))
    # "a" was the least recently used: a new object for the same conversation.
    again = middleware.conversation(over("a"))
    assert again is not first
    assert again.session_id == "a"


@pytest.mark.parametrize("mode", MODES)
def test_fail_closed_blocks_the_tool_when_governance_cannot_decide(
    client: govcore.AsyncGovernanceClient,
    store: SwitchableStore,
    mode: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    shop = Shop(GovernedToolsMiddleware(client))
    store.down = True
    with caplog.at_level(logging.WARNING, logger="govcore.integrations"):
        result = run(lambda: call(shop, mode, "send_email", {"to": "a@example.com", "body": "hi"}))
    assert shop.runs == []
    assert result.is_error
    assert any(record.name.startswith("govcore.integrations") for record in caplog.records)


@pytest.mark.parametrize("mode", MODES)
def test_fail_closed_withholds_a_result_that_could_not_be_checked(
    client: govcore.AsyncGovernanceClient, store: SwitchableStore, mode: str
) -> None:
    shop = Shop(GovernedToolsMiddleware(client), store=store)
    # The tool runs (the gate could decide), then the store goes down before the check.
    result = run(lambda: call(shop, mode, "lookup_customer", {"customer_id": "store-fails-now"}))
    assert len(shop.runs) == 1
    assert CARD not in everything(result)
    assert "Ada Lovelace" not in everything(result)
    assert result.is_error
    assert result.structured_content is None


@pytest.mark.parametrize("mode", MODES)
def test_fail_open_runs_the_tool_and_passes_the_result_through(
    client: govcore.AsyncGovernanceClient, store: SwitchableStore, mode: str
) -> None:
    shop = Shop(GovernedToolsMiddleware(client, fail="open"), store=store)
    store.down = True
    result = run(lambda: call(shop, mode, "lookup_customer", {"customer_id": "c-7"}))
    assert len(shop.runs) == 1
    assert not result.is_error
    assert result.structured_content == {
        "name": "Ada Lovelace",
        "card": f"card on file: {CARD}",
        "orders": 3,
    }


def test_other_methods_pass_through(client: govcore.AsyncGovernanceClient) -> None:
    async def scenario() -> list[str]:
        shop = Shop(GovernedToolsMiddleware(client))
        async with mcp.Client(shop.server) as session:
            return [tool.name for tool in (await session.list_tools()).tools]

    assert sorted(run(scenario)) == ["delete_account", "lookup_customer", "send_email"]


# --- the host-side client wrapper ----------------------------------------------------------


class Host:
    """A host's governed conversation calling an ungoverned server through the wrapper."""

    def __init__(self, client: govcore.AsyncGovernanceClient, **options: Any) -> None:
        self.shop = Shop()
        self.conversation = GovernedConversation(client, "host-1", **options)

    async def calls(
        self, *requests: tuple[str, dict[str, Any], str | None]
    ) -> list[CallToolResult]:
        results = []
        async with mcp.Client(self.shop.server) as session:
            tools = GovernedMCPClient(session, self.conversation)
            for name, arguments, call_id in requests:
                results.append(await tools.call_tool(name, arguments, call_id=call_id))
        return results


@pytest.fixture
def host(client: govcore.AsyncGovernanceClient) -> Host:
    return Host(client)


def test_the_host_never_sends_a_denied_call(host: Host) -> None:
    (result,) = run(lambda: host.calls(("delete_account", {"customer_id": "c-7"}, "call-1")))
    assert host.shop.runs == []
    assert result.is_error
    assert "delete_account" in texts(result)[0]


def test_the_host_sends_the_safer_arguments(host: Host) -> None:
    body = f"Card {CARD} saved."
    run(lambda: host.calls(("send_email", {"to": "a@example.com", "body": body}, "call-1")))
    ((_, arguments),) = host.shop.runs
    assert CARD not in arguments["body"]
    assert CARD_REMOVED in arguments["body"]


def test_the_host_receives_the_result_redacted_in_both_fields(host: Host) -> None:
    (result,) = run(lambda: host.calls(("lookup_customer", {"customer_id": "c-7"}, "call-1")))
    assert isinstance(result, CallToolResult)
    assert CARD not in everything(result)
    assert result.structured_content["card"] == f"card on file: {CARD_REMOVED}"


def test_a_replayed_call_records_no_turn_twice(
    host: Host, client: govcore.AsyncGovernanceClient
) -> None:
    async def scenario() -> int:
        lookup = ("lookup_customer", {"customer_id": "c-7"}, "call-1")
        await host.calls(lookup, lookup)
        await host.calls(("lookup_customer", {"customer_id": "c-8"}, "call-2"))
        return (await client.get_conversation("host-1")).turn_count

    assert run(scenario) == 2


def test_the_host_fails_closed(
    client: govcore.AsyncGovernanceClient, store: SwitchableStore
) -> None:
    host = Host(client)
    store.down = True
    (result,) = run(lambda: host.calls(("send_email", {"to": "a@example.com", "body": "hi"}, None)))
    assert host.shop.runs == []
    assert result.is_error


def test_the_host_fails_open_when_told_to(
    client: govcore.AsyncGovernanceClient, store: SwitchableStore
) -> None:
    host = Host(client, fail="open")
    store.down = True
    (result,) = run(lambda: host.calls(("send_email", {"to": "a@example.com", "body": "hi"}, None)))
    assert len(host.shop.runs) == 1
    assert texts(result) == ["sent to a@example.com"]


@pytest.mark.parametrize("mode", MODES)
def test_a_match_that_no_single_value_holds_leaves_only_the_redacted_whole(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    """A card number as a key of the structured content cannot be replaced in place: the
    client receives the checked text, redacted, as one text, and no structured content."""
    shop = Shop(GovernedToolsMiddleware(client))

    @shop.server.tool()
    def cards_on_file(customer_id: str) -> dict[str, int]:
        """Cards on file, with their number of uses."""
        return {CARD: 2}

    result = run(lambda: call(shop, mode, "cards_on_file", {"customer_id": "c-7"}))
    assert CARD not in everything(result)
    assert result.structured_content is None
    assert result.is_error
    (text,) = texts(result)
    assert CARD_REMOVED in text


@pytest.mark.parametrize("mode", MODES)
def test_a_number_that_is_a_match_leaves_only_the_redacted_whole(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    """Text in place of the number would fail the tool's output schema at the client."""
    shop = Shop(GovernedToolsMiddleware(client))

    @shop.server.tool()
    def card_of(customer_id: str) -> dict[str, int]:
        """The card number on file, as a number."""
        return {"card": int(CARD.replace(" ", ""))}

    result = run(lambda: call(shop, mode, "card_of", {"customer_id": "c-7"}))
    assert CARD.replace(" ", "") not in everything(result)
    assert result.structured_content is None
    assert result.is_error
    assert CARD_REMOVED in texts(result)[0]


@pytest.mark.parametrize("mode", MODES)
def test_the_text_of_an_embedded_resource_is_checked_and_redacted(
    client: govcore.AsyncGovernanceClient, mode: str
) -> None:
    from mcp_types import EmbeddedResource, TextResourceContents

    shop = Shop(GovernedToolsMiddleware(client))

    @shop.server.tool()
    def statement(customer_id: str) -> list[Any]:
        """The customer's last statement, as an attached document."""
        document = TextResourceContents(uri="file:///statement.txt", text=f"Paid with {CARD}.")
        return [
            TextContent(type="text", text="Statement attached."),
            EmbeddedResource(type="resource", resource=document),
        ]

    result = run(lambda: call(shop, mode, "statement", {"customer_id": "c-7"}))
    assert CARD not in everything(result)
    assert not result.is_error
    assert result.content[1].resource.text == f"Paid with {CARD_REMOVED}."


def test_the_example_application_runs_offline(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/mcp_app.py runs in-process; no card number reaches a tool or a client."""
    example = Path(__file__).resolve().parents[2] / "examples" / "mcp_app.py"
    runpy.run_path(str(example), run_name="__main__")
    printed = capsys.readouterr().out
    reached = [line for line in printed.splitlines() if "tool ran:" in line or "client got" in line]
    reached += [line for line in printed.splitlines() if "structured:" in line]
    assert len(reached) == 10
    assert all(CARD not in line for line in reached)
    assert "send_email(to='ada@example.com', body='Hi Ada, we charged your card [card" in printed
    assert "client got (error): 'The call to the tool send_email was blocked" in printed
    assert "recorded 1 tool turn(s)" in printed
