"""The decision log: one record per check, for audit, never holding the checked text by default."""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from govcore.core.conversation import iso_timestamp

__all__ = ["Decision", "DecisionLog", "JsonlDecisionLog", "MemoryDecisionLog"]


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

    def to_json(self) -> str:
        """One JSON line."""
        document = asdict(self)
        document["policy_ids"] = list(self.policy_ids)
        document["ts"] = iso_timestamp(self.ts)
        if self.text is None:
            del document["text"]
        return json.dumps(document, ensure_ascii=True, separators=(",", ":"))


class DecisionLog(Protocol):
    """Where decisions go."""

    def record(self, decision: Decision) -> None:
        """Keep ``decision``; must not raise for a full or slow sink (drop instead)."""
        ...


class MemoryDecisionLog:
    """The latest ``maxlen`` decisions in memory (the default)."""

    def __init__(self, maxlen: int = 10_000) -> None:
        self._decisions: deque[Decision] = deque(maxlen=maxlen)

    def record(self, decision: Decision) -> None:
        self._decisions.append(decision)

    def decisions(self) -> Sequence[Decision]:
        """The kept decisions, oldest first."""
        return tuple(self._decisions)


class JsonlDecisionLog:
    """Appends each decision as a JSON line to a file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def record(self, decision: Decision) -> None:
        line = decision.to_json() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as sink:
            sink.write(line)
