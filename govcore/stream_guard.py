"""Checking a model's output while it streams, for any model client.

:class:`StreamGuard` wraps the text deltas a model client yields (sync or async), calls the
streaming check every ``chunk_size`` characters (default 200, the number of new characters that
makes the server scan), finalizes at the end, and exposes violations as they come and the final
verdict with its redaction.

By default it holds text back until it is checked (docs/decisions/stream-hold-back.md): what
:meth:`StreamGuard.wrap` and :meth:`StreamGuard.awrap` yield is only text that a check has
covered and that no later text can turn into a violation, and at the end the rest of what may be
shown: the text when the verdict is safe, else its redaction. So no unchecked text reaches the
reader, and what the reader got in the end is :attr:`StreamGuard.deliverable`::

    guard = StreamGuard(client, session_id="conv-42")
    for piece in guard.wrap(model.stream(prompt)):
        send_to_user(piece)              # checked text only; the redaction at the end if unsafe
    verdict = guard.result               # safe, violations, suggestedRedaction, ...

With an :class:`~govcore.AsyncGovernanceClient` (or anything whose checks return awaitables,
such as a tracing wrapper around it), ``awrap`` awaits every check, so an async stream is guarded
without blocking its loop.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Protocol

from govcore.core.stream_window import STREAM_OVERLAP
from govcore.models import PostInferenceResponse, StreamCheckResponse, StreamViolation
from govcore.verdicts import text_to_deliver

__all__ = ["StreamCheckClient", "StreamGuard"]

DEFAULT_CHUNK_SIZE = 200

_log = logging.getLogger("govcore")


class StreamCheckClient(Protocol):
    """What the guard calls: a typed client, blocking or asyncio, or any object that forwards
    these two methods to one (a tracing or retrying wrapper). Each returns its answer, or an
    awaitable of it."""

    def check_output_stream(self, request: Any, /) -> Any: ...

    def finalize_output(self, request: Any, /) -> Any: ...


class StreamGuard:
    """Incremental output checking through a typed client, blocking or asyncio.

    With a blocking client use :meth:`feed`, :meth:`finish` and :meth:`wrap`; with a client
    whose checks are awaitable use :meth:`afeed`, :meth:`afinish` and :meth:`awrap`, which await
    every check (:meth:`awrap` also takes a blocking client, whose checks then run in the loop's
    thread). Whether a check is awaited is decided by its answer (``inspect.isawaitable``), not
    by the client's class, so a wrapper that forwards the calls works as the client does.

    Args:
        client: the typed client (its key needs ``post_inference_checking``), or a wrapper
            forwarding ``check_output_stream`` and ``finalize_output`` to one.
        session_id: the conversation the output belongs to.
        chunk_size: characters to accumulate between two streaming checks.
        on_violation: called with each new violation as soon as it is reported.
        hold_back: yield only checked text (the default); ``False`` passes every delta through
            at once, unchecked, as before hold-back existed.
        trace_id: the trace id of every check of this output (their ``traceId`` and decision
            records), when the client's check methods take a ``trace_id`` keyword.
    """

    def __init__(
        self,
        client: StreamCheckClient,
        session_id: str,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_violation: Callable[[StreamViolation], None] | None = None,
        hold_back: bool = True,
        trace_id: str | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self._client = client
        self.session_id = session_id
        self.chunk_size = chunk_size
        self.hold_back = hold_back
        self.trace_id = trace_id
        self._on_violation = on_violation
        self.text = ""
        """Everything the model has streamed so far."""
        self.watermark = 0
        self.violations: list[StreamViolation] = []
        self.result: PostInferenceResponse | None = None
        self.released = ""
        """What the guard has handed the caller so far (``wrap``/``awrap`` yields, or
        :meth:`release`)."""
        self._checked_length = 0
        # How far into ``text`` may be shown before the end: behind every check's watermark by
        # the interface's overlap, and never past the first violation reported.
        self._release_limit = 0
        self._warned = False

    # --- blocking ----------------------------------------------------------------------------

    def feed(self, delta: str) -> list[StreamViolation]:
        """Add a delta; returns the violations this delta brought to light (often none)."""
        self._refuse_awaitable_client()
        if not self._add(delta):
            return []
        answer = self._blocking(self._check("check_output_stream", is_final=False))
        return self._absorb(answer)

    def finish(self) -> PostInferenceResponse:
        """Check the tail, then finalize: the verdict on the whole output."""
        if self.result is None:
            self._refuse_awaitable_client()
            self._absorb(self._blocking(self._check("check_output_stream", is_final=True)))
            self.result = self._blocking(self._check("finalize_output", is_final=True))
        return self.result

    def wrap(self, deltas: Iterable[str]) -> Iterator[str]:
        """Yield the output as it may be shown while checking; finalizes when the deltas end.

        With ``hold_back`` (the default), each piece is text that checks have cleared, and the
        last is the rest of :attr:`deliverable`; without it, every delta unchanged.
        """
        for delta in deltas:
            self.feed(delta)
            if not self.hold_back:
                self.released += delta
                yield delta
                continue
            piece = self.release()
            if piece:
                yield piece
        self.finish()
        piece = self.release()
        if piece:
            yield piece

    # --- asyncio -----------------------------------------------------------------------------

    async def afeed(self, delta: str) -> list[StreamViolation]:
        """:meth:`feed`, awaiting the check when it is awaitable."""
        if not self._add(delta):
            return []
        answer = await _settled(self._check("check_output_stream", is_final=False))
        return self._absorb(answer)

    async def afinish(self) -> PostInferenceResponse:
        """:meth:`finish`, awaiting the checks when they are awaitable."""
        if self.result is None:
            self._absorb(await _settled(self._check("check_output_stream", is_final=True)))
            self.result = await _settled(self._check("finalize_output", is_final=True))
        return self.result

    async def awrap(self, deltas: AsyncIterable[str]) -> AsyncIterator[str]:
        """:meth:`wrap` for an async stream of deltas, awaiting the checks."""
        async for delta in deltas:
            await self.afeed(delta)
            if not self.hold_back:
                self.released += delta
                yield delta
                continue
            piece = self.release()
            if piece:
                yield piece
        await self.afinish()
        piece = self.release()
        if piece:
            yield piece

    # --- what may be shown -------------------------------------------------------------------

    def release(self) -> str:
        """The text that may be shown now and was not yet, added to :attr:`released` (for a
        caller that feeds deltas itself; ``wrap`` and ``awrap`` call it).

        Before the end: text behind the last check's watermark by 200 characters (the
        interface's overlap), and none past the start of the first violation reported, of any
        enforcement (so nothing is shown that the redaction might still change). After
        :meth:`finish`: the rest of :attr:`deliverable`. Without ``hold_back``: all new text
        before the end, and nothing after it.
        """
        if self.result is not None:
            target = self.deliverable or ""
            if not target.startswith(self.released):
                self._warn_released_differs()
                return ""
            end, source = len(target), target
        elif self.hold_back:
            end, source = self._release_limit, self.text
        else:
            end, source = len(self.text), self.text
        start = len(self.released)
        if end <= start:
            return ""
        piece = source[start:end]
        self.released += piece
        return piece

    @property
    def deliverable(self) -> str | None:
        """Once finished, what the reader may be shown of the whole output
        (:func:`govcore.text_to_deliver`): the text when the verdict is safe (warnings and
        audits keep it), else the suggested redaction."""
        return text_to_deliver(self.text, self.result) if self.result is not None else None

    @property
    def redaction(self) -> str | None:
        """The suggested redaction of the whole output, once finished."""
        return self.result.suggested_redaction if self.result is not None else None

    # --- the guard's own state, the same for both -----------------------------------------------

    def _refuse_awaitable_client(self) -> None:
        """A blocking call on a client whose checks are coroutine functions is refused before
        anything is sent (a wrapper forwarding them is recognised the same way)."""
        method = getattr(self._client, "check_output_stream", None)
        if inspect.iscoroutinefunction(method):
            raise TypeError("the client's checks are awaited: use afeed, afinish or awrap")

    @staticmethod
    def _blocking(answer: Any) -> Any:
        if inspect.isawaitable(answer):
            if inspect.iscoroutine(answer):
                answer.close()  # never awaited: close it so nothing runs half-way
            raise TypeError("the client's checks are awaited: use afeed, afinish or awrap")
        return answer

    def _check(self, method: str, *, is_final: bool) -> Any:
        """Call the client's check ``method`` with this output's request (and trace id)."""
        call: Callable[..., Any] = getattr(self._client, method)
        request = self._request(is_final=is_final)
        if self.trace_id is None:
            return call(request)
        return call(request, trace_id=self.trace_id)

    def _add(self, delta: str) -> bool:
        """Take a delta; whether enough new text has come for a check."""
        if self.result is not None:
            raise RuntimeError("the stream is already finished")
        self.text += delta
        return len(self.text) - self._checked_length >= self.chunk_size

    def _request(self, *, is_final: bool) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "fullText": self.text,
            "lastCheckedOffset": self.watermark,
            "isFinal": is_final,
        }

    def _absorb(self, response: StreamCheckResponse) -> list[StreamViolation]:
        """Record a check's answer; returns its new violations."""
        self._checked_length = len(self.text)
        self.watermark = response.watermark
        if not self.violations and not response.new_violations:
            # Text this far behind the watermark is final: no later text makes it part of a
            # match. The overlap is kept back besides, as the interface's window keeps it.
            limit = min(response.watermark, len(self.text)) - STREAM_OVERLAP
            self._release_limit = max(self._release_limit, limit)
        self.violations.extend(response.new_violations)
        if self._on_violation is not None:
            for violation in response.new_violations:
                self._on_violation(violation)
        return list(response.new_violations)

    def _warn_released_differs(self) -> None:
        if self.hold_back and not self._warned:
            self._warned = True
            _log.warning(
                "stream guard: text already shown is not the start of the output to deliver "
                "(a violation found only when the stream finished reaches into it); nothing "
                "more is released: show guard.deliverable in place of the streamed text"
            )


async def _settled(answer: Any) -> Any:
    """The answer of a check, awaited when it is awaitable."""
    if inspect.isawaitable(answer):
        return await answer
    return answer
