"""Turns recorded once by the framework's message id, and tool turns with their name and call id
(the typed clients' ``record_turn`` keywords; docs/decisions/integration-identifiers.md).

The ids are kept with the conversation's state, in the store, so every behaviour here runs on
the memory store and on a real Redis, and a restarted process (a new ``Governance`` on the same
Redis URL) still knows them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

import govcore
from govcore.core.conversation import MESSAGE_DIGEST_CHARS, MessageIds, message_digest
from govcore.testing import FakeClock, RedisServer
from tests.support import FULL_KEY, READ_KEY, config, fresh_url, turn

SESSION = "conv-ids"


@pytest.fixture(
    params=[pytest.param("memory", id="memory"), pytest.param("redis", marks=pytest.mark.redis)]
)
def store_url(request: pytest.FixtureRequest) -> str:
    """``memory://``, and a fresh prefix on a real redis-server."""
    if request.param == "memory":
        return "memory://"
    server: RedisServer = request.getfixturevalue("redis_server")
    return fresh_url(server)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def gov(store_url: str, clock: FakeClock) -> Iterator[govcore.Governance]:
    with govcore.Governance.from_config(config(store=store_url), clock=clock) as governance:
        yield governance


def _ids(response: govcore.TurnResponse) -> list[str]:
    return [p.id for p in response.active_policies]


def test_a_replayed_message_id_records_nothing_and_answers_the_current_state(
    gov: govcore.Governance,
) -> None:
    """A turn whose message id was recorded answers the conversation as it stands: the last
    turn's index, every active policy still active, no binding event; nothing is recorded,
    even when its recentContext differs from the first time."""
    client = gov.client(FULL_KEY)
    first = client.record_turn(turn(SESSION, "Can I get a refund?"), message_id="m1")
    second = client.record_turn(turn(SESSION, "thanks", role="assistant"), message_id="m2")
    before = client.get_conversation(SESSION)

    replay = client.record_turn(
        turn(SESSION, "Can I get a refund?", recentContext=["a different context"]),
        message_id="m1",
    )

    assert (first.turn_index, second.turn_index, replay.turn_index) == (1, 2, 2)
    assert replay.diff.newly_applicable == replay.diff.newly_released == []
    assert replay.diff.binding_events == []
    assert replay.diff.still_active == replay.active_policies == second.active_policies
    assert replay.injection_block == second.injection_block
    assert replay.token_estimate == second.token_estimate
    assert client.get_conversation(SESSION) == before
    # A new message of the same conversation is recorded as the next turn.
    assert client.record_turn(turn(SESSION, "and shipping?"), message_id="m3").turn_index == 3


def test_a_replay_renders_the_block_within_its_own_budget(gov: govcore.Governance) -> None:
    """A replay asking for a smaller token budget gets the active policies' block within it."""
    client = gov.client(FULL_KEY)
    recorded = client.record_turn(turn(SESSION, "Can I get a refund?"), message_id="m1")
    budget = 50
    assert recorded.token_estimate > budget
    replay = client.record_turn(
        turn(SESSION, "Can I get a refund?", tokenBudget=budget), message_id="m1"
    )
    assert replay.token_estimate <= budget
    assert replay.active_policies == recorded.active_policies


def test_a_replay_does_not_renew_the_conversation(
    gov: govcore.Governance, clock: FakeClock
) -> None:
    """A replay writes nothing: the conversation expires when its last recorded turn says."""
    client = gov.client(FULL_KEY)
    client.record_turn(turn(SESSION, "hello", ttlSeconds=300), message_id="m1")
    clock.advance(250)
    client.record_turn(turn(SESSION, "hello", ttlSeconds=300), message_id="m1")
    clock.advance(60)
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation(SESSION)


@pytest.mark.redis
def test_message_ids_hold_across_processes(redis_url: str, clock: FakeClock) -> None:
    """Another Governance on the same store (another worker, or a restart) knows the ids."""
    store_url = redis_url
    with govcore.Governance.from_config(config(store=store_url), clock=clock) as first:
        first.client(FULL_KEY).record_turn(turn(SESSION, "hello"), message_id="m1")
    with govcore.Governance.from_config(config(store=store_url), clock=clock) as second:
        replay = second.client(FULL_KEY).record_turn(turn(SESSION, "hello"), message_id="m1")
    assert replay.turn_index == 1


def test_the_latest_ids_are_kept_and_an_older_one_is_recorded_again(clock: FakeClock) -> None:
    """Beyond ``message_ids_per_conversation`` the oldest id is forgotten: its replay is a new
    turn, while the latest ones still replay."""
    gov = govcore.Governance.from_config(config(message_ids_per_conversation=10), clock=clock)
    client = gov.client(FULL_KEY)
    for number in range(11):
        client.record_turn(turn(SESSION, f"message {number}"), message_id=f"m{number}")
    assert client.record_turn(turn(SESSION, "message 1"), message_id="m1").turn_index == 11
    assert client.record_turn(turn(SESSION, "message 0"), message_id="m0").turn_index == 12
    assert client.record_turn(turn(SESSION, "message 10"), message_id="m10").turn_index == 12


