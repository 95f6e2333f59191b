"""The conversation endpoints end to end: turn, snapshot, delete and pre-inference."""

from __future__ import annotations

import re
import threading

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.testing import FakeClock
from tests.support import FULL_KEY, config, turn

ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=1_800_000_000.0)


@pytest.fixture
def client(clock: FakeClock) -> govcore.GovernanceClient:
    return govcore.Governance.from_config(config(), clock=clock).client(FULL_KEY)


def _ids(policies: list[govcore.ApplicablePolicy]) -> list[str]:
    return [p.id for p in policies]


def test_first_turn_selects_policy_and_always_on(client: govcore.GovernanceClient) -> None:
    """Turn 1 reports the retrieved policy and the alwaysOn one as newly applicable."""
    response = client.record_turn(turn("s", "Can I get my money back? I want a refund."))
    assert response.turn_index == 1
    assert set(_ids(response.active_policies)) == {"refunds", "ai-disclosure"}
    assert _ids(response.diff.newly_applicable) == _ids(response.active_policies)
    assert response.diff.still_active == []
    assert response.diff.newly_released == []
    events = response.diff.binding_events
    assert {(e.policy_id, e.event, e.turn_index) for e in events} == {
        ("refunds", "binding_started", 1),
        ("ai-disclosure", "binding_started", 1),
    }
    assert all(ISO_UTC.match(e.ts) for e in events)
    assert response.post_inference_check is None
    assert response.trace_id


def test_active_policies_most_severe_first(client: govcore.GovernanceClient) -> None:
    """activePolicies and the injection block put the most severe policy first."""
    response = client.record_turn(turn("s", "refund my money, and here is my card number"))
    severities = [p.severity for p in response.active_policies]
    assert severities == sorted(severities, reverse=True)
    block = response.injection_block
    assert block.index("POL-CARD-DATA") < block.index("POL-REFUNDS")


def test_off_topic_turn_selects_only_always_on(client: govcore.GovernanceClient) -> None:
    """Chit-chat makes nothing applicable but the alwaysOn policies."""
    for text in ("hi there", "thanks, that's all for today", "tell me a joke about mountains"):
        response = client.record_turn(turn(f"chat-{text}", text))
        assert _ids(response.active_policies) == ["ai-disclosure"]


def test_hold_and_release_after_three_unselected_turns(client: govcore.GovernanceClient) -> None:
    """A policy not selected for 3 consecutive turns is released with a binding_released event."""
    client.record_turn(turn("s", "I would like a refund for my order"))
    for index in (2, 3):
        response = client.record_turn(turn("s", "ok"))
        assert "refunds" in _ids(response.diff.still_active), index
    response = client.record_turn(turn("s", "ok"))
    assert response.turn_index == 4
    assert _ids(response.diff.newly_released) == ["refunds"]
    assert "refunds" not in _ids(response.active_policies)
    assert ("refunds", "binding_released") in {
        (e.policy_id, e.event) for e in response.diff.binding_events
    }
    # Selected again later: a new binding starts.
    response = client.record_turn(turn("s", "and a refund for the other order"))
    assert "refunds" in _ids(response.diff.newly_applicable)


def test_reselection_resets_the_hold(client: govcore.GovernanceClient) -> None:
    """Being selected again restarts the count of unselected turns."""
    client.record_turn(turn("s", "refund please"))
    client.record_turn(turn("s", "ok"))
    client.record_turn(turn("s", "refund for this order too"))
    client.record_turn(turn("s", "ok"))
    response = client.record_turn(turn("s", "ok"))
    assert "refunds" in _ids(response.diff.still_active)


