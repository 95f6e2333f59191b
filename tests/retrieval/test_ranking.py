"""What every index does with its scores: the area restriction, the floor and the top-K."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from govcore.retrieval.ranking import (
    RankedIndex,
    RelevanceThresholds,
    Scores,
    relevance_floor,
    top_hits,
)

THRESHOLDS = RelevanceThresholds(min_relevance=0.1, relative_relevance=0.7)


class FixedIndex(RankedIndex):
    """Scores every query the same; counts how often it is asked."""

    def __init__(
        self,
        scores: Sequence[float],
        areas: Sequence[str | None],
        thresholds: RelevanceThresholds = THRESHOLDS,
    ) -> None:
        super().__init__(areas, thresholds)
        self.fixed = np.asarray(scores, dtype=np.float64)
        self.asked = 0

    def scores(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        self.asked += 1
        return self.fixed.copy()


def test_the_floor_is_the_minimum_or_a_share_of_the_best_and_never_zero() -> None:
    thresholds = RelevanceThresholds(min_relevance=0.2, relative_relevance=0.5)
    assert thresholds.floor(0.3) == 0.2
    assert thresholds.floor(0.8) == 0.4
    assert relevance_floor(0.0, 0.0, 0.5) == 1e-9
    assert thresholds.as_dict() == {"min_relevance": 0.2, "relative_relevance": 0.5}


def test_top_hits_are_the_best_at_or_above_the_floor_ties_by_position() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.2, 0.7, 0.5])
    hits = top_hits(scores, floor=0.5, top_k=6)
    assert [(h.position, h.score) for h in hits] == [
        (1, 0.9), (4, 0.7), (0, 0.5), (2, 0.5), (5, 0.5),
    ]  # fmt: skip
    assert [h.position for h in top_hits(scores, floor=0.5, top_k=2)] == [1, 4]
    assert top_hits(scores, floor=0.95, top_k=6) == []


def test_search_ranks_the_scores_by_the_floor_of_the_best() -> None:
    """A policy scoring under ``relative_relevance`` of the best is no hit."""
    index = FixedIndex([0.3, 0.9, 0.6, 0.05], ["a", "a", "b", None])
    assert [h.position for h in index.search("q", top_k=6)] == [1]
    assert [h.position for h in index.search("q", top_k=6, areas=frozenset({"a", "b"}))] == [1]


def test_areas_leave_the_others_out_of_the_hits_and_of_the_floor() -> None:
    """Outside ``areas`` a policy is no candidate: not a hit, and its score does not raise the
    floor of the candidates (0.6 is a hit among area b alone, though under 0.7 of 0.9)."""
    index = FixedIndex([0.3, 0.9, 0.6, 0.05], ["a", "a", "b", None])
    hits = index.search("q", top_k=6, areas=frozenset({"b"}))
    assert [(h.position, h.score) for h in hits] == [(2, 0.6)]
    assert index.search("q", top_k=6, areas=frozenset({"c"})) == []
    assert index.area_mask(frozenset({"a"})).tolist() == [True, True, False, False]


def test_a_policy_without_an_area_is_in_no_named_area() -> None:
    index = FixedIndex([0.5, 0.5], [None, "a"])
    assert [h.position for h in index.search("q", top_k=6, areas=frozenset({"a"}))] == [1]


@pytest.mark.parametrize(("scores", "top_k"), [([], 3), ([0.9], 0), ([0.9], -1)])
def test_nothing_to_find_scores_nothing(scores: list[float], top_k: int) -> None:
    """An empty index, or a top-K of 0, returns no hits without scoring the query."""
    index = FixedIndex(scores, ["a"] * len(scores))
    assert index.search("q", top_k=top_k) == []
    assert index.asked == 0
