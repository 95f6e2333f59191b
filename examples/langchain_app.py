"""A LangChain support agent governed by govcore, offline, with LangChain's own fake chat model.

    pip install 'govcore[langchain]'
    python examples/langchain_app.py

The agent answers for Northwind Outfitters (the policies of ``govcore demo``). A scripted fake
model plays a careless assistant: it emails a customer's card number, repeats it in its answer,
and streams it again on the next turn. The script prints what the model was told and what
governance did at each point: the policies in the instructions, the tool call run with safer
arguments, the redacted answer, and a streamed answer whose text is held back until checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

import govcore
from govcore.integrations.langchain import GovernanceMiddleware

DEMO_CONFIG = Path(govcore.__file__).parent / "demo" / "acme" / "govcore.yaml"
DEMO_KEY = "gk_demo_northwind_full_0001"
CARD = "4111 1111 1111 1111"


class ScriptedModel(GenericFakeChatModel):
    """LangChain's fake chat model, answering from a script; it accepts the agent's tools and
    prints the instructions of each request it gets."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        system = messages[0].text if messages else ""
        policies = [line for line in system.splitlines() if "NWO-POL" in line]
        print(f"  model call: {len(policies)} policy lines in the instructions")
        for line in policies[:3]:
            print(f"    {line.strip()[:96]}")
        return super()._generate(messages, *args, **kwargs)


@tool
def send_email(to: str, body: str) -> str:
    """Send an email to the customer."""
    print(f"  send_email ran with body: {body!r}")
    return f"Email sent to {to}."


SCRIPT = [
    # Turn 1: the model emails the card number and repeats it.
    AIMessage(
        content="",
        tool_calls=[
            {
                "name": "send_email",
                "args": {"to": "jo@example.com", "body": f"Your card {CARD} is saved."},
                "id": "call-1",
            }
        ],
    ),
    AIMessage(f"Done: I emailed you that your card {CARD} is saved for the order."),
    # Turn 2, streamed: the model repeats the card number in a long answer.
    AIMessage(
        "Of course. Your order N-1001 was paid when it shipped on Friday, and the receipt went to "
        "the email address on your account. Standard deliveries take three to five business "
        "days, and the carrier's tracking link is in your shipping confirmation. Should "
        "anything arrive damaged, keep the packaging and send us a photo so that we can arrange "
        "a replacement. For your records, the card on your account is the one you typed: "
        f"{CARD}. You can change it any time on the Payment Methods page of your account, "
        "which is the only place where card details should be entered."
    ),
]


def main() -> None:
    gov = govcore.Governance.from_config(DEMO_CONFIG)

    # The user's code: a middleware for the agent, and the governed stream.
    governance = GovernanceMiddleware(gov.client(DEMO_KEY))
    agent = create_agent(
        ScriptedModel(messages=iter(SCRIPT)),
        tools=[send_email],
        middleware=[governance],
        system_prompt="You are Northwind Outfitters' support assistant.",
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "customer-42"}}

    print("Turn 1 (invoke):")
    question = f"Please email me to confirm you saved my card {CARD} for my order."
    result = agent.invoke({"messages": [{"role": "user", "content": question}]}, config)
    print(f"  answer: {result['messages'][-1].text}")

    print("Turn 2 (governed stream, stream_mode='messages'):")
    pieces = []
    for chunk, _metadata in governance.stream(
        agent, {"messages": [{"role": "user", "content": "Which card was that again?"}]}, config
    ):
        if isinstance(chunk, AIMessage) and chunk.text:
            pieces.append(chunk.text)
            print(f"  piece {len(pieces)} ({len(chunk.text)} characters): {chunk.text[:60]!r}...")
    print(f"  the caller saw: {''.join(pieces)}")

    turns = gov.client(DEMO_KEY).get_conversation("customer-42").turn_count
    print(f"Conversation 'customer-42': {turns} turns recorded, each once.")


if __name__ == "__main__":
    main()
