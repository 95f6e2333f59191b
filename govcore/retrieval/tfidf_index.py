"""The TF-IDF index: a policy set's terms weighted by scikit-learn, scored by cosine.

Everything the index needs is given to it: an :class:`~govcore.retrieval.analysis.Analyzer`
(the terms of a text) and a :class:`TfidfScoring` (the numbers of the scoring). The retriever
in :mod:`govcore.backends.tfidf` reads those from settings and calls :func:`build_index`.

NumPy, SciPy and scikit-learn are imported by this module, which the retriever imports when
the first index is built, so ``import govcore`` loads none of them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from sklearn.feature_extraction.text import TfidfTransformer

from govcore.policy import PolicyDocument
from govcore.retrieval.analysis import Analyzer, words_of
from govcore.retrieval.calibration import (
    Calibration,
    CalibrationOptions,
    calibration_messages,
    enough_examples,
    fit_thresholds,
)
from govcore.retrieval.ranking import RankedIndex, RelevanceThresholds, Scores
from govcore.types import IndexExplanation, PolicyScore

__all__ = ["Columns", "TfidfIndex", "TfidfScoring", "build_index", "policy_terms"]

# An example phrase counts for its policy only when it shares this many terms with a message.
_MIN_SHARED_EXAMPLE_TERMS = 2
# How many of a message's heaviest terms are compared with the example phrases.
_EXAMPLE_QUERY_TERMS = 8
# The matched-evidence floor asks a text for at most this share of its own scored IDF mass.
_FLOOR_MASS_SHARE = 0.5

Columns = tuple[tuple[int, float], ...]
"""A text's terms in one index: (column, sublinear term frequency) pairs."""


@dataclass(frozen=True, slots=True)
class TfidfScoring:
    """How a :class:`TfidfIndex` weighs a policy's fields and scores a turn.

    Attributes:
        min_relevance: the lowest score a hit may have.
        relative_relevance: a hit also scores at least this fraction of the best score.
        min_query_terms: a turn with fewer terms is scored as if the missing ones were there
            and matched nothing (its vector is scaled by ``sqrt(terms / min_query_terms)``).
        max_query_terms: only this many of the turn's heaviest terms are scored.
        example_weight: a policy scores at least this fraction of the turn's cosine with the
            closest of its example phrases.
        context_weight: how much each context turn's terms count against the message's.
        field_weights: how many times a term counts in the title; in the summary, tags and
            examples; in the area and text.
        single_term_factor: the score of a policy sharing only one term with a turn of
            several is multiplied by this.
        context_discount: with context, a policy keeps the better of its score for the
            message alone and this times its score for the message with its context.
        min_matched_idf: a policy whose matched evidence for the message is below this, or
            below half the message's own when that is lower, scores 0 on its text (its
            examples still count): the summed IDF of the message's scored terms that the
            policy contains (with context, plus ``context_weight`` times that of the
            context's). 0 turns the floor off.
        calibration: how to calibrate on the policies' examples; ``None`` never calibrates.
    """

    min_relevance: float
    relative_relevance: float
    min_query_terms: float
    max_query_terms: int
    example_weight: float
    context_weight: float
    field_weights: tuple[int, int, int]
    single_term_factor: float
    context_discount: float = 1.0
    min_matched_idf: float = 0.0
    calibration: CalibrationOptions | None = None

    @property
    def thresholds(self) -> RelevanceThresholds:
        """The relevance floor's settings."""
        return RelevanceThresholds(self.min_relevance, self.relative_relevance)


def policy_terms(
    policy: PolicyDocument, analyzer: Analyzer, field_weights: tuple[int, int, int]
) -> dict[str, int]:
    """The policy's terms with their counts, each field's counted ``field_weights`` times
    (title; summary, tags and examples; area and text)."""
    # Fields of equal weight are analysed together: one pass per weight, not per field.
    title, lead, body = field_weights
    by_weight = (
        (title, policy.title),
        (lead, "\n".join([policy.summary, *policy.tags, *policy.examples])),
        (body, f"{policy.area or ''}\n{policy.text}"),
    )
    terms: dict[str, int] = {}
    for weight, text in by_weight:
        if weight:
            analyzer.term_counts(text, weight, into=terms)
    return terms


