"""The hybrid index: a TF-IDF index and sentence embeddings, fused into one score.

A lexical index finds a policy only through the words (and lexicon phrases) a message shares
with it; "the seam on my rucksack split on its first outing" shares none with a policy on
faulty goods. A sentence-embedding model places both near each other. Each alone has a known
failure: the lexical score misses paraphrases, and the semantic one sees every message about
the business as somewhat similar to every policy. The fused score needs either a clear lexical
match or a semantic similarity well above the model's background level.

Everything the index needs is given to it: the lexical :class:`TfidfIndex` (or none), an
:class:`~govcore.retrieval.embedding.Embedder` with its caches, and a :class:`HybridScoring`.
The retriever in :mod:`govcore.backends.hybrid` reads those from settings, loads the model and
calls :func:`build_index`. This module needs NumPy only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from govcore.policy import PolicyDocument
from govcore.retrieval.calibration import (
    Calibration,
    CalibrationOptions,
    calibration_messages,
    enough_examples,
    fit_thresholds,
    off_topic_messages,
)
from govcore.retrieval.embedding import Embedder, EmbeddingCache, QueryEmbeddings
from govcore.retrieval.ranking import RankedIndex, RelevanceThresholds, Scores
from govcore.types import IndexExplanation, PolicyScore

if TYPE_CHECKING:
    from govcore.retrieval.tfidf_index import TfidfIndex

__all__ = ["HybridIndex", "HybridScoring", "build_index", "document_text", "query_vector"]


@dataclass(frozen=True, slots=True)
class HybridScoring:
    """How a :class:`HybridIndex` embeds policies and turns and fuses their scores.

    Attributes:
        lexical_weight: the share of the lexical score in the fused score, in [0, 1].
        semantic_floor: centred cosines at or below it count as no similarity at all.
        centering: this fraction of the turn's mean cosine over all policies is taken off
            each cosine before the floor.
        min_relevance: the lowest fused score a hit may have.
        relative_relevance: a hit also scores at least this fraction of the best score.
        context_weight: the turn's vector is ``message + context_weight * mean(context)``.
        query_chars: a longer message or context turn is embedded by its first and last
            ``query_chars / 2`` characters.
        text_chars: how many characters of a policy's ``text`` its document vector reads.
        context_discount: with context, a policy keeps the better of its fused score for the
            message alone and this times its fused score for the message with its context.
        calibration: how to calibrate on the policies' examples; ``None`` never calibrates.
    """

    lexical_weight: float
    semantic_floor: float
    centering: float
    min_relevance: float
    relative_relevance: float
    context_weight: float
    query_chars: int
    text_chars: int
    context_discount: float = 1.0
    calibration: CalibrationOptions | None = None

    @property
    def thresholds(self) -> RelevanceThresholds:
        """The relevance floor's settings."""
        return RelevanceThresholds(self.min_relevance, self.relative_relevance)


def document_text(policy: PolicyDocument, text_chars: int) -> str:
    """The text a policy's document vector is computed from: what the policy is about, most
    telling first (the model reads at most its first 256 tokens), with at most ``text_chars``
    characters of its ``text``."""
    parts = [f"{policy.title.strip().rstrip('.')}.", policy.summary.strip()]
    if policy.tags:
        parts.append(f"Topics: {', '.join(policy.tags)}.")
    text = " ".join(policy.text.split())
    if text and text_chars:
        parts.append(_head(text, text_chars))
    return " ".join(part for part in parts if part)


def query_vector(
    queries: QueryEmbeddings,
    query: str,
    context: Sequence[str],
    *,
    query_chars: int,
    context_weight: float,
) -> npt.NDArray[np.float32] | None:
    """The unit vector a turn is compared with, or ``None`` for a turn with no text: the
    message plus ``context_weight`` times the mean of the context turns, each bounded to
    ``query_chars``."""
    texts = [_bounded(query, query_chars)] if query.strip() else []
    if context_weight > 0.0:
        texts += [_bounded(turn, query_chars) for turn in context if turn.strip()]
    if not texts:
        return None
    vectors = queries.embed(texts)
    has_message = bool(query.strip())
    vector = vectors[0].copy() if has_message else np.zeros(vectors.shape[1], np.float32)
    if len(vectors) > int(has_message):
        vector += context_weight * vectors[int(has_message) :].mean(axis=0)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0.0 else None


