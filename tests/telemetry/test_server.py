"""The HTTP service's side of telemetry: ``/metrics``, and requests joining the caller's trace."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

import govcore
from govcore.server import ThreadedGovernance, create_app
from govcore.telemetry import Metrics
from tests.server.conftest import call, serve_process
from tests.support import CHECKS_KEY, bearer, checks_config

_TURN = "/api/v1/agent/governance/conversation/turn"


@pytest.fixture
def metered() -> Iterator[govcore.Governance]:
    """The checks configuration, counting into a registry of its own."""
    with govcore.Governance.from_config(
        checks_config(), metrics=Metrics(CollectorRegistry())
    ) as gov:
        yield gov


def test_metrics_serves_the_prometheus_text(metered: govcore.Governance) -> None:
    """``GET /metrics`` answers the governance's instruments in Prometheus' text format, with
    the requests served so far counted by endpoint and status."""
    app = create_app(ThreadedGovernance(metered))
    body = {"sessionId": "s-1", "turn": {"role": "user", "content": "hello"}}
    assert call(app, "POST", _TURN, json=body, headers=bearer(CHECKS_KEY)).status_code == 200
    assert (
        call(app, "POST", _TURN, json=body, headers=bearer("gk_nobody_0000000000")).status_code
        == 401
    )
    response = call(app, "GET", "/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(response.text)}
    requests = {
        (s.labels["endpoint"], s.labels["status"]): s.value
        for s in families["govcore_requests"].samples
        if s.name == "govcore_requests_total"
    }
    assert requests == {("record_turn", "200"): 1.0, ("record_turn", "401"): 1.0}
    assert all(name.startswith("govcore_") for name in families)


def test_metrics_with_a_token_answers_only_its_bearer(metered: govcore.Governance) -> None:
    """With ``metrics_token`` (``GOVCORE_METRICS_TOKEN`` for ``govcore serve``), ``/metrics``,
    whose labels name every tenant and policy, answers 401 without the token, with another
    bearer (a tenant's API key among them) and 200 with it."""
    app = create_app(ThreadedGovernance(metered), metrics_token="scrape-Secret-1")
    assert call(app, "GET", "/metrics").status_code == 401
    assert call(app, "GET", "/metrics", headers=bearer(CHECKS_KEY)).status_code == 401
    assert call(app, "GET", "/metrics", headers=bearer("scrape-Secret-2")).status_code == 401
    response = call(app, "GET", "/metrics", headers=bearer("scrape-Secret-1"))
    assert response.status_code == 200
    assert "govcore_requests" in response.text


def test_metrics_takes_only_get(metered: govcore.Governance) -> None:
    """``/metrics`` is read-only: another method is 405 with ``allow: GET``."""
    response = call(create_app(ThreadedGovernance(metered)), "POST", "/metrics")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"


def test_metrics_is_404_when_the_governance_has_none() -> None:
    """An application over a governance built without metrics has no ``/metrics``."""
    with govcore.Governance.from_config(checks_config()) as gov:
        response = call(create_app(ThreadedGovernance(gov)), "GET", "/metrics")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_served_governance_has_metrics() -> None:
    """``govcore serve``'s application shows its instruments and the process's, every metric
    name starting with ``govcore_``."""
    from govcore.server.serve import build_app
    from tests.support import EXAMPLE_CONFIG

    app = build_app(str(EXAMPLE_CONFIG))
    response = call(app, "GET", "/metrics")
    assert response.status_code == 200
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert {"govcore_policy_set_info", "govcore_requests", "govcore_process_cpu_seconds"} <= names
    assert all(name.startswith("govcore_") for name in names)


@pytest.mark.parametrize("threaded", [True, False], ids=["threaded", "async"])
def test_a_traceparent_makes_the_span_a_child_of_the_callers(
    spans: InMemorySpanExporter,
    threaded: bool,
) -> None:
    """A request carrying a W3C ``traceparent`` is answered in that trace: the endpoint's span
    has the caller's trace id and the caller's span as its (remote) parent."""
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent_id = "00f067aa0ba902b7"
    served = (
        ThreadedGovernance(govcore.Governance.from_config(checks_config()))
        if threaded
        else govcore.AsyncGovernance.from_config(checks_config())
    )
    app = create_app(served)
    headers = {**bearer(CHECKS_KEY), "traceparent": f"00-{trace_id}-{parent_id}-01"}
    body = {"sessionId": "s-1", "turn": {"role": "user", "content": "hello"}}
    assert call(app, "POST", _TURN, json=body, headers=headers).status_code == 200
    (span,) = [s for s in spans.get_finished_spans() if s.name == "govcore.record_turn"]
    assert format(span.context.trace_id, "032x") == trace_id
    assert span.parent is not None
    assert span.parent.is_remote
    assert format(span.parent.span_id, "016x") == parent_id


def test_without_traceparent_the_span_starts_a_trace(
    spans: InMemorySpanExporter,
) -> None:
    """A request without trace headers gets a span of a trace of its own (no parent)."""
    app = create_app(govcore.AsyncGovernance.from_config(checks_config()))
    body = {"sessionId": "s-1", "turn": {"role": "user", "content": "hello"}}
    assert call(app, "POST", _TURN, json=body, headers=bearer(CHECKS_KEY)).status_code == 200
    (span,) = [s for s in spans.get_finished_spans() if s.name == "govcore.record_turn"]
    assert span.parent is None


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_govcore_serve_process_shows_its_requests(tmp_path: Path) -> None:
    """A real ``govcore serve`` process counts the turn it answered and shows it at /metrics."""
    config = tmp_path / "govcore.json"
    config.write_text(json.dumps(checks_config()), encoding="utf-8")
    with (
        serve_process(config, tmp_path) as server,
        httpx.Client(base_url=server.base_url, timeout=10.0) as client,
    ):
        body = {"sessionId": "s-1", "turn": {"role": "user", "content": "hello"}}
        assert client.post(_TURN, json=body, headers=bearer(CHECKS_KEY)).status_code == 200
        exposition = client.get("/metrics")
    assert exposition.status_code == 200
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(exposition.text)
        for s in family.samples
    }
    key = ("govcore_requests_total", (("endpoint", "record_turn"), ("status", "200")))
    assert samples[key] == 1.0
