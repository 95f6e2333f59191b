"""OpenTelemetry spans: one per endpoint call, its store round trips as children, from the
tracer ``govcore`` of the global provider, with no secret in any attribute."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Sequence

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import govcore
from govcore.telemetry import Metrics
from govcore.telemetry._observer import PROVIDER_RECHECK_CALLS
from govcore.testing import FakeClock
from tests.support import CHECKS_KEY, FULL_KEY, bearer, checks_config, config, turn
from tests.telemetry.conftest import reset_global_tracer_provider, sample
from tests.telemetry.test_metrics import _FailingStore, _StoreDownError


def _named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name == name]


def test_a_turn_is_a_span_with_its_store_round_trips_as_children(
    spans: InMemorySpanExporter,
) -> None:
    """A turn makes one span of the tracer ``govcore``, parented on the caller's current span,
    and one child span per store round trip (the admission and the commit)."""
    gov = govcore.Governance.from_config(config())
    caller = trace.get_tracer("the-application")
    with caller.start_as_current_span("handle user message") as outer:
        answer = gov.client(FULL_KEY).record_turn(turn("s-1", "hello"))
    finished = spans.get_finished_spans()
    (endpoint,) = _named(finished, "govcore.record_turn")
    assert endpoint.instrumentation_scope is not None
    assert endpoint.instrumentation_scope.name == "govcore"
    assert endpoint.parent is not None
    assert endpoint.parent.span_id == outer.get_span_context().span_id
    assert endpoint.context.trace_id == outer.get_span_context().trace_id
    children = [s for s in finished if s.parent and s.parent.span_id == endpoint.context.span_id]
    assert [s.name for s in children] == ["govcore.store.admit", "govcore.store.update_many"]
    assert all(s.kind == trace.SpanKind.CLIENT for s in children)
    assert dict(endpoint.attributes or {}) == {
        "govcore.endpoint": "record_turn",
        "govcore.status": 200,
        "govcore.policies": len(answer.active_policies),
        "govcore.trace_id": answer.trace_id,
    }


def test_a_check_carries_its_counts_and_trace_id(spans: InMemorySpanExporter) -> None:
    """A post-inference span counts the policies cited and the violations found, and carries
    the check's traceId, the one in the answer and the decision log."""
    gov = govcore.Governance.from_config(checks_config())
    verdict = gov.client(CHECKS_KEY).post_inference(
        {"sessionId": "s-1", "output": "write to a@example.com, card 4111 1111 1111 1111"}
    )
    (span,) = _named(spans.get_finished_spans(), "govcore.post_inference")
    attributes = dict(span.attributes or {})
    assert attributes["govcore.violations"] == len(verdict.violations) == 2
    assert attributes["govcore.policies"] == len(verdict.policy_citations) == 2
    assert attributes["govcore.trace_id"] == verdict.trace_id
    assert span.status.status_code == StatusCode.UNSET


def test_handle_and_the_async_facade_make_the_same_spans(spans: InMemorySpanExporter) -> None:
    """``handle`` and AsyncGovernance trace like the typed client: the endpoint's span with its
    status, its store calls as its children."""
    gov = govcore.Governance.from_config(config())
    gov.handle("GET", "/governance/conversation/missing", bearer(FULL_KEY))

    async def run() -> None:
        async with govcore.AsyncGovernance.from_config(config()) as agov:
            await agov.handle("GET", "/governance/conversation/missing", bearer(FULL_KEY))

    asyncio.run(run())
    endpoints = _named(spans.get_finished_spans(), "govcore.get_conversation")
    assert len(endpoints) == 2
    for endpoint in endpoints:
        attributes = dict(endpoint.attributes or {})
        assert attributes["govcore.status"] == 404
        assert attributes["error.type"] == "not_found"
        # A refusal is an answer: the span is not marked as failed.
        assert endpoint.status.status_code == StatusCode.UNSET
        (child,) = [
            s
            for s in spans.get_finished_spans()
            if s.parent is not None and s.parent.span_id == endpoint.context.span_id
        ]
        assert child.name == "govcore.store.admit"


