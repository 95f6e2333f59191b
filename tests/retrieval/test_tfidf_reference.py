"""The TF-IDF index against a reference computed the long way.

The index reads only the postings of a turn's terms, scores the message and its context from
one read of them, and works on the few examples a message shares enough terms with. The
reference below computes the same scores from their definitions: dense loops over every policy,
every example and every term, in float64, with no shortcut. Hypothesis draws small policy sets
with examples, messages and recent context over a small vocabulary (so that terms are shared,
examples are matched exactly, and the scored-term budgets cut), and the index's scores,
selection and the example an explanation names must be the reference's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from govcore.policy import PolicyDocument
from govcore.retrieval import tfidf_index
from govcore.retrieval.analysis import Analyzer, words_of
from govcore.retrieval.tfidf_index import TfidfScoring, build_index, policy_terms
from tests.support import policy

# Words the analyzer keeps as terms of their own (no stop words), some sharing a stem.
WORDS = [
    "refund",
    "refunds",
    "parcel",
    "card",
    "invoice",
    "password",
    "delivery",
    "warranty",
    "account",
    "receipt",
    "discount",
    "battery",
    "courier",
    "voucher",
]
# Close floats are ties the index (float32) and the reference (float64) may break apart.
MARGIN = 1e-5
EXAMPLE_TERMS = 8  # a message's heaviest terms compared with the examples (the index's rule)


@dataclass
class Reference:
    """What the index should return for one turn."""

    scores: list[float]
    alone: list[float]
    selected: set[int]
    examples: dict[int, str]  # policy -> the example an explanation names
    ambiguous: bool  # a float near-tie decides something: the case is skipped


def heaviest(weights: dict[str, float], limit: int) -> tuple[set[str], bool]:
    """The ``limit`` heaviest terms, and whether a tie at the cut made the choice arbitrary."""
    ranked = sorted(weights.values(), reverse=True)
    tie = len(ranked) > limit > 0 and math.isclose(ranked[limit - 1], ranked[limit], rel_tol=1e-6)
    kept = sorted(weights, key=lambda term: -weights[term])[:limit]
    return set(kept), tie


def reference(
    documents: Sequence[PolicyDocument],
    analyzer: Analyzer,
    scoring: TfidfScoring,
    message: str,
    context: Sequence[str],
) -> Reference:
    n = len(documents)
    counts = [policy_terms(d, analyzer, scoring.field_weights) for d in documents]
    vocabulary = set().union(*counts)
    df = {t: sum(t in c for c in counts) for t in vocabulary}
    idf = {t: math.log((1 + n) / (1 + df[t])) + 1.0 for t in vocabulary}

    def unit(term_counts: dict[str, int]) -> dict[str, float]:
        raw = {t: (1.0 + math.log(c)) * idf[t] for t, c in term_counts.items()}
        norm = math.sqrt(sum(v * v for v in raw.values()))
        return {t: v / norm for t, v in raw.items()}

    docs = [unit(c) for c in counts]
    examples = []  # (owner, text, unit vector, number of terms)
    for owner, document in enumerate(documents):
        for text in document.examples:
            terms = analyzer.term_counts(text)
            if terms:
                examples.append((owner, text, unit(terms), len(terms)))

    def query(texts: Sequence[tuple[str, float]]) -> dict[str, float]:
        weights: dict[str, float] = {}
        for text, weight in texts:
            if weight > 0.0 and text:
                for t, c in analyzer.term_counts(text).items():
                    if t in vocabulary:
                        weights[t] = weights.get(t, 0.0) + weight * (1.0 + math.log(c))
        return {t: w * idf[t] for t, w in weights.items()}

    def norm_of(values: dict[str, float]) -> float:
        return math.sqrt(sum(v * v for v in values.values()))

    def dot(values: dict[str, float], scored: set[str], p: int) -> float:
        return sum(values[t] * docs[p].get(t, 0.0) for t in scored)

    def shared(scored: set[str], p: int) -> int:
        return sum(t in docs[p] for t in scored) if len(scored) > 1 else 0

    def single_term(score: float, matched: int) -> float:
        return score * scoring.single_term_factor if matched == 1 else score

    def evidence(scored: set[str], p: int) -> float:
        return sum(idf[t] for t in scored if t in docs[p])

    def floored(score: float, matched_idf: float, mass: float) -> float:
        """0 under the floor of matched IDF, which asks for at most half the text's own."""
        nonlocal ambiguous
        if scoring.min_matched_idf <= 0.0:
            return score
        floor = min(scoring.min_matched_idf, 0.5 * mass)
        ambiguous |= abs(matched_idf - floor) < 1e-4
        return 0.0 if matched_idf < floor else score

    ambiguous = False
    limit = scoring.max_query_terms
    msg = query([(message, 1.0)])
    msg_scored, tie = heaviest(msg, limit)
    ambiguous |= tie
    ctx: dict[str, float] = {}
    ctx_scored: set[str] = set()
    budget = limit - len(msg_scored)
    if scoring.context_weight > 0.0 and budget > 0 and any(t.strip() for t in context):
        ctx = query([(text, scoring.context_weight) for text in context])
        ctx_scored, tie = heaviest(ctx, budget)
        ambiguous |= tie

    doc = [0.0] * n
    base = [0.0] * n
    names: dict[int, str] = {}
    if msg:
        scale = norm_of(msg) * max(1.0, math.sqrt(scoring.min_query_terms / len(msg)))
        mass = sum(idf[t] for t in msg_scored)
        doc = [
            floored(
                single_term(dot(msg, msg_scored, p) / scale, shared(msg_scored, p)),
                evidence(msg_scored, p),
                mass,
            )
            for p in range(n)
        ]
        base = list(doc)
        if examples:
            top, tie = heaviest({t: msg[t] for t in msg_scored}, EXAMPLE_TERMS)
            ambiguous |= tie
            closest: dict[int, tuple[float, str]] = {}
            exact: dict[int, str] = {}
            message_terms = len(analyzer.term_counts(message))
            for owner, text, vector, size in examples:
                together = sum(t in vector for t in top)
                if together < min(size, 2):
                    continue
                near = sum(msg[t] * vector.get(t, 0.0) for t in top) / norm_of(msg)
                if owner not in closest or near > closest[owner][0]:
                    closest[owner] = (near, text)
                if together == size == message_terms:
                    exact[owner] = text
            for owner, (near, text) in closest.items():
                raised = scoring.example_weight * near
                ambiguous |= abs(raised - doc[owner]) < MARGIN and raised != doc[owner]
                base[owner] = max(base[owner], raised)
                if raised > doc[owner]:
                    names[owner] = text
            for owner, text in exact.items():
                base[owner] = 1.0
                names[owner] = text
    alone = list(base)
    scores = list(base)
    if ctx:
        merged = {t: msg.get(t, 0.0) + ctx.get(t, 0.0) for t in set(msg) | set(ctx)}
        scale = norm_of(merged) * max(1.0, math.sqrt(scoring.min_query_terms / len(merged)))
        for p in range(n):
            product = dot(msg, msg_scored, p) + dot(ctx, ctx_scored, p)
            matched = shared(msg_scored, p) + shared(ctx_scored, p)
            with_context = floored(
                single_term(product / scale, matched),
                evidence(msg_scored, p) + scoring.context_weight * evidence(ctx_scored, p),
                sum(idf[t] for t in msg_scored)
                + scoring.context_weight * sum(idf[t] for t in ctx_scored),
            )
            scores[p] = max(base[p], scoring.context_discount * with_context)
    phrase = " ".join(words_of(message))
    for owner, document in enumerate(documents):
        for text in document.examples:
            if phrase and " ".join(words_of(text)) == phrase:
                scores[owner] = alone[owner] = 1.0
                names[owner] = text
    floor = max(scoring.min_relevance, scoring.relative_relevance * max(alone, default=0.0), 1e-9)
    ambiguous |= any(0.0 < abs(s - floor) < MARGIN for s in scores)
    selected = {p for p in range(n) if scores[p] >= floor}
    return Reference(scores, alone, selected, names, ambiguous)


