"""A throwaway ``redis-server`` for tests: started on a free port, stopped and restarted at will."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

__all__ = ["RedisServer", "RedisServerError"]


class RedisServerError(RuntimeError):
    """``redis-server`` is missing, or did not start answering in time."""


class RedisServer:
    """A ``redis-server`` from ``PATH`` on a free local port, without persistence.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. :meth:`restart` stops
    it and starts a new one on the same port: its data is gone (``--save "" --appendonly no``),
    unless it was made with ``persistent=True``, which logs every write to an append-only file
    synced at once, so that a server killed mid-write restarts with every acknowledged write.

    Args:
        executable: the ``redis-server`` binary (default: found on ``PATH``).
        persistent: keep data across :meth:`restart` (append-only file, ``fsync`` per write).
        startup_timeout: seconds to wait for it to answer ``PING``.
    """

    def __init__(
        self,
        executable: str | None = None,
        *,
        persistent: bool = False,
        startup_timeout: float = 10.0,
    ) -> None:
        found = executable or shutil.which("redis-server")
        if found is None:
            raise RedisServerError("no redis-server on PATH")
        self.executable = found
        self.persistent = persistent
        self.startup_timeout = startup_timeout
        self.port = _free_port()
        self._directory = tempfile.TemporaryDirectory(prefix="govcore-redis-")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:<port>/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> RedisServer:
        """Start the server and wait until it answers ``PING``."""
        if self.running:
            return self
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always"]
            if self.persistent
            else ["--appendonly", "no"]
        )
        command = [
            self.executable,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            *persistence,
            "--dir",
            self._directory.name,
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ]
        log = Path(self._directory.name, "server.log").open("ab")  # noqa: SIM115 - the child's
        with log:
            self._process = subprocess.Popen(  # noqa: S603 - a fixed binary and our own arguments
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + self.startup_timeout
        while not self.ping():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RedisServerError(f"redis-server did not start on port {self.port}")
            time.sleep(0.01)
        return self

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server (``kill=True``: at once, as a crash would)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            if kill:
                process.kill()
            else:
                process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def restart(self, *, kill: bool = False) -> None:
        """Stop, then start again on the same port."""
        self.stop(kill=kill)
        self.start()

    def ping(self) -> bool:
        """Whether the server answers ``PING`` now."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        self._directory.cleanup()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
