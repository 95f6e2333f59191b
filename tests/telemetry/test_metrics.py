"""The Prometheus instruments a facade built with ``metrics=`` counts into."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest
from prometheus_client import CollectorRegistry, generate_latest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.telemetry import Metrics
from govcore.testing import FakeClock
from govcore.types import StoreCommit, StoreWrite
from tests.support import (
    CHECKS_KEY,
    FULL_KEY,
    READ_KEY,
    bearer,
    checks_config,
    config,
    policy,
    turn,
)
from tests.telemetry.conftest import sample

T = TypeVar("T")


def test_requests_are_counted_by_endpoint_and_status(metrics: Metrics) -> None:
    """Each answer counts once under its endpoint and status, whichever door it came through,
    and its time lands in the endpoint's latency histogram."""
    gov = govcore.Governance.from_config(config(), clock=FakeClock(), metrics=metrics)
    client = gov.client(FULL_KEY)
    client.record_turn(turn("s-1", "hello"))
    client.record_turn(turn("s-1", "again"))
    gov.handle("GET", "/governance/conversation/s-1", bearer(FULL_KEY))
    gov.handle("GET", "/governance/conversation/nobody", bearer(FULL_KEY))
    gov.handle("DELETE", "/governance/conversation/s-1", bearer(FULL_KEY))
    gov.handle("POST", "/governance/conversation/turn", bearer("gk_unknown_key_0000000"), b"{}")
    gov.handle("POST", "/governance/post-inference", bearer(READ_KEY), b"{}")

    def requests(endpoint: str, status: str) -> float:
        return sample(metrics, "govcore_requests_total", endpoint=endpoint, status=status)

    assert requests("record_turn", "200") == 2
    assert requests("record_turn", "401") == 1
    assert requests("get_conversation", "200") == 1
    assert requests("get_conversation", "404") == 1
    assert requests("delete_conversation", "204") == 1
    assert requests("post_inference", "403") == 1
    latency = "govcore_request_duration_seconds_count"
    assert sample(metrics, latency, endpoint="record_turn") == 3
    assert sample(metrics, latency, endpoint="get_conversation") == 2


def test_async_facade_counts_the_same_way(metrics: Metrics) -> None:
    """AsyncGovernance counts its requests into the same instruments."""

    async def run() -> None:
        async with govcore.AsyncGovernance.from_config(config(), metrics=metrics) as gov:
            await gov.client(FULL_KEY).record_turn(turn("s-1", "hello"))
            await gov.handle("GET", "/governance/conversation/none", bearer(FULL_KEY))

    asyncio.run(run())
    assert sample(metrics, "govcore_requests_total", endpoint="record_turn", status="200") == 1
    assert sample(metrics, "govcore_requests_total", endpoint="get_conversation", status="404") == 1


def test_store_round_trips_are_counted_by_operation(metrics: Metrics) -> None:
    """A turn is an admission (with its reads) and one commit; a read of a conversation is one
    admission: each a store call of its operation, timed."""
    gov = govcore.Governance.from_config(config(), metrics=metrics)
    gov.client(FULL_KEY).record_turn(turn("s-1", "hello"))
    assert sample(metrics, "govcore_store_calls_total", operation="admit") == 1
    assert sample(metrics, "govcore_store_calls_total", operation="update_many") == 1
    gov.client(FULL_KEY).get_conversation("s-1")
    assert sample(metrics, "govcore_store_calls_total", operation="admit") == 2
    assert sample(metrics, "govcore_store_call_duration_seconds_count", operation="admit") == 2
    assert sample(metrics, "govcore_store_errors_total", operation="admit") == 0


class _StoreDownError(Exception):
    """The failing store's declared "unavailable" error."""


class _FailingStore:
    """A memory store whose calls raise ``error()`` while :attr:`failing` is set."""

    backend_errors = (_StoreDownError, TimeoutError)

    def __init__(self, error: Callable[[], Exception]) -> None:
        self.inner = MemoryStore()
        self.failing = False
        self._error = error

    def _check(self) -> None:
        if self.failing:
            raise self._error()

    def get(self, key: str) -> bytes | None:
        self._check()
        return self.inner.get(key)

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self._check()
        self.inner.set(key, value, expires_at=expires_at)

    def delete(self, key: str) -> None:
        self._check()
        self.inner.delete(key)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        self._check()
        return self.inner.update(key, mutate)

    def update_many(
        self, keys: Sequence[str], mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]]
    ) -> T:
        self._check()
        return self.inner.update_many(keys, mutate)


@pytest.mark.parametrize(
    ("error", "timeouts"),
    [(lambda: _StoreDownError("down"), 0), (lambda: TimeoutError("slow"), 1)],
    ids=["unavailable", "timeout"],
)
def test_store_errors_and_timeouts_are_counted(
    metrics: Metrics, error: Callable[[], Exception], timeouts: int
) -> None:
    """A store call that fails with a declared error counts as an error, and one that timed out
    as a timeout too; the request answers 503."""
    store = _FailingStore(error)
    gov = govcore.Governance.from_config(config(), store=store, metrics=metrics)
    store.failing = True
    response = gov.handle("GET", "/governance/conversation/s", bearer(FULL_KEY))
    assert response.status == 503
    assert sample(metrics, "govcore_store_calls_total", operation="admit") == 1
    assert sample(metrics, "govcore_store_errors_total", operation="admit") == 1
    assert sample(metrics, "govcore_store_timeouts_total", operation="admit") == timeouts
    assert sample(metrics, "govcore_requests_total", endpoint="get_conversation", status="503") == 1