phrases = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
documents = st.lists(
    st.fixed_dictionaries(
        {
            "title": phrases,
            "summary": phrases,
            "text": st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join),
            "examples": st.lists(phrases, max_size=3),
        }
    ),
    min_size=2,
    max_size=6,
)
turns = st.lists(st.sampled_from([*WORDS, "the", "zebra"]), max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    fields=documents,
    message=turns,
    context=st.lists(turns, max_size=3),
    max_query_terms=st.sampled_from([2, 5, 48]),
    single_term_factor=st.sampled_from([1.0, 0.5]),
    context_weight=st.sampled_from([0.0, 0.5, 1.0]),
    context_discount=st.sampled_from([1.0, 0.8]),
    example_weight=st.sampled_from([0.4, 1.0]),
    min_matched_idf=st.sampled_from([0.0, 2.0, 4.0]),
    gather_limit=st.sampled_from([0, 1 << 30]),
)
# A policy sharing one term with the message and none with its context shares one term with the
# turn: the context's shared terms are counted on the context's postings alone (a count that
# took in the message's postings too let the single-term factor go, and random draws missed it).
@example(
    fields=[
        {"title": "refund receipt", "summary": "refund", "text": "receipt", "examples": []},
        {"title": "parcel delivery", "summary": "parcel", "text": "delivery", "examples": []},
        {"title": "password account", "summary": "password", "text": "account", "examples": []},
    ],
    message="refund card parcel",
    context=["password account discount"],
    max_query_terms=48,
    single_term_factor=0.5,
    context_weight=1.0,
    context_discount=1.0,
    example_weight=0.4,
    min_matched_idf=0.0,
    gather_limit=0,
)
def test_scores_selection_and_named_examples_are_the_reference(
    fields: list[dict[str, object]],
    message: str,
    context: list[str],
    max_query_terms: int,
    single_term_factor: float,
    context_weight: float,
    context_discount: float,
    example_weight: float,
    min_matched_idf: float,
    gather_limit: int,
) -> None:
    # Both ways of summing a turn's postings (SciPy's above the limit, NumPy's below it).
    saved = tfidf_index._GATHER_LIMIT
    tfidf_index._GATHER_LIMIT = gather_limit
    try:
        _check_against_reference(
            fields, message, context, max_query_terms, single_term_factor,
            context_weight, context_discount, example_weight, min_matched_idf,
        )  # fmt: skip
    finally:
        tfidf_index._GATHER_LIMIT = saved


