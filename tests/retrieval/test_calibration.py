"""Calibration from a tenant's examples: per-policy thresholds from the messages each policy is
not for, and how a calibrated index scores and selects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import govcore
from govcore.backends.tfidf import TfidfRetriever
from govcore.policy import PolicyDocument
from govcore.retrieval.calibration import (
    CalibrationOptions,
    enough_examples,
    example_coverage,
    fit_thresholds,
    off_topic_messages,
    sample_examples,
)
from govcore.testing import FakeClock
from tests.support import policy

KEY = "gk_calibration_test_001"

# A public library's assistant: nothing like the example retailer.
LIBRARY = [
    policy(
        "late-fines",
        title="Fines for late returns",
        summary="Overdue items cost 20 pence a day, capped at the item's price.",
        tags=["fines", "overdue"],
        examples=[
            "how much do I owe for the overdue novel",
            "is there a daily charge if I keep the DVD longer",
            "my son kept three books a month too long, what will that cost",
            "do you cap the fee for an overdue item",
            "I got a letter about money owed for a late book",
        ],
    ),
    policy(
        "room-booking",
        title="Booking the study rooms",
        summary="Study rooms are booked online for at most two hours a day.",
        tags=["rooms"],
        examples=[
            "can I reserve the quiet room for my exam revision",
            "is the group room free on saturday afternoon",
            "we need a space for four people to study together",
            "how long can I keep the study room",
            "book me a room for tomorrow morning",
        ],
    ),
    policy(
        "printing",
        title="Printing and copying",
        summary="Printing costs 10 pence a page, paid at the desk or with the library card.",
        tags=["printing"],
        examples=[
            "the printer on floor two is jammed",
            "how do I print from my phone",
            "can I scan a document and email it to myself",
            "is colour copying more expensive",
            "I need twenty copies of a flyer",
        ],
    ),
    policy(
        "lost-items",
        title="Lost or damaged items",
        summary="A lost or damaged item is charged at its replacement price.",
        tags=["lost", "damaged"],
    ),
]


def _documents(policies: list[dict[str, Any]]) -> list[PolicyDocument]:
    return [PolicyDocument.model_validate(p) for p in policies]


def _negatives(rows: list[tuple[int, list[float]]]) -> Iterator[tuple[int, np.ndarray]]:
    return ((owner, np.asarray(scores, dtype=np.float64)) for owner, scores in rows)


# --- the threshold rule ----------------------------------------------------------------------


def test_a_threshold_sits_just_above_what_the_allowed_share_of_negatives_reaches() -> None:
    """With 100 messages not meant for a policy and a 2% false-positive rate, two of them may
    clear its bar: the threshold is just above the third highest score."""
    scores = [(-1, [s / 100, 0.0]) for s in range(1, 101)]  # 0.01 .. 1.00 for policy 0
    calibration = fit_thresholds(
        _negatives(scores),
        len(scores),
        2,
        0.1,
        CalibrationOptions(false_positive_rate=0.02, max_threshold=1.0),
    )
    threshold = calibration.thresholds[0]
    assert 0.98 < threshold < 0.9801
    # Exactly two negatives (0.99, 1.00) clear it: the 2% allowed.
    assert sum(1 for _, s in scores if s[0] >= threshold) == 2
    # A policy no negative comes near keeps the floor.
    assert calibration.thresholds[1] == 0.1
    assert calibration.raised == 1


def test_a_policy_s_own_examples_are_not_its_negatives() -> None:
    """Messages that are examples of a policy never raise that policy's bar."""
    own = [(0, [0.9, 0.9]) for _ in range(20)]  # policy 0's examples, near policy 1 too
    others = [(1, [0.05, 0.9]) for _ in range(20)]  # policy 1's examples
    calibration = fit_thresholds(
        _negatives(own + others), 40, 2, 0.1, CalibrationOptions(max_threshold=1.0)
    )
    assert calibration.thresholds[0] == 0.1  # its own 0.9s do not count against it
    assert calibration.thresholds[1] > 0.9  # policy 0's examples all reach 0.9 on policy 1


