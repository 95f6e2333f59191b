"""Throwaway Redis for tests: a ``redis-server`` on a free port (:class:`RedisServer`), a
Redis Cluster of a few of them (:class:`RedisCluster`), or a primary with replicas watched by
Redis Sentinel (:class:`RedisSentinel`), stopped, killed and restarted at will."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

__all__ = ["RedisCluster", "RedisSentinel", "RedisServer", "RedisServerError"]


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
        arguments: further ``redis-server`` options (for example ``--cluster-enabled yes``).
        port: the port to listen on (default: a free one).
    """

    def __init__(
        self,
        executable: str | None = None,
        *,
        persistent: bool = False,
        startup_timeout: float = 10.0,
        arguments: Sequence[str] = (),
        port: int | None = None,
    ) -> None:
        found = executable or shutil.which("redis-server")
        if found is None:
            raise RedisServerError("no redis-server on PATH")
        self.executable = found
        self.persistent = persistent
        self.startup_timeout = startup_timeout
        self.arguments = tuple(arguments)
        self.port = port if port is not None else _free_port()
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
        command = self._command_line()
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
        if _process_id(self.port) != self._process.pid:
            # Another server already listened on the port: it answered the PING, and this one,
            # unable to bind, is exiting. Commands meant for this server would reach that one.
            self.stop()
            raise _PortTakenError(f"port {self.port} is answered by another redis-server")
        return self

    def _command_line(self) -> list[str]:
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always"]
            if self.persistent
            else ["--appendonly", "no"]
        )
        return [
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
            *self.arguments,
        ]

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


CLUSTER_SLOTS = 16384
"""Hash slots of a Redis Cluster."""
_BUS_PORT_OFFSET = 10000  # a cluster node also listens on its port + 10000 (the cluster bus)


