"""StreamGuard's hold-back: what a streaming caller sees is checked text only, and in the end
exactly what may be delivered (docs/decisions/stream-hold-back.md); and the guard works with any
client whose checks return answers or awaitables, a forwarding wrapper included."""

from __future__ import annotations

import asyncio
import itertools
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import govcore
from govcore.testing import FakeClock
from tests.support import CHECKS_KEY, checks_config

CARD_FORMS = ("4111 1111 1111 1111", "4111111111111111", "4111-1111-1111-1111")
CARD_DIGITS = "4111111111111111"
WORDS = ("the", "order", "will", "ship", "soon", "and", "we", "thank", "you", "for", "patience")


@pytest.fixture(scope="module")
def client() -> govcore.GovernanceClient:
    return govcore.Governance.from_config(checks_config(), clock=FakeClock()).client(CHECKS_KEY)


def _prose(seed: int, words: int) -> str:
    return " ".join(WORDS[(seed + i * 7) % len(WORDS)] for i in range(words))


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def _session() -> str:
    return f"stream-{uuid.uuid4().hex}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.integers(0, 120),
    after=st.integers(0, 120),
    seed=st.integers(0, 100),
    card=st.sampled_from(CARD_FORMS),
    cuts=st.lists(st.integers(0, 10_000), max_size=80),
    chunk_size=st.integers(1, 400),
)
def test_a_card_number_never_reaches_a_streaming_caller(
    client: govcore.GovernanceClient,
    before: int,
    after: int,
    seed: int,
    card: str,
    cuts: list[int],
    chunk_size: int,
) -> None:
    """Whatever the deltas and chunk size, no yielded chunk completes the card number (no digit
    of it is ever shown), and the chunks add up to the deliverable: the redaction."""
    text = f"{_prose(seed, before)} Your card {card} is on file. {_prose(seed + 1, after)}"
    guard = govcore.StreamGuard(client, _session(), chunk_size=chunk_size)
    shown = ""
    for piece in guard.wrap(iter(_split(text, cuts))):
        shown += piece
        assert card not in shown
        assert not re.search(r"\d", shown), shown  # not even a part of the number
        assert shown == guard.released
    assert guard.result is not None
    assert not guard.result.safe
    assert shown == guard.deliverable == guard.result.suggested_redaction
    assert "[card removed]" in shown


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=st.integers(0, 400),
    seed=st.integers(0, 100),
    cuts=st.lists(st.integers(0, 10_000), max_size=80),
    chunk_size=st.integers(1, 400),
)
def test_a_clean_stream_yields_its_text_in_full(
    client: govcore.GovernanceClient, words: int, seed: int, cuts: list[int], chunk_size: int
) -> None:
    """A stream without violations is yielded unchanged, every character once, in order."""
    text = _prose(seed, words)
    guard = govcore.StreamGuard(client, _session(), chunk_size=chunk_size)
    pieces = list(guard.wrap(iter(_split(text, cuts))))
    assert "".join(pieces) == text == guard.deliverable == guard.released
    assert all(pieces)


def test_checked_text_is_released_before_the_end(client: govcore.GovernanceClient) -> None:
    """Hold-back is not hold-all: a long clean stream shows text before it ends, each piece
    at least 200 characters behind what was received when it was shown."""
    text = _prose(3, 600)
    guard = govcore.StreamGuard(client, _session())
    received = 0
    early = []
    deltas = iter(_split(text, list(range(0, len(text), 10))))

    def counted() -> Iterator[str]:
        nonlocal received
        for delta in deltas:
            received += len(delta)
            yield delta

    for _piece in guard.wrap(counted()):
        if guard.result is None:
            early.append(len(guard.released))
            assert received - len(guard.released) >= 200
    assert early
    assert guard.released == text


def test_after_a_violation_nothing_more_is_shown_until_the_end(
    client: govcore.GovernanceClient,
) -> None:
    """A warning leaves the output safe, but once it is reported the rest waits for the
    verdict: it is delivered whole at the end, the warning's text included."""
    text = _prose(1, 60) + " We offer a lifetime warranty on all goods. " + _prose(2, 300)
    guard = govcore.StreamGuard(client, _session(), chunk_size=50)
    pieces = list(guard.wrap(iter(_split(text, list(range(0, len(text), 13))))))
    assert guard.result is not None
    assert guard.result.safe
    assert guard.violations
    assert "lifetime warranty" not in "".join(pieces[:-1])
    assert "".join(pieces) == text == guard.deliverable


def test_without_hold_back_deltas_pass_through(client: govcore.GovernanceClient) -> None:
    """``hold_back=False`` yields each delta as it comes, unchecked (the earlier behaviour)."""
    deltas = ["Your card ", "4111 1111 ", "1111 1111", " is on file."]
    guard = govcore.StreamGuard(client, _session(), hold_back=False)
    assert list(guard.wrap(iter(deltas))) == deltas
    assert guard.released == "".join(deltas)
    assert guard.deliverable == "Your card [card removed] is on file."


