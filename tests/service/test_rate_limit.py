"""The rate limit is decided inside the store's atomic update, on the store's own time.

A sliding 60 s window: concurrent requests never get more than the limit admitted in any window,
and a clock that steps back must never lock a key out for more than one window.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import govcore
from govcore.backends.memory import MemoryStore
from govcore.core.ratelimit import WINDOW_SECONDS, admit
from govcore.testing import FakeClock
from govcore.types import StoreCommit, StoreWrite
from tests.support import FULL_KEY, bearer, config, turn

T = TypeVar("T")
LIMIT = 50
LIMITED_KEY = "gk_test_limited_fifty_50"
START = 1_800_000_000.0
GET_PATH = "/api/v1/agent/governance/conversation/s"


def _config() -> dict[str, Any]:
    cfg = config(default_rate_limit_per_minute=1_000_000)
    cfg["keys"].append(
        {"key": LIMITED_KEY, "tenant": "acme", "settings": {"rate_limit_per_minute": LIMIT}}
    )
    return cfg


def _governance(clock: Callable[[], float], store: Any = None) -> govcore.Governance:
    gov = govcore.Governance.from_config(_config(), clock=clock, store=store)
    gov.client(FULL_KEY).record_turn(turn("s", "hello"))  # GET s answers 200 once admitted
    return gov


def _hammer(gov: govcore.Governance, threads: int, each: int) -> list[govcore.HttpResponse]:
    """``threads`` threads, started together, each sending ``each`` GETs with the limited key."""
    barrier = threading.Barrier(threads)
    answers: list[list[govcore.HttpResponse]] = [[] for _ in range(threads)]

    def run(index: int) -> None:
        barrier.wait()
        for _ in range(each):
            answers[index].append(gov.handle("GET", GET_PATH, bearer(LIMITED_KEY)))

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return [answer for per_thread in answers for answer in per_thread]


def _retry_after(response: govcore.HttpResponse) -> int:
    assert response.status == 429
    assert response.json()["error"] == "rate_limited"
    return int(response.headers["retry-after"])


def test_a_still_clock_admits_exactly_the_limit_under_contention() -> None:
    """16 threads hammering one key with limit 50 on a clock that does not move get exactly
    50 answers of 200 and 429 for the rest."""
    gov = _governance(FakeClock(START))
    answers = _hammer(gov, threads=16, each=12)
    statuses = [a.status for a in answers]
    assert statuses.count(200) == LIMIT
    assert statuses.count(429) == len(answers) - LIMIT
    assert all(1 <= _retry_after(a) <= WINDOW_SECONDS for a in answers if a.status == 429)


class SteppingClock:
    """A thread-safe clock that moves ``step`` seconds forward at every reading, and yields
    to other threads after each one."""

    def __init__(self, start: float, step: float) -> None:
        self._now = start
        self._step = step
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self._now += self._step
            now = self._now
        time.sleep(0)  # let other threads run between a reading and its use
        return now


class AdmissionLog:
    """A :class:`MemoryStore` wrapper noting, for each rate-limit decision, the store time it
    was made at and whether it admitted."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.backend_errors = inner.backend_errors
        self.decisions: list[tuple[float, bool]] = []

    def get(self, key: str) -> bytes | None:
        return self.inner.get(key)

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self.inner.set(key, value, expires_at=expires_at)

    def delete(self, key: str) -> None:
        self.inner.delete(key)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        if not key.startswith("rate:"):
            return self.inner.update(key, mutate)

        def noted(raw: bytes | None, now: float) -> StoreWrite[T]:
            write = mutate(raw, now)
            self.decisions.append((now, write.result is None))  # under the store's lock
            return write

        return self.inner.update(key, noted)

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        return self.inner.update_many(keys, mutate)


def _most_in_a_window(times: Sequence[float]) -> int:
    """The most of ``times`` in any half-open window ``[t, t + 60)``."""
    ordered = sorted(times)
    most, start = 0, 0
    for end, t in enumerate(ordered):
        while ordered[start] <= t - WINDOW_SECONDS:
            start += 1
        most = max(most, end - start + 1)
    return most


def test_a_moving_clock_never_admits_more_than_the_limit_in_any_window() -> None:
    """With a clock that moves a little at every reading and 16 threads, no 60 s window of
    store time holds more than 50 admissions, and the window slides."""
    clock = SteppingClock(START, step=0.25)
    store = AdmissionLog(MemoryStore(clock=clock))
    gov = _governance(clock, store)
    store.decisions.clear()  # the setup turn's, under another key
    answers = _hammer(gov, threads=16, each=60)
    admitted = [now for now, ok in store.decisions if ok]
    assert len(store.decisions) == len(answers)
    assert sum(a.status == 200 for a in answers) == len(admitted)
    assert _most_in_a_window(admitted) <= LIMIT
    span = max(now for now, _ in store.decisions) - min(now for now, _ in store.decisions)
    assert span > 3 * WINDOW_SECONDS  # several windows: the limit was refilled
    assert len(admitted) > 3 * LIMIT
    assert all(1 <= _retry_after(a) <= WINDOW_SECONDS for a in answers if a.status == 429)