class RedisCluster:
    """A Redis Cluster of ``redis-server`` primaries from ``PATH``, optionally with replicas,
    without persistence.

    Each node is a :class:`RedisServer` started with ``--cluster-enabled yes``; the slots are
    split into equal ranges, one per node (``CLUSTER ADDSLOTS``), and the nodes are introduced to
    each other (``CLUSTER MEET``), which is what ``redis-cli --cluster create`` does, without
    needing ``redis-cli``. :meth:`start` returns once every node reports ``cluster_state:ok``.
    A node's :meth:`RedisServer.restart` keeps its slots (its cluster configuration file stays)
    and loses its data. With ``replicas``, each primary gets that many replicas
    (``CLUSTER REPLICATE``), and a primary that stops answering for ``node_timeout_ms`` is
    replaced by one of them (a failover); :meth:`start` then also waits until every replica
    holds a copy of its primary.

    Args:
        executable: the ``redis-server`` binary (default: found on ``PATH``).
        primaries: how many nodes share the slots (at least 1).
        replicas: replicas of each primary (default none).
        node_timeout_ms: ``cluster-node-timeout``: how long a node may be unreachable before the
            others declare it failed (and, without replicas, the cluster down).
        startup_timeout: seconds to wait for each node to answer, and for the cluster to form.
    """

    def __init__(
        self,
        executable: str | None = None,
        *,
        primaries: int = 3,
        replicas: int = 0,
        node_timeout_ms: int = 5000,
        startup_timeout: float = 20.0,
    ) -> None:
        if primaries < 1:
            raise ValueError("a Redis Cluster needs at least one primary")
        self.startup_timeout = startup_timeout
        arguments = (
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            str(node_timeout_ms),
            # A replica's first copy starts at once, not after the default 5 s wait.
            "--repl-diskless-sync-delay",
            "0",
        )

        self._taken: set[int] = set()  # the ports and bus ports handed to the nodes

        def node() -> RedisServer:
            return RedisServer(
                executable,
                startup_timeout=startup_timeout,
                port=_free_cluster_port(self._taken),
                arguments=arguments,
            )

        self.nodes = [node() for _ in range(primaries)]
        """The nodes that first served the slots, in the order of their slot ranges."""
        self.replicas = [[node() for _ in range(replicas)] for _ in range(primaries)]
        """The replicas that first followed each of :attr:`nodes`."""
        self._formed = False

    def every_node(self) -> list[RedisServer]:
        """The first primaries, then every replica."""
        return [*self.nodes, *(replica for group in self.replicas for replica in group)]

    def server_on(self, port: int) -> RedisServer:
        """The node listening on ``port``."""
        for server in self.every_node():
            if server.port == port:
                return server
        raise KeyError(port)

    @property
    def ports(self) -> list[int]:
        """The nodes' ports, in the order of their slot ranges."""
        return [node.port for node in self.nodes]

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:<first node's port>?cluster=true``: a seed node; the client
        discovers the others."""
        return f"redis://127.0.0.1:{self.nodes[0].port}?cluster=true"

    def start(self) -> RedisCluster:
        """Start every node, form the cluster (the first time), and wait until it is ``ok``."""
        try:
            for node in self.every_node():
                self._start_node(node)
            if not self._formed:
                self._form()
                self._formed = True
            self.wait_until_ok()
            self._wait_until_copied()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_node(self, node: RedisServer) -> None:
        for _ in range(3):
            try:
                node.start()
                return
            except _PortTakenError:
                if self._formed:  # the cluster knows its nodes by port: no other port now
                    raise
                node.port = _free_cluster_port(self._taken)
        node.start()

    def _form(self) -> None:
        count = len(self.nodes)
        for index, node in enumerate(self.nodes):
            first = index * CLUSTER_SLOTS // count
            last = (index + 1) * CLUSTER_SLOTS // count
            _command(node.port, "CLUSTER", "ADDSLOTS", *map(str, range(first, last)))
        for node in self.every_node()[1:]:
            _command(self.nodes[0].port, "CLUSTER", "MEET", "127.0.0.1", str(node.port))
        deadline = time.monotonic() + self.startup_timeout
        for primary, group in zip(self.nodes, self.replicas, strict=True):
            primary_id = _command(primary.port, "CLUSTER", "MYID").decode()
            for replica in group:
                while True:  # until the replica has heard of the primary (gossip)
                    try:
                        _command(replica.port, "CLUSTER", "REPLICATE", primary_id)
                        break
                    except RedisServerError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.05)

    def _wait_until_copied(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        for group in self.replicas:
            for replica in group:
                while b"master_link_status:up" not in _command(replica.port, "INFO", "replication"):
                    if time.monotonic() > deadline:
                        raise RedisServerError(f"the replica on {replica.port} did not sync")
                    time.sleep(0.05)

    def wait_until_ok(self) -> None:
        """Return once every node answers ``cluster_state:ok`` (raise after the timeout)."""
        deadline = time.monotonic() + self.startup_timeout
        while not all(self.state(node.port) == "ok" for node in self.every_node()):
            if time.monotonic() > deadline:
                raise RedisServerError(f"the Redis Cluster on ports {self.ports} did not form")
            time.sleep(0.05)

    @staticmethod
    def state(port: int) -> str:
        """The ``cluster_state`` a node reports (``ok``, ``fail``), or ``down`` when unreachable."""
        try:
            info = _command(port, "CLUSTER", "INFO").decode()
        except (OSError, RedisServerError):
            return "down"
        for line in info.splitlines():
            if line.startswith("cluster_state:"):
                return line.split(":", 1)[1].strip()
        return "unknown"

    def stop(self) -> None:
        """Stop every node (their configuration files stay: :meth:`start` brings them back)."""
        for node in self.every_node():
            node.stop()

    def close(self) -> None:
        """Stop every node and remove their directories."""
        for node in self.every_node():
            node.close()

    def __enter__(self) -> RedisCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class _SentinelProcess(RedisServer):
    """One sentinel: ``redis-server <its configuration file> --sentinel`` (a sentinel rewrites
    that file as it learns the deployment, so each has its own, in its own directory)."""

    def __init__(
        self, executable: str | None, *, service_name: str, primary_port: int, timing: str
    ) -> None:
        super().__init__(executable)
        self._configuration = "\n".join(
            [
                f"port {self.port}",
                "bind 127.0.0.1",
                f"dir {self._directory.name}",
                f"sentinel monitor {service_name} 127.0.0.1 {primary_port} 2",
                timing,
                "",
            ]
        )

    def _command_line(self) -> list[str]:
        path = Path(self._directory.name, "sentinel.conf")
        if not path.exists():  # a restarted sentinel keeps what it has learned
            path.write_text(self._configuration, encoding="utf-8")
        return [self.executable, str(path), "--sentinel", "--loglevel", "warning"]


class RedisSentinel:
    """A primary, its replicas and three sentinels watching them, each a process from ``PATH``
    (``redis-server``, the sentinels as ``redis-server --sentinel``), without persistence.

    :meth:`start` returns once every sentinel knows the primary, every replica and the other
    sentinels, so that killing the primary is followed by a failover. :meth:`primary_port`
    asks a sentinel which server is the primary now.

    Args:
        executable: the ``redis-server`` binary (default: found on ``PATH``).
        service_name: the name the sentinels know the primary by.
        replicas: how many replicas follow the primary (at least 1).
        down_after_ms: how long the primary may not answer before a sentinel thinks it down
            (two of the three must agree, the quorum, before one of them fails it over).
        failover_timeout_ms: Sentinel's ``failover-timeout``: among others, how long before a
            failed failover is tried again.
        startup_timeout: seconds to wait for each process, and for the sentinels to meet.
    """

    def __init__(
        self,
        executable: str | None = None,
        *,
        service_name: str = "govcore",
        replicas: int = 1,
        down_after_ms: int = 1000,
        failover_timeout_ms: int = 3000,
        startup_timeout: float = 30.0,
    ) -> None:
        if replicas < 1:
            raise ValueError("a Sentinel deployment needs at least one replica to fail over to")
        self.service_name = service_name
        self.startup_timeout = startup_timeout
        # Without the default 5 s wait before a full copy to a replica starts (in case more
        # replicas ask at once), a replica holds the primary's data as soon as it is started.
        # Every server gets it: a replica becomes the primary of the others after a failover.
        at_once = ("--repl-diskless-sync-delay", "0")
        self.primary = RedisServer(executable, startup_timeout=startup_timeout, arguments=at_once)
        follow = (*at_once, "--replicaof", "127.0.0.1", str(self.primary.port))
        self.replicas = [
            RedisServer(executable, startup_timeout=startup_timeout, arguments=follow)
            for _ in range(replicas)
        ]
        timing = "\n".join(
            [
                f"sentinel down-after-milliseconds {service_name} {down_after_ms}",
                f"sentinel failover-timeout {service_name} {failover_timeout_ms}",
                f"sentinel parallel-syncs {service_name} 1",
            ]
        )
        self.sentinels: list[RedisServer] = [
            _SentinelProcess(
                executable,
                service_name=service_name,
                primary_port=self.primary.port,
                timing=timing,
            )
            for _ in range(3)
        ]

    @property
    def servers(self) -> list[RedisServer]:
        """The data servers: the first primary, then the replicas (roles change on failover)."""
        return [self.primary, *self.replicas]

    @property
    def url(self) -> str:
        """``redis+sentinel://127.0.0.1:<port>,.../<service name>/0``."""
        hosts = ",".join(f"127.0.0.1:{sentinel.port}" for sentinel in self.sentinels)
        return f"redis+sentinel://{hosts}/{self.service_name}/0"

    def start(self) -> RedisSentinel:
        """Start every process and wait until the sentinels know the whole deployment."""
        try:
            for server in [*self.servers, *self.sentinels]:
                server.start()
            self.wait_until_watched()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_until_watched(self) -> None:
        """Return once every replica holds a copy of the primary and every sentinel knows the
        primary, every replica and the two other sentinels (raise after the timeout)."""
        deadline = time.monotonic() + self.startup_timeout
        while not self._watched():
            if time.monotonic() > deadline:
                raise RedisServerError("the sentinels did not learn the deployment in time")
            time.sleep(0.05)

    def _watched(self) -> bool:
        for replica in self.replicas:
            try:
                info = _command(replica.port, "INFO", "replication")
            except (OSError, RedisServerError):
                return False
            if b"master_link_status:up" not in info:
                return False  # not yet a copy of the primary
        for sentinel in self.sentinels:
            try:
                state = _fields(_array(sentinel.port, "SENTINEL", "MASTER", self.service_name))
            except (OSError, RedisServerError):
                return False
            if int(state.get("num-slaves", "0")) < len(self.replicas):
                return False
            if int(state.get("num-other-sentinels", "0")) < len(self.sentinels) - 1:
                return False
            if "s_down" in state.get("flags", "") or "o_down" in state.get("flags", ""):
                return False
        return True

    def primary_port(self) -> int | None:
        """The port of the server a sentinel names as the primary now (``None`` when no
        sentinel answers)."""
        for sentinel in self.sentinels:
            try:
                address = _array(
                    sentinel.port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.service_name
                )
            except (OSError, RedisServerError):
                continue
            if len(address) == 2:
                return int(address[1])
        return None

    def server_on(self, port: int) -> RedisServer:
        """The data server listening on ``port``."""
        for server in self.servers:
            if server.port == port:
                return server
        raise KeyError(port)

    def stop(self) -> None:
        """Stop every process."""
        for process in [*self.sentinels, *self.servers]:
            process.stop()

    def close(self) -> None:
        """Stop every process and remove their directories."""
        for process in [*self.sentinels, *self.servers]:
            process.close()

    def __enter__(self) -> RedisSentinel:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _fields(flat: list[bytes]) -> dict[str, str]:
    """A flat ``[name, value, name, value, ...]`` reply as a mapping."""
    texts = [item.decode() for item in flat]
    return dict(zip(texts[::2], texts[1::2], strict=True))


