"""Property tests of the per-turn diff (interface spec §3, §4.1, §4.2; library contract §3).

Random conversations go through the typed client and every turn's diff is checked against the
previous turn and against the read-only snapshot. Hold-and-release is checked against a simple
model by driving :func:`govcore.core.conversation.advance_conversation` with controlled selections.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.conversation import ConversationRules, ConversationState, advance_conversation
from tests.support import (
    ACME_AREAS,
    ACME_BY_ID,
    ACME_POLICIES,
    ALWAYS_ON_IDS,
    AREA_OF,
    LIFECYCLE_FULL_KEY,
    START_TIME,
    AppliesWhenModel,
    FakeClock,
)

POLICY_PHRASES = [
    "refund",
    "money back",
    "credit card number",
    "cvv code",
    "delete my account",
    "close my account",
    "erasure",
    "gdpr",
    "export my personal data",
    "newsletter",
    "unsubscribe",
    "marketing email",
    "chargeback",
    "bank dispute",
    "lawyer",
    "sue you",
    "lawsuit",
    "parcel tracking",
    "lost delivery",
    "shipping delay",
]
CHIT_CHAT = [
    "hello",
    "thanks",
    "nice weather",
    "pizza",
    "cats",
    "how are you",
    "good morning",
    "lol",
    "see you",
    "bye",
]
_session_ids = itertools.count()


def _new_session() -> str:
    return f"diff-{next(_session_ids)}"


texts = st.lists(st.sampled_from(POLICY_PHRASES + CHIT_CHAT), max_size=8).map(" ".join)
chit_chat = st.lists(st.sampled_from(CHIT_CHAT), min_size=1, max_size=5).map(" ".join)
attribute_values = st.sampled_from(["EU", "UK", "US", ["US", "UK"], ["US"], 1, True, None])
attributes = st.none() | st.fixed_dictionaries(
    {},
    optional={"region": attribute_values, "tier": st.sampled_from(["gold", "basic"])},
)
area_ids = st.none() | st.lists(
    st.sampled_from([*ACME_AREAS, "no-such-area"]), max_size=3, unique=True
)
roles = st.sampled_from(["user", "assistant", "tool"])
recent_contexts = st.lists(texts, max_size=3)
budgets = st.integers(50, 4000)
clock_steps = st.sampled_from([0.0, 0.25, 1.0, 30.0, 600.0])
history_entries = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "tool"]), "content": texts}
    ),
    max_size=3,
)


@st.composite
def turn_specs(draw: st.DrawFn) -> dict[str, Any]:
    """One turn's request fields (without sessionId and priorHistory) and a clock step."""
    request: dict[str, Any] = {"turn": {"role": draw(roles), "content": draw(texts)}}
    attrs = draw(attributes)
    if attrs is not None:
        request["endUserContext"] = {"attributes": attrs}
    areas = draw(area_ids)
    if areas is not None or draw(st.booleans()):
        request["policyAreaIds"] = areas
    if draw(st.booleans()):
        request["recentContext"] = draw(recent_contexts)
    if draw(st.booleans()):
        request["tokenBudget"] = draw(budgets)
    return {"request": request, "step": draw(clock_steps)}


def _ids(policies: list[govcore.ApplicablePolicy]) -> list[str]:
    return [p.id for p in policies]


def _attributes_of(request: Mapping[str, Any]) -> Mapping[str, Any] | None:
    context = request.get("endUserContext")
    return context.get("attributes") if context else None


def _epoch(ts: str) -> float:
    assert ts.endswith("Z"), ts
    return datetime.fromisoformat(ts).timestamp()


def _check_policy_fields(policy: govcore.ApplicablePolicy) -> None:
    source = ACME_BY_ID[policy.id]
    assert policy.title == source["title"]
    assert policy.summary == source["summary"]
    assert policy.severity == source["severity"]
    assert policy.enforcement == source["enforcement"]
    assert policy.citation_ref == source["citationRef"]
    assert policy.tags == source.get("tags", [])


