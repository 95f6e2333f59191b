"""Fixtures of the HTTP service's tests: the application in-process, and ``govcore serve`` as a
real process (:func:`running_server`, reusable with any configuration file)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

import govcore
from govcore.server import GovernanceApp, ThreadedGovernance, create_app
from tests.support import checks_config

_REPOSITORY = Path(__file__).resolve().parent.parent.parent
_STARTUP_SECONDS = 30.0


@pytest.fixture
def governance() -> Iterator[govcore.Governance]:
    """The checks configuration (every kind of detect rule, unlimited rate) on the system clock."""
    with govcore.Governance.from_config(checks_config()) as gov:
        yield gov


@pytest.fixture
def app(governance: govcore.Governance) -> GovernanceApp:
    return create_app(ThreadedGovernance(governance))


def call(app: GovernanceApp, method: str, path: str, **options: object) -> httpx.Response:
    """One request through the application over ASGI, in-process."""

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.request(method, path, **options)  # type: ignore[arg-type]

    return asyncio.run(send())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class RunningServer:
    """A ``govcore serve`` process and where it listens."""

    process: subprocess.Popen[bytes]
    base_url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def serve_process(
    config: Path, tmp_path: Path, *, workers: int = 1, options: tuple[str, ...] = ()
) -> Iterator[RunningServer]:
    """Start ``govcore serve --config config`` on a free loopback port, wait until ``/healthz``
    answers, and stop it (SIGTERM, then SIGKILL) on leaving."""
    port = free_port()
    log_path = tmp_path / f"serve-{port}.log"
    command = [sys.executable, "-m", "govcore", "serve", "--config", str(config),
               "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
               *options]  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(  # noqa: S603 - our own command line
            command, cwd=_REPOSITORY, stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(_REPOSITORY)}, start_new_session=True,
        )  # fmt: skip
    server = RunningServer(process, f"http://127.0.0.1:{port}", log_path)
    try:
        _wait_until_healthy(server)
        yield server
    finally:
        _stop(process)


def _wait_until_healthy(server: RunningServer) -> None:
    deadline = time.monotonic() + _STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"govcore serve exited with {server.process.returncode}:\n{server.log()}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(server.base_url + "/healthz", timeout=1.0).status_code == 200:
                return
        time.sleep(0.1)
    pytest.fail(f"govcore serve did not answer within {_STARTUP_SECONDS} s:\n{server.log()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # the whole session: uvicorn and its workers
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@pytest.fixture
def running_server(
    tmp_path: Path,
) -> Callable[..., contextlib.AbstractContextManager[RunningServer]]:
    """``running_server(config_path, workers=2, options=(...))``: a context manager running
    ``govcore serve`` (``options``: more of its command-line arguments)."""

    def start(
        config: Path, *, workers: int = 1, options: tuple[str, ...] = ()
    ) -> contextlib.AbstractContextManager[RunningServer]:
        return serve_process(config, tmp_path, workers=workers, options=options)

    return start
