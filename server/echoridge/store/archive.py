"""The archive of finished games: what Redis keeps of a game once it is over (issue 27).

A finished game is its transcript (SPEC.md §9.4: every command, its draws, the public deltas and
every secret published after the game, from which the engine rebuilds every state and every
seat's view) and its record (who played, the result, when): together, everything that reads a
finished game needs (transcript, verify, replay, the record of games).  Its live keys (the log,
command ids, metadata, secrets, chat, presence: ``keys.live``) are released a grace period after
the end, so Redis memory follows the live games, not the history.

Keys:

* ``er:{T}:transcript``: the transcript as msgpack (the bytes of a msgpack ``transcript``
  reply's field), compressed with xz (stdlib ``lzma``: a 4-player game's ~50 KB in ~8.5 KB,
  zlib's ~12 KB; ~20 ms to compress, done once in a thread, ~0.7 ms to read back).  Values
  kept before the archive are zlib; both are read (by their magic bytes).
* ``er:{T}:record``: the record, a msgpack map (``tables/archiving.py`` makes it).
* ``er:archive:ended``: sorted set, every archived game by its end (ms): export, retention.
* ``er:archive:public``: sorted set, the public ones (the record of games' listing).
* ``er:archive:identity:<id>``: sorted set, every game a signed-in player sat at (a player's
  page: store/identities.py).
* ``er:archive:due``: sorted set, each archived game's live keys by when they are released (ms).

``keep`` writes the transcript and the record in one script on the table's slot (``ARCHIVE``:
``SET NX`` both, only while the table's metadata exists, with its time to live if it has one), then
the indexes, which live outside every table's slot (a Redis Cluster cannot write both at once):
they are hints, and every use checks the table's keys.  The record of games (SPEC 4.8) reads
``er:archive:public`` (public games by end time) and ``er:archive:player:<name>`` (the public
games each person sat at, by their folded name), newest first in pages (``listing``), or the
records of named tables (``records``).  ``release`` deletes the live keys in one
script (``RELEASE``) that first checks the transcript and the record are there; ``drop`` deletes
an archived game (retention, ``--keep-finished``).  ``raw``/``restore`` move archived games to
and from files as their stored bytes (``echo-ridge archive export|import``).
"""

from __future__ import annotations

import asyncio
import lzma
import unicodedata
import zlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import msgpack

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors
from echoridge.store.connection import text as _text
from echoridge.store.lobbyindex import cursor_of, newest, parse_cursor

ENDED = "er:archive:ended"
PUBLIC = "er:archive:public"
DUE = "er:archive:due"
PLAYER = "er:archive:player:"  # + a folded name: the public games a player of that name sat at
IDENTITY = "er:archive:identity:"  # + an identity: every game it sat at, public or private


def player_key(name: str) -> str:
    """The index of the public games a player of ``name`` sat at: case and width ignored."""
    return PLAYER + unicodedata.normalize("NFKC", name).casefold()


def _names(record: Mapping[str, Any]) -> set[str]:
    """The names of the people who played (bots are not listed by name)."""
    players = record.get("players", ())
    return {str(p.get("name", "")) for p in players if isinstance(p, Mapping) and not p.get("bot")}


def _identities(record: Mapping[str, Any]) -> set[str]:
    """The identities of the signed-in people who played."""
    players = record.get("players", ())
    return {
        str(p["identity"]) for p in players if isinstance(p, Mapping) and p.get("identity")
    }


XZ_MAGIC = b"\xfd7zXZ\x00"
PRESET = 6  # xz's default: 9 saves ~1% more on transcripts, at several times the memory


def compress(packed: bytes) -> bytes:
    """The stored form of a transcript's msgpack: xz."""
    return lzma.compress(packed, format=lzma.FORMAT_XZ, preset=PRESET)


def decompress(stored: bytes) -> bytes | None:
    """The msgpack of a stored transcript (xz, or zlib as kept before the archive), or None
    when it cannot be read."""
    try:
        if stored.startswith(XZ_MAGIC):
            return lzma.decompress(stored, format=lzma.FORMAT_XZ)
        return zlib.decompress(stored)
    except (lzma.LZMAError, zlib.error, EOFError):
        return None


