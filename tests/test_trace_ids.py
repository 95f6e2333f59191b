"""trace_id= of the typed clients' tool-call and stream checks: the answer's traceId and the
decision log's, a library keyword that the wire does not accept."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from pydantic import PrivateAttr

import govcore
from govcore.testing import FakeClock
from tests.tool_gate_support import CARD, GATE_KEY, gate_config, gate_governance

TOOL_CALL = {"sessionId": "s", "toolName": "issue_refund", "arguments": {"amount": 500}}
STREAM = {"sessionId": "s", "fullText": f"Card {CARD} " + "x" * 300, "isFinal": False}
FINAL = {"sessionId": "s", "fullText": f"Card {CARD}.", "isFinal": True}


def _checks(client: govcore.GovernanceClient, trace_id: str | None) -> list[str | None]:
    return [
        client.check_tool_call(TOOL_CALL, trace_id=trace_id).trace_id,
        client.check_output_stream(STREAM, trace_id=trace_id).trace_id,
        client.finalize_output(FINAL, trace_id=trace_id).trace_id,
    ]


def test_the_callers_trace_id_answers_and_is_logged() -> None:
    """Each check answers with the given trace id, and its decision record carries it."""
    log = govcore.MemoryDecisionLog()
    client = gate_governance(decision_log=log).client(GATE_KEY)
    assert _checks(client, "run-42") == ["run-42", "run-42", "run-42"]
    records = [(d.endpoint, d.trace_id) for d in log.decisions()]
    assert records == [
        ("check-tool-call", "run-42"),
        ("check-output/stream", "run-42"),
        ("check-output/finalize", "run-42"),
    ]


def test_without_one_each_check_gets_a_new_id() -> None:
    """No trace_id: a new id per check, as before."""
    client = gate_governance().client(GATE_KEY)
    made = _checks(client, None)
    assert len(set(made)) == 3
    assert all(t and len(t) == 32 for t in made)


def test_a_model_request_takes_a_trace_id_and_is_left_unchanged() -> None:
    """A request model given with trace_id is answered with it and not modified, so a later
    call with the same model gets a new id."""
    client = gate_governance().client(GATE_KEY)
    request = govcore.ToolCallRequest.model_validate(TOOL_CALL)
    assert client.check_tool_call(request, trace_id="once").trace_id == "once"
    assert client.check_tool_call(request).trace_id != "once"


@pytest.mark.parametrize("bad", ["", "line\nbreak", "x" * 257])
def test_a_trace_id_that_is_not_an_identifier_is_refused(bad: str) -> None:
    """The rule of post-inference's traceId: 1 to 256 characters, no control characters."""
    client = gate_governance().client(GATE_KEY)
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.check_tool_call(TOOL_CALL, trace_id=bad)
    assert caught.value.details[0].field == "trace_id"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/governance/check-tool-call", TOOL_CALL),
        ("/governance/check-output/stream", STREAM),
        ("/governance/check-output/finalize", FINAL),
    ],
)
def test_the_wire_format_is_unchanged(path: str, body: dict[str, Any]) -> None:
    """traceId is not a field of these bodies over HTTP: refused as unknown (400)."""
    response = gate_governance().handle(
        "POST", path, {"Authorization": f"Bearer {GATE_KEY}"}, json.dumps({**body, "traceId": "t"})
    )
    assert response.status == 400
    assert response.json()["details"][0]["field"] == "traceId"


def test_the_asyncio_client_takes_trace_ids_alike() -> None:
    """AsyncGovernanceClient answers with the caller's trace id too."""

    async def checks() -> list[str | None]:
        agov = govcore.AsyncGovernance.from_config(gate_config(), clock=FakeClock())
        async with agov:
            client = agov.client(GATE_KEY)
            return [
                (await client.check_tool_call(TOOL_CALL, trace_id="a")).trace_id,
                (await client.check_output_stream(STREAM, trace_id="b")).trace_id,
                (await client.finalize_output(FINAL, trace_id="c")).trace_id,
            ]

    assert asyncio.run(checks()) == ["a", "b", "c"]


def test_a_forked_process_makes_ids_of_its_own() -> None:
    """Ids are read from the system's random source ahead of use; a forked worker does not hand
    out the ids its parent read ahead (it would otherwise repeat them, one for one)."""
    gov = gate_governance()
    client = gov.client(GATE_KEY)
    client.check_output_stream(STREAM)  # the parent has read ids ahead
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        # Whatever happens, the child never returns into pytest (it would run the rest of the
        # suite, and the parent would wait for its pipe until then).
        status = 1
        try:
            os.close(reading)
            ids = [client.check_output_stream(STREAM).trace_id for _ in range(3)]
            os.write(writing, json.dumps(ids).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(writing)
    with os.fdopen(reading) as answer:
        child_ids = json.loads(answer.read())
    os.waitpid(child, 0)
    parent_ids = [client.check_output_stream(STREAM).trace_id for _ in range(3)]
    assert len(set(child_ids) | set(parent_ids)) == 6


def test_a_chosen_trace_id_keeps_a_subclass_private_values() -> None:
    """The caller's trace id is kept beside a request subclass's own private attributes, which
    a copy answered with it must not lose."""

    class TaggedRequest(govcore.StreamCheckRequest):
        _tag: str = PrivateAttr(default="mine")

    request = TaggedRequest.model_validate({"sessionId": "s", "fullText": "text so far"})
    answered = request.with_trace_id("chosen")
    assert answered.caller_trace_id == "chosen"
    assert answered._tag == "mine"
    assert request.caller_trace_id is None
