"""The decision log: one record per check, for audit, never holding the checked text by default.

Records reach the sink through a :class:`DecisionQueue`: a check only puts its record on a
bounded queue, and one background thread hands records to the sink, so a slow or failing sink
never delays or fails a check. What cannot be queued is dropped, counted and logged.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, ClassVar, Protocol

from pydantic import Field

from govcore.core.conversation import iso_timestamp
from govcore.errors import ConfigError
from govcore.settings import GovernanceSettings, SettingsSection

__all__ = [
    "Decision",
    "DecisionLog",
    "DecisionQueue",
    "JsonlDecisionLog",
    "JsonlDecisionLogSettings",
    "MemoryDecisionLog",
    "MemoryDecisionLogSettings",
    "ShadowDiff",
]

# The logger keeps the module's former name: logging configurations (and docs/deploying.md)
# name it.
_log = logging.getLogger("govcore.decisions")


@dataclass(frozen=True, slots=True)
class ShadowDiff:
    """How a candidate policy set's decision (run in shadow) differs from the live one.

    Attributes:
        live_policy_set_version: the content hash of the live policy set.
        live_verdict: the live decision's verdict (``selection`` for a turn's or a
            pre-inference call's selection).
        live_policy_ids: the policies of the live decision: those selected, or those with
            violations.
        gained: policies the candidate has and the live decision has not.
        lost: policies the live decision has and the candidate has not.
    """

    live_policy_set_version: str
    live_verdict: str
    live_policy_ids: tuple[str, ...]
    gained: tuple[str, ...]
    lost: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Decision:
    """What govcore decided for one request of a check endpoint or a turn with checkOutput.

    Attributes:
        decision_id: unique per decision.
        trace_id: the ``traceId`` answered; a caller's ``traceId`` links checks into one trace.
        tenant, key_id: who asked (the key's public id, never the secret).
        endpoint: ``post-inference``, ``check-output/stream``, ``check-output/finalize``,
            ``check-tool-call`` or ``conversation/turn``.
        session_id: the request's ``sessionId``.
        policy_ids: the policies with violations.
        verdict: ``allow``/``block`` for tool calls, ``safe``/``unsafe`` for outputs.
        violations: how many violations.
        risk_score: the answered ``riskScore``.
        duration_ms: time taken by the check.
        ts: epoch seconds of the decision, from the injected clock (ISO 8601 in ``to_json``).
        text: the checked text, only when the log is configured to keep it.
        policy_set_version: the content hash of the policy set the request was decided on
            (:attr:`govcore.policy.PolicySet.version`): which configuration a process served.
        policy_set_label: that policy set's label (``tenants.<id>.label``), if it has one.
        shadow: set on the record of a candidate policy set run in shadow: its difference
            from the live decision of the same request (same ``trace_id``). The other fields
            then describe the candidate's decision, which nobody was answered.
    """

    decision_id: str
    trace_id: str
    tenant: str
    key_id: str
    endpoint: str
    session_id: str
    policy_ids: tuple[str, ...]
    verdict: str
    violations: int
    risk_score: float
    duration_ms: float
    ts: float
    text: str | None = None
    policy_set_version: str = ""
    policy_set_label: str | None = None
    shadow: ShadowDiff | None = None

    @property
    def verdict_flipped(self) -> bool:
        """Whether this shadow record's verdict differs from the live one."""
        return self.shadow is not None and self.shadow.live_verdict != self.verdict

    def to_json(self) -> str:
        """One JSON line."""
        document = asdict(self)
        document["policy_ids"] = list(self.policy_ids)
        document["ts"] = iso_timestamp(self.ts)
        for optional in ("text", "policy_set_label", "shadow"):
            if document[optional] is None:
                del document[optional]
        return json.dumps(document, ensure_ascii=True, separators=(",", ":"))


class DecisionLog(Protocol):
    """Where decisions go."""

    def record(self, decision: Decision) -> None:
        """Keep ``decision``; must not raise for a full or slow sink (drop instead)."""
        ...


class MemoryDecisionLogSettings(SettingsSection):
    """The in-memory decision log's own key of ``settings:``."""

    decision_log_size: Annotated[int, Field(ge=1)] = 10_000
    """How many decisions the in-memory decision log keeps."""


class MemoryDecisionLog:
    """The latest ``maxlen`` decisions in memory (the default, decision log ``memory``).

    Recording is one append to a bounded deque, so it is written directly rather than through
    the background queue (``blocking = False``): its decisions are readable at once.
    """

    blocking = False
    settings_model: ClassVar[type[SettingsSection]] = MemoryDecisionLogSettings

    def __init__(self, maxlen: int = 10_000) -> None:
        self._decisions: deque[Decision] = deque(maxlen=maxlen)

    @classmethod
    def from_settings(cls, settings: GovernanceSettings) -> MemoryDecisionLog:
        """The latest ``decision_log_size`` decisions."""
        return cls(settings.section(MemoryDecisionLogSettings).decision_log_size)

    def record(self, decision: Decision) -> None:
        self._decisions.append(decision)

    def decisions(self) -> Sequence[Decision]:
        """The kept decisions, oldest first."""
        return tuple(self._decisions)


class JsonlDecisionLogSettings(SettingsSection):
    """The JSON-lines decision log's own key of ``settings:``; setting it chooses the log."""

    decision_log_path: str | None = None
    """Append decisions as JSON lines to this file instead of keeping them in memory."""


class JsonlDecisionLog:
    """Appends each decision as a JSON line to a file (decision log ``path``, chosen by
    ``settings.decision_log_path``).

    Raises:
        ConfigError: the file's directory does not exist, or the file could not be appended to
            (checked once, when the log is made, without creating the file, so records are
            never silently lost).
    """

    settings_model: ClassVar[type[SettingsSection]] = JsonlDecisionLogSettings

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise ConfigError(
                f"settings.decision_log_path: the directory {str(self.path.parent)!r} does not exist"
            )
        writable = self.path if self.path.exists() else self.path.parent
        if self.path.is_dir() or not os.access(writable, os.W_OK):
            raise ConfigError(f"settings.decision_log_path: cannot append to {str(self.path)!r}")
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: GovernanceSettings) -> JsonlDecisionLog:
        """Appending to ``decision_log_path``.

        Raises:
            ValueError: the setting is not set.
            ConfigError: as the class.
        """
        path = settings.section(JsonlDecisionLogSettings).decision_log_path
        if path is None:
            raise ValueError("decision_log_path is not set")
        return cls(path)

    def record(self, decision: Decision) -> None:
        line = decision.to_json() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as sink:
            sink.write(line)


