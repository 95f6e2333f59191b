"""A LiteLLM support assistant governed by govcore, offline, with LiteLLM's own test models.

    pip install 'govcore[litellm]'
    python examples/litellm_app.py

The assistant answers for Northwind Outfitters (the policies of ``govcore demo``). A scripted
model, registered as a LiteLLM custom provider, plays a careless assistant: it emails a
customer's card number and repeats it in its answer; then LiteLLM's ``mock_response`` streams the
number again. The script prints what governance did at each point: the policies in each model
request, the tool call run with safer arguments, the redacted answer, and a streamed answer whose
text is held back until checked. Both of LiteLLM's paths are shown: ``litellm.acompletion``
governed by the callback's hooks, and sync ``completion()`` through the callback's wrapper.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost-map fetch

import litellm
from litellm import CustomLLM

import govcore
from govcore.integrations.litellm import GovernanceCallback

DEMO_CONFIG = Path(govcore.__file__).parent / "demo" / "acme" / "govcore.yaml"
DEMO_KEY = "gk_demo_northwind_full_0001"
CARD = "4111 1111 1111 1111"


class ScriptedModel(CustomLLM):
    """A LiteLLM custom provider that answers from a script and prints the policy lines of the
    instructions it was sent."""

    def __init__(self, script: list[tuple[str, list[dict[str, Any]] | None]]) -> None:
        super().__init__()
        self.script = script

    def completion(self, *args: Any, **kwargs: Any) -> Any:
        messages = kwargs["messages"]
        system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
        policies = [line for line in system.splitlines() if "NWO-POL" in line]
        print(f"  model call: {len(policies)} policy lines in the instructions")
        for line in policies[:2]:
            print(f"    {line.strip()[:96]}")
        text, calls = self.script.pop(0)
        return litellm.mock_completion(
            model="scripted", messages=messages, mock_response=text, mock_tool_calls=calls
        )

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        return self.completion(*args, **kwargs)


def send_email(to: str, body: str) -> str:
    print(f"  send_email ran with body: {body!r}")
    return f"Email sent to {to}."


EMAIL_CALL = {
    "id": "call-1",
    "type": "function",
    "function": {
        "name": "send_email",
        "arguments": json.dumps({"to": "jo@example.com", "body": f"Your card {CARD} is saved."}),
    },
}
SCRIPT: list[tuple[str, list[dict[str, Any]] | None]] = [
    ("", [EMAIL_CALL]),
    (f"Done: I emailed you that your card {CARD} is saved for the order.", None),
]
STREAMED = (
    "Of course. For your records, the card on your account ends the way you typed it: "
    f"{CARD}. You can change it any time on the Payment Methods page of your account, "
    "which is the only place where card details should be entered."
)


async def async_turn(governance: GovernanceCallback, messages: list[Any]) -> None:
    """Turn 1 on the asyncio path: plain litellm.acompletion, governed by the hooks."""
    response = await litellm.acompletion(model="scripted/northwind", messages=messages)
    messages.append(response.choices[0].message)
    messages += await governance.arun_tools(response, {"send_email": send_email})
    response = await litellm.acompletion(model="scripted/northwind", messages=messages)
    print(f"  answer delivered: {response.choices[0].message.content!r}")
    messages.append(response.choices[0].message)


def main() -> None:
    client = govcore.Governance.from_config(DEMO_CONFIG).client(DEMO_KEY)
    litellm.custom_provider_map = [
        {"provider": "scripted", "custom_handler": ScriptedModel(SCRIPT)}
    ]

    # The user's code: a callback for litellm, and the governed wrapper for sync code.
    governance = GovernanceCallback(client, session_id="northwind-demo")
    litellm.callbacks.append(governance)

    messages: list[Any] = [
        {"role": "system", "content": "You are Northwind Outfitters' support assistant."},
        {"role": "user", "content": f"Please save my card {CARD} and email me a confirmation."},
    ]
    print("Turn 1 (litellm.acompletion, governed by the callback's hooks)")
    asyncio.run(async_turn(governance, messages))
    gate = governance.tool_gate(EMAIL_CALL)
    print(f"  the email call was gated: {gate.action if gate else 'not seen'}")

    print("Turn 2 (sync completion(stream=True) through the governed wrapper)")
    messages.append({"role": "user", "content": "Which card is on my account?"})
    stream = governance.completion(
        model="gpt-4o-mini", messages=messages, mock_response=STREAMED, stream=True
    )
    chunks = [chunk.choices[0].delta.content or "" for chunk in stream]
    print(
        f"  {len(chunks)} chunks reached the user; none held the card number: "
        f"{all(CARD not in chunk for chunk in chunks)}"
    )
    print(f"  streamed answer delivered: {''.join(chunks)!r}")

    turns = client.get_conversation(governance.session_id).turn_count
    print(f"Turns recorded: {turns} (the history was sent whole on every call, each turn once)")


if __name__ == "__main__":
    main()
