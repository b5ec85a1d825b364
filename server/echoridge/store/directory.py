"""Tables' metadata and secrets, and the lobby's indexes (store/lobbyindex.py: the listing of
public tables, newest first in pages, and the expiry times of unstarted tables).

Metadata (status, settings, seats) and secrets (server seed, seat token hashes) are hashes of
their own, next to the log and never in it.  The indexes are outside any table's hash slot, so
they cannot be changed atomically with a table in a Redis Cluster: they are written after the
table, and every read checks each listed table against its metadata and drops stale entries, so
the lobby never lists a table that is not listed; ``reindex`` rebuilds them from the metadata.

A table closed before its start (by its creator, or expired) keeps its keys for
``RETIRED_SECONDS`` (``table/closed`` for a while), then Redis deletes them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors
from echoridge.store.connection import text as _text
from echoridge.store.errors import StoreError, TableExists, TableNotFound
from echoridge.store.lobbyindex import ExpiryPolicy, LobbyIndex, Page, listed_status

RETIRED_SECONDS = 3600  # a closed table's keys live on this long


class Directory:
    def __init__(self, redis: Redis, scripts: Scripts | None = None) -> None:
        self.redis = redis
        self.scripts = scripts or Scripts(redis)
        self.lobby = LobbyIndex(redis)
        self.retired_seconds = RETIRED_SECONDS

    @property
    def expiry(self) -> ExpiryPolicy:
        """When unstarted tables are closed (this node's settings; never by default)."""
        return self.lobby.policy

    @expiry.setter
    def expiry(self, policy: ExpiryPolicy) -> None:
        self.lobby.policy = policy

    async def create(
        self, table: str, meta: Mapping[str, str], secrets: Mapping[str, bytes] = {}
    ) -> None:
        """Create a table's metadata and secrets at once; TableExists if the id is taken.
        ``meta`` needs a ``status``; ``public: "1"`` with status open lists it in the lobby."""
        if not keys.valid_table_id(table):
            raise StoreError(f"invalid table id {table!r}")
        if "status" not in meta:
            raise StoreError("a table's metadata needs a status")
        meta = {"created": str(int(time.time() * 1000)), **meta}
        args: list[str | bytes] = [str(len(meta))]
        for k, v in meta.items():
            args += [k, v]
        for k, b in secrets.items():
            args += [k, b]
        created = await self.scripts.call(
            "CREATE_TABLE", (keys.meta(table), keys.secrets(table)), args
        )
        if not created:
            raise TableExists(table)
        await self._index(table, meta)

    async def join(
        self,
        table: str,
        name: str,
        client_seed: bytes,
        token_hash: str,
        bot: str = "",
        identity: str = "",
    ) -> str | int:
        """Take the lowest free seat (for a bot of kind ``bot``; for a signed-in ``identity``);
        the seat, or why not: missing, started, closed, damaged, full, seated (the identity
        holds a seat there already)."""
        reply = await self.scripts.call(
            "JOIN",
            (keys.meta(table), keys.secrets(table)),
            (name, client_seed.hex(), token_hash, bot, identity),
        )
        outcome = _text(reply[0])
        if outcome != "ok":
            return outcome
        await self._index(table, await self.meta(table))
        return int(reply[1])

    async def leave(self, table: str, seat: int, token_hash: str) -> str:
        """Give a seat up before the start: ok, missing, started, closed, damaged or
        bad_token."""
        reply = await self.scripts.call(
            "LEAVE", (keys.meta(table), keys.secrets(table)), (seat, token_hash)
        )
        outcome = _text(reply[0])
        if outcome == "ok":
            await self._index(table, await self.meta(table))
        return outcome

    async def close(self, table: str) -> str:
        """Close an open table for good (its keys then live ``retired_seconds``): ok, missing,
        started, closed or damaged."""
        reply = await self.scripts.call("CLOSE", keys.lasting(table), (self.retired_seconds,))
        outcome = _text(reply[0])
        if outcome == "ok":
            await self._index(table, await self.meta(table))
        return outcome

    async def expire(self, table: str) -> tuple[str, int | None]:
        """Close an open table if its time is up (``expiry``; its keys then live
        ``retired_seconds``): (ok, None), (later, when), (never, None), or why not (missing,
        started, closed, damaged).  The expiry index follows."""
        policy = self.lobby.policy
        reply = await self.scripts.call(
            "EXPIRE",
            keys.lasting(table),
            (policy.idle_ms, policy.max_ms, self.retired_seconds),
        )
        outcome = _text(reply[0])
        at = int(reply[1]) if outcome == "later" else None
        if outcome == "later":
            await self.lobby.reschedule(table, at)
        else:
            await self._index(table, await self._meta_or_none(table) or {})
        return outcome, at

    async def start(self, table: str) -> str:
        """Mark a full open table as playing: ok, missing, started, closed, damaged or
        not_full."""
        reply = await self.scripts.call("START", (keys.meta(table),), ())
        outcome = _text(reply[0])
        if outcome == "ok":
            await self._index(table, await self.meta(table))
        return outcome

    async def secrets(self, table: str) -> dict[str, bytes]:
        async with redis_errors("reading table secrets"):
            raw: Any = await self.redis.hgetall(keys.secrets(table))
        return {_text(k): bytes(v) for k, v in raw.items()}

    async def bump_epoch(self, table: str) -> int:
        async with redis_errors("changing a table's epoch"):
            return int(await self.redis.hincrby(keys.meta(table), "epoch", 1))

    async def meta(self, table: str) -> dict[str, str]:
        async with redis_errors("reading a table"):
            raw = await self.redis.hgetall(keys.meta(table))
        if not raw:
            raise TableNotFound(table)
        return {_text(k): _text(v) for k, v in raw.items()}

    async def update(self, table: str, changes: Mapping[str, str]) -> dict[str, str]:
        """Change metadata fields (the lobby index follows); returns the new metadata."""
        args: list[str] = []
        for k, v in changes.items():
            args += [k, v]
        if args and not await self.scripts.call("UPDATE_META", (keys.meta(table),), args):
            raise TableNotFound(table)
        meta = await self.meta(table)
        await self._index(table, meta)
        return meta

    async def claim(self, table: str, field: str, value: str) -> str:
        """Set a metadata field unless it is set (HSETNX, one script): the field's value now,
        ``value`` if this call set it.  TableNotFound if the table has no metadata."""
        reply = await self.scripts.call("CLAIM", (keys.meta(table),), (field, value))
        if reply is None:
            raise TableNotFound(table)
        return _text(reply)

    async def field(self, table: str, name: str) -> str | None:
        """One metadata field (None: not set, or no such table)."""
        async with redis_errors("reading a table"):
            value: Any = await self.redis.hget(keys.meta(table), name)
        return None if value is None else _text(value)

    async def secret(self, table: str, name: str) -> bytes | None:
        async with redis_errors("reading a table secret"):
            value: Any = await self.redis.hget(keys.secrets(table), name)
        return value if value is None else bytes(value)

    async def set_secret(self, table: str, name: str, value: bytes) -> None:
        async with redis_errors("writing a table secret"):
            if not await self.redis.exists(keys.meta(table)):  # (or closed long ago)
                raise TableNotFound(table)
            await self.redis.hset(keys.secrets(table), name, value)

    async def page(
        self,
        limit: int,
        status: str | None = None,
        mode: str | None = None,
        cursor: str | None = None,
    ) -> Page:
        """One page of the lobby, newest first (store/lobbyindex.py): up to ``limit`` listed
        tables (public and open, or public, playing and open to spectators) of ``status``
        (``waiting``, ``playing``) and ``mode``, after ``cursor``; each checked against its
        metadata (stale index entries are dropped on the way).  ValueError for a cursor this
        server did not make."""
        return await self.lobby.page(limit, status, mode, cursor)

    async def reindex(self) -> int:
        """Rebuild the lobby's indexes from every table's metadata; returns the tables listed."""
        listed = 0
        for table in await self.lobby.members():
            if await self._meta_or_none(table) is None:
                await self._index(table, {})
        async with redis_errors("rebuilding the lobby"):
            async for key in self.redis.scan_iter(match="er:{*}:meta", count=500):
                name = _text(key)
                table = name[len("er:{") : -len("}:meta")]
                meta = await self._meta_or_none(table)
                if meta is None:
                    continue  # (expired meanwhile)
                await self._index(table, meta)
                listed += listed_status(meta) is not None
        return listed

    async def _meta_or_none(self, table: str) -> dict[str, str] | None:
        try:
            return await self.meta(table)
        except TableNotFound:
            return None

    async def _index(self, table: str, meta: Mapping[str, str]) -> None:
        await self.lobby.update(table, meta)
