"""The LiteLLM adapter's own overhead: a governed run minus the same run ungoverned.

    pip install -e ".[litellm]"
    python benchmarks/bench_integration_litellm.py [--quick]

One command, one table. The model is LiteLLM's own test model (a scripted custom provider
that answers through ``litellm.mock_completion``, offline), the store the in-memory one, the
policies those of ``govcore demo``. Each row times the same step governed and ungoverned, call
by call and interleaved (rotating which goes first), and reports the ungoverned time and the
overhead, their difference call by call (median, p95, p99):

- model call, sync: ``GovernanceCallback.completion`` against ``litellm.completion`` in a
  conversation whose whole history is sent each time (a new user message, a text answer):
  the new user turn recorded, the block put into the instructions, the answer checked once;
- model call, async: ``litellm.acompletion`` with the callback in ``litellm.callbacks`` (its
  hooks) against the same call without it;
- tool call: ``GovernanceCallback.run_tools`` on a response with one allowed tool call that
  no hook gated (gate, run, check the result and record it in one request) against running
  the tool directly;
- the same model and tool calls through the adapter over a conversation that asks govcore
  nothing (canned answers): the adapter's own code alone.

A third column times the govcore calls a governed step makes, made directly: the part of the
overhead that is govcore's own work, not the adapter's.

Targets (issue 19): under 1 ms p50 per model call and under 0.3 ms per tool call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm
from litellm import CustomLLM
from report import Stats, Table, fmt, machine_facts, notes, print_section, progress, verdict

import govcore
from govcore import ToolGate
from govcore.integrations import CheckedText, GovernedConversation
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
                "rate_limit_per_minute": "unlimited",
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


def interleaved(
    paths: Sequence[Callable[[int], object]], count: int, warmup: int
) -> list[list[int]]:
    """Time each of ``paths`` on call ``i``, for ``count`` calls after ``warmup`` untimed ones,
    rotating which path goes first; the nanoseconds of each path's calls."""
    for index in range(warmup):
        for path in paths:
            path(index)
    timings: list[list[int]] = [[] for _ in paths]
    for index in range(warmup, warmup + count):
        shift = index % len(paths)
        for position in [*range(shift, len(paths)), *range(shift)]:
            start = time.perf_counter_ns()
            paths[position](index)
            timings[position].append(time.perf_counter_ns() - start)
    return timings


def differences(governed: list[int], plain: list[int]) -> Stats:
    """The stats of ``governed[i] - plain[i]``, call by call (at least 0)."""
    return Stats.of([max(g - p, 0) for g, p in zip(governed, plain, strict=True)])


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


class StubConversation:
    """A governed conversation that asks govcore nothing: canned answers (the block of a real
    turn, texts delivered unchanged, calls allowed), so that a governed call through it times
    the adapter's own code alone."""

    def __init__(self, session_id: str, block: str) -> None:
        self.session_id = session_id
        self.injection_block = block

    def record_user(self, text: str, *, message_id: str | None = None) -> str:
        return self.injection_block

    def record_assistant(self, text: str, *, message_id: str | None = None) -> None:
        return None

    def record_tool_result(self, tool_name: str, result: Any, **identifiers: Any) -> None:
        return None

    def gate_tool(self, tool_name: str, arguments: dict[str, Any], **options: Any) -> ToolGate:
        return ToolGate("allow", dict(arguments), None, None)

    def check_tool_result(self, tool_name: str, result: Any, **identifiers: Any) -> CheckedText:
        return CheckedText(
            result if isinstance(result, str) else json.dumps(result), None, False, False
        )

    def check_and_record_tool_result(
        self, tool_name: str, result: Any, **identifiers: Any
    ) -> CheckedText:
        checked = self.check_tool_result(tool_name, result)
        return CheckedText(checked.text, None, False, False, recorded=True)

    def check_answer(self, text: str, *, message_id: str | None = None) -> CheckedText:
        return CheckedText(text, None, False, False)

    def instructions(self, base: str | None = None) -> str:
        return "\n\n".join(part for part in (base, self.injection_block) if part)


