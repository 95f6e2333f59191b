"""What a facade reports when its metrics are scraped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Readings"]


@dataclass(frozen=True, slots=True)
class Readings:
    """What a facade reports when metrics are scraped (counted elsewhere, read only then).

    Attributes:
        decisions_dropped: decision records dropped because the queue to the sink was full.
        evictions: entries the store evicted for capacity, by namespace (a store that counts
            them: the memory store; Redis counts its own, as ``evicted_keys`` in ``INFO``).
        policy_set_versions: the version of the policy set each tenant serves.
    """

    decisions_dropped: int = 0
    evictions: Mapping[str, int] = field(default_factory=dict)
    policy_set_versions: Mapping[str, str] = field(default_factory=dict)
