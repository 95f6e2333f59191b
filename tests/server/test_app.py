"""The ASGI application, driven in-process: the same answers as ``Governance.handle``, bounded
body reads, health and readiness, lifespan and the access log."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.config import load_config
from govcore.decision_log import MemoryDecisionLog
from govcore.http import HttpResponse
from govcore.server import GovernanceApp, ThreadedGovernance, body_limit, create_app
from govcore.service.endpoints import CHECK_TOOL_CALL, POST_INFERENCE
from govcore.testing import FakeClock
from tests.server.conftest import call
from tests.support import (
    CHECKS_KEY,
    CHECKS_NO_FEATURE_KEY,
    CHECKS_READ_ONLY_KEY,
    START_TIME,
    checks_config,
)

PREFIX = "/api/v1/agent"
AUTH = {"Authorization": f"Bearer {CHECKS_KEY}"}
CARD = "4111 1111 1111 1111"

# --- the same answers as the dispatcher --------------------------------------------------------

# (method, path under the prefix, key, body): every endpoint, its refusals, routing errors.
EXCHANGES: list[tuple[str, str, str | None, Any]] = [
    ("POST", "/governance/conversation/turn", CHECKS_KEY,
     {"sessionId": "s-1", "turn": {"role": "user", "content": "Please refund my card"}}),
    ("POST", "/governance/conversation/turn", CHECKS_KEY,
     {"sessionId": "s-1", "turn": {"role": "assistant", "content": f"Card {CARD} noted"},
      "checkOutput": True}),
    ("GET", "/governance/conversation/s-1", CHECKS_KEY, None),
    ("GET", "/governance/conversation/a%2Fb", CHECKS_KEY, None),
    ("GET", "/governance/conversation/missing", CHECKS_KEY, None),
    ("DELETE", "/governance/conversation/s-1", CHECKS_KEY, None),
    ("GET", "/governance/conversation/s-1", CHECKS_KEY, None),
    ("POST", "/governance/pre-inference", CHECKS_KEY,
     {"sessionId": "s-2", "prompt": "Where is my parcel?"}),
    ("POST", "/governance/check-tool-call", CHECKS_KEY,
     {"sessionId": "s-2", "toolName": "send_email", "arguments": {"body": f"card {CARD}"}}),
    ("POST", "/governance/post-inference", CHECKS_KEY,
     {"sessionId": "s-2", "output": f"Your card {CARD} is charged."}),
    ("POST", "/governance/check-output/stream", CHECKS_KEY,
     {"sessionId": "s-3", "fullText": f"Your card {CARD}", "lastCheckedOffset": 0}),
    ("POST", "/governance/check-output/finalize", CHECKS_KEY,
     {"sessionId": "s-3", "fullText": f"Your card {CARD} is charged.", "isFinal": True}),
    # refusals, in the pipeline's order
    ("POST", "/governance/post-inference", None, {"sessionId": "s", "output": "x"}),
    ("POST", "/governance/post-inference", "gk_not_a_key_at_all", {"sessionId": "s", "output": "x"}),
    ("POST", "/governance/post-inference", CHECKS_NO_FEATURE_KEY, {"sessionId": "s", "output": "x"}),
    ("POST", "/governance/check-tool-call", CHECKS_READ_ONLY_KEY,
     {"sessionId": "s", "toolName": "t", "arguments": {}}),
    ("POST", "/governance/post-inference", CHECKS_KEY, {"session_id": "s", "output": "x"}),
    ("POST", "/governance/post-inference", CHECKS_KEY, "{not json"),
    ("POST", "/governance/post-inference", CHECKS_KEY, ""),
    ("POST", "/governance/conversation/turn", CHECKS_KEY, {"sessionId": "s\n", "turn": {}}),
    ("GET", "/governance/conversation/" + "x" * 300, CHECKS_KEY, None),
    # routing
    ("PUT", "/governance/conversation/turn", CHECKS_KEY, None),
    ("GET", "/governance/post-inference", None, None),
    ("GET", "/governance/nothing-here", CHECKS_KEY, None),
    ("GET", "/governance/conversation/%ff", CHECKS_KEY, None),
]  # fmt: skip


def _deterministic(clock: FakeClock) -> govcore.Governance:
    counter = itertools.count()
    return govcore.Governance.from_config(
        checks_config(), clock=clock, trace_ids=lambda: f"{next(counter):032x}"
    )


def _encoded(body: Any) -> bytes:
    if body is None:
        return b""
    return body.encode() if isinstance(body, str) else json.dumps(body).encode()


def test_every_endpoint_answers_through_the_app_as_the_dispatcher_does() -> None:
    """Two deployments on one fake clock with the same trace ids: one called directly, one
    through the application; every answer is the same status, headers and bytes."""
    clock = FakeClock(START_TIME)
    direct, served = _deterministic(clock), _deterministic(clock)
    app = create_app(ThreadedGovernance(served))
    statuses = set()
    try:
        for method, path, key, body in EXCHANGES:
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            expected = direct.handle(method, PREFIX + path, headers, _encoded(body))
            got = call(app, method, PREFIX + path, headers=headers, content=_encoded(body))
            assert got.status_code == expected.status, (method, path, got.text)
            assert got.content == expected.body, (method, path)
            got_headers = {k: v for k, v in got.headers.items() if k != "content-length"}
            assert got_headers == expected.headers, (method, path)
            assert int(got.headers["content-length"]) == len(expected.body)
            statuses.add(expected.status)
    finally:
        direct.close()
        served.close()
    assert statuses == {200, 204, 400, 401, 403, 404, 405}  # the list covers every outcome


def test_a_path_outside_the_mount_is_404_with_the_dispatchers_body(
    app: GovernanceApp, governance: govcore.Governance
) -> None:
    got = call(app, "GET", "/nope/at/all?key=1")
    expected = governance.handle("GET", "/nope/at/all")
    assert (got.status_code, got.content) == (404, expected.body)
    # A path the dispatcher would also take without the prefix is still outside the mount.
    outside = call(app, "POST", "/governance/post-inference", headers=AUTH, json={})
    assert outside.status_code == 404


def test_an_interface_path_without_the_mount_is_404_naming_the_mount(
    governance: govcore.Governance,
) -> None:
    """The dispatcher takes its paths without the prefix, the server does not: a path that
    names an endpoint, sent without the mount, is still 404 not_found, and its message says
    where the interface is served and the path to try."""
    app = create_app(ThreadedGovernance(governance))
    bare = call(app, "POST", "/governance/conversation/turn", headers=AUTH, json={})
    assert bare.status_code == 404
    assert bare.json() == {
        "error": "not_found",
        "message": "no endpoint at '/governance/conversation/turn': the API is served under "
        "/api/v1/agent (try /api/v1/agent/governance/conversation/turn)",
    }
    # Another method on an endpoint's path, and a session route, get the hint too.
    assert (
        "(try /api/v1/agent/governance/post-inference)"
        in call(app, "GET", "/governance/post-inference").json()["message"]
    )
    assert (
        "(try /api/v1/agent/governance/conversation/s-1)"
        in call(app, "GET", "/governance/conversation/s-1").json()["message"]
    )
    # A path that names no endpoint anywhere gets no hint.
    assert call(app, "GET", "/governance/nothing-here").json()["message"] == (
        "no endpoint at '/governance/nothing-here'"
    )
    # Under another mount, the interface's default prefix is not where it is served.
    custom = create_app(ThreadedGovernance(governance), mount="/gov")
    moved = call(custom, "POST", PREFIX + "/governance/post-inference", headers=AUTH, json={})
    assert moved.status_code == 404
    assert moved.json()["message"].endswith(
        "the API is served under /gov (try /gov/governance/post-inference)"
    )


def test_the_query_string_reaches_the_dispatcher_and_is_ignored_by_the_interface(
    governance: govcore.Governance,
) -> None:
    """The server passes the query string on to the dispatcher (an endpoint with a query model
    reads it); no endpoint of the interface has one, so it changes no answer."""
    seen: list[str] = []
    threaded = ThreadedGovernance(governance)

    class Recording:
        settings = threaded.settings

        async def handle(self, method: str, path: str, headers: Any, body: Any) -> HttpResponse:
            seen.append(path)
            return await threaded.handle(method, path, headers, body)

        async def ping(self) -> None:
            await threaded.ping()

        async def aclose(self) -> object:
            return await threaded.aclose()

    app = create_app(Recording())
    body = {"sessionId": "s", "output": "fine"}
    path = PREFIX + "/governance/post-inference"
    plain = call(app, "POST", path, headers=AUTH, json=body)
    queried = call(app, "POST", path + "?output=x&sessionId=%ff", headers=AUTH, json=body)
    assert seen == [
        "/governance/post-inference",
        "/governance/post-inference?output=x&sessionId=%ff",
    ]
    assert (plain.status_code, queried.status_code) == (200, 200)
    assert queried.json()["safe"] is True


def test_a_custom_mount(governance: govcore.Governance) -> None:
    app = create_app(ThreadedGovernance(governance), mount="/gov")
    body = {"sessionId": "s", "output": "fine"}
    assert call(app, "POST", "/gov/governance/post-inference", headers=AUTH, json=body).is_success
    assert (
        call(
            app, "POST", PREFIX + "/governance/post-inference", headers=AUTH, json=body
        ).status_code
        == 404
    )
    paths = call(app, "GET", "/gov/openapi.json").json()["paths"]
    assert "/gov/governance/post-inference" in paths
    with pytest.raises(ValueError, match="mount"):
        create_app(ThreadedGovernance(governance), mount="/gov/")


# --- bodies over the limit ---------------------------------------------------------------------

SMALL_LIMIT = 64 * 1024
CHUNK = 4096


@pytest.fixture
def small_limit_governance() -> Iterator[govcore.Governance]:
    config = checks_config(max_body_bytes=SMALL_LIMIT, max_tool_arguments_bytes=2048)
    with govcore.Governance.from_config(config) as gov:
        yield gov


class _Client:
    """Raw ASGI: a body sent in chunks, counting the chunks the application pulls."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.pulled = 0
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        chunk = next(self.chunks, None)
        self.pulled += 1
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def run(
        self,
        app: GovernanceApp,
        path: str,
        headers: list[tuple[bytes, bytes]],
        method: str = "POST",
    ) -> HttpResponse:
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "headers": [(b"authorization", f"Bearer {CHECKS_KEY}".encode()), *headers],
        }  # fmt: skip
        asyncio.run(app(scope, self.receive, self.send))
        start, body = self.sent
        assert start["type"] == "http.response.start"
        headers_out = {k.decode(): v.decode() for k, v in start["headers"]}
        return HttpResponse(start["status"], headers_out, body["body"])


