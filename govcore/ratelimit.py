"""Per-key rate limiting over a sliding 60-second window, kept in the store."""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right

from govcore.types import StoreWrite

__all__ = ["WINDOW_SECONDS", "admit", "retry_after_seconds"]

WINDOW_SECONDS = 60


def admit(raw: bytes | None, *, now: float, limit: int) -> StoreWrite[float | None]:
    """Decide one request against the key's log of recent request times.

    At most ``limit`` requests are admitted in any ``WINDOW_SECONDS``-long window: the log holds
    the times of the admitted requests of the last window, oldest first. A refused request is
    not logged, so a caller who keeps retrying is admitted as soon as the oldest request ages out.

    Returns:
        A store write whose ``result`` is ``None`` when admitted, else the seconds to wait.
    """
    log = array("d")
    if raw:
        log.frombytes(raw)
    recent = log[bisect_right(log, now - WINDOW_SECONDS) :]
    if len(recent) >= limit:
        wait = recent[len(recent) - limit] + WINDOW_SECONDS - now
        return StoreWrite(value=None, expires_at=0.0, result=max(wait, 0.0))
    recent.append(now)
    return StoreWrite(value=recent.tobytes(), expires_at=now + WINDOW_SECONDS, result=None)


def retry_after_seconds(wait: float) -> int:
    """Whole seconds for the ``retry-after`` header: never 0, never early."""
    return max(1, math.ceil(wait))
