"""The rate limit is decided inside the store's atomic update, on the store's own time.

A sliding 60 s window: concurrent requests never get more than the limit admitted in any window,
and a clock that steps back must never lock a key out for more than one window.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import govcore
from govcore.backends.memory import MemoryStore, NamespaceCapacity
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


@pytest.mark.parametrize("step_back", [60.0, 3600.0])
def test_retry_after_is_never_above_a_window_after_the_clock_steps_back(
    step_back: float,
) -> None:
    """After the limit is reached and the clock steps back by a window or more, every 429 says
    retry within 60 s."""
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


@pytest.mark.parametrize("step_back", [60.0, 3600.0])
def test_a_clock_stepping_back_locks_a_key_out_for_at_most_one_window(
    step_back: float,
) -> None:
    """After the limit is reached and the clock steps back by a window or more, the key is
    admitted again within 60 s of the new clock time."""
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


def test_a_clock_stepping_back_less_than_a_window_keeps_the_limit() -> None:
    """After the limit is reached and the clock steps back 30 s, the key stays refused until
    one window after its requests as the clock read them (not 60 s after the step, which would
    admit a second limit's worth within one window of the first), and each 429 says so."""
    clock = FakeClock(START)
    gov = _governance(clock)
    for _ in range(LIMIT):
        assert gov.handle("GET", GET_PATH, bearer(LIMITED_KEY)).status == 200
    clock.now = START - 30.0
    assert _retry_after(gov.handle("GET", GET_PATH, bearer(LIMITED_KEY))) == 30 + WINDOW_SECONDS
    clock.now = START + WINDOW_SECONDS - 0.5
    assert _retry_after(gov.handle("GET", GET_PATH, bearer(LIMITED_KEY))) == 1
    clock.now = START + WINDOW_SECONDS
    assert gov.handle("GET", GET_PATH, bearer(LIMITED_KEY)).status == 200


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


# --- a clock that steps back: the limit on the requests' own times ------------------------------

WINDOW = float(WINDOW_SECONDS)

_MOVES = st.one_of(
    st.just(0.0),
    st.floats(0.0, 5.0),
    st.floats(0.0, 130.0),
    st.sampled_from([0.3, 60.0, 120.0, 1e-6]),
    st.floats(-WINDOW, 0.0),
    st.sampled_from([-0.3, -1e-6, -30.0, -59.999, -WINDOW]),
)


@st.composite
def readings_stepping_back_less_than_a_window(draw: st.DrawFn) -> list[float]:
    """Clock readings that each move from the one before, but never to a window or more behind
    the latest reading so far: two threads whose readings arrive out of order, or an NTP step
    back of under a minute, then the clock runs on from there."""
    moves = draw(st.lists(_MOVES, min_size=1, max_size=80))
    times, previous, latest = [], START, START
    for move in moves:
        now = max(previous + move, math.nextafter(latest - WINDOW, math.inf))
        times.append(now)
        previous, latest = now, max(latest, now)
    return times


@settings(max_examples=500, deadline=None)
@given(st.integers(1, 6), readings_stepping_back_less_than_a_window())
@example(4, [START + t for t in (0.0, 60.0, 59.7, 61.0, 62.0, 119.75, 119.76)])
@example(2, [START + t for t in (0.0, 1.0, 61.0, 30.0)])
def test_a_clock_stepping_back_less_than_a_window_keeps_the_limit_on_the_requests_own_times(
    limit: int, times: list[float]
) -> None:
    """No window [t, t + 60) of the times the clock read holds more than ``limit`` admissions,
    whatever the order the readings came in, as long as none is a window or more behind an
    earlier one. (The first example is the probe that found 5 admitted with a limit of 4: a
    reading 0.3 s behind the one before it; the second, a request that comes back within a
    window of older ones after the log had dropped them.)"""
    results = _run(times, limit)
    admitted = [t for t, result in zip(times, results, strict=True) if result is None]
    assert _most_in_a_window(admitted) <= limit


def _newest_logged(raw: bytes | None) -> float | None:
    times = memoryview(raw or b"").cast("d")
    return times[-1] if times else None


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 6), time_sequences(steps))
@example(1, [START, START - 30.0])
@example(3, [START, START, START, START - 3600.0])
def test_a_key_is_never_locked_out_beyond_one_window_past_its_newest_request(
    limit: int, times: list[float]
) -> None:
    """A refusal's wait ends at most one window after the newest request in the key's log, and
    at most one window from now once the clock reads a window or more behind that request (a
    large step back is taken as a reset of the clock, not as a minute-long lockout)."""
    raw: bytes | None = None
    expires_at = math.inf
    for now in times:
        if raw is not None and now >= expires_at:
            raw = None
        newest = _newest_logged(raw)
        write = admit(raw, now, limit=limit)
        if write.result is not None:
            assert newest is not None
            assert write.result >= 0.0
            if now <= newest - WINDOW:
                assert write.result <= WINDOW, (now, newest, write.result)
            else:
                assert now + write.result <= max(now, newest) + WINDOW, (now, newest)
        if write.value is not None:
            raw, expires_at = write.value, write.expires_at


# --- the memory store keeps the window in place -------------------------------------------------


