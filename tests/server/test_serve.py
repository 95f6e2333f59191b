"""``govcore serve``: a real process with two workers, spoken to over loopback HTTP; and the
command's refusals before uvicorn starts."""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import logging
import os
import signal
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from govcore import cli
from tests.support import CHECKS_KEY, checks_config

PREFIX = "/api/v1/agent"
AUTH = {"Authorization": f"Bearer {CHECKS_KEY}"}


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "govcore.json"
    path.write_text(json.dumps(checks_config()), encoding="utf-8")
    return path


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_serve_with_two_workers_answers_over_http(
    config_file: Path, running_server: Callable[..., Any]
) -> None:
    with (
        running_server(config_file, workers=2) as server,
        httpx.Client(base_url=server.base_url, timeout=10.0) as client,
    ):
        assert client.get("/readyz").json()["status"] == "ready"
        turn = client.post(
            PREFIX + "/governance/conversation/turn",
            headers=AUTH,
            json={"sessionId": "s-1", "turn": {"role": "user", "content": "hello"}},
        )
        assert turn.status_code == 200, turn.text
        assert turn.json()["turnIndex"] == 1
        checked = client.post(
            PREFIX + "/governance/post-inference",
            headers=AUTH,
            json={"sessionId": "s-1", "output": "Your card 4111 1111 1111 1111 is on file."},
        )
        assert checked.status_code == 200
        assert checked.json()["safe"] is False
        assert client.get(PREFIX + "/openapi.json").json()["openapi"] == "3.1.0"
        refused = client.post(PREFIX + "/governance/post-inference", json={})
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
    log = server.log()
    assert server.process.returncode == 0  # stopped cleanly by SIGTERM
    assert "Started parent process" in log
    assert log.count("Application shutdown complete") == 2  # each worker closed its governance
    access = [json.loads(line) for line in log.splitlines() if line.startswith('{"method"')]
    assert {line["status"] for line in access} >= {200, 401}
    assert CHECKS_KEY not in log


