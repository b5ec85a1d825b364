"""Following logs: one XREAD BLOCK loop per process over every followed table at once.

``Follower.follow(table, head)`` yields each entry after ``head`` exactly once and in order,
whoever appended it.  The loop reads new entries of all followed streams with one blocking
XREAD on its own connection; a per-process wake stream interrupts the wait when a table is
added.  Each subscription checks that entries chain from what it has seen and fills any gap from
the log itself, so a subscriber that joins late or lags behind loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, redis_errors
from echoridge.store.entries import Entry, Head, decode, version_of
from echoridge.store.errors import StoreUnavailable, TableDamaged
from echoridge.store.log import EventStore, _fields
from echoridge.tasks import cancel_and_wait

BLOCK_MS = 5000
PAUSE_PER_STREAM = 0.0001  # seconds between two XREADs that found entries, per followed stream
PAUSE_MAX = 0.02  # ... at most (what an append by another node may wait more, at worst)
PAUSE_OWN_MAX = 0.1  # ... while XREADs bring back only this process's own appends
BATCH = 500  # entries per stream per XREAD
RETRY = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)  # seconds between attempts while Redis is down


@dataclass
class _Cursor:
    """Where the loop stands in one table's log: the last entry it has read and verified."""

    head: Head
    subscribers: set[_Subscription] = field(default_factory=set)


class _Subscription:
    def __init__(self, table: str, head: Head) -> None:
        self.table = table
        self.head = head
        self.queue: asyncio.Queue[Entry | BaseException] = asyncio.Queue()


class Follower:
    """The process's reader of every followed log."""

    def __init__(self, store: EventStore, reader: Redis, block_ms: int = BLOCK_MS) -> None:
        self._store = store
        self._reader = reader  # a connection of its own: XREAD BLOCK holds it
        self._block_ms = block_ms
        self._cursors: dict[str, _Cursor] = {}
        self._appending: dict[str, int] = {}  # table -> this process's appends in flight
        self._wake_key = f"er:wake:{uuid.uuid4().hex}"
        self._wake_id = "0-0"
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        if self._task is None:
            self._stopping = False
            self._task = asyncio.create_task(self._loop(), name="log-follower")

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        with contextlib.suppress(Exception):
            await self._store.redis.delete(self._wake_key)

    async def __aenter__(self) -> Follower:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def follow(self, table: str, head: Head) -> AsyncIterator[Entry]:
        """Every entry after ``head``, once and in order, until the caller stops iterating."""
        sub = _Subscription(table, head)
        cursor = self._cursors.get(table)
        if cursor is None:
            cursor = self._cursors[table] = _Cursor(head)
            await self._wake()
        cursor.subscribers.add(sub)
        try:
            # Anything appended between the caller's head and the loop's position.
            for entry in await self._store.load(table, sub.head):
                sub.head = entry.head
                yield entry
            while True:
                item = await sub.queue.get()
                if isinstance(item, BaseException):
                    raise item
                if item.version <= sub.head.version:
                    continue  # seen already (delivered by the catch-up load)
                if item.version > sub.head.version + 1 or item.previous != sub.head.hash:
                    for entry in await self._store.load(table, sub.head):
                        sub.head = entry.head
                        yield entry
                    continue
                sub.head = item.head
                yield item
        finally:
            cursor.subscribers.discard(sub)
            if not cursor.subscribers and self._cursors.get(table) is cursor:
                del self._cursors[table]

    async def _wake(self) -> None:
        async with redis_errors("waking the log follower"):
            await self._store.redis.xadd(self._wake_key, {"w": 1}, maxlen=1, approximate=False)

    async def _loop(self) -> None:
        failures = 0
        own = 0  # XREADs in a row that brought back only this process's own appends
        while not self._stopping:
            streams: dict[Any, Any] = {self._wake_key: self._wake_id}
            for table, cursor in self._cursors.items():
                streams[keys.log(table)] = f"0-{cursor.head.version}"
            try:
                async with redis_errors("following logs"):
                    reply = await self._reader.xread(streams, count=BATCH, block=self._block_ms)
                failures = 0
            except StoreUnavailable:
                await asyncio.sleep(RETRY[min(failures, len(RETRY) - 1)])
                failures += 1
                continue
            got = _streams(reply)
            fresh = 0  # entries this process had not appended itself
            for key, rows in got:
                name = key.decode() if isinstance(key, bytes) else key
                if name == self._wake_key:
                    self._wake_id = rows[-1][0]
                    fresh += 1
                    continue
                fresh += self._deliver(keys.table_of_log(name), rows)
            own = own + 1 if got and not fresh else 0
            if got and self._cursors:
                # An XREAD costs (here and in Redis) in proportion to the streams it names; on a
                # busy node, let a few milliseconds of appends gather before the next one, and
                # longer while every XREAD brings back only this process's own appends (which
                # it has delivered already): the first append of another process ends that.
                pause = min(PAUSE_MAX, PAUSE_PER_STREAM * len(self._cursors))
                await asyncio.sleep(min(PAUSE_OWN_MAX, pause * 2 ** min(own, 3)))

    @contextlib.contextmanager
    def appending(self, table: str) -> Iterator[None]:
        """Around this process's own append to ``table``: an entry the loop reads meanwhile is
        (most likely) that append, racing its reply, so it does not count as another process's
        (the loop's pause, see ``_loop``); it is delivered all the same."""
        self._appending[table] = self._appending.get(table, 0) + 1
        try:
            yield
        finally:
            left = self._appending[table] - 1
            if left:
                self._appending[table] = left
            else:
                del self._appending[table]

    def appended(self, entry: Entry, table: str) -> None:
        """This process appended ``entry`` to ``table``'s log itself: take it as read, so the
        loop neither reads it back from Redis nor decodes it again (the next XREAD starts after
        it).  Ignored unless it is the next entry of a followed table."""
        cursor = self._cursors.get(table)
        if (
            cursor is None
            or entry.version != cursor.head.version + 1
            or entry.previous != cursor.head.hash
        ):
            return
        cursor.head = entry.head
        for sub in cursor.subscribers:
            sub.queue.put_nowait(entry)

    def _deliver(self, table: str, rows: list[Any]) -> int:
        """Hand the entries the subscribers have not had to them; how many of them no append
        of this process may have made."""
        cursor = self._cursors.get(table)
        if cursor is None:
            return 0
        fresh = 0
        for stream_id, raw in rows:
            version = version_of(stream_id)
            if version <= cursor.head.version:
                continue
            entry = None
            if version == cursor.head.version + 1:
                entry = decode(version, _fields(raw), cursor.head.hash)
            if entry is None:
                damage = TableDamaged(table, version, "the log does not chain")
                for sub in cursor.subscribers:
                    sub.queue.put_nowait(damage)
                del self._cursors[table]
                return fresh + 1
            cursor.head = entry.head
            fresh += table not in self._appending
            for sub in cursor.subscribers:
                sub.queue.put_nowait(entry)
        return fresh


def _streams(reply: Any) -> list[tuple[Any, list[Any]]]:
    """XREAD's reply as [(stream, rows)], whether it came as a map or a list."""
    if not reply:
        return []
    items = reply.items() if isinstance(reply, dict) else reply
    return [(k, list(v)) for k, v in items]
