"""A support agent on the OpenAI Agents SDK, governed by govcore: runs offline in seconds.

    pip install 'govcore[openai-agents]'
    python examples/openai_agents_app.py

The model is the SDK's own scripted test model (``agents.testing.ScriptedModel``), so the run
needs no API key and no network. The policies, below, are a shop's: refunds above 500 need a
manager, only the Privacy Office deletes accounts, card numbers are never repeated. The script
prints what governance did at each step.
"""

from __future__ import annotations

import asyncio

import agents
from agents import Agent, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

import govcore
from govcore.integrations import GovernedConversation
from govcore.integrations.openai_agents import govern

KEY = "gk_example_shop_0001"
CARD = "4111 1111 1111 1111"
CONFIG = {
    "tenants": {
        "shop": {
            "policies": [
                {
                    "id": "card-data",
                    "title": "Never repeat payment card numbers",
                    "summary": "Card numbers are never repeated in a reply, a message or a tool call.",
                    "text": "When a customer pays or is refunded by card, never repeat the card number.",
                    "severity": 5,
                    "enforcement": "fix",
                    "citationRef": "PAY-1",
                    "tags": ["payment", "card", "refund"],
                    "detect": [{"pii": "credit_card", "replacement": "[card number removed]"}],
                },
                {
                    "id": "refund-cap",
                    "title": "Refunds above 500 need a manager",
                    "summary": "The assistant refunds at most 500; a manager approves more.",
                    "text": "Refunds for a damaged or late order are issued up to 500.",
                    "severity": 4,
                    "enforcement": "fix",
                    "citationRef": "REF-2",
                    "tags": ["refund", "damaged"],
                    "tools": [{"tool": "issue_refund", "argument": "amount", "max": 500}],
                },
                {
                    "id": "account-deletion",
                    "title": "Only the Privacy Office deletes accounts",
                    "summary": "The assistant files a closure request instead of deleting.",
                    "severity": 4,
                    "enforcement": "fix",
                    "citationRef": "PRIV-3",
                    "tools": [{"tool": "delete_account", "deny": True}],
                },
            ]
        }
    },
    "keys": [
        {
            "key": KEY,
            "tenant": "shop",
            "settings": {
                "post_inference_checking": "allowed",
                "tool_call_governance": "allowed",
                "rate_limit_per_minute": "unlimited",  # a trusted in-process caller
            },
        }
    ],
}

ran: list[str] = []  # what the tools really did


@function_tool
def issue_refund(order: str, amount: int) -> str:
    """Refund an order, in the order's currency."""
    ran.append(f"issue_refund(order={order!r}, amount={amount})")
    return f"Refund of {amount} issued for {order}."


@function_tool
def delete_account(email: str) -> str:
    """Delete a customer's account."""
    ran.append(f"delete_account(email={email!r})")
    return "Account deleted."


# What the model will say, call by call (a real model would decide this itself).
model = ScriptedModel(
    [
        [function_call("issue_refund", {"order": "NW-10442", "amount": 650}, call_id="call-1")],
        [
            assistant_message(
                f"Done: 500 refunded to your card {CARD}; a manager can approve the rest.",
                item_id="msg-1",
            )
        ],
        [function_call("delete_account", {"email": "ada@example.com"}, call_id="call-2")],
        [
            assistant_message(
                "I have filed the closure request for the Privacy Office.", item_id="msg-2"
            )
        ],
    ]
)
support_agent = Agent(
    name="Shop support",
    instructions="You are the shop's support assistant.",
    model=model,
    tools=[issue_refund, delete_account],
)


async def main() -> None:
    agents.set_tracing_disabled(True)  # offline: no traces sent anywhere
    gov = govcore.Governance.from_config(CONFIG)

    # The five lines a user writes:
    conversation = GovernedConversation(gov.client(KEY), session_id="demo-42")
    agent, run_config = govern(support_agent, conversation)
    result = await Runner.run(
        agent, "My jacket arrived torn, refund order NW-10442 please", run_config=run_config
    )
    print("answer:", result.final_output)

    print("\nthe model's instructions, with the policies appended:")
    for line in (model.calls[0].system_instructions or "").splitlines():
        print("  |", line[:100])
    print("the model proposed issue_refund(amount=650); the tool ran:", ran[-1])

    # The next turn replays the history (nothing is recorded twice) and streams the answer.
    history = [*result.to_input_list(), {"role": "user", "content": "Also delete my account."}]
    streamed = Runner.run_streamed(agent, history, run_config=run_config)
    chunks = [
        event.data.delta
        async for event in streamed.stream_events()
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta"
    ]
    print("\nstreamed answer, in checked chunks:", chunks)
    print("the model proposed delete_account: it ran", [call for call in ran if "delete" in call])
    print("the model read:", model.calls[-1].input[-1]["output"][:110], "...")  # type: ignore[index]
    turns = gov.client(KEY).get_conversation("demo-42").turn_count
    print("\nturns recorded once each (2 user, 2 tool, 2 assistant):", turns)


if __name__ == "__main__":
    asyncio.run(main())
