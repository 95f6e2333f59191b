"""The LiteLLM adapter's own overhead: a governed run minus the same run ungoverned.

    pip install -e ".[litellm]"
    python benchmarks/bench_integration_litellm.py [--quick]

One command, one table. The model is LiteLLM's own test model (a scripted custom provider
that answers through ``litellm.mock_completion``, offline), the store the in-memory one, the
policies those of ``govcore demo``. Each row times the same step governed and ungoverned, call
by call and interleaved (alternating which goes first), and reports the governed time, the
ungoverned time and their difference, the adapter's overhead (median, p95, p99 over the paired
differences):

- model call, sync: ``GovernanceCallback.completion`` against ``litellm.completion`` in a
  conversation whose whole history is sent each time (a new user message, a text answer):
  the new user turn recorded, the block put into the instructions, the answer checked once;
- model call, async: ``litellm.acompletion`` with the callback in ``litellm.callbacks`` (its
  hooks) against the same call without it;
- tool call: ``GovernanceCallback.run_tools`` on a response with one allowed tool call that
  no hook gated (gate, run, check the result, record it) against running the tool directly.

Targets (issue 19): under 1 ms p50 per model call and under 0.3 ms per tool call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm
from litellm import CustomLLM
from report import Stats, Table, fmt, machine_facts, notes, print_section, progress, verdict

import govcore
from govcore.integrations.litellm import GovernanceCallback

KEY = "gk_bench_litellm_0001"
POLICIES = Path(govcore.__file__).parent / "demo" / "acme" / "policies"
CONFIG: dict[str, Any] = {
    "tenants": {"northwind": {"policies": str(POLICIES)}},
    "keys": [
        {
            "key": KEY,
            "tenant": "northwind",
            "settings": {
                "post_inference_checking": "allowed",
                "tool_call_governance": "allowed",
                "rate_limit_per_minute": None,
            },
        }
    ],
}
MODEL = "scripted/bench"
QUESTIONS = [
    "Can I return these boots? They were delivered three weeks ago.",
    "The tent pole snapped the first time I set it up.",
    "Could I spread the cost of the kayak over a few months?",
    "Where is my order? It was due on Monday.",
    "Please change the delivery address of my open order.",
]
ANSWER = (
    "Thanks for getting in touch. Items can go back within 30 days of delivery if unused; "
    "I have opened a return for you and emailed the prepaid label."
)
TOOL_CALL = {
    "id": "call-0",
    "type": "function",
    "function": {"name": "lookup_order", "arguments": json.dumps({"order": "NW-1042"})},
}
TARGET_MODEL_MS = 1.0
TARGET_TOOL_MS = 0.3


class ScriptedModel(CustomLLM):
    """Answers every call with ``ANSWER`` (and ``calls``, if set) through LiteLLM's mock."""

    calls: list[dict[str, Any]] | None = None

    def completion(self, *args: Any, **kwargs: Any) -> Any:
        return litellm.mock_completion(
            model=MODEL,
            messages=kwargs["messages"],
            mock_response="" if self.calls else ANSWER,
            mock_tool_calls=self.calls,
        )

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        return self.completion(*args, **kwargs)


def lookup_order(order: str) -> dict[str, str]:
    return {"order": order, "status": "packed", "carrier": "UPS"}


def paired(
    governed: Callable[[int], object],
    plain: Callable[[int], object],
    count: int,
    warmup: int,
) -> tuple[Stats, Stats, Stats]:
    """Time ``governed(i)`` and ``plain(i)`` interleaved; their stats and the differences'."""
    for index in range(warmup):
        governed(index)
        plain(index)
    governed_ns: list[int] = []
    plain_ns: list[int] = []
    for index in range(warmup, warmup + count):
        order = (governed, plain) if index % 2 else (plain, governed)
        for step in order:
            start = time.perf_counter_ns()
            step(index)
            elapsed = time.perf_counter_ns() - start
            (governed_ns if step is governed else plain_ns).append(elapsed)
    overhead = [max(g - p, 0) for g, p in zip(governed_ns, plain_ns, strict=True)]
    return Stats.of(governed_ns), Stats.of(plain_ns), Stats.of(overhead)


