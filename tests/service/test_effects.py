"""The service's store effects: what each request asks of a store, and of a pipelined one."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.core.ratelimit import admit
from govcore.service.store_keys import conversation_key, stream_key
from govcore.testing import FakeClock
from govcore.types import Admission, PipelinedStore, StoreCommit, StoreReads, StoreWrite
from tests.support import CHECKS_KEY, FULL_KEY, SLOW_KEY, bearer, checks_config, config, turn

T = TypeVar("T")
PREFIX = "/api/v1/agent/governance"


class RecordingPipelinedStore:
    """A MemoryStore with the PipelinedStore methods, recording each call as a round trip."""

    backend_errors: tuple[type[BaseException], ...] = ()

    def __init__(self, clock: FakeClock) -> None:
        self.memory = MemoryStore(clock=clock)
        self.trips: list[str] = []
        self.snapshot_used: list[bool] = []

    def get(self, key: str) -> bytes | None:
        self.trips.append("get")
        return self.memory.get(key)

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self.trips.append("set")
        self.memory.set(key, value, expires_at=expires_at)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        self.trips.append("update")
        return self.memory.update(key, mutate)

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
        *,
        reads: StoreReads | None = None,
    ) -> T:
        self.trips.append("update_many")
        self.snapshot_used.append(reads is not None and reads.snapshot == ("read", tuple(keys)))
        return self.memory.update_many(keys, mutate)

    def delete(self, key: str) -> None:
        self.trips.append("delete")
        self.memory.delete(key)

    def admit(
        self, key: str, *, limit: int, window_seconds: float, read: Sequence[str] = ()
    ) -> Admission:
        self.trips.append("admit")
        wait = self.memory.update(key, lambda raw, now: admit(raw, now, limit=limit))
        if wait is not None:
            return Admission(wait)
        values = {k: self.memory.get(k) for k in read}
        return Admission(None, StoreReads(values, ("read", tuple(read))))


def _governance(
    configuration: dict[str, Any],
) -> tuple[govcore.Governance, RecordingPipelinedStore]:
    clock = FakeClock()
    store = RecordingPipelinedStore(clock)
    assert isinstance(store, PipelinedStore)
    return govcore.Governance.from_config(configuration, clock=clock, store=store), store


def _trips(gov: govcore.Governance, store: RecordingPipelinedStore, *request: Any) -> list[str]:
    method, path, key, body = request
    store.trips.clear()
    answer = gov.handle(method, PREFIX + path, bearer(key), json.dumps(body) if body else None)
    assert answer.status < 500, answer.body
    return list(store.trips)


def test_a_turn_is_one_admission_and_one_commit_from_its_reads() -> None:
    """A turn costs a pipelined store two calls, the commit starting from the admission's reads."""
    gov, store = _governance(config())
    for content in ("refund for my order", "and the shipping?"):
        assert _trips(gov, store, "POST", "/conversation/turn", FULL_KEY, turn("a", content)) == [
            "admit",
            "update_many",
        ]
    with_history = turn("h", "refund", priorHistory=[{"role": "user", "content": "hello"}])
    assert _trips(gov, store, "POST", "/conversation/turn", FULL_KEY, with_history) == [
        "admit",
        "update_many",
    ]
    assert all(store.snapshot_used)


def test_an_idempotent_turn_commits_once_and_its_replay_only_reads() -> None:
    """The record is read with the admission: a replay costs one call."""
    gov, store = _governance(config())
    body = turn("i", "refund", idempotencyKey="key-1")
    assert _trips(gov, store, "POST", "/conversation/turn", FULL_KEY, body) == [
        "admit",
        "update_many",
    ]
    assert _trips(gov, store, "POST", "/conversation/turn", FULL_KEY, body) == ["admit"]


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (("GET", "/conversation/a", FULL_KEY, None), ["admit"]),
        (("DELETE", "/conversation/a", FULL_KEY, None), ["admit", "delete", "delete"]),
        (
            (
                "POST",
                "/check-tool-call",
                FULL_KEY,
                {"sessionId": "a", "toolName": "t", "arguments": {}},
            ),
            ["admit"],
        ),
        (("POST", "/post-inference", FULL_KEY, {"sessionId": "a", "output": "fine"}), ["admit"]),
        (
            ("POST", "/pre-inference", FULL_KEY, {"sessionId": "a", "prompt": "refund"}),
            ["admit", "set"],
        ),
        (("POST", "/conversation/turn", FULL_KEY, {"sessionId": "a"}), ["admit"]),
        (("POST", "/conversation/turn", "gk_unknown_000000000000", turn("a", "x")), []),
    ],
    ids=["get", "delete", "tool-call", "post-inference", "pre-inference", "invalid", "unknown-key"],
)
def test_each_request_asks_the_store_only_what_it_needs(
    request_: tuple[Any, ...], expected: list[str]
) -> None:
    """Reads ride on the admission; only writes cost a call of their own."""
    gov, store = _governance(config())
    assert _trips(gov, store, *request_) == expected


def test_a_scanning_stream_call_reads_its_record_with_the_admission() -> None:
    """A streaming call that scans costs the admission and the write of its record."""
    gov, store = _governance(checks_config())
    text = "a" * 400
    body = {"sessionId": "s", "fullText": text, "lastCheckedOffset": 0}
    assert _trips(gov, store, "POST", "/check-output/stream", CHECKS_KEY, body) == ["admit", "set"]
    short = {"sessionId": "s", "fullText": text + "b", "lastCheckedOffset": 400}
    assert _trips(gov, store, "POST", "/check-output/stream", CHECKS_KEY, short) == ["admit"]


def test_a_refused_request_is_still_counted_before_its_refusal() -> None:
    """A request refused 400 counts toward the limit, and past the limit 429 comes first."""
    gov, _ = _governance(config())
    statuses = [
        gov.handle("POST", PREFIX + "/conversation/turn", bearer(SLOW_KEY), body).status
        for body in (json.dumps(turn("r", "hi")), "{not json", json.dumps(turn("r", "hi")), "{")
    ]
    assert statuses == [200, 400, 200, 429]


def test_delete_purges_the_conversation_and_its_stream_record() -> None:
    """DELETE removes everything kept for the session: its state and its stream record."""
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    gov = govcore.Governance.from_config(checks_config(), clock=clock, store=store)
    client = gov.client(CHECKS_KEY)
    client.record_turn(turn("gone", "hello"))
    client.check_output_stream({"sessionId": "gone", "fullText": "x" * 400, "lastCheckedOffset": 0})
    keys = (conversation_key("acme", "gone"), stream_key("acme", "gone"))
    assert all(store.get(key) is not None for key in keys)
    client.delete_conversation("gone")
    assert [store.get(key) for key in keys] == [None, None]