def _endless(chunk: bytes, total: int) -> Iterator[bytes]:
    for _ in range(total // len(chunk)):
        yield chunk


def _refusal_body(governance: govcore.Governance, path: str, size: int) -> bytes:
    """What the dispatcher answers to an authenticated body of ``size`` bytes."""
    return governance.handle("POST", path, AUTH, b" " * size).body


@pytest.mark.parametrize("endpoint", [POST_INFERENCE, CHECK_TOOL_CALL], ids=lambda e: e.name)
def test_a_streamed_body_over_the_limit_is_refused_after_reading_about_the_limit(
    small_limit_governance: govcore.Governance, endpoint: Any
) -> None:
    app = create_app(ThreadedGovernance(small_limit_governance))
    limit = body_limit(endpoint, small_limit_governance.settings)
    assert limit <= SMALL_LIMIT
    client = _Client(_endless(b"x" * CHUNK, 50 * 1024 * 1024))  # 50 MiB, no content-length
    response = client.run(app, PREFIX + endpoint.path, [])
    assert response.status == 400
    assert client.pulled == limit // CHUNK + 1  # the first chunk past the limit, no more
    error = json.loads(response.body)
    assert error["error"] == "invalid_request"
    assert error["details"] == [
        {"field": "body", "message": f"is more than the limit of {limit} bytes"}
    ]


def test_the_tool_calls_limit_is_the_dispatchers(
    small_limit_governance: govcore.Governance,
) -> None:
    """At the tool call's limit a body is parsed; one byte more is refused, as the dispatcher
    refuses it (the application's limit is the one the endpoint applies)."""
    settings = small_limit_governance.settings
    limit = body_limit(CHECK_TOOL_CALL, settings)
    assert limit == 4 * 2048 + 16 * 1024 < settings.max_body_bytes
    path = PREFIX + CHECK_TOOL_CALL.path
    dispatcher_at_limit = small_limit_governance.handle("POST", path, AUTH, b" " * limit)
    assert "more than the limit" not in dispatcher_at_limit.body.decode()
    assert "more than the limit" in _refusal_body(small_limit_governance, path, limit + 1).decode()


@pytest.mark.parametrize("endpoint", [POST_INFERENCE, CHECK_TOOL_CALL], ids=lambda e: e.name)
def test_content_length_over_the_limit_is_refused_without_reading(
    small_limit_governance: govcore.Governance, endpoint: Any
) -> None:
    app = create_app(ThreadedGovernance(small_limit_governance))
    limit = body_limit(endpoint, small_limit_governance.settings)
    client = _Client(_endless(b"x" * CHUNK, 50 * 1024 * 1024))
    declared = [(b"content-length", str(limit + 1).encode())]
    response = client.run(app, PREFIX + endpoint.path, declared)
    assert client.pulled == 0
    path = PREFIX + endpoint.path
    assert response.status == 400
    assert response.body == _refusal_body(small_limit_governance, path, limit + 1)
    assert response.headers["connection"] == "close"


def test_a_body_sent_to_an_endpoint_that_takes_none_is_never_read(
    small_limit_governance: govcore.Governance,
) -> None:
    """Only an endpoint whose request is its body has its body read: a GET's body, however
    long, is left unread and the request answered as without it."""
    app = create_app(ThreadedGovernance(small_limit_governance))
    client = _Client(_endless(b"x" * CHUNK, 50 * 1024 * 1024))
    response = client.run(app, PREFIX + "/governance/conversation/nobody", [], method="GET")
    assert (response.status, json.loads(response.body)["error"]) == (404, "not_found")
    assert client.pulled == 0


class _StalledClient(_Client):
    """Sends one byte of a body and then nothing more, as a slow or stuck client does."""

    async def receive(self) -> dict[str, Any]:
        self.pulled += 1
        if self.pulled == 1:
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.Event().wait()  # never set: the rest never comes
        raise AssertionError("unreachable")


def test_a_body_that_stops_arriving_is_answered_408_at_the_deadline(
    small_limit_governance: govcore.Governance,
) -> None:
    """A client that stops sending its body cannot hold the request: 408, connection closed."""
    app = create_app(ThreadedGovernance(small_limit_governance), body_timeout=0.2)
    client = _StalledClient(iter(()))
    declared = [(b"content-length", b"100")]
    response = client.run(app, PREFIX + POST_INFERENCE.path, declared)
    assert response.status == 408
    assert json.loads(response.body)["error"] == "request_timeout"
    assert response.headers["connection"] == "close"
    with pytest.raises(ValueError, match="body_timeout"):
        create_app(ThreadedGovernance(small_limit_governance), body_timeout=0)


def test_a_body_of_exactly_the_limit_is_read_and_answered(
    small_limit_governance: govcore.Governance,
) -> None:
    """The near miss: ``limit`` bytes in small chunks, with and without content-length."""
    app = create_app(ThreadedGovernance(small_limit_governance))
    document = json.dumps({"sessionId": "s", "output": "a fine answer"}).encode()
    body = document + b" " * (SMALL_LIMIT - len(document))
    for declared in ([], [(b"content-length", str(SMALL_LIMIT).encode())]):
        pieces = iter([body[i : i + 1000] for i in range(0, len(body), 1000)])
        client = _Client(pieces)
        response = client.run(app, PREFIX + POST_INFERENCE.path, declared)
        assert response.status == 200, response.body
        assert json.loads(response.body)["safe"] is True


def test_a_client_that_disconnects_mid_body_gets_no_answer(app: GovernanceApp) -> None:
    messages = iter([
        {"type": "http.request", "body": b'{"sessionId":', "more_body": True},
        {"type": "http.disconnect"},
    ])  # fmt: skip
    sent: list[Any] = []

    async def receive() -> Any:
        return next(messages)

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": PREFIX + POST_INFERENCE.path,
             "headers": [(b"authorization", f"Bearer {CHECKS_KEY}".encode())]}  # fmt: skip
    asyncio.run(app(scope, receive, send))
    assert sent == []


