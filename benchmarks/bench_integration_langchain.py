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
round runs the four cases once, in a rotating order, so a noisy machine affects them alike; the
"overhead" rows are the per-round differences. Every tenth run starts a new conversation (a
thread), so turns are recorded into conversations of 1 to 10 turns. A last table splits the
governed runs' overhead into the time spent in govcore's client calls and the rest, which is the
adapter's own work (LangChain's middleware plumbing, message copies, the hooks' logic).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Iterator
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


class TimedClient:
    """Forwards to the typed client and adds up the time spent in its calls."""

    def __init__(self, client: govcore.GovernanceClient) -> None:
        self._client = client
        self.spent_ns = 0

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if not callable(target):
            return target

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter_ns()
            try:
                return target(*args, **kwargs)
            finally:
                self.spent_ns += time.perf_counter_ns() - start

        return timed


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
                # A trusted in-process caller: the benchmark's calls must not be rate limited.
                "rate_limit_per_minute": 1_000_000_000,
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
    client = TimedClient(gov.client(KEY))
    middleware = GovernanceMiddleware(client)  # type: ignore[arg-type]
    agents: dict[str, Any] = {}
    for with_tool in (False, True):
        for governed in (False, True):
            agents[f"{'tool' if with_tool else 'text'}/{'gov' if governed else 'bare'}"] = (
                create_agent(
                    FakeModel(messages=answers(with_tool)),
                    tools=[lookup_order],
                    middleware=[middleware] if governed else [],
                    system_prompt="You are Northwind Outfitters' support assistant.",
                )
            )
    names = list(agents)
    times: dict[str, list[int]] = {name: [] for name in names}
    govcore_ns: dict[str, list[int]] = {name: [] for name in names if name.endswith("gov")}
    runs = itertools.count()

    def run(name: str, record: bool) -> None:
        index = next(runs)
        config = {"configurable": {"thread_id": f"{name}-{index // 10}"}}
        inputs = {"messages": [{"role": "user", "content": QUESTIONS[index % len(QUESTIONS)]}]}
        spent = client.spent_ns
        start = time.perf_counter_ns()
        agents[name].invoke(inputs, config)
        elapsed = time.perf_counter_ns() - start
        if record:
            times[name].append(elapsed)
            if name in govcore_ns:
                govcore_ns[name].append(client.spent_ns - spent)

    for round_index in range(warmup + rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            run(name, record=round_index >= warmup)

    def difference(governed: str, bare: str) -> list[int]:
        return [g - b for g, b in zip(times[governed], times[bare], strict=True)]

    text_overhead = difference("text/gov", "text/bare")
    tool_overhead = difference("tool/gov", "tool/bare")
    per_tool = [t - m for t, m in zip(tool_overhead, text_overhead, strict=True)]

    table = Table(["run", *LATENCY_COLUMNS[:3]])
    rows: list[tuple[str, list[int]]] = [
        ("text answer, ungoverned", times["text/bare"]),
        ("text answer, governed", times["text/gov"]),
        ("overhead per model call (governed - ungoverned)", text_overhead),
        ("one tool call, ungoverned", times["tool/bare"]),
        ("one tool call, governed", times["tool/gov"]),
        ("overhead of the run with a tool call", tool_overhead),
        ("overhead per tool call (minus the model call's)", per_tool),
    ]
    for label, values in rows:
        table.add(label, *Stats.of(values).cells()[:3])

    split = Table(
        ["governed run", "median overhead ms", "in govcore's calls ms", "adapter's own ms"]
    )
    for name, overhead in (("text/gov", text_overhead), ("tool/gov", tool_overhead)):
        inside = Stats.of(govcore_ns[name]).median_ms
        total = Stats.of(overhead).median_ms
        split.add(name, f"{total:.3f}", f"{inside:.3f}", f"{total - inside:.3f}")

    text_p50 = Stats.of(text_overhead).median_ms
    tool_p50 = Stats.of(per_tool).median_ms
    print_section(
        "LangChain adapter overhead",
        table.render(),
        split.render(),
        notes(
            f"{rounds} rounds after {warmup} warm-up rounds; each round runs the four cases once.",
            f"target < 1 ms p50 per model call: {text_p50:.3f} ms; "
            f"target < 0.3 ms p50 per tool call: {tool_p50:.3f} ms.",
            *machine_facts(f"langchain {version('langchain')}, langgraph {version('langgraph')}"),
        ),
    )


if __name__ == "__main__":
    main()
