"""The floor of matched IDF mass (``min_matched_idf``) of the default retriever.

Four policies share the words "customer" and "order" (in every policy: IDF 1 with smoothed
IDF over four documents) and each has words of its own (IDF 1 + ln 2.5, about 1.92), so the
evidence a message has for each policy can be counted by hand.
"""

from __future__ import annotations

import math

import pytest

from govcore.backends.tfidf import TfidfRetriever
from govcore.policy import PolicyDocument
from govcore.retrieval.tfidf_index import TfidfIndex
from tests.support import policy


def _policy(pid: str, own: str, **fields: object) -> PolicyDocument:
    return PolicyDocument.model_validate(
        policy(pid, title=pid.title(), summary=f"Customer order {own}.", **fields)
    )


POLICIES = [
    _policy("refunds", "refunds", text="A customer order can be refunded within thirty days."),
    _policy("shipping", "shipping", text="A customer order ships by courier or carrier."),
    _policy("privacy", "privacy", text="Customer order data stays private."),
    _policy(
        "loyalty",
        "loyalty",
        text="Each customer order earns loyalty points.",
        examples=["bonus stars for my purchase"],
    ),
]
REFUNDS, SHIPPING, PRIVACY, LOYALTY = range(4)
COMMON = 1.0  # "customer", "order": in all four policies
RARE = 1.0 + math.log(5 / 2)  # a word of one policy only

# "refund" (rare) and "order" (common); the words this index does not know count for nothing.
ONE_RARE_TERM = "Can I get a refund on my order?"
# For the refunds policy, only common words: "customer", "order"; the rest is shipping's.
ONLY_COMMON_WORDS = "my customer order went to the wrong courier carrier"


def _index(floor: float) -> TfidfIndex:
    return TfidfRetriever(min_matched_idf=floor, calibration=None).index(POLICIES)


def test_a_message_sharing_one_rare_term_passes_the_floor() -> None:
    """The refunds policy has RARE + COMMON of the message's evidence, above a floor of 2.5
    (itself capped at half the message's own mass, 1.46): its score is what it is without
    the floor. The policies sharing only "order" have 1.0 and are cut to 0."""
    floored, plain = _index(2.5), _index(0.0)
    scores, unfloored = floored.scores(ONE_RARE_TERM), plain.scores(ONE_RARE_TERM)
    assert scores[REFUNDS] == pytest.approx(unfloored[REFUNDS])
    assert scores[REFUNDS] > 0.0
    assert unfloored[PRIVACY] > 0.0  # "order" alone gives it a score without the floor
    assert scores[PRIVACY] == 0.0
    assert [hit.position for hit in floored.search(ONE_RARE_TERM, top_k=4)] == [REFUNDS]


def test_a_policy_sharing_only_common_words_with_the_message_is_cut() -> None:
    """For the refunds policy the message's evidence is 2 x COMMON = 2.0, under the floor of
    2.5 (the message's mass, 2 x COMMON + 2 x RARE, is large enough not to cap it); shipping
    has all of it."""
    assert 2 * COMMON < 2.5 < (2 * COMMON + 2 * RARE) / 2
    floored, plain = _index(2.5), _index(0.0)
    assert plain.scores(ONLY_COMMON_WORDS)[REFUNDS] > 0.0
    scores = floored.scores(ONLY_COMMON_WORDS)
    assert scores[REFUNDS] == 0.0
    assert scores[SHIPPING] == pytest.approx(plain.scores(ONLY_COMMON_WORDS)[SHIPPING])
    assert [hit.position for hit in floored.search(ONLY_COMMON_WORDS, top_k=4)] == [SHIPPING]


def test_the_floor_never_asks_a_short_message_for_more_than_half_its_own_mass() -> None:
    """A floor of 10 is far above any one word's IDF, but "refund please" has only RARE of
    mass: its policy needs half of that, and has all of it."""
    assert RARE < 10.0
    scores = _index(10.0).scores("refund please")
    assert scores[REFUNDS] > 0.0
    assert scores[SHIPPING] == scores[PRIVACY] == scores[LOYALTY] == 0.0


def test_a_message_close_to_an_example_keeps_its_policy_under_the_floor() -> None:
    """The message shares "bonus" and "star" with the loyalty policy's example (2 x RARE of
    evidence) and has three other policies' words: its mass is 5 x RARE, so the floor of 4.5
    applies in full and the loyalty text's score is 0. The example still raises the policy,
    and the explanation names it."""
    message = "bonus stars, courier carrier, refund"
    assert 2 * RARE < 4.5 < 5 * RARE / 2
    explanation = _index(4.5).explain(message)
    loyalty = next(entry for entry in explanation.scores if entry.position == LOYALTY)
    assert loyalty.lexical == 0.0
    assert loyalty.score > 0.0
    assert loyalty.example == "bonus stars for my purchase"


def test_context_counts_as_evidence_at_its_weight() -> None:
    """The message says nothing of shipping; its context does. Read with its context, the
    turn has RARE (refund) + 2 x COMMON + 2 x RARE of mass, and shipping has all of the
    context's: 5.8, above the floor of 2.5. Scored on the message's evidence alone, it would
    have 0."""
    context = [ONLY_COMMON_WORDS]
    plain = _index(0.0).scores("is the refund late?", context=context)
    scores = _index(2.5).scores("is the refund late?", context=context)
    assert scores[SHIPPING] > 0.0
    assert scores[SHIPPING] == pytest.approx(plain[SHIPPING])
    # At a context weight of 0.25 the context's evidence for shipping is 1.46, under the floor
    # (capped at half the turn's mass: 1.69).
    light = TfidfRetriever(min_matched_idf=2.5, context_weight=0.25, calibration=None)
    assert light.index(POLICIES).scores("is the refund late?", context=context)[SHIPPING] == 0.0


def test_the_floor_is_off_by_default() -> None:
    assert TfidfRetriever().min_matched_idf == 0.0
    assert TfidfRetriever(calibration=None).index(POLICIES).scores(ONE_RARE_TERM)[PRIVACY] > 0.0


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_a_negative_floor_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="min_matched_idf"):
        TfidfRetriever(min_matched_idf=bad)


def test_evidence_equal_to_the_floor_is_enough() -> None:
    """The refunds policy has exactly 2 x COMMON = 2.0 of the message's evidence (smoothed
    IDF of a word in every policy is exactly 1): a floor of 2.0 keeps it, one a little above
    cuts it."""
    assert _index(2.0).scores(ONLY_COMMON_WORDS)[REFUNDS] > 0.0
    assert _index(2.01).scores(ONLY_COMMON_WORDS)[REFUNDS] == 0.0
