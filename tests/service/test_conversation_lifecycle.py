"""A state-machine test of the conversation lifecycle (interface spec §3, §4.1-4.3, §8).

Turns, GETs, DELETEs and clock moves are run against a model of the lifecycle table: a session
is present while ``now < time of its last turn + TTL``; a turn creates or renews it, GET reads
without renewing, DELETE purges and is idempotent. The TTL of a turn is its ``ttlSeconds``, else
the key's ``conversation_ttl_seconds``, else the configured default.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from datetime import datetime

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import govcore
from tests.support import (
    DEFAULT_TTL,
    GLOBEX_KEY,
    LIFECYCLE_FULL_KEY,
    SHORT_TTL,
    SHORT_TTL_KEY,
    FakeClock,
    lifecycle_config,
)

# Built once for the module; every machine run uses its own session ids on the shared clock,
# which only moves forward.
CLOCK = FakeClock()


@functools.cache
def _gov() -> govcore.Governance:
    """The shared governance, built on first use (not at import)."""
    return govcore.Governance.from_config(lifecycle_config(), clock=CLOCK)


KEY_TTL = {LIFECYCLE_FULL_KEY: DEFAULT_TTL, SHORT_TTL_KEY: SHORT_TTL}
_runs = itertools.count()

NAMES = st.sampled_from(["a", "b", "c"])
KEYS = st.sampled_from(sorted(KEY_TTL))
TTL_OVERRIDES = st.sampled_from([None, None, 300, 301, 1000, 604_800])
HISTORIES = st.none() | st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant"]), "content": st.sampled_from(["hi", "ok"])}
    ),
    max_size=3,
)
STEPS = st.sampled_from([0.0, 0.001, 0.5, 1.0, 59.0, 299.0, 299.999, 300.0, 3599.0, 86_400.0])


@dataclass
class Entry:
    """The model of one live session."""

    turn_count: int
    last_turn: float
    ttl: int

    @property
    def expires_at(self) -> float:
        return self.last_turn + self.ttl


def _epoch(ts: str) -> float:
    assert ts.endswith("Z"), ts
    return datetime.fromisoformat(ts).timestamp()


class ConversationLifecycle(RuleBasedStateMachine):
    """Drives turns, reads, deletes and time against the lifecycle model."""

    def __init__(self) -> None:
        super().__init__()
        self.run = next(_runs)
        self.model: dict[str, Entry] = {}

    # --- helpers ---------------------------------------------------------------------

    def sid(self, name: str) -> str:
        return f"life-{self.run}-{name}"

    def live(self, name: str) -> Entry | None:
        """The model's entry, dropping it once ``now >= last turn + TTL``."""
        entry = self.model.get(name)
        if entry is not None and CLOCK.now >= entry.expires_at:
            del self.model[name]
            return None
        return entry

    def check_present(self, name: str, entry: Entry) -> None:
        snapshot = _gov().client(LIFECYCLE_FULL_KEY).get_conversation(self.sid(name))
        assert snapshot.session_id == self.sid(name)
        assert snapshot.turn_count == entry.turn_count
        assert math.isclose(_epoch(snapshot.updated_at), entry.last_turn, abs_tol=0.002)

    # --- rules -----------------------------------------------------------------------

    @rule(name=NAMES, key=KEYS, ttl=TTL_OVERRIDES, history=HISTORIES)
    def turn(
        self, name: str, key: str, ttl: int | None, history: list[dict[str, str]] | None
    ) -> None:
        """A turn creates an absent session (after any priorHistory) or continues a live one."""
        entry = self.live(name)
        request: dict[str, object] = {
            "sessionId": self.sid(name),
            "turn": {"role": "user", "content": "where is my parcel"},
        }
        if ttl is not None:
            request["ttlSeconds"] = ttl
        if history is not None:
            request["priorHistory"] = history
        response = _gov().client(key).record_turn(request)

        expected = entry.turn_count + 1 if entry is not None else len(history or []) + 1
        assert response.turn_index == expected
        self.model[name] = Entry(expected, CLOCK.now, ttl or KEY_TTL[key])

    @rule(name=NAMES, through_handle=st.booleans())
    def get(self, name: str, through_handle: bool) -> None:
        """GET answers the live session's state, or 404 once it is absent."""
        entry = self.live(name)
        if through_handle:
            response = _gov().handle(
                "GET",
                f"/api/v1/agent/governance/conversation/{self.sid(name)}",
                {"Authorization": f"Bearer {LIFECYCLE_FULL_KEY}"},
                None,
            )
            if entry is None:
                assert response.status == 404
                assert response.json()["error"] == "not_found"
            else:
                assert response.status == 200
                assert response.json()["turnCount"] == entry.turn_count
        elif entry is None:
            with pytest.raises(govcore.NotFoundError):
                _gov().client(LIFECYCLE_FULL_KEY).get_conversation(self.sid(name))
        else:
            self.check_present(name, entry)

    @rule(name=NAMES)
    def delete(self, name: str) -> None:
        """DELETE answers 204 with no body whether or not the session exists, and purges it."""
        response = _gov().handle(
            "DELETE",
            f"/governance/conversation/{self.sid(name)}",
            {"Authorization": f"Bearer {SHORT_TTL_KEY}"},
            None,
        )
        assert response.status == 204
        assert response.body == b""
        self.model.pop(name, None)

    @rule(name=NAMES, delete=st.booleans())
    def other_tenant(self, name: str, delete: bool) -> None:
        """Another tenant's key never sees the session, and its DELETE leaves it alone."""
        client = _gov().client(GLOBEX_KEY)
        if delete:
            client.delete_conversation(self.sid(name))
        else:
            with pytest.raises(govcore.NotFoundError):
                client.get_conversation(self.sid(name))

    @rule(seconds=STEPS)
    def advance(self, seconds: float) -> None:
        """Time passes."""
        CLOCK.advance(seconds)

    @precondition(lambda self: bool(self.model))
    @rule(data=st.data(), offset=st.sampled_from([-0.001, 0.0, 0.0, 0.001]))
    def jump_to_expiry(self, data: st.DataObject, offset: float) -> None:
        """Time moves to just before, exactly at, or just past a session's expiry."""
        name = data.draw(st.sampled_from(sorted(self.model)))
        target = self.model[name].expires_at + offset
        if target > CLOCK.now:
            CLOCK.now = target

    # --- invariant -------------------------------------------------------------------

    @invariant()
    def reads_match_model(self) -> None:
        """Every session reads as the model says, and reading renews nothing."""
        for name in ("a", "b", "c"):
            entry = self.live(name)
            if entry is None:
                with pytest.raises(govcore.NotFoundError):
                    _gov().client(LIFECYCLE_FULL_KEY).get_conversation(self.sid(name))
            else:
                self.check_present(name, entry)