def _array(port: int, *parts: str, timeout: float = 2.0) -> list[bytes]:
    """Send one command whose reply is an array of bulk strings (``SENTINEL MASTER``); its
    items, raw (a nil array is empty). An error reply raises :class:`RedisServerError`."""
    request = f"*{len(parts)}\r\n".encode() + b"".join(
        f"${len(part.encode())}\r\n".encode() + part.encode() + b"\r\n" for part in parts
    )
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(request)
        received = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                raise RedisServerError(f"the server on port {port} closed the connection")
            received += chunk
            items = _read_array(received, port)
            if items is not None:
                return items


def _read_array(received: bytes, port: int) -> list[bytes] | None:
    """The items of the array reply in ``received``, or ``None`` while it is incomplete."""
    header, separator, rest = received.partition(b"\r\n")
    if not separator:
        return None
    if header.startswith(b"-"):
        raise RedisServerError(f"port {port} answered {header[1:]!r}")
    if not header.startswith(b"*"):
        raise RedisServerError(f"an unexpected reply from port {port}: {header[:40]!r}")
    count = int(header[1:])
    items: list[bytes] = []
    for _ in range(max(count, 0)):
        line, separator, rest = rest.partition(b"\r\n")
        if not separator:
            return None
        if line.startswith(b"$"):
            length = int(line[1:])
            if len(rest) < length + 2:
                return None
            items.append(rest[:length])
            rest = rest[length + 2 :]
        elif line[:1] in (b"+", b":"):
            items.append(line[1:])
        else:  # a nested array (SENTINEL MASTER has none) is not read here
            raise RedisServerError(f"an unexpected item in a reply from port {port}")
    return items


