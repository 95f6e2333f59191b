"""The hybrid index's algorithm, with an embedder of chosen vectors (no model, no extra needed).

The same index with the real model is tested in tests/backends/test_hybrid.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from govcore.policy import PolicyDocument
from govcore.retrieval.analysis import Analyzer
from govcore.retrieval.embedding import EmbeddingCache, QueryEmbeddings
from govcore.retrieval.hybrid_index import (
    HybridIndex,
    HybridScoring,
    build_index,
    document_text,
    query_vector,
)
from govcore.retrieval.tfidf_index import TfidfScoring
from govcore.retrieval.tfidf_index import build_index as build_tfidf_index
from tests.support import policy


class TableEmbedder:
    """Each known text's vector from a table (normalised); any other text the last axis."""

    identity = "table"
    dimension = 4

    def __init__(self, table: Mapping[str, Sequence[float]]) -> None:
        self.table = table
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.embedded += texts
        rows = [np.asarray(self.table.get(text, (0, 0, 0, 1)), dtype=np.float64) for text in texts]
        return np.asarray([row / np.linalg.norm(row) for row in rows], dtype=np.float32).reshape(
            len(texts), self.dimension
        )


POLICIES = [
    PolicyDocument.model_validate(
        policy("refunds", title="Refunds", summary="Money back.", area="billing")
    ),
    PolicyDocument.model_validate(
        policy(
            "pets",
            title="Toxic food",
            summary="Call the vet.",
            area="clinical",
            examples=["my dog ate chocolate"],
        )
    ),
    PolicyDocument.model_validate(
        policy("hours", title="Opening hours", summary="We open at nine.", area="clinical")
    ),
]
VECTORS = {
    "Refunds. Money back.": (1, 0, 0, 0),
    "Toxic food. Call the vet.": (0, 1, 0, 0),
    "my dog ate chocolate": (0, 0, 1, 0),
    "Opening hours. We open at nine.": (0, 0.6, 0, 0.8),
    "the puppy swallowed a bar of cocoa": (0, 0.2, 0.9, 0.1),
    "can I get a refund": (0.9, 0.1, 0, 0),
    "a refund for the vet visit": (0.8, 0.5, 0, 0.3),
    "and that": (0, 0, 0, 1),
    "it ate raisins": (0, 1, 0, 0),
}
SCORING = HybridScoring(
    lexical_weight=0.5,
    semantic_floor=0.15,
    centering=0.5,
    min_relevance=0.14,
    relative_relevance=0.6,
    context_weight=0.5,
    query_chars=1000,
    text_chars=300,
)
LEXICAL = TfidfScoring(
    min_relevance=0.16,
    relative_relevance=0.7,
    min_query_terms=5.0,
    max_query_terms=48,
    example_weight=0.4,
    context_weight=1.0,
    field_weights=(3, 2, 1),
    single_term_factor=1.0,
)


def hybrid(scoring: HybridScoring = SCORING, *, lexical: bool = True) -> HybridIndex:
    embedder = TableEmbedder(VECTORS)
    words = build_tfidf_index(POLICIES, Analyzer(), LEXICAL) if lexical else None
    return build_index(
        POLICIES, words, embedder, EmbeddingCache(None), QueryEmbeddings(embedder), scoring
    )


def test_the_score_fuses_the_lexical_and_the_centred_semantic_parts() -> None:
    """score = w * lexical + (1 - w) * clip((cosine - centering * mean - floor) / (1 - floor))."""
    index = hybrid()
    message = "can I get a refund"
    lexical, cosines = index.parts(message)
    assert lexical is not None
    expected_cosines = [
        0.9 / np.hypot(0.9, 0.1),
        0.1 / np.hypot(0.9, 0.1),
        0.06 / np.hypot(0.9, 0.1),
    ]
    np.testing.assert_allclose(cosines, expected_cosines, atol=1e-6)
    centred = cosines - 0.5 * cosines.mean()
    semantic = np.clip((centred - 0.15) / 0.85, 0.0, 1.0)
    np.testing.assert_allclose(index.scores(message), 0.5 * lexical + 0.5 * semantic)
    assert lexical[0] > 0.0 == lexical[1]