def test_an_unavailable_store_marks_both_spans_failed(spans: InMemorySpanExporter) -> None:
    """A store that fails makes the round trip's span and the endpoint's span errors (503)."""
    store = _FailingStore(lambda: _StoreDownError("down at 10.0.0.7:6379"))
    gov = govcore.Governance.from_config(config(), store=store)
    store.failing = True
    assert gov.handle("GET", "/governance/conversation/s", bearer(FULL_KEY)).status == 503
    finished = spans.get_finished_spans()
    (endpoint,) = _named(finished, "govcore.get_conversation")
    (admit,) = _named(finished, "govcore.store.admit")
    assert admit.parent is not None
    assert admit.parent.span_id == endpoint.context.span_id
    assert admit.status.status_code == StatusCode.ERROR
    assert endpoint.status.status_code == StatusCode.ERROR
    assert dict(endpoint.attributes or {})["error.type"] == "backend_unavailable"
    # The driver's message (a host here) is not recorded.
    assert not any(
        "10.0.0.7" in str(value)
        for span in finished
        for value in [*(span.attributes or {}).values(), span.status.description]
    )
    assert all(not span.events for span in finished)


def test_no_text_key_session_id_or_matched_value_in_spans(spans: InMemorySpanExporter) -> None:
    """No span name or attribute holds a key, session id, text or matched value."""
    gov = govcore.Governance.from_config(checks_config())
    session = "session-7f3a9c-private"
    secrets_sent = [
        CHECKS_KEY,
        session,
        "confidential-turn-text",
        "bob.private@example.com",
        "4111 1111 1111 1111",
        "tool-arg-value-88",
    ]
    client = gov.client(CHECKS_KEY)
    client.record_turn(turn(session, "confidential-turn-text bob.private@example.com"))
    client.post_inference({"sessionId": session, "output": "card 4111 1111 1111 1111"})
    client.check_tool_call(
        {"sessionId": session, "toolName": "send", "arguments": {"to": "tool-arg-value-88"}}
    )
    client.check_output_stream(
        {"sessionId": session, "fullText": "reach bob.private@example.com", "isFinal": True}
    )
    finished = spans.get_finished_spans()
    assert len(_named(finished, "govcore.check_output_stream")) == 1
    seen = [span.name for span in finished]
    for span in finished:
        seen.extend(str(key) for key in (span.attributes or {}))
        seen.extend(str(value) for value in (span.attributes or {}).values())
    leaked = [secret for secret in secrets_sent if any(secret in text for text in seen)]
    assert leaked == []


def test_tracing_false_makes_no_spans(spans: InMemorySpanExporter) -> None:
    """``tracing=False`` keeps a facade out of traces even with a provider installed."""
    gov = govcore.Governance.from_config(config(), tracing=False)
    gov.client(FULL_KEY).record_turn(turn("s-1", "hello"))
    assert spans.get_finished_spans() == ()


def test_a_provider_installed_later_is_found() -> None:
    """Before an SDK's provider is installed nothing is recorded; one installed after the facade
    was built is found within PROVIDER_RECHECK_CALLS requests, and every request after that
    is traced."""
    reset_global_tracer_provider()
    try:
        gov = govcore.Governance.from_config(config())
        client = gov.client(FULL_KEY)
        client.record_turn(turn("s-0", "hi"))  # looks for a provider: none yet
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        for number in range(PROVIDER_RECHECK_CALLS):
            client.record_turn(turn(f"s-{number}", "hello"))
        traced = len(_named(exporter.get_finished_spans(), "govcore.record_turn"))
        assert 1 <= traced <= PROVIDER_RECHECK_CALLS
        client.record_turn(turn("s-last", "hello"))
        assert len(_named(exporter.get_finished_spans(), "govcore.record_turn")) == traced + 1
    finally:
        reset_global_tracer_provider()


def test_a_cancelled_request_ends_its_span_and_counts_nothing(
    spans: InMemorySpanExporter, metrics: Metrics
) -> None:
    """An asyncio request cancelled while it waits for its store is not an answer: no request
    is counted, and its span ends marked ``cancelled`` (its store span too)."""
    from tests.test_async_governance import GatedStore

    async def scenario() -> None:
        clock = FakeClock()
        store = GatedStore(clock)
        gov = govcore.AsyncGovernance.from_config(
            config(), clock=clock, store=store, metrics=metrics
        )
        pending = asyncio.create_task(gov.client(FULL_KEY).get_conversation("gated"))
        await asyncio.wait_for(store.waiting.wait(), timeout=10)
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending
        await gov.aclose()

    asyncio.run(scenario())
    gc.collect()  # the abandoned steps are closed when they are collected
    finished = spans.get_finished_spans()
    (endpoint,) = _named(finished, "govcore.get_conversation")
    (admit,) = _named(finished, "govcore.store.admit")
    for span in (endpoint, admit):
        assert dict(span.attributes or {})["error.type"] == "cancelled"
        assert span.status.status_code == StatusCode.ERROR
    assert (
        sample(metrics, "govcore_request_duration_seconds_count", endpoint="get_conversation") == 0
    )