def test_thresholds_stay_between_the_floor_and_the_ceiling() -> None:
    scores = [(-1, [1.0, 0.0]) for _ in range(50)]
    calibration = fit_thresholds(
        _negatives(scores), 50, 2, 0.2, CalibrationOptions(max_threshold=0.45)
    )
    assert calibration.thresholds.tolist() == [0.45, 0.2]


def test_relevance_puts_each_policy_s_threshold_at_the_floor() -> None:
    """A policy scoring exactly its own threshold gets relevance ``floor``; a hair under it,
    less than the floor (so it is not selected)."""
    scores = [(-1, [s / 100, 0.0]) for s in range(1, 101)]
    calibration = fit_thresholds(
        _negatives(scores), 100, 2, 0.1, CalibrationOptions(max_threshold=1.0)
    )
    at = calibration.thresholds[0]
    relevance = calibration.relevance(np.array([at, 0.1]))
    assert relevance[0] == pytest.approx(0.1)
    assert relevance[1] == pytest.approx(0.1)  # at the floor, unscaled
    assert calibration.relevance(np.array([at - 1e-3, 0.0]))[0] < 0.1
    assert calibration.relevance(np.array([50.0, 50.0])).tolist() == [1.0, 1.0]


def test_false_positive_rate_must_be_a_share() -> None:
    with pytest.raises(ValueError, match="false_positive_rate"):
        CalibrationOptions(false_positive_rate=0.0)


def test_how_many_examples_calibration_needs() -> None:
    options = CalibrationOptions(min_examples=10, min_policies=3)
    assert enough_examples([5, 5, 1], options)
    assert not enough_examples([5, 5, 0], options)  # only two policies have examples
    assert not enough_examples([3, 3, 3], options)  # nine examples in all


def test_a_large_set_scores_a_spread_sample_of_its_examples() -> None:
    """Every policy's first example comes before any policy's second."""
    owners = [0, 0, 0, 1, 1, 2]
    assert sample_examples(owners, 10) == [0, 1, 2, 3, 4, 5]
    assert sample_examples(owners, 3) == [0, 3, 5]
    assert sample_examples(owners, 4) == [0, 1, 3, 5]


def test_the_generic_messages_cover_seven_languages_without_repeats() -> None:
    messages = off_topic_messages()
    assert len(messages) >= 400
    assert len(set(messages)) == len(messages)
    assert {"bonjour", "danke"} & {m.lower().strip("!?. ") for m in messages}


def test_coverage_counts_recall_precision_and_confusions() -> None:
    held_out = [
        (0, "a", [0]),
        (0, "b", [1]),  # a miss that selects policy 1
        (1, "c", [1]),
        (1, "d", [1, 0]),  # selects its own and policy 0
    ]
    first, second, third = example_coverage(held_out, [2, 2, 0])
    assert first.recall == 0.5
    assert first.precision == 0.5
    assert [m.example for m in first.misses] == ["b"]
    assert first.misses[0].selected == (1,)
    assert dict(first.confused_with) == {1: 1}
    assert second.recall == 1.0
    assert second.precision == pytest.approx(2 / 3)
    assert dict(second.confused_with) == {0: 1}
    assert third.recall is None
    assert third.precision is None
    assert third.examples == 0


# --- a calibrated index ----------------------------------------------------------------------


def test_a_policy_set_without_enough_examples_is_scored_as_before() -> None:
    """Without examples nothing is calibrated, and scores equal those of calibration off."""
    bare = _documents([{k: v for k, v in p.items() if k != "examples"} for p in LIBRARY])
    default = TfidfRetriever().index(bare)
    off = TfidfRetriever(calibration=None).index(bare)
    assert default.calibration is None
    for message in ["what is the fine for a late book", "print my essay", "hello"]:
        assert np.array_equal(default.scores(message), off.scores(message))