def build_index(
    policies: Sequence[PolicyDocument], analyzer: Analyzer, scoring: TfidfScoring
) -> TfidfIndex:
    """Count each policy's terms, weight them with scikit-learn, keep them transposed; then,
    when the policies have enough examples, calibrate on them (``scoring.calibration``)."""
    index = _build(policies, analyzer, scoring)
    options = scoring.calibration
    if options is not None and enough_examples(
        index.example_counts.tolist(), options, scoring.min_relevance
    ):
        index.calibrate(options)
    return index


def _build(
    policies: Sequence[PolicyDocument], analyzer: Analyzer, scoring: TfidfScoring
) -> TfidfIndex:
    areas = [p.area for p in policies]
    per_policy = [policy_terms(p, analyzer, scoring.field_weights) for p in policies]
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
        return TfidfIndex(
            analyzer,
            scoring,
            {},
            np.zeros(0, np.float32),
            None,
            areas,
            None,
            _phrases_of(policies),
        )
    matrix = csr_matrix((counts, columns, row_starts), shape=(len(policies), len(vocabulary)))
    # Sublinear TF, smoothed IDF and L2-normalised rows, as TfidfVectorizer would do.
    transformer = TfidfTransformer(sublinear_tf=True)
    weighted = transformer.fit_transform(matrix).astype(np.float32)
    idf = transformer.idf_.astype(np.float32)
    examples = _example_matrix(analyzer, policies, vocabulary, transformer)
    return TfidfIndex(
        analyzer,
        scoring,
        vocabulary,
        idf,
        weighted.T.tocsr(),
        areas,
        examples,
        _phrases_of(policies),
    )


def _phrases_of(policies: Sequence[PolicyDocument]) -> dict[str, list[tuple[int, str]]]:
    """Each example phrase's words (lower-cased, in order) -> the policies it belongs to."""
    phrases: dict[str, list[tuple[int, str]]] = {}
    for position, policy in enumerate(policies):
        for example in policy.examples:
            words = " ".join(words_of(example))
            if words:
                phrases.setdefault(words, []).append((position, example))
    return phrases


def _example_matrix(
    analyzer: Analyzer,
    policies: Sequence[PolicyDocument],
    vocabulary: Mapping[str, int],
    transformer: TfidfTransformer,
) -> _Examples | None:
    """Each example phrase as its own TF-IDF row, with the policy it belongs to."""
    columns: list[int] = []
    counts: list[int] = []
    row_starts = [0]
    owners: list[int] = []
    sizes: list[int] = []
    texts: list[str] = []
    for position, policy in enumerate(policies):
        for example in policy.examples:
            terms = analyzer.term_counts(example)
            if not terms:
                continue
            for term, count in terms.items():
                columns.append(vocabulary[term])  # examples are part of their policy
                counts.append(count)
            row_starts.append(len(columns))
            owners.append(position)
            sizes.append(len(terms))
            texts.append(example)
    if not owners:
        return None
    matrix = csr_matrix(
        (np.asarray(counts, np.float32), np.asarray(columns, np.int32), row_starts),
        shape=(len(owners), len(vocabulary)),
    )
    weighted = transformer.transform(matrix).astype(np.float32)
    return _Examples(
        weighted.T.tocsr(), np.asarray(owners, np.int64), np.asarray(sizes, np.int64), tuple(texts)
    )


@dataclass(frozen=True, slots=True)
class _Examples:
    """Policy authors' example phrases, each a row of its own (term x example, transposed)."""

    term_example: Any
    owners: npt.NDArray[np.int64]  # the policy of each example (examples are in policy order)
    sizes: npt.NDArray[np.int64]  # how many distinct terms each example has
    texts: tuple[str, ...]
    # How many terms a message must share with each example for its closeness to count.
    min_shared: npt.NDArray[np.int64] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "min_shared", np.minimum(self.sizes, _MIN_SHARED_EXAMPLE_TERMS))


