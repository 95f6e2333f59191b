"""The one hook on a request's path: :meth:`Observer.observe` wraps an endpoint call's steps.

Every request, from the typed clients and from ``handle`` alike, runs as the generator of store
effects that :func:`govcore.service.endpoints.call` returns; the facade runs it on its store.
The observer wraps that generator: it times the whole call, and each effect it passes on is one
store round trip, timed from the moment it is handed to the facade's runner to the moment its
result (or the store's error) comes back. So neither the handlers, nor the runners, nor any
store know about metrics or spans.

Costs (docs/decisions/telemetry.md): a facade with neither signal on has no observer, and
``call`` returns the steps untouched. With one on, a request finds its endpoint's resolved
instruments in a dictionary; with tracing on, ``opentelemetry`` is imported only when the
observer first looks for an installed provider.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, TypeVar

from govcore.errors import BackendError, GovcoreError
from govcore.models import (
    ConversationSnapshot,
    PostInferenceResponse,
    PreInferenceResponse,
    StreamCheckResponse,
    ToolCallDecision,
    TurnResponse,
    Violation,
)

if TYPE_CHECKING:
    from collections.abc import Generator, Sequence

    from govcore.telemetry import Metrics
    from govcore.telemetry._prometheus import EndpointInstruments, StoreInstruments

__all__ = ["PROVIDER_RECHECK_CALLS", "Observer", "operation_name"]

T = TypeVar("T")

PROVIDER_RECHECK_CALLS = 64
"""While no tracer provider is installed, how many requests pass between two looks for one.

