"""Stores on Redis (or Valkey): :class:`RedisStore` for threads, :class:`AsyncRedisStore` for
``asyncio``, and :class:`RedisDecisionLog`, a decision-log sink on a Redis stream; each on one
server, a Redis Cluster, or the primary that Redis Sentinel names.

Everything that decides (the URL's options, the value layout, the key mapping, the Lua scripts,
the reading of their answers, the retry loop and the shape of an admission on one server or a
cluster) is written once in this module as plain functions and *plans* (:func:`_update_plan`,
:func:`_admit_plan`): generators that yield the round trips they need (:class:`_Read`,
:class:`_Eval`, :class:`_Beside`, :class:`_Pause`) and receive the answers. The two store
classes only carry those round trips out, one with ``redis``, the other with ``redis.asyncio``. The ``redis``
package (the ``govcore[redis]`` extra) is imported when a store is built, never before.

The design and its reasons: docs/decisions/redis-store.md.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
import random
import secrets
import struct
import threading
import time
from collections.abc import Callable, Coroutine, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, ParamSpec, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import Field

from govcore._clock import system_clock
from govcore.settings import SettingsSection
from govcore.types import Admission, Clock, StoreCommit, StoreReads, StoreWrite

if TYPE_CHECKING:
    import redis
    import redis.asyncio
    import redis.asyncio.cluster
    import redis.cluster

    from govcore.decision_log import Decision
    from govcore.settings import GovernanceSettings

__all__ = [
    "AsyncRedisStore",
    "RedisDecisionLog",
    "RedisDecisionLogSettings",
    "RedisOptions",
    "RedisStore",
    "RedisUnavailableError",
    "ReplicationTimeoutError",
    "StoreContentionError",
]

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")

if TYPE_CHECKING:
    from typing import TypeAlias

    _SyncClient: TypeAlias = redis.Redis | redis.cluster.RedisCluster
    _AsyncClient: TypeAlias = redis.asyncio.Redis | redis.asyncio.cluster.RedisCluster

TOKEN_BYTES = 8
"""Each stored value starts with a random version token of this many bytes."""
_EXPIRY = struct.Struct(">d")
_HEADER_BYTES = TOKEN_BYTES + _EXPIRY.size

GC_MARGIN_SECONDS = 60.0
"""How long past its logical expiry Redis keeps a value before dropping it (the server's TTL is
only garbage collection: expiry is decided by govcore's clock, which may run ahead of or behind
the server's)."""

COMMIT_MARKER_MS = 120_000
"""How long a commit's marker lives: far longer than a command is retried after a lost reply
(``socket_timeout`` times ``retries``, plus backoff), so a resent commit always finds it."""

MAX_COMMIT_ATTEMPTS = 32
"""Optimistic commits tried before an update gives up with :class:`StoreContentionError`."""
_FREE_RETRIES = 2  # conflicts retried at once; later ones wait a little, randomly, first

_DEFAULT_PREFIX = "govcore:"
_DEFAULT_SOCKET_TIMEOUT = 1.0
_DEFAULT_CONNECT_TIMEOUT = 0.5
_DEFAULT_MAX_CONNECTIONS = 64
_DEFAULT_RETRIES = 1
_DEFAULT_WAIT_TIMEOUT = 0.5
_MOST_WAIT_REPLICAS = 16


class RedisUnavailableError(Exception):
    """Redis answered that it cannot serve commands now: busy running a script (``BUSY``),
    refusing writes after a failed save (``MISCONF``), short of replicas (``NOREPLICAS``), or
    the store's user lacks a permission (``NOPERM``). Declared in the stores'
    ``backend_errors``: the caller gets a retryable 503. Raised from redis-py's error."""


_UNAVAILABLE_REPLIES = ("BUSY", "MISCONF", "NOREPLICAS")


def _unavailable_reply(error: Exception) -> RedisUnavailableError | None:
    """The declared error for a reply that says Redis cannot serve now, else ``None``."""
    from redis.exceptions import NoPermissionError, ResponseError

    if isinstance(error, NoPermissionError) or (
        type(error) is ResponseError and str(error).startswith(_UNAVAILABLE_REPLIES)
    ):
        unavailable = RedisUnavailableError(f"Redis cannot serve now: {type(error).__name__}")
        unavailable.__cause__ = error
        return unavailable
    return None


def _replies_checked(method: Callable[P, R]) -> Callable[P, R]:
    """``method`` of a blocking store, with replies that mean "unavailable" declared."""

    @functools.wraps(method)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except Exception as error:
            declared = _unavailable_reply(error)
            if declared is None:
                raise
            raise declared from error

    return checked


def _replies_checked_async(
    method: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``method`` of an asyncio store, with replies that mean "unavailable" declared."""

    @functools.wraps(method)
    async def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except Exception as error:
            declared = _unavailable_reply(error)
            if declared is None:
                raise
            raise declared from error

    return checked


class ReplicationTimeoutError(Exception):
    """A write reached fewer replicas than ``wait_replicas`` asks for within ``wait_timeout``.

    The primary has applied it, so it may or may not outlive a failover: the caller gets a
    retryable 503, and a retry with the same idempotency key finds the write if it survived
    and records it again if it did not (docs/decisions/replica-wait.md). Declared in the
    stores' ``backend_errors``.
    """


class StoreContentionError(Exception):
    """An update lost its optimistic commit :data:`MAX_COMMIT_ATTEMPTS` times in a row.

    Declared in the stores' ``backend_errors``: the caller gets a retryable 503.
    """


# --- options --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RedisOptions:
    """What a ``redis://``, ``rediss://``, ``redis+sentinel://`` or ``rediss+sentinel://`` URL
    says.

    ``redis://[user:password@]host[:port][/db][?parameters]``; ``rediss://`` is the same over
    TLS. ``redis+sentinel://[user:password@]host:port[,host:port...]/service_name[/db]``
    reaches the primary that Redis Sentinel names ``service_name``: the hosts are sentinels
    (port 26379 when left out), asked for the primary's address when a connection opens and
    again after one fails, so that a failover is followed. The URL's user and password are the
    primary's; sentinels that need their own credentials get them from ``sentinel_username``
    and ``sentinel_password`` (docs/decisions/sentinel.md). ``rediss+sentinel://`` speaks TLS to
    the sentinels and the primary. The parameters (all optional):

    - ``cluster``: ``true`` for a Redis Cluster (default ``false``): the host is a seed node
      from which the client learns every node and which slots each one serves; the database
      must be 0;
    - ``nodes``: further seed nodes of a cluster, ``host:port,host:port``, tried when the first
      one does not answer;
    - ``sentinel_username``, ``sentinel_password``: the credentials of the sentinels (Sentinel
      URLs only; default none);

    - ``prefix``: prepended to every key (default ``govcore:``), so that several deployments
      can share a database;
    - ``socket_timeout``: seconds a command may wait for its answer (default 1);
    - ``connect_timeout``: seconds a connection may take to open (default 0.5);
    - ``max_connections``: the most connections the pool opens (default 64); a call that
      needs one more fails at once, as the server being unavailable would;
    - ``retries``: how many times a command that failed on the connection (refused, reset,
      timed out) is sent again (default 1; 0 to never). Every command is safe to send twice.
      On a cluster, it is how many times a command is sent again after such a failure or a
      cluster that is down or resharding, the node map being refreshed in between;
    - ``wait_replicas``: acknowledge a write only once this many replicas have it (Redis
      ``WAIT``, sent after the write in the same round trip; default 0, asynchronous
      replication); when they do not confirm it within ``wait_timeout`` seconds (default 0.5),
      the call fails with :class:`ReplicationTimeoutError` (docs/decisions/replica-wait.md).

    ``repr`` shows no user or password.
    """

    host: str
    port: int
    db: int
    tls: bool
    prefix: str = _DEFAULT_PREFIX
    socket_timeout: float = _DEFAULT_SOCKET_TIMEOUT
    connect_timeout: float = _DEFAULT_CONNECT_TIMEOUT
    max_connections: int = _DEFAULT_MAX_CONNECTIONS
    retries: int = _DEFAULT_RETRIES
    cluster: bool = False
    more_nodes: tuple[tuple[str, int], ...] = ()
    """Seed nodes of a cluster, or sentinels, besides ``host:port``."""
    service_name: str | None = None
    """The primary's name in Redis Sentinel: set for a Sentinel URL, whose hosts are sentinels."""
    wait_replicas: int = 0
    wait_timeout: float = _DEFAULT_WAIT_TIMEOUT
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    sentinel_username: str | None = field(default=None, repr=False)
    sentinel_password: str | None = field(default=None, repr=False)
    extra: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Parameters left for the caller (a decision log's ``stream`` and ``maxlen``)."""

    @classmethod
    def parse(cls, url: str, *, extra: frozenset[str] = frozenset()) -> RedisOptions:
        """Read ``url``; ``extra`` names further parameters to accept and keep in ``extra``.

        Raises:
            ValueError: a malformed URL, an unknown parameter or a bad value, naming it (never
                quoting a user or password).
        """
        scheme = url.partition("://")[0].lower() if "://" in url else ""
        if scheme not in _SCHEMES:
            raise ValueError(
                "a Redis URL starts with redis://, rediss://, redis+sentinel:// or "
                f"rediss+sentinel://, not {scheme}://"
            )
        sentinel = scheme.endswith("+sentinel")
        try:
            parts = urlsplit(url)
            # A Sentinel URL lists several host:port pairs, which urlsplit cannot read as one.
            port = None if sentinel else parts.port
        except ValueError:
            raise ValueError("malformed Redis URL (host or port)") from None
        if parts.fragment:
            raise ValueError("a Redis URL takes no #fragment")
        if sentinel:
            if parts.netloc.count("@") > 1 or "," in parts.netloc.rpartition("@")[0]:
                # One user and password for the primary, before every host: a second "@"
                # would make the rest of the list part of the password.
                raise ValueError(
                    "a Sentinel URL has one user:password@ before its list of hosts; "
                    "sentinels' own credentials go in sentinel_username and sentinel_password"
                )
            hosts = _sentinel_hosts(parts.netloc.rpartition("@")[2])
            service_name, db_text = _sentinel_path(parts.path)
        else:
            hosts = [(parts.hostname or "localhost", port or 6379)]
            service_name, db_text = None, parts.path.strip("/") or "0"
        if not (db_text.isascii() and db_text.isdigit()):
            raise ValueError("the database of a Redis URL is a number (/0)")
        given: dict[str, str] = {}
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            if name in given:
                raise ValueError(f"parameter {name!r} is given twice")
            given[name] = value
        known = {
            "prefix",
            "socket_timeout",
            "connect_timeout",
            "max_connections",
            "retries",
            "wait_replicas",
            "wait_timeout",
            *(("sentinel_username", "sentinel_password") if sentinel else ("cluster", "nodes")),
        }
        unknown = sorted(set(given) - known - extra)
        if unknown:
            allowed = ", ".join(sorted(known | extra))
            raise ValueError(f"unknown parameter {unknown[0]!r} (known: {allowed})")
        prefix = given.get("prefix", _DEFAULT_PREFIX)
        if "{" in prefix or "}" in prefix:
            # A brace in the prefix would become every key's hash tag: one Cluster shard.
            raise ValueError("parameter 'prefix' may not contain '{' or '}'")
        cluster = _flag(given, "cluster")
        if cluster and int(db_text) != 0:
            raise ValueError("a Redis Cluster has only database 0 (the URL's path)")
        if "nodes" in given and not cluster:
            raise ValueError("parameter 'nodes' lists seed nodes of a cluster: add cluster=true")
        if "wait_timeout" in given and "wait_replicas" not in given:
            raise ValueError(
                "parameter 'wait_timeout' needs 'wait_replicas' (the replicas to wait for)"
            )
        return cls(
            host=hosts[0][0],
            port=hosts[0][1],
            db=int(db_text),
            tls=scheme.startswith("rediss"),
            prefix=prefix,
            socket_timeout=_seconds(given, "socket_timeout", _DEFAULT_SOCKET_TIMEOUT),
            connect_timeout=_seconds(given, "connect_timeout", _DEFAULT_CONNECT_TIMEOUT),
            max_connections=_whole(given, "max_connections", _DEFAULT_MAX_CONNECTIONS, 1),
            retries=_whole(given, "retries", _DEFAULT_RETRIES, 0),
            cluster=cluster,
            more_nodes=(*hosts[1:], *_nodes(given.get("nodes"))),
            service_name=service_name,
            wait_replicas=_whole(given, "wait_replicas", 0, 0, _MOST_WAIT_REPLICAS),
            wait_timeout=_seconds(given, "wait_timeout", _DEFAULT_WAIT_TIMEOUT),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password is not None else None,
            sentinel_username=given.get("sentinel_username") or None,
            sentinel_password=given.get("sentinel_password"),
            extra={name: given[name] for name in extra if name in given},
        )

    def client_arguments(self, *, asyncio: bool = False) -> dict[str, Any]:
        """Keyword arguments of ``redis.Redis`` (or, with ``asyncio``, ``redis.asyncio.Redis``,
        whose retry policy is its own class) (imports redis)."""
        return {
            "host": self.host,
            "port": self.port,
            "db": self.db,
            "username": self.username,
            "password": self.password,
            "ssl": self.tls,
            "socket_timeout": self.socket_timeout,
            "socket_connect_timeout": self.connect_timeout,
            "max_connections": self.max_connections,
            # Bounded and short: a store call must fail within a few timeouts, never hang.
            "retry": self._retry(asyncio=asyncio),
        }

    def _retry(self, *, asyncio: bool) -> Any:
        from redis.backoff import ExponentialBackoff

        if asyncio:
            from redis.asyncio.retry import Retry as AsyncRetry

            return AsyncRetry(ExponentialBackoff(cap=0.2, base=0.02), self.retries)
        from redis.retry import Retry

        return Retry(ExponentialBackoff(cap=0.2, base=0.02), self.retries)

    def cluster_arguments(self, *, asyncio: bool = False) -> dict[str, Any]:
        """Keyword arguments of ``redis.cluster.RedisCluster`` and
        ``redis.asyncio.cluster.RedisCluster``, seed nodes aside (imports redis).

        ``max_connections`` bounds each node's pool; ``retry`` belongs to the cluster client,
        which sends a failed command again after refreshing its map of the nodes.
        """
        arguments = self.client_arguments(asyncio=asyncio)
        for name in ("host", "port", "db"):
            del arguments[name]
        return arguments

    def primary_arguments(self, *, asyncio: bool = False) -> dict[str, Any]:
        """Keyword arguments of ``Sentinel.master_for`` (blocking or asyncio): the primary's
        connections, whose address the sentinels give (imports redis)."""
        arguments = self.client_arguments(asyncio=asyncio)
        del arguments["host"], arguments["port"]
        return arguments

    def sentinel_arguments(self, *, asyncio: bool = False) -> dict[str, Any]:
        """The ``sentinel_kwargs`` of a ``Sentinel``: how each sentinel is spoken to (imports
        redis). The same timeouts and retries as the primary, so that a sentinel that does not
        answer costs no more than a server would, and the sentinels' own credentials."""
        return {
            "username": self.sentinel_username,
            "password": self.sentinel_password,
            "ssl": self.tls,
            "socket_timeout": self.socket_timeout,
            "socket_connect_timeout": self.connect_timeout,
            "retry": self._retry(asyncio=asyncio),
        }

    def seed_nodes(self) -> list[tuple[str, int]]:
        """``(host, port)`` of every seed node of a cluster, or of every sentinel, the URL's
        own first."""
        return [(self.host, self.port), *self.more_nodes]

    def shown(self) -> str:
        """The URL without credentials, for messages and ``repr``."""
        scheme = "rediss" if self.tls else "redis"
        if self.service_name is not None:
            hosts = ",".join(f"{host}:{port}" for host, port in self.seed_nodes())
            return f"{scheme}+sentinel://{hosts}/{self.service_name}/{self.db}?prefix={self.prefix}"
        if self.cluster:
            return f"{scheme}://{self.host}:{self.port}?cluster=true&prefix={self.prefix}"
        return f"{scheme}://{self.host}:{self.port}/{self.db}?prefix={self.prefix}"


_SCHEMES = ("redis", "rediss", "redis+sentinel", "rediss+sentinel")
_SENTINEL_PORT = 26379


def _sentinel_hosts(text: str) -> list[tuple[str, int]]:
    """The sentinels of a Sentinel URL's ``host:port,host:port`` (port 26379 when left out)."""
    found: list[tuple[str, int]] = []
    for item in text.split(","):
        try:
            parts = urlsplit("//" + item.strip())
            port = parts.port
        except ValueError:
            raise ValueError("malformed Redis URL (a sentinel's host or port)") from None
        if not parts.hostname or parts.path or parts.query:
            raise ValueError("a Sentinel URL lists its sentinels as host:port,host:port")
        found.append((parts.hostname, port or _SENTINEL_PORT))
    return found


def _sentinel_path(path: str) -> tuple[str, str]:
    """``(service name, database)`` of a Sentinel URL's path ``/service_name[/db]``."""
    segments = path.strip("/").split("/") if path.strip("/") else []
    if not 1 <= len(segments) <= 2 or not segments[0]:
        raise ValueError("the path of a Sentinel URL is /service_name or /service_name/db")
    return unquote(segments[0]), segments[1] if len(segments) == 2 else "0"


def _seconds(given: Mapping[str, str], name: str, default: float) -> float:
    if name not in given:
        return default
    try:
        value = float(given[name])
    except ValueError:
        raise ValueError(f"parameter {name!r} must be a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise ValueError(f"parameter {name!r} must be more than 0 and at most 3600 seconds")
    return value


def _flag(given: Mapping[str, str], name: str) -> bool:
    text = given.get(name, "false").lower()
    if text not in ("true", "false"):
        raise ValueError(f"parameter {name!r} must be true or false")
    return text == "true"


def _nodes(text: str | None) -> tuple[tuple[str, int], ...]:
    if text is None:
        return ()
    found: list[tuple[str, int]] = []
    for item in text.split(","):
        try:
            parts = urlsplit("//" + item.strip())
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or parts.username or parts.path or parts.query:
            raise ValueError("parameter 'nodes' lists seed nodes as host:port,host:port")
        found.append((parts.hostname, port))
    return tuple(found)


def _whole(
    given: Mapping[str, str], name: str, default: int, least: int, most: int = 100_000
) -> int:
    if name not in given:
        return default
    text = given[name]
    if not (text.isascii() and text.isdigit()) or not least <= int(text) <= most:
        raise ValueError(f"parameter {name!r} must be a whole number from {least} to {most}")
    return int(text)


def _import_redis() -> None:
    """Import ``redis``, or say which extra provides it (a ``ValueError``: a refused setting)."""
    try:
        import redis  # noqa: F401
    except ImportError:
        raise ValueError(
            "the Redis backend needs the redis package: pip install 'govcore[redis]'"
        ) from None


def backend_errors() -> tuple[type[BaseException], ...]:
    """The exception types that mean "Redis is unavailable" (imports redis).

    Connection failures (refused, reset, authentication, too many connections, still loading
    its data), timeouts, a read-only replica, a server out of memory, a Cluster that is down,
    resharding or failing over (``ClusterDownError``, ``TryAgainError``, ``MovedError`` and
    ``AskError`` still unresolved after redis-py's redirections, ``ClusterError`` when they ran
    out, ``RedisClusterException`` when no node answers to tell which node serves a slot), and
    an update that kept losing its optimistic commit, and a write that replicas did not
    confirm in time (``wait_replicas``).
    """
    from redis import exceptions

    return (
        exceptions.ConnectionError,
        exceptions.TimeoutError,
        exceptions.ReadOnlyError,
        exceptions.OutOfMemoryError,
        exceptions.ClusterError,
        exceptions.ClusterDownError,
        exceptions.TryAgainError,
        exceptions.AskError,
        exceptions.RedisClusterException,
        StoreContentionError,
        RedisUnavailableError,
        ReplicationTimeoutError,
    )


# --- values ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Layout:
    """How govcore's keys and values look in Redis.

    A value is ``token (8 random bytes) | expires_at (big-endian double) | payload``. The token
    changes with every write, so an optimistic commit can tell whether a key was written since
    it was read; ``expires_at`` is the logical expiry, checked against the store's clock.
    """

    prefix: str

    def key(self, key: str) -> str:
        return self.prefix + key

    def commit_marker(self, redis_key: str, token: bytes) -> str | None:
        """The key that marks a commit as applied: ``commit:`` in the store's prefix, in the
        slot of ``redis_key`` (Redis Cluster hashes a key's tag, the text between its first
        ``{`` and the next ``}``, when there is one, else the whole key), so that it holds no
        part of a record's name but its tag. ``None`` when no such name can be made."""
        start = redis_key.find("{")
        end = redis_key.find("}", start + 1) if start >= 0 else -1
        if start >= 0 and end > start + 1:
            tag = redis_key[start + 1 : end]
        elif "{" in redis_key or "}" in redis_key:
            return None  # no tag, and braces around the key would make one of a part of it
        else:
            tag = redis_key
        return f"{self.prefix}commit:{{{tag}}}:{token.hex()}"

    @staticmethod
    def encode(token: bytes, payload: bytes, expires_at: float) -> bytes:
        return token + _EXPIRY.pack(expires_at) + payload

    @staticmethod
    def decode(raw: bytes | None, now: float, key: str) -> bytes | None:
        """The live payload of ``raw``, or ``None`` when absent or expired at ``now``."""
        if raw is None:
            return None
        if len(raw) < _HEADER_BYTES:
            raise ValueError(f"the value at {key!r} was not written by govcore (too short)")
        (expires_at,) = _EXPIRY.unpack_from(raw, TOKEN_BYTES)
        return raw[_HEADER_BYTES:] if expires_at > now else None

    @staticmethod
    def token_of(raw: bytes | None) -> bytes:
        return b"" if raw is None else raw[:TOKEN_BYTES]

    @staticmethod
    def ttl_ms(expires_at: float, now: float) -> int:
        """The server-side TTL: the logical lifetime (at least 1 ms) plus the margin."""
        return max(1, math.ceil((expires_at - now) * 1000)) + int(GC_MARGIN_SECONDS * 1000)


def _new_token() -> bytes:
    return secrets.token_bytes(TOKEN_BYTES)


# --- scripts --------------------------------------------------------------------------------


def _script_source(name: str) -> str:
    """The text of the Lua script ``name``, a resource of this package (``redis_scripts/``)."""
    return (resources.files("govcore.backends.redis_scripts") / name).read_text("utf-8")


@dataclass(frozen=True, slots=True)
class _Script:
    """A Lua script, sent by its SHA-1 (``EVALSHA``) and loaded when a server lacks it."""

    source: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())  # noqa: S324 - Redis names scripts by SHA-1


COMMIT_SCRIPT = _script_source("commit.lua")
"""Writes all of a commit's values if none of its keys changed since read, else answers
``{0, current values...}`` so that the next attempt needs no read of its own. A commit leaves a
short-lived marker key behind it: resent after a lost reply (redis-py retries a command whose
answer timed out), it finds the marker and reports success, even when another writer has
changed the keys in between, instead of running the mutation a second time."""

ADMIT_SCRIPT = _script_source("admit.lua")
"""A sliding-window log with the rules of :func:`govcore.core.ratelimit.admit`: answers
``{1}`` when admitted (``{1, values}`` with the values of ``KEYS[2...]`` when there are any),
else ``{0, score}`` where ``score`` is the time of the first of the newest ``limit`` logged
requests that fill a window with this one. On a cluster the read keys are in other slots than
the window, so they are read by an ``MGET`` beside the script instead."""

_COMMIT = _Script(COMMIT_SCRIPT)
_ADMIT = _Script(ADMIT_SCRIPT)


# --- plans ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Read:
    """Round trip: the raw values of ``keys`` (Redis keys), one atomic MGET."""

    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Eval:
    """Round trip: run ``script`` (``EVALSHA``, loading it into a server that lacks it); the
    answer is the script's reply. A ``write`` is one that acknowledges a caller's data: with
    ``wait_replicas`` set, it is answered only once the replicas have it."""

    script: _Script
    keys: tuple[str, ...]
    args: tuple[bytes | str | int, ...]
    write: bool = False


@dataclass(frozen=True, slots=True)
class _Beside:
    """Round trip on a cluster: run ``script`` on ``key``, and ``MGET`` the ``read`` keys
    beside it on their own nodes (not a transaction: they are in other slots). The answer is
    ``(the script's reply, the values read or None when there are no read keys)``."""

    script: _Script
    key: str
    args: tuple[bytes | str | int, ...]
    read: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Pause:
    """Wait ``seconds`` before the next attempt (contention)."""

    seconds: float


_Step = _Read | _Eval | _Beside | _Pause
_Plan = Generator[_Step, Any, T]


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What an admission read: the raw values (with their tokens) by govcore key."""

    raws: Mapping[str, bytes | None]


def _update_plan(
    layout: _Layout,
    clock: Clock,
    keys: Sequence[str],
    mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
    reads: StoreReads | None,
) -> _Plan[T]:
    """Read (unless ``reads`` hold every key), mutate, commit; on conflict, mutate again."""
    redis_keys = tuple(layout.key(k) for k in keys)
    snapshot = reads.snapshot if reads is not None else None
    if isinstance(snapshot, _Snapshot) and all(k in snapshot.raws for k in keys):
        raws: list[bytes | None] = [snapshot.raws[k] for k in keys]
    else:
        raws = list((yield _Read(redis_keys)))
    for attempt in range(MAX_COMMIT_ATTEMPTS):
        now = clock()
        commit = mutate(
            [layout.decode(raw, now, k) for raw, k in zip(raws, keys, strict=True)], now
        )
        unknown = set(commit.writes) - set(keys)
        if unknown:
            raise ValueError(f"update_many may only write the keys it read: {sorted(unknown)}")
        if not commit.writes:
            return commit.result  # nothing to write: the read was atomic, so is the answer
        token = _new_token()
        args: list[bytes | int] = [COMMIT_MARKER_MS]
        for key, raw in zip(keys, raws, strict=True):
            args.append(layout.token_of(raw))
            write = commit.writes.get(key)
            if write is None:
                args += [b"", 0]
            else:
                value, expires_at = write
                args += [layout.encode(token, value, expires_at), layout.ttl_ms(expires_at, now)]
        marker = layout.commit_marker(redis_keys[0], token)
        script_keys = redis_keys if marker is None else (*redis_keys, marker)
        answer = yield _Eval(_COMMIT, script_keys, tuple(args), write=True)
        if int(answer[0]) == 1:
            return commit.result
        raws = list(answer[1:])
        raws += [None] * (len(keys) - len(raws))  # trailing nil replies may be cut off
        if attempt >= _FREE_RETRIES:
            yield _Pause(random.uniform(0, min(0.05, 0.001 * 2**attempt)))
    raise StoreContentionError(
        f"update of {len(keys)} key(s) lost {MAX_COMMIT_ATTEMPTS} optimistic commits in a row"
    )


def _single(
    key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]
) -> Callable[[Sequence[bytes | None], float], StoreCommit[T]]:
    """A one-key :class:`StoreWrite` mutation as an ``update_many`` mutation."""

    def many(values: Sequence[bytes | None], now: float) -> StoreCommit[T]:
        write = mutate(values[0], now)
        if write.value is None:
            return StoreCommit(write.result)
        return StoreCommit(write.result, {key: (write.value, write.expires_at)})

    return many


@dataclass(frozen=True, slots=True)
class _AdmitCall:
    """The arguments of one admission and how to read its answers."""

    layout: _Layout
    key: str
    read: tuple[str, ...]
    now: float
    window_seconds: float
    args: tuple[bytes | str | int, ...]

    @classmethod
    def build(
        cls, layout: _Layout, clock: Clock, key: str, limit: int, window: float, read: Sequence[str]
    ) -> _AdmitCall:
        if limit < 1:
            raise ValueError("an admission limit must be at least 1")
        if not (math.isfinite(window) and window > 0):
            raise ValueError("an admission window must be a positive number of seconds")
        now = clock()
        # repr() of a float is its shortest exact decimal form: Redis parses back the same double.
        args = (
            repr(now),
            repr(now - window),
            limit,
            _new_token(),  # unique per call: a resent admission finds itself and is not counted twice
            # The log keeps two windows of times (see govcore.core.ratelimit.admit).
            math.ceil(2 * window * 1000) + int(GC_MARGIN_SECONDS * 1000),
            repr(float(window)),
            repr(now - 2 * window),
        )
        return cls(layout, layout.key(key), tuple(read), now, window, args)

    def redis_read_keys(self) -> list[str]:
        return [self.layout.key(k) for k in self.read]

    def answer_alone(self, reply: Sequence[Any]) -> Admission:
        """The answer of the script run with the read keys as its own (one server)."""
        admitted = int(reply[0]) == 1
        return self.answer(reply, reply[1] if admitted and len(reply) > 1 else None)

    def answer(self, reply: Sequence[Any], raws: Sequence[bytes | None] | None) -> Admission:
        if int(reply[0]) == 1:
            found = list(raws or [])
            found += [None] * (len(self.read) - len(found))
            by_key = dict(zip(self.read, found, strict=True))
            values = {k: self.layout.decode(raw, self.now, k) for k, raw in by_key.items()}
            return Admission(None, StoreReads(values, _Snapshot(by_key)))
        oldest = float(reply[1])
        return Admission(max(oldest + self.window_seconds - self.now, 0.0))


def _admit_plan(
    layout: _Layout,
    clock: Clock,
    key: str,
    limit: int,
    window: float,
    read: Sequence[str],
    *,
    cluster: bool,
) -> _Plan[Admission]:
    """Count one request in ``key``'s window and read ``read`` if it is admitted: on one server
    one script that reads the keys itself; on a cluster, where the read keys live in other
    slots than the window, the script and an ``MGET`` beside it, in one round trip."""
    call = _AdmitCall.build(layout, clock, key, limit, window, read)
    if not cluster:
        reply = yield _Eval(_ADMIT, (call.key, *call.redis_read_keys()), call.args)
        return call.answer_alone(reply)
    reply, raws = yield _Beside(_ADMIT, call.key, call.args, tuple(call.redis_read_keys()))
    return call.answer(reply, raws)


@dataclass(frozen=True, slots=True)
class _ReplicaWait:
    """``WAIT replicas timeout``, sent after each write that acknowledges a caller's data (a
    commit, a ``set``, a ``delete``) on the same connection, in the same round trip."""

    replicas: int
    timeout: float

    @classmethod
    def of(cls, options: RedisOptions | None) -> _ReplicaWait | None:
        if options is None or options.wait_replicas == 0:
            return None
        return cls(options.wait_replicas, options.wait_timeout)

    def command(self) -> tuple[str, int, int]:
        return ("WAIT", self.replicas, max(1, math.ceil(self.timeout * 1000)))

    def check(self, replies: Sequence[Any]) -> Any:
        """The write's own reply, once the ``WAIT`` after it says enough replicas have it.

        Raises:
            ReplicationTimeoutError: fewer replicas confirmed the write in time.
        """
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        confirmed = int(replies[1])
        if confirmed < self.replicas:
            raise ReplicationTimeoutError(
                f"the write reached {confirmed} of the {self.replicas} replica(s) asked for "
                f"within {self.timeout} s (wait_replicas)"
            )
        return replies[0]


def _is_no_script(error: BaseException) -> bool:
    from redis.exceptions import NoScriptError

    return isinstance(error, NoScriptError)


def _sync_client(options: RedisOptions) -> _SyncClient:
    """The ``redis`` client a URL names: one server, the primary that sentinels name, or a
    cluster (which, being built, asks a seed node for its map of slots)."""
    import redis

    if options.service_name is not None:
        from redis.sentinel import Sentinel

        sentinels = Sentinel(  # type: ignore[no-untyped-call]
            options.seed_nodes(), sentinel_kwargs=options.sentinel_arguments()
        )
        primary: redis.Redis = sentinels.master_for(  # type: ignore[no-untyped-call]
            options.service_name, **options.primary_arguments()
        )
        return primary
    if not options.cluster:
        return redis.Redis(**options.client_arguments())
    from redis.cluster import ClusterNode, RedisCluster

    seeds = [ClusterNode(host, port) for host, port in options.seed_nodes()]  # type: ignore[no-untyped-call]
    return RedisCluster(startup_nodes=seeds, **options.cluster_arguments())


def _async_client(options: RedisOptions) -> _AsyncClient:
    """The ``redis.asyncio`` client a URL names (a cluster client connects on first use)."""
    import redis.asyncio

    if options.service_name is not None:
        from redis.asyncio.sentinel import Sentinel

        sentinels = Sentinel(  # type: ignore[no-untyped-call]
            options.seed_nodes(), sentinel_kwargs=options.sentinel_arguments(asyncio=True)
        )
        primary: redis.asyncio.Redis = sentinels.master_for(
            options.service_name, **options.primary_arguments(asyncio=True)
        )
        return primary
    if not options.cluster:
        return redis.asyncio.Redis(**options.client_arguments(asyncio=True))
    from redis.asyncio.cluster import ClusterNode, RedisCluster

    seeds = [ClusterNode(host, port) for host, port in options.seed_nodes()]
    return RedisCluster(startup_nodes=seeds, **options.cluster_arguments(asyncio=True))


def _is_cluster(client: _SyncClient) -> bool:
    from redis.cluster import RedisCluster

    return isinstance(client, RedisCluster)


def _route(client: _SyncClient, key: str) -> dict[str, Any]:
    """Where a blocking cluster pipeline sends a script on ``key``: its node, from the client's
    map of slots. Left to redis-py, its cluster pipeline would first ask a server for the
    script's keys (``COMMAND GETKEYS``): a round trip more. A redirection (``MOVED``) is still
    followed: the command is then sent again, routed afresh."""
    from redis.cluster import RedisCluster

    if isinstance(client, RedisCluster):
        return {"target_nodes": client.get_node_from_key(key)}  # type: ignore[no-untyped-call]
    return {}


class _Connector:
    """The client of a blocking store or sink, built on first use.

    A cluster client connects to a seed node as it is built, to learn which node serves which
    slot; building it at the first call means that a cluster unreachable when govcore starts
    makes calls fail with a backend error (503) until it answers, as one server would, instead
    of failing the start.
    """

    def __init__(self, make: Callable[[], _SyncClient]) -> None:
        self._make = make
        self._client: _SyncClient | None = None
        self._lock = threading.Lock()

    def client(self) -> _SyncClient:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._make()
                client = self._client
        return client

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
            for sentinel in _sentinels_of(client):
                sentinel.close()


def _sentinels_of(client: Any) -> list[Any]:
    """The clients through which ``client``'s pool asks sentinels for the primary (none unless
    the store was built from a Sentinel URL): closed with the store."""
    manager = getattr(getattr(client, "connection_pool", None), "sentinel_manager", None)
    return list(getattr(manager, "sentinels", ()))


def _given(client: _SyncClient | None, connect: Callable[[], _SyncClient] | None) -> _Connector:
    if (client is None) == (connect is None):
        raise TypeError("give either a client or a connect function")
    if client is not None:
        return _Connector(lambda: client)
    assert connect is not None
    return _Connector(connect)


# --- the stores -----------------------------------------------------------------------------


def _twin_options(options: RedisOptions | None, kind: str) -> RedisOptions:
    """The URL options a twin store is opened with: only a store built from a URL knows them."""
    if options is None:
        raise TypeError(
            f"this {kind} was built from a client object, not a URL, so it cannot open its "
            "twin for the other kind of code (blocking or asyncio): build that store yourself"
        )
    return options


class RedisStore:
    """A :class:`~govcore.types.PipelinedStore` on Redis, shared by every process that uses it.

    Built from ``settings.store: redis://...`` (see :class:`RedisOptions` for the URL; add
    ``cluster=true`` for a Redis Cluster, or use ``redis+sentinel://`` for Sentinel). Expiry follows the injected clock: each value carries
    its ``expires_at``; the server's own TTL only collects garbage, :data:`GC_MARGIN_SECONDS`
    later. Updates commit optimistically: one read, the mutation, then one script that writes
    everything only if nothing changed meanwhile (else the mutation runs again on the values the
    script answered with).

    All keys of one :meth:`update_many`, and the ``read`` keys of one :meth:`admit`, must share
    a hash tag (govcore's do), so that each command touches one Redis Cluster slot. Safe to
    share between threads.

    Args:
        client: a ``redis.Redis`` or ``redis.cluster.RedisCluster``;
        connect: instead of ``client``, a function that builds one at the first call.
    """

    def __init__(
        self,
        client: _SyncClient | None = None,
        *,
        clock: Clock = system_clock,
        prefix: str = "",
        connect: Callable[[], _SyncClient] | None = None,
    ) -> None:
        self._connector = _given(client, connect)
        self._clock = clock
        self._layout = _Layout(prefix)
        self.backend_errors: tuple[type[BaseException], ...] = backend_errors()
        self._shown = f"RedisStore(prefix={prefix!r})"
        self._options: RedisOptions | None = None  # known when built from a URL
        self._async_twin: AsyncRedisStore | None = None
        self._wait: _ReplicaWait | None = None  # wait_replicas of the URL

    @classmethod
    def from_url(cls, url: str, *, clock: Clock = system_clock) -> RedisStore:
        """A store from a ``redis://`` or ``rediss://`` URL (:class:`RedisOptions`).

        Raises:
            ValueError: a malformed URL or parameter (the message never quotes a credential).
        """
        options = RedisOptions.parse(url)
        _import_redis()
        store = cls(clock=clock, prefix=options.prefix, connect=lambda: _sync_client(options))
        store._shown = f"RedisStore({options.shown()!r})"
        store._options = options
        store._wait = _ReplicaWait.of(options)
        return store

    def async_twin(self) -> AsyncRedisStore:
        """This store for ``asyncio``: an :class:`AsyncRedisStore` on the same URL, clock and
        prefix (one per store, with its own connections, which belong to the first event loop
        that uses them). Close it with its :meth:`~AsyncRedisStore.aclose`.

        Raises:
            TypeError: the store was built from a client object, not a URL: build the
                asyncio store from an asyncio client yourself.
        """
        if self._async_twin is None:
            options = _twin_options(self._options, "RedisStore")
            self._async_twin = AsyncRedisStore(
                _async_client(options), clock=self._clock, prefix=options.prefix
            )
            self._async_twin._shown = f"AsyncRedisStore({options.shown()!r})"
            self._async_twin._options = options
            self._async_twin._wait = _ReplicaWait.of(options)
        return self._async_twin

    def __repr__(self) -> str:
        return self._shown

    def close(self) -> None:
        """Close the pool's connections."""
        self._connector.close()

    @_replies_checked
    def get(self, key: str) -> bytes | None:
        raw: bytes | None = self._connector.client().get(self._layout.key(key))  # type: ignore[assignment]
        return self._layout.decode(raw, self._clock(), key)

    @_replies_checked
    def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        now = self._clock()
        encoded = self._layout.encode(_new_token(), value, expires_at)
        redis_key = self._layout.key(key)
        self._write(
            redis_key, "SET", redis_key, encoded, "PX", self._layout.ttl_ms(expires_at, now)
        )

    @_replies_checked
    def delete(self, key: str) -> None:
        redis_key = self._layout.key(key)
        self._write(redis_key, "DEL", redis_key)

    def _write(self, redis_key: str, *command: Any) -> Any:
        """Send a write on ``redis_key``; with ``wait_replicas``, the ``WAIT`` after it on the
        same connection (one round trip, on the key's node of a cluster)."""
        client = self._connector.client()
        if self._wait is None:
            return client.execute_command(*command)  # type: ignore[no-untyped-call]
        route = _route(client, redis_key)
        pipe = client.pipeline(transaction=False)
        pipe.execute_command(*command, **route)
        pipe.execute_command(*self._wait.command(), **route)
        return self._wait.check(pipe.execute(raise_on_error=False))

    @_replies_checked
    def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        return self._run(_update_plan(self._layout, self._clock, [key], _single(key, mutate), None))

    @_replies_checked
    def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
        *,
        reads: StoreReads | None = None,
    ) -> T:
        return self._run(_update_plan(self._layout, self._clock, keys, mutate, reads))

    @_replies_checked
    def admit(
        self, key: str, *, limit: int, window_seconds: float, read: Sequence[str] = ()
    ) -> Admission:
        cluster = _is_cluster(self._connector.client())
        plan = _admit_plan(
            self._layout, self._clock, key, limit, window_seconds, read, cluster=cluster
        )
        return self._run(plan)

    def _eval_written(self, step: _Eval) -> Any:
        """:meth:`_eval` of a write, answered once the replicas have it (``wait_replicas``)."""
        command = ("EVALSHA", step.script.sha, len(step.keys), *step.keys, *step.args)
        try:
            return self._write(step.keys[0], *command)
        except Exception as error:
            if not _is_no_script(error):
                raise
        self._connector.client().script_load(step.script.source)
        return self._write(step.keys[0], *command)

    def _eval(self, script: _Script, keys: Sequence[str], args: Sequence[bytes | str | int]) -> Any:
        client = self._connector.client()
        try:
            return client.evalsha(script.sha, len(keys), *keys, *args)
        except Exception as error:
            if not _is_no_script(error):
                raise
        # A restarted or flushed server (on a cluster, SCRIPT LOAD goes to every primary).
        client.script_load(script.source)
        return client.evalsha(script.sha, len(keys), *keys, *args)

    def _beside(self, step: _Beside) -> tuple[Any, Any]:
        client = self._connector.client()
        route = _route(client, step.key)
        for _ in range(2):
            # Not a transaction: the script and the MGET go to the nodes of their own slots,
            # written to every node before any answer is read (one round trip). redis-py's
            # cluster pipeline blocks its evalsha() and mget() methods, as they may span
            # slots; these commands do not (each one's keys share a slot, which redis-py
            # checks as it routes them), so they go through execute_command.
            pipe = client.pipeline(transaction=False)
            pipe.execute_command("EVALSHA", step.script.sha, 1, step.key, *step.args, **route)
            if step.read:
                pipe.execute_command("MGET", *step.read)
            replies = pipe.execute(raise_on_error=False)
            if _is_no_script(replies[0]):
                client.script_load(step.script.source)  # a restarted or flushed server
                continue
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            return replies[0], replies[1] if step.read else None
        raise RuntimeError("the script could not be loaded")  # pragma: no cover

    def _run(self, plan: _Plan[T]) -> T:
        answer: Any = None
        try:
            while True:
                step = plan.send(answer)
                if isinstance(step, _Read):
                    answer = self._connector.client().mget(step.keys)
                elif isinstance(step, _Eval):
                    if step.write and self._wait is not None:
                        answer = self._eval_written(step)
                    else:
                        answer = self._eval(step.script, step.keys, step.args)
                elif isinstance(step, _Beside):
                    answer = self._beside(step)
                else:
                    time.sleep(step.seconds)
                    answer = None
        except StopIteration as done:
            result: T = done.value
            return result


class AsyncRedisStore:
    """:class:`RedisStore` for ``asyncio`` (an :class:`~govcore.types.AsyncPipelinedStore`).

    The same layout, scripts and rules, through ``redis.asyncio`` (a ``redis.asyncio.Redis`` or
    ``redis.asyncio.cluster.RedisCluster``): waiting for Redis never blocks the event loop. Use
    it from one event loop; :meth:`aclose` it when done.
    """

    def __init__(
        self, client: _AsyncClient, *, clock: Clock = system_clock, prefix: str = ""
    ) -> None:
        from redis.asyncio.cluster import RedisCluster

        self._client = client
        self._cluster = isinstance(client, RedisCluster)
        self._clock = clock
        self._layout = _Layout(prefix)
        self.backend_errors: tuple[type[BaseException], ...] = backend_errors()
        self._shown = f"AsyncRedisStore(prefix={prefix!r})"
        self._options: RedisOptions | None = None  # known when built from a URL
        self._blocking_twin: RedisStore | None = None
        self._wait: _ReplicaWait | None = None  # wait_replicas of the URL

    @classmethod
    def from_url(cls, url: str, *, clock: Clock = system_clock) -> AsyncRedisStore:
        """As :meth:`RedisStore.from_url`."""
        options = RedisOptions.parse(url)
        _import_redis()
        store = cls(_async_client(options), clock=clock, prefix=options.prefix)
        store._shown = f"AsyncRedisStore({options.shown()!r})"
        store._options = options
        store._wait = _ReplicaWait.of(options)
        return store

    def blocking_twin(self) -> RedisStore:
        """This store without ``await``: a :class:`RedisStore` on the same URL, clock and
        prefix (one per store, connecting at its first call), closed by :meth:`aclose`.

        Raises:
            TypeError: the store was built from a client object, not a URL.
        """
        if self._blocking_twin is None:
            options = _twin_options(self._options, "AsyncRedisStore")
            twin = RedisStore(
                clock=self._clock, prefix=options.prefix, connect=lambda: _sync_client(options)
            )
            twin._shown = f"RedisStore({options.shown()!r})"
            twin._options = options
            twin._wait = _ReplicaWait.of(options)
            self._blocking_twin = twin
        return self._blocking_twin

    def __repr__(self) -> str:
        return self._shown

    async def aclose(self) -> None:
        """Close the pool's connections (and those of the :meth:`blocking_twin`, if made)."""
        await self._client.aclose()
        for sentinel in _sentinels_of(self._client):
            await sentinel.aclose()
        if self._blocking_twin is not None:
            self._blocking_twin.close()

    @_replies_checked_async
    async def get(self, key: str) -> bytes | None:
        raw: bytes | None = await self._client.get(self._layout.key(key))  # type: ignore[assignment]
        return self._layout.decode(raw, self._clock(), key)

    @_replies_checked_async
    async def set(self, key: str, value: bytes, *, expires_at: float) -> None:
        now = self._clock()
        encoded = self._layout.encode(_new_token(), value, expires_at)
        redis_key = self._layout.key(key)
        ttl = self._layout.ttl_ms(expires_at, now)
        await self._write(redis_key, "SET", redis_key, encoded, "PX", ttl)

    @_replies_checked_async
    async def delete(self, key: str) -> None:
        redis_key = self._layout.key(key)
        await self._write(redis_key, "DEL", redis_key)

    async def _write(self, redis_key: str, *command: Any) -> Any:
        """As :meth:`RedisStore._write`."""
        if self._wait is None:
            return await self._client.execute_command(*command)
        route: dict[str, Any] = {}
        if self._cluster:
            # The client learns the map of slots at its first command; this may be it.
            cluster: redis.asyncio.cluster.RedisCluster = self._client  # type: ignore[assignment]
            await cluster.initialize()
            route["target_nodes"] = cluster.get_node_from_key(redis_key)
        pipe = self._client.pipeline(transaction=False)
        pipe.execute_command(*command, **route)
        pipe.execute_command(*self._wait.command(), **route)
        return self._wait.check(await pipe.execute(raise_on_error=False))

    @_replies_checked_async
    async def update(self, key: str, mutate: Callable[[bytes | None, float], StoreWrite[T]]) -> T:
        plan = _update_plan(self._layout, self._clock, [key], _single(key, mutate), None)
        return await self._run(plan)

    @_replies_checked_async
    async def update_many(
        self,
        keys: Sequence[str],
        mutate: Callable[[Sequence[bytes | None], float], StoreCommit[T]],
        *,
        reads: StoreReads | None = None,
    ) -> T:
        return await self._run(_update_plan(self._layout, self._clock, keys, mutate, reads))

    @_replies_checked_async
    async def admit(
        self, key: str, *, limit: int, window_seconds: float, read: Sequence[str] = ()
    ) -> Admission:
        plan = _admit_plan(
            self._layout, self._clock, key, limit, window_seconds, read, cluster=self._cluster
        )
        return await self._run(plan)

    async def _eval_written(self, step: _Eval) -> Any:
        """As :meth:`RedisStore._eval_written`."""
        command = ("EVALSHA", step.script.sha, len(step.keys), *step.keys, *step.args)
        try:
            return await self._write(step.keys[0], *command)
        except Exception as error:
            if not _is_no_script(error):
                raise
        await self._client.script_load(step.script.source)
        return await self._write(step.keys[0], *command)

    async def _eval(
        self, script: _Script, keys: Sequence[str], args: Sequence[bytes | str | int]
    ) -> Any:
        try:
            return await self._client.evalsha(script.sha, len(keys), *keys, *args)
        except Exception as error:
            if not _is_no_script(error):
                raise
        await self._client.script_load(script.source)
        return await self._client.evalsha(script.sha, len(keys), *keys, *args)

    async def _beside(self, step: _Beside) -> tuple[Any, Any]:
        for _ in range(2):
            pipe = self._client.pipeline(transaction=False)  # as in RedisStore._beside
            pipe.execute_command("EVALSHA", step.script.sha, 1, step.key, *step.args)
            if step.read:
                pipe.execute_command("MGET", *step.read)
            replies = await pipe.execute(raise_on_error=False)
            if _is_no_script(replies[0]):
                await self._client.script_load(step.script.source)
                continue
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            return replies[0], replies[1] if step.read else None
        raise RuntimeError("the script could not be loaded")  # pragma: no cover

    async def _run(self, plan: _Plan[T]) -> T:
        answer: Any = None
        try:
            while True:
                step = plan.send(answer)
                if isinstance(step, _Read):
                    answer = await self._client.mget(step.keys)
                elif isinstance(step, _Eval):
                    if step.write and self._wait is not None:
                        answer = await self._eval_written(step)
                    else:
                        answer = await self._eval(step.script, step.keys, step.args)
                elif isinstance(step, _Beside):
                    answer = await self._beside(step)
                else:
                    await asyncio.sleep(step.seconds)
                    answer = None
        except StopIteration as done:
            result: T = done.value
            return result


# --- the decision log -----------------------------------------------------------------------

DEFAULT_STREAM = "govcore:decisions"
DEFAULT_STREAM_MAXLEN = 1_000_000
_MOST_STREAM_MAXLEN = 1_000_000_000


class RedisDecisionLogSettings(SettingsSection):
    """The Redis decision log's own key of ``settings:``; setting it chooses the log."""

    decision_log_stream: Annotated[str | None, Field(min_length=1, repr=False)] = None
    """Append decisions to a Redis stream instead of keeping them in memory: a ``redis://``,
    ``rediss://`` or ``redis+sentinel://`` URL with optional ``stream`` (the stream's key, default
    ``govcore:decisions``) and ``maxlen`` (trimmed to about that many entries, default
    1000000) parameters; needs ``govcore[redis]``. Not together with ``decision_log_path``.
    Kept out of ``repr``: a URL may hold a password."""


class RedisDecisionLog:
    """Appends each decision (its JSON line, field ``decision``) to a Redis stream (decision
    log ``stream``).

    The stream is trimmed to about ``maxlen`` entries (``XADD ... MAXLEN ~``), so it never
    grows without bound. Recording is a network call, so the sink is ``blocking``: the
    decision queue's background thread delivers to it, never a check.

    Built from ``settings.decision_log_stream``: a ``redis://`` or ``rediss://`` URL with the
    connection parameters of :class:`RedisOptions` (``prefix`` aside; ``cluster=true`` for a
    Redis Cluster, where the stream is one key on one node) plus ``stream`` (the stream's key,
    default ``govcore:decisions``) and ``maxlen`` (default 1000000).

    Args:
        client: a ``redis.Redis`` or ``redis.cluster.RedisCluster``;
        connect: instead of ``client``, a function that builds one at the first record.
    """

    blocking = True
    settings_model: ClassVar[type[SettingsSection]] = RedisDecisionLogSettings

    def __init__(
        self,
        client: _SyncClient | None = None,
        *,
        stream: str,
        maxlen: int,
        connect: Callable[[], _SyncClient] | None = None,
    ) -> None:
        self._connector = _given(client, connect)
        self.stream = stream
        self.maxlen = maxlen

    @classmethod
    def from_url(cls, url: str) -> RedisDecisionLog:
        """A sink from a URL (see the class).

        Raises:
            ValueError: a malformed URL or parameter (never quoting a credential).
        """
        options = RedisOptions.parse(url, extra=frozenset({"stream", "maxlen"}))
        _import_redis()
        stream = options.extra.get("stream", DEFAULT_STREAM)
        if not stream:
            raise ValueError("parameter 'stream' must not be empty")
        maxlen = _whole(options.extra, "maxlen", DEFAULT_STREAM_MAXLEN, 1, _MOST_STREAM_MAXLEN)
        return cls(stream=stream, maxlen=maxlen, connect=lambda: _sync_client(options))

    @classmethod
    def from_settings(cls, settings: GovernanceSettings) -> RedisDecisionLog:
        """A sink on the stream ``settings.decision_log_stream`` names (see :meth:`from_url`).

        Raises:
            ValueError: the setting is not set, or its URL is refused (never quoting a
                credential).
        """
        url = settings.section(RedisDecisionLogSettings).decision_log_stream
        if url is None:
            raise ValueError("decision_log_stream is not set")
        return cls.from_url(url)

    def __repr__(self) -> str:
        return f"RedisDecisionLog(stream={self.stream!r}, maxlen={self.maxlen})"

    def record(self, decision: Decision) -> None:
        self._connector.client().xadd(
            self.stream, {"decision": decision.to_json()}, maxlen=self.maxlen, approximate=True
        )

    def close(self) -> None:
        """Close the pool's connections."""
        self._connector.close()
