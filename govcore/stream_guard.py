"""Checking a model's output while it streams, for any model client.

:class:`StreamGuard` wraps the text deltas a model client yields (sync or async), calls the
streaming check every ``chunk_size`` characters (default 200, the number of new characters that
makes the server scan), finalizes at the end, and exposes violations as they come and the final
verdict with its redaction. With an :class:`~govcore.AsyncGovernanceClient`, ``awrap`` awaits
every check, so an async stream is guarded without blocking its loop::

    guard = StreamGuard(client, session_id="conv-42")
    for delta in guard.wrap(model.stream(prompt)):
        send_to_user(delta)              # or hold back while guard.violations is not empty
    verdict = guard.result               # safe, violations, suggestedRedaction, ...
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.models import PostInferenceResponse, StreamCheckResponse, StreamViolation

__all__ = ["StreamGuard"]

DEFAULT_CHUNK_SIZE = 200


class StreamGuard:
    """Incremental output checking through a typed client, blocking or asyncio.

    With a :class:`~govcore.GovernanceClient` use :meth:`feed`, :meth:`finish` and
    :meth:`wrap`; with an :class:`~govcore.AsyncGovernanceClient` use :meth:`afeed`,
    :meth:`afinish` and :meth:`awrap`, which await every check. :meth:`awrap` also takes a
    blocking client, whose checks then run in the loop's thread.

    Args:
        client: the typed client (its key needs ``post_inference_checking``).
        session_id: the conversation the output belongs to.
        chunk_size: characters to accumulate between two streaming checks.
        on_violation: called with each new violation as soon as it is reported.
    """

    def __init__(
        self,
        client: GovernanceClient | AsyncGovernanceClient,
        session_id: str,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_violation: Callable[[StreamViolation], None] | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self._client = client
        self.session_id = session_id
        self.chunk_size = chunk_size
        self._on_violation = on_violation
        self.text = ""
        self.watermark = 0
        self.violations: list[StreamViolation] = []
        self.result: PostInferenceResponse | None = None
        self._checked_length = 0

    # --- blocking ----------------------------------------------------------------------------

    def feed(self, delta: str) -> list[StreamViolation]:
        """Add a delta; returns the violations this delta brought to light (often none)."""
        client = self._blocking()
        if not self._add(delta):
            return []
        return self._absorb(client.check_output_stream(self._request(is_final=False)))

    def finish(self) -> PostInferenceResponse:
        """Check the tail, then finalize: the verdict on the whole output."""
        if self.result is None:
            client = self._blocking()
            self._absorb(client.check_output_stream(self._request(is_final=True)))
            self.result = client.finalize_output(self._request(is_final=True))
        return self.result

    def wrap(self, deltas: Iterable[str]) -> Iterator[str]:
        """Yield every delta unchanged while checking; finalizes when the deltas end."""
        for delta in deltas:
            self.feed(delta)
            yield delta
        self.finish()

    # --- asyncio -----------------------------------------------------------------------------

    async def afeed(self, delta: str) -> list[StreamViolation]:
        """:meth:`feed`, awaiting the check."""
        if not self._add(delta):
            return []
        request = self._request(is_final=False)
        client = self._client
        if isinstance(client, AsyncGovernanceClient):
            return self._absorb(await client.check_output_stream(request))
        return self._absorb(client.check_output_stream(request))

    async def afinish(self) -> PostInferenceResponse:
        """:meth:`finish`, awaiting the checks."""
        if self.result is None:
            request = self._request(is_final=True)
            client = self._client
            if isinstance(client, AsyncGovernanceClient):
                self._absorb(await client.check_output_stream(request))
                self.result = await client.finalize_output(self._request(is_final=True))
            else:
                self._absorb(client.check_output_stream(request))
                self.result = client.finalize_output(self._request(is_final=True))
        return self.result

    async def awrap(self, deltas: AsyncIterable[str]) -> AsyncIterator[str]:
        """The same for an async stream of deltas: yields each delta unchanged while checking,
        and finalizes when the deltas end."""
        async for delta in deltas:
            await self.afeed(delta)
            yield delta
        await self.afinish()

    @property
    def redaction(self) -> str | None:
        """The suggested redaction of the whole output, once finished."""
        return self.result.suggested_redaction if self.result is not None else None

    # --- the guard's own state, the same for both -----------------------------------------------

    def _blocking(self) -> GovernanceClient:
        if isinstance(self._client, AsyncGovernanceClient):
            raise TypeError("an AsyncGovernanceClient is awaited: use afeed, afinish or awrap")
        return self._client

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
        self.violations.extend(response.new_violations)
        if self._on_violation is not None:
            for violation in response.new_violations:
                self._on_violation(violation)
        return list(response.new_violations)
