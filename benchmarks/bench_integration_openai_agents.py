"""The OpenAI Agents SDK adapter's own overhead: a governed run minus the same run ungoverned.

    pip install -e ".[openai-agents]"
    python benchmarks/bench_integration_openai_agents.py [--rounds N]

The SDK's scripted test model answers instantly and the store is in memory, so what is left
between the two runs is govcore's work and the adapter's. Each round runs every scenario
governed and ungoverned, back to back in a rotating order, each governed run in a new
conversation (a first user turn, the common case); a round's overhead is the governed time
minus the ungoverned time of the same round. Scenarios:

* a model call with a text answer: the user turn recorded, the block put into the
  instructions, the answer checked (and recorded);
* the same answer streamed in 10-character deltas (600 characters), held back until checked;
* a tool call: a run of a tool call and a text answer, minus the text-answer run of the same
  round (which leaves the gate, the result checked and recorded as the tool turn in one
  request, and the SDK's second model call, which the ungoverned difference takes out again).

Each overhead is measured twice: with the real conversation, and with one whose govcore calls
answer at once (``InstantConversation``), which leaves the adapter's own glue (wrapping the agent
per run, reading the SDK's items, rewriting its events). Another table times each govcore call the
adapter makes, on its own, and the last one each call warm (right after the previous one) and
cold (right after an ungoverned run of the SDK, as inside a run): what the SDK's own work in
between costs the next call.

Targets (issue 19): under 1 ms p50 per model call, under 0.3 ms per tool call.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

try:
    import agents
    from agents import Agent, Runner, function_tool
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
except ImportError:  # pragma: no cover - a setup problem, explained to the user
    sys.exit('this benchmark needs the SDK: pip install -e ".[openai-agents]"')

import govcore
from govcore.integrations import CheckedText, GovernedConversation
from govcore.integrations.openai_agents import govern

KEY = "gk_bench_openai_agents_0001"
CONFIG: dict[str, Any] = {
    "tenants": {
        "shop": {
            "policies": [
                {
                    "id": "card-data",
                    "title": "Never repeat payment card numbers",
                    "summary": "Card numbers are never repeated in a reply or a tool call.",
                    "severity": 5,
                    "enforcement": "fix",
                    "citationRef": "PAY-1",
                    "tags": ["payment", "card"],
                    "detect": [{"pii": "credit_card"}],
                },
                {
                    "id": "refund-cap",
                    "title": "Refunds above 500 need a manager",
                    "summary": "The assistant refunds at most 500.",
                    "severity": 4,
                    "enforcement": "fix",
                    "citationRef": "REF-2",
                    "tags": ["refund"],
                    "tools": [{"tool": "issue_refund", "argument": "amount", "max": 500}],
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
                "rate_limit_per_minute": "unlimited",
            },
        }
    ],
}
QUESTION = "My order arrived damaged, can I get a refund to my card?"
ANSWER = "I am sorry about the damage. Your refund is on its way and arrives in 3 to 5 days."
STREAMED = ("Thanks for waiting, the refund is being processed and will reach your card. " * 8)[
    :600
]


@function_tool
def issue_refund(order: int, amount: int) -> str:
    """Refund an order."""
    return f"Refunded {amount} on order {order}."


def streamed_step() -> ModelStep:
    """The scripted model's own stream, with its one text delta cut into 10-character ones."""
    message = assistant_message(STREAMED, item_id="m-stream")

    async def events(call: Any) -> Any:
        plain = ScriptedModel([[message]])
        async for event in plain.stream_response(
            None, "", agents.ModelSettings(), [], None, [], agents.ModelTracing.DISABLED,
            previous_response_id=None, conversation_id=None, prompt=None,
        ):  # fmt: skip
            if event.type == "response.output_text.delta":
                for start in range(0, len(event.delta), 10):
                    yield event.model_copy(update={"delta": event.delta[start : start + 10]})
            else:
                yield event

    return ModelStep.stream(events, output=[message])


