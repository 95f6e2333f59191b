"""Errors by declaration: only what a store declares in ``backend_errors`` is a 503.

Any other exception from a store is a bug: ``handle`` answers 500 with a fixed body and logs the
traceback, and the typed client raises :class:`govcore.InternalError` from it. Stored data that
cannot be read (a corrupt conversation state, idempotency record or cached pre-inference answer)
is a 503 with an ERROR log line. ``handle`` never raises.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.service.store_keys import conversation_key, idempotency_key, pre_inference_key
from govcore.testing import FakeClock
from govcore.types import StoreCommit, StoreWrite
from tests.support import FULL_KEY, bearer, config, turn

T = TypeVar("T")
PREFIX = "/api/v1/agent/governance"
INTERNAL_ERROR_BODY = {"error": "internal_error", "message": "internal error"}
SECRET = "secret-detail-4f1c"
"""Text in the failing exception that must never reach an HTTP caller."""


class StoreDownError(Exception):
    """A declared "backend unavailable"."""


class FaultyStore:
    """A :class:`MemoryStore` that raises ``make_error()`` on every call touching a key of one
    of ``namespaces``; the last exception raised is kept in :attr:`raised`."""

    def __init__(
        self,
        inner: MemoryStore,
        make_error: Callable[[], BaseException],
        namespaces: Iterable[str],
        backend_errors: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.inner = inner
        self.backend_errors = backend_errors
        self._make_error = make_error
        self._namespaces = frozenset(namespaces)
        self.raised: BaseException | None = None

    def _check(self, keys: Iterable[str]) -> None:
        if any(key.partition(":")[0] in self._namespaces for key in keys):
            self.raised = self._make_error()
            raise self.raised

    def get(self, key: str) -> bytes | None:
        self._check([key])
        return self.inner.get(key)

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self._check([key])
        self.inner.set(key, value, expires_at=expires_at)

    def delete(self, key: str) -> None:
        self._check([key])
        self.inner.delete(key)

    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        self._check([key])
        return self.inner.update(key, mutate)

    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    ) -> T:
        self._check(keys)
        return self.inner.update_many(keys, mutate)


class RedisGlitchError(Exception):
    """A plugin's own exception that its store does not declare."""


class RedisDownError(Exception):
    """A plugin's declared "backend unavailable"."""


class PluginStore(FaultyStore):
    """A store that looks like it comes from a ``govcore_*`` plugin package."""


for _cls in (RedisGlitchError, RedisDownError, PluginStore):
    _cls.__module__ = "govcore_redis.store"


# --- requests ----------------------------------------------------------------------------------

TURN = ("POST", f"{PREFIX}/conversation/turn", json.dumps(turn("s", "I want a refund please")))
GET = ("GET", f"{PREFIX}/conversation/s", None)
TOOL = (
    "POST",
    f"{PREFIX}/check-tool-call",
    json.dumps({"sessionId": "s", "toolName": "send_email", "arguments": {"to": "x@example.com"}}),
)
PRE = ("POST", f"{PREFIX}/pre-inference", json.dumps({"sessionId": "s", "prompt": "refund?"}))
REQUESTS = {"turn": TURN, "get": GET, "tool": TOOL, "pre": PRE}


def _typed(client: govcore.GovernanceClient, name: str) -> Callable[[], Any]:
    body = REQUESTS[name][2]
    return {
        "turn": lambda: client.record_turn(json.loads(body or "")),
        "get": lambda: client.get_conversation("s"),
        "tool": lambda: client.check_tool_call(json.loads(body or "")),
        "pre": lambda: client.pre_inference(json.loads(body or "")),
    }[name]


def _send(gov: govcore.Governance, name: str) -> govcore.HttpResponse:
    method, path, body = REQUESTS[name]
    return gov.handle(method, path, bearer(FULL_KEY), body)