# --- health and readiness -----------------------------------------------------------------------


class _SwitchableStore(MemoryStore):
    """A memory store that fails with the error it declares while ``down`` is set."""

    backend_errors = (ConnectionError,)

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def get(self, key: str) -> bytes | None:
        if self.down:
            raise ConnectionError("connection refused")
        return super().get(key)


def test_health_and_readiness_follow_the_store() -> None:
    store = _SwitchableStore()
    with govcore.Governance.from_config(checks_config(), store=store) as gov:
        app = create_app(ThreadedGovernance(gov))
        assert call(app, "GET", "/healthz").status_code == 200
        assert call(app, "GET", "/readyz").json()["status"] == "ready"
        store.down = True
        ready = call(app, "GET", "/readyz")
        assert ready.status_code == 503
        assert ready.json()["status"] == "unavailable"
        assert call(app, "GET", "/healthz").status_code == 200  # alive, though not ready
        store.down = False
        assert call(app, "GET", "/readyz").status_code == 200


def test_once_stopping_readiness_is_503_and_requests_are_still_served(
    app: GovernanceApp,
) -> None:
    """After begin_stop (SIGTERM in govcore serve) /readyz says stopping, while /healthz and the
    requests still in flight are answered."""
    assert call(app, "GET", "/readyz").status_code == 200
    app.begin_stop()
    ready = call(app, "GET", "/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "unavailable", "reason": "stopping"}
    assert call(app, "GET", "/healthz").status_code == 200
    checked = call(
        app,
        "POST",
        "/api/v1/agent/governance/post-inference",
        headers={"Authorization": f"Bearer {CHECKS_KEY}"},
        json={"sessionId": "s", "output": "fine"},
    )
    assert checked.status_code == 200


def test_readiness_is_503_when_the_probe_hangs(governance: govcore.Governance) -> None:
    class Hanging(ThreadedGovernance):
        async def ping(self) -> None:
            await asyncio.Event().wait()

    app = create_app(Hanging(governance), readiness_timeout=0.01)
    assert call(app, "GET", "/readyz").json() == {"status": "unavailable", "reason": "timed out"}


def test_health_routes_take_only_get(app: GovernanceApp) -> None:
    refused = call(app, "POST", "/healthz")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET")
    assert refused.json()["error"] == "method_not_allowed"


# --- lifespan -----------------------------------------------------------------------------------


class _Recorder(ThreadedGovernance):
    closed = 0

    async def aclose(self) -> None:
        self.closed += 1
        await super().aclose()


def test_lifespan_closes_the_governance_on_shutdown(governance: govcore.Governance) -> None:
    served = _Recorder(governance)
    app = create_app(served)
    incoming = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    sent: list[str] = []

    async def receive() -> Any:
        return next(incoming)

    async def send(message: Any) -> None:
        sent.append(message["type"])

    asyncio.run(app({"type": "lifespan"}, receive, send))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert served.closed == 1


def test_a_failing_close_is_reported_as_a_failed_shutdown(governance: govcore.Governance) -> None:
    class Failing(ThreadedGovernance):
        async def aclose(self) -> None:
            raise RuntimeError("flush failed")

    app = create_app(Failing(governance))
    incoming = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    sent: list[Any] = []

    async def receive() -> Any:
        return next(incoming)

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(app({"type": "lifespan"}, receive, send))
    assert sent[-1]["type"] == "lifespan.shutdown.failed"


# --- the access log -----------------------------------------------------------------------------


def _access_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "govcore.access"]


