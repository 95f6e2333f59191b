"""The transport-neutral dispatcher: one call per HTTP request, no network involved.

This is the only place where errors become statuses. Routing comes first (404, 405), over the
rows of the endpoint table (:class:`Router`), then the endpoint's pipeline (401, 429, 403, 400,
then the endpoint's own outcomes); a :class:`~govcore.errors.GovcoreError` becomes its status
and JSON body, and anything else a bare 500, so :func:`dispatch` never raises.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from govcore.errors import (
    AuthenticationError,
    GovcoreError,
    MethodNotAllowedError,
    NotFoundError,
    RateLimitedError,
    clip,
)
from govcore.service.access import bearer_token
from govcore.service.effects import Steps
from govcore.service.endpoints import ENDPOINTS, Endpoint, RawBody, RawQuery, call
from govcore.service.shared import Service

__all__ = [
    "API_PREFIX",
    "ROUTER",
    "Headers",
    "HttpResponse",
    "Router",
    "dispatch",
    "route",
    "split_target",
]

API_PREFIX = "/api/v1/agent"
_JSON = "application/json"
_log = logging.getLogger("govcore.http")
_INTERNAL_ERROR_BODY = json.dumps({"error": "internal_error", "message": "internal error"}).encode()


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """What :meth:`govcore.Governance.handle` answers."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        """The parsed body, or ``None`` when there is none."""
        return json.loads(self.body) if self.body else None


_Routes = dict[str, dict[str, Endpoint[Any, Any]]]  # path (or prefix) -> method -> endpoint


class Router:
    """Routes a method and path to a row of an endpoint table.

    Paths are matched exactly, then by the prefix of the routes that end in a path parameter
    (``/governance/conversation/`` for ``{sessionId}``), so a fixed route wins over a parameter
    that would spell it: ``POST /governance/conversation/turn`` records a turn, and ``GET`` of
    the same path reads the session named ``turn``.
    """

    __slots__ = ("_fixed", "_with_parameter")

    def __init__(self, endpoints: Iterable[Endpoint[Any, Any]]) -> None:
        self._fixed: _Routes = {}
        self._with_parameter: _Routes = {}
        for endpoint in endpoints:
            if endpoint.request == "path":
                prefix = endpoint.path[: endpoint.path.rindex("/") + 1]
                self._with_parameter.setdefault(prefix, {})[endpoint.method] = endpoint
            else:
                self._fixed.setdefault(endpoint.path, {})[endpoint.method] = endpoint

    def route(self, method: str, path: str) -> tuple[Endpoint[Any, Any], str | None]:
        """The endpoint of ``method path`` (a path with or without the mount prefix, without a
        query string; ``method`` in upper case) and its percent-decoded path parameter, if any.

        Raises:
            NotFoundError: no endpoint at the path (404).
            MethodNotAllowedError: the path takes other methods (405).
            UnicodeDecodeError: the path parameter is not valid percent-encoded UTF-8.
        """
        if path.startswith(API_PREFIX + "/"):
            path = path[len(API_PREFIX) :]
        if len(path) > 1 and path.endswith("/"):
            path = path[:-1]
        methods: dict[str, Endpoint[Any, Any]] = {}
        fixed = self._fixed.get(path)
        if fixed is not None:
            if method in fixed:
                return fixed[method], None
            methods.update(fixed)
        for prefix, endpoints in self._with_parameter.items():
            rest = path[len(prefix) :] if path.startswith(prefix) else ""
            if rest and "/" not in rest:
                if method in endpoints:
                    return endpoints[method], unquote(rest, errors="strict")
                methods.update(endpoints)
        if not methods:
            raise NotFoundError(f"no endpoint at {clip(path, 200)!r}")
        allowed = sorted(methods)
        raise MethodNotAllowedError(
            f"{clip(method, 20)} is not allowed here; use {', '.join(allowed)}", allowed
        )


ROUTER = Router(ENDPOINTS)
"""The router of the HTTP interface: :data:`govcore.service.endpoints.ENDPOINTS`."""


def split_target(target: str) -> tuple[str, str]:
    """A request target's path and its query string (``""`` when none); a fragment is dropped."""
    if "#" in target:  # the test first: dispatch splits every request's target
        target = target.split("#", 1)[0]
    path, _, query = target.partition("?")
    return path, query


def route(method: str, path: str) -> tuple[Endpoint[Any, Any], str | None]:
    """:meth:`Router.route` of :data:`ROUTER`; ``path`` may carry a query string (ignored)."""
    return ROUTER.route(method, split_target(path)[0])


def _error_response(error: GovcoreError) -> HttpResponse:
    if error.status == 500:  # a bug: its detail is logged, never shown
        return HttpResponse(500, {"content-type": _JSON}, _INTERNAL_ERROR_BODY)
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
    service: Service,
    method: str,
    path: str,
    headers: Headers,
    body: bytes | str | None,
    router: Router = ROUTER,
) -> Steps[HttpResponse]:
    """Answer one request (a generator of store effects that never raises); see
    :meth:`govcore.Governance.handle`.

    The endpoint's row says what its request is: the body, the path parameter, or (with a
    query model) the query string. Whatever else the request carries is ignored, as the
    interface says: a body sent to a GET, a query string to an endpoint without a query model.
    """
    try:
        if not isinstance(method, str) or not isinstance(path, str):
            raise NotFoundError("method and path must be strings")
        if isinstance(body, bytearray | memoryview):
            body = bytes(body)
        elif body is not None and not isinstance(body, bytes | str):
            body = b"\x00not-a-body"  # fails JSON parsing with a 400, like any garbage
        path, query = split_target(path)
        endpoint, parameter = router.route(method.upper(), path)
        payload: RawBody | RawQuery | str | None
        if endpoint.request == "body":
            payload = RawBody(body)
        elif endpoint.request == "path":
            payload = parameter
        else:
            payload = None if endpoint.query is None else RawQuery(query)
        result = yield from call(service, endpoint, bearer_token(_lowered(headers)), payload)
        if result.model is None:
            return HttpResponse(204)
        payload_bytes = (
            result.body if result.body is not None else result.model.model_dump_json().encode()
        )
        return HttpResponse(200, {"content-type": _JSON}, payload_bytes)
    except GovcoreError as error:
        return _error_response(error)
    except UnicodeDecodeError:
        return _error_response(NotFoundError("the path is not valid percent-encoded UTF-8"))
    except Exception:
        _log.exception("internal error answering %r %r", method, path)
        return HttpResponse(500, {"content-type": _JSON}, _INTERNAL_ERROR_BODY)