Looking costs about a microsecond (the API reads the environment), so it is not done on every
request; an application that installs its SDK after govcore is built (rather than first, as
OpenTelemetry's set-up advises) sees spans from at most this many requests later. Once a
provider is found it is kept: the API lets the global provider be set only once.
"""

_perf_counter = time.perf_counter
# Set from the API once a tracer is found (nothing reads them before: no tracer, no spans).
_CLIENT_KIND: Any = None
_parent_context: Any = None


def operation_name(effect_type: type) -> str:
    """A store effect's operation, as labels and span names give it: ``UpdateMany`` ->
    ``update_many``."""
    name = effect_type.__name__
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _is_timeout(error: BaseException) -> bool:
    """Whether ``error`` (a :class:`BackendError` from the driver's error, or that error) is a
    timeout: Python's ``TimeoutError`` (asyncio's and the socket's are the same class), or a
    driver's own class of that name (redis-py's ``redis.exceptions.TimeoutError``)."""
    seen: BaseException | None = error
    for _ in range(4):  # the cause chain is short: BackendError <- driver error <- socket error
        if seen is None:
            return False
        if isinstance(seen, TimeoutError) or any(
            kind.__name__ == "TimeoutError" for kind in type(seen).__mro__
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _counts(model: object) -> tuple[int | None, Sequence[Violation] | None]:
    """How many policies an answer names and its violations (``None``: it has no such part)."""
    if isinstance(model, TurnResponse):
        check = model.post_inference_check
        return len(model.active_policies), None if check is None else check.violations
    if isinstance(model, PostInferenceResponse):
        return len(model.policy_citations), model.violations
    if isinstance(model, StreamCheckResponse):
        return None, model.new_violations
    if isinstance(model, ToolCallDecision):
        return None, model.violations
    if isinstance(model, PreInferenceResponse):
        return len(model.applicable_policies), None
    if isinstance(model, ConversationSnapshot):
        return len(model.active_policies), None
    return None, None


class _Endpoint:
    """What the observer keeps per endpoint name: its span name and its instruments."""

    __slots__ = ("instruments", "is_turn", "name", "span_name")

    def __init__(self, name: str, instruments: EndpointInstruments | None) -> None:
        self.name = name
        self.span_name = f"govcore.{name}"
        self.instruments = instruments
        self.is_turn = name == "record_turn"


class _Operation:
    """What the observer keeps per store effect type."""

    __slots__ = ("attributes", "instruments", "name", "span_name")

    def __init__(self, name: str, instruments: StoreInstruments | None) -> None:
        self.name = name
        self.span_name = f"govcore.store.{name}"
        self.instruments = instruments
        # Given to each of its spans at their start: made once, not per call.
        self.attributes = {"govcore.store.operation": name}


class Observer:
    """Records metrics and spans of the requests of one facade.

    Args:
        metrics: the instruments to count into, or ``None`` for no metrics.
        tracing: whether to make spans (the OpenTelemetry API is installed and not refused);
            they are made once an SDK's tracer provider is installed.
    """

    __slots__ = ("_endpoints", "_metrics", "_operations", "_recheck_in", "_tracer", "_tracing")

    def __init__(self, metrics: Metrics | None, *, tracing: bool) -> None:
        self._metrics = metrics
        self._tracing = tracing
        self._tracer: Any = None
        self._recheck_in = 1  # look for a provider at the first request
        self._endpoints: dict[str, _Endpoint] = {}
        self._operations: dict[type, _Operation] = {}

    def observe(self, endpoint: str, steps: Generator[Any, Any, T]) -> Generator[Any, Any, T]:
        """``steps`` (an endpoint call's generator of store effects), observed."""
        tracer = self._tracer
        if tracer is None and self._tracing:
            self._recheck_in -= 1
            if self._recheck_in <= 0:
                self._recheck_in = PROVIDER_RECHECK_CALLS
                tracer = self._tracer = self._find_tracer()
        if tracer is None and self._metrics is None:
            return steps  # tracing waits for a provider, and there are no metrics
        known = self._endpoints.get(endpoint)
        if known is None:
            known = self._endpoints[endpoint] = _Endpoint(
                endpoint,
                self._metrics.instruments.endpoint(endpoint) if self._metrics else None,
            )
        return self._observed(known, steps, tracer)

    @staticmethod
    def _find_tracer() -> Any:
        tracing = _tracing()
        tracer = tracing.live_tracer()
        if tracer is not None:
            global _CLIENT_KIND, _parent_context  # resolved once, then only read
            _CLIENT_KIND, _parent_context = tracing.CLIENT, tracing.parent_context
        return tracer

    def _operation(self, effect_type: type) -> _Operation:
        known = self._operations.get(effect_type)
        if known is None:
            name = operation_name(effect_type)
            instruments = self._metrics.instruments.store(name) if self._metrics else None
            known = self._operations[effect_type] = _Operation(name, instruments)
        return known

    def _observed(
        self, endpoint: _Endpoint, steps: Generator[Any, Any, T], tracer: Any
    ) -> Generator[Any, Any, T]:
        span: Any = None
        parent: Any = None
        if tracer is not None:
            # Started in the current context: the caller's span (or, under ``govcore serve``,
            # the remote parent of the request's traceparent) becomes this span's parent.
            span = tracer.start_span(endpoint.span_name)
            if span.is_recording():
                parent = _parent_context(span)
            else:  # sampled out: no child spans either
                span.end()
                span = None
        started = _perf_counter()
        status = 500
        model: Any = None
        error: GovcoreError | None = None
        try:
            effect = next(steps)
            while True:
                operation = self._operation(type(effect))
                child = (
                    tracer.start_span(
                        operation.span_name,
                        context=parent,
                        kind=_CLIENT_KIND,
                        attributes=operation.attributes,
                    )
                    if parent is not None
                    else None
                )
                call_started = _perf_counter()
                try:
                    value = yield effect
                except GeneratorExit:
                    if child is not None:  # abandoned while the store was answering
                        _failed(child, "cancelled")
                        child.end()
                    raise
                except Exception as exc:
                    # The runner hands back the store's failure: count it, then let the
                    # handler decide what it means, as it would without the observer.
                    _store_done(operation, child, _perf_counter() - call_started, exc)
                    effect = steps.throw(exc)
                else:
                    _store_done(operation, child, _perf_counter() - call_started, None)
                    effect = steps.send(value)
        except StopIteration as done:
            result = done.value
            model = result.model
            status = 204 if model is None else 200
            return result  # type: ignore[no-any-return]
        except GovcoreError as exc:
            status, error = exc.status, exc
            raise
        except GeneratorExit:
            # Abandoned (a cancelled asyncio request): nothing was answered, nothing is counted.
            steps.close()
            status = 0
            raise
        finally:
            if status:
                self._answered(endpoint, status, _perf_counter() - started, model)
            if span is not None:
                _end_span(span, endpoint.name, status, model, error)

    @staticmethod
    def _answered(endpoint: _Endpoint, status: int, seconds: float, model: Any) -> None:
        instruments = endpoint.instruments
        if instruments is None:
            return
        instruments.answered(status, seconds)
        if model is None:
            return
        policies, violations = _counts(model)
        if endpoint.is_turn and policies is not None:
            instruments.turn_policies.observe(policies)
        if violations:
            for violation in violations:
                instruments.violation(violation.policy_id, violation.enforcement_type)


def _store_done(
    operation: _Operation, span: Any, seconds: float, error: BaseException | None
) -> None:
    instruments = operation.instruments
    failed = isinstance(error, BackendError)
    timed_out = failed and error is not None and _is_timeout(error)
    if instruments is not None:
        instruments.calls.inc()
        instruments.latency.observe(seconds)
        if failed:
            instruments.errors.inc()
            if timed_out:
                instruments.timeouts.inc()
    if span is not None:
        if failed:
            _failed(span, "timeout" if timed_out else "backend_unavailable")
        span.end()


def _end_span(
    span: Any, endpoint: str, status: int, model: Any, error: GovcoreError | None
) -> None:
    attributes: dict[str, Any] = {"govcore.endpoint": endpoint}
    if status:
        attributes["govcore.status"] = status
    if model is not None:
        policies, violations = _counts(model)
        if policies is not None:
            attributes["govcore.policies"] = policies
        if violations is not None:
            attributes["govcore.violations"] = len(violations)
        trace_id = getattr(model, "trace_id", None)
        if trace_id is not None:
            attributes["govcore.trace_id"] = trace_id
    span.set_attributes(attributes)
    if not status:
        _failed(span, "cancelled")
    elif error is not None and status >= 500:
        _failed(span, error.code)
    elif error is not None:
        # A refusal (4xx) is an answer, not a failure of govcore: the span's status stays unset.
        span.set_attribute("error.type", error.code)
    span.end()


def _failed(span: Any, code: str) -> None:
    span.set_attribute("error.type", code)
    span.set_status(_tracing().ERROR, code)


def _tracing() -> Any:
    """:mod:`govcore.telemetry._tracing`, imported at the first use (it imports the API)."""
    from govcore.telemetry import _tracing

    return _tracing