def test_one_access_line_per_request_without_key_body_or_query(
    caplog: pytest.LogCaptureFixture,
) -> None:
    decisions = MemoryDecisionLog()
    with govcore.Governance.from_config(checks_config(), decision_log=decisions) as gov:
        app = create_app(ThreadedGovernance(gov))
        caplog.set_level(logging.INFO, logger="govcore.access")
        secret_output = f"my card {CARD} and the word zebra-crossing"
        sent = json.dumps({"sessionId": "session-private-77", "output": secret_output}).encode()
        checked = call(
            app, "POST", PREFIX + "/governance/post-inference?token=query-secret-123",
            headers=AUTH, content=sent,
        )  # fmt: skip
        read = call(
            app, "GET", PREFIX + "/governance/conversation/session-private-77", headers=AUTH
        )
        unauthenticated = call(
            app, "GET", PREFIX + "/governance/conversation/x",
            headers={"Authorization": "Bearer gk_mistyped_key_0001"},
        )  # fmt: skip
        assert gov.flush()
        key_id = decisions.decisions()[0].key_id
    assert (checked.status_code, read.status_code, unauthenticated.status_code) == (200, 404, 401)
    lines = _access_lines(caplog)
    assert len(lines) == 3
    first, second, third = lines
    assert first == {
        "method": "POST",
        "path": PREFIX + "/governance/post-inference",
        "status": 200,
        "duration_ms": first["duration_ms"],
        "bytes_in": len(sent),
        "bytes_out": len(checked.content),
        "pid": os.getpid(),
        "key_id": key_id,
    }
    assert second["path"] == PREFIX + "/governance/conversation/{sessionId}"
    assert second["key_id"] == key_id
    assert "key_id" not in third  # the key was not accepted: nothing to name
    everything = "\n".join(r.getMessage() for r in caplog.records)
    secrets = (CHECKS_KEY, "gk_mistyped", "query-secret", "zebra-crossing", CARD)
    for never in (*secrets, "session-private-77"):
        assert never not in everything


