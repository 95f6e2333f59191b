"""What every retrieval index does with its scores: the area restriction, the relevance floor
and the top-K hits, written once for all of govcore's indexes.

An index scores every policy of its set (dense, in policy order) and subclasses
:class:`RankedIndex`, which turns those scores into the hits of ``search``; its ``explain``
uses the same :meth:`RankedIndex.area_mask` and :meth:`RankedIndex.floor`, so both agree.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from govcore.types import RetrievalHit

__all__ = ["RankedIndex", "RelevanceThresholds", "Scores", "relevance_floor", "top_hits"]

Scores = npt.NDArray[np.float64]
"""One score per policy, in index order."""

# Distinct area sets seen in requests are few (a tenant's end-user attributes), but they come
# from callers: the cache of their masks stops growing here.
_AREA_MASKS_KEPT = 1024


@dataclass(frozen=True, slots=True)
class RelevanceThresholds:
    """Which scores are hits: at least ``min_relevance``, and at least ``relative_relevance``
    times the best score of the query (so a clear match does not drag weak neighbours in)."""

    min_relevance: float
    relative_relevance: float

    def floor(self, best_score: float) -> float:
        """The lowest score a policy needs when the best candidate scores ``best_score``."""
        return relevance_floor(best_score, self.min_relevance, self.relative_relevance)

    def as_dict(self) -> dict[str, float]:
        """The thresholds by setting name, as explanations report them."""
        return {"min_relevance": self.min_relevance, "relative_relevance": self.relative_relevance}


def relevance_floor(best_score: float, min_relevance: float, relative_relevance: float) -> float:
    """The lowest score a policy needs: the minimum relevance, and a fraction of the best score
    (so a clear match does not drag weak neighbours in with it); never 0."""
    return max(min_relevance, relative_relevance * best_score, 1e-9)


def top_hits(scores: Scores, floor: float, top_k: int) -> list[RetrievalHit]:
    """The at most ``top_k`` best-scoring positions at or above ``floor``, best first (ties by
    position)."""
    candidates = np.flatnonzero(scores >= floor)
    if len(candidates) > top_k:
        # Top-K by partial selection, then sort only those K.
        best = np.argpartition(scores[candidates], -top_k)[-top_k:]
        candidates = candidates[best]
    order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
    return [RetrievalHit(position=i, score=float(scores[i])) for i in order]


class RankedIndex(ABC):
    """An index of one policy set that scores every policy; ``search`` ranks those scores.

    The relative part of the floor is a fraction of the best score of the *message alone*
    (:meth:`led_scores`): the context of a turn may add a policy the message leaves unclear,
    but a subject the context scores highly never pushes the message's own subject under the
    cut.

    Args:
        areas: each policy's area (``None`` for none), in index order; its length is the
            index's size.
        thresholds: the relevance floor's settings.
    """

    def __init__(self, areas: Sequence[str | None], thresholds: RelevanceThresholds) -> None:
        self.thresholds = thresholds
        self._size = len(areas)
        self._areas = np.array([a if a is not None else "" for a in areas], dtype=object)
        self._area_masks: dict[frozenset[str], npt.NDArray[np.bool_]] = {}

    def __len__(self) -> int:
        return self._size

    @abstractmethod
    def scores(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        """The score of every policy for the turn (dense, in index order)."""

    def led_scores(self, query: str, *, context: Sequence[str] = ()) -> tuple[Scores, Scores]:
        """The turn's scores, and the scores of the message alone that lead the relative cut
        (an index that reads the context apart from the message overrides this; by default
        the two are the same)."""
        scores = self.scores(query, context=context)
        return scores, scores

    def search(
        self,
        query: str,
        *,
        top_k: int,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> list[RetrievalHit]:
        """The at most ``top_k`` best policies (of ``areas`` when given) scoring at least the
        floor, best first."""
        if self._size == 0 or top_k <= 0:
            return []
        scores, lead = self.led_scores(query, context=context)
        scores = self.restricted(scores, areas)
        return top_hits(scores, self.floor(float(self.restricted(lead, areas).max())), top_k)

    def floor(self, best_score: float) -> float:
        """The lowest score a hit needs when the best candidate scores ``best_score``."""
        return self.thresholds.floor(best_score)

    def restricted(self, scores: Scores, areas: frozenset[str] | None) -> Scores:
        """``scores`` with the policies outside ``areas`` at 0 (they are no candidates)."""
        return scores if areas is None else np.where(self.area_mask(areas), scores, 0.0)

    def area_mask(self, areas: frozenset[str]) -> npt.NDArray[np.bool_]:
        """Which policies' area is one of ``areas`` (a policy without one has the area ``""``,
        so it is in no named area)."""
        mask = self._area_masks.get(areas)
        if mask is None:
            mask = np.isin(self._areas, list(areas))
            if len(self._area_masks) < _AREA_MASKS_KEPT:
                self._area_masks[areas] = mask
        return mask
