"""The transport-neutral dispatcher: one call per HTTP request, no network involved.

This is the only place where errors become statuses. Routing comes first (404, 405), then the
endpoint's pipeline (401, 429, 403, 400, then the endpoint's own outcomes); a
:class:`~govcore.errors.GovcoreError` becomes its status and JSON body, and anything else a bare
500, so :func:`dispatch` never raises.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pydantic import BaseModel

from govcore.errors import (
    AuthenticationError,
    GovcoreError,
    MethodNotAllowedError,
    NotFoundError,
    RateLimitedError,
)
from govcore.governance import RawBody
from govcore.service.access import bearer_token

if TYPE_CHECKING:
    from govcore.governance import Governance, Result

__all__ = ["API_PREFIX", "HttpResponse", "dispatch"]

API_PREFIX = "/api/v1/agent"
_JSON = "application/json"
_log = logging.getLogger("govcore.http")


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """What :meth:`govcore.Governance.handle` answers."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        """The parsed body, or ``None`` when there is none."""
        return json.loads(self.body) if self.body else None


Handler = Callable[["Governance", "str | None", str, "bytes | str | None"], "Result[Any]"]


def _with_body(endpoint: str) -> Handler:
    """A handler passing the raw body to ``Governance.<endpoint>``."""

    def handler(gov: Governance, key: str | None, _: str, body: bytes | str | None) -> Result[Any]:
        method: Callable[[str | None, RawBody], Result[Any]] = getattr(gov, endpoint)
        return method(key, RawBody(body))

    return handler


def _get_conversation(gov: Governance, key: str | None, session_id: str, _: Any) -> Result[Any]:
    return gov._get_conversation(key, session_id)


def _delete_conversation(gov: Governance, key: str | None, session_id: str, _: Any) -> Result[Any]:
    return gov._delete_conversation(key, session_id)


# Fixed paths, and the one path with a parameter (the session id).
_ROUTES: dict[str, dict[str, Handler]] = {
    "/governance/conversation/turn": {"POST": _with_body("_record_turn")},
    "/governance/pre-inference": {"POST": _with_body("_pre_inference")},
    "/governance/check-tool-call": {"POST": _with_body("_check_tool_call")},
    "/governance/post-inference": {"POST": _with_body("_post_inference")},
    "/governance/check-output/stream": {"POST": _with_body("_check_output_stream")},
    "/governance/check-output/finalize": {"POST": _with_body("_finalize_output")},
}
_CONVERSATION_PREFIX = "/governance/conversation/"
_CONVERSATION_ROUTES: dict[str, Handler] = {
    "GET": _get_conversation,
    "DELETE": _delete_conversation,
}


def _route(method: str, path: str) -> tuple[Handler, str]:
    """The handler of ``method path`` and its path parameter."""
    path = path.split("?", 1)[0].split("#", 1)[0]
    if path.startswith(API_PREFIX + "/"):
        path = path[len(API_PREFIX) :]
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    fixed = _ROUTES.get(path)
    parameter = ""
    if fixed is not None and method in fixed:
        return fixed[method], parameter
    methods = fixed
    if path.startswith(_CONVERSATION_PREFIX):
        rest = path[len(_CONVERSATION_PREFIX) :]
        if rest and "/" not in rest:
            if method in _CONVERSATION_ROUTES:
                return _CONVERSATION_ROUTES[method], unquote(rest, errors="strict")
            methods = {**(fixed or {}), **_CONVERSATION_ROUTES}
    if methods is None:
        raise NotFoundError(f"no endpoint at {path!r}")
    allowed = sorted(methods)
    raise MethodNotAllowedError(f"{method} is not allowed here; use {', '.join(allowed)}", allowed)


def _error_response(error: GovcoreError) -> HttpResponse:
    headers = {"content-type": _JSON}
    if isinstance(error, RateLimitedError):
        headers["retry-after"] = str(error.retry_after)
    elif isinstance(error, MethodNotAllowedError):
        headers["allow"] = ", ".join(error.allowed)
    elif error.status == 401:
        headers["www-authenticate"] = "Bearer"
    # ASCII escapes: a message may quote caller input that is not encodable as UTF-8.
    body = json.dumps(error.to_body()).encode()
    return HttpResponse(error.status, headers, body)


Headers = Mapping[str, str] | Sequence[tuple[str | bytes, str | bytes]] | None
"""Request headers: a mapping of names to values, or a list of name-value pairs (str or bytes)."""


def _lowered(headers: Any) -> dict[str, str]:
    """Header names lower-cased. Besides a mapping, pairs are accepted as servers hand them over
    (ASGI: a list of ``(bytes, bytes)``); anything else counts as no headers at all. Of a
    repeated header the first counts, but two different ``Authorization`` values are refused."""
    if not headers:
        return {}
    if isinstance(headers, Mapping):
        pairs: Iterable[Any] = headers.items()
    elif isinstance(headers, list | tuple):
        pairs = headers
    else:
        return {}
    lowered: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            continue
        name, value = (
            item.decode("latin-1") if isinstance(item, bytes | bytearray) else item for item in pair
        )
        if isinstance(name, str) and isinstance(value, str):
            name = name.lower()
            if name == "authorization" and lowered.get(name, value) != value:
                # Which one a proxy in front went by cannot be known: neither is trusted.
                raise AuthenticationError("conflicting Authorization headers")
            lowered.setdefault(name, value)
    return lowered


def dispatch(
    governance: Governance,
    method: str,
    path: str,
    headers: Headers,
    body: bytes | str | None,
) -> HttpResponse:
    """Answer one request; see :meth:`govcore.Governance.handle`."""
    try:
        if not isinstance(method, str) or not isinstance(path, str):
            raise NotFoundError("method and path must be strings")
        if isinstance(body, bytearray | memoryview):
            body = bytes(body)
        elif body is not None and not isinstance(body, bytes | str):
            body = b"\x00not-a-body"  # fails JSON parsing with a 400, like any garbage
        handler, parameter = _route(method.upper(), path)
        result = handler(governance, bearer_token(_lowered(headers)), parameter, body)
        if result.model is None:
            return HttpResponse(204)
        payload = result.body if result.body is not None else _dump(result.model)
        return HttpResponse(200, {"content-type": _JSON}, payload)
    except GovcoreError as error:
        return _error_response(error)
    except UnicodeDecodeError:
        return _error_response(NotFoundError("the path is not valid percent-encoded UTF-8"))
    except Exception:
        _log.exception("internal error answering %r %r", method, path)
        body_json = {"error": "internal_error", "message": "internal error"}
        return HttpResponse(500, {"content-type": _JSON}, json.dumps(body_json).encode())


def _dump(model: BaseModel) -> bytes:
    return model.model_dump_json().encode()
