"""Per-key rate limiting over a sliding 60-second window (pure arithmetic on the stored log)."""

from __future__ import annotations

import math
import struct
from bisect import bisect_right
from collections.abc import Sequence

from govcore.types import StoreWrite

__all__ = [
    "WINDOW_ENTRY_BYTES",
    "WINDOW_SECONDS",
    "admit",
    "admit_in_order",
    "retry_after_seconds",
]

WINDOW_SECONDS = 60

_DOUBLE = struct.Struct("d")  # native order, as array("d") wrote earlier logs
WINDOW_ENTRY_BYTES = _DOUBLE.size
"""Bytes of one admitted request's time in the stored window."""


def admit(raw: bytes | None, now: float, *, limit: int) -> StoreWrite[float | None]:
    """Decide one request against the key's log of recent request times.

    At most ``limit`` requests are admitted in any ``WINDOW_SECONDS``-long window of the times
    the clock read for them. The log holds those times, sorted; a refused request is not
    logged, so a caller who keeps retrying is admitted as soon as the oldest request ages out.

    A clock may step back (two threads whose readings arrive out of order, an NTP step):

    - By less than a window, the logged times in its future keep their own times. The request
      is refused when ``limit`` logged times within a window of ``now`` (on either side) fit
      in one window with it, and waits until the newest such group's first time leaves. So
      the limit holds on the times as read, and a key waits at most one window past its newest
      logged request. (Reading them as ``now`` moved them earlier, so they left the window
      early and let more than the limit through.)
    - By a window or more, the clock is taken as reset: logged times in its future count as
      ``now`` and are stored so, so a key is never locked out for more than one window.

    Times are kept for two windows past the newest: a clock that steps back by less than a
    window can bring a new request within a window of times more than one window old.

    Called inside the store's atomic update with the store's ``now``, so concurrent requests
    are decided one after the other on one log.

    Returns:
        A store write whose ``result`` is ``None`` when admitted, else the seconds to wait.
    """
    # The log is the raw bytes of native doubles, read in place and copied once, since a key
    # near a high limit carries thousands of entries on every request.
    old = raw or b""
    times: Sequence[float] = memoryview(old).cast("d")
    if times and times[-1] > now:
        return _after_step_back(times, now, limit)
    expires_at = now + 2 * WINDOW_SECONDS
    wait, kept_from = admit_in_order(times, 0, now, limit=limit)
    if wait is not None:
        return StoreWrite(value=None, expires_at=expires_at, result=wait)
    # One copy of the kept times (slicing bytes and then concatenating would be two): a key
    # near a high limit, a streaming one say, logs thousands of requests a minute.
    logged = b"".join((memoryview(old)[kept_from * _DOUBLE.size :], _DOUBLE.pack(now)))
    return StoreWrite(value=logged, expires_at=expires_at, result=None)


def admit_in_order(
    times: Sequence[float], first: int, now: float, *, limit: int
) -> tuple[float | None, int]:
    """:func:`admit` in its usual case, every logged time at or before ``now``, on the log
    ``times[first:]`` (sorted), for a store that keeps the log in place and appends to it.

    Returns:
        ``(wait, kept_from)``: ``wait`` is ``None`` when the request is admitted (then ``now``
        is logged after ``times[kept_from:]``, the times kept), else the seconds to wait (and
        the log stays as it was).
    """
    # The last ``limit`` logged times fill the window when they are all inside it.
    inside = bisect_right(times, now - WINDOW_SECONDS, first)
    if len(times) - inside >= limit:
        return max(times[len(times) - limit] + WINDOW_SECONDS - now, 0.0), first
    return None, bisect_right(times, now - 2 * WINDOW_SECONDS, first, inside)


def _after_step_back(times: Sequence[float], now: float, limit: int) -> StoreWrite[float | None]:
    """:func:`admit` when the newest logged time is in the clock's future."""
    reset = now <= times[-1] - WINDOW_SECONDS
    if reset:
        times = [min(t, now) for t in times]
    newest = max(times[-1], now)
    kept_from = bisect_right(times, newest - 2 * WINDOW_SECONDS)
    expires_at = newest + 2 * WINDOW_SECONDS
    wait = _wait(times[bisect_right(times, now - WINDOW_SECONDS) :], now, limit)
    if wait is not None:
        # A refusal changes nothing, unless the clock was reset: then the log is stored so.
        value = _pack(times[kept_from:]) if reset else None
        return StoreWrite(value=value, expires_at=expires_at, result=wait)
    at = bisect_right(times, now)
    return StoreWrite(
        value=_pack([*times[kept_from:at], now, *times[at:]]), expires_at=expires_at, result=None
    )


def _wait(recent: Sequence[float], now: float, limit: int) -> float | None:
    """The seconds until a request at ``now`` would be admitted, or None if it is now.

    ``recent`` are the logged times after ``now - WINDOW_SECONDS``, sorted, all less than a
    window after ``now``. Any ``limit`` of them spanning less than a window fit in one window
    with ``now``; the wait runs until the last such group's first time leaves.
    """
    for first in range(len(recent) - limit, -1, -1):
        if recent[first + limit - 1] - recent[first] < WINDOW_SECONDS:
            return max(recent[first] + WINDOW_SECONDS - now, 0.0)
    return None


def _pack(times: Sequence[float]) -> bytes:
    return struct.pack(f"{len(times)}d", *times)


def retry_after_seconds(wait: float) -> int:
    """Whole seconds for the ``retry-after`` header: never 0, never early."""
    return max(1, math.ceil(wait))