def _governance(store: Any, clock: FakeClock) -> govcore.Governance:
    return govcore.Governance.from_config(
        config(default_rate_limit_per_minute=1_000_000), clock=clock, store=store
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


# Which namespace's failure each request meets: the rate window comes first for all of them.
FAILURE_POINTS = [
    ("turn", "rate"),
    ("turn", "conv"),
    ("get", "conv"),
    ("tool", "conv"),
    ("pre", "pre"),
]


# --- declared and undeclared store errors ------------------------------------------------------


@pytest.mark.parametrize(("request_name", "namespace"), FAILURE_POINTS)
def test_a_declared_store_error_is_503(clock: FakeClock, request_name: str, namespace: str) -> None:
    """The store's declared error answers 503 backend_unavailable; the client raises
    BackendError from it."""
    store = FaultyStore(
        MemoryStore(clock=clock), lambda: StoreDownError(SECRET), [namespace], (StoreDownError,)
    )
    gov = _governance(store, clock)
    response = _send(gov, request_name)
    assert response.status == 503
    assert response.json()["error"] == "backend_unavailable"
    assert SECRET not in response.body.decode()
    with pytest.raises(govcore.BackendError) as raised:
        _typed(gov.client(FULL_KEY), request_name)()
    assert raised.value.status == 503
    assert raised.value.__cause__ is store.raised


@pytest.mark.parametrize(("request_name", "namespace"), FAILURE_POINTS)
def test_an_undeclared_store_error_is_500_without_detail(
    clock: FakeClock, caplog: pytest.LogCaptureFixture, request_name: str, namespace: str
) -> None:
    """A store raising an exception it does not declare answers a bare 500 and logs the
    traceback; the client raises InternalError (not BackendError) from the original."""
    store = FaultyStore(MemoryStore(clock=clock), lambda: KeyError(SECRET), [namespace])
    gov = _governance(store, clock)
    with caplog.at_level(logging.ERROR, logger="govcore"):
        response = _send(gov, request_name)
    assert response.status == 500
    assert response.json() == INTERNAL_ERROR_BODY
    assert response.body == json.dumps(INTERNAL_ERROR_BODY).encode()
    for leak in (SECRET, "Traceback", "KeyError"):
        assert leak not in response.body.decode()
    logged = [r for r in caplog.records if r.name.startswith("govcore") and r.exc_info]
    assert logged, "the traceback was not logged"
    assert any(r.exc_info and r.exc_info[1] is store.raised for r in logged)
    assert all(r.levelno >= logging.ERROR for r in logged)

    with pytest.raises(govcore.InternalError) as raised:
        _typed(gov.client(FULL_KEY), request_name)()
    error = raised.value
    assert not isinstance(error, govcore.BackendError)
    assert isinstance(error, govcore.GovcoreError)
    assert (error.status, error.code) == (500, "internal_error")
    assert isinstance(error.__cause__, KeyError)
    assert error.__cause__ is store.raised


@pytest.mark.parametrize(("request_name", "namespace"), FAILURE_POINTS)
def test_a_plugin_store_error_it_does_not_declare_is_500(
    clock: FakeClock, request_name: str, namespace: str
) -> None:
    """A store from a govcore_* plugin package raising its own undeclared error is a bug (500),
    while the error it declares is a 503."""
    inner = MemoryStore(clock=clock)
    glitchy = PluginStore(inner, lambda: RedisGlitchError(SECRET), [namespace], (RedisDownError,))
    assert type(glitchy).__module__ == "govcore_redis.store"
    response = _send(_governance(glitchy, clock), request_name)
    assert response.status == 500
    assert response.json() == INTERNAL_ERROR_BODY
    with pytest.raises(govcore.InternalError) as raised:
        _typed(_governance(glitchy, clock).client(FULL_KEY), request_name)()
    assert not isinstance(raised.value, govcore.BackendError)
    assert isinstance(raised.value.__cause__, RedisGlitchError)

    down = PluginStore(inner, lambda: RedisDownError(SECRET), [namespace], (RedisDownError,))
    response = _send(_governance(down, clock), request_name)
    assert response.status == 503
    assert response.json()["error"] == "backend_unavailable"


# --- stored data that cannot be read -----------------------------------------------------------


def _recorded(clock: FakeClock) -> tuple[govcore.Governance, MemoryStore, bytes]:
    """A governance with conversation ``s`` of tenant acme recorded, its store and state."""
    store = MemoryStore(clock=clock)
    gov = _governance(store, clock)
    gov.client(FULL_KEY).record_turn(turn("s", "I want a refund for my card payment"))
    raw = store.get(conversation_key("acme", "s"))
    assert raw is not None
    return gov, store, raw


def _header(raw: bytes) -> dict[str, Any]:
    head: dict[str, Any] = json.loads(raw.partition(b"\n")[0])
    return head


def _with_header(raw: bytes, **changes: Any) -> bytes:
    head = _header(raw)
    head.update(changes)
    return json.dumps(head, separators=(",", ":")).encode() + b"\n" + raw.partition(b"\n")[2]


CORRUPT_STATES: dict[str, Callable[[bytes], bytes]] = {
    "garbage bytes": lambda raw: b"\x00\xff\xfe garbage \x80",
    "empty": lambda raw: b"",
    "truncated": lambda raw: raw[: len(raw) // 3],
    "not an object": lambda raw: b"[1, 2, 3]\n",
    "unknown version": lambda raw: _with_header(raw, v=99),
    "missing field": lambda raw: json.dumps({"v": 2, "turns": 1}).encode() + b"\n",
    "turns not a number": lambda raw: _with_header(raw, turns="many"),
    "active not a list": lambda raw: _with_header(raw, active=5),
    "binding of wrong shape": lambda raw: _with_header(raw, active=[["refunds", 1]]),
    "updated not a number": lambda raw: _with_header(raw, updated=[1]),
}


def _huge_turns(raw: bytes) -> bytes:
    head, _, log = raw.partition(b"\n")
    return head.replace(b'"turns":1,', b'"turns":1e999,') + b"\n" + log


def _deeply_nested(raw: bytes) -> bytes:
    return b"[" * 100_000 + b"]" * 100_000


def _corrupt_state_cases() -> list[Any]:
    cases = []
    for request_name in ("turn", "get", "tool"):
        for name, corrupt in CORRUPT_STATES.items():
            cases.append(pytest.param(request_name, corrupt, id=f"{name}-{request_name}"))
        for corrupt in (_huge_turns, _deeply_nested):
            cases.append(
                pytest.param(
                    request_name, corrupt, id=f"{corrupt.__name__.strip('_')}-{request_name}"
                )
            )
    return cases


@pytest.mark.parametrize(("request_name", "corrupt"), _corrupt_state_cases())
def test_a_corrupt_conversation_state_is_503_and_logged(
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
    request_name: str,
    corrupt: Callable[[bytes], bytes],
) -> None:
    """Unreadable bytes under a conversation's key answer 503 with an ERROR log line, for a
    turn, a GET and a tool-call check; nothing is overwritten."""
    gov, store, raw = _recorded(clock)
    key = conversation_key("acme", "s")
    bad = corrupt(raw)
    store.set(key, bad, expires_at=clock.now + 3600)
    with caplog.at_level(logging.ERROR, logger="govcore"):
        response = _send(gov, request_name)
    assert response.status == 503, response.body
    assert response.json()["error"] == "backend_unavailable"
    errors = [r for r in caplog.records if r.name == "govcore" and r.levelno == logging.ERROR]
    assert errors
    assert any("conversation state" in r.getMessage() for r in errors)
    assert store.get(key) == bad
    with pytest.raises(govcore.BackendError):
        _typed(gov.client(FULL_KEY), request_name)()


def _corrupt_binding_log(raw: bytes) -> bytes:
    """A readable header whose binding log lines are not events."""
    return raw.partition(b"\n")[0] + b"\nnot an event\n"


def _unknown_event_code(raw: bytes) -> bytes:
    return raw.partition(b"\n")[0] + b'\n[1,"refunds",7,"2027-01-15T08:00:00.000Z"]\n'


@pytest.mark.parametrize("corrupt", [_corrupt_binding_log, _unknown_event_code])
def test_a_corrupt_binding_log_is_503_on_get(
    clock: FakeClock, caplog: pytest.LogCaptureFixture, corrupt: Callable[[bytes], bytes]
) -> None:
    """A conversation whose binding log cannot be read answers GET with 503 and a log line."""
    gov, store, raw = _recorded(clock)
    store.set(conversation_key("acme", "s"), corrupt(raw), expires_at=clock.now + 3600)
    with caplog.at_level(logging.ERROR, logger="govcore"):
        response = _send(gov, "get")
    assert response.status == 503, response.body
    assert any("conversation state" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "corrupt",
    [
        pytest.param(lambda record: b"\x00\xff garbage without a fingerprint line", id="garbage"),
        pytest.param(lambda record: record.partition(b"\n")[0] + b"\n{not json", id="bad body"),
        pytest.param(lambda record: record.partition(b"\n")[0] + b"\n{}", id="not a response"),
        pytest.param(
            lambda record: b"not-a-fingerprint\n" + record.partition(b"\n")[2], id="bad fingerprint"
        ),
        pytest.param(
            lambda record: record.partition(b"\n")[0].upper() + b"\n" + record.partition(b"\n")[2],
            id="fingerprint in upper case",
        ),
    ],
)
def test_a_corrupt_idempotency_record_is_503_and_logged(
    clock: FakeClock, caplog: pytest.LogCaptureFixture, corrupt: Callable[[bytes], bytes]
) -> None:
    """A replay meeting an unreadable idempotency record answers 503 with an ERROR log line."""
    store = MemoryStore(clock=clock)
    gov = _governance(store, clock)
    body = json.dumps(turn("s", "refund please", idempotencyKey="idem-1"))
    path = f"{PREFIX}/conversation/turn"
    assert gov.handle("POST", path, bearer(FULL_KEY), body).status == 200
    key = idempotency_key("acme", "conversation/turn", "idem-1")
    record = store.get(key)
    assert record is not None
    store.set(key, corrupt(record), expires_at=clock.now + 60)
    with caplog.at_level(logging.ERROR, logger="govcore"):
        response = gov.handle("POST", path, bearer(FULL_KEY), body)
    assert response.status == 503, response.body
    assert response.json()["error"] == "backend_unavailable"
    assert any(
        r.levelno == logging.ERROR and "idempotency record" in r.getMessage()
        for r in caplog.records
    )
    assert gov.client(FULL_KEY).get_conversation("s").turn_count == 1


class RecordingStore(FaultyStore):
    """A store that fails nothing and remembers every key written with ``set``."""

    def __init__(self, inner: MemoryStore) -> None:
        super().__init__(inner, RuntimeError, [])
        self.written: list[str] = []

    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        self.written.append(key)
        super().set(key, value, expires_at=expires_at)


@pytest.mark.parametrize("garbage", [b"\xff\xfe not json", b'{"sessionId": 5}', b""])
def test_a_corrupt_pre_inference_cache_entry_is_503_and_logged(
    clock: FakeClock, caplog: pytest.LogCaptureFixture, garbage: bytes
) -> None:
    """An unreadable cached pre-inference answer is a 503 with an ERROR log line; isUpdate,
    which skips the cache, still answers."""
    inner = MemoryStore(clock=clock)
    recording = RecordingStore(inner)
    gov = _governance(recording, clock)
    assert _send(gov, "pre").status == 200
    prefix = pre_inference_key("acme", "")
    cached = [k for k in recording.written if k.startswith(prefix)]
    assert len(cached) == 1
    fingerprint = cached[0][len(prefix) :]
    key = pre_inference_key("acme", fingerprint)
    assert key == cached[0]
    assert json.loads(_send(gov, "pre").body)["cacheHit"] is True

    inner.set(key, garbage, expires_at=clock.now + 60)
    with caplog.at_level(logging.ERROR, logger="govcore"):
        response = _send(gov, "pre")
    assert response.status == 503, response.body
    assert response.json()["error"] == "backend_unavailable"
    assert any(
        r.levelno == logging.ERROR and "pre-inference" in r.getMessage() for r in caplog.records
    )
    with pytest.raises(govcore.BackendError):
        _typed(gov.client(FULL_KEY), "pre")()
    method, path, body = PRE
    fresh = gov.handle(
        method, path, bearer(FULL_KEY), json.dumps({**json.loads(body or ""), "isUpdate": True})
    )
    assert fresh.status == 200
    assert fresh.json()["cacheHit"] is False


class _RemoteIndexDownError(Exception):
    """What a remote retrieval service's client raises when it cannot be reached."""


class _RemoteRetriever:
    """A retriever that declares its outage error, and whose index is unreachable."""

    backend_errors = (_RemoteIndexDownError,)

    def __init__(self, error: Exception) -> None:
        self.error = error

    def index(self, policies: Any) -> Any:
        error = self.error

        class _Index:
            def search(self, query: str, **_: Any) -> list[Any]:
                raise error

        return _Index()


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (_RemoteIndexDownError("timeout"), 503, "backend_unavailable"),
        (KeyError("bug"), 500, "internal_error"),
    ],
)
def test_retriever_errors_by_declaration(error: Exception, status: int, code: str) -> None:
    """A retriever's declared error is a 503 and any other one a 500, as for stores."""
    gov = govcore.Governance.from_config(
        config(), clock=FakeClock(), retriever=_RemoteRetriever(error)
    )
    response = gov.handle(
        "POST", "/governance/conversation/turn", bearer(FULL_KEY), json.dumps(turn("s", "hi"))
    )
    assert (response.status, response.json()["error"]) == (status, code)


def test_a_corrupt_rate_limit_window_is_503_and_logged(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """A key's stored rate-limit window that is not whole entries answers 503 with a log line."""
    store = MemoryStore(clock=clock)
    gov = _governance(store, clock)
    assert _send(gov, "get").status == 404  # writes the key's window
    [key] = [k for k, _ in _keys_of(store) if k.startswith("rate:")]
    store.set(key, b"1234567", expires_at=clock.now + 60)
    with caplog.at_level(logging.ERROR, logger="govcore"):
        response = _send(gov, "get")
    assert response.status == 503, response.body
    assert any("rate-limit window" in r.getMessage() for r in caplog.records)


def _keys_of(store: MemoryStore) -> list[tuple[str, bytes]]:
    """Every live key of a memory store, read through its namespaces (test introspection)."""
    return [
        (key, entry[1])
        for namespace in store._namespaces.values()
        for key, entry in namespace.entries.items()
    ]
