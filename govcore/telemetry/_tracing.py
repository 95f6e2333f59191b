"""The OpenTelemetry side (imported only once the API is known to be installed).

Only ``opentelemetry-api`` is used: spans are recorded by whatever SDK the application installed
as the global tracer provider, and by nothing until it has.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from opentelemetry import context, trace

from govcore._version import __version__

__all__ = [
    "CLIENT",
    "ERROR",
    "TRACER_NAME",
    "current",
    "live_tracer",
    "parent_context",
    "remote_parent",
]

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


def remote_parent(headers: Iterable[tuple[bytes, bytes]]) -> context.Context | None:
    """The caller's trace an HTTP request's headers carry (W3C ``traceparent`` and
    ``tracestate``, or the fields of whatever propagator the application installed), as a
    context to answer the request in; ``None`` when they carry none."""
    # Imported here, not with the module: loading the propagators reads entry points, which
    # only the HTTP service needs (an embedded facade is given its context by the caller).
    from opentelemetry import propagate

    fields = propagate.get_global_textmap().fields
    carrier: dict[str, str] = {}
    for name, value in headers:
        lowered = name.decode("latin-1").lower()
        if lowered in fields:
            carrier.setdefault(lowered, value.decode("latin-1"))
    if not carrier:
        return None
    extracted = propagate.extract(carrier)
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        return None
    return extracted


@contextlib.contextmanager
def current(parent: context.Context) -> Iterator[None]:
    """``parent`` as the current context inside the block (so spans started there are its
    children), the previous one again after it."""
    token = context.attach(parent)
    try:
        yield
    finally:
        context.detach(token)