@dataclass(slots=True)
class _Pass:
    """One query vector's evidence about every policy (dense, in policy order).

    Attributes:
        doc: the cosine with the policy's own text (the short-query floor applied).
        base: ``doc`` (the same array when nothing raised it), raised to ``example_weight`` times ``closeness``, and to 1 where the
            message is made of exactly an example's terms.
        columns: the query's scored terms; query_values: their weights in ``doc``.
    """

    doc: Scores
    base: Scores
    columns: npt.NDArray[np.int64]
    query_values: npt.NDArray[np.float32]
    # The examples near enough to the message to count (rows, ascending) and its closeness to
    # each.
    example_near: tuple[npt.NDArray[np.integer[Any]], Scores] | None = None
    exact: dict[int, int] = field(default_factory=dict)  # policy -> example matched exactly


@dataclass(frozen=True, slots=True)
class _Terms:
    """A text's terms in one index, weighted by TF x IDF: the scored ones, and all of them."""

    columns: npt.NDArray[np.int64]
    values: npt.NDArray[np.float32]
    norm: float  # of all the terms, scored or not
    all_columns: npt.NDArray[np.int64]
    all_values: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class _Vector:
    """A query vector's scored terms and its (unnormalised) product with every policy."""

    terms: _Terms
    product: Scores
    matched: npt.NDArray[np.int64] | None  # policies' shared-term counts, when needed
    evidence: Scores | None = None  # policies' matched IDF mass, when the floor is on
    mass: float = 0.0  # the IDF mass of the scored terms themselves, when the floor is on

    @property
    def columns(self) -> npt.NDArray[np.int64]:
        return self.terms.columns

    @property
    def values(self) -> npt.NDArray[np.float32]:
        return self.terms.values

    @property
    def norm(self) -> float:
        return self.terms.norm

    @property
    def all_columns(self) -> npt.NDArray[np.int64]:
        return self.terms.all_columns

    @property
    def all_values(self) -> npt.NDArray[np.float32]:
        return self.terms.all_values


@dataclass(slots=True)
class _Scored:
    """One turn's scores, with the passes behind them (the message alone, and with context)."""

    scores: Scores
    alone: Scores  # the message's own scores, which lead the relative cut
    message: _Pass
    with_context: _Pass | None
    examples: dict[int, str] = field(default_factory=dict)  # policy -> the example that set it

    @property
    def explained(self) -> _Pass:
        """The pass whose terms an explanation shows: the one that read the context, if any."""
        return self.with_context or self.message


