"""Overhead of the LangChain adapter: a governed agent run minus the same run ungoverned.

    python benchmarks/bench_integration_langchain.py [--rounds 400] [--quick]

Needs the extra: ``pip install -e ".[langchain]"``. Two scenarios, each run with and without
``GovernanceMiddleware`` on the same ``create_agent`` agent and LangChain's fake chat model
(``GenericFakeChatModel``), on the demo's policies and the in-memory store:

1. a text answer: one model call per run (the user's turn recorded, the injection block put in
   the instructions, the answer checked and recorded);
2. one tool call: two model calls and one allowed tool call per run (the call gated, its result
   checked and recorded as a tool turn).

The overhead per model call is scenario 1's governed run minus its ungoverned run; per tool call,
scenario 2's overhead minus scenario 1's (both have one user turn and one checked answer). Each
round runs the six cases once, in a rotating order, so a noisy machine affects them alike; the
"overhead" rows are the per-round differences. Every tenth run starts a new conversation (a
thread), so turns are recorded into conversations of 1 to 10 turns. A third case isolates the
adapter: the same governed runs with govcore's answers replayed (recorded once from the real
client, returned at no cost), so what remains is the adapter's and the governed conversation's
own work (the hooks, LangChain's middleware plumbing, message copies).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import sys
import time
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from report import LATENCY_COLUMNS, Stats, Table, machine_facts, notes, print_section  # noqa: E402

import govcore  # noqa: E402
from govcore.integrations.langchain import GovernanceMiddleware  # noqa: E402

DEMO_CONFIG = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"
KEY = "gk_bench_langchain_0001"
QUESTIONS = (
    "Where is my parcel? It was due on Monday.",
    "Can I return the hiking boots I bought last week?",
    "My jacket arrived with a broken zip, what can you do?",
    "How long does standard shipping to Canada take?",
    "Do Summit members get free returns?",
)
ANSWER = (
    "Thanks for your patience. Your order left our warehouse on Friday and is with the carrier; "
    "standard deliveries arrive within five business days, and you will get an email with the "
    "tracking link as soon as the carrier scans it at the local depot."
)


class FakeModel(GenericFakeChatModel):
    """LangChain's fake chat model, taking the agent's tools (``create_agent`` binds them)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> FakeModel:
        return self


def answers(with_tool: bool) -> Iterator[AIMessage]:
    """Fresh messages for every call (LangChain gives each its own id)."""
    for index in itertools.count():
        if with_tool:
            yield AIMessage(
                content="",
                tool_calls=[
                    {"name": "lookup_order", "args": {"order_id": f"N-{index}"}, "id": f"c{index}"}
                ],
            )
        yield AIMessage(ANSWER)


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return f"Order {order_id}: shipped on Friday with standard delivery, 2 items, paid."


class ReplayingClient:
    """Answers each govcore call the adapter makes with a response recorded once from the real
    client, at no cost: a governed run through it is the adapter's (and the governed
    conversation's) own work, without govcore's checks."""

    def __init__(self, client: govcore.GovernanceClient) -> None:
        session = "replay-recording"
        self.turn = client.record_turn(
            {"sessionId": session, "turn": {"role": "user", "content": QUESTIONS[0]}}
        )
        self.answer_turn = client.record_turn(
            {
                "sessionId": session,
                "turn": {"role": "assistant", "content": ANSWER},
                "checkOutput": True,
            }
        )
        self.gate = client.gate_tool_call(session, "lookup_order", {"order_id": "N-1"})
        self.verdict = client.post_inference({"sessionId": session, "output": ANSWER})
        self.tool_turn = client.record_turn(
            {"sessionId": session, "turn": {"role": "tool", "content": ANSWER}}, check_result=True
        )

    def record_turn(self, request: Any, **identifiers: Any) -> Any:
        if identifiers.get("check_result"):
            return self.tool_turn
        return self.answer_turn if request.get("checkOutput") else self.turn

    def gate_tool_call(
        self, session_id: str, tool_name: str, arguments: Any, **options: Any
    ) -> Any:
        return dataclasses.replace(self.gate, arguments=dict(arguments))

    def check_tool_result(self, *args: Any, **kwargs: Any) -> Any:
        return self.verdict

    def post_inference(self, request: Any) -> Any:
        return self.verdict