def test_prior_history_counts_on_first_call_only(client: govcore.GovernanceClient) -> None:
    """Three priorHistory entries make the first turn 4; later calls ignore priorHistory."""
    history = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi, how can I help?"},
        {"role": "user", "content": "I need a refund for my order, within the refund window"},
    ]
    first = client.record_turn(turn("s", "hello again", priorHistory=history))
    assert first.turn_index == 4
    assert "refunds" in _ids(first.active_policies)  # the history informs retrieval
    second = client.record_turn(turn("s", "ok", priorHistory=history))
    assert second.turn_index == 5
    assert client.get_conversation("s").turn_count == 5


def test_applies_when_filters_by_attributes(client: govcore.GovernanceClient) -> None:
    """A policy with appliesWhen applies only when the end user's attributes match."""
    text = "Please send me a copy of all my personal data"
    eu = client.record_turn(turn("eu", text, endUserContext={"attributes": {"region": "EU"}}))
    us = client.record_turn(turn("us", text, endUserContext={"attributes": {"region": "US"}}))
    none = client.record_turn(turn("none", text))
    assert "gdpr" in _ids(eu.active_policies)
    assert "gdpr" not in _ids(us.active_policies)
    assert "gdpr" not in _ids(none.active_policies)
    # A held policy whose attributes stop matching is released at once.
    later = client.record_turn(turn("eu", "ok", endUserContext={"attributes": {"region": "US"}}))
    assert "gdpr" in _ids(later.diff.newly_released)


def test_policy_area_ids_limit_retrieval(client: govcore.GovernanceClient) -> None:
    """policyAreaIds restricts retrieval to those areas; alwaysOn policies still apply."""
    text = "refund my card payment"
    response = client.record_turn(turn("s", text, policyAreaIds=["payments"]))
    assert "refunds" not in _ids(response.active_policies)
    assert "ai-disclosure" in _ids(response.active_policies)


def test_injection_block_names_policies_with_citations(client: govcore.GovernanceClient) -> None:
    """The block is headed as company policies and cites each included policy."""
    response = client.record_turn(turn("s", "refund please"))
    assert response.injection_block.startswith("Applicable company policies")
    for policy in response.active_policies:
        assert f"[{policy.citation_ref}]" in response.injection_block
    assert 0 < response.token_estimate <= 600


def test_small_budget_is_respected(client: govcore.GovernanceClient) -> None:
    """With the smallest budget the estimate still stays within it."""
    response = client.record_turn(turn("s", "refund to my card", tokenBudget=50))
    assert response.token_estimate <= 50


def test_snapshot_is_read_only(client: govcore.GovernanceClient, clock: FakeClock) -> None:
    """GET returns the state of the last turn and changes nothing, TTL included."""
    recorded = client.record_turn(turn("s", "refund please", ttlSeconds=300))
    clock.advance(200)
    snapshot = client.get_conversation("s")
    assert snapshot.session_id == "s"
    assert snapshot.turn_count == 1
    assert _ids(snapshot.active_policies) == _ids(recorded.active_policies)
    assert snapshot.injection_block == recorded.injection_block
    assert snapshot.binding_log == recorded.diff.binding_events
    assert snapshot.updated_at == "2027-01-15T08:00:00.000Z"
    clock.advance(99)
    client.get_conversation("s")
    clock.advance(1)
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("s")


def test_turn_renews_ttl_and_expiry_restarts(
    client: govcore.GovernanceClient, clock: FakeClock
) -> None:
    """Each turn renews the TTL; after expiry the next turn starts a new conversation."""
    client.record_turn(turn("s", "hi", ttlSeconds=300))
    clock.advance(250)
    client.record_turn(turn("s", "hi", ttlSeconds=300))
    clock.advance(250)
    assert client.get_conversation("s").turn_count == 2
    clock.advance(50)
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("s")
    assert client.record_turn(turn("s", "hi")).turn_index == 1


def test_delete_is_idempotent(client: govcore.GovernanceClient) -> None:
    """DELETE purges the state and succeeds again for an absent session."""
    client.record_turn(turn("s", "hi"))
    assert client.delete_conversation("s") is None
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("s")
    client.delete_conversation("s")
    client.delete_conversation("never-existed")
    assert client.record_turn(turn("s", "hi")).turn_index == 1


