"""A Pydantic AI support agent governed by govcore, offline, with Pydantic AI's own FunctionModel.

    pip install 'govcore[pydantic-ai]'
    python examples/pydantic_ai_app.py

The agent answers for a shop's support desk, under three policies written below: card numbers are
never repeated, an agent refunds at most 250, and no agent deletes an account. A scripted model
plays a careless assistant: it refunds more than it may, tries to delete an account, repeats a
card number in its answer and streams it again on the next turn. The script prints what the
model was told and what governance did at each point: the policies in the instructions, the
refund run with the safer amount, the deletion not run (and what the model read instead), the
redacted answer, and a streamed answer whose text is held back until checked.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import govcore
from govcore.integrations.pydantic_ai import GovernanceCapability

KEY = "gk_example_desk_0001"
CARD = "4111 1111 1111 1111"
CONFIG: dict[str, Any] = {
    "tenants": {
        "desk": {
            "policies": [
                {
                    "id": "card-data",
                    "title": "Never repeat payment card numbers",
                    "summary": "Card numbers are never repeated, stored or sent on.",
                    "text": "When a customer pays by card or gives a card number, never repeat it.",
                    "severity": 5,
                    "enforcement": "fix",
                    "citationRef": "PAY-1",
                    "tags": ["payment", "card", "refund"],
                    "detect": [{"pii": "credit_card", "replacement": "[card number removed]"}],
                },
                {
                    "id": "refund-cap",
                    "title": "Refunds above 250 need a manager",
                    "summary": "An agent refunds at most 250; a manager approves anything above.",
                    "text": "Refunds for a damaged or late order are issued up to the cap.",
                    "severity": 4,
                    "enforcement": "fix",
                    "citationRef": "REF-2",
                    "tags": ["refund", "damaged"],
                    "tools": [{"tool": "issue_refund", "argument": "amount", "max": 250}],
                },
                {
                    "id": "no-account-deletion",
                    "title": "Agents never delete accounts",
                    "summary": "Customers close their accounts in their settings.",
                    "text": "When a customer wants to close or delete an account, point them to "
                    "their settings; never delete it for them.",
                    "severity": 4,
                    "enforcement": "fix",
                    "citationRef": "ACC-3",
                    "tags": ["account", "close"],
                    "tools": [{"tool": "delete_account", "deny": True}],
                },
            ]
        }
    },
    "keys": [
        {
            "key": KEY,
            "tenant": "desk",
            "settings": {"post_inference_checking": "allowed", "tool_call_governance": "allowed"},
        }
    ],
}

# What the careless model does, one response per model call (the stream comes last).
SCRIPT = [
    ModelResponse(parts=[ToolCallPart("issue_refund", {"order": "NW48213307", "amount": 900})]),
    ModelResponse(parts=[ToolCallPart("delete_account", {"customer": "lena.kovac"})]),
    ModelResponse(parts=[TextPart(f"Refund done. I also noted your card {CARD} for next time.")]),
]
STREAMED = (
    "Of course. Your refund of 250 has been issued to the original payment method, and you "
    "should see it within five to ten business days, depending on your bank. The return label "
    "is in your inbox: print it, stick it on the box the tent came in, and drop the parcel at "
    "any post office or parcel point near you. You do not need to include the receipt, and you "
    "can keep the poles if they are bent beyond use. Once the parcel is scanned at the depot, "
    "you will get an email with its tracking link, and another once our warehouse has checked "
    f"it. To confirm, the card on file is {CARD}, and nothing else is needed from you. If the "
    "parcel has not been collected within a week, reply here and we will arrange a courier at "
    "no cost to you."
)


def model_call(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    cited = [ref for ref in ("PAY-1", "REF-2", "ACC-3") if ref in (info.instructions or "")]
    print(f"  model call; the instructions cite {', '.join(cited) or 'no policy'}")
    last = messages[-1]
    if isinstance(last, ModelRequest):
        for part in last.parts:
            if getattr(part, "outcome", None) == "failed":
                print(f"  the model reads: {part.model_response_str()[:110]}...")
    return SCRIPT.pop(0)


async def model_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for start in range(0, len(STREAMED), 6):
        yield STREAMED[start : start + 6]


def build_agent() -> Agent[None, str]:
    client = govcore.Governance.from_config(CONFIG).client(KEY)
    agent = Agent(
        FunctionModel(model_call, stream_function=model_stream),
        instructions="You are Northwind Outfitters' support assistant.",
        capabilities=[GovernanceCapability(client)],
    )

    @agent.tool_plain
    def issue_refund(order: str, amount: float) -> str:
        print(f"  issue_refund ran: order {order}, amount {amount}")
        return f"Refunded {amount} on {order}."

    @agent.tool_plain
    def delete_account(customer: str) -> str:
        print(f"  delete_account ran for {customer}")  # governance never lets this run
        return "Deleted."

    return agent


async def main() -> None:
    agent = build_agent()
    print("Turn 1: a refund of 900 for a damaged tent, then a request to close the account")
    result = await agent.run(
        f"My tent arrived damaged: refund me 900 to my card {CARD}, and close my account."
    )
    print(f"  answer: {result.output}")

    print("Turn 2, streamed: each chunk the caller sees (text comes once a check covered it)")
    async with agent.run_stream(
        "Which card do you have?", message_history=result.all_messages()
    ) as run:
        async for chunk in run.stream_text(delta=True, debounce_by=None):
            print(f"  chunk: {chunk!r}")


if __name__ == "__main__":
    asyncio.run(main())
