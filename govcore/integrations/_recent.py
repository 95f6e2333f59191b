"""Bounded memories the adapters keep per conversation: the latest keys, the oldest forgotten.

What an adapter remembers (the ids it has recorded, texts it has checked) only saves requests:
the store keeps the ids that make a turn count once. So a memory can be bounded, and a long
conversation does not grow one for ever; a key it has forgotten costs one more request.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

__all__ = ["Recent", "RecentIds"]

V = TypeVar("V")


class Recent(OrderedDict[str, V]):
    """A dict that keeps the latest ``limit`` keys set (the oldest forgotten first)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit

    def __setitem__(self, key: str, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


class RecentIds(Recent[None]):
    """A set of ids that keeps the latest ``limit`` added."""

    def add(self, key: str) -> None:
        self[key] = None