class InstantConversation(GovernedConversation):
    """A conversation whose govcore calls answer at once: what is left is the adapter's glue."""

    async def arecord_user(self, text: str, *, message_id: str | None = None) -> str:
        return ""

    async def arecord_assistant(self, text: str, *, message_id: str | None = None) -> None:
        return None

    async def arecord_tool_result(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def agate_tool(self, tool_name: str, arguments: Any, **kwargs: Any) -> govcore.ToolGate:
        return govcore.ToolGate(
            action="allow", arguments=dict(arguments), message=None, decision=None, recheck=None
        )

    async def acheck_tool_result(self, tool_name: str, result: Any, **kwargs: Any) -> CheckedText:
        return CheckedText(str(result), None, changed=False, withheld=False)

    async def acheck_and_record_tool_result(
        self, tool_name: str, result: Any, **kwargs: Any
    ) -> CheckedText:
        return CheckedText(str(result), None, changed=False, withheld=False, recorded=True)

    async def acheck_answer(self, text: str, *, message_id: str | None = None) -> CheckedText:
        return CheckedText(text, None, changed=False, withheld=False)

    async def astream(self, deltas: Any, *, message_id: str | None = None) -> Any:
        async for delta in deltas:
            yield delta


Scenario = Callable[[GovernedConversation | None], Awaitable[None]]


def scenarios(gov: govcore.Governance) -> dict[str, Scenario]:
    def agent(steps: list[Any]) -> Agent[Any]:
        return Agent(
            name="shop",
            instructions="You are the shop's assistant.",
            model=ScriptedModel(steps),
            tools=[issue_refund],
        )

    async def answer(conversation: GovernedConversation | None) -> None:
        await run(agent([[assistant_message(ANSWER, item_id="m1")]]), conversation)

    async def streamed(conversation: GovernedConversation | None) -> None:
        await run(agent([streamed_step()]), conversation, stream=True)

    async def tool(conversation: GovernedConversation | None) -> None:
        steps = [
            [function_call("issue_refund", {"order": 7, "amount": 20}, call_id="c1")],
            [assistant_message(ANSWER, item_id="m1")],
        ]
        await run(agent(steps), conversation)

    return {"answer": answer, "streamed": streamed, "tool": tool}


async def run(
    agent: Agent[Any], conversation: GovernedConversation | None, *, stream: bool = False
) -> None:
    run_config = None
    if conversation is not None:
        agent, run_config = govern(agent, conversation)
    if stream:
        result = Runner.run_streamed(agent, QUESTION, run_config=run_config)
        async for _ in result.stream_events():
            pass
    else:
        await Runner.run(agent, QUESTION, run_config=run_config)


async def measure(rounds: int) -> dict[str, dict[str, list[float]]]:
    """Per kind of conversation ("govcore", "glue"), per scenario: each round's overhead."""
    gov = govcore.Governance.from_config(CONFIG)
    client = gov.client(KEY)
    cases = scenarios(gov)
    kinds: dict[str, type[GovernedConversation]] = {
        "govcore": GovernedConversation,
        "glue": InstantConversation,
    }
    overheads = {kind: {name: [] for name in [*cases, "tool call"]} for kind in kinds}
    order = [(name, kind) for name in cases for kind in (None, *kinds)]
    for number in range(rounds + 5):  # the first 5 rounds warm up and are not kept
        timings: dict[tuple[str, str | None], float] = {}
        shift = number % len(order)
        for name, kind in order[shift:] + order[:shift]:
            conversation = kinds[kind](client) if kind is not None else None
            start = time.perf_counter()
            await cases[name](conversation)
            timings[name, kind] = time.perf_counter() - start
        if number < 5:
            continue
        for kind, values in overheads.items():
            for name in cases:
                values[name].append(timings[name, kind] - timings[name, None])
            values["tool call"].append(values["tool"][-1] - values["answer"][-1])
    return overheads


async def govcore_calls(rounds: int) -> dict[str, list[float]]:
    """Each govcore call of a run with a tool call, timed on its own (a new conversation each).

    Each round runs the run's calls twice, in two conversations and in alternating order: with
    the tool's result checked and recorded in two requests (as before the one-request form),
    and in one (as the adapter does now), so both forms are timed in the same state of the
    conversation and of the machine; the last rows are each form's sum for the tool call.
    """
    client = govcore.Governance.from_config(CONFIG).client(KEY)
    calls: dict[str, list[float]] = {
        "record the user turn": [],
        "gate the tool call": [],
        "check the tool result": [],
        "record the tool turn": [],
        "check and record the result (one request)": [],
        "check and record the answer": [],
        "tool call: 3 requests (gate, check, record)": [],
        "tool call: 2 requests (gate, one request)": [],
    }
    result = "Refunded 20 on order 7."

    async def run(merged: bool, keep: bool) -> None:
        conversation = GovernedConversation(client)
        steps: list[tuple[str, Awaitable[Any]]] = [
            ("record the user turn", conversation.arecord_user(QUESTION, message_id="u1")),
            (
                "gate the tool call",
                conversation.agate_tool("issue_refund", {"order": 7, "amount": 20}),
            ),
        ]
        if merged:
            steps.append(
                (
                    "check and record the result (one request)",
                    conversation.acheck_and_record_tool_result(
                        "issue_refund", result, call_id="c1", message_id="output:c1"
                    ),
                )
            )
        else:
            steps += [
                (
                    "check the tool result",
                    conversation.acheck_tool_result("issue_refund", result, call_id="c1"),
                ),
                (
                    "record the tool turn",
                    conversation.arecord_tool_result(
                        "issue_refund", result, call_id="c1", message_id="output:c1"
                    ),
                ),
            ]
        steps.append(
            ("check and record the answer", conversation.acheck_answer(ANSWER, message_id="m1"))
        )
        tool_call = 0.0
        for name, step in steps:
            start = time.perf_counter()
            await step
            took = time.perf_counter() - start
            if name not in ("record the user turn", "check and record the answer"):
                tool_call += took
            # The one-request form gives its own row; every other row is the other form's.
            if keep and merged == (name == "check and record the result (one request)"):
                calls[name].append(took)
        if keep:
            form = "2 requests" if merged else "3 requests"
            calls[next(label for label in calls if form in label)].append(tool_call)

    for number in range(rounds + 5):
        for merged in (number % 2 == 0, number % 2 == 1):
            await run(merged, keep=number >= 5)
    return calls


async def warm_and_cold(rounds: int) -> dict[str, list[float]]:
    """Each govcore call of a run with a tool call (the one-request form), timed warm (right
    after the previous call, as the table above times them) and cold (right after an
    ungoverned run of the SDK, as inside a run, where the SDK's own work comes between two
    calls). Rounds alternate which of the two goes first."""
    client = govcore.Governance.from_config(CONFIG).client(KEY)
    plain = scenarios(govcore.Governance.from_config(CONFIG))["answer"]
    names = ["record the user turn", "gate the tool call", "check and record the result", "check and record the answer"]  # fmt: skip
    timings: dict[str, list[float]] = {f"{name}, {kind}": [] for name in names for kind in ("warm", "cold")}  # fmt: skip
    result = "Refunded 20 on order 7."

    def calls_of(conversation: GovernedConversation) -> list[Callable[[], Awaitable[Any]]]:
        return [
            lambda: conversation.arecord_user(QUESTION, message_id="u1"),
            lambda: conversation.agate_tool("issue_refund", {"order": 7, "amount": 20}),
            lambda: conversation.acheck_and_record_tool_result(
                "issue_refund", result, call_id="c1", message_id="output:c1"
            ),
            lambda: conversation.acheck_answer(ANSWER, message_id="m1"),
        ]

    for number in range(rounds + 5):
        for kind in ("warm", "cold") if number % 2 == 0 else ("cold", "warm"):
            calls = calls_of(GovernedConversation(client))
            for name, make in zip(names, calls, strict=True):
                if kind == "cold":
                    await plain(None)
                start = time.perf_counter()
                await make()
                took = time.perf_counter() - start
                if number >= 5:
                    timings[f"{name}, {kind}"].append(took)
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(label: str, seconds: list[float], target: float | None) -> None:
    values = [value * 1000 for value in seconds]
    target_text = f"< {target} ms" if target is not None else ""
    print(
        f"| {label:44} | {statistics.median(values):6.3f} | {percentile(values, 0.95):6.3f} "
        f"| {percentile(values, 0.99):6.3f} | {target_text:10} |"
    )


def header(title: str) -> None:
    print(f"| {title:44} | {'p50':>6} | {'p95':>6} | {'p99':>6} | target p50 |")
    print(f"|{'-' * 46}|{'-' * 8}|{'-' * 8}|{'-' * 8}|------------|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="timed rounds (default 300)")
    arguments = parser.parse_args()
    agents.set_tracing_disabled(True)
    gc.collect()
    overheads = asyncio.run(measure(arguments.rounds))
    calls = asyncio.run(govcore_calls(arguments.rounds))
    print(f"OpenAI Agents SDK {agents.__version__}, Python {platform.python_version()}, ", end="")
    print(f"{arguments.rounds} rounds; overhead = governed run - ungoverned run, in ms")
    rows = [
        ("model call, text answer", "answer", 1.0),
        ("model call, streamed (600 characters)", "streamed", 1.0),
        ("tool call (gate, result checked + tool turn)", "tool call", 0.3),
        ("run: tool call + text answer", "tool", None),
    ]
    for kind, title in (("govcore", "governed (in-memory store)"), ("glue", "adapter glue only")):
        print()
        header(title)
        for label, name, target in rows:
            row(label, overheads[kind][name], target if kind == "govcore" else None)
    print()
    header("each govcore call, on its own")
    for label, seconds in calls.items():
        row(label, seconds, None)
    print()
    header("each call warm, and cold (after an SDK run)")
    for label, seconds in asyncio.run(warm_and_cold(arguments.rounds)).items():
        row(label, seconds, None)


if __name__ == "__main__":
    main()
