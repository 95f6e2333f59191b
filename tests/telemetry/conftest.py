"""Fixtures of the telemetry tests: a registry of their own, and spans kept in memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once
from prometheus_client import CollectorRegistry

from govcore.telemetry import Metrics


def reset_global_tracer_provider() -> None:
    # The API lets the global provider be set once per process; OpenTelemetry's own test
    # utilities reset these two globals the same way, so each test starts with none.
    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """An SDK tracer provider installed as the global one for the test, its spans kept."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reset_global_tracer_provider()
    trace.set_tracer_provider(provider)
    yield exporter
    provider.shutdown()
    reset_global_tracer_provider()


@pytest.fixture
def metrics() -> Metrics:
    """govcore's instruments on a registry of the test's own."""
    return Metrics(CollectorRegistry())


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    """The value of one sample of ``metrics`` (0 when it has never been counted)."""
    value: Any = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else float(value)