def test_a_tool_turn_is_recorded_once_per_call_id(gov: govcore.Governance) -> None:
    """Without a message id, a tool turn's call id identifies it; a message id spelled like a
    call id is another identity."""
    client = gov.client(FULL_KEY)
    tool = turn(SESSION, '{"status": "shipped"}', role="tool")
    assert client.record_turn(tool, tool_call_id="call_1").turn_index == 1
    assert client.record_turn(tool, tool_call_id="call_1").turn_index == 1
    assert client.record_turn(tool, tool_call_id="call_2").turn_index == 2
    assert client.record_turn(tool, message_id="call_1").turn_index == 3
    # A message id wins over the call id: the same call under a new message id is recorded.
    assert client.record_turn(tool, message_id="t9", tool_call_id="call_1").turn_index == 4


def test_the_tool_name_joins_what_selection_reads(gov: govcore.Governance) -> None:
    """A tool result with no telling words selects the policy its tool's name is about."""
    client = gov.client(FULL_KEY)
    plain = client.record_turn(turn("plain", "done", role="tool"))
    named = client.record_turn(turn("named", "done", role="tool"), tool_name="refundRequest")
    assert "refunds" not in _ids(plain)
    assert "refunds" in _ids(named)


@pytest.mark.parametrize("keyword", ["tool_name", "tool_call_id"])
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_tool_keywords_need_a_tool_turn(gov: govcore.Governance, keyword: str, role: str) -> None:
    """A tool's name or call id on a turn that is not a tool's is refused, naming the keyword."""
    client = gov.client(FULL_KEY)
    keywords: dict[str, Any] = {keyword: "lookup_order"}
    with pytest.raises(govcore.InvalidRequestError) as raised:
        client.record_turn(turn(SESSION, "hello", role=role), **keywords)
    assert [d.field for d in raised.value.details] == [keyword]
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation(SESSION)


@pytest.mark.parametrize(
    ("keyword", "value"),
    [("message_id", ""), ("message_id", "a\nb"), ("message_id", 7), ("tool_call_id", "x" * 257)],
)
def test_bad_identifiers_are_refused_by_name(
    gov: govcore.Governance, keyword: str, value: Any
) -> None:
    """Ids follow the session id's rule (1 to 256 characters, no control characters, a string)."""
    keywords: dict[str, Any] = {keyword: value}
    with pytest.raises(govcore.InvalidRequestError) as raised:
        gov.client(FULL_KEY).record_turn(turn(SESSION, "hi", role="tool"), **keywords)
    assert [d.field for d in raised.value.details] == [keyword]


def test_a_refusal_of_the_body_comes_before_the_keywords(gov: govcore.Governance) -> None:
    """The body is validated first (a bad turn is the error), as the endpoint validates it."""
    with pytest.raises(govcore.InvalidRequestError) as raised:
        gov.client(FULL_KEY).record_turn(
            {"sessionId": SESSION, "turn": {"role": "robot", "content": "x"}}, message_id=""
        )
    assert [d.field for d in raised.value.details] == ["turn.role"]


def test_an_idempotent_replay_of_a_replayed_message_is_its_own_answer(
    gov: govcore.Governance,
) -> None:
    """A replayed message id under a new idempotencyKey records nothing, and a retry of that
    request gets the same answer."""
    client = gov.client(FULL_KEY)
    client.record_turn(turn(SESSION, "hello"), message_id="m1")
    request = turn(SESSION, "hello", idempotencyKey="retry-1")
    replay = client.record_turn(request, message_id="m1")
    retry = client.record_turn(request, message_id="m1")
    assert replay.turn_index == retry.turn_index == 1
    assert retry == replay
    assert client.get_conversation(SESSION).turn_count == 1


def test_the_async_client_keeps_the_same_ids(store_url: str) -> None:
    """AsyncGovernanceClient.record_turn takes the same keywords, and a blocking Governance on
    the same store sees what it recorded."""
    clock = FakeClock()

    async def scenario() -> tuple[int, int]:
        async with govcore.AsyncGovernance.from_config(
            config(store=store_url), clock=clock
        ) as agov:
            client = agov.client(FULL_KEY)
            await client.record_turn(turn(SESSION, "hello"), message_id="m1")
            again = await client.record_turn(turn(SESSION, "hello"), message_id="m1")
            blocking = client.blocking.record_turn(turn(SESSION, "hello"), message_id="m1")
            return again.turn_index, blocking.turn_index

    assert asyncio.run(scenario()) == (1, 1)


