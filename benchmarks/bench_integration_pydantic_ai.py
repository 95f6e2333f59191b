"""Overhead of the Pydantic AI adapter: a governed agent run minus the same run ungoverned.

    python benchmarks/bench_integration_pydantic_ai.py [--rounds 400] [--quick]

Needs the extra: ``pip install -e ".[pydantic-ai]"``. Three scenarios, each run with and without
``GovernanceCapability`` on the same kind of agent and Pydantic AI's ``FunctionModel``, on the
demo's policies and the in-memory store:

1. a text answer: one model call per run (the user's turn recorded, the injection block put in
   the instructions, the answer checked and recorded);
2. one tool call: two model calls and one allowed tool call per run (the call gated, its result
   checked and recorded as a tool turn);
3. a streamed text answer (``run_stream``): one model call whose text is held back until checked
   (streaming checks and the final verdict instead of one check).

Each governed case runs twice: through the real client, and through a client that replays
govcore's first answer to each method, which leaves the adapter's own cost.

The overhead per model call is scenario 1's governed run minus its ungoverned run; per tool call,
scenario 2's overhead minus scenario 1's (both have one user turn and one checked answer). Each
round runs the nine cases once, in a rotating order, so a noisy machine affects them alike; the
"overhead" rows are the per-round differences. Runs are grouped ten to a Pydantic AI
conversation (``conversation_id``), so turns are recorded into conversations of 1 to 10 runs.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from collections.abc import AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from report import LATENCY_COLUMNS, Stats, Table, machine_facts, notes, print_section  # noqa: E402

import govcore  # noqa: E402
from govcore.integrations.pydantic_ai import GovernanceCapability  # noqa: E402

DEMO_CONFIG = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"
KEY = "gk_bench_pydantic_ai_0001"
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


async def text_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(ANSWER)])


async def tool_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    # A tool call first; the answer once the tool's result is in the last request.
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(p.part_kind == "tool-return" for p in last.parts):
        return ModelResponse(parts=[TextPart(ANSWER)])
    return ModelResponse(parts=[ToolCallPart("lookup_order", {"order_id": "N-1042"})])


async def streamed_answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    # About the size of a provider's deltas: a few words each.
    for start in range(0, len(ANSWER), 24):
        yield ANSWER[start : start + 24]


async def lookup_order(order_id: str) -> str:
    """Look an order up (async, as the model functions: Pydantic AI runs sync ones in threads,
    whose hand-offs would add their noise to both sides)."""
    return f"Order {order_id}: shipped on Friday with standard delivery, 2 items, paid."


class ReplayClient:
    """Answers each kind of call with what the real client answered the first time it was made:
    a governed run through it costs the adapter's (and the base's) own work, without
    govcore's decisions. A turn that asks for a check (an answer's ``checkOutput``, a tool
    result's ``check_result``) is a kind of its own: its answer carries the verdict a plain
    turn's lacks."""

    def __init__(self, client: govcore.AsyncGovernanceClient) -> None:
        self._client = client
        self._answers: dict[tuple[str, bool], Any] = {}

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if not callable(target):
            return target

        async def replayed(*args: Any, **kwargs: Any) -> Any:
            request = args[0] if args else None
            checked = bool(kwargs.get("check_result")) or (
                isinstance(request, dict) and bool(request.get("checkOutput"))
            )
            kind = (name, checked)
            if kind not in self._answers:
                self._answers[kind] = await target(*args, **kwargs)
            return self._answers[kind]

        return replayed


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
                # A trusted in-process caller: no rate limit.
                "rate_limit_per_minute": "unlimited",
            },
        }
    ]
    return config


