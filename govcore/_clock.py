"""The one place that reads the system clock; everything else gets a clock passed in."""

from __future__ import annotations

import time

__all__ = ["system_clock"]


def system_clock() -> float:
    """The current epoch time in seconds: the default clock."""
    return time.time()  # noqa: TID251