@pytest.mark.parametrize("step_back", [30.0, 3600.0])
def test_retry_after_is_never_above_a_window_after_the_clock_steps_back(
    step_back: float,
) -> None:
    """After the limit is reached and the clock steps back, every 429 says retry within 60 s."""
    clock = FakeClock(START)
    gov = _governance(clock)
    for _ in range(LIMIT):
        assert gov.handle("GET", GET_PATH, bearer(LIMITED_KEY)).status == 200
    assert _retry_after(gov.handle("GET", GET_PATH, bearer(LIMITED_KEY))) <= WINDOW_SECONDS
    clock.now = START - step_back
    for _ in range(2 * WINDOW_SECONDS):
        response = gov.handle("GET", GET_PATH, bearer(LIMITED_KEY))
        if response.status == 200:
            break
        assert 1 <= _retry_after(response) <= WINDOW_SECONDS
        clock.advance(1)


@pytest.mark.parametrize("step_back", [30.0, 3600.0])
def test_a_clock_stepping_back_locks_a_key_out_for_at_most_one_window(
    step_back: float,
) -> None:
    """After the limit is reached and the clock steps back, the key is admitted again within
    60 s of the new clock time."""
    clock = FakeClock(START)
    gov = _governance(clock)
    for _ in range(LIMIT):
        assert gov.handle("GET", GET_PATH, bearer(LIMITED_KEY)).status == 200
    stepped_back_at = clock.now = START - step_back
    while clock.now <= stepped_back_at + WINDOW_SECONDS:
        response = gov.handle("GET", GET_PATH, bearer(LIMITED_KEY))
        if response.status == 200:
            return
        assert _retry_after(response) <= WINDOW_SECONDS
        clock.advance(1)
    pytest.fail(f"still refused {WINDOW_SECONDS} s after the clock stepped back")


# --- properties of the pure decision -----------------------------------------------------------


def _run(times: Sequence[float], limit: int) -> list[float | None]:
    """Each time's decision (None: admitted, else the wait), with a store's expiry modelled."""
    raw: bytes | None = None
    expires_at = math.inf
    results: list[float | None] = []
    for now in times:
        if raw is not None and now >= expires_at:
            raw = None  # the store drops an expired entry for good
        write = admit(raw, now, limit=limit)
        if write.value is not None:
            raw, expires_at = write.value, write.expires_at
        results.append(write.result)
    return results


steps = st.one_of(
    st.just(0.0),
    st.floats(0.0, 5.0),
    st.floats(0.0, 90.0),
    st.floats(-90.0, 0.0),
    st.sampled_from([-3600.0, -61.0, -60.0, -59.0, 60.0, 3600.0]),
)


@st.composite
def time_sequences(draw: st.DrawFn, step: st.SearchStrategy[float]) -> list[float]:
    deltas = draw(st.lists(step, min_size=1, max_size=80))
    times, now = [], START
    for delta in deltas:
        now += delta
        times.append(now)
    return times


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 6), time_sequences(steps))
def test_admit_never_exceeds_the_limit_in_a_window_as_the_clock_reads(
    limit: int, times: list[float]
) -> None:
    """Over any time sequence, steps back included, an admission at ``t`` has fewer than
    ``limit`` earlier admissions within 60 s before it; every wait is in [0, 60].

    With a clock that steps back, "within 60 s" is read the way a sliding window can keep it:
    an earlier admission's time is read as the earliest clock reading since (a time in the
    clock's future reads as now), and an admission that has once left the window stays out.
    On a monotonic clock this is exactly "at most ``limit`` in any 60 s window".
    """
    results = _run(times, limit)
    admitted: list[int] = []
    for i, result in enumerate(results):
        now = times[i]
        if result is not None:
            assert 0.0 <= result <= WINDOW_SECONDS
            continue
        counted = sum(1 for j in admitted if _still_in_window(times, j, i))
        assert counted < limit, (i, now)
        admitted.append(i)


def _still_in_window(times: Sequence[float], j: int, i: int) -> bool:
    """Whether the admission at ``times[j]`` stayed inside the window at every reading up to
    ``times[i]``, reading it as the earliest time seen since."""
    earliest = times[j]
    for now in times[j + 1 : i + 1]:
        earliest = min(earliest, now)
        if earliest <= now - WINDOW_SECONDS:
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    time_sequences(st.one_of(st.just(0.0), st.floats(0.0, 5.0), st.floats(0.0, 90.0))),
)
def test_admit_on_a_monotonic_clock_keeps_every_window_within_the_limit(
    limit: int, times: list[float]
) -> None:
    """On a clock that never steps back, no window [t, t + 60) of the times passed in holds
    more than ``limit`` admissions, and a refusal comes only with the window full."""
    results = _run(times, limit)
    admitted = [t for t, result in zip(times, results, strict=True) if result is None]
    assert _most_in_a_window(admitted) <= limit
    for i, result in enumerate(results):
        if result is not None:
            assert 0.0 <= result <= WINDOW_SECONDS
            before = [t for t, r in zip(times[:i], results[:i], strict=True) if r is None]
            assert sum(1 for t in before if t > times[i] - WINDOW_SECONDS) >= limit


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6), time_sequences(st.integers(-4000, 90).map(float)))
@example(1, [START + 1000.0, START])
def test_a_refused_caller_who_waits_retry_after_is_admitted(limit: int, times: list[float]) -> None:
    """A request refused with wait ``w`` is admitted when sent again ``ceil(w)`` seconds later,
    whatever the clock did before."""
    raw: bytes | None = None
    expires_at = math.inf
    for now in times:
        if raw is not None and now >= expires_at:
            raw = None
        write = admit(raw, now, limit=limit)
        if write.value is not None:
            raw, expires_at = write.value, write.expires_at
        if write.result is not None:
            retry_at = now + max(1, math.ceil(write.result))
            probe_raw = None if retry_at >= expires_at else raw
            assert admit(probe_raw, retry_at, limit=limit).result is None, (now, write.result)
