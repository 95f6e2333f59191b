"""Round trips to Redis per request, counted on the wire, and both facades on a Redis store."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import govcore
from govcore.testing import FakeClock, RedisServer
from tests.support import (
    CHECKS_KEY,
    FULL_KEY,
    bearer,
    checks_config,
    config,
    fresh_url,
    require_redis,
    turn,
)

require_redis()
import redis  # noqa: E402  (the extra: only after the check above)

from govcore.backends.redis import AsyncRedisStore, RedisStore  # noqa: E402

pytestmark = pytest.mark.redis
PREFIX = "/api/v1/agent/governance"


class CountingConnection(redis.Connection):
    """A connection that counts what it sends: one send is one round trip (a pipeline sends
    all its commands at once)."""

    sent = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        CountingConnection.sent += 1
        super().send_packed_command(command, check_health)


def _counted_governance(server: RedisServer) -> govcore.Governance:
    prefix = fresh_url(server).split("prefix=")[1]
    pool = redis.ConnectionPool(
        host="127.0.0.1", port=server.port, connection_class=CountingConnection
    )
    client = redis.Redis(connection_pool=pool)
    clock = FakeClock()
    store = RedisStore(client, clock=clock, prefix=prefix)
    return govcore.Governance.from_config(config(), clock=clock, store=store)


def _trips(gov: govcore.Governance, method: str, path: str, body: Any = None) -> int:
    before = CountingConnection.sent
    answer = gov.handle(method, PREFIX + path, bearer(FULL_KEY), json.dumps(body) if body else None)
    assert answer.status in (200, 204), answer.body
    return CountingConnection.sent - before


def test_requests_cost_the_round_trips_the_design_says(redis_server: RedisServer) -> None:
    """A turn is two round trips (admission with reads, commit); reads ride on the admission."""
    gov = _counted_governance(redis_server)
    _trips(gov, "POST", "/conversation/turn", turn("warm", "hello"))  # loads the scripts
    assert _trips(gov, "POST", "/conversation/turn", turn("a", "refund for my order")) == 2
    assert _trips(gov, "POST", "/conversation/turn", turn("a", "and the shipping?")) == 2
    idempotent = turn("b", "refund", idempotencyKey="once")
    assert _trips(gov, "POST", "/conversation/turn", idempotent) == 2
    assert _trips(gov, "POST", "/conversation/turn", idempotent) == 1  # the replay
    assert _trips(gov, "GET", "/conversation/a") == 1
    tool_call = {"sessionId": "a", "toolName": "lookup", "arguments": {"q": "x"}}
    assert _trips(gov, "POST", "/check-tool-call", tool_call) == 1
    assert _trips(gov, "POST", "/post-inference", {"sessionId": "a", "output": "fine"}) == 1
    gov.close()


def test_settings_store_selects_redis_for_both_facades(redis_server: RedisServer) -> None:
    """`settings.store: redis://...` serves Governance and AsyncGovernance, sharing state."""
    url = fresh_url(redis_server)
    blocking = govcore.Governance.from_config(config(store=url))
    first = blocking.client(FULL_KEY).record_turn(turn("shared", "refund for my order"))
    assert first.turn_index == 1

    async def scenario() -> int:
        async with govcore.AsyncGovernance.from_config(config(store=url)) as gov:
            await gov.ping()
            second = await gov.client(FULL_KEY).record_turn(turn("shared", "and shipping?"))
            return second.turn_index

    assert asyncio.run(scenario()) == 2
    assert blocking.client(FULL_KEY).get_conversation("shared").turn_count == 2
    blocking.ping()
    blocking.close()


def test_async_facade_on_redis_answers_as_the_blocking_one(redis_server: RedisServer) -> None:
    """The same requests through both facades, each on its own Redis keys, answer alike."""
    requests = [
        ("POST", "/conversation/turn", turn("s", "refund for my order")),
        ("POST", "/conversation/turn", turn("s", "refund", idempotencyKey="k")),
        ("POST", "/conversation/turn", turn("s", "refund", idempotencyKey="k")),
        ("GET", "/conversation/s", None),
        ("POST", "/check-tool-call", {"sessionId": "s", "toolName": "t", "arguments": {}}),
        ("DELETE", "/conversation/s", None),
        ("GET", "/conversation/s", None),
    ]

    def trace_ids() -> Any:
        numbers = iter(range(1, 1000))
        return lambda: f"t{next(numbers)}"

    clock = FakeClock()
    sync_store = RedisStore.from_url(fresh_url(redis_server), clock=clock)
    gov = govcore.Governance.from_config(
        config(), clock=clock, store=sync_store, trace_ids=trace_ids()
    )
    expected = [
        (a.status, a.body)
        for a in (
            gov.handle(m, PREFIX + p, bearer(FULL_KEY), json.dumps(b) if b else None)
            for m, p, b in requests
        )
    ]
    gov.close()

    async def scenario() -> list[tuple[int, bytes]]:
        aclock = FakeClock()
        store = AsyncRedisStore.from_url(fresh_url(redis_server), clock=aclock)
        agov = govcore.AsyncGovernance.from_config(
            config(), clock=aclock, store=store, trace_ids=trace_ids()
        )
        got = []
        for m, p, b in requests:
            answer = await agov.handle(
                m, PREFIX + p, bearer(FULL_KEY), json.dumps(b) if b else None
            )
            got.append((answer.status, answer.body))
        await agov.aclose()
        await store.aclose()
        return got

    assert [status for status, _ in expected] == [200, 200, 200, 200, 200, 204, 404]
    assert asyncio.run(scenario()) == expected


_PROSE = "The parcel left the depot this morning and should arrive by Friday. " * 200  # 13,600
_CARD = "4111 1111 1111 1111"


def _stream(check: Any, text: str, upto: int, watermark: int) -> tuple[list[tuple[str, int]], int]:
    """Stream ``text`` in 250-character calls from ``watermark`` up to ``upto`` characters
    with ``check`` (a typed client's ``check_output_stream``): every report, the watermark."""
    sent, found = watermark + 200, []
    while sent < upto:
        sent = min(sent + 250, upto)
        reply = check(
            {"sessionId": "s", "fullText": text[:sent], "lastCheckedOffset": watermark,
             "isFinal": sent == len(text)}
        )  # fmt: skip
        found += [(v.matched_text, v.offset) for v in reply.new_violations]
        watermark = reply.watermark
    return found, watermark


def test_a_stream_resumes_and_sees_edits_through_a_redis_store(redis_server: RedisServer) -> None:
    """The stream record goes through Redis: an honest stream several checksum blocks long
    reports its card once (every call resumed from its record), and an overwrite of text just
    behind the watermark is found by the next call."""
    url = fresh_url(redis_server)
    gov = govcore.Governance.from_config(checks_config(store=url), clock=FakeClock())
    client = gov.client(CHECKS_KEY)
    text = "Card " + _CARD + ". " + _PROSE
    found, watermark = _stream(client.check_output_stream, text, 12_000, 0)
    assert found == [(_CARD, 5)]
    at = text.rfind(" ", 0, watermark - 100) + 1
    edited = text[:at] + _CARD + " " + text[at + len(_CARD) + 1 :]
    found, _ = _stream(client.check_output_stream, edited, 12_600, watermark)
    assert (_CARD, 5) in found  # checked again from the start
    assert (_CARD, at) in found
    gov.close()


def test_the_async_facade_resumes_a_stream_from_a_redis_record(redis_server: RedisServer) -> None:
    """Records written by the blocking facade are read by the asyncio one on the same Redis."""
    url = fresh_url(redis_server)
    blocking = govcore.Governance.from_config(checks_config(store=url), clock=FakeClock())
    text = "Card " + _CARD + ". " + _PROSE
    found, watermark = _stream(blocking.client(CHECKS_KEY).check_output_stream, text, 9_000, 0)
    assert found == [(_CARD, 5)]

    async def rest(mark: int) -> list[tuple[str, int]]:
        async with govcore.AsyncGovernance.from_config(
            checks_config(store=url), clock=FakeClock()
        ) as agov:
            client = agov.client(CHECKS_KEY)
            sent, reports = mark + 200, []
            while sent < len(text):
                sent = min(sent + 250, len(text))
                reply = await client.check_output_stream(
                    {"sessionId": "s", "fullText": text[:sent], "lastCheckedOffset": mark,
                     "isFinal": sent == len(text)}
                )  # fmt: skip
                reports += [(v.matched_text, v.offset) for v in reply.new_violations]
                mark = reply.watermark
            return reports

    assert asyncio.run(rest(watermark)) == []  # resumed on every call, the final one included
    blocking.close()
