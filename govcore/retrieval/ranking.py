"""What every retrieval index does with its scores: the relevance floor and the top-K hits."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from govcore.types import RetrievalHit

__all__ = ["relevance_floor", "top_hits"]


def relevance_floor(best_score: float, min_relevance: float, relative_relevance: float) -> float:
    """The lowest score a policy needs: the minimum relevance, and a fraction of the best score
    (so a clear match does not drag weak neighbours in with it); never 0."""
    return max(min_relevance, relative_relevance * best_score, 1e-9)


def top_hits(scores: npt.NDArray[np.float64], floor: float, top_k: int) -> list[RetrievalHit]:
    """The at most ``top_k`` best-scoring positions at or above ``floor``, best first (ties by
    position)."""
    candidates = np.flatnonzero(scores >= floor)
    if len(candidates) > top_k:
        # Top-K by partial selection, then sort only those K.
        best = np.argpartition(scores[candidates], -top_k)[-top_k:]
        candidates = candidates[best]
    order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
    return [RetrievalHit(position=i, score=float(scores[i])) for i in order]
