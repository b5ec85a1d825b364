"""Tables' metadata and secrets, and the lobby's index of public tables (open ones, and those
playing that spectators may watch).

Metadata (status, settings, seats) and secrets (server seed, seat token hashes) are hashes of
their own, next to the log and never in it.  The lobby index is a sorted set outside any table's
hash slot, so it cannot be changed atomically with a table in a Redis Cluster: it is written after
the table, and every read checks each listed table against its metadata and drops stale entries,
so the index never shows a table that is not open; ``reindex`` rebuilds it from the metadata.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors
from echoridge.store.errors import StoreError, TableExists, TableNotFound

OPEN = "open"


class Directory:
    def __init__(self, redis: Redis, scripts: Scripts | None = None) -> None:
        self.redis = redis
        self.scripts = scripts or Scripts(redis)

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
        self, table: str, name: str, client_seed: bytes, token_hash: str, bot: str = ""
    ) -> str | int:
        """Take the lowest free seat (for a bot of kind ``bot``); the seat, or why not:
        missing, started, full."""
        reply = await self.scripts.call(
            "JOIN",
            (keys.meta(table), keys.secrets(table)),
            (name, client_seed.hex(), token_hash, bot),
        )
        outcome = _text(reply[0])
        if outcome != "ok":
            return outcome
        await self._index(table, await self.meta(table))
        return int(reply[1])

    async def leave(self, table: str, seat: int, token_hash: str) -> str:
        """Give a seat up before the start: ok, missing, started or bad_token."""
        reply = await self.scripts.call(
            "LEAVE", (keys.meta(table), keys.secrets(table)), (seat, token_hash)
        )
        outcome = _text(reply[0])
        if outcome == "ok":
            await self._index(table, await self.meta(table))
        return outcome

    async def close(self, table: str) -> str:
        """Close an open table for good: ok, missing or started."""
        reply = await self.scripts.call("CLOSE", (keys.meta(table),), ())
        outcome = _text(reply[0])
        if outcome == "ok":
            await self._index(table, await self.meta(table))
        return outcome

    async def start(self, table: str) -> str:
        """Mark a full open table as playing: ok, missing, started or not_full."""
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

    async def secret(self, table: str, name: str) -> bytes | None:
        async with redis_errors("reading a table secret"):
            value: Any = await self.redis.hget(keys.secrets(table), name)
        return value if value is None else bytes(value)

    async def set_secret(self, table: str, name: str, value: bytes) -> None:
        async with redis_errors("writing a table secret"):
            if not await self.redis.exists(keys.meta(table)):  # tables are never deleted
                raise TableNotFound(table)
            await self.redis.hset(keys.secrets(table), name, value)

    async def open_tables(self, limit: int = 1000) -> list[tuple[str, dict[str, str]]]:
        """Up to ``limit`` listed tables (public and open, or public, playing and open to
        spectators), oldest first, each checked against its metadata
        (stale index entries are dropped on the way and do not count)."""
        out: list[tuple[str, dict[str, str]]] = []
        start = 0
        while len(out) < limit:
            async with redis_errors("reading the lobby"):
                ids = await self.redis.zrange(keys.LOBBY, start, start + limit - 1)
            if not ids:
                break
            tables = [_text(raw) for raw in ids]
            async with redis_errors("reading the lobby"):
                pipe = self.redis.pipeline(transaction=False)
                for table in tables:
                    pipe.hgetall(keys.meta(table))
                metas: list[Any] = await pipe.execute()  # one round trip per page
            stale = []
            for table, raw_meta in zip(tables, metas, strict=True):
                meta = {_text(k): _text(v) for k, v in raw_meta.items()}
                if meta and _listed(meta):
                    if len(out) < limit:
                        out.append((table, meta))
                else:
                    stale.append(table)
            if stale:
                async with redis_errors("repairing the lobby"):
                    await self.redis.zrem(keys.LOBBY, *stale)
            start += len(ids) - len(stale)
        return out

    async def reindex(self) -> int:
        """Rebuild the lobby index from every table's metadata; returns the tables listed."""
        listed = 0
        async with redis_errors("rebuilding the lobby"):
            for raw in await self.redis.zrange(keys.LOBBY, 0, -1):
                if await self._meta_or_none(_text(raw)) is None:
                    await self.redis.zrem(keys.LOBBY, _text(raw))
            async for key in self.redis.scan_iter(match="er:{*}:meta", count=500):
                name = _text(key)
                table = name[len("er:{") : -len("}:meta")]
                meta = await self.meta(table)
                await self._index(table, meta)
                listed += _listed(meta)
        return listed

    async def _meta_or_none(self, table: str) -> dict[str, str] | None:
        try:
            return await self.meta(table)
        except TableNotFound:
            return None

    async def _index(self, table: str, meta: Mapping[str, str]) -> None:
        async with redis_errors("updating the lobby"):
            if _listed(meta):
                await self.redis.zadd(keys.LOBBY, {table: int(meta.get("created", "0"))})
            else:
                await self.redis.zrem(keys.LOBBY, table)


def _listed(meta: Mapping[str, str]) -> bool:
    if meta.get("public") != "1":
        return False
    status = meta.get("status")
    return status == OPEN or (status == "playing" and meta.get("spectators") == "1")


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