class StubbedCallback(GovernanceCallback):
    """The adapter over :class:`StubConversation` (timing only)."""

    block = ""

    def _new_conversation(self, session_id: str | None) -> Any:
        return StubConversation(session_id or "stub", self.block)


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
            "ungoverned median ms",
            "overhead median ms",
            "overhead p95 ms",
            "overhead p99 ms",
            "govcore calls alone median ms",
            "target (overhead p50)",
        ]
    )

    def row(step: str, timings: list[list[int]], target_ms: float) -> None:
        governed, plain, *govcore_calls = timings
        overhead = differences(governed, plain)
        table.add(
            step,
            fmt(Stats.of(plain).median_ms),
            fmt(overhead.median_ms),
            fmt(overhead.p95_ms),
            fmt(overhead.p99_ms),
            fmt(Stats.of(govcore_calls[0]).median_ms) if govcore_calls else "0 (stubbed)",
            f"< {target_ms} ms: {verdict(overhead.median_ms < target_ms)}",
        )

    def direct(prefix: str) -> tuple[Conversations, dict[str, GovernedConversation]]:
        return Conversations(prefix), {}

    progress("model call, sync wrapper")
    governed_sync, plain_sync = Conversations("sync-g"), Conversations("sync-p")
    alone, alone_conversations = direct("sync-c")

    def governed_call(index: int) -> None:
        session, history = governed_sync.request(index)
        response = governance.completion(model=MODEL, messages=history, litellm_session_id=session)
        history.append(response.choices[0].message)

    def plain_call(index: int) -> None:
        _, history = plain_sync.request(index)
        response = litellm.completion(model=MODEL, messages=history)
        history.append(response.choices[0].message)

    def govcore_alone(index: int) -> None:
        # The two govcore calls of a governed model call, made directly.
        session, history = alone.request(index)
        conversation = alone_conversations.setdefault(
            session, GovernedConversation(client, session)
        )
        conversation.record_user(history[-1]["content"], message_id=f"u{index}")
        conversation.check_answer(ANSWER, message_id=f"a{index}")
        history.append({"role": "assistant", "content": ANSWER})

    paths = [governed_call, plain_call, govcore_alone]
    row("model call, sync completion()", interleaved(paths, count, warmup), TARGET_MODEL_MS)

    progress("model call, async hooks")
    governed_async, plain_async = Conversations("async-g"), Conversations("async-p")
    alone, alone_conversations = direct("async-c")
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

    paths = [hooked_call, unhooked_call, govcore_alone]
    row("model call, async hooks", interleaved(paths, count, warmup), TARGET_MODEL_MS)
    litellm.callbacks = []
    # LiteLLM leaves tasks on the loop (its logging worker): cancel them and let them finish
    # before closing it, or collecting their frames at exit crashes the interpreter.
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
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
    tool_conversation = GovernedConversation(client, "tools-direct")

    def governed_tool(index: int) -> None:
        governance.run_tools(tool_response(index), tools)

    def plain_tool(index: int) -> None:
        call = tool_response(index).choices[0].message.tool_calls[0]
        json.dumps(lookup_order(**json.loads(call.function.arguments)))

    def tool_govcore_alone(index: int) -> None:
        # The govcore calls of a governed tool call, made directly: the gate, and the result
        # checked and recorded as the tool turn in one request.
        call = tool_response(index).choices[0].message.tool_calls[0]
        gate = tool_conversation.gate_tool("lookup_order", json.loads(call.function.arguments))
        result = lookup_order(**gate.arguments)
        tool_conversation.check_and_record_tool_result(
            "lookup_order", result, call_id=f"d{index}", message_id=f"tool:d{index}"
        )

    for index in range(count + warmup):
        tool_response(index)  # the model calls are not part of this row
    paths = [governed_tool, plain_tool, tool_govcore_alone]
    row("tool call (gate, run, check, record)", interleaved(paths, count, warmup), TARGET_TOOL_MS)

    progress("the adapter's code alone (govcore stubbed)")
    StubbedCallback.block = GovernedConversation(client, "block").record_user(QUESTIONS[0])
    stubbed = StubbedCallback(client)
    stub_sync = Conversations("stub")

    def stubbed_call(index: int) -> None:
        session, history = stub_sync.request(index)
        response = stubbed.completion(model=MODEL, messages=history, litellm_session_id=session)
        history.append(response.choices[0].message)

    model.calls = None
    plain_sync = Conversations("stub-p")
    paths = [stubbed_call, plain_call]
    row("model call, adapter code alone", interleaved(paths, count, warmup), TARGET_MODEL_MS)

    def stubbed_tool(index: int) -> None:
        stubbed.run_tools(tool_response(index), tools)

    paths = [stubbed_tool, plain_tool]
    row("tool call, adapter code alone", interleaved(paths, count, warmup), TARGET_TOOL_MS)

    print("# The LiteLLM adapter's overhead")
    print_section(
        f"Governed minus ungoverned ({count} calls per path, interleaved)",
        table.render(),
        notes(
            "fake model: LiteLLM's mock_completion behind a custom provider; in-memory store; "
            "the demo's policies; a key without a rate limit",
            "overhead: the governed call minus the same call ungoverned, call by call; govcore "
            "calls alone: the govcore calls the adapter makes, timed alone (a model call: record "
            "the user turn, check and record the answer; a tool call: gate, check the result and "
            "record it in one request); the adapter code alone: the adapter over a conversation that asks "
            "govcore nothing",
            *machine_facts(f"litellm {version('litellm')}"),
        ),
    )


if __name__ == "__main__":
    main()
