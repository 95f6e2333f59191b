"""The Prometheus instruments (imported only when metrics are switched on).

Every metric name starts with ``govcore_``. Labels take values from small, fixed sets (endpoint
and operation names, statuses, enforcement types) or from the configuration (policy ids,
tenant ids, versions): never from a request. A request's counters are label children resolved
once and kept (:class:`EndpointInstruments`), so counting allocates no label dictionary.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, InfoMetricFamily, Metric

if TYPE_CHECKING:
    from govcore.telemetry._readings import Readings

__all__ = ["EndpointInstruments", "Instruments", "StoreInstruments"]

# Seconds. A request answered in memory takes tens of microseconds to about a millisecond, one
# on Redis a few; the top buckets catch a slow store. (The client's default starts at 5 ms.)
LATENCY_BUCKETS = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
)  # fmt: skip
# Policies applicable after a turn: retrieval's top-K is 12 by default, alwaysOn ones come on top.
POLICY_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64)


class Instruments:
    """The metric families of one registry, and the scrape-time readings of the facades."""

    def __init__(self, registry: CollectorRegistry | None, readings: Callable[[], list[Readings]]):
        self.registry: CollectorRegistry = REGISTRY if registry is None else registry
        self.requests = Counter(
            "govcore_requests",
            "Requests answered, by endpoint and status (the HTTP status, also for the typed client).",
            ["endpoint", "status"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "govcore_request_duration_seconds",
            "Time to answer a request, by endpoint (the pipeline: from authentication to the answer).",
            ["endpoint"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.store_calls = Counter(
            "govcore_store_calls",
            "Store round trips (one per effect a handler asks for), by operation.",
            ["operation"],
            registry=self.registry,
        )
        self.store_errors = Counter(
            "govcore_store_errors",
            "Store round trips that failed (the store unavailable, or its data unreadable), "
            "timeouts included, by operation.",
            ["operation"],
            registry=self.registry,
        )
        self.store_timeouts = Counter(
            "govcore_store_timeouts",
            "Store round trips that timed out, by operation (also counted as errors).",
            ["operation"],
            registry=self.registry,
        )
        self.store_seconds = Histogram(
            "govcore_store_call_duration_seconds",
            "Time of one store round trip, by operation.",
            ["operation"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.turn_policies = Histogram(
            "govcore_turn_policies",
            "Policies applicable after each answered turn.",
            buckets=POLICY_BUCKETS,
            registry=self.registry,
        )
        self.violations = Counter(
            "govcore_violations",
            "Violations in answers, by the endpoint that reported them, policy id and enforcement.",
            ["endpoint", "policy", "enforcement"],
            registry=self.registry,
        )
        self.registry.register(_ReadingsCollector(readings))

    def endpoint(self, name: str) -> EndpointInstruments:
        """The instruments of endpoint ``name``, with its label children resolved."""
        return EndpointInstruments(self, name)

    def store(self, operation: str) -> StoreInstruments:
        """The instruments of store ``operation``, with their label children resolved."""
        return StoreInstruments(self, operation)


class EndpointInstruments:
    """One endpoint's label children: resolved here, or at the first use of a status or policy."""

    __slots__ = ("_instruments", "_name", "_statuses", "_violations", "latency", "turn_policies")

    def __init__(self, instruments: Instruments, name: str) -> None:
        self._instruments = instruments
        self._name = name
        self.latency = instruments.request_seconds.labels(name)
        self.turn_policies = instruments.turn_policies
        self._statuses: dict[int, Any] = {}
        self._violations: dict[str, dict[str, Any]] = {}

    def answered(self, status: int, seconds: float) -> None:
        """Count one request answered with ``status`` after ``seconds``."""
        counter = self._statuses.get(status)
        if counter is None:
            counter = self._statuses[status] = self._instruments.requests.labels(
                self._name, str(status)
            )
        counter.inc()
        self.latency.observe(seconds)

    def violation(self, policy_id: str, enforcement: str) -> None:
        """Count one violation of ``policy_id`` reported with ``enforcement``."""
        by_enforcement = self._violations.get(policy_id)
        if by_enforcement is None:
            by_enforcement = self._violations[policy_id] = {}
        counter = by_enforcement.get(enforcement)
        if counter is None:
            counter = by_enforcement[enforcement] = self._instruments.violations.labels(
                self._name, policy_id, enforcement
            )
        counter.inc()


class StoreInstruments:
    """One store operation's label children."""

    __slots__ = ("calls", "errors", "latency", "timeouts")

    def __init__(self, instruments: Instruments, operation: str) -> None:
        self.calls = instruments.store_calls.labels(operation)
        self.errors = instruments.store_errors.labels(operation)
        self.timeouts = instruments.store_timeouts.labels(operation)
        self.latency = instruments.store_seconds.labels(operation)


class _ReadingsCollector:
    """What the facades count themselves, read at each scrape: nothing on a request's path."""

    def __init__(self, readings: Callable[[], list[Readings]]) -> None:
        self._readings = readings

    def collect(self) -> Iterator[Metric]:
        readings = self._readings()
        dropped = CounterMetricFamily(
            "govcore_decisions_dropped",
            "Decision records dropped because the queue to the decision log was full or closed.",
            value=sum(reading.decisions_dropped for reading in readings),
        )
        evictions = CounterMetricFamily(
            "govcore_store_evictions",
            "Entries the store evicted for capacity before their expiry, by namespace (the "
            "memory store; Redis reports its own as evicted_keys).",
            labels=["namespace"],
        )
        by_namespace: Tally[str] = Tally()
        for reading in readings:
            by_namespace.update(reading.evictions)
        for namespace, count in sorted(by_namespace.items()):
            evictions.add_metric([namespace], count)
        versions = InfoMetricFamily(
            "govcore_policy_set",
            "The policy-set version each tenant serves (1 per tenant and version).",
            labels=["tenant"],
        )
        served = {
            (tenant, version)
            for reading in readings
            for tenant, version in reading.policy_set_versions.items()
        }
        for tenant, version in sorted(served):
            versions.add_metric([tenant], {"version": version})
        yield dropped
        yield evictions
        yield versions