def _decide(limit: int) -> Callable[[bytes | None, float], StoreWrite[float | None]]:
    return lambda raw, now: admit(raw, now, limit=limit)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    time_sequences(steps),
    st.integers(0, 79),
    st.sampled_from([10**9, 400, 250]),
)
@example(2, [START + 60.0 * i for i in range(6)], 0, 10**9)  # each admission trims the last
@example(1000, [START + i for i in range(40)], 99, 400)  # the window outgrows its budget
def test_the_memory_store_counts_requests_in_place_as_the_pure_rule_does(
    limit: int, times: list[float], overwritten_at: int, budget: int
) -> None:
    """``MemoryStore.admit_request`` (the window kept in place and appended to) answers every
    request as an ``update`` with the pure rule does, stores the same bytes with the same expiry,
    counts the same bytes against the namespace's budget and evicts what it evicts (a window
    larger than its namespace's budget is dropped); a window written by ``set`` in between (a
    restored or foreign one) is taken as it is."""
    key = "rate:k"
    clocks = FakeClock(START), FakeClock(START)
    capacities = {"rate": NamespaceCapacity(max_bytes=budget)}
    in_place = MemoryStore(clock=clocks[0], capacities=capacities)
    copied = MemoryStore(clock=clocks[1], capacities=capacities)
    for store in (in_place, copied):  # another key's window, used before this one's
        store.set("rate:other", bytes(8), expires_at=math.inf)
    for index, now in enumerate(times):
        for clock in clocks:
            clock.now = now
        if index == overwritten_at and copied.get(key) is not None:
            window = copied.get(key)
            assert window is not None
            for store in (in_place, copied):
                store.set(key, window, expires_at=now + 30.0)
        answer = in_place.admit_request(key, limit=limit, decide=_decide(limit), read=[key])
        assert answer.wait == copied.update(key, _decide(limit)), (index, now)
        if answer.wait is None:  # read after the admission, under the same lock
            assert answer.reads.values == {key: copied.get(key)}, (index, now)
        assert in_place.get(key) == copied.get(key), (index, now)
        assert in_place.usage() == copied.usage(), (index, now)
        assert in_place.evictions == copied.evictions, (index, now)


def test_a_long_window_in_the_memory_store_is_compacted_as_it_slides() -> None:
    """A key admitting a request every 10 ms for five minutes keeps two windows of them, no
    more: the times that left are dropped from the stored log, not only skipped."""
    clock = FakeClock(START)
    store = MemoryStore(clock=clock)
    for step in range(30_000):
        clock.now = START + step * 0.01
        assert store.admit_request("rate:k", limit=10**9, decide=_decide(10**9)).wait is None
    window = store.get("rate:k")
    assert window is not None
    kept = memoryview(window).cast("d")
    assert kept[0] >= clock.now - 2 * WINDOW_SECONDS
    assert 11_999 <= len(kept) <= 12_001  # two windows of 10 ms steps (floats at the edge)
    log = store._namespaces["rate"].entries["rate:k"][1]
    assert not isinstance(log, bytes)
    assert len(log.times) <= 2 * len(kept)  # dropped times are let go, half a log at most


class _UpdatingStore(MemoryStore):
    """A memory store whose updates are counted (a subclass keeps its own ``update``)."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock=clock)
        self.updates = 0

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        self.updates += 1
        return super().update(key, mutate)


def test_the_service_admits_in_place_on_the_memory_stores_and_by_update_on_a_subclass() -> None:
    """The admission keeps the window in place on the in-memory store, blocking and asyncio
    (the limit is the same: the limited key is refused after its 50th request either way), and
    goes through ``update`` on a subclass of it, which may have overridden ``update``."""
    clock = FakeClock(START)
    blocking = MemoryStore(clock=clock)
    aio = govcore.AsyncMemoryStore(MemoryStore(clock=clock))
    subclass = _UpdatingStore(clock)
    govs = [
        govcore.Governance.from_config(_config(), clock=clock, store=blocking),
        govcore.Governance.from_config(_config(), clock=clock, store=subclass),
    ]
    agov = govcore.AsyncGovernance.from_config(_config(), clock=clock, store=aio)
    # The asyncio twin of a subclass goes through the subclass's update, as its blocking use does.
    async_subclass = _UpdatingStore(clock)
    agov_subclass = govcore.AsyncGovernance.from_config(
        _config(), clock=clock, store=govcore.AsyncMemoryStore(async_subclass)
    )

    async def send_async(agov: govcore.AsyncGovernance = agov) -> int:
        return (await agov.handle("GET", GET_PATH, bearer(LIMITED_KEY), None)).status

    for gov in govs:
        statuses = [
            gov.handle("GET", GET_PATH, bearer(LIMITED_KEY), None).status for _ in range(51)
        ]
        assert statuses == [404] * LIMIT + [429]
    for governance in (agov, agov_subclass):
        statuses = [asyncio.run(send_async(governance)) for _ in range(51)]
        assert statuses == [404] * LIMIT + [429]
    assert async_subclass.updates == 51
    for store in (blocking, aio.blocking_twin()):
        [log] = [entry[1] for entry in store._namespaces["rate"].entries.values()]
        assert not isinstance(log, bytes)  # kept in place, not rewritten as bytes
    [log] = [entry[1] for entry in subclass._namespaces["rate"].entries.values()]
    assert isinstance(log, bytes)
    assert subclass.updates == 51