def test_message_ids_match_whole_digests_only() -> None:
    """A digest is kept once it is added; bytes straddling two kept digests are not a match."""
    first, second = message_digest("message", "a"), message_digest("message", "b")
    kept = MessageIds().added(first, 10).added(second, 10)
    half = MESSAGE_DIGEST_CHARS // 2
    assert first in kept
    assert second in kept
    assert first[half:] + second[:half] not in kept
    assert message_digest("tool_call", "a") not in kept
    assert MessageIds.decoded(kept.packed) == kept
    with pytest.raises(ValueError, match="whole"):
        MessageIds.decoded(kept.packed[1:])
    assert len(kept.added(message_digest("message", "c"), 2)) == 2


def test_the_wire_body_takes_no_message_id(gov: govcore.Governance) -> None:
    """The identifiers are keywords of the typed client: over ``handle`` a ``messageId`` in the
    body is an unknown field, as the specification's strict parsing says."""
    body = json.dumps(turn(SESSION, "hello", messageId="m1"))
    answer = gov.handle(
        "POST", "/governance/conversation/turn", {"Authorization": f"Bearer {FULL_KEY}"}, body
    )
    assert answer.status == 400
    assert [d["field"] for d in answer.json()["details"]] == ["messageId"]


CARD = "4111 1111 1111 1111"


def test_a_tool_turn_checked_as_its_result_answers_the_verdict(gov: govcore.Governance) -> None:
    """``check_result``: the turn is recorded and its content checked as post-inference checks
    a tool's result, against every rule whatever the turn's policy areas; on a replay too."""
    client = gov.client(FULL_KEY)
    tool = turn(SESSION, f"card on file: {CARD}", role="tool", policyAreaIds=["commerce"])
    first = client.record_turn(tool, tool_call_id="c1", check_result=True)
    assert first.turn_index == 1
    verdict = first.post_inference_check
    assert verdict is not None
    assert not verdict.safe
    assert [v.policy_id for v in verdict.violations] == ["card-data"]
    assert verdict.suggested_redaction == "card on file: [card removed]"
    expected = client.post_inference({"sessionId": SESSION, "output": tool["turn"]["content"]})
    assert verdict.model_dump(exclude={"trace_id"}) == expected.model_dump(exclude={"trace_id"})
    replay = client.record_turn(tool, tool_call_id="c1", check_result=True)
    assert replay.turn_index == 1
    assert replay.post_inference_check is not None
    assert not replay.post_inference_check.safe
    # Without the keyword the same turn answers no verdict.
    plain = client.record_turn(turn(SESSION, "done", role="tool"), tool_call_id="c2")
    assert plain.post_inference_check is None


@pytest.mark.parametrize("checked_first", [False, True])
def test_an_idempotency_key_is_not_replayed_across_the_result_check(
    gov: govcore.Governance, checked_first: bool
) -> None:
    """The same idempotencyKey with and without ``check_result`` is two different requests: a
    replay would answer without the verdict that was asked for (or with one that was not)."""
    client = gov.client(FULL_KEY)
    tool = turn(SESSION, f"card on file: {CARD}", role="tool", idempotencyKey="tool-1")
    first = client.record_turn(tool, check_result=checked_first)
    assert (first.post_inference_check is not None) == checked_first
    with pytest.raises(govcore.InvalidRequestError) as raised:
        client.record_turn(tool, check_result=not checked_first)
    assert [d.field for d in raised.value.details] == ["idempotencyKey"]
    again = client.record_turn(tool, check_result=checked_first)
    assert again.turn_index == first.turn_index == 1
    assert (again.post_inference_check is not None) == checked_first


@pytest.mark.parametrize("role", ["user", "assistant"])
def test_checking_a_result_needs_a_tool_turn(gov: govcore.Governance, role: str) -> None:
    client = gov.client(FULL_KEY)
    with pytest.raises(govcore.InvalidRequestError) as raised:
        client.record_turn(turn(SESSION, "hello", role=role), check_result=True)
    assert [d.field for d in raised.value.details] == ["check_result"]
    with pytest.raises(govcore.NotFoundError):
        client.get_conversation(SESSION)


def test_checking_a_result_needs_what_post_inference_needs(gov: govcore.Governance) -> None:
    """A key without post-inference checking is refused (403) before the body is read (400),
    as a turn's checkOutput is."""
    client = gov.client(READ_KEY)
    with pytest.raises(govcore.PermissionDeniedError):
        client.record_turn({"sessionId": SESSION, "turn": "bad"}, check_result=True)
    assert client.record_turn(turn(SESSION, "done", role="tool")).turn_index == 1


def test_the_wire_body_takes_no_result_check_on_a_tool_turn(gov: govcore.Governance) -> None:
    """Over ``handle`` a tool turn with ``checkOutput`` is still the specification's 400."""
    body = json.dumps(turn(SESSION, "done", role="tool", checkOutput=True))
    answer = gov.handle(
        "POST", "/governance/conversation/turn", {"Authorization": f"Bearer {FULL_KEY}"}, body
    )
    assert answer.status == 400