def test_binding_log_accumulates(client: govcore.GovernanceClient) -> None:
    """The snapshot's bindingLog holds the events of every turn, in order."""
    client.record_turn(turn("s", "refund please"))
    for _ in range(3):
        client.record_turn(turn("s", "ok"))
    log = client.get_conversation("s").binding_log
    assert [(e.turn_index, e.policy_id, e.event) for e in log] == [
        (1, "ai-disclosure", "binding_started"),
        (1, "refunds", "binding_started"),
        (4, "refunds", "binding_released"),
    ]


def test_pre_inference_is_stateless_and_cached(client: govcore.GovernanceClient) -> None:
    """pre-inference returns policies without recording a turn; a repeat is a cache hit."""
    request = {
        "sessionId": "p",
        "prompt": "can I get my money back?",
        "recentMessages": ["hello", {"role": "assistant", "content": "hi"}],
        "context": {"surface": "chat"},
    }
    first = client.pre_inference(request)
    assert first.cache_hit is False
    assert set(_ids(first.applicable_policies)) == {"refunds", "ai-disclosure"}
    assert first.injection_block
    assert first.token_estimate <= 600
    again = client.pre_inference(request)
    assert again.cache_hit is True
    assert again.applicable_policies == first.applicable_policies
    fresh = client.pre_inference({**request, "isUpdate": True})
    assert fresh.cache_hit is False
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation("p")
    dumped = first.model_dump(mode="json", by_alias=True)
    assert set(dumped) == {
        "sessionId",
        "cacheHit",
        "applicablePolicies",
        "injectionBlock",
        "rationaleRequired",
        "tokenEstimate",
        "traceId",
    }


def test_wire_fields_are_exactly_the_specified_ones(client: govcore.GovernanceClient) -> None:
    """Turn and snapshot responses carry exactly the specification's fields."""
    response = client.record_turn(turn("s", "refund"))
    dumped = response.model_dump(mode="json", by_alias=True)
    assert set(dumped) == {
        "sessionId",
        "turnIndex",
        "diff",
        "activePolicies",
        "injectionBlock",
        "tokenEstimate",
        "postInferenceCheck",
        "traceId",
    }
    assert set(dumped["diff"]) == {
        "newlyApplicable",
        "newlyReleased",
        "stillActive",
        "bindingEvents",
    }
    assert set(dumped["activePolicies"][0]) == {
        "id",
        "title",
        "summary",
        "severity",
        "enforcement",
        "citationRef",
        "tags",
    }
    snapshot = client.get_conversation("s").model_dump(mode="json", by_alias=True)
    assert set(snapshot) == {
        "sessionId",
        "turnCount",
        "activePolicies",
        "injectionBlock",
        "bindingLog",
        "updatedAt",
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"sessionId": "s", "turn": {"role": "system", "content": "x"}}, "turn.role"),
        ({"sessionId": "s", "turn": {"role": "user", "content": 5}}, "turn.content"),
        ({"sessionId": "", "turn": {"role": "user", "content": "x"}}, "sessionId"),
        ({"turn": {"role": "user", "content": "x"}}, "sessionId"),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "tokenBudget": 49},
            "tokenBudget",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "tokenBudget": 4001},
            "tokenBudget",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "tokenBudget": "600"},
            "tokenBudget",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "tokenBudget": 600.0},
            "tokenBudget",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "ttlSeconds": 299},
            "ttlSeconds",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "ttlSeconds": 604801},
            "ttlSeconds",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "tenantId": "acme"},
            "tenantId",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "session_id": "s"},
            "session_id",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "recentContext": "x"},
            "recentContext",
        ),
        (
            {
                "sessionId": "s",
                "turn": {"role": "user", "content": "x"},
                "priorHistory": [{"role": "user"}],
            },
            "priorHistory[0].content",
        ),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "checkOutput": "yes"},
            "checkOutput",
        ),
    ],
)
def test_invalid_turn_requests_name_the_field(
    client: govcore.GovernanceClient, body: dict[str, object], field: str
) -> None:
    """Each invalid request is a 400 whose details name the offending field."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.record_turn(body)
    assert field in [d.field for d in caught.value.details]


@pytest.mark.parametrize(
    ("body", "field", "meant"),
    [
        ({"session_id": "s", "turn": {"role": "user", "content": "x"}}, "session_id", "sessionId"),
        ({"sessionId": "s", "turn": {"role": "user", "contnet": "x"}}, "turn.contnet", "content"),
        (
            {"sessionId": "s", "turn": {"role": "user", "content": "x"}, "checkOuput": True},
            "checkOuput",
            "checkOutput",
        ),
        (
            {
                "sessionId": "s",
                "turn": {"role": "user", "content": "x"},
                "endUserContext": {"atributes": {}},
            },
            "endUserContext.atributes",
            "attributes",
        ),
    ],
)
def test_misspelt_request_fields_name_the_field_probably_meant(
    client: govcore.GovernanceClient, body: dict[str, object], field: str, meant: str
) -> None:
    """An unknown field close to a known one of the same object says which was probably meant;
    snake_case for the wire's camelCase is the common case."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.record_turn(body)
    reasons = {d.field: d.message for d in caught.value.details}
    assert reasons[field] == f"unknown field (did you mean {meant!r}?)"


