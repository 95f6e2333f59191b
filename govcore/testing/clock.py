"""A clock that only moves when told to."""

from __future__ import annotations

__all__ = ["FakeClock"]


class FakeClock:
    """A zero-argument callable returning ``now``; :meth:`advance` moves it forward."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward."""
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        self.now += seconds
