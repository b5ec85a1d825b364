"""Following streams on a Redis Cluster: ``ClusterFollower`` (the logs; ``Follower`` of
follow.py) and ``ClusterChatFollower`` (the chat; ``ChatFollower`` of chat.py), for a store whose
tables live on many primaries.

On one Redis each follower blocks in one XREAD over every followed stream.  A cluster refuses
that: the keys of one command must share a slot, and each table has its own (``{table}``).  So
here the waiting and the reading are apart:

- **Knowing** (``KeyEvents``).  Every node publishes a keyspace event for each XADD it runs
  (``notify-keyspace-events`` with ``E`` and ``t``, which ``enable_events`` sets on every node,
  replicas included, so that a promoted one publishes too).  A listener per primary, on a
  connection of its own whose socket timeout is above its ping interval, subscribes to
  ``__keyevent@0__:xadd`` and marks each followed table it hears of.
- **Reading** (``Marked``).  One reader sends, for the marked tables, one XREAD each (of one
  table's streams: one slot) in a cluster pipeline, one round trip per primary; redis-py
  follows MOVED and ASK.  The log follower's entries go through ``Follower._deliver``, which
  checks the chain and fills gaps as on one Redis.
- **Not missing anything.**  A notification is fire-and-forget: one sent while a listener was
  (re)connecting, or by a primary that failed over, is lost.  So a table is read once when it
  is first followed, every followed table is read when a listener (re)subscribes, and all of
  them every ``SWEEP_SECONDS`` regardless.
- **Topology.**  Every ``TOPOLOGY_SECONDS`` the slot map is read again; a listener starts for a
  new primary (a promoted replica, a node added) and stops for one that is no longer a primary.
  A listener whose node dies or stops answering ends, and the next round starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.cluster import ClusterPipeline, RedisCluster

from echoridge.store import keys
from echoridge.store.chat import BATCH as CHAT_BATCH
from echoridge.store.chat import CHANNELS, ChatFollower, OnLines, _channel_of, _text
from echoridge.store.chat import key as chat_key
from echoridge.store.connection import redis_errors
from echoridge.store.errors import StoreUnavailable
from echoridge.store.follow import BATCH, RETRY, Follower, _streams
from echoridge.store.log import EventStore
from echoridge.tasks import cancel_and_wait

XADD_EVENTS = "__keyevent@0__:xadd"
TOPOLOGY_SECONDS = 2.0  # between two readings of the slot map
SWEEP_SECONDS = 5.0  # between two reads of every followed table (lost notifications)
PING_SECONDS = 5.0  # a listener pings its node when it heard nothing this long
LISTEN_TIMEOUT = 15.0  # the listener's socket timeout (above PING_SECONDS): a dead node ends it


async def enable_events(cluster: RedisCluster) -> None:
    """Make every node publish XADD keyspace events (``E`` and ``t`` added to what its
    ``notify-keyspace-events`` has); a node that refuses CONFIG says what to set by hand."""
    for node in cluster.get_nodes():
        async with redis_errors("enabling keyspace events"):
            try:
                reply = await cluster.config_get("notify-keyspace-events", target_nodes=node)
                flags = _text(next(iter(reply.values()), "")) if isinstance(reply, dict) else ""
                if "A" in flags or ("t" in flags and "E" in flags):
                    continue
                wanted = "".join(sorted(set(flags) | {"E", "t"}))
                await cluster.config_set("notify-keyspace-events", wanted, target_nodes=node)
            except rexc.ResponseError as exc:
                raise StoreUnavailable(
                    f"cannot enable keyspace events on {node.name} ({exc}): set "
                    "notify-keyspace-events to include E and t (for example Et) on every node"
                ) from exc


class KeyEvents:
    """A listener on every primary of ``cluster``: ``on_key(name)`` for each key XADDed to,
    ``on_sweep()`` when a listener (re)subscribes and every ``SWEEP_SECONDS``."""

    def __init__(
        self, cluster: RedisCluster, on_key: Callable[[str], None], on_sweep: Callable[[], None]
    ) -> None:
        self._cluster = cluster
        self._on_key = on_key
        self._on_sweep = on_sweep
        self._listeners: dict[str, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None

    async def start(self, name: str) -> None:
        await enable_events(self._cluster)
        self._task = asyncio.create_task(self._loop(), name=name)

    async def stop(self) -> None:
        for task in (self._task, *self._listeners.values()):
            if task is not None:
                await cancel_and_wait(task)
        self._task = None
        self._listeners.clear()

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        swept = loop.time()
        while True:
            with contextlib.suppress(rexc.RedisError, OSError):
                await self._cluster.nodes_manager.initialize()
                self._keep_listeners()
            if loop.time() - swept >= SWEEP_SECONDS:
                swept = loop.time()
                self._on_sweep()
            await asyncio.sleep(TOPOLOGY_SECONDS)

    def _keep_listeners(self) -> None:
        primaries = {n.name: n for n in self._cluster.get_primaries()}
        for name, task in list(self._listeners.items()):
            if name not in primaries or task.done():
                task.cancel()
                del self._listeners[name]
        for name, node in primaries.items():
            if name not in self._listeners:
                self._listeners[name] = asyncio.create_task(
                    self._listen(node.host, int(node.port)), name=f"xadd-listener {name}"
                )

    async def _listen(self, host: str, port: int) -> None:
        """Hear of every XADD on one primary until its connection fails (then this ends)."""
        conn = aioredis.Redis(
            host=host, port=port, socket_timeout=LISTEN_TIMEOUT, socket_connect_timeout=5
        )
        pubsub = conn.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(XADD_EVENTS)
            self._on_sweep()  # what was added before we listened
            while True:
                message = await pubsub.get_message(timeout=PING_SECONDS)
                if message is None:
                    await pubsub.ping()  # a frozen node times the socket out
                elif message.get("type") == "message":
                    self._on_key(_text(message.get("data")))
        except (rexc.RedisError, OSError):
            pass  # the node failed or moved: the next round of _loop starts a listener again
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            with contextlib.suppress(Exception):
                await conn.aclose()


class Marked:
    """Tables to read, and the task that reads them: ``queue(pipe, table)`` adds a table's
    XREAD to a cluster pipeline, ``take(table, reply)`` handles its reply and says whether more
    waits (a full batch)."""

    def __init__(
        self,
        cluster: RedisCluster,
        followed: Callable[[], Iterable[str]],
        queue: Callable[[ClusterPipeline, str], None],
        take: Callable[[str, Any], bool],
    ) -> None:
        self._cluster = cluster
        self._followed = followed
        self._queue = queue
        self._take = take
        self._tables: set[str] = set()
        self._now = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def mark(self, tables: Iterable[str]) -> None:
        self._tables.update(tables)
        if self._tables:
            self._now.set()

    def start(self, name: str) -> None:
        self._task = asyncio.create_task(self._read(), name=name)

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def _read(self) -> None:
        failures = 0
        while True:
            await self._now.wait()
            self._now.clear()
            followed = set(self._followed())
            tables = [t for t in self._tables if t in followed]
            self._tables.clear()
            if not tables:
                continue
            pipe = self._cluster.pipeline(transaction=False)
            for table in tables:
                self._queue(pipe, table)
            try:
                replies = await pipe.execute(raise_on_error=False)
                failures = 0
            except (rexc.RedisError, OSError):
                replies = [None] * len(tables)
            again = [
                t
                for t, reply in zip(tables, replies, strict=True)
                if reply is None or isinstance(reply, Exception) or self._take(t, reply)
            ]
            if any(r is None or isinstance(r, Exception) for r in replies):
                await asyncio.sleep(RETRY[min(failures, len(RETRY) - 1)])
                failures += 1
            self.mark(again)


class ClusterFollower(Follower):
    """The process's reader of every followed log, on a Redis Cluster."""

    def __init__(self, store: EventStore, cluster: RedisCluster) -> None:
        super().__init__(store, cluster)  # type: ignore[arg-type]  # (its reader is unused)
        self._known: set[str] = set()  # tables read at least once since followed
        self._marked = Marked(cluster, lambda: self._cursors, self._queue, self._take)
        self._events = KeyEvents(cluster, self._heard, lambda: self._marked.mark(self._cursors))
        self._running = False

    async def start(self) -> None:
        if not self._running:
            self._stopping = False
            await self._events.start("log-follower")
            self._marked.start("log-reader")
            self._running = True

    async def stop(self) -> None:
        self._stopping = True
        await self._events.stop()
        await self._marked.stop()
        self._running = False

    async def _wake(self) -> None:
        """A table was added: read it (and any other new one) at once."""
        new = self._cursors.keys() - self._known
        self._known = set(self._cursors)
        self._marked.mark(new)

    def _heard(self, name: str) -> None:
        if name.endswith(":log"):
            table = keys.table_of_log(name)
            if table in self._cursors:
                self._marked.mark((table,))

    def _queue(self, pipe: ClusterPipeline, table: str) -> None:
        pipe.xread({keys.log(table): f"0-{self._cursors[table].head.version}"}, count=BATCH)

    def _take(self, table: str, reply: Any) -> bool:
        more = False
        for _, rows in _streams(reply):
            self._deliver(table, rows)
            more = more or len(rows) >= BATCH
        return more