async def measure(rounds: int, warmup: int) -> None:
    gov = govcore.Governance.from_config(configuration())
    capability = GovernanceCapability(gov.client(KEY))
    replaying = GovernanceCapability(ReplayClient(gov.client(KEY).aio))  # type: ignore[arg-type]
    agents: dict[str, Agent[None, str]] = {}
    for scenario, model in (
        ("text", FunctionModel(text_model)),
        ("tool", FunctionModel(tool_model)),
        ("stream", FunctionModel(text_model, stream_function=streamed_answer)),
    ):
        for case, capabilities in (("bare", []), ("gov", [capability]), ("own", [replaying])):
            agents[f"{scenario}/{case}"] = Agent(
                model,
                instructions="You are Northwind Outfitters' support assistant.",
                tools=[lookup_order],
                capabilities=capabilities,
            )
    names = list(agents)
    times: dict[str, list[int]] = {name: [] for name in names}
    runs = itertools.count()

    async def run(name: str, record: bool) -> None:
        index = next(runs)
        prompt = QUESTIONS[index % len(QUESTIONS)]
        conversation = f"{name}-{index // 90}"  # ten runs of each case per conversation
        start = time.perf_counter_ns()
        if name.startswith("stream"):
            async with agents[name].run_stream(prompt, conversation_id=conversation) as stream:
                async for _ in stream.stream_text(delta=True, debounce_by=None):
                    pass
        else:
            await agents[name].run(prompt, conversation_id=conversation)
        elapsed = time.perf_counter_ns() - start
        if record:
            times[name].append(elapsed)

    for round_index in range(warmup + rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            await run(name, record=round_index >= warmup)

    def difference(governed: str, bare: str) -> list[int]:
        return [g - b for g, b in zip(times[governed], times[bare], strict=True)]

    text_overhead = difference("text/gov", "text/bare")
    tool_overhead = difference("tool/gov", "tool/bare")
    stream_overhead = difference("stream/gov", "stream/bare")
    per_tool = [t - m for t, m in zip(tool_overhead, text_overhead, strict=True)]
    own_text = difference("text/own", "text/bare")
    own_tool = difference("tool/own", "tool/bare")
    own_per_tool = [t - m for t, m in zip(own_tool, own_text, strict=True)]
    own_stream = difference("stream/own", "stream/bare")

    table = Table(["run", *LATENCY_COLUMNS[:3]])
    rows: list[tuple[str, list[int]]] = [
        ("text answer, ungoverned", times["text/bare"]),
        ("text answer, governed", times["text/gov"]),
        ("overhead per model call (governed - ungoverned)", text_overhead),
        ("one tool call, ungoverned", times["tool/bare"]),
        ("one tool call, governed", times["tool/gov"]),
        ("overhead of the run with a tool call", tool_overhead),
        ("overhead per tool call (minus the model call's)", per_tool),
        ("streamed answer, ungoverned", times["stream/bare"]),
        ("streamed answer, governed", times["stream/gov"]),
        ("overhead per streamed model call", stream_overhead),
        ("adapter's own, per model call (govcore's answers replayed)", own_text),
        ("adapter's own, per tool call", own_per_tool),
        ("adapter's own, per streamed model call", own_stream),
    ]
    for label, values in rows:
        table.add(label, *Stats.of(values).cells()[:3])

    text_p50 = Stats.of(text_overhead).median_ms
    tool_p50 = Stats.of(per_tool).median_ms
    own_text_p50 = Stats.of(own_text).median_ms
    own_tool_p50 = Stats.of(own_per_tool).median_ms
    print_section(
        "Pydantic AI adapter overhead",
        table.render(),
        notes(
            f"{rounds} rounds after {warmup} warm-up rounds; each round runs the nine cases once.",
            f"target < 1 ms p50 per model call: {text_p50:.3f} ms governed, "
            f"{own_text_p50:.3f} ms of it the adapter's own; "
            f"target < 0.3 ms p50 per tool call: {tool_p50:.3f} ms governed, "
            f"{own_tool_p50:.3f} ms of it the adapter's own.",
            "The adapter's own cost: runs through a client that replays govcore's first answer "
            "to each method, so that no decision is made (the hooks, the base's bookkeeping, "
            "the history scan, the held-back stream's re-emitted events).",
            *machine_facts(f"pydantic-ai-slim {version('pydantic-ai-slim')}"),
        ),
    )


async def measure_hooks(calls: int) -> None:
    """The capability's hooks alone, called directly with govcore's answers replayed: the
    adapter's own work per model call and per tool call, without the framework's run around it
    (whose noise the differences above carry)."""
    from types import SimpleNamespace

    from pydantic_ai.messages import ToolReturnPart, UserPromptPart
    from pydantic_ai.models import ModelRequestContext, ModelRequestParameters

    gov = govcore.Governance.from_config(configuration())
    capability = GovernanceCapability(ReplayClient(gov.client(KEY).aio))  # type: ignore[arg-type]
    model = FunctionModel(text_model)

    async def validated(args: Any) -> dict[str, Any]:
        return {"order_id": "N-1042"}

    model_call: list[int] = []
    tool_call: list[int] = []
    for index in range(calls + 50):
        history: list[ModelMessage] = [
            ModelRequest(
                parts=[UserPromptPart(QUESTIONS[index % len(QUESTIONS)])], run_id=f"r{index}"
            )
        ]
        ctx: Any = SimpleNamespace(conversation_id=f"hooks-{index // 10}", run_id=f"r{index}")
        ctx.messages = history
        request = ModelRequestContext(
            model=model,
            messages=list(history),
            model_settings=None,
            model_request_parameters=ModelRequestParameters(),
        )
        call = ToolCallPart("lookup_order", {"order_id": "N-1042"})
        tool_def: Any = None
        start = time.perf_counter_ns()
        await capability.before_model_request(ctx, request)
        await capability.after_model_request(
            ctx, request_context=request, response=ModelResponse(parts=[TextPart(ANSWER)])
        )
        middle = time.perf_counter_ns()
        await capability.wrap_tool_validate(
            ctx, call=call, tool_def=tool_def, args=call.args or {}, handler=validated
        )
        result = await lookup_order("N-1042")
        await capability.after_tool_execute(
            ctx, call=call, tool_def=tool_def, args={"order_id": "N-1042"}, result=result
        )
        history.append(
            ModelRequest(
                parts=[ToolReturnPart("lookup_order", result, call.tool_call_id)],
                run_id=f"r{index}",  # the run's, as Pydantic AI stamps it
            )
        )
        await capability.before_model_request(ctx, request)
        end = time.perf_counter_ns()
        if index >= 50:
            model_call.append(middle - start)
            # The tool's hooks, and the next model call's recording of its result (minus the
            # lookup itself, a few microseconds).
            tool_call.append(end - middle)

    table = Table(["the capability's hooks alone", *LATENCY_COLUMNS[:3]])
    table.add("per model call (instructions, user turn, answer)", *Stats.of(model_call).cells()[:3])
    table.add("per tool call (gate, result check, tool turn)", *Stats.of(tool_call).cells()[:3])
    print_section(
        "Pydantic AI adapter: its hooks alone",
        table.render(),
        notes(
            f"{calls} calls of each after 50 warm-up calls, govcore's answers replayed: what the "
            "adapter and the governed conversation do around govcore's calls."
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--quick", action="store_true", help="60 rounds")
    args = parser.parse_args()
    asyncio.run(measure(60 if args.quick else args.rounds, warmup=20))
    asyncio.run(measure_hooks(300 if args.quick else 2000))


if __name__ == "__main__":
    main()