class TfidfIndex(RankedIndex):
    """One policy set's TF-IDF index (an ``ExplainableIndex``), built by :func:`build_index`.

    The document-term matrix is kept transposed (term x policy, CSR), so scoring a query reads
    only the postings of its own terms instead of multiplying through the whole matrix.

    Attributes:
        calibration: per-policy thresholds fitted on the policies' examples, or ``None`` (too
            few examples, or calibration off).
        example_counts: per policy, how many example phrases it has.
    """

    def __init__(
        self,
        analyzer: Analyzer,
        scoring: TfidfScoring,
        vocabulary: Mapping[str, int],
        idf: npt.NDArray[np.float32],
        term_policy: csr_matrix | None,
        areas: Sequence[str | None],
        examples: _Examples | None = None,
        phrases: Mapping[str, Sequence[tuple[int, str]]] | None = None,
    ) -> None:
        super().__init__(areas, scoring.thresholds)
        self.analyzer = analyzer
        self.scoring = scoring
        self.calibration: Calibration | None = None
        self._examples = examples
        self._phrases = phrases or {}
        # A turn's text comes back as recentContext on the next turns: map it to this index's
        # columns once.
        self._columns_of = functools.lru_cache(maxsize=1024)(self._text_columns)
        self._vocabulary = vocabulary
        self._idf = idf
        self._term_policy: Any = term_policy
        counts = np.zeros(self._size, np.int64)
        if examples is not None:
            np.add.at(counts, examples.owners, 1)
        self.example_counts = counts

    @property
    def example_texts(self) -> tuple[str, ...]:
        """Every example phrase with terms of its own, in index order of their policies."""
        return self._examples.texts if self._examples is not None else ()

    @property
    def example_owners(self) -> tuple[int, ...]:
        """The policy of each of :attr:`example_texts`."""
        return tuple(self._examples.owners.tolist()) if self._examples is not None else ()

    def calibrate(self, options: CalibrationOptions) -> Calibration:
        """Fit per-policy thresholds on the messages each policy is not for (see
        :mod:`govcore.retrieval.calibration`), and score with them from now on."""
        self.calibration = None
        owners = self.example_owners
        rows, generic = calibration_messages(owners, options)
        texts = self.example_texts
        negatives = chain(
            ((owners[row], self.uncalibrated_scores(texts[row])) for row in rows),
            ((-1, self.uncalibrated_scores(message)) for message in generic),
        )
        calibration = fit_thresholds(
            negatives, len(rows) + len(generic), self._size, self.scoring.min_relevance, options
        )
        self.calibration = calibration
        return calibration

    def uncalibrated_scores(self, query: str) -> Scores:
        """The scores of a message without context, before calibration."""
        return self._score(query, (), calibrated=False).scores

    def _text_columns(self, text: str) -> tuple[Columns, int]:
        """The text's terms in this index, as (column, sublinear term frequency), and how many
        distinct terms it has in all (known to the index or not)."""
        vocabulary = self._vocabulary
        counts = self.analyzer.term_counts(text)
        columns = tuple(
            (vocabulary[term], 1.0 + math.log(count))
            for term, count in counts.items()
            if term in vocabulary
        )
        return columns, len(counts)

    def _query_weights(self, query: str, context: Sequence[str]) -> dict[int, float]:
        """The turn's columns with their summed weights: the message's sublinear term
        frequencies, and the context turns' at ``context_weight``."""
        weights: dict[int, float] = {}
        segments = [(query, 1.0)] + [(c, self.scoring.context_weight) for c in context]
        for text, weight in segments:
            if weight <= 0.0 or not text:
                continue
            for column, tf in self._columns_of(text)[0]:
                weights[column] = weights.get(column, 0.0) + weight * tf
        return weights

    def scores(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        """Similarity of the turn with every policy (dense, in index order).

        The cosine of the TF-IDF vectors, except that a very short query is scaled down (see
        ``min_query_terms``), set to 0 under the floor of matched evidence (see
        ``min_matched_idf``), then raised to the query's closeness to one of the policy's
        example phrases (see ``example_weight``), and to 1 when the message is made of
        exactly the terms of one of them. With context, a policy keeps the better of its score
        for the message alone and ``context_discount`` times its score for the message with
        its context: the message leads. A calibrated index then scales each policy's score by its
        own threshold (:meth:`Calibration.relevance`).
        """
        return self._score(query, context).scores

    def led_scores(self, query: str, *, context: Sequence[str] = ()) -> tuple[Scores, Scores]:
        """The turn's scores and those of the message alone (see :class:`RankedIndex`)."""
        scored = self._score(query, context)
        return scored.scores, scored.alone

    def _score(
        self,
        query: str,
        context: Sequence[str],
        *,
        held_out: int = -1,
        calibrated: bool = True,
        explaining: bool = False,
    ) -> _Scored:
        scoring = self.scoring
        message_weights = self._query_weights(query, ())
        limit = scoring.max_query_terms
        message_terms = self._terms(message_weights, limit)
        # The message and its context share one budget of scored terms, the message first: a
        # message that fills it speaks for itself, and its context is not scored.
        budget = limit - (len(message_terms.columns) if message_terms is not None else 0)
        context_terms = None
        if scoring.context_weight > 0.0 and budget > 0 and any(t.strip() for t in context):
            context_terms = self._terms(self._query_weights("", context), budget)
        message_vector, context_vector = self._vectors(message_terms, context_terms)
        message = self._pass(message_vector, len(message_weights))
        if self._examples is not None and message_vector is not None:
            self._raise_to_examples(message, message_vector, query, held_out)
        # The same array until something below changes one of them.
        alone = scores = message.base
        with_context = None
        if context_vector is not None:
            with_context = self._with_context(message_vector, context_vector, explaining=explaining)
            discounted = with_context.base
            if scoring.context_discount != 1.0:
                discounted = scoring.context_discount * discounted
            scores = np.maximum(alone, discounted)
        if calibrated and self.calibration is not None:
            relevance = self.calibration.relevance
            if scores is alone:  # no context: one array, scaled once
                scores = alone = relevance(alone)
            else:
                # The turn's scores are this call's own array: scaled where they are.
                scores, alone = relevance(scores, in_place=True), relevance(alone)
        scored = _Scored(scores, alone, message, with_context)
        if held_out < 0:
            self._raise_to_phrases(query, scored)
        return scored

    def _terms(self, weights: Mapping[int, float], limit: int) -> _Terms | None:
        """A text's terms weighted by TF-IDF: all of them (for the norm), and the ``limit``
        heaviest (the ones scored); ``None`` without any term in the index."""
        if not weights or self._term_policy is None:
            return None
        all_columns = np.fromiter(weights.keys(), dtype=np.int64, count=len(weights))
        all_values = np.fromiter(weights.values(), dtype=np.float32, count=len(weights))
        all_values *= self._idf[all_columns]
        norm = float(np.sqrt(all_values @ all_values))
        columns, values = all_columns, all_values
        if len(columns) > limit:
            # The heaviest terms decide the ranking; the long tail of a long message costs
            # postings but barely moves a score. The norm still counts every term.
            keep = np.argpartition(values, -limit)[-limit:]
            columns, values = columns[keep], values[keep]
        return _Terms(columns, values, norm, all_columns, all_values)

    def _vectors(
        self, message: _Terms | None, context: _Terms | None
    ) -> tuple[_Vector | None, _Vector | None]:
        """Both texts' products with every policy, from one read of their terms' postings."""
        parts = [part for part in (message, context) if part is not None]
        if not parts:
            return None, None
        columns = np.concatenate([part.columns for part in parts])
        matrix = self._term_policy
        starts = matrix.indptr[columns]
        lengths = matrix.indptr[columns + 1] - starts
        total = int(lengths.sum())
        first_count = len(parts[0].columns)
        # Entries come in term order, so each text's postings are one run of them: sliced,
        # never masked (a mask over every entry cost as much as the sums themselves).
        entry_ends = np.concatenate(([0], np.cumsum(lengths)))
        first_end = int(entry_ends[first_count])
        products: list[Scores]
        if total <= _GATHER_LIMIT:
            # Few postings (small policy sets, rare terms): read them straight from the CSR
            # arrays and sum them per policy with bincount, a fraction of the cost of SciPy's
            # row slice and products, whose fixed cost dominates here.
            entries = np.arange(total) - np.repeat(entry_ends[:-1] - starts, lengths)
            policies = matrix.indices[entries]
            weights = np.concatenate([part.values for part in parts]).astype(np.float64)
            weighted = matrix.data[entries] * np.repeat(weights, lengths)
            products = [_summed(policies[:first_end], weighted[:first_end], self._size)]
            if len(parts) > 1:
                products.append(_summed(policies[first_end:], weighted[first_end:], self._size))
        else:
            # Many postings: SciPy's compiled slice and products make fewer passes over them.
            postings = matrix[columns]
            policies = postings.indices
            transposed = postings.T
            # Two plain products (the first text alone, then both) cost a fraction of one
            # product with a two-column matrix, which SciPy runs through a much slower path.
            first = np.zeros(len(columns), np.float32)
            first[:first_count] = parts[0].values
            products = [np.asarray(transposed @ first, dtype=np.float64)]
            if len(parts) > 1:
                both = np.concatenate([part.values for part in parts])
                products.append(np.asarray(transposed @ both, dtype=np.float64) - products[0])
        counting = self.scoring.single_term_factor != 1.0
        flooring = self.scoring.min_matched_idf > 0.0
        if flooring:
            # Each posting's term IDF, summed per policy below: the entries the products were
            # read from, so the floor costs one pass over them, no second read.
            term_idf = self._idf[columns].astype(np.float64)
            entry_idf = np.repeat(term_idf, lengths)
        vectors: list[_Vector] = []
        start = 0
        for j, part in enumerate(parts):
            end = start + len(part.columns)
            run = slice(int(entry_ends[start]), int(entry_ends[end]))
            matched = None
            if counting and len(part.columns) > 1:
                matched = np.bincount(policies[run], minlength=self._size)
            evidence, mass = None, 0.0
            if flooring:
                evidence = _summed(policies[run], entry_idf[run], self._size)
                mass = float(term_idf[start:end].sum())
            start = end
            vectors.append(_Vector(part, products[j], matched, evidence, mass))
        if message is None:
            return None, vectors[0]
        return vectors[0], vectors[1] if context is not None else None

    def _pass(self, vector: _Vector | None, terms: int) -> _Pass:
        """The document scores of one query vector of ``terms`` terms."""
        size = self._size
        if vector is None:
            nothing = np.zeros(size)
            return _Pass(nothing, nothing, np.zeros(0, np.int64), np.zeros(0, np.float32))
        scale = vector.norm * max(1.0, math.sqrt(self.scoring.min_query_terms / terms))
        doc = vector.product / scale
        self._single_term(doc, vector.matched)
        self._below_floor(doc, vector.evidence, vector.mass)
        return _Pass(doc, doc, vector.columns, vector.values / scale)

    def _with_context(
        self, message: _Vector | None, context: _Vector, *, explaining: bool
    ) -> _Pass:
        """The document scores of the message read with its context, from the two vectors'
        products (each term's postings are read once per turn); the norm is the combined
        vector's, over all of both texts' terms."""
        parts = [context] if message is None else [message, context]
        # The idf-weighted values add up per term: the same as weighting the summed counts.
        # Summed in a dict, in the parts' order, and laid out by column: the very numbers a
        # bincount over the sorted union gives (a few dozen terms, where np.unique's own cost
        # was twice that of the loop).
        by_column: dict[int, float] = {}
        for part in parts:
            for column, value in zip(
                part.all_columns.tolist(), part.all_values.tolist(), strict=True
            ):
                by_column[column] = by_column.get(column, 0.0) + value
        summed = np.array([by_column[column] for column in sorted(by_column)], dtype=np.float64)
        norm = float(np.sqrt(summed @ summed))
        scale = norm * max(1.0, math.sqrt(self.scoring.min_query_terms / len(by_column)))
        doc: Scores = (
            parts[0].product + parts[1].product if len(parts) > 1 else parts[0].product.copy()
        )
        doc /= scale
        matched = [part.matched for part in parts if part.matched is not None]
        self._single_term(doc, np.sum(matched, axis=0) if matched else None)
        if context.evidence is not None:
            # The context's terms are evidence at the weight they are scored with. Floored by
            # the message's evidence alone, a message that only its context makes clear ("and
            # when will that be done?") would lose the policy the context names.
            weight = self.scoring.context_weight
            evidence = context.evidence if weight == 1.0 else weight * context.evidence
            mass = weight * context.mass
            if message is not None and message.evidence is not None:
                evidence, mass = evidence + message.evidence, mass + message.mass
            self._below_floor(doc, evidence, mass)
        if not explaining:
            return _Pass(doc, doc, np.zeros(0, np.int64), np.zeros(0, np.float32))
        # Explanations show each scored term once, with its weight in the combined vector.
        columns, at = np.unique(
            np.concatenate([part.columns for part in parts]), return_inverse=True
        )
        values = np.bincount(at, weights=np.concatenate([part.values for part in parts]) / scale)
        return _Pass(doc, doc, columns, values.astype(np.float32))

    def _single_term(self, doc: Scores, matched: npt.NDArray[np.int64] | None) -> None:
        # A policy that shares one word with a message of several is more often a
        # coincidence ("connect" in a printer question, a connecting flight) than a topic.
        if matched is not None:
            doc[matched == 1] *= self.scoring.single_term_factor

    def _below_floor(self, doc: Scores, evidence: Scores | None, mass: float) -> None:
        # A cosine is a share of the message: a long message touching a policy with a few
        # of its words can score as high as a short one about nothing else. The floor asks for
        # an absolute amount of matched evidence, whatever the message's length, but never
        # more than a share of what the text has: a short message ("when will the transfer be
        # done?") cannot match more than its own terms, and an absolute floor alone dropped
        # such messages' policies (docs/decisions/selection-calibration.md). It applies to the
        # text's score only, before the example raise, so a message close to one of a
        # policy's examples keeps that policy.
        if evidence is not None:
            floor = min(self.scoring.min_matched_idf, _FLOOR_MASS_SHARE * mass)
            doc *= evidence >= floor  # a third of the cost of a masked assignment

    def _raise_to_examples(
        self, scored: _Pass, vector: _Vector, message: str, held_out: int
    ) -> None:
        """Note the message's closeness to each example phrase near enough to count, and raise
        each policy's base to its closest one."""
        examples = self._examples
        assert examples is not None
        columns, values = vector.columns, vector.values
        if len(columns) > _EXAMPLE_QUERY_TERMS:
            # An example is a short message: a long message's heaviest terms say whether it is
            # near one, and its common words would touch most examples for a sliver of score.
            keep = np.argpartition(values, -_EXAMPLE_QUERY_TERMS)[-_EXAMPLE_QUERY_TERMS:]
            columns, values = columns[keep], values[keep]
        rows, weights = _postings(examples.term_example, columns, values)
        # Per example, the terms it shares with the message and the plain cosine (no norm
        # floor): counted over every example at once, two passes of bincount, which cost less
        # than grouping the few thousand postings by example (measured at 50,000 examples).
        # One shared word is a coincidence, not a paraphrase, unless the phrase has only one
        # term of its own; a held-out example is not compared. The counted examples come out
        # in example order (an explanation names the first of a policy's closest examples).
        shared = np.bincount(rows, minlength=len(examples.owners))
        touched = np.flatnonzero(shared >= examples.min_shared)
        if held_out >= 0:
            touched = touched[touched != held_out]
        if not len(touched):
            # Near no example (most tool results and answers): nothing raises the base, which
            # is still a copy of the text's scores (see below).
            scored.example_near = (touched, np.zeros(0))
            scored.base = scored.doc.copy()
            return
        cosines = np.bincount(rows, weights=weights / vector.norm, minlength=len(shared))
        near = cosines[touched].astype(np.float64, copy=False)
        together = shared[touched]
        scored.example_near = (touched, near)
        owners = examples.owners[touched]
        # A policy's base is raised to example_weight times its closest example (scaling by a
        # positive weight keeps the order, so the largest product is the weight times the
        # largest closeness). A copy even when nothing is raised: a phrase match later sets
        # the turn's scores, which must not change the text's own.
        scored.base = scored.doc.copy()
        np.maximum.at(scored.base, owners, self.scoring.example_weight * near)
        # A message made of exactly an example's terms is what its author said the policy is
        # for: full relevance, so an example always selects its policy. Every term of the
        # message counts here, known to the index or not.
        complete = together == examples.sizes[touched]
        if complete.any():
            exact = touched[complete & (examples.sizes[touched] == self._columns_of(message)[1])]
            if len(exact):
                scored.base[examples.owners[exact]] = 1.0
                scored.exact = {int(examples.owners[r]): int(r) for r in exact}

    def _raise_to_phrases(self, query: str, scored: _Scored) -> None:
        """A message that is one of a policy's example phrases (same words, in order) selects
        that policy at full relevance, whatever its words are (even only stop words)."""
        if not self._phrases:
            return
        for position, example in self._phrases.get(" ".join(words_of(query)), ()):
            scored.scores[position] = 1.0
            scored.alone[position] = 1.0
            scored.examples[position] = example

    def _note_examples(self, scored: _Scored) -> None:
        """Name the example behind each policy whose score its closest example set (for
        explanations only: a search does not need the names)."""
        examples = self._examples
        message = scored.message
        if examples is None or message.example_near is None:
            return
        for position, row in message.exact.items():
            scored.examples.setdefault(position, examples.texts[row])
        touched, near = message.example_near
        owners = examples.owners[touched]
        raised = np.flatnonzero(message.base > message.doc)
        for position in raised.tolist():
            if position in scored.examples:
                continue
            mine = np.flatnonzero(owners == position)
            if len(mine):
                best = mine[int(np.argmax(near[mine]))]
                scored.examples[position] = examples.texts[int(touched[best])]

    def explain(
        self,
        query: str,
        *,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> IndexExplanation:
        """Every candidate policy's score, the terms behind it and the floor of this query."""
        scored = self._score(query, context, explaining=True)
        self._note_examples(scored)
        scores = scored.scores
        candidates = np.arange(self._size)
        if areas is not None:
            candidates = candidates[self.area_mask(areas)]
        floor = self.floor(float(scored.alone[candidates].max()) if len(candidates) else 0.0)
        source = scored.explained
        terms_by_policy = self._term_shares(source, candidates)
        names = self._names_of(source.columns)
        explained = []
        for position in sorted(candidates.tolist(), key=lambda i: (-scores[i], i)):
            explained.append(
                PolicyScore(
                    position=position,
                    score=float(scores[position]),
                    lexical=float(source.doc[position]),
                    terms=tuple(
                        (names[column], share)
                        for column, share in terms_by_policy.get(position, ())
                    ),
                    example=scored.examples.get(position),
                )
            )
        thresholds = self.thresholds.as_dict()
        if self.calibration is not None:
            thresholds.update(self.calibration.describe())
        return IndexExplanation(scores=tuple(explained), thresholds=thresholds, floor=floor)

    def _term_shares(
        self, scored: _Pass, candidates: npt.NDArray[np.int64]
    ) -> dict[int, list[tuple[int, float]]]:
        """Per policy, each query term's part of its document score, heaviest first."""
        if self._term_policy is None or not len(scored.columns):
            return {}
        rows = self._term_policy[scored.columns].tocoo()
        wanted = set(candidates.tolist())
        shares: dict[int, list[tuple[int, float]]] = {}
        for row, policy, weight in zip(rows.row, rows.col, rows.data, strict=True):
            if int(policy) in wanted:
                part = float(weight * scored.query_values[row])
                shares.setdefault(int(policy), []).append((int(scored.columns[row]), part))
        for parts in shares.values():
            parts.sort(key=lambda item: -item[1])
        return shares

    def _names_of(self, columns: npt.NDArray[np.int64]) -> dict[int, str]:
        wanted = set(columns.tolist())
        return {column: term for term, column in self._vocabulary.items() if column in wanted}


def _summed(policies: npt.NDArray[np.int32], values: npt.NDArray[np.float64], size: int) -> Scores:
    """``values`` summed per policy, over ``size`` policies."""
    return np.bincount(policies, values, size).astype(np.float64, copy=False)


_GATHER_LIMIT = 8192
"""Postings a turn's terms may have for their products to be summed with NumPy; above it, SciPy.
Where the two cost the same on this machine's measurements: about 14,000 postings."""


def _postings(
    matrix: csr_matrix, rows: npt.NDArray[np.int64], weights: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """The entries of ``rows`` of a CSR matrix, each multiplied by its row's weight: their
    column indices and weighted values (read straight from the CSR arrays, which costs a
    fraction of building a sliced matrix for a few dozen rows)."""
    starts = matrix.indptr[rows]
    lengths = matrix.indptr[rows + 1] - starts
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    entries = np.arange(total) - np.repeat(offsets - starts, lengths)
    values = matrix.data[entries] * np.repeat(weights, lengths)
    return matrix.indices[entries], values.astype(np.float64)