ConversationLifecycle.TestCase.settings = settings(
    max_examples=80, stateful_step_count=30, deadline=None
)
TestConversationLifecycle = ConversationLifecycle.TestCase
TestConversationLifecycle.__doc__ = "The lifecycle table of spec §3 holds for any run of rules."


def test_exact_ttl_boundary() -> None:
    """A session is readable just before last turn + TTL and absent exactly at it."""
    client = _gov().client(SHORT_TTL_KEY)
    sid = f"life-boundary-{next(_runs)}"
    client.record_turn({"sessionId": sid, "turn": {"role": "user", "content": "hi"}})
    created = CLOCK.now
    CLOCK.now = created + SHORT_TTL - 0.001
    assert client.get_conversation(sid).turn_count == 1
    CLOCK.now = created + SHORT_TTL
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation(sid)
    again = client.record_turn({"sessionId": sid, "turn": {"role": "user", "content": "hi"}})
    assert again.turn_index == 1


def test_get_does_not_renew() -> None:
    """Reading a session just before it expires does not extend its life."""
    client = _gov().client(SHORT_TTL_KEY)
    sid = f"life-norenew-{next(_runs)}"
    client.record_turn({"sessionId": sid, "turn": {"role": "user", "content": "hi"}})
    created = CLOCK.now
    for offset in (100.0, 200.0, 299.0):
        CLOCK.now = created + offset
        assert client.get_conversation(sid).turn_count == 1
    CLOCK.now = created + SHORT_TTL
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation(sid)
