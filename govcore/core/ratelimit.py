"""Per-key rate limiting over a sliding 60-second window, kept in the store."""

from __future__ import annotations

import math
import struct
from bisect import bisect_right

from govcore.types import StoreWrite

__all__ = ["WINDOW_SECONDS", "admit", "retry_after_seconds"]

WINDOW_SECONDS = 60

_DOUBLE = struct.Struct("d")  # native order, as array("d") wrote earlier logs


def admit(raw: bytes | None, *, now: float, limit: int) -> StoreWrite[float | None]:
    """Decide one request against the key's log of recent request times.

    At most ``limit`` requests are admitted in any ``WINDOW_SECONDS``-long window: the log holds
    the times of the admitted requests of the last window, oldest first. A refused request is
    not logged, so a caller who keeps retrying is admitted as soon as the oldest request ages out.

    Returns:
        A store write whose ``result`` is ``None`` when admitted, else the seconds to wait.
    """
    # The log is the raw bytes of native doubles, read in place and copied once, since a key
    # near a high limit carries thousands of entries on every request.
    times = memoryview(raw or b"").cast("d")
    first = bisect_right(times, now - WINDOW_SECONDS)
    if len(times) - first >= limit:
        wait = times[len(times) - limit] + WINDOW_SECONDS - now
        return StoreWrite(value=None, expires_at=0.0, result=max(wait, 0.0))
    value = b"".join((times[first:], _DOUBLE.pack(now)))
    return StoreWrite(value=value, expires_at=now + WINDOW_SECONDS, result=None)


def retry_after_seconds(wait: float) -> int:
    """Whole seconds for the ``retry-after`` header: never 0, never early."""
    return max(1, math.ceil(wait))
