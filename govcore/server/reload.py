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
from typing import Any

from govcore.config import config_sources, policy_files
from govcore.errors import ConfigError

__all__ = ["DEFAULT_WATCH_INTERVAL", "ConfigFiles", "ConfigWatcher", "files_state"]

_log = logging.getLogger("govcore.reload")

DEFAULT_WATCH_INTERVAL = 2.0
"""Seconds between two looks at the configuration's files (``--watch-interval``)."""

FileState = tuple[str, int, int] | tuple[str, None, None]


def _state(path: Path) -> FileState:
    try:
        stat = path.stat()
    except (OSError, ValueError):  # missing, unreadable, or a name no file can have
        return (str(path), None, None)
    return (str(path), stat.st_mtime_ns, stat.st_size)


class ConfigFiles:
    """The files of a configuration and their state: the configuration file, the policy
    files its tenants name (a folder's, by name, as the loader reads them) and its lexicon
    files.

    What the configuration names is read again only when the configuration file itself
    changed, so a look at unchanged files is a few ``stat`` calls and a folder listing, not a
    parse of the configuration.
    """

    def __init__(self, config: str | Path) -> None:
        self.config = Path(config)
        self._parsed: tuple[FileState, list[Path]] | None = None

    def state(self) -> tuple[FileState, ...]:
        """Each file's path, modification time (nanoseconds) and size; a missing or
        unreadable file counts as a state too."""
        own = _state(self.config)
        if self._parsed is None or self._parsed[0] != own:
            self._parsed = (own, config_sources(self.config))
        states = [own]
        for source in self._parsed[1]:
            states.append(_state(source))
            try:
                if source.is_dir():
                    states.extend(_state(file) for file in policy_files(source))
            except (OSError, ValueError):
                pass  # an unreadable folder: its own state above stands for it
        return tuple(states)


def files_state(config: str | Path) -> tuple[FileState, ...]:
    """The state of a configuration's files, read afresh (see :class:`ConfigFiles`)."""
    return ConfigFiles(config).state()


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
        self._files = ConfigFiles(config)
        self._seen: tuple[FileState, ...] = ()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._signal_task: asyncio.Task[None] | None = None
        self._signalled_again = False
        self._previous_handler: Any = None
        self._on_signal = False
        self.reloads = 0
        """How many reloads succeeded."""
        self.refusals = 0
        """How many configurations were refused (each logged with its problems)."""

    async def start(self) -> None:
        """Note the files as they are now, handle SIGHUP and start looking at the files."""
        self._seen = await self._look()
        loop = asyncio.get_running_loop()
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGHUP"):
            previous = signal.getsignal(signal.SIGHUP)
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signal.SIGHUP, self._signalled)
                self._previous_handler = previous
                self._on_signal = True
        if self.interval is not None:
            self._task = asyncio.create_task(self._watch(self.interval))

    async def stop(self) -> None:
        """Stop looking and stop handling SIGHUP (the handler from before :meth:`start` is
        put back), and wait for a reload under way to end."""
        if self._on_signal:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
            if self._previous_handler is not None:
                signal.signal(signal.SIGHUP, self._previous_handler)
            self._on_signal = False
        # A reload under way runs in a thread that cancelling cannot stop: it is let finish
        # (taking the lock waits for it), so nothing is swapped in after this returns.
        async with self._lock:
            for task in (self._task, self._signal_task):
                if task is None:
                    continue
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                except Exception:  # stopping goes on: the governance must still be closed
                    _log.exception("the configuration watcher failed")
            self._task = self._signal_task = None

    def _signalled(self) -> None:
        # Signals that come while a reload for one is pending or running make one more
        # reload, not one each: a burst of SIGHUPs is one reload of the files as they end up.
        if self._signal_task is not None and not self._signal_task.done():
            self._signalled_again = True
            return
        self._signal_task = asyncio.create_task(self._reload_on_signal())

    async def _reload_on_signal(self) -> None:
        while True:
            self._signalled_again = False
            await self.reload_now("SIGHUP")
            if not self._signalled_again:
                return

    async def _look(self) -> tuple[FileState, ...]:
        return await asyncio.to_thread(self._files.state)

    async def _watch(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                state = await self._look()
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
            try:
                # Noted before loading: a change made while loading is seen at the next look.
                self._seen = await self._look()
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
