"""An MCP tool server governed by govcore, and a host calling an MCP server through govcore, in
one process and offline (``pip install 'govcore[mcp]'``; ``python examples/mcp_app.py``).

The policies are the demo shop's (govcore/demo/acme). MCP has no model of its own: the tool
calls below are what a model would propose, sent through the SDK's in-process client
(``mcp.Client(server)``), exactly as a host would send them over stdio or HTTP.

1. The server, governed by ``GovernedToolsMiddleware``: an e-mail with a card number runs with
   the number removed; an order lookup whose record carries a card number reaches the client
   redacted, in its text and in its structured content.
2. A host, governed by ``GovernedMCPClient`` in its own conversation, calling a server that is
   not governed: with ``on_fix="block"`` the same e-mail never leaves the host, and the model
   reads why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

import govcore
from govcore.integrations import GovernedConversation
from govcore.integrations.mcp import GovernedMCPClient, GovernedToolsMiddleware

CONFIG = Path(govcore.__file__).parent / "demo" / "acme" / "govcore.yaml"
KEY = "gk_demo_northwind_full_0001"
CARD = "4111 1111 1111 1111"


class Order(BaseModel):
    order_id: str
    status: str
    paid_with: str


def tool_server(middleware: Any = None) -> MCPServer:
    """The shop's tools; each prints what it was actually run with."""
    server = MCPServer("northwind-tools", middleware=[middleware] if middleware else None)

    @server.tool()
    def send_email(to: str, body: str) -> str:
        """E-mail a customer."""
        print(f"    tool ran: send_email(to={to!r}, body={body!r})")
        return f"E-mail sent to {to}."

    @server.tool()
    def lookup_order(order_id: str) -> Order:
        """An order's status and payment."""
        print(f"    tool ran: lookup_order(order_id={order_id!r})")
        return Order(order_id=order_id, status="shipped", paid_with=f"Visa {CARD}")

    return server


def show(result: Any) -> None:
    for block in result.content:
        print(f"    client got{' (error)' if result.is_error else ''}: {block.text!r}")
    if result.structured_content is not None:
        print(f"    structured: {json.dumps(result.structured_content)}")


async def main() -> None:
    gov = govcore.AsyncGovernance.from_config(CONFIG)
    client = gov.client(KEY)

    print("1. An MCP server governed by GovernedToolsMiddleware")
    server = tool_server(GovernedToolsMiddleware(client))
    async with Client(server) as session:
        body = f"Hi Ada, we charged your card {CARD} for order 1001."
        print(f"  send_email proposed with body={body!r}")
        show(await session.call_tool("send_email", {"to": "ada@example.com", "body": body}))
        print("  lookup_order proposed for order 1001")
        show(await session.call_tool("lookup_order", {"order_id": "1001"}))

    print("\n2. A host calling an ungoverned server through GovernedMCPClient (on_fix='block')")
    conversation = GovernedConversation(client, "host-session-1", on_fix="block")
    async with Client(tool_server()) as session:
        tools = GovernedMCPClient(session, conversation)
        print(f"  send_email proposed with body={body!r}")
        show(
            await tools.call_tool(
                "send_email", {"to": "ada@example.com", "body": body}, call_id="c1"
            )
        )
        print("  lookup_order proposed for order 1001")
        show(await tools.call_tool("lookup_order", {"order_id": "1001"}, call_id="c2"))
    snapshot = await client.get_conversation("host-session-1")
    print(f"  the host's conversation recorded {snapshot.turn_count} tool turn(s)")
    await gov.aclose()


if __name__ == "__main__":
    anyio.run(main)