def test_a_bad_configuration_stops_serve_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"settings": {"max_body_bytes": 10}}), encoding="utf-8")
    assert cli.main(["serve", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "invalid configuration" in err
    assert "max_body_bytes" in err


def test_a_missing_configuration_file_stops_serve_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["serve", "--config", str(tmp_path / "absent.yaml")]) == 2
    assert "absent.yaml" in capsys.readouterr().err


def test_serve_without_the_server_extra_says_how_to_install_it(
    config_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_find_spec = importlib.util.find_spec

    def without_uvicorn(name: str, *args: Any) -> Any:
        return None if name == "uvicorn" else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_uvicorn)
    assert cli.main(["serve", "--config", str(config_file)]) == 1
    assert "pip install 'govcore[server]'" in capsys.readouterr().err


def test_serve_refuses_zero_workers(config_file: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["serve", "--config", str(config_file), "--workers", "0"])
    assert exit_info.value.code == 2


@pytest.mark.redis
@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_two_workers_on_one_redis_record_one_conversation_without_losing_a_turn(
    tmp_path: Path, redis_url: str, running_server: Callable[..., Any]
) -> None:
    """Turns of one conversation sent at once over many connections, answered by both worker
    processes, all land: every turnIndex is used exactly once."""
    path = tmp_path / "govcore-redis.json"
    path.write_text(json.dumps(checks_config(store=redis_url)), encoding="utf-8")
    batch = 40

    def send(number: int) -> tuple[int, int]:
        # A connection per request, so that the workers share them.
        with httpx.Client(base_url=server.base_url, timeout=10.0) as client:
            answer = client.post(
                PREFIX + "/governance/conversation/turn",
                headers=AUTH,
                json={"sessionId": "shared", "turn": {"role": "user", "content": f"turn {number}"}},
            )
        return answer.status_code, answer.json().get("turnIndex", -1)

    def turn_pids() -> set[int]:
        lines = (
            json.loads(line) for line in server.log().splitlines() if line.startswith('{"method"')
        )
        return {line["pid"] for line in lines if line["path"].endswith("/turn")}

    with running_server(path, workers=2) as server:
        # /healthz answered from one worker; the other may still be importing.
        _wait_for(lambda: server.log().count("Application startup complete") >= 2, server)
        answers: list[tuple[int, int]] = []
        # Which worker accepts a connection is the kernel's choice: send batches until both
        # have answered (almost always the first batch), so that the test cannot pass on one.
        with ThreadPoolExecutor(max_workers=8) as pool:
            for _ in range(10):
                answers += pool.map(send, range(len(answers), len(answers) + batch))
                if len(turn_pids()) == 2:
                    break
        with httpx.Client(base_url=server.base_url, timeout=10.0) as client:
            snapshot = client.get(PREFIX + "/governance/conversation/shared", headers=AUTH)
    assert len(turn_pids()) == 2
    assert {status for status, _ in answers} == {200}
    assert sorted(index for _, index in answers) == list(range(1, len(answers) + 1))
    assert snapshot.json()["turnCount"] == len(answers)


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
@pytest.mark.parametrize(
    ("store", "workers", "warned"),
    [
        (None, 2, True),
        ("memory://?conv_mb=64", 3, True),
        (None, 1, False),
        ("redis://127.0.0.1:1/0", 2, False),
    ],
)
def test_several_workers_on_the_in_memory_store_are_warned_about(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    store: str | None,
    workers: int,
    warned: bool,
) -> None:
    """Several workers each with their own in-memory store count one conversation's turns
    apart (turnIndex 1, 2, 1, 2): serve says so on stderr before it starts, and serves anyway
    (the contract's `serve --workers N` takes any configuration). One worker, or a shared
    store, starts without a word."""
    import govcore.server.serve

    path = tmp_path / "govcore.json"
    path.write_text(json.dumps(checks_config(**({"store": store} if store else {}))), "utf-8")
    started: list[int] = []
    monkeypatch.setattr(
        govcore.server.serve,
        "serve",
        lambda app, config, **options: started.append(options["workers"]),
    )
    assert cli.main(["serve", "--config", str(path), "--workers", str(workers)]) == 0
    assert started == [workers]
    err = capsys.readouterr().err
    if warned:
        assert err.startswith(f"warning: --workers {workers} with the in-memory store")
        assert "turnIndex 1, 2, 1, 2" in err
        assert "settings.store: redis://" in err
    else:
        assert err == ""


# --- a graceful stop ------------------------------------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_sigterm_finishes_the_request_in_flight_flushes_the_log_and_exits_0(
    tmp_path: Path, running_server: Callable[..., Any]
) -> None:
    """SIGTERM while a request is in flight: the server stops accepting connections, the
    request is still answered, the decision log is flushed, and the process exits with 0."""
    log_path = tmp_path / "decisions.jsonl"
    config = tmp_path / "govcore.json"
    config.write_text(json.dumps(checks_config(decision_log_path=str(log_path))), "utf-8")
    body = json.dumps(
        {"sessionId": "s-stop", "output": "Your card 4111 1111 1111 1111 is on file."}
    ).encode()
    with running_server(config) as server:
        port = int(server.base_url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
            head = (
                f"POST {PREFIX}/governance/post-inference HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                f"authorization: Bearer {CHECKS_KEY}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\n\r\n"
            )
            # The request is in flight: its headers are in, the application waits for the
            # rest of its body (a second is ample for the server to read the headers).
            connection.sendall(head.encode() + body[:10])
            time.sleep(1.0)
            os.kill(server.process.pid, signal.SIGTERM)
            _wait_for(lambda: not _answers(server), server)  # no longer accepting
            connection.sendall(body[10:])
            answer = _read_response(connection)
        assert server.process.wait(timeout=60) == 0, server.log()
    assert answer.startswith(b"HTTP/1.1 200"), answer
    assert b'"safe":false' in answer
    decisions = [json.loads(line) for line in log_path.read_text("utf-8").splitlines()]
    assert [d["endpoint"] for d in decisions] == ["post-inference"]


def _answers(server: Any) -> bool:
    """Whether the server accepts a connection and answers ``/healthz`` now."""
    try:
        return httpx.get(server.base_url + "/healthz", timeout=1.0).status_code == 200
    except httpx.TransportError:
        return False


def _wait_for(condition: Callable[[], bool], server: Any) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"the server did not get there in time:\n{server.log()}")
        time.sleep(0.05)


def _read_response(connection: socket.socket) -> bytes:
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_a_workers_stop_signal_makes_its_application_report_not_ready(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's application, built by app_from_environment under uvicorn's signal handler,
    reports not ready on SIGTERM and still hands the signal to that handler (which drains)."""
    from govcore.server.serve import CONFIG_ENV, app_from_environment

    monkeypatch.setenv(CONFIG_ENV, str(config_file))
    # The worker's factory sets up the access log's handler: undone after the test.
    access = logging.getLogger("govcore.access")
    for name in ("handlers", "propagate", "level"):
        monkeypatch.setattr(access, name, copy.copy(getattr(access, name)))
    received: list[int] = []
    uvicorns = signal.signal(signal.SIGTERM, lambda sig, _frame: received.append(sig))
    try:
        app = app_from_environment()
        assert not app.stopping
        signal.raise_signal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, uvicorns)
    assert app.stopping
    assert received == [signal.SIGTERM]
    asyncio.run(app.governance.aclose())