@settings(max_examples=80, deadline=None)
@given(
    turns=st.lists(turn_specs(), min_size=1, max_size=8),
    history=st.none() | history_entries,
)
def test_diff_is_consistent_turn_by_turn(
    module_governance: govcore.Governance,
    module_clock: FakeClock,
    turns: list[dict[str, Any]],
    history: list[dict[str, str]] | None,
) -> None:
    """Each turn's diff partitions its active policies, agrees with the previous turn and the snapshot."""
    client = module_governance.client(LIFECYCLE_FULL_KEY)
    session_id = _new_session()
    previous: set[str] = set()
    previous_index = len(history) if history else 0
    newly_by_turn: list[set[str]] = []
    log: list[dict[str, Any]] = []
    applicability = AppliesWhenModel()

    for number, spec in enumerate(turns):
        module_clock.advance(spec["step"])
        request = {"sessionId": session_id, **spec["request"]}
        if number == 0 and history is not None:
            request["priorHistory"] = history
        response = client.record_turn(request)

        active = _ids(response.active_policies)
        newly = _ids(response.diff.newly_applicable)
        still = _ids(response.diff.still_active)
        released = _ids(response.diff.newly_released)
        applicability.keep_for(previous)  # what the state stored after the turn before
        applicability.record(_attributes_of(spec["request"]))

        # No bucket lists a policy twice.
        for bucket in (active, newly, still, released):
            assert len(bucket) == len(set(bucket)), bucket
        # newlyApplicable and stillActive partition activePolicies.
        assert set(newly) | set(still) == set(active)
        assert not set(newly) & set(still)
        # Released policies are not active; still-active and released ones were active before.
        assert not set(released) & set(active)
        assert set(still) <= previous
        assert set(released) <= previous
        assert not set(newly) & previous
        # Nothing that was active disappears without a release.
        assert previous <= set(active) | set(released)

        # One binding_started per newly applicable, one binding_released per release.
        events = response.diff.binding_events
        kinds = Counter((e.event, e.policy_id) for e in events)
        expected = Counter(
            [("binding_started", pid) for pid in newly]
            + [("binding_released", pid) for pid in released]
        )
        assert kinds == expected
        for event in events:
            assert event.turn_index == response.turn_index
            assert math.isclose(_epoch(event.ts), module_clock.now, abs_tol=0.002)

        # turnIndex counts from 1, after any priorHistory, one per turn.
        assert response.turn_index == previous_index + 1

        # Policies are the tenant's, shown as written; alwaysOn ones always apply, appliesWhen
        # ones only while the latest attributes that decided them matched, new ones only from
        # the requested areas.
        for policy in response.active_policies:
            _check_policy_fields(policy)
            assert applicability.applies(policy.id), (policy.id, applicability.verdicts)
        assert set(active) >= ALWAYS_ON_IDS
        areas = spec["request"].get("policyAreaIds")
        if areas is not None:
            for pid in set(newly) - ALWAYS_ON_IDS:
                assert AREA_OF[pid] in areas, (pid, areas)
        # A held policy whose appliesWhen still matches is released only after three
        # consecutive turns without selection: it was not newly applicable in the last two.
        for pid in released:
            if applicability.applies(pid):
                assert all(pid not in earlier for earlier in newly_by_turn[-2:]), pid
                assert pid not in ALWAYS_ON_IDS

        # The injection block exists exactly when something applies, and fits the budget.
        budget = spec["request"].get("tokenBudget", 600)
        assert 0 <= response.token_estimate <= budget
        if not active:
            assert response.injection_block == ""
        assert (response.injection_block == "") == (response.token_estimate == 0)

        # The read-only snapshot after the turn matches the turn's answer.
        log.extend(e.model_dump(mode="json", by_alias=True) for e in events)
        snapshot = client.get_conversation(session_id)
        assert snapshot.session_id == session_id
        assert snapshot.turn_count == response.turn_index
        assert snapshot.active_policies == response.active_policies
        assert snapshot.injection_block == response.injection_block
        assert [e.model_dump(mode="json", by_alias=True) for e in snapshot.binding_log] == log
        assert math.isclose(_epoch(snapshot.updated_at), module_clock.now, abs_tol=0.002)

        previous = set(active)
        previous_index = response.turn_index
        newly_by_turn.append(set(newly))