class Archive:
    def __init__(self, redis: Redis, scripts: Scripts) -> None:
        self.redis = redis
        self.scripts = scripts

    # --- reading --------------------------------------------------------------------------------

    async def get(self, table: str) -> bytes | None:
        """The kept transcript (msgpack, decompressed), or None: none kept, or not readable (it
        is then built again from the log, if the log is still there)."""
        async with redis_errors("reading a transcript"):
            value: Any = await self.redis.get(keys.transcript(table))
        if value is None:
            return None
        return await _decompressed(bytes(value))

    async def record(self, table: str) -> dict[str, Any] | None:
        """The record of an archived game, or None."""
        async with redis_errors("reading a record"):
            value: Any = await self.redis.get(keys.record(table))
        if value is None:
            return None
        try:
            record = msgpack.unpackb(value)
        except (ValueError, msgpack.UnpackException):
            return None
        return record if isinstance(record, dict) else None

    async def archived(self, table: str) -> bool:
        """Whether the table is an archived game (its record is kept)."""
        async with redis_errors("reading a record"):
            return bool(await self.redis.exists(keys.record(table)))

    async def listing(
        self,
        limit: int,
        player: str | None = None,
        cursor: str | None = None,
        identity: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of the public finished games' records, newest first (those a player of
        ``player``'s name sat at, when given; or every game ``identity`` sat at, public or not),
        after ``cursor``; and the cursor of the next page (None: the last).  Two round trips.
        ValueError for a cursor this server did not make."""
        if identity is not None:
            key = IDENTITY + identity
        else:
            key = PUBLIC if player is None else player_key(player)
        after = None if cursor is None else parse_cursor(cursor)
        async with redis_errors("reading the record of games"):
            rows = await newest(self.redis, key, limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        found = await self.records([table for table, _ in rows])
        next_cursor = cursor_of(rows[-1][1], rows[-1][0]) if more else None
        return [found[table] for table, _ in rows if table in found], next_cursor

    async def records(self, tables: list[str]) -> dict[str, dict[str, Any]]:
        """The records of those of ``tables`` that are archived games (one round trip)."""
        if not tables:
            return {}
        async with redis_errors("reading records"):
            pipe = self.redis.pipeline(transaction=False)
            for table in tables:  # (one key each: a Redis Cluster holds them on many slots)
                pipe.get(keys.record(table))
            values: list[Any] = await pipe.execute()
        out = {}
        for table, value in zip(tables, values, strict=True):
            try:
                record = msgpack.unpackb(value) if value is not None else None
            except (ValueError, msgpack.UnpackException):
                record = None
            if isinstance(record, dict):
                out[table] = record
        return out

    # --- writing --------------------------------------------------------------------------------

    async def keep(self, table: str, packed: bytes) -> bool:
        """Keep ``packed`` (the transcript's msgpack) alone, unless one is kept already or the
        table is gone; whether this call wrote it.  (``archive`` keeps the record too.)"""
        stored = await asyncio.to_thread(compress, packed)
        reply = await self.scripts.call(
            "ARCHIVE", (keys.transcript(table), keys.meta(table), keys.record(table)), (stored,)
        )
        return int(reply) == 1

    async def archive(
        self, table: str, packed: bytes, record: Mapping[str, Any], release_at: int
    ) -> bool:
        """Keep the transcript (``packed``: its msgpack) and the record of a finished game, and
        list it: ended at ``record["ended"]`` (ms), its live keys released at ``release_at``
        (ms).  Whether this call wrote the transcript (False: kept already, or no such table)."""
        stored = await asyncio.to_thread(compress, packed)
        reply = await self.scripts.call(
            "ARCHIVE",
            (keys.transcript(table), keys.meta(table), keys.record(table)),
            (stored, msgpack.packb(dict(record))),
        )
        if int(reply) == -1:
            return False
        await self._list(table, record, release_at)
        return int(reply) == 1

    async def _list(self, table: str, record: Mapping[str, Any], release_at: int | None) -> None:
        async with redis_errors("listing an archived game"):
            pipe = self.redis.pipeline(transaction=False)
            pipe.zadd(ENDED, {table: int(record.get("ended") or 0)})
            if record.get("public"):
                pipe.zadd(PUBLIC, {table: int(record.get("ended") or 0)})
                for name in _names(record):
                    pipe.zadd(player_key(name), {table: int(record.get("ended") or 0)})
            for identity in _identities(record):
                pipe.zadd(IDENTITY + identity, {table: int(record.get("ended") or 0)})
            if release_at is not None:
                pipe.zadd(DUE, {table: release_at}, nx=True)
            await pipe.execute()

    async def due(self, now_ms: int, count: int) -> list[str]:
        """Archived games whose live keys are due for release at ``now_ms``, the oldest first."""
        async with redis_errors("reading the archive's index"):
            found = await self.redis.zrangebyscore(DUE, "-inf", now_ms, start=0, num=count)
        return [_text(t) for t in found]

    async def release(self, table: str) -> str:
        """Delete the live keys of an archived game: ``ok``, ``gone`` (released before), or
        ``not_archived`` (its transcript or record is missing: nothing deleted)."""
        async with redis_errors("reading a table's nodes"):  # their presence hashes go too
            heres = [
                keys.here(table, _text(n)) for n in await self.redis.smembers(keys.nodes(table))
            ]
        reply = await self.scripts.call(
            "RELEASE", (keys.transcript(table), keys.record(table), *keys.live(table), *heres), ()
        )
        outcome = _text(reply)
        if outcome in ("ok", "gone"):
            async with redis_errors("updating the archive's index"):
                await self.redis.zrem(DUE, table)
        return outcome

    async def released(self, tables: list[str]) -> list[str]:
        """Those of ``tables`` that are archived games whose live keys are released (one round
        trip)."""
        if not tables:
            return []
        async with redis_errors("reading records"):
            pipe = self.redis.pipeline(transaction=False)
            for table in tables:
                pipe.exists(keys.meta(table))
                pipe.exists(keys.record(table))
            found = await pipe.execute()
        return [t for i, t in enumerate(tables) if not found[2 * i] and found[2 * i + 1]]

    async def older(self, before_ms: int, count: int) -> list[str]:
        """Archived games that ended before ``before_ms``, the oldest first (retention)."""
        async with redis_errors("reading the archive's index"):
            found = await self.redis.zrangebyscore(ENDED, "-inf", f"({before_ms}", 0, count)
        return [_text(t) for t in found]

    async def drop(self, table: str) -> None:
        """Forget an archived game: its transcript, record and index entries (its live keys
        were released before, or go now too)."""
        record = await self.record(table) or {}
        async with redis_errors("dropping an archived game"):
            pipe = self.redis.pipeline(transaction=False)
            pipe.delete(keys.transcript(table), keys.record(table), *keys.live(table))
            pipe.zrem(ENDED, table)
            pipe.zrem(PUBLIC, table)
            for name in _names(record):
                pipe.zrem(player_key(name), table)
            for identity in _identities(record):
                pipe.zrem(IDENTITY + identity, table)
            pipe.zrem(DUE, table)
            await pipe.execute()

    # --- moving ---------------------------------------------------------------------------------

    async def page(self, start: int, count: int) -> list[tuple[str, int]]:
        """Archived games (table, end ms) in end order, oldest first, from rank ``start``."""
        async with redis_errors("reading the archive's index"):
            found: Any = await self.redis.zrange(ENDED, start, start + count - 1, withscores=True)
        return [(_text(member), int(score)) for member, score in found]

    async def every_record(self, batch: int = 500) -> AsyncIterator[dict[str, Any]]:
        """Every archived game's record, in end order (ratings are rebuilt from these)."""
        start = 0
        while rows := await self.page(start, batch):
            found = await self.records([table for table, _ in rows])
            for table, _ in rows:
                if table in found:
                    yield found[table]
            start += len(rows)

    async def raw(self, table: str) -> tuple[bytes, bytes] | None:
        """An archived game as stored: (compressed transcript, packed record), or None."""
        async with redis_errors("reading an archived game"):
            values: Any = await self.redis.mget(keys.transcript(table), keys.record(table))
        transcript, record = values
        if transcript is None or record is None:
            return None
        return bytes(transcript), bytes(record)

    async def restore(self, table: str, transcript: bytes, record: bytes) -> None:
        """Put back an archived game as ``raw`` gave it (its live keys stay released)."""
        plain = msgpack.unpackb(record)
        if not isinstance(plain, dict) or await _decompressed(transcript) is None:
            raise ValueError(f"{table}: not an archived game")
        async with redis_errors("restoring an archived game"):
            await self.redis.mset({keys.transcript(table): transcript, keys.record(table): record})
        await self._list(table, plain, None)


async def _decompressed(stored: bytes) -> bytes | None:
    if len(stored) > 64 * 1024:  # (a big one in a thread: it takes ms)
        return await asyncio.to_thread(decompress, stored)
    return decompress(stored)
