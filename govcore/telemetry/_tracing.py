"""The OpenTelemetry side (imported only once the API is known to be installed).

Only ``opentelemetry-api`` is used: spans are recorded by whatever SDK the application installed
as the global tracer provider, and by nothing until it has.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from opentelemetry import context, propagate, trace

from govcore._version import __version__

__all__ = ["CLIENT", "ERROR", "TRACER_NAME", "joined", "live_tracer", "parent_context"]

TRACER_NAME = "govcore"
"""The tracer's name (the instrumentation scope of every govcore span)."""

CLIENT = trace.SpanKind.CLIENT
"""The kind of a store round trip's span: a call out of the service."""
ERROR = trace.StatusCode.ERROR


def live_tracer() -> trace.Tracer | None:
    """The ``govcore`` tracer of the global provider, or ``None`` while no SDK's provider is
    installed (the API's proxy or no-op provider would hand out spans that record nothing)."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    return provider.get_tracer(TRACER_NAME, __version__)


def parent_context(span: trace.Span) -> context.Context:
    """A context whose current span is ``span``: the explicit parent of its child spans."""
    return trace.set_span_in_context(span)


@contextlib.contextmanager
def joined(headers: Mapping[str, str]) -> Iterator[None]:
    """Make the trace an HTTP request's headers carry (W3C ``traceparent``, or whatever
    propagator the application installed) the current one while the request is answered, so the
    endpoint's span joins the caller's trace. Headers without one change nothing."""
    carrier: dict[str, Any] = dict(headers)
    extracted = propagate.extract(carrier)
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        yield
        return
    token = context.attach(extracted)
    try:
        yield
    finally:
        context.detach(token)
