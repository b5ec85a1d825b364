"""A table's event log on a Redis Stream: append (one round trip), load, rebuild."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors
from echoridge.store.connection import text as _text
from echoridge.store.entries import (
    Entry,
    Head,
    NewEntry,
    chain,
    decode,
    encode,
    genesis,
    version_of,
)
from echoridge.store.errors import StoreUnavailable, TableDamaged, TableNotFound
from echoridge_rules import State, evolve

PAGE = 1000  # entries per XRANGE round trip while loading
ACK_TIMEOUT_MS = 1000  # how long an append waits for its replicas (--replica-acks)


@dataclass(frozen=True, slots=True)
class Appended:
    head: Head
    time: int = 0  # ms since the Unix epoch, by the Redis server's clock


@dataclass(frozen=True, slots=True)
class Conflict:
    """Another appender got there first: the log is at ``version``; catch up and decide again."""

    version: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """This command id was appended before, as ``entry``: its result stands, nothing was added."""

    entry: Entry


AppendResult = Appended | Conflict | Duplicate


@dataclass(frozen=True, slots=True)
class Rebuilt:
    state: State
    head: Head
    entries: int
    events: int


class EventStore:
    def __init__(
        self, redis: Redis, scripts: Scripts | None = None, replica_acks: int = 0
    ) -> None:
        self.redis = redis
        self.scripts = scripts or Scripts(redis)
        # Appends are acknowledged once this many replicas have them (WAIT; 0: at once).
        self.replica_acks = replica_acks
        self.ack_timeout_ms = ACK_TIMEOUT_MS

    async def append(
        self, table: str, expected: Head, command_id: str, entry: NewEntry
    ) -> AppendResult:
        """Append ``entry`` as version ``expected.version + 1`` if the log is still at
        ``expected`` and ``command_id`` (unique per table; "" for none) is new."""
        command_blob, events_blob = encode(command_id, entry)
        new_hash = chain(expected.hash, command_blob, events_blob)
        where = (keys.log(table), keys.command_ids(table), keys.meta(table))
        args = (expected.version, expected.hash, command_id, command_blob, events_blob, new_hash)
        if self.replica_acks:
            reply, acked = await self.scripts.call_and_wait(
                "APPEND", where, args, self.replica_acks, self.ack_timeout_ms
            )
            if acked < self.replica_acks and _text(reply[0]) in ("ok", "dup"):
                # Appended, but not yet on enough replicas: not acknowledged.  A retry of the
                # same command id finds it ("dup") and waits again.
                raise StoreUnavailable(
                    f"{acked} of {self.replica_acks} replicas acknowledged the append in "
                    f"{self.ack_timeout_ms} ms"
                )
        else:
            reply = await self.scripts.call("APPEND", where, args)
        outcome = _text(reply[0])
        if outcome == "ok":
            return Appended(Head(int(reply[1]), new_hash), int(reply[2]))
        if outcome == "conflict":
            return Conflict(int(reply[1]))
        if outcome == "dup":
            return Duplicate(await self._original(table, int(reply[1]), reply[2]))
        if outcome == "damaged":
            raise TableDamaged(table, int(reply[1]), _text(reply[2]))
        raise TableNotFound(table)

    async def _original(self, table: str, version: int, raw: Any) -> Entry:
        """The entry a duplicate command id was appended as (verified against its predecessor)."""
        previous = genesis(table)
        if version > 1:
            before = await self._range(table, version - 1, version - 1)
            if not before:
                raise TableDamaged(table, version, "an earlier entry is missing")
            previous = Head(version - 1, _fields(before[0][1])[b"h"])
        entry = decode(version, _fields(raw[0][1]), previous.hash) if raw else None
        if entry is None:
            raise TableDamaged(table, version, "the entry does not chain")
        return entry

    async def load(self, table: str, after: Head | None = None) -> list[Entry]:
        """Every entry after ``after`` (default: from the start), each verified to chain from
        ``after``; raises TableDamaged if the log no longer holds ``after`` or was edited."""
        head = after or genesis(table)
        out: list[Entry] = []
        start = head.version
        if head.version > 0:
            # Check the log still holds the entry we saw, with the hash we saw.
            rows = await self._range(table, head.version, head.version)
            if not rows or _fields(rows[0][1]).get(b"h") != head.hash:
                raise TableDamaged(table, head.version, "rolled back or rewritten")
            start = head.version
        while True:
            rows = await self._range(table, start + 1, None, PAGE)
            for stream_id, raw in rows:
                version = version_of(stream_id)
                if version != head.version + 1:
                    raise TableDamaged(table, head.version, f"entry {head.version + 1} missing")
                entry = decode(version, _fields(raw), head.hash)
                if entry is None:
                    raise TableDamaged(table, version, "an entry was edited")
                out.append(entry)
                head = entry.head
            if len(rows) < PAGE:
                return out
            start = head.version

    async def rebuild(self, table: str, state: State | None = None) -> Rebuilt:
        """Fold the whole log into a state."""
        s = State() if state is None else state
        head = genesis(table)
        events = 0
        entries = await self.load(table)
        for entry in entries:
            for e in entry.events:
                s = evolve(s, e)
            events += len(entry.events)
            head = entry.head
        return Rebuilt(s, head, len(entries), events)

    async def command_version(self, table: str, command_id: str) -> int | None:
        """The version a command id was appended as, if it was."""
        async with redis_errors("reading command ids"):
            value: Any = await self.redis.hget(keys.command_ids(table), command_id)
        return None if value is None else int(value)

    async def head(self, table: str) -> Head:
        """The log's last entry as stored (not verified: use load for that)."""
        async with redis_errors("reading a log"):
            rows: Any = await self.redis.xrevrange(keys.log(table), "+", "-", count=1)
        if not rows:
            return genesis(table)
        stream_id, raw = rows[0]
        return Head(version_of(stream_id), _fields(raw)[b"h"])

    async def _range(
        self, table: str, first: int, last: int | None, count: int | None = None
    ) -> Sequence[Any]:
        async with redis_errors("reading a log"):
            rows: Any = await self.redis.xrange(
                keys.log(table), f"0-{first}", "+" if last is None else f"0-{last}", count=count
            )
        return rows  # type: ignore[no-any-return]


def _fields(raw: Any) -> dict[bytes, bytes]:
    """Stream entry fields as a dict, whether the reply is a map or a flat list."""
    if isinstance(raw, dict):
        return {k if isinstance(k, bytes) else str(k).encode(): v for k, v in raw.items()}
    return {raw[i]: raw[i + 1] for i in range(0, len(raw), 2)}
