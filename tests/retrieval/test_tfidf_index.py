"""The TF-IDF index, built from public objects: an analyzer and the scoring's numbers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from govcore.backends.tfidf import TfidfRetriever
from govcore.policy import PolicyDocument
from govcore.retrieval.analysis import Analyzer
from govcore.retrieval.tfidf_index import TfidfIndex, TfidfScoring, build_index, policy_terms
from tests.support import policy

POLICIES = [
    PolicyDocument.model_validate(policy("refunds", summary="Refunds within thirty days.")),
    PolicyDocument.model_validate(
        policy("card-data", summary="Never ask for card numbers.", area="payments")
    ),
    PolicyDocument.model_validate(
        policy("delivery", summary="Delivery estimates.", examples=["where is my parcel"])
    ),
]
SCORING = TfidfScoring(
    min_relevance=0.16,
    relative_relevance=0.7,
    min_query_terms=5.0,
    max_query_terms=48,
    example_weight=0.4,
    context_weight=1.0,
    field_weights=(3, 2, 1),
    single_term_factor=1.0,
)
MESSAGES = ["can I get a refund", "my card number is on the receipt", "where is my parcel", "hi"]


def test_the_retriever_builds_the_index_its_numbers_describe() -> None:
    """``TfidfRetriever.index`` hands each of its settings to the index: the index built
    directly from the same analyzer and numbers scores every message the same."""
    options = {
        "min_relevance": 0.2,
        "relative_relevance": 0.5,
        "min_query_terms": 3.0,
        "max_query_terms": 7,
        "example_weight": 0.6,
        "context_weight": 0.25,
        "field_weights": (2, 1, 1),
        "single_term_factor": 0.8,
        "context_discount": 0.7,
        "min_matched_idf": 2.5,
        "calibration": None,
    }
    retriever = TfidfRetriever(**options)  # type: ignore[arg-type]
    built = retriever.index(POLICIES)
    assert isinstance(built, TfidfIndex)
    assert dataclasses.asdict(built.scoring) == options
    direct = build_index(POLICIES, retriever.analyzer, TfidfScoring(**options))  # type: ignore[arg-type]
    for message in MESSAGES:
        context = ["the card was charged twice"]
        np.testing.assert_array_equal(
            built.scores(message, context=context), direct.scores(message, context=context)
        )


def test_field_weights_count_each_field_so_many_times() -> None:
    """A term in the title counts 3 times, in the summary 2, in the text 1 (by default)."""
    document = PolicyDocument.model_validate(
        policy("x", title="Refund", summary="Refund rules.", text="A refund is due.")
    )
    analyzer = Analyzer()
    assert policy_terms(document, analyzer, (3, 2, 1))["refund"] == 6
    assert policy_terms(document, analyzer, (1, 0, 0)) == {"refund": 1}


def test_context_counts_at_its_weight() -> None:
    """With ``context_weight`` 0 the context changes nothing; with a weight it adds its terms."""
    analyzer = Analyzer()
    without = build_index(POLICIES, analyzer, dataclasses.replace(SCORING, context_weight=0.0))
    weighted = build_index(POLICIES, analyzer, SCORING)
    message, context = "how long does it take", ["I want a refund"]
    np.testing.assert_array_equal(without.scores(message, context=context), without.scores(message))
    assert weighted.scores(message, context=context)[0] > weighted.scores(message)[0]


def test_explain_reports_the_thresholds_it_was_given() -> None:
    index = build_index(POLICIES, Analyzer(), dataclasses.replace(SCORING, min_relevance=0.3))
    explanation = index.explain("can I get a refund")
    assert explanation.thresholds == {"min_relevance": 0.3, "relative_relevance": 0.7}
    assert explanation.floor == pytest.approx(max(0.3, 0.7 * explanation.scores[0].score))
    hits = index.search("can I get a refund", top_k=6)
    assert [h.position for h in hits] == [0]


def test_an_example_phrase_selects_its_policy_at_full_relevance() -> None:
    index = build_index(POLICIES, Analyzer(), SCORING)
    (hit,) = index.search("Where is my parcel?", top_k=6)
    assert (hit.position, hit.score) == (2, 1.0)
    assert index.explain("Where is my parcel?").scores[0].example == "where is my parcel"


def test_an_index_of_policies_without_terms_finds_nothing() -> None:
    empty = [PolicyDocument.model_validate(policy("a", title="The", summary="A."))]
    index = build_index(empty, Analyzer(), SCORING)
    assert len(index) == 1
    assert index.search("the", top_k=6) == []