def test_an_unrouted_path_is_logged_without_its_query(
    app: GovernanceApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="govcore.access")
    call(app, "GET", "/somewhere/else?api_key=abc", headers=AUTH)
    (line,) = _access_lines(caplog)
    assert line["path"] == "/somewhere/else"
    assert line["status"] == 404
    assert "key_id" not in line
    assert "abc" not in json.dumps(line)


def test_a_refused_large_body_names_no_key(
    small_limit_governance: govcore.Governance, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(ThreadedGovernance(small_limit_governance))
    caplog.set_level(logging.INFO, logger="govcore.access")
    client = _Client(_endless(b"x" * CHUNK, 1024 * 1024))
    client.run(app, PREFIX + POST_INFERENCE.path, [])
    (line,) = _access_lines(caplog)
    assert line["status"] == 400
    assert "key_id" not in line
    assert line["bytes_in"] == (SMALL_LIMIT // CHUNK + 1) * CHUNK


def test_a_handler_that_raises_is_a_500_without_detail(governance: govcore.Governance) -> None:
    class Broken(ThreadedGovernance):
        async def handle(self, *args: Any, **kwargs: Any) -> HttpResponse:
            raise RuntimeError("secret detail")

    app = create_app(Broken(governance))
    response = call(app, "POST", PREFIX + POST_INFERENCE.path, headers=AUTH, json={})
    assert response.status_code == 500
    assert response.json() == {"error": "internal_error", "message": "internal error"}


def test_the_served_settings_are_the_configurations(governance: govcore.Governance) -> None:
    expected = load_config(checks_config()).settings
    assert ThreadedGovernance(governance).settings == expected


def test_an_async_governance_is_served_with_the_same_answers() -> None:
    """The application's main use: an AsyncGovernance on an asynchronous store, answering
    every exchange as the blocking Governance does."""
    from tests.test_async_governance import AwaitedMemoryStore

    clock = FakeClock(START_TIME)
    direct = _deterministic(clock)
    counter = itertools.count()
    served = govcore.AsyncGovernance.from_config(
        checks_config(),
        clock=clock,
        store=AwaitedMemoryStore(clock),
        trace_ids=lambda: f"{next(counter):032x}",
    )
    app = create_app(served)
    try:
        for method, path, key, body in EXCHANGES:
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            expected = direct.handle(method, PREFIX + path, headers, _encoded(body))
            got = call(app, method, PREFIX + path, headers=headers, content=_encoded(body))
            assert (got.status_code, got.content) == (expected.status, expected.body), path
        assert call(app, "GET", "/readyz").json()["status"] == "ready"
    finally:
        direct.close()
        asyncio.run(served.aclose())
