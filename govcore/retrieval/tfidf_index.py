"""The numeric half of the TF-IDF retriever: building and scoring an index.

NumPy, SciPy and scikit-learn are imported by this module only; :mod:`govcore.backends.tfidf`
imports it when the first index is built, so ``import govcore`` loads none of them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from sklearn.feature_extraction.text import TfidfTransformer

from govcore.policy import PolicyDocument
from govcore.types import RetrievalHit

if TYPE_CHECKING:
    from govcore.backends.tfidf import TfidfRetriever

__all__ = ["Columns", "TfidfIndex", "build_index"]

# An example phrase counts for its policy only when it shares this many terms with a message.
_MIN_SHARED_EXAMPLE_TERMS = 2

Columns = tuple[tuple[int, float], ...]
"""A text's terms in one index: (column, sublinear term frequency) pairs."""


def build_index(retriever: TfidfRetriever, policies: Sequence[PolicyDocument]) -> TfidfIndex:
    """Count each policy's terms, weight them with scikit-learn, keep them transposed."""
    areas = [p.area for p in policies]
    per_policy = [retriever._policy_terms(p) for p in policies]
    # Vocabulary, columns and counts built by C-level iteration over the term dictionaries.
    ordered = dict.fromkeys(chain.from_iterable(per_policy))
    vocabulary = {term: column for column, term in enumerate(ordered)}
    columns = np.fromiter(
        map(vocabulary.__getitem__, chain.from_iterable(per_policy)), dtype=np.int32
    )
    counts = np.fromiter(
        chain.from_iterable(terms.values() for terms in per_policy), dtype=np.float32
    )
    row_starts = np.zeros(len(policies) + 1, dtype=np.int64)
    np.cumsum([len(terms) for terms in per_policy], out=row_starts[1:])
    if not vocabulary:
        return TfidfIndex(retriever, {}, np.zeros(0, np.float32), None, areas)
    matrix = csr_matrix((counts, columns, row_starts), shape=(len(policies), len(vocabulary)))
    # Sublinear TF, smoothed IDF and L2-normalised rows, as TfidfVectorizer would do.
    transformer = TfidfTransformer(sublinear_tf=True)
    weighted = transformer.fit_transform(matrix).astype(np.float32)
    idf = transformer.idf_.astype(np.float32)
    examples = _example_matrix(retriever, policies, vocabulary, transformer)
    return TfidfIndex(retriever, vocabulary, idf, weighted.T.tocsr(), areas, examples)


def _example_matrix(
    retriever: TfidfRetriever,
    policies: Sequence[PolicyDocument],
    vocabulary: Mapping[str, int],
    transformer: TfidfTransformer,
) -> _Examples | None:
    """Each example phrase as its own TF-IDF row, with the policy it belongs to."""
    columns: list[int] = []
    counts: list[int] = []
    row_starts = [0]
    owners: list[int] = []
    for position, policy in enumerate(policies):
        for example in policy.examples:
            terms = retriever._analyzer.term_counts(example)
            if not terms:
                continue
            for term, count in terms.items():
                columns.append(vocabulary[term])  # examples are part of their policy
                counts.append(count)
            row_starts.append(len(columns))
            owners.append(position)
    if not owners:
        return None
    matrix = csr_matrix(
        (np.asarray(counts, np.float32), np.asarray(columns, np.int32), row_starts),
        shape=(len(owners), len(vocabulary)),
    )
    weighted = transformer.transform(matrix).astype(np.float32)
    return _Examples(weighted.T.tocsr(), np.asarray(owners, np.int64))


@dataclass(frozen=True, slots=True)
class _Examples:
    """Policy authors' example phrases, each a row of its own (term x example, transposed)."""

    term_example: Any
    owners: npt.NDArray[np.int64]


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
        term_policy: csr_matrix | None,
        areas: Sequence[str | None],
        examples: _Examples | None = None,
    ) -> None:
        self._retriever = retriever
        self._examples = examples
        # A turn's text comes back as recentContext on the next turns: map it to this index's
        # columns once.
        self._columns_of = functools.lru_cache(maxsize=1024)(self._text_columns)
        self._vocabulary = vocabulary
        self._idf = idf
        self._size = len(areas)
        self._areas = np.array([a if a is not None else "" for a in areas], dtype=object)
        self._area_masks: dict[frozenset[str], npt.NDArray[np.bool_]] = {}
        self._term_policy: Any = term_policy

    def __len__(self) -> int:
        return self._size

    def _text_columns(self, text: str) -> Columns:
        """The text's terms in this index, as (column, sublinear term frequency)."""
        vocabulary = self._vocabulary
        return tuple(
            (vocabulary[term], 1.0 + math.log(count))
            for term, count in self._retriever._analyzer.term_counts(text).items()
            if term in vocabulary
        )

    def scores(self, query: str, *, context: Sequence[str] = ()) -> npt.NDArray[np.float64]:
        """Similarity of the query with every policy (dense, in index order).

        The cosine of the TF-IDF vectors, except that a very short query is scaled down (see
        ``query_norm_floor``).
        """
        weights = self._retriever._query_weights(query, context, self._columns_of)
        if not weights or self._term_policy is None:
            return np.zeros(self._size)
        columns = np.fromiter(weights.keys(), dtype=np.int64, count=len(weights))
        values = np.fromiter(weights.values(), dtype=np.float32, count=len(weights))
        values *= self._idf[columns]
        norm = max(float(np.sqrt(values @ values)), self._retriever.query_norm_floor)
        limit = self._retriever.max_query_terms
        if len(columns) > limit:
            # The heaviest terms decide the ranking; the long tail of a long message costs
            # postings but barely moves a score. The norm above still counts every term.
            keep = np.argpartition(values, -limit)[-limit:]
            columns, values = columns[keep], values[keep]
        values /= norm
        # Only the rows (postings) of the query's terms are read.
        scores = np.asarray(self._term_policy[columns].T @ values, dtype=np.float64)
        if self._examples is not None:
            # A message close to one of a policy's example phrases is about that policy, even
            # when the policy's long text dilutes its own similarity.
            rows = self._examples.term_example[columns]
            example_scores = rows.T @ values
            # One shared word is a coincidence, not a paraphrase: an example counts only when
            # it shares at least two terms with the message.
            shared = np.diff(rows.tocsc().indptr)
            example_scores[shared < _MIN_SHARED_EXAMPLE_TERMS] = 0.0
            best = np.zeros(self._size)
            np.maximum.at(best, self._examples.owners, example_scores)
            np.maximum(scores, best * self._retriever.example_weight, out=scores)
        return scores

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
