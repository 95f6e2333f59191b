"""Checking a model's output while it streams, for any model client.

:class:`StreamGuard` wraps the text deltas a model client yields (sync or async), calls the
streaming check every ``chunk_size`` characters (default 200, the number of new characters that
makes the server scan), finalizes at the end, and exposes violations as they come and the final
verdict with its redaction::

    guard = StreamGuard(client, session_id="conv-42")
    for delta in guard.wrap(model.stream(prompt)):
        send_to_user(delta)              # or hold back while guard.violations is not empty
    verdict = guard.result               # safe, violations, suggestedRedaction, ...
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from govcore.models import PostInferenceResponse, StreamViolation

if TYPE_CHECKING:
    from govcore.client import GovernanceClient

__all__ = ["StreamGuard"]

DEFAULT_CHUNK_SIZE = 200


class StreamGuard:
    """Incremental output checking through a :class:`~govcore.GovernanceClient`.

    Args:
        client: the typed client (its key needs ``post_inference_checking``).
        session_id: the conversation the output belongs to.
        chunk_size: characters to accumulate between two streaming checks.
        on_violation: called with each new violation as soon as it is reported.
    """

    def __init__(
        self,
        client: GovernanceClient,
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

    def feed(self, delta: str) -> list[StreamViolation]:
        """Add a delta; returns the violations this delta brought to light (often none)."""
        if self.result is not None:
            raise RuntimeError("the stream is already finished")
        self.text += delta
        if len(self.text) - self._checked_length < self.chunk_size:
            return []
        return self._check(is_final=False)

    def finish(self) -> PostInferenceResponse:
        """Check the tail, then finalize: the verdict on the whole output."""
        if self.result is None:
            self._check(is_final=True)
            self.result = self._client.finalize_output(
                {
                    "sessionId": self.session_id,
                    "fullText": self.text,
                    "lastCheckedOffset": self.watermark,
                    "isFinal": True,
                }
            )
        return self.result

    def wrap(self, deltas: Iterable[str]) -> Iterator[str]:
        """Yield every delta unchanged while checking; finalizes when the deltas end."""
        for delta in deltas:
            self.feed(delta)
            yield delta
        self.finish()

    async def awrap(self, deltas: AsyncIterable[str]) -> AsyncIterator[str]:
        """The same for an async stream of deltas (the checks are in-process and fast)."""
        async for delta in deltas:
            self.feed(delta)
            yield delta
        self.finish()

    @property
    def redaction(self) -> str | None:
        """The suggested redaction of the whole output, once finished."""
        return self.result.suggested_redaction if self.result is not None else None

    def _check(self, *, is_final: bool) -> list[StreamViolation]:
        response = self._client.check_output_stream(
            {
                "sessionId": self.session_id,
                "fullText": self.text,
                "lastCheckedOffset": self.watermark,
                "isFinal": is_final,
            }
        )
        self._checked_length = len(self.text)
        self.watermark = response.watermark
        self.violations.extend(response.new_violations)
        if self._on_violation is not None:
            for violation in response.new_violations:
                self._on_violation(violation)
        return list(response.new_violations)