@settings(max_examples=25, deadline=None)
@given(
    opening=st.lists(st.sampled_from(POLICY_PHRASES), min_size=1, max_size=4).map(" ".join),
    gaps=st.lists(chit_chat, min_size=3, max_size=3),
    region=st.sampled_from(["EU", "US"]),
)
def test_unselected_policy_is_held_two_turns_then_released(
    module_governance: govcore.Governance,
    module_clock: FakeClock,
    opening: str,
    gaps: list[str],
    region: str,
) -> None:
    """A policy no later turn selects stays active for two more turns and is released at the third."""
    client = module_governance.client(LIFECYCLE_FULL_KEY)
    session_id = _new_session()
    context = {"endUserContext": {"attributes": {"region": region}}}
    first = client.record_turn(
        {"sessionId": session_id, "turn": {"role": "user", "content": opening}, **context}
    )
    held = set(_ids(first.active_policies)) - ALWAYS_ON_IDS

    for gap, text in enumerate(gaps, start=1):
        module_clock.advance(5)
        response = client.record_turn(
            {"sessionId": session_id, "turn": {"role": "user", "content": text}, **context}
        )
        # Chit-chat shares no word with any policy: it selects nothing but the alwaysOn ones.
        assert set(_ids(response.diff.newly_applicable)) <= ALWAYS_ON_IDS
        active = set(_ids(response.active_policies))
        if gap < 3:
            assert held <= active
            assert held <= set(_ids(response.diff.still_active))
            assert not response.diff.newly_released
        else:
            assert set(_ids(response.diff.newly_released)) == held
            assert active == ALWAYS_ON_IDS


# --- hold-and-release against a model, through the pure core ---------------------------------

POLICY_SET = govcore.PolicySet.from_documents("acme", ACME_POLICIES)
POLICY_IDS = [p["id"] for p in ACME_POLICIES]


turn_counts = st.integers(1, 14)
region_attributes = st.none() | st.fixed_dictionaries({"region": attribute_values})
chosen_ids = st.lists(st.sampled_from(POLICY_IDS), max_size=4, unique=True)
relevances = st.floats(0.0, 1.0)


def _count(text: str) -> int:
    return -(-len(text) // 4)


@st.composite
def controlled_turns(draw: st.DrawFn) -> list[tuple[dict[str, float], dict[str, Any] | None]]:
    """Per turn: what retrieval found (before appliesWhen), and attributes."""
    turns = []
    for _ in range(draw(turn_counts)):
        attrs = draw(region_attributes)
        found = {pid: draw(relevances) for pid in draw(chosen_ids)}
        turns.append((found, attrs))
    return turns


@settings(max_examples=200, deadline=None)
@given(
    turns=controlled_turns(),
    release_after=st.integers(1, 5),
    prior_turns=st.integers(0, 4),
)
def test_hold_and_release_follows_model(
    turns: list[tuple[dict[str, float], dict[str, Any] | None]],
    release_after: int,
    prior_turns: int,
) -> None:
    """A policy stays active until it goes unselected for the set number of turns or stops applying."""
    rules = ConversationRules(release_after_unselected_turns=release_after)
    state: ConversationState | None = None
    model: dict[str, int] = {}  # active policy id -> turn it was last selected
    applicability = AppliesWhenModel()
    turn_index = prior_turns
    now = START_TIME

    for found, attrs in turns:
        turn_index += 1
        now += 1.5
        applicability.keep_for(model)  # what the state stored after the turn before
        applicability.record(attrs)
        # The selection filtered by appliesWhen, as the facade does with the stored verdicts.
        selected = {pid: score for pid, score in found.items() if applicability.applies(pid)}
        expected: dict[str, int] = {}
        released: set[str] = set()
        for pid, last in model.items():
            if pid in selected:
                expected[pid] = turn_index
            elif applicability.applies(pid) and turn_index - last < release_after:
                expected[pid] = last
            else:
                released.add(pid)
        started = {pid for pid in selected if pid not in model}
        for pid in started:
            expected[pid] = turn_index

        outcome = advance_conversation(
            state,
            policy_set=POLICY_SET,
            selected=selected,
            attributes=attrs,
            prior_turns=prior_turns,  # counts on the first call only
            now=now,
            token_budget=600,
            count_tokens=_count,
            rules=rules,
        )

        assert outcome.turn_index == turn_index
        assert outcome.state.turn_count == turn_index
        assert {p.id for p in outcome.active} == set(expected)
        assert {p.id for p in outcome.newly_applicable} == started
        assert {p.id for p in outcome.still_active} == set(expected) - started
        assert {p.id for p in outcome.newly_released} == released
        assert Counter((e.event, e.policy_id) for e in outcome.events) == Counter(
            [("binding_started", pid) for pid in started]
            + [("binding_released", pid) for pid in released]
        )
        assert all(e.turn_index == turn_index for e in outcome.events)
        block, estimate = outcome.state.injection_block, outcome.token_estimate
        assert estimate == _count(block) <= 600
        assert (block == "") == (not expected)

        # What the facade stores and reads back behaves the same.
        state = ConversationState.from_bytes(outcome.state.to_bytes())
        assert state == outcome.state
        model = expected
