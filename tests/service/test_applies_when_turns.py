"""``appliesWhen`` across the turns of a conversation (docs/decisions/applies-when.md).

What the end user's attributes last decided of each conditional policy holds until a turn
carrying attributes decides it otherwise, so an assistant's turn sent without attributes does
not release (and the next user turn start again) a policy the user's turn made applicable. Only
the verdicts are stored, never the attribute values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.core.conversation import AppliesWhenVerdicts, ConversationState
from govcore.service.store_keys import conversation_key
from govcore.testing import FakeClock
from tests.support import FULL_KEY, config, policy, turn

PERSONAL_DATA = "Please send me a copy of all my personal data"
REPLY = "Of course, I will ask the privacy team to prepare it."
EU = {"endUserContext": {"attributes": {"region": "EU"}}}
US = {"endUserContext": {"attributes": {"region": "US"}}}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=1_800_000_000.0)


@pytest.fixture
def store(clock: FakeClock) -> MemoryStore:
    return MemoryStore(clock=clock)


@pytest.fixture
def client(clock: FakeClock, store: MemoryStore) -> govcore.GovernanceClient:
    return govcore.Governance.from_config(config(), clock=clock, store=store).client(FULL_KEY)


def _ids(policies: list[govcore.ApplicablePolicy]) -> list[str]:
    return [p.id for p in policies]


def _events_of(response: govcore.TurnResponse, policy_id: str) -> list[str]:
    return [e.event for e in response.diff.binding_events if e.policy_id == policy_id]


def test_an_assistant_turn_without_attributes_keeps_the_policy_the_user_turn_made_applicable(
    client: govcore.GovernanceClient,
) -> None:
    """user {region: EU}, assistant without attributes, user {region: EU}: one start, no release."""
    first = client.record_turn(turn("s", PERSONAL_DATA, **EU))
    assert "gdpr" in _ids(first.diff.newly_applicable)

    reply = client.record_turn(turn("s", REPLY, role="assistant"))
    assert "gdpr" in _ids(reply.diff.still_active)
    assert _events_of(reply, "gdpr") == []

    again = client.record_turn(turn("s", "Thanks, and how long does that take?", **EU))
    assert "gdpr" in _ids(again.diff.still_active)
    assert _events_of(again, "gdpr") == []

    # A later user turn whose attributes say otherwise releases it at once.
    moved = client.record_turn(turn("s", "ok", **US))
    assert "gdpr" in _ids(moved.diff.newly_released)
    assert _events_of(moved, "gdpr") == ["binding_released"]


def test_only_the_verdicts_of_active_policies_are_kept(
    client: govcore.GovernanceClient,
) -> None:
    """The state keeps the match of an active policy's condition and nothing else: after an
    EU turn about something else, the EU-only policy was not active, so a later user turn
    without attributes cannot select it (its condition is judged again when attributes
    come); after an EU turn that selected it, the same turn keeps it."""
    client.record_turn(turn("s", "hello there", **EU))
    later = client.record_turn(turn("s", PERSONAL_DATA))
    assert "gdpr" not in _ids(later.active_policies)
    client.record_turn(turn("t", PERSONAL_DATA, **EU))
    kept = client.record_turn(turn("t", REPLY, role="assistant"))
    assert "gdpr" in _ids(kept.active_policies)


def test_attributes_that_name_nothing_a_condition_asks_for_keep_its_verdict(
    client: govcore.GovernanceClient,
) -> None:
    """{tier: gold} says nothing of region: the EU verdict holds."""
    client.record_turn(turn("s", PERSONAL_DATA, **EU))
    other = client.record_turn(
        turn("s", REPLY, role="assistant", endUserContext={"attributes": {"tier": "gold"}})
    )
    assert "gdpr" in _ids(other.active_policies)
    assert _events_of(other, "gdpr") == []


def test_at_the_start_of_a_conversation_a_turn_without_attributes_behaves_as_before(
    client: govcore.GovernanceClient,
) -> None:
    """No attributes yet: a conditional policy does not apply."""
    first = client.record_turn(turn("s", PERSONAL_DATA))
    assert "gdpr" not in _ids(first.active_policies)


def test_the_stored_state_holds_no_attribute_value(
    client: govcore.GovernanceClient, store: MemoryStore
) -> None:
    """The specification: attributes are not stored. Only which condition matched is."""
    attributes = {"region": "EU", "email": "lena.kovac@example.com", "tier": "summit-gold"}
    client.record_turn(turn("s", PERSONAL_DATA, endUserContext={"attributes": attributes}))
    client.record_turn(turn("s", REPLY, role="assistant"))
    raw = store.get(conversation_key("acme", "s"))
    assert raw is not None
    for text in ("EU", "region", "lena.kovac@example.com", "email", "tier", "summit-gold"):
        assert text.encode() not in raw, text
    # What is stored in their place: the verdict on gdpr's condition (the only one).
    state = ConversationState.from_bytes(raw)
    assert list(state.verdicts.decided.values()) == [True]


def test_a_conversation_without_attributes_stores_what_earlier_versions_stored(
    client: govcore.GovernanceClient, store: MemoryStore
) -> None:
    """No verdicts, no new field: the header keeps the keys it always had."""
    client.record_turn(turn("s", "refund please"))
    raw = store.get(conversation_key("acme", "s"))
    assert raw is not None
    header = json.loads(raw.partition(b"\n")[0])
    assert set(header) == {"v", "turns", "active", "block", "updated", "events"}


# What the version before verdicts wrote for one EU turn about personal data (config()).
STATE_BEFORE_VERDICTS = (
    b'{"v":2,"turns":1,"active":[["ai-disclosure",1,1],["gdpr",1,1]],"block":"Applicable '
    b"company policies (follow them; cite the reference in brackets when one shapes your "
    b"answer):\\n- [POL-AI-DISCLOSURE] Say you are an AI (severity 4, warning): The assistant "
    b"says it is an AI when asked.\\n- [POL-GDPR] Personal data requests (severity 4, warning):"
    b' Data access and erasure requests go to the privacy team within 30 days.","updated":'
    b'1800000000.0,"events":2}\n[1,"ai-disclosure",0,"2027-01-15T08:00:00.000Z"]\n'
    b'[1,"gdpr",0,"2027-01-15T08:00:00.000Z"]\n'
)


@pytest.mark.parametrize(
    ("next_turn", "gdpr_after"),
    [
        # no verdicts yet: a turn without attributes releases it, as that version did
        ({"role": "assistant"}, False),
        # attributes decide: the policy is held, and from now on the verdict is kept
        ({"role": "user", **EU}, True),
    ],
)
def test_state_written_before_verdicts_still_loads(
    client: govcore.GovernanceClient,
    store: MemoryStore,
    clock: FakeClock,
    next_turn: dict[str, Any],
    gdpr_after: bool,
) -> None:
    key = conversation_key("acme", "old")
    store.set(key, STATE_BEFORE_VERDICTS, expires_at=clock() + 600)
    snapshot = client.get_conversation("old")
    assert snapshot.turn_count == 1
    assert _ids(snapshot.active_policies) == ["ai-disclosure", "gdpr"]

    response = client.record_turn(turn("old", REPLY, **next_turn))
    assert response.turn_index == 2
    assert ("gdpr" in _ids(response.active_policies)) is gdpr_after
    if gdpr_after:
        assert "gdpr" in _ids(client.record_turn(turn("old", REPLY)).active_policies)


# --- explain ---------------------------------------------------------------------------------


def _reason(explanation: Any, policy_id: str) -> str:
    (candidate,) = [c for c in explanation.candidates if c.policy_id == policy_id]
    return str(candidate.reason)


def test_explain_judges_attributes_as_the_conversations_next_turn_would(
    client: govcore.GovernanceClient,
) -> None:
    """With a session, the kept verdicts decide what the message's attributes leave open;
    without one, the attributes alone do."""
    client.record_turn(turn("eu", PERSONAL_DATA, **EU))  # gdpr active: its match is kept
    client.record_turn(turn("us", "hello there", **US))
    assert _reason(client.explain_selection(PERSONAL_DATA, session_id="eu"), "gdpr") == "selected"
    assert _reason(client.explain_selection(PERSONAL_DATA), "gdpr") == "applies_when"
    us = client.explain_selection(PERSONAL_DATA, session_id="us")
    assert _reason(us, "gdpr") == "applies_when"
    # The message's own attributes decide over the kept verdict.
    flipped = client.explain_selection(PERSONAL_DATA, session_id="us", attributes={"region": "UK"})
    assert _reason(flipped, "gdpr") == "selected"


def test_a_verdict_holds_only_for_the_condition_it_judged(
    clock: FakeClock, store: MemoryStore
) -> None:
    """A redeploy (a new configuration over the same store) that changes a policy's appliesWhen
    leaves it without a verdict until attributes decide it again: the EU user's verdict does
    not carry over to a US-only rule. One that leaves the condition as it was keeps it."""
    before = govcore.Governance.from_config(config(), clock=clock, store=store)
    before.client(FULL_KEY).record_turn(turn("s", PERSONAL_DATA, **EU))
    before.client(FULL_KEY).record_turn(turn("t", PERSONAL_DATA, **EU))

    changed = config()
    policies = changed["tenants"]["acme"]["policies"]
    (gdpr,) = [p for p in policies if p["id"] == "gdpr"]
    gdpr["appliesWhen"] = {"region": "US"}
    after = govcore.Governance.from_config(changed, clock=clock, store=store)
    reply = after.client(FULL_KEY).record_turn(turn("s", REPLY, role="assistant"))
    assert _events_of(reply, "gdpr") == ["binding_released"]

    (refunds,) = [p for p in policies if p["id"] == "refunds"]
    refunds["summary"] = "Refunds within 60 days."
    gdpr["appliesWhen"] = {"region": ["EU", "UK"]}  # as before
    unchanged = govcore.Governance.from_config(changed, clock=clock, store=store)
    kept = unchanged.client(FULL_KEY).record_turn(turn("t", REPLY, role="assistant"))
    assert "gdpr" in _ids(kept.diff.still_active)


@pytest.mark.parametrize(
    ("attributes", "judged"),
    [
        (None, None),
        ({}, None),
        ({"tier": "gold"}, None),  # names neither attribute
        ({"region": "EU"}, None),  # one matches, the other is missing: undecided
        ({"region": "US"}, False),  # one fails: decided whatever the other
        ({"region": "US", "tier": "gold"}, False),
        ({"region": ["US", "EU"], "tier": "gold"}, True),
        ({"region": "EU", "tier": "basic"}, False),
    ],
)
def test_what_attributes_decide_of_a_condition(
    attributes: dict[str, Any] | None, judged: bool | None
) -> None:
    document = govcore.PolicySet.from_documents(
        "t", [policy("p", appliesWhen={"region": ["EU", "UK"], "tier": "gold"})]
    ).policies[0]
    assert document.judge_attributes(attributes) is judged
    assert document.applies_to(attributes) is (judged is True)


def test_policies_that_share_a_condition_share_one_verdict() -> None:
    """A conversation stores one verdict per distinct condition, however many policies have
    it, and judges only the conditions that name an attribute the turn carries."""
    documents = [policy(f"eu-{i}", appliesWhen={"region": ["EU", "UK"]}) for i in range(50)]
    documents += [policy(f"gold-{i}", appliesWhen={"tier": "gold"}) for i in range(50)]
    policy_set = govcore.PolicySet.from_documents("t", documents)
    verdicts = AppliesWhenVerdicts().after(policy_set, {"region": "UK"})
    assert list(verdicts.decided.values()) == [True]
    assert all(verdicts.verdict(policy_set, f"eu-{i}") is True for i in range(50))
    assert all(verdicts.verdict(policy_set, f"gold-{i}") is None for i in range(50))
    judged_us = verdicts.after(policy_set, {"region": "US", "tier": "gold"})
    assert sorted(judged_us.decided.values()) == [False, True]
    assert judged_us.ruled_out(policy_set) == {f"eu-{i}" for i in range(50)}
