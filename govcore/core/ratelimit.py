"""Per-key rate limiting over a sliding 60-second window (pure arithmetic on the stored log)."""

from __future__ import annotations

import math
import struct
from bisect import bisect_right
from collections.abc import Sequence

from govcore.types import StoreWrite

__all__ = ["WINDOW_ENTRY_BYTES", "WINDOW_SECONDS", "admit", "retry_after_seconds"]

WINDOW_SECONDS = 60

_DOUBLE = struct.Struct("d")  # native order, as array("d") wrote earlier logs
WINDOW_ENTRY_BYTES = _DOUBLE.size
"""Bytes of one admitted request's time in the stored window."""


def admit(raw: bytes | None, now: float, *, limit: int) -> StoreWrite[float | None]:
    """Decide one request against the key's log of recent request times.

    At most ``limit`` requests are admitted in any ``WINDOW_SECONDS``-long window: the log holds
    the times of the admitted requests of the last window, oldest first. A refused request is
    not logged, so a caller who keeps retrying is admitted as soon as the oldest request ages out.

    A clock that stepped back sees logged times in its future; they are read as ``now`` (and
    stored so), so the window they fill ends at most ``WINDOW_SECONDS`` from now and a key is
    never locked out for longer than one window.

    Called inside the store's atomic update with the store's ``now``, so concurrent requests
    are decided one after the other on one log.

    Returns:
        A store write whose ``result`` is ``None`` when admitted, else the seconds to wait.
    """
    # The log is the raw bytes of native doubles, read in place and copied once, since a key
    # near a high limit carries thousands of entries on every request.
    times: Sequence[float] = memoryview(raw or b"").cast("d")
    clamped = bool(times) and times[-1] > now
    if clamped:
        # The clock stepped back: logged times in its future count as now, which keeps the log
        # sorted and ends the window they fill at most WINDOW_SECONDS from now.
        times = [min(t, now) for t in times]
    first = bisect_right(times, now - WINDOW_SECONDS)
    kept = times[first:]
    if len(kept) >= limit:
        wait = kept[len(kept) - limit] + WINDOW_SECONDS - now
        # A refusal changes nothing, unless the log had to be clamped: then it is stored so.
        value = _pack(kept) if clamped else None
        return StoreWrite(value=value, expires_at=now + WINDOW_SECONDS, result=max(wait, 0.0))
    logged = _pack(kept) if clamped else (raw or b"")[first * _DOUBLE.size :]
    return StoreWrite(
        value=logged + _DOUBLE.pack(now), expires_at=now + WINDOW_SECONDS, result=None
    )


def _pack(times: Sequence[float]) -> bytes:
    return struct.pack(f"{len(times)}d", *times)


def retry_after_seconds(wait: float) -> int:
    """Whole seconds for the ``retry-after`` header: never 0, never early."""
    return max(1, math.ceil(wait))