class Tracing:
    """A tracing wrapper around a client: forwards every attribute, and records each check with
    the trace id it was given before passing the call on."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: list[tuple[str, str | None]] = []

    def check_output_stream(self, request: Any, **keywords: Any) -> Any:
        self.calls.append(("check_output_stream", keywords.get("trace_id")))
        return self._inner.check_output_stream(request, **keywords)

    def finalize_output(self, request: Any, **keywords: Any) -> Any:
        self.calls.append(("finalize_output", keywords.get("trace_id")))
        return self._inner.finalize_output(request, **keywords)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


async def _stream(text: str, size: int) -> AsyncIterator[str]:
    for start in range(0, len(text), size):
        await asyncio.sleep(0)
        yield text[start : start + size]


def test_a_wrapper_around_the_async_client_is_awaited() -> None:
    """A wrapper whose checks return the async client's coroutines works with ``awrap``: the
    guard awaits what is awaitable, whatever the client's class; the trace id reaches every
    check."""
    text = _prose(5, 80) + " Card 4111 1111 1111 1111. " + _prose(6, 80)

    async def scenario() -> tuple[str, govcore.StreamGuard, list[tuple[str, str | None]]]:
        async with govcore.AsyncGovernance.from_config(checks_config(), clock=FakeClock()) as agov:
            tracing = Tracing(agov.client(CHECKS_KEY))
            guard = govcore.StreamGuard(tracing, _session(), trace_id="trace-1")
            shown = "".join([piece async for piece in guard.awrap(_stream(text, 9))])
            calls = list(tracing.calls)
            # Its checks hand back coroutines: a blocking call is refused, not left pending.
            with pytest.raises(TypeError, match="afeed"):
                govcore.StreamGuard(tracing, _session(), chunk_size=1).feed("blocking")
            return shown, guard, calls

    shown, guard, calls = asyncio.run(scenario())
    assert shown == guard.deliverable
    assert "4111" not in shown
    assert calls[-1] == ("finalize_output", "trace-1")
    assert {trace for _, trace in calls} == {"trace-1"}
    assert guard.result is not None
    assert guard.result.trace_id == "trace-1"


def test_a_wrapper_around_the_blocking_client_is_not_awaited(
    client: govcore.GovernanceClient,
) -> None:
    """The same wrapper around a blocking client serves ``wrap`` and ``awrap`` alike; without
    a trace id, none is passed."""
    text = _prose(7, 120)
    tracing = Tracing(client)
    guard = govcore.StreamGuard(tracing, _session(), chunk_size=64)
    assert "".join(guard.wrap(iter(_split(text, list(range(0, len(text), 5)))))) == text
    assert {trace for _, trace in tracing.calls} == {None}

    async def consume() -> str:
        guard = govcore.StreamGuard(tracing, _session())
        return "".join([piece async for piece in guard.awrap(_stream(text, 11))])

    assert asyncio.run(consume()) == text


def test_a_blocking_call_refuses_a_client_returning_coroutines() -> None:
    """A client whose checks hand back coroutines without being coroutine functions is
    refused at the first blocking check, and the coroutine is closed (never left running)."""

    class Lazy:
        def __init__(self) -> None:
            self.started = False

        def check_output_stream(self, request: Any) -> Any:
            async def answer() -> Any:
                self.started = True

            return answer()

        finalize_output = check_output_stream

    lazy = Lazy()
    guard = govcore.StreamGuard(lazy, _session(), chunk_size=1)
    with pytest.raises(TypeError, match="afeed"):
        guard.feed("x")
    assert not lazy.started


def test_release_serves_a_caller_that_feeds_deltas_itself(client: govcore.GovernanceClient) -> None:
    """``feed`` + ``release`` (and ``finish`` + ``release``) show what ``wrap`` shows."""
    text = _prose(8, 200) + " Card 4111 1111 1111 1111 on file. " + _prose(9, 50)
    deltas = _split(text, list(range(0, len(text), 6)))
    wrapped = "".join(govcore.StreamGuard(client, _session()).wrap(iter(deltas)))
    guard = govcore.StreamGuard(client, _session())
    shown = ""
    for delta in deltas:
        guard.feed(delta)
        shown += guard.release()
        assert "4111" not in shown
    guard.finish()
    shown += guard.release()
    assert guard.release() == ""
    assert shown == wrapped == guard.deliverable


class Misjudging:
    """A client whose streaming checks clear everything and whose finalize then redacts the
    start of the text: what a violation found only at the end, reaching into text already
    shown, looks like to the guard."""

    def check_output_stream(self, request: dict[str, Any]) -> govcore.StreamCheckResponse:
        return govcore.StreamCheckResponse(
            session_id=request["sessionId"],
            trace_id="t",
            new_violations=[],
            watermark=len(request["fullText"]),
            is_complete=request["isFinal"],
            risk_score=0.0,
        )

    def finalize_output(self, request: dict[str, Any]) -> govcore.PostInferenceResponse:
        return govcore.PostInferenceResponse(
            safe=False,
            risk_score=0.9,
            violations=[],
            suggested_redaction="[removed]" + request["fullText"][9:],
            policy_citations=[],
            trace_id="t",
        )


def test_text_shown_that_the_verdict_redacts_stops_the_stream(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """When the deliverable does not start with what was shown, nothing more is yielded, one
    warning says so, and ``deliverable`` is there to show instead."""
    text = _prose(4, 300)
    guard = govcore.StreamGuard(Misjudging(), _session())
    with caplog.at_level("WARNING", logger="govcore"):
        shown = "".join(guard.wrap(iter(_split(text, list(range(0, len(text), 50))))))
    assert shown == guard.released
    assert shown
    assert text.startswith(shown)
    assert guard.deliverable == "[removed]" + text[9:]
    assert [r.message for r in caplog.records if "stream guard" in r.message]