def _check_against_reference(
    fields: list[dict[str, object]],
    message: str,
    context: list[str],
    max_query_terms: int,
    single_term_factor: float,
    context_weight: float,
    context_discount: float,
    example_weight: float,
    min_matched_idf: float,
) -> None:
    documents = [PolicyDocument.model_validate(policy(f"p{i}", **f)) for i, f in enumerate(fields)]
    scoring = TfidfScoring(
        min_relevance=0.1,
        relative_relevance=0.7,
        min_query_terms=3.0,
        max_query_terms=max_query_terms,
        example_weight=example_weight,
        context_weight=context_weight,
        field_weights=(3, 2, 1),
        single_term_factor=single_term_factor,
        context_discount=context_discount,
        min_matched_idf=min_matched_idf,
        calibration=None,
    )
    analyzer = Analyzer()
    expected = reference(documents, analyzer, scoring, message, context)
    assume(not expected.ambiguous)
    index = build_index(documents, analyzer, scoring)

    scores, alone = index.led_scores(message, context=context)
    np.testing.assert_allclose(scores, expected.scores, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(alone, expected.alone, rtol=1e-5, atol=1e-6)
    hits = index.search(message, top_k=len(documents), context=context)
    assert {hit.position for hit in hits} == expected.selected
    explained = index.explain(message, context=context)
    named = {s.position: s.example for s in explained.scores if s.example is not None}
    assert named == expected.examples