class DecisionQueue:
    """Hands decisions to a sink from a background thread, through a bounded queue.

    :meth:`record` never blocks and never raises: when ``maxsize`` records are waiting, the new
    one is dropped and counted in :attr:`dropped`. A sink that raises loses that record (counted
    in :attr:`failed`, logged) and keeps receiving the next ones. The thread starts with the
    first record and hands records over in batches: it wakes when ``batch`` records wait, or
    ``interval`` seconds after it last did, so a check costs a deque append, not a thread
    switch. :meth:`flush` waits until everything queued so far has reached the sink, and
    :meth:`close` flushes and stops the thread.

    A sink that declares ``blocking = False`` (the in-memory :class:`MemoryDecisionLog`, which
    only appends to a bounded deque) is written directly, with no thread at all.

    Args:
        sink: where the records go.
        maxsize: how many records may wait.
        batch: how many waiting records wake the thread before its interval is up.
        interval: the longest a record waits for the thread, in seconds.
    """

    def __init__(
        self, sink: DecisionLog, maxsize: int = 10_000, *, batch: int = 256, interval: float = 0.1
    ) -> None:
        self.sink = sink
        self._direct = getattr(sink, "blocking", True) is False
        self._maxsize = maxsize
        self._batch = batch
        self._interval = interval
        self._pending: deque[Decision] = deque()  # appended without the lock: deque is atomic
        self._in_flight = 0  # taken off the queue, not yet through the sink
        self._waiting_flushes = 0
        self._idle = False  # the thread sleeps until a record comes: the next one wakes it
        self._condition = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.dropped = 0
        """Records dropped because the queue was full (or the queue was closed)."""
        self.failed = 0
        """Records the sink raised on."""
        self._failing = False  # the last delivery failed: the next failure logs no traceback

    def record(self, decision: Decision) -> None:
        """Queue ``decision`` for the sink; drop it when the queue is full."""
        if self._closed or len(self._pending) >= self._maxsize:
            self._drop()
            return
        if self._direct:
            self._deliver(decision)
            return
        self._pending.append(decision)
        if self._thread is None:
            self._start()
        if self._idle or len(self._pending) >= self._batch:
            with self._condition:
                self._condition.notify_all()

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Wait until every record queued so far has been through the sink.

        Returns:
            Whether it finished within ``timeout`` seconds.
        """
        with self._condition:
            self._waiting_flushes += 1
            self._condition.notify_all()
            try:
                return self._condition.wait_for(
                    lambda: not self._pending and not self._in_flight, timeout=timeout
                )
            finally:
                self._waiting_flushes -= 1

    def close(self, timeout: float | None = 10.0) -> bool:
        """Flush, then stop the thread; later records are dropped. Waits at most ``timeout``
        seconds in all.

        Returns:
            Whether everything was flushed within ``timeout`` seconds.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        flushed = self.flush(timeout)
        with self._condition:
            self._closed = True
            self._condition.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return flushed

    def _drop(self) -> None:
        self.dropped += 1
        if self.dropped == 1 or self.dropped % 1000 == 0:
            _log.warning("decision log queue full or closed: %d records dropped", self.dropped)

    def _start(self) -> None:
        with self._condition:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._drain, name="govcore-decision-log", daemon=True
                )
                self._thread.start()

    def _deliver(self, decision: Decision) -> None:
        try:
            self.sink.record(decision)
        except Exception as exc:  # a failing audit sink must not fail a check or stop the log
            self.failed += 1
            if not self._failing:
                self._failing = True
                _log.exception("decision log sink failed; the record is lost")
            else:  # one traceback per outage, not one per record
                _log.error(
                    "decision log sink still failing (%s); the record is lost (%d lost so far)",
                    type(exc).__name__,
                    self.failed,
                )
        else:
            if self._failing:
                self._failing = False
                _log.warning("decision log sink works again (%d records lost so far)", self.failed)

    def _drain(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(
                    lambda: (
                        len(self._pending) >= self._batch or self._waiting_flushes or self._closed
                    ),
                    timeout=self._interval,
                )
                if self._closed and not self._pending:
                    return
                batch = [self._pending.popleft() for _ in range(len(self._pending))]
                self._in_flight = len(batch)
            for decision in batch:
                self._deliver(decision)
            with self._condition:
                self._in_flight = 0
                self._condition.notify_all()