def test_an_example_phrase_gives_its_policy_its_best_cosine_and_is_named() -> None:
    """A paraphrase of an example phrase (no shared word) selects its policy by the example's
    vector, and the explanation names that phrase."""
    index = hybrid()
    message = "the puppy swallowed a bar of cocoa"
    (hit,) = index.search(message, top_k=6)
    assert hit.position == 1
    best = index.explain(message).scores[0]
    assert (best.position, best.example) == (1, "my dog ate chocolate")
    assert best.semantic == pytest.approx(0.9 / np.linalg.norm([0, 0.2, 0.9, 0.1]), abs=1e-6)


def test_without_a_lexical_index_the_score_is_the_semantic_part() -> None:
    index = hybrid(lexical=False)
    lexical, cosines = index.parts("can I get a refund")
    assert lexical is None
    explained = index.explain("can I get a refund").scores
    assert [part.lexical for part in explained] == [None, None, None]
    centred = cosines - 0.5 * cosines.mean()
    expected = np.clip((centred - 0.15) / 0.85, 0.0, 1.0)
    np.testing.assert_allclose(index.scores("can I get a refund"), expected)


@pytest.mark.parametrize(
    "message", ["the puppy swallowed a bar of cocoa", "a refund for the vet visit"]
)
def test_explain_agrees_with_search_within_areas(message: str) -> None:
    """Within ``areas``, the explained candidates at or above the floor are the search hits,
    and a policy outside them (the refund policy, best for a refund) sets no floor."""
    index = hybrid(dataclasses.replace(SCORING, min_relevance=0.0))
    clinical = frozenset({"clinical"})
    explanation = index.explain(message, areas=clinical)
    assert sorted(part.position for part in explanation.scores) == [1, 2]
    assert set(explanation.thresholds) == {"min_relevance", "relative_relevance", "semantic_floor"}
    assert explanation.floor == pytest.approx(0.6 * explanation.scores[0].score)
    expected = [(p.position, p.score) for p in explanation.scores if p.score >= explanation.floor]
    hits = index.search(message, top_k=6, areas=clinical)
    assert [(h.position, h.score) for h in hits] == expected
    assert hits


def test_the_turn_vector_is_the_message_plus_weighted_mean_context() -> None:
    embedder = TableEmbedder(VECTORS)
    queries = QueryEmbeddings(embedder)
    vector = query_vector(
        queries, "and that", ["it ate raisins"], query_chars=1000, context_weight=0.5
    )
    assert vector is not None
    np.testing.assert_allclose(vector, np.array([0, 0.5, 0, 1]) / np.hypot(0.5, 1), atol=1e-6)
    alone = query_vector(
        queries, "and that", ["it ate raisins"], query_chars=1000, context_weight=0
    )
    assert alone is not None
    np.testing.assert_allclose(alone, [0, 0, 0, 1], atol=1e-6)
    assert query_vector(queries, "  ", [], query_chars=1000, context_weight=0.5) is None


def test_a_long_message_is_embedded_by_its_two_ends() -> None:
    embedder = TableEmbedder({})
    text = "a" * 30 + "b" * 30
    query_vector(QueryEmbeddings(embedder), text, [], query_chars=20, context_weight=0.5)
    assert embedder.embedded == ["a" * 10 + "\n" + "b" * 10]


def test_the_document_text_is_title_summary_topics_and_the_head_of_the_text() -> None:
    document = PolicyDocument.model_validate(
        policy(
            "x",
            title="Refunds.",
            summary="Money back.",
            tags=["returns", "money"],
            text="Refunds are due   within thirty days of purchase.",
        )
    )
    assert document_text(document, 300) == (
        "Refunds. Money back. Topics: returns, money. "
        "Refunds are due within thirty days of purchase."
    )
    assert document_text(document, 20).endswith("Topics: returns, money. Refunds are due")
    assert document_text(document, 0) == "Refunds. Money back. Topics: returns, money."
