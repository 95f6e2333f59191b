"""The default retriever: TF-IDF over stemmed words and paraphrase concepts, cosine scoring."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
from sklearn.feature_extraction.text import TfidfVectorizer

from govcore._lexicon import BUILTIN_SYNONYMS
from govcore._text import Analyzer
from govcore.policy import PolicyDocument
from govcore.types import RetrievalHit

__all__ = ["TfidfIndex", "TfidfRetriever"]

# How often each field of a policy is repeated in its indexed text: a title or an example
# phrase says more about what a policy is for than a sentence deep in its text.
_FIELD_WEIGHTS = {"title": 3, "summary": 2, "tags": 2, "examples": 2, "area": 1, "text": 1}


class TfidfRetriever:
    """Builds :class:`TfidfIndex` objects with scikit-learn's :class:`TfidfVectorizer`.

    Args:
        min_relevance: the lowest cosine similarity a selected policy may have.
        relative_relevance: a selected policy also scores at least this fraction of the best
            policy's score, so a clear match does not drag weak neighbours in with it. Both
            defaults are calibrated on the labelled evaluation set in ``benchmarks/``.
        query_norm_floor: queries are scaled by ``1 / max(norm, floor)`` rather than
            ``1 / norm``: scores are cosines for ordinary queries, but a two-word message that
            shares one word with a policy cannot reach a high score on that word alone.
        context_weight: how much the recent-context turns count against the current turn.
        synonyms: extra paraphrase concepts merged over the built-in lexicon.
    """

    DEFAULT_MIN_RELEVANCE = 0.12
    DEFAULT_RELATIVE_RELEVANCE = 0.6
    DEFAULT_QUERY_NORM_FLOOR = 8.0

    def __init__(
        self,
        *,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
        relative_relevance: float = DEFAULT_RELATIVE_RELEVANCE,
        query_norm_floor: float = DEFAULT_QUERY_NORM_FLOOR,
        context_weight: float = 0.5,
        synonyms: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        merged: dict[str, tuple[str, ...]] = dict(BUILTIN_SYNONYMS)
        for concept, phrases in (synonyms or {}).items():
            merged[concept] = (*merged.get(concept, ()), *phrases)
        self.min_relevance = min_relevance
        self.relative_relevance = relative_relevance
        self.query_norm_floor = query_norm_floor
        self.context_weight = context_weight
        self._analyzer = Analyzer(merged)

    def index(self, policies: Sequence[PolicyDocument]) -> TfidfIndex:
        """Fit the vocabulary and IDF on ``policies`` and build the transposed index."""
        texts = [_indexed_text(p) for p in policies]
        areas = [p.area for p in policies]
        if not texts:
            return TfidfIndex(self, {}, np.zeros(0, np.float32), None, areas)
        vectorizer = TfidfVectorizer(
            analyzer=self._analyzer.terms, sublinear_tf=True, dtype=np.float32
        )
        try:
            matrix = vectorizer.fit_transform(texts)
        except ValueError:  # every policy is empty of terms
            return TfidfIndex(self, {}, np.zeros(0, np.float32), None, areas)
        vocabulary = {str(term): int(col) for term, col in vectorizer.vocabulary_.items()}
        return TfidfIndex(
            self, vocabulary, vectorizer.idf_.astype(np.float32), matrix.T.tocsr(), areas
        )

    def _query_weights(
        self, query: str, context: Sequence[str], vocabulary: Mapping[str, int]
    ) -> dict[int, float]:
        weights: dict[int, float] = {}
        segments = [(query, 1.0)] + [(c, self.context_weight) for c in context]
        for text, weight in segments:
            if weight <= 0.0 or not text:
                continue
            for term, count in Counter(self._analyzer.terms(text)).items():
                column = vocabulary.get(term)
                if column is not None:
                    tf = weight * (1.0 + math.log(count))  # sublinear, as the index
                    weights[column] = weights.get(column, 0.0) + tf
        return weights


class TfidfIndex:
    """One policy set's TF-IDF index (an implementation of ``RetrievalIndex``).

    The document-term matrix is kept transposed (term x policy, CSR), so scoring a query reads
    only the postings of its own terms instead of multiplying through the whole matrix.
    """

    def __init__(
        self,
        retriever: TfidfRetriever,
        vocabulary: Mapping[str, int],
        idf: npt.NDArray[np.float32],
        term_policy: object | None,
        areas: Sequence[str | None],
    ) -> None:
        self._retriever = retriever
        self._vocabulary = vocabulary
        self._idf = idf
        self._size = len(areas)
        self._areas = np.array([a if a is not None else "" for a in areas], dtype=object)
        self._area_masks: dict[frozenset[str], npt.NDArray[np.bool_]] = {}
        if term_policy is not None:
            self._indptr: npt.NDArray[np.int64] = term_policy.indptr.astype(np.int64)  # type: ignore[attr-defined]
            self._indices: npt.NDArray[np.int32] = term_policy.indices  # type: ignore[attr-defined]
            self._data: npt.NDArray[np.float32] = term_policy.data  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return self._size

    def scores(self, query: str, *, context: Sequence[str] = ()) -> npt.NDArray[np.float64]:
        """Similarity of the query with every policy (dense, in index order).

        The cosine of the TF-IDF vectors, except that a very short query is scaled down (see
        ``query_norm_floor``).
        """
        weights = self._retriever._query_weights(query, context, self._vocabulary)
        if not weights:
            return np.zeros(self._size)
        columns = np.fromiter(weights.keys(), dtype=np.int64, count=len(weights))
        values = np.fromiter(weights.values(), dtype=np.float64, count=len(weights))
        values *= self._idf[columns]
        values /= max(float(np.sqrt(values @ values)), self._retriever.query_norm_floor)
        starts = self._indptr[columns]
        lengths = self._indptr[columns + 1] - starts
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(self._size)
        # Positions of all postings of the query's terms, gathered without a Python loop.
        offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        positions = offsets + np.arange(total)
        contributions = self._data[positions] * np.repeat(values, lengths)
        scores = np.bincount(self._indices[positions], weights=contributions, minlength=self._size)
        return scores.astype(np.float64, copy=False)

    def search(
        self,
        query: str,
        *,
        top_k: int,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> list[RetrievalHit]:
        """The at most ``top_k`` best policies scoring at least the minimum relevance."""
        if self._size == 0 or top_k <= 0:
            return []
        scores = self.scores(query, context=context)
        if areas is not None:
            scores = np.where(self._area_mask(areas), scores, 0.0)
        best_score = float(scores.max())
        floor = max(
            self._retriever.min_relevance,
            self._retriever.relative_relevance * best_score,
            1e-9,
        )
        candidates = np.flatnonzero(scores >= floor)
        if len(candidates) > top_k:
            # Top-K by partial selection, then sort only those K.
            best = np.argpartition(scores[candidates], -top_k)[-top_k:]
            candidates = candidates[best]
        order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
        return [RetrievalHit(position=i, score=float(scores[i])) for i in order]

    def _area_mask(self, areas: frozenset[str]) -> npt.NDArray[np.bool_]:
        mask = self._area_masks.get(areas)
        if mask is None:
            mask = np.isin(self._areas, list(areas))
            if len(self._area_masks) < 1024:
                self._area_masks[areas] = mask
        return mask


def _indexed_text(policy: PolicyDocument) -> str:
    fields = {
        "title": policy.title,
        "summary": policy.summary,
        "tags": " ".join(policy.tags),
        "examples": "\n".join(policy.examples),
        "area": policy.area or "",
        "text": policy.text,
    }
    return "\n".join("\n".join([value] * _FIELD_WEIGHTS[name]) for name, value in fields.items())