class _PortTakenError(RedisServerError):
    """Another server answers on the port a server was to start on."""


def _free_cluster_port(taken: set[int]) -> int:
    """A free port whose cluster bus port (port + 10000) is free too, neither of them one of
    ``taken`` (the other nodes' ports and bus ports, which it joins): a port a probe has just
    freed can be handed out again at once, and two nodes on one port make one server answer
    for both."""
    for _ in range(100):
        port = _free_port()
        if port + _BUS_PORT_OFFSET > 65535 or {port, port + _BUS_PORT_OFFSET} & taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port + _BUS_PORT_OFFSET))
            except OSError:
                continue
        taken.update((port, port + _BUS_PORT_OFFSET))
        return port
    raise RedisServerError("found no free port pair for a cluster node")


def _process_id(port: int) -> int | None:
    """The process id of the server answering on ``port`` (``INFO server``), if it says."""
    for line in _command(port, "INFO", "server").splitlines():
        if line.startswith(b"process_id:"):
            return int(line.split(b":", 1)[1])
    return None


def _command(port: int, *parts: str, timeout: float = 2.0) -> bytes:
    """Send one command to the server on ``port``; its reply (a simple string, an integer or a
    bulk string), raw. An error reply raises :class:`RedisServerError`."""
    request = f"*{len(parts)}\r\n".encode() + b"".join(
        f"${len(part.encode())}\r\n".encode() + part.encode() + b"\r\n" for part in parts
    )
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(request)
        received = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                raise RedisServerError(f"the server on port {port} closed the connection")
            received += chunk
            header, separator, rest = received.partition(b"\r\n")
            if not separator:
                continue
            kind, value = header[:1], header[1:]
            if kind == b"-":
                raise RedisServerError(
                    f"{parts[0]} {parts[1] if len(parts) > 1 else ''}: {value!r}"
                )
            if kind in (b"+", b":"):
                return value
            if kind == b"$":
                length = int(value)
                if length < 0:
                    return b""
                if len(rest) >= length + 2:
                    return rest[:length]
                continue
            raise RedisServerError(f"an unexpected reply from port {port}: {header!r}")