class Conversations:
    """Histories of five turns, sent whole on every call: call ``i`` is turn ``i % 5`` of
    conversation ``i // 5`` (a separate one for each path)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.histories: dict[int, list[Any]] = {}

    def request(self, index: int) -> tuple[str, list[Any]]:
        number, turn = divmod(index, len(QUESTIONS))
        history = self.histories.setdefault(number, [])
        if turn == 0:
            self.histories.pop(number - 1, None)
        history.append({"role": "user", "content": QUESTIONS[turn]})
        return f"{self.prefix}-{number}", history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, for a smoke run")
    arguments = parser.parse_args()
    count, warmup = (200, 20) if arguments.quick else (2000, 100)

    model = ScriptedModel()
    litellm.custom_provider_map = [{"provider": "scripted", "custom_handler": model}]
    client = govcore.Governance.from_config(CONFIG).client(KEY)
    governance = GovernanceCallback(client)
    table = Table(
        [
            "step",
            "governed median ms",
            "ungoverned median ms",
            "overhead median ms",
            "overhead p95 ms",
            "overhead p99 ms",
            "target",
        ]
    )

    def row(step: str, stats: tuple[Stats, Stats, Stats], target_ms: float) -> None:
        governed, plain, overhead = stats
        table.add(
            step,
            fmt(governed.median_ms),
            fmt(plain.median_ms),
            fmt(overhead.median_ms),
            fmt(overhead.p95_ms),
            fmt(overhead.p99_ms),
            f"< {target_ms} ms: {verdict(overhead.median_ms < target_ms)}",
        )

    progress("model call, sync wrapper")
    governed_sync, plain_sync = Conversations("sync-g"), Conversations("sync-p")

    def governed_call(index: int) -> None:
        session, history = governed_sync.request(index)
        response = governance.completion(model=MODEL, messages=history, litellm_session_id=session)
        history.append(response.choices[0].message)

    def plain_call(index: int) -> None:
        _, history = plain_sync.request(index)
        response = litellm.completion(model=MODEL, messages=history)
        history.append(response.choices[0].message)

    row("model call, sync completion()", paired(governed_call, plain_call, count, warmup), 1.0)

    progress("model call, async hooks")
    governed_async, plain_async = Conversations("async-g"), Conversations("async-p")
    loop = asyncio.new_event_loop()

    def hooked_call(index: int) -> None:
        session, history = governed_async.request(index)
        litellm.callbacks = [governance]
        response = loop.run_until_complete(
            litellm.acompletion(model=MODEL, messages=history, litellm_session_id=session)
        )
        history.append(response.choices[0].message)

    def unhooked_call(index: int) -> None:
        _, history = plain_async.request(index)
        litellm.callbacks = []
        response = loop.run_until_complete(litellm.acompletion(model=MODEL, messages=history))
        history.append(response.choices[0].message)

    row("model call, async hooks", paired(hooked_call, unhooked_call, count, warmup), 1.0)
    litellm.callbacks = []
    loop.close()

    progress("tool call")
    model.calls = [TOOL_CALL]
    responses: dict[int, Any] = {}

    def tool_response(index: int) -> Any:
        # A response no hook saw: run_tools gates its call (a fresh call id each time).
        if index not in responses:
            response = litellm.completion(
                model=MODEL, messages=[{"role": "user", "content": "Where is NW-1042?"}]
            )
            response.choices[0].message.tool_calls[0].id = f"call-{index}"
            responses[index] = response
        return responses[index]

    tools = {"lookup_order": lookup_order}

    def governed_tool(index: int) -> None:
        governance.run_tools(tool_response(index), tools)

    def plain_tool(index: int) -> None:
        call = tool_response(index).choices[0].message.tool_calls[0]
        json.dumps(lookup_order(**json.loads(call.function.arguments)))

    for index in range(count + warmup):
        tool_response(index)  # the model calls are not part of this row
    row("tool call (gate, run, check, record)", paired(governed_tool, plain_tool, count, warmup), 0.3)

    print("# The LiteLLM adapter's overhead")
    print_section(
        f"Governed minus ungoverned ({count} paired calls per row)",
        table.render(),
        notes(
            "fake model: LiteLLM's mock_completion behind a custom provider; in-memory store; "
            "the demo's policies; a key without a rate limit",
            "a model call's overhead holds two govcore calls (record the user turn, check and "
            "record the answer); a tool call's three (gate, check the result, record it)",
            *machine_facts(f"litellm {litellm.__version__}" if hasattr(litellm, "__version__") else "litellm"),
        ),
    )


if __name__ == "__main__":
    main()
