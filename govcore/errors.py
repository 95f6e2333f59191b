"""The one exception hierarchy of govcore.

Every class carries the HTTP status and the stable machine-readable ``error`` code that
:meth:`govcore.Governance.handle` answers with; the typed client raises the same classes::

    GovcoreError              500 internal_error
    ├── ConfigError           raised by from_config and the loaders; never an HTTP outcome
    ├── InvalidRequestError   400 invalid_request      .details
    ├── AuthenticationError   401 unauthenticated
    ├── PermissionDeniedError 403 forbidden
    ├── NotFoundError         404 not_found
    ├── MethodNotAllowedError 405 method_not_allowed   .allowed (the dispatcher's routing only)
    ├── RateLimitedError      429 rate_limited         .window_seconds, .retry_after
    ├── BackendError          503 backend_unavailable  raised "from" the driver's error
    └── InternalError         500 internal_error       a bug in govcore; never retry it

Only the exception types a store declares in ``backend_errors`` become a ``BackendError``, and
so does stored data that cannot be read. Any other exception inside govcore is a bug: the typed
client raises ``InternalError`` from it, and ``handle`` answers 500 without detail.

A blocked tool call or a found violation is a result, never an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar


class GovcoreError(Exception):
    """Root of every error govcore raises."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_body(self) -> dict[str, Any]:
        """The JSON error body: ``{"error": code, "message": text}`` plus class extras."""
        return {"error": self.code, "message": self.message}


@dataclass(frozen=True)
class ConfigProblem:
    """One problem found in a configuration: where it is and what is wrong."""

    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}" if self.location else self.reason


class ConfigError(GovcoreError):
    """A configuration or policy document is invalid.

    ``problems`` lists every problem found, not just the first; the message names each one
    with its place (file, tenant, policy id, field) and reason.
    """

    code = "config_error"

    def __init__(self, problems: Sequence[ConfigProblem] | str) -> None:
        if isinstance(problems, str):
            problems = [ConfigProblem("", problems)]
        self.problems: tuple[ConfigProblem, ...] = tuple(problems)
        if len(self.problems) == 1:
            message = f"invalid configuration: {self.problems[0]}"
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            message = f"invalid configuration ({len(self.problems)} problems):\n{lines}"
        super().__init__(message)


MAX_DETAILS = 20
"""At most this many entries in a 400's ``details``; the message says how many more there were."""
MAX_FIELD_CHARS = 128
"""A detail's ``field`` is cut to this many characters (a field name is caller input)."""
MAX_REASON_CHARS = 256
"""A detail's ``message`` is cut to this many characters."""
MAX_MESSAGE_CHARS = 1024
"""An error message is cut to this many characters, whatever caller input it quotes."""
_SUMMARISED = 5  # problems spelt out in the message of a many-problem error


def clip(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 1`` characters and an ellipsis when it is longer."""
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


@dataclass(frozen=True)
class FieldProblem:
    """One offending field of a request: its wire path (``turn.role``) and the reason."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    def as_json(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}

    def clipped(self) -> FieldProblem:
        """This problem with field and reason cut to their limits (a no-op when within)."""
        if len(self.field) <= MAX_FIELD_CHARS and len(self.message) <= MAX_REASON_CHARS:
            return self
        return FieldProblem(clip(self.field, MAX_FIELD_CHARS), clip(self.message, MAX_REASON_CHARS))


class InvalidRequestError(GovcoreError):
    """The request is malformed or breaks a rule of the API (400).

    Whatever a caller sends, the error stays small: ``details`` keeps the first
    ``MAX_DETAILS`` problems (the message then says how many were left out), each detail and
    the message are cut to their character limits.
    """

    status = 400
    code = "invalid_request"

    def __init__(self, message: str, details: Sequence[FieldProblem] = ()) -> None:
        if len(details) > MAX_DETAILS:
            suffix = f" ({len(details) - MAX_DETAILS} more not listed in details)"
            message = clip(message, MAX_MESSAGE_CHARS - len(suffix)) + suffix
        super().__init__(clip(message, MAX_MESSAGE_CHARS))
        self.details: tuple[FieldProblem, ...] = tuple(
            detail.clipped() for detail in details[:MAX_DETAILS]
        )

    @classmethod
    def for_field(cls, field: str, reason: str) -> InvalidRequestError:
        """An error about one field, with the field named in message and details."""
        problem = FieldProblem(field, reason).clipped()
        return cls(str(problem), [problem])

    @classmethod
    def listing(
        cls, problems: Sequence[FieldProblem], total: int | None = None
    ) -> InvalidRequestError:
        """One error for several problems.

        Args:
            problems: the problems found, in order; only the first ``MAX_DETAILS`` are kept.
            total: how many problems there are in all, when more were counted than listed.
        """
        count = max(len(problems), total or 0)
        kept = [problem.clipped() for problem in problems[:MAX_DETAILS]]
        shown = kept[:_SUMMARISED]
        summary = "; ".join(str(problem) for problem in shown)
        if count > len(kept):
            tail = f" (and {count - len(shown)} more; details lists the first {len(kept)})"
        elif count > len(shown):
            tail = f" (and {count - len(shown)} more in details)"
        else:
            tail = ""
        return cls(clip(f"invalid request: {summary}", MAX_MESSAGE_CHARS - len(tail)) + tail, kept)

    def to_body(self) -> dict[str, Any]:
        body = super().to_body()
        body["details"] = [d.as_json() for d in self.details]
        return body


class AuthenticationError(GovcoreError):
    """No API key, an unknown one, or a revoked one (401)."""

    status = 401
    code = "unauthenticated"


class PermissionDeniedError(GovcoreError):
    """The key lacks the scope or the feature setting the endpoint needs (403)."""

    status = 403
    code = "forbidden"


class NotFoundError(GovcoreError):
    """No such resource for this tenant: unknown path, unknown or expired session (404)."""

    status = 404
    code = "not_found"


class MethodNotAllowedError(GovcoreError):
    """The path exists but not for this method (405); ``allowed`` fills the allow header."""

    status = 405
    code = "method_not_allowed"

    def __init__(self, message: str, allowed: Sequence[str]) -> None:
        super().__init__(message)
        self.allowed: tuple[str, ...] = tuple(allowed)


class RateLimitedError(GovcoreError):
    """The key has used up its requests for the window (429)."""

    status = 429
    code = "rate_limited"

    def __init__(self, message: str, *, window_seconds: int, retry_after: int) -> None:
        super().__init__(message)
        self.window_seconds = window_seconds
        self.retry_after = retry_after

    def to_body(self) -> dict[str, Any]:
        body = super().to_body()
        body["window_seconds"] = self.window_seconds
        body["retry_after"] = self.retry_after
        return body


class BackendError(GovcoreError):
    """A storage or retrieval backend failed; retryable (503).

    Backends raise it ``from`` the driver's own exception so callers never catch driver types.
    """

    status = 503
    code = "backend_unavailable"


class InternalError(GovcoreError):
    """An unexpected failure inside govcore: a bug, not a backend outage (500).

    Not a :class:`BackendError`, so callers do not retry it. The original exception is its
    ``__cause__``; its detail is logged with a traceback and never shown to an HTTP caller.
    """

    status = 500
    code = "internal_error"

    def __init__(self, message: str = "internal error") -> None:
        super().__init__(message)