def build_index(
    policies: Sequence[PolicyDocument],
    lexical: TfidfIndex | None,
    embedder: Embedder,
    cache: EmbeddingCache,
    queries: QueryEmbeddings,
    scoring: HybridScoring,
) -> HybridIndex:
    """Embed ``policies`` (read from ``cache`` when it has them): one document vector per
    policy (see :func:`document_text`) and one per example phrase."""
    documents = [document_text(policy, scoring.text_chars) for policy in policies]
    examples = [
        (position, example.strip())
        for position, policy in enumerate(policies)
        for example in policy.examples
        if example.strip()
    ]
    vectors = cache.embeddings(embedder, [*documents, *(t for _, t in examples)])
    owners = np.fromiter((p for p, _ in examples), dtype=np.int64, count=len(examples))
    index = HybridIndex(
        lexical,
        queries,
        scoring,
        vectors,
        owners,
        [p.area for p in policies],
        [t for _, t in examples],
    )
    options = scoring.calibration
    counts = np.bincount(owners, minlength=len(policies)).tolist()
    if options is not None and enough_examples(counts, options, scoring.min_relevance):
        generic = cache.embeddings(embedder, list(off_topic_messages()))
        index.calibrate(options, generic)
    return index


class HybridIndex(RankedIndex):
    """One policy set's lexical index and embeddings (an ``ExplainableIndex``).

    A policy's semantic similarity to a turn is the best cosine among its document and example
    vectors. Scores are fused as::

        semantic = clip((cosine - semantic_floor) / (1 - semantic_floor), 0, 1)
        score = lexical_weight * lexical + (1 - lexical_weight) * semantic

    (the semantic part alone without a lexical index), after ``centering`` times the turn's
    mean cosine over all policies is taken off each cosine.
    """

    def __init__(
        self,
        lexical: TfidfIndex | None,
        queries: QueryEmbeddings,
        scoring: HybridScoring,
        vectors: npt.NDArray[np.float32],
        example_owners: npt.NDArray[np.int64],
        areas: Sequence[str | None],
        example_texts: Sequence[str] = (),
    ) -> None:
        super().__init__(areas, scoring.thresholds)
        self.scoring = scoring
        self._lexical = lexical
        self._queries = queries
        # Rows 0..size-1 are the policies' documents, in policy order; the rest are example
        # phrases, each owned by the policy at the same place in example_owners.
        self._vectors = vectors
        self._example_owners = example_owners
        self._example_texts = list(example_texts)
        self.calibration: Calibration | None = None

    def calibrate(
        self, options: CalibrationOptions, generic_vectors: npt.NDArray[np.float32]
    ) -> Calibration:
        """Fit per-policy thresholds on the messages each policy is not for (other policies'
        examples, whose vectors the index holds, and the generic messages, embedded as
        ``generic_vectors``), and score with them from now on."""
        self.calibration = None
        owners = self._example_owners.tolist()
        rows, generic = calibration_messages(owners, options)
        examples = self._vectors[self._size :]
        negatives = chain(
            (
                (owners[row], self._fused_alone(self._example_texts[row], examples[row]))
                for row in rows
            ),
            (
                (-1, self._fused_alone(message, vector))
                for message, vector in zip(generic, generic_vectors, strict=True)
            ),
        )
        calibration = fit_thresholds(
            negatives, len(rows) + len(generic), self._size, self.thresholds.min_relevance, options
        )
        self.calibration = calibration
        return calibration

    def _fused_alone(self, text: str, vector: npt.NDArray[np.float32]) -> Scores:
        """The uncalibrated fused scores of a message with no context, from its vector."""
        lexical = None if self._lexical is None else self._lexical.scores(text)
        return self.fuse(lexical, self._best_cosines(vector)[0])

    @property
    def vectors(self) -> npt.NDArray[np.float32]:
        """The policy embeddings: one document row per policy (in order), then the examples."""
        return self._vectors

    def cosines(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        """Each policy's best cosine similarity to the turn (0 for a turn with no text)."""
        return self._cosines(query, context)[0]

    def _cosines(self, query: str, context: Sequence[str]) -> tuple[Scores, dict[int, str]]:
        """The best cosines, and the example phrases that gave a policy its best one."""
        scoring = self.scoring
        vector = query_vector(
            self._queries,
            query,
            context,
            query_chars=scoring.query_chars,
            context_weight=scoring.context_weight,
        )
        if vector is None or self._size == 0:
            return np.zeros(self._size), {}
        return self._best_cosines(vector)

    def _best_cosines(self, vector: npt.NDArray[np.float32]) -> tuple[Scores, dict[int, str]]:
        similarities = self._vectors @ vector
        best = similarities[: self._size].astype(np.float64)
        closest: dict[int, str] = {}
        if len(self._example_owners):
            from_examples = similarities[self._size :]
            np.maximum.at(best, self._example_owners, from_examples)
            for row in np.flatnonzero(from_examples >= best[self._example_owners]).tolist():
                closest.setdefault(int(self._example_owners[row]), self._example_texts[row])
        return best, closest

    def parts(self, query: str, *, context: Sequence[str] = ()) -> tuple[Scores | None, Scores]:
        """The lexical scores (``None`` without a lexical half) and the cosines of every policy."""
        lexical = None if self._lexical is None else self._lexical.scores(query, context=context)
        return lexical, self.cosines(query, context=context)

    def fuse(self, lexical: Scores | None, cosines: Scores) -> Scores:
        """The fused scores, in [0, 1], from the parts :meth:`parts` returns."""
        scoring = self.scoring
        floor = scoring.semantic_floor
        if scoring.centering and len(cosines) > 1:
            # How far a policy stands out from this message's similarity to the policy set as
            # a whole: a message about the business is somewhat similar to all its policies.
            cosines = cosines - scoring.centering * float(np.mean(cosines))
        semantic = np.clip((cosines - floor) / (1.0 - floor), 0.0, 1.0)
        if lexical is None:
            return semantic
        weight = scoring.lexical_weight
        fused: Scores = weight * np.clip(lexical, 0.0, 1.0) + (1.0 - weight) * semantic
        return fused

    def scores(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        """The fused score of every policy (dense, in index order): with context, the better
        of the message alone and ``context_discount`` times the message with its context;
        scaled by each policy's calibrated threshold when the index is calibrated."""
        return self.led_scores(query, context=context)[0]

    def led_scores(self, query: str, *, context: Sequence[str] = ()) -> tuple[Scores, Scores]:
        """The turn's scores and those of the message alone (see :class:`RankedIndex`)."""
        # One lexical pass gives both: the turn's scores and the message's alone.
        lexical_with: Scores | None = None
        lexical_alone: Scores | None = None
        if self._lexical is not None:
            lexical_with, lexical_alone = self._lexical.led_scores(query, context=context)
        alone = self.fuse(lexical_alone, self.cosines(query))
        scores = alone
        if any(text.strip() for text in context) and self.scoring.context_weight > 0.0:
            with_context = self.fuse(lexical_with, self.cosines(query, context=context))
            scores = np.maximum(alone, self.scoring.context_discount * with_context)
        if self.calibration is not None:
            relevance = self.calibration.relevance
            if scores is alone:  # no context: one array, scaled once
                scaled = relevance(alone)
                return scaled, scaled
            return relevance(scores), relevance(alone)
        return scores, alone

    def explain(
        self,
        query: str,
        *,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> IndexExplanation:
        """Every candidate policy's fused score with its lexical and semantic parts.

        ``lexical``, ``terms`` and ``example`` come from the lexical index's own explanation;
        ``semantic`` is the policy's best cosine, and when that was one of its example phrases,
        ``example`` names that phrase instead.
        """
        thresholds = {**self.thresholds.as_dict(), "semantic_floor": self.scoring.semantic_floor}
        if self._size == 0:
            return IndexExplanation(scores=(), thresholds=thresholds, floor=self.floor(0.0))
        lexical_parts: dict[int, PolicyScore] = {}
        lexical: Scores | None = None
        if self._lexical is not None:
            explained_lexically = self._lexical.explain(query, context=context)
            lexical_parts = {part.position: part for part in explained_lexically.scores}
            lexical = np.array([lexical_parts[i].score for i in range(self._size)])
        cosines, closest_example = self._cosines(query, context)
        led, alone = self.led_scores(query, context=context)
        scores = self.restricted(led, areas)
        positions = (
            range(self._size) if areas is None else np.flatnonzero(self.area_mask(areas)).tolist()
        )
        explained = []
        for i in sorted(positions, key=lambda i: (-scores[i], i)):
            words = lexical_parts.get(i)
            example = closest_example.get(i) or (words.example if words is not None else None)
            explained.append(
                PolicyScore(
                    position=i,
                    score=float(scores[i]),
                    lexical=None if lexical is None else float(lexical[i]),
                    semantic=float(cosines[i]),
                    terms=words.terms if words is not None else (),
                    example=example,
                )
            )
        if self.calibration is not None:
            thresholds.update(self.calibration.describe())
        return IndexExplanation(
            scores=tuple(explained),
            thresholds=thresholds,
            floor=self.floor(float(self.restricted(alone, areas).max())),
        )


def _head(text: str, limit: int) -> str:
    """At most ``limit`` characters of ``text``, cut at a word boundary when there is one."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def _bounded(text: str, limit: int) -> str:
    """``text``, or its first and last ``limit / 2`` characters when it is longer."""
    text = text.strip()
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n{text[-half:]}"