def configuration() -> dict[str, Any]:
    import yaml

    config = yaml.safe_load(DEMO_CONFIG.read_text())
    policies = DEMO_CONFIG.parent / config["tenants"]["northwind"]["policies"]
    config["tenants"]["northwind"]["policies"] = str(policies)
    config["keys"] = [
        {
            "key": KEY,
            "tenant": "northwind",
            "settings": {
                "post_inference_checking": "allowed",
                "tool_call_governance": "allowed",
                # A trusted in-process caller, as docs/integrations.md advises ("unlimited": a
                # limit of 10**9 still kept each request's rate-limit window, a store write).
                "rate_limit_per_minute": "unlimited",
            },
        }
    ]
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--quick", action="store_true", help="60 rounds")
    args = parser.parse_args()
    rounds = 60 if args.quick else args.rounds
    warmup = 20

    gov = govcore.Governance.from_config(configuration())
    middlewares = {
        "bare": None,
        "gov": GovernanceMiddleware(gov.client(KEY)),
        "replay": GovernanceMiddleware(ReplayingClient(gov.client(KEY))),  # type: ignore[arg-type]
    }
    agents: dict[str, Any] = {}
    for scenario in ("text", "tool"):
        for kind, middleware in middlewares.items():
            agents[f"{scenario}/{kind}"] = create_agent(
                FakeModel(messages=answers(with_tool=scenario == "tool")),
                tools=[lookup_order],
                middleware=[middleware] if middleware is not None else [],
                system_prompt="You are Northwind Outfitters' support assistant.",
            )
    names = list(agents)
    clocks: dict[str, Callable[[], int]] = {
        "wall-clock": time.perf_counter_ns,
        "CPU time": time.process_time_ns,
    }
    times: dict[str, dict[str, list[int]]] = {clock: {n: [] for n in names} for clock in clocks}
    runs = itertools.count()

    def run(name: str, record: bool) -> None:
        index = next(runs)
        config = {"configurable": {"thread_id": f"{name}-{index // 10}"}}
        inputs = {"messages": [{"role": "user", "content": QUESTIONS[index % len(QUESTIONS)]}]}
        wall, cpu = time.perf_counter_ns(), time.process_time_ns()
        agents[name].invoke(inputs, config)
        if record:
            times["CPU time"][name].append(time.process_time_ns() - cpu)
            times["wall-clock"][name].append(time.perf_counter_ns() - wall)

    for round_index in range(warmup + rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            run(name, record=round_index >= warmup)

    def minus(first: list[int], second: list[int]) -> list[int]:
        return [a - b for a, b in zip(first, second, strict=True)]

    blocks: list[str] = []
    medians: dict[str, float] = {}
    for clock, measured in times.items():
        overheads: dict[str, list[int]] = {}
        for kind in ("gov", "replay"):
            per_model_call = minus(measured[f"text/{kind}"], measured["text/bare"])
            overheads[f"model/{kind}"] = per_model_call
            overheads[f"tool/{kind}"] = minus(
                minus(measured[f"tool/{kind}"], measured["tool/bare"]), per_model_call
            )
            for what in ("model", "tool"):
                medians[f"{clock} {what}/{kind}"] = Stats.of(overheads[f"{what}/{kind}"]).median_ms
        rows: list[tuple[str, list[int]]] = [
            ("text answer (1 model call), ungoverned", measured["text/bare"]),
            ("text answer, governed", measured["text/gov"]),
            ("text answer, adapter alone (govcore's answers replayed)", measured["text/replay"]),
            ("one tool call (2 model calls), ungoverned", measured["tool/bare"]),
            ("one tool call, governed", measured["tool/gov"]),
            ("one tool call, adapter alone", measured["tool/replay"]),
            ("overhead per model call, governed", overheads["model/gov"]),
            ("overhead per model call, adapter alone", overheads["model/replay"]),
            ("overhead per tool call, governed", overheads["tool/gov"]),
            ("overhead per tool call, adapter alone", overheads["tool/replay"]),
        ]
        table = Table([f"run ({clock})", *LATENCY_COLUMNS[:3]])
        for label, values in rows:
            table.add(label, *Stats.of(values).cells()[:3])
        blocks.append(table.render())

    def summary(clock: str) -> list[str]:
        return [
            f"{clock} p50 per model call: governed {medians[f'{clock} model/gov']:.3f} ms, "
            f"adapter alone {medians[f'{clock} model/replay']:.3f} ms (target < 1 ms); per "
            f"tool call: governed {medians[f'{clock} tool/gov']:.3f} ms, adapter alone "
            f"{medians[f'{clock} tool/replay']:.3f} ms (target < 0.3 ms).",
        ]

    print_section(
        "LangChain adapter overhead",
        *blocks,
        notes(
            f"{rounds} rounds after {warmup} warm-up rounds; each round runs the six cases "
            "once, in a rotating order; overheads are per-round differences.",
            "per model call: the text answer's run minus the ungoverned one; per tool call: "
            "the tool run's overhead minus the text answer's (both have one user turn and one "
            "checked answer).",
            "CPU time is the process's (all threads'): unlike wall-clock time it leaves out the "
            "time the run waited while other processes had the CPU, which on a shared machine "
            "makes a longer run look costlier than it is.",
            *summary("wall-clock"),
            *summary("CPU time"),
            f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs.",
            *machine_facts(f"langchain {version('langchain')}, langgraph {version('langgraph')}"),
        ),
    )


if __name__ == "__main__":
    main()