def test_unknown_request_field_unlike_any_known_one_has_no_suggestion(
    client: govcore.GovernanceClient,
) -> None:
    with pytest.raises(govcore.InvalidRequestError) as caught:
        client.record_turn({"sessionId": "s", "turn": {"role": "user", "content": "x"}, "zz": 1})
    assert {d.field: d.message for d in caught.value.details} == {"zz": "unknown field"}


def test_configured_synonyms_reach_retrieval(clock: FakeClock) -> None:
    """A synonyms setting makes a company's own phrasing select the policy it means."""
    phrase = "Where is my parcel? It says out for delivery since Monday."
    plain = govcore.Governance.from_config(config(), clock=clock).client(FULL_KEY)
    assert "refunds" not in _ids(
        plain.record_turn(turn("s", "can I get a rain check")).active_policies
    )
    tuned = govcore.Governance.from_config(
        config(synonyms={"refund": ["rain check"]}), clock=clock
    ).client(FULL_KEY)
    assert "refunds" in _ids(tuned.record_turn(turn("s", "can I get a rain check")).active_policies)
    assert "shipping" in _ids(tuned.record_turn(turn("t", phrase)).active_policies)


def test_bad_synonyms_are_a_config_error() -> None:
    """A synonym concept must be one word."""
    with pytest.raises(govcore.ConfigError, match="synonyms"):
        govcore.Governance.from_config(config(synonyms={"two words": ["x"]}))


def test_concurrent_turns_of_one_conversation_are_all_recorded() -> None:
    """Turns of one conversation sent at once from 8 threads, through two governance objects
    sharing one store (two workers), are each recorded once: no turn lost, no index reused."""
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    workers = [
        govcore.Governance.from_config(
            config(default_rate_limit_per_minute=100_000), clock=clock, store=store
        )
        for _ in range(2)
    ]
    indexes: list[int] = []
    lock = threading.Lock()

    def send(number: int) -> None:
        client = workers[number % 2].client(FULL_KEY)
        for _ in range(25):
            index = client.record_turn(turn("shared", f"turn from thread {number}")).turn_index
            with lock:
                indexes.append(index)

    threads = [threading.Thread(target=send, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(indexes) == list(range(1, 201))
    assert workers[0].client(FULL_KEY).get_conversation("shared").turn_count == 200