def test_a_policy_set_with_examples_is_calibrated_the_same_way_every_time() -> None:
    documents = _documents(LIBRARY)
    first = TfidfRetriever().index(documents)
    second = TfidfRetriever().index(documents)
    assert first.calibration is not None
    assert second.calibration is not None
    assert np.array_equal(first.calibration.thresholds, second.calibration.thresholds)
    assert (first.calibration.thresholds >= first.scoring.min_relevance).all()
    # Negatives: 15 examples and every generic message.
    assert first.calibration.negatives == 15 + len(off_topic_messages())


def test_calibration_rescales_exactly_by_each_policy_s_threshold() -> None:
    """A calibrated score is the uncalibrated one times floor / the policy's threshold."""
    index = TfidfRetriever().index(_documents(LIBRARY))
    assert index.calibration is not None
    floor = index.scoring.min_relevance
    for message in ["how much is the fine for an overdue book", "reserve a room please"]:
        raw = index.uncalibrated_scores(message)
        expected = np.minimum(raw * floor / index.calibration.thresholds, 1.0)
        assert np.allclose(index.scores(message), expected)


def test_an_example_still_selects_its_policy_when_calibrated() -> None:
    index = TfidfRetriever().index(_documents(LIBRARY))
    hits = index.search("how do I print from my phone", top_k=3)
    assert hits
    assert hits[0].position == 2
    assert hits[0].score == 1.0


# --- the conversation: the message leads -----------------------------------------------------


def _governance(policies: list[dict[str, Any]], **settings: Any) -> govcore.Governance:
    return govcore.Governance.from_config(
        {
            "settings": settings,
            "tenants": {"lib": {"policies": policies}},
            "keys": [{"key": KEY, "tenant": "lib", "settings": {"rate_limit_per_minute": 10**9}}],
        },
        clock=FakeClock(),
    )


def _selected(gov: govcore.Governance, message: str, context: list[str]) -> set[str]:
    explanation = gov.client(KEY).explain_selection(message, recent_context=context)
    return {c.policy_id for c in explanation.candidates if c.reason == "selected"}


def test_a_new_subject_is_selected_at_the_turn_it_is_raised() -> None:
    """Three turns about study rooms do not drown a message about printing: the turn that
    raises it makes it active, in explanations and in the recorded conversation alike."""
    gov = _governance(LIBRARY)
    context = [
        "I want to book a study room for my group",
        "the study rooms are booked online, two hours a day at most",
        "ok can we book the quiet study room on saturday for two hours",
    ]
    message = "and the printer jammed with my pages"
    assert "printing" in _selected(gov, message, context)
    recorded = gov.client(KEY).record_turn(
        {"sessionId": "s", "turn": {"role": "user", "content": message}, "recentContext": context}
    )
    assert "printing" in {p.id for p in recorded.active_policies}


def test_the_context_says_what_an_unclear_message_is_about() -> None:
    gov = _governance(LIBRARY)
    unclear = "and how much would that be?"
    assert _selected(gov, unclear, []) == set()
    context = ["I returned the novel three weeks late, is there an overdue fine?"]
    assert "late-fines" in _selected(gov, unclear, context)


def test_relative_relevance_is_a_setting() -> None:
    """A message with two subjects keeps both under a low relative cut, and loses the weaker
    one under a cut close to 1."""
    message = "what is the fine for overdue books, and can I book a study room"
    kept = _selected(_governance(LIBRARY, relative_relevance=0.2), message, [])
    assert {"late-fines", "room-booking"} <= kept
    strict = _selected(_governance(LIBRARY, relative_relevance=1.0), message, [])
    assert len(strict) == 1


def test_a_minimum_relevance_of_zero_turns_calibration_off() -> None:
    """With ``min_relevance: 0`` there is no bar to scale each threshold to: the policy set is
    not calibrated, and a message about printing still selects printing."""
    index = TfidfRetriever(min_relevance=0.0).index(_documents(LIBRARY))
    assert index.calibration is None
    gov = _governance(LIBRARY, min_relevance=0.0)
    recorded = gov.client(KEY).record_turn(
        {"sessionId": "z", "turn": {"role": "user", "content": "the printer on floor three jammed"}}
    )
    assert "printing" in {p.id for p in recorded.active_policies}
