"""The reference HTTP service: a plain ASGI application around an asynchronous dispatcher.

No web framework: the application routes ``{mount}/...`` to the governance's ``handle``,
serves ``/healthz``, ``/readyz``, ``/metrics`` and ``{mount}/openapi.json``, bounds request
bodies while it reads them, handles the lifespan protocol and writes one access log line per
request (docs/server.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

from govcore.config import GovernanceSettings
from govcore.errors import (
    AuthenticationError,
    BackendError,
    GovcoreError,
    InvalidRequestError,
    MethodNotAllowedError,
    NotFoundError,
    clip,
)
from govcore.http import API_PREFIX, Headers, HttpResponse, route
from govcore.service.access import bearer_token
from govcore.service.endpoints import body_limit
from govcore.telemetry import METRICS_EXTRA_MISSING, Metrics, metrics_available, tracing_available

if TYPE_CHECKING:
    from govcore.server.reload import ConfigWatcher

__all__ = [
    "ASGIApp",
    "GovernanceApp",
    "ServedGovernance",
    "body_limit",
    "configuration_version",
    "create_app",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("govcore.access")
_log = logging.getLogger("govcore.server")

_JSON = "application/json"
_INTERNAL_ERROR = {"error": "internal_error", "message": "internal error"}
_LOGGED_PATH_CHARS = 200
_KEY_ID_HEX = 12  # the key id: this many hex digits of the secret's SHA-256 (as in decisions)


class ServedGovernance(Protocol):
    """What the application serves: an asynchronous dispatcher with its settings.

    :class:`govcore.AsyncGovernance` is one; :class:`govcore.server.ThreadedGovernance` makes
    one of a :class:`govcore.Governance`. One that has a ``metrics`` attribute (a
    :class:`govcore.telemetry.Metrics`, as both facades built with ``metrics=`` do) has it
    served at ``/metrics``; without one, ``/metrics`` answers 404.
    """

    @property
    def settings(self) -> GovernanceSettings: ...

    async def handle(
        self, method: str, path: str, headers: Headers = None, body: bytes | str | None = None
    ) -> HttpResponse:
        """Answer one request (never raises for anything a caller sends)."""
        ...

    async def ping(self) -> None:
        """Return when the store answers; raise :class:`govcore.BackendError` when it does not."""
        ...

    async def aclose(self) -> object:
        """Flush what is pending and release connections (what it returns is ignored)."""
        ...


def create_app(
    governance: ServedGovernance,
    *,
    mount: str = API_PREFIX,
    readiness_timeout: float = 5.0,
    body_timeout: float = 30.0,
    metrics_token: str | None = None,
    watcher: ConfigWatcher | None = None,
) -> GovernanceApp:
    """The ASGI application serving ``governance`` under ``mount``.

    Args:
        governance: answers the requests under ``mount``; closed when the server shuts down.
        mount: the path prefix of the interface (``""`` for the root).
        readiness_timeout: seconds ``/readyz`` waits for the store before answering 503.
        body_timeout: seconds a request body may take to arrive in full; a slower one is
            answered 408 and its connection closed, so a client cannot hold a request open.
        metrics_token: when set, ``/metrics`` answers only a request bearing it
            (``Authorization: Bearer <token>``) and 401 otherwise: its labels name every
            tenant and policy, which one tenant's callers need not see.
    """
    return GovernanceApp(
        governance,
        mount=mount,
        readiness_timeout=readiness_timeout,
        body_timeout=body_timeout,
        metrics_token=metrics_token,
        watcher=watcher,
    )


def configuration_version(
    versions: Mapping[str, Any], shadows: Mapping[str, Any] | None = None
) -> str:
    """One version for every policy set served: 16 hex digits of a hash of each tenant's id,
    policy-set version and label, and its shadow's version, label and sample rate; equal in
    every process serving the same policy sets."""
    digest = hashlib.sha256()
    for tenant in sorted(versions):
        served = versions[tenant]
        digest.update(f"{tenant}\0{served.version}\0{served.label or ''}".encode())
        if shadows and tenant in shadows:
            candidate, rate = shadows[tenant]
            digest.update(f"\0{candidate.version}\0{candidate.label or ''}\0{rate!r}".encode())
        digest.update(b"\n")
    return digest.hexdigest()[:16]


class _DisconnectedError(Exception):
    """The client went away before its request body was complete."""


class _BodyTooLargeError(Exception):
    def __init__(self, size: int | None) -> None:
        super().__init__(size)
        self.size = size  # known from content-length, else None


class GovernanceApp:
    """The ASGI application :func:`create_app` returns."""

    def __init__(
        self,
        governance: ServedGovernance,
        *,
        mount: str,
        readiness_timeout: float,
        body_timeout: float = 30.0,
        metrics_token: str | None = None,
        watcher: ConfigWatcher | None = None,
    ) -> None:
        if mount and (not mount.startswith("/") or mount.endswith("/")):
            raise ValueError("mount must be empty or start with '/' and not end with '/'")
        if not body_timeout > 0:
            raise ValueError("body_timeout must be a positive number of seconds")
        self.governance = governance
        self.mount = mount
        self.readiness_timeout = readiness_timeout
        self.body_timeout = body_timeout
        self.metrics_token = metrics_token or None
        self.watcher = watcher
        """Reloads the configuration on SIGHUP and file changes while the server runs."""
        self._openapi: bytes | None = None
        self.stopping = False
        """Set by :meth:`begin_stop`: the server is draining, and ``/readyz`` answers 503."""

    def begin_stop(self) -> None:
        """Report not ready from now on (``/readyz`` answers 503 ``stopping``) while the
        requests in flight finish: ``govcore serve`` calls it on SIGTERM."""
        self.stopping = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})

    # --- lifespan ------------------------------------------------------------------------

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if self.watcher is not None:
                    await self.watcher.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    if self.watcher is not None:
                        try:
                            await self.watcher.stop()
                        except Exception:  # the governance is closed all the same
                            _log.exception("stopping the configuration watcher failed")
                    await self.governance.aclose()
                except Exception as exc:
                    _log.exception("closing the governance failed")
                    await send({"type": "lifespan.shutdown.failed", "message": repr(exc)})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                return

    # --- requests ------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        method: str = scope["method"].upper()
        # The raw path keeps a session id's percent-encoding (``a%2Fb`` is one segment), as the
        # dispatcher expects; some clients put the query string in it too.
        raw = scope.get("raw_path")
        path = raw.decode("latin-1") if raw else scope["path"]
        path = path.split("?", 1)[0]
        query: str = scope.get("query_string", b"").decode("latin-1")
        entry = _AccessEntry(method, clip(path, _LOGGED_PATH_CHARS))  # never the query
        try:
            response = await self._answer(method, path, query, scope, receive, entry)
        except _DisconnectedError:
            entry.log(started)
            return
        except Exception:
            _log.exception("internal error answering %s %s", method, entry.path)
            response = _json_response(500, _INTERNAL_ERROR)
        entry.status = response.status
        entry.bytes_out = len(response.body)
        headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in
                   response.headers.items()]  # fmt: skip
        headers.append((b"content-length", str(len(response.body)).encode()))
        await send({"type": "http.response.start", "status": response.status, "headers": headers})
        await send({"type": "http.response.body", "body": response.body})
        if entry.key_secret is not None and response.status not in (401, 500):
            # The dispatcher authenticates first, so any other answer means the key was known.
            entry.key_id = hashlib.sha256(entry.key_secret.encode()).hexdigest()[:_KEY_ID_HEX]
        entry.log(started)

    async def _answer(
        self,
        method: str,
        path: str,
        query: str,
        scope: Scope,
        receive: Receive,
        entry: _AccessEntry,
    ) -> HttpResponse:
        if path in ("/healthz", "/readyz"):
            if method != "GET":
                return _not_allowed(method, ["GET"])
            if path == "/healthz":
                return _json_response(200, {"status": "ok"})
            return await self._readiness(scope.get("headers", []))
        if path == "/metrics":
            if method != "GET":
                return _not_allowed(method, ["GET"])
            return self._metrics(scope.get("headers", []))
        prefix = self.mount + "/"
        if not path.startswith(prefix):
            return _error(NotFoundError(self._outside_mount(method, path)))
        under_mount = path[len(self.mount) :]
        if under_mount == "/openapi.json":
            if method != "GET":
                return _not_allowed(method, ["GET"])
            return HttpResponse(200, {"content-type": _JSON}, self._openapi_body())
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        try:
            endpoint, _ = route(method, under_mount)
        except (GovcoreError, UnicodeDecodeError):
            # Routing refused it: the dispatcher gives its own answer, and never reads a body.
            return await self.governance.handle(method, under_mount, headers, b"")
        entry.path = clip(self.mount + endpoint.path, _LOGGED_PATH_CHARS)
        entry.key_secret = _presented_key(headers)
        target = f"{under_mount}?{query}" if query else under_mount
        body = b""
        if endpoint.request == "body":  # read it within its limit; other requests ignore it
            limit = endpoint.body_limit(self.governance.settings)
            try:
                async with asyncio.timeout(self.body_timeout):
                    body = await _read_body(receive, headers, limit, entry)
            except _BodyTooLargeError as exc:
                entry.key_secret = None  # refused before the key was looked at
                return _body_too_large(exc.size, limit)
            except TimeoutError:
                entry.key_secret = None
                return _body_too_slow(self.body_timeout)
        return await self._handle(method, target, headers, body)

    async def _handle(
        self, method: str, target: str, headers: list[tuple[bytes, bytes]], body: bytes
    ) -> HttpResponse:
        """``handle`` of the request, in the caller's trace when its headers carry one (so the
        endpoint's span joins it: docs/observability.md)."""
        if tracing_available():
            from govcore.telemetry import _tracing

            parent = _tracing.remote_parent(headers)
            if parent is not None:
                with _tracing.current(parent):
                    return await self.governance.handle(method, target, headers, body)
        return await self.governance.handle(method, target, headers, body)

    def _metrics(self, headers: list[tuple[bytes, bytes]]) -> HttpResponse:
        """``/metrics``: the served governance's Prometheus instruments, in the text format."""
        if not self._bears_metrics_token(headers):
            return _error(AuthenticationError("/metrics needs the metrics token as a bearer token"))
        metrics: Metrics | None = getattr(self.governance, "metrics", None)
        if metrics is None:
            reason = (
                "metrics are not enabled for this application"
                if metrics_available()
                else METRICS_EXTRA_MISSING
            )
            return _error(NotFoundError(reason))
        body, content_type = metrics.exposition()
        return HttpResponse(200, {"content-type": content_type}, body)

    def _outside_mount(self, method: str, path: str) -> str:
        """The message of a 404 for ``path`` outside the mount; when the path names an endpoint
        under the mount (the dispatcher's own paths, which ``handle`` takes without the
        prefix), it says where the interface is served."""
        message = f"no endpoint at {clip(path, 200)!r}"
        under_mount = path[len(API_PREFIX) :] if path.startswith(API_PREFIX + "/") else path
        try:
            route(method, under_mount)
        except MethodNotAllowedError:
            pass  # the path is an endpoint's, for another method
        except (GovcoreError, UnicodeDecodeError):
            return message
        suggested = clip(self.mount + under_mount, 200)
        return f"{message}: the API is served under {self.mount} (try {suggested})"

    def _bears_metrics_token(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether the request may see what names tenants: no metrics token is set, or it
        bears that token."""
        token = self.metrics_token
        return token is None or hmac.compare_digest(
            (_presented_key(headers) or "").encode(), token.encode()
        )

    async def _readiness(self, headers: list[tuple[bytes, bytes]]) -> HttpResponse:
        if self.stopping:
            return _json_response(503, {"status": "unavailable", "reason": "stopping"})
        try:
            await asyncio.wait_for(self.governance.ping(), self.readiness_timeout)
        except (BackendError, TimeoutError) as exc:
            reason = "timed out" if isinstance(exc, TimeoutError) else exc.message
            return _json_response(503, {"status": "unavailable", "reason": reason})
        except Exception:
            _log.exception("the readiness probe failed")
            return _json_response(503, {"status": "unavailable", "reason": "probe failed"})
        body: dict[str, Any] = {"status": "ready"}
        served = getattr(self.governance, "served_versions", None)
        if callable(served):
            # Which policy sets this process serves, so that a rollout can be watched and a
            # fleet serving two versions seen, process by process. The configuration's version
            # names no tenant; the policy sets do, so with a metrics token set they are shown
            # only to requests bearing it (as /metrics, whose labels name them too).
            versions: dict[str, Any] = served()
            shadowed = getattr(self.governance, "shadow_versions", None)
            shadows: dict[str, Any] = shadowed() if callable(shadowed) else {}
            body["configVersion"] = configuration_version(versions, shadows)
            if self._bears_metrics_token(headers):
                sets: dict[str, Any] = {}
                for tenant, v in versions.items():
                    sets[tenant] = {"version": v.version, "label": v.label}
                    if tenant in shadows:
                        candidate, rate = shadows[tenant]
                        sets[tenant]["shadow"] = {
                            "version": candidate.version,
                            "label": candidate.label,
                            "sampleRate": rate,
                        }
                body["policySets"] = sets
        return _json_response(200, body)

    def _openapi_body(self) -> bytes:
        if self._openapi is None:
            from govcore.openapi import openapi_json

            self._openapi = openapi_json(self.mount).encode()
        return self._openapi


class _AccessEntry:
    """What the access log line of one request says (never a key, a body or a query)."""

    __slots__ = ("bytes_in", "bytes_out", "key_id", "key_secret", "method", "path", "status")

    def __init__(self, method: str, path: str) -> None:
        self.method = clip(method, 20)
        self.path = path
        self.status: int | None = None
        self.bytes_in = 0
        self.bytes_out = 0
        self.key_secret: str | None = None  # only to derive the key id; never logged
        self.key_id: str | None = None

    def log(self, started: float) -> None:
        if not access_log.isEnabledFor(logging.INFO):
            return
        line: dict[str, Any] = {
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            "bytes_in": self.bytes_in,
            "bytes_out": self.bytes_out,
            "pid": os.getpid(),  # which worker answered, when several serve one port
        }
        if self.key_id is not None:
            line["key_id"] = self.key_id
        access_log.info(json.dumps(line))


def _presented_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The bearer secret as the dispatcher reads it (the first Authorization header), if any."""
    for name, value in headers:
        if name.lower() == b"authorization":
            try:
                return bearer_token({"authorization": value.decode("latin-1")})
            except GovcoreError:
                return None
    return None


async def _read_body(
    receive: Receive, headers: list[tuple[bytes, bytes]], limit: int, entry: _AccessEntry
) -> bytes:
    """The request body, read chunk by chunk; :class:`_BodyTooLargeError` as soon as it passes
    ``limit`` bytes (at once when content-length says it will)."""
    for name, value in headers:
        if name.lower() == b"content-length":
            declared = value.strip()
            if declared.isdigit() and int(declared) > limit:
                raise _BodyTooLargeError(int(declared))
            break
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _DisconnectedError()
        chunk: bytes = message.get("body", b"")
        entry.bytes_in += len(chunk)
        if entry.bytes_in > limit:
            raise _BodyTooLargeError(None)
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def _body_too_large(size: int | None, limit: int) -> HttpResponse:
    """The dispatcher's answer to a body over its limit (a 400 on ``body``)."""
    reason = (
        f"is {size} bytes, more than the limit of {limit} bytes"
        if size is not None
        else f"is more than the limit of {limit} bytes"
    )
    response = _error(InvalidRequestError.for_field("body", reason))
    # The rest of the body is never read: the connection cannot carry another request.
    return HttpResponse(response.status, {**response.headers, "connection": "close"}, response.body)


def _body_too_slow(seconds: float) -> HttpResponse:
    """The answer to a body that did not arrive in time (the rest of it is never read)."""
    body = {
        "error": "request_timeout",
        "message": f"the request body did not arrive within {seconds:g} seconds",
    }
    response = _json_response(408, body)
    return HttpResponse(408, {**response.headers, "connection": "close"}, response.body)


def _error(error: GovcoreError) -> HttpResponse:
    return _json_response(error.status, error.to_body())


def _not_allowed(method: str, allowed: list[str]) -> HttpResponse:
    error = MethodNotAllowedError(
        f"{clip(method, 20)} is not allowed here; use {', '.join(allowed)}", allowed
    )
    response = _error(error)
    return HttpResponse(response.status, {**response.headers, "allow": ", ".join(allowed)},
                        response.body)  # fmt: skip


def _json_response(status: int, body: Any) -> HttpResponse:
    return HttpResponse(status, {"content-type": _JSON}, json.dumps(body).encode())