class ClusterChatFollower(ChatFollower):
    """The process's reader of the chat streams of the tables it follows, on a Redis Cluster."""

    def __init__(self, cluster: RedisCluster) -> None:
        super().__init__(cluster, cluster)  # type: ignore[arg-type]  # (no XREAD BLOCK here)
        self._marked = Marked(cluster, lambda: self._tables, self._queue, self._take_reply)
        self._events = KeyEvents(cluster, self._heard, lambda: self._marked.mark(self._tables))
        self._started = False

    def follow(self, table: str, after: dict[str, int], callback: OnLines) -> object:
        handle = self._add(table, after, callback)
        if not self._started and not self._stopping:
            self._started = True
            self._waking = asyncio.get_running_loop().create_task(self._start())
        self._marked.mark((table,))
        return handle

    async def _start(self) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self._events.start("chat-follower")
        self._marked.start("chat-reader")

    async def stop(self) -> None:
        self._stopping = True
        if self._waking is not None:
            await cancel_and_wait(self._waking)
        await self._events.stop()
        await self._marked.stop()

    def _heard(self, name: str) -> None:
        if ":chat:" in name:
            table, _ = _channel_of(name)
            if table in self._tables:
                self._marked.mark((table,))

    def _queue(self, pipe: ClusterPipeline, table: str) -> None:
        after = self._tables[table].after
        streams: dict[Any, Any] = {chat_key(table, c): f"0-{after.get(c, 0)}" for c in CHANNELS}
        pipe.xread(streams, count=CHAT_BATCH)  # (one table's channels share its slot)

    def _take_reply(self, table: str, reply: Any) -> bool:
        more = False
        for stream, rows in _streams(reply):
            self._take(_text(stream), rows)
            more = more or len(rows) >= CHAT_BATCH
        return more
