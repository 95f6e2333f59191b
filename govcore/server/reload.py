"""Reloading a served configuration: on SIGHUP, and when its files change on disk.

:class:`ConfigWatcher` runs inside the server's event loop (started and stopped with the
application's lifespan). A reload is :meth:`govcore.AsyncGovernance.areload`: the new
configuration is loaded and compiled in a worker thread, then swapped in whole; a
configuration that fails to load is refused, logged with every problem, and the one served
before keeps serving. Each worker process of ``govcore serve --workers N`` watches the files
itself, so a change on disk reaches every worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from govcore.config import config_files
from govcore.errors import ConfigError

__all__ = ["DEFAULT_WATCH_INTERVAL", "ConfigWatcher"]

_log = logging.getLogger("govcore.reload")

DEFAULT_WATCH_INTERVAL = 2.0
"""Seconds between two looks at the configuration's files (``--watch-interval``)."""

FileState = tuple[str, int, int] | tuple[str, None, None]


def files_state(config: str | Path) -> tuple[FileState, ...]:
    """What a change of the configuration's files changes: each file's path, modification
    time (nanoseconds) and size; a file that is missing counts as one state too."""
    states: list[FileState] = []
    for path in config_files(config):
        try:
            stat = path.stat()
        except OSError:
            states.append((str(path), None, None))
        else:
            states.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(states)


class ConfigWatcher:
    """Reloads the configuration at ``config`` through ``reload`` on SIGHUP and, every
    ``interval`` seconds, when one of its files changed (``interval`` ``None``: only on
    SIGHUP).

    Args:
        reload: swaps in the configuration at a path (``AsyncGovernance.areload``); raises
            :class:`~govcore.ConfigError` for one it refuses.
        config: the configuration file's path.
        interval: seconds between two looks at the files, or ``None``.
        versions: what is served now, for the log line of each reload.
    """

    def __init__(
        self,
        reload: Callable[[str], Awaitable[None]],
        config: str | Path,
        *,
        interval: float | None = DEFAULT_WATCH_INTERVAL,
        versions: Callable[[], Mapping[str, object]] | None = None,
    ) -> None:
        if interval is not None and not interval > 0:
            raise ValueError("interval must be a positive number of seconds or None")
        self._reload = reload
        self.config = str(config)
        self.interval = interval
        self._versions = versions
        self._seen: tuple[FileState, ...] = ()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._on_signal = False
        self.reloads = 0
        """How many reloads succeeded."""
        self.refusals = 0
        """How many configurations were refused (each logged with its problems)."""

    async def start(self) -> None:
        """Note the files as they are now, handle SIGHUP and start looking at the files."""
        self._seen = await asyncio.to_thread(files_state, self.config)
        loop = asyncio.get_running_loop()
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGHUP"):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signal.SIGHUP, self._signalled)
                self._on_signal = True
        if self.interval is not None:
            self._task = asyncio.create_task(self._watch(self.interval))

    async def stop(self) -> None:
        """Stop looking and stop handling SIGHUP."""
        if self._on_signal:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
            self._on_signal = False
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _signalled(self) -> None:
        asyncio.ensure_future(self.reload_now("SIGHUP"))  # noqa: RUF006 - the lock serialises

    async def _watch(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                state = await asyncio.to_thread(files_state, self.config)
            except Exception:  # a look that fails is tried again at the next interval
                _log.exception("could not look at the configuration's files")
                continue
            if state != self._seen:
                await self.reload_now("its files changed")

    async def reload_now(self, reason: str) -> bool:
        """Reload now (one reload at a time); ``reason`` goes to the log line.

        Returns:
            Whether the configuration was swapped in (else it was refused and logged, and
            the one served before keeps serving).
        """
        async with self._lock:
            # Noted before loading: a change made while loading is seen at the next look.
            self._seen = await asyncio.to_thread(files_state, self.config)
            try:
                await self._reload(self.config)
            except ConfigError as exc:
                self.refusals += 1
                _log.error(
                    "configuration %s not reloaded (%s); still serving the one loaded before: %s",
                    self.config, reason, exc,
                )  # fmt: skip
                return False
            except Exception:
                self.refusals += 1
                _log.exception(
                    "configuration %s not reloaded (%s); still serving the one loaded before",
                    self.config, reason,
                )  # fmt: skip
                return False
            self.reloads += 1
            served = self._versions() if self._versions is not None else {}
            _log.info(
                "configuration %s reloaded (%s): %s",
                self.config, reason, ", ".join(f"{t} {v}" for t, v in served.items()) or "-",
            )  # fmt: skip
            return True
