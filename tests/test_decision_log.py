"""The decision log: off the hot path through a bounded queue, flushed on close."""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path

import pytest

import govcore
from govcore.decision_log import Decision, DecisionQueue, MemoryDecisionLog
from tests.support import CHECKS_KEY, checks_governance

MIXED = "Your card 4111 1111 1111 1111 was charged; write to jane.doe@mail.example.com."


def _decision(number: int) -> Decision:
    return Decision(
        decision_id=str(number),
        trace_id="t",
        tenant="acme",
        key_id="k",
        endpoint="post-inference",
        session_id="s",
        policy_ids=(),
        verdict="safe",
        violations=0,
        risk_score=0.0,
        duration_ms=0.1,
        ts=0.0,
    )


class _BlockedSink:
    """A sink that holds every record until released: a slow audit store."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.records: list[Decision] = []

    def record(self, decision: Decision) -> None:
        self.entered.set()
        self.release.wait(30)
        self.records.append(decision)


class _FailingSink:
    def __init__(self) -> None:
        self.calls = 0

    def record(self, decision: Decision) -> None:
        self.calls += 1
        raise OSError("disk full")


def test_a_blocked_sink_does_not_hold_up_the_check() -> None:
    """Checks answer while the sink is stuck on an earlier record, and the records arrive later."""
    sink = _BlockedSink()
    gov = checks_governance(decision_log=sink)
    client = gov.client(CHECKS_KEY)
    first = client.post_inference({"sessionId": "a", "output": MIXED})
    assert sink.entered.wait(10)  # the sink is now stuck inside its first record
    second = client.post_inference({"sessionId": "b", "output": MIXED})
    assert sink.records == []  # both checks answered before any record got through
    sink.release.set()
    gov.close()
    assert [d.trace_id for d in sink.records] == [first.trace_id, second.trace_id]


def test_a_failing_sink_never_fails_a_check(caplog: pytest.LogCaptureFixture) -> None:
    """A sink that raises loses its records, logged as errors; the checks still answer."""
    sink = _FailingSink()
    gov = checks_governance(decision_log=sink)
    with caplog.at_level("ERROR", logger="govcore.decisions"):
        for number in range(3):
            verdict = gov.client(CHECKS_KEY).post_inference(
                {"sessionId": f"s{number}", "output": MIXED}
            )
            assert verdict.safe is False
        assert gov.flush()
    assert sink.calls == 3
    assert sum(r.levelname == "ERROR" for r in caplog.records) == 3
    # One traceback for the run of failures, then one line each.
    assert sum(r.exc_info is not None for r in caplog.records) == 1


def test_a_sink_that_recovers_is_logged_once_as_working_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After failures, the first record delivered says so; the next outage logs a traceback
    again."""

    class Flaky:
        blocking = True

        def __init__(self) -> None:
            self.failing = True
            self.records: list[Decision] = []

        def record(self, decision: Decision) -> None:
            if self.failing:
                raise ConnectionError("down")
            self.records.append(decision)

    sink = Flaky()
    queue = DecisionQueue(sink, maxsize=10)
    with caplog.at_level("WARNING", logger="govcore.decisions"):
        for number, failing in enumerate([True, True, False, True]):
            sink.failing = failing
            queue.record(_decision(number))
            assert queue.flush()
    queue.close()
    assert [d.decision_id for d in sink.records] == ["2"]
    assert queue.failed == 3
    assert [r.exc_info is not None for r in caplog.records if r.levelname == "ERROR"] == [
        True,
        False,
        True,
    ]
    assert sum("works again" in r.getMessage() for r in caplog.records) == 1


def test_a_full_queue_drops_and_counts() -> None:
    """Records beyond the queue's size are dropped and counted, never waited for."""
    sink = _BlockedSink()
    queue = DecisionQueue(sink, maxsize=2)
    queue.record(_decision(0))
    assert sink.entered.wait(10)  # record 0 is in the sink; the queue is empty again
    for number in range(1, 6):
        queue.record(_decision(number))
    assert queue.dropped == 3
    sink.release.set()
    assert queue.close()
    assert [d.decision_id for d in sink.records] == ["0", "1", "2"]


def test_close_flushes_and_later_records_are_dropped() -> None:
    """Closing delivers everything queued; a record after close is counted as dropped."""
    sink = MemoryDecisionLog()
    with checks_governance(decision_log=sink) as gov:
        gov.client(CHECKS_KEY).post_inference({"sessionId": "s", "output": MIXED})
    assert len(sink.decisions()) == 1
    gov.client(CHECKS_KEY).post_inference({"sessionId": "s", "output": MIXED})
    assert gov.decisions_dropped == 1


def test_sink_path_in_a_missing_directory_is_a_config_error(tmp_path: Path) -> None:
    """A decision_log_path whose directory does not exist is refused when the config loads."""
    with pytest.raises(govcore.ConfigError, match="decision_log_path"):
        checks_governance(decision_log_path=str(tmp_path / "missing" / "decisions.jsonl"))


class _SignallingSink:
    """A sink that says when a record arrives."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.records: list[Decision] = []

    def record(self, decision: Decision) -> None:
        self.records.append(decision)
        self.arrived.set()


def test_records_after_an_idle_spell_still_arrive_without_a_flush() -> None:
    """A record queued while the thread sleeps with nothing to do wakes it and arrives."""
    sink = _SignallingSink()
    queue = DecisionQueue(sink, interval=0.01)
    queue.record(_decision(0))
    assert queue.flush()
    sink.arrived.clear()
    queue.record(_decision(1))
    assert sink.arrived.wait(10)
    assert [d.decision_id for d in sink.records] == ["0", "1"]
    queue.close()


def test_the_in_memory_log_is_written_at_once() -> None:
    """The default in-memory log needs no flush: a check's decision is readable right after it."""
    sink = MemoryDecisionLog()
    gov = checks_governance(decision_log=sink)
    gov.client(CHECKS_KEY).post_inference({"sessionId": "s", "output": MIXED})
    assert len(sink.decisions()) == 1


def test_the_former_module_name_still_imports_with_a_deprecation_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``govcore.decisions`` (the module's name before ``govcore.decision_log``) still gives the
    same objects for one release, and says that it is deprecated."""
    monkeypatch.delitem(sys.modules, "govcore.decisions", raising=False)
    with pytest.warns(DeprecationWarning, match=r"govcore\.decision_log"):
        former = importlib.import_module("govcore.decisions")
    for name in former.__all__:
        assert getattr(former, name) is getattr(govcore, name)