def test_policies_per_turn_and_violations_by_policy_and_enforcement(metrics: Metrics) -> None:
    """Each turn's count of applicable policies is observed, and each violation an answer
    reports counts under its endpoint, policy and enforcement."""
    gov = govcore.Governance.from_config(checks_config(), metrics=metrics)
    client = gov.client(CHECKS_KEY)
    answered = [client.record_turn(turn("s-1", text)) for text in ("hello", "a guaranteed refund?")]
    assert sample(metrics, "govcore_turn_policies_count") == 2
    assert sample(metrics, "govcore_turn_policies_sum") == sum(
        len(answer.active_policies) for answer in answered
    )
    verdict = client.post_inference(
        {
            "sessionId": "s-1",
            "output": "Mail bob@example.com or ann@example.org, card 4111 1111 1111 1111",
        }
    )
    found = {(v.policy_id, v.enforcement_type) for v in verdict.violations}
    assert found == {("contact-data", "warning"), ("card-data", "fix")}
    violations = "govcore_violations_total"
    labels = {"endpoint": "post_inference"}
    assert sample(metrics, violations, **labels, policy="contact-data", enforcement="warning") == 2
    assert sample(metrics, violations, **labels, policy="card-data", enforcement="fix") == 1
    assert sample(metrics, violations, **labels, policy="card-data", enforcement="warning") == 0


def test_evictions_are_reported_by_namespace(metrics: Metrics) -> None:
    """Conversations the memory store evicts for capacity show under their namespace."""
    gov = govcore.Governance.from_config(config(max_conversations=2), metrics=metrics)
    client = gov.client(FULL_KEY)
    for number in range(5):
        client.record_turn(turn(f"s-{number}", "hello"))
    assert sample(metrics, "govcore_store_evictions_total", namespace="conv") == 3


def test_dropped_decision_records_are_reported(metrics: Metrics) -> None:
    """Decision records that cannot be queued (here: after the queue was closed) are counted."""
    gov = govcore.Governance.from_config(checks_config(), metrics=metrics)
    gov.close()
    gov.client(CHECKS_KEY).post_inference({"sessionId": "s", "output": "fine"})
    assert gov.decisions_dropped == 1
    assert sample(metrics, "govcore_decisions_dropped_total") == 1


def test_policy_set_version_follows_the_policies(metrics: Metrics) -> None:
    """Each tenant's policy-set version is one sample; the same policies give the same version,
    changed policies another."""
    changed_config = config()
    changed_config["tenants"]["acme"]["policies"].append(policy("added"))
    original, same, changed = (
        govcore.Governance.from_config(configuration, metrics=Metrics(CollectorRegistry()))
        for configuration in (config(), config(), changed_config)
    )

    def versions(gov: govcore.Governance) -> dict[str, str]:
        assert gov.metrics is not None
        return {
            s.labels["tenant"]: s.labels["version"]
            for family in gov.metrics.registry.collect()
            if family.name == "govcore_policy_set"
            for s in family.samples
        }

    assert set(versions(original)) == {"acme", "globex"}
    assert versions(same) == versions(original)
    assert versions(changed)["acme"] != versions(original)["acme"]
    assert versions(changed)["globex"] == versions(original)["globex"]


def test_no_key_session_id_or_text_in_any_label(metrics: Metrics) -> None:
    """Whatever the requests carry (keys, session ids, turn text, checked output, tool
    arguments, matched values), none of it appears in the exposition."""
    gov = govcore.Governance.from_config(checks_config(), metrics=metrics)
    session = "session-7f3a9c-private"
    secrets_sent = [
        CHECKS_KEY,
        "gk_wrong_key_that_fails_01",
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
    gov.handle("GET", f"/governance/conversation/{session}", bearer("gk_wrong_key_that_fails_01"))
    exposition = generate_latest(metrics.registry).decode()
    assert "govcore_requests_total" in exposition
    leaked = [secret for secret in secrets_sent if secret in exposition]
    assert leaked == []
    sample_labels: set[str] = set()
    for family in metrics.registry.collect():
        for s in family.samples:
            sample_labels.update(s.labels)
    assert sample_labels <= {"endpoint", "status", "operation", "policy", "enforcement",
                             "namespace", "tenant", "version", "le"}  # fmt: skip


def test_metrics_true_shares_the_default_registry() -> None:
    """``metrics=True`` means the instruments on prometheus_client's default registry, made
    once: two facades share them."""
    from prometheus_client import REGISTRY

    first = govcore.Governance.from_config(config(), metrics=True)
    second = govcore.Governance.from_config(config(), metrics=True)
    assert first.metrics is second.metrics is Metrics.default()
    assert Metrics.default().registry is REGISTRY


def test_without_metrics_the_facade_has_none() -> None:
    """By default a facade counts nothing: it has no instruments."""
    assert govcore.Governance.from_config(config()).metrics is None


def test_metrics_without_prometheus_client_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asking for metrics without the package names the extra to install."""
    from govcore import telemetry

    monkeypatch.setattr(telemetry, "metrics_available", lambda: False)
    with pytest.raises(ImportError, match=r"govcore\[metrics\]"):
        Metrics(CollectorRegistry())
