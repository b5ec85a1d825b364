"""The lobby's indexes: the listed tables, newest first and paged, and when each table whose game
never started is to be closed.

**The listing.** A public table is listed while it waits for players (open and not full) or is
being played and may be watched.  Each listed table is a member of four sorted sets
``er:lobby:STATUS:MODE`` (STATUS ``all``, ``waiting`` or ``playing``; MODE ``all``,
``competitive``, ``cooperative`` or ``solo``), scored by its creation time (ms): the one its
status and mode name, and the three with ``all`` in either place.  So whatever the filters, one
sorted set holds exactly the tables asked for, and a page is one ``ZREVRANGEBYSCORE ... LIMIT``
and one pipeline of ``HGETALL`` for that page: the cost of a listing is bounded by its page, not
by the number of tables.  Pages go by keyset: the cursor is the last (score, table) a page
showed, and the next page starts after it, so tables created meanwhile (newer: before it) and
tables gone meanwhile shift nothing; equal scores are ordered by member, backwards.

**Expiry.** ``er:lobby:expiry`` (score: when, in ms) holds every open table, public or not, that
is to be closed if it has not started by then: ``max_ms`` after its creation, or ``idle_ms``
after it last had a seated person (``idle_since``; ``created`` when nobody ever sat down).  The
times are this node's settings (``ExpiryPolicy``); ``EXPIRE`` (scripts.py) checks them again
against the table's metadata, atomically, when the sweeper (tables/expiry.py) finds one due.

The indexes live outside any table's hash slot, so they cannot change atomically with a table in
a Redis Cluster: they are written after the table (``update``), and every read checks each table
against its metadata and drops stale entries, so the lobby never lists a table that is not
listed; ``Directory.reindex`` rebuilds them from the metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, redis_errors
from echoridge.store.connection import text as _text

EXPIRY = "er:lobby:expiry"
OLD_LOBBY = "er:lobby:open"  # the single index before pages (removed by ``reindex``)
STATUSES = ("waiting", "playing")
MODES = ("competitive", "cooperative", "solo")
CURSOR = re.compile(r"([0-9]{1,16}):([A-Za-z0-9_-]{1,64})")

Meta = Mapping[str, str]


def index_key(status: str | None = None, mode: str | None = None) -> str:
    """The sorted set of the listed tables of ``status`` and ``mode`` (None: any)."""
    return f"er:lobby:{status or 'all'}:{mode or 'all'}"


INDEX_KEYS = tuple(
    index_key(s, md) for s in (None, *STATUSES) for md in (None, *MODES)
)


@dataclass(frozen=True)
class ExpiryPolicy:
    """When an unstarted table is closed: ``idle_ms`` after it last had a seated person,
    ``max_ms`` after its creation (0: never)."""

    idle_ms: int = 0
    max_ms: int = 0


@dataclass(frozen=True)
class Page:
    """One page of the listing: the tables with their metadata, newest first, and the cursor of
    the page after it (None: the last page)."""

    tables: list[tuple[str, dict[str, str]]]
    next: str | None


def mode_of(meta: Meta) -> str:
    """A table's game as the listing names it: ``solo`` is the competitive game with one seat
    (tables made before modes: competitive)."""
    if meta.get("mode") == "cooperative":
        return "cooperative"
    return "solo" if meta.get("seats") == "1" else "competitive"


def listed_status(meta: Meta) -> str | None:
    """``waiting`` or ``playing`` when the lobby lists the table, else None."""
    if meta.get("public") != "1":
        return None
    status = meta.get("status")
    if status == "open":
        full = "seats" in meta and int(meta.get("taken", "0")) >= int(meta["seats"])
        return None if full else "waiting"  # (a full table is about to start: not offered)
    if status == "playing" and meta.get("spectators") == "1":
        return "playing"
    return None


def people(meta: Meta) -> int:
    """Seats taken by people (not by the server's bots)."""
    seats = range(int(meta.get("seats", "0")))
    return sum(1 for i in seats if f"name:{i}" in meta and f"bot:{i}" not in meta)


def due(meta: Meta, policy: ExpiryPolicy) -> int | None:
    """When an unstarted table is to be closed (ms), as ``EXPIRE`` computes it; None: never."""
    if meta.get("status") != "open":
        return None
    created = int(meta.get("created", "0"))
    times = []
    if policy.max_ms:
        times.append(created + policy.max_ms)
    if policy.idle_ms and people(meta) == 0:
        times.append(int(meta.get("idle_since", created)) + policy.idle_ms)
    return min(times) if times else None


def cursor_of(score: int, table: str) -> str:
    return f"{score}:{table}"


def parse_cursor(text: str) -> tuple[int, str]:
    """ValueError for a cursor this server did not make."""
    match = CURSOR.fullmatch(text)
    if match is None:
        raise ValueError("not a cursor of this server")
    return int(match[1]), match[2]


async def newest(
    redis: Redis, key: str, count: int, after: tuple[int, str] | None
) -> list[tuple[str, int]]:
    """``count`` (member, score) of the sorted set ``key``, highest score first, after
    ``after`` (a cursor's score and member: ``parse_cursor``).  Also the archive's listings."""
    top: int | str = "+inf" if after is None else after[0]
    start = 0
    while True:
        raw: Any = await redis.zrevrangebyscore(
            key, top, "-inf", start=start, num=count, withscores=True
        )
        rows = [(_text(member), int(points)) for member, points in raw]
        if after is None:
            return rows
        # Ties with the cursor's score come first, by member backwards: skip those
        # the previous page showed (member at or after the cursor's).
        score, last = after
        shown = 0
        while shown < len(rows) and rows[shown][1] == score and rows[shown][0] >= last:
            shown += 1
        if shown == 0:
            return rows
        start += shown


class LobbyIndex:
    def __init__(self, redis: Redis, policy: ExpiryPolicy | None = None) -> None:
        self.redis = redis
        self.policy = policy or ExpiryPolicy()

    async def update(self, table: str, meta: Meta) -> None:
        """Put a table where its metadata says (empty metadata: a table that is gone), in one
        round trip."""
        status = listed_status(meta) if meta else None
        mode = mode_of(meta) if status else None
        score = int(meta.get("created", "0")) if meta else 0
        member_of = {index_key(s, md) for s in (None, status) for md in (None, mode)}
        at = due(meta, self.policy) if meta else None
        async with redis_errors("updating the lobby"):
            pipe = self.redis.pipeline(transaction=False)
            for key in INDEX_KEYS:
                if status is not None and key in member_of:
                    pipe.zadd(key, {table: score})
                else:
                    pipe.zrem(key, table)
            if at is None:
                pipe.zrem(EXPIRY, table)
            else:
                pipe.zadd(EXPIRY, {table: at})
            await pipe.execute()

    async def page(
        self,
        limit: int,
        status: str | None = None,
        mode: str | None = None,
        cursor: str | None = None,
    ) -> Page:
        """Up to ``limit`` listed tables of ``status`` and ``mode``, newest first, after
        ``cursor`` (ValueError for a cursor this server did not make).  Two round trips (three
        when tables were created in the same millisecond as the cursor's): one read of the index,
        one pipeline of the page's metadata."""
        key = index_key(status, mode)
        rows = await self._rows(key, limit + 1, None if cursor is None else parse_cursor(cursor))
        more = len(rows) > limit
        rows = rows[:limit]
        metas: list[dict[str, str]] = []
        if rows:
            async with redis_errors("reading the lobby"):
                pipe = self.redis.pipeline(transaction=False)
                for table, _ in rows:
                    pipe.hgetall(keys.meta(table))
                raw_metas: list[Any] = await pipe.execute()  # one round trip per page
            metas = [{_text(k): _text(v) for k, v in raw.items()} for raw in raw_metas]
        out = []
        for (table, _), meta in zip(rows, metas, strict=True):
            shown = listed_status(meta) if meta else None
            if shown is None or (status and shown != status) or (mode and mode_of(meta) != mode):
                await self.update(table, meta)  # stale: put it where its metadata says
            else:
                out.append((table, meta))
        next_cursor = cursor_of(rows[-1][1], rows[-1][0]) if more else None
        return Page(out, next_cursor)

    async def _rows(
        self, key: str, count: int, after: tuple[int, str] | None
    ) -> list[tuple[str, int]]:
        async with redis_errors("reading the lobby"):
            return await newest(self.redis, key, count, after)

    async def due(self, now_ms: int, limit: int = 64) -> list[str]:
        """Tables whose expiry time is at or before ``now_ms``, earliest first."""
        async with redis_errors("reading the expiry index"):
            rows = await self.redis.zrangebyscore(EXPIRY, "-inf", now_ms, start=0, num=limit)
        return [_text(r) for r in rows]

    async def reschedule(self, table: str, at: int | None) -> None:
        async with redis_errors("updating the expiry index"):
            if at is None:
                await self.redis.zrem(EXPIRY, table)
            else:
                await self.redis.zadd(EXPIRY, {table: at})

    async def members(self) -> set[str]:
        """Every table in any index (``Directory.reindex``); the single index of the revisions
        before pages (``er:lobby:open``) is deleted on the way."""
        found: set[str] = set()
        async with redis_errors("reading the lobby"):
            for key in (*INDEX_KEYS, EXPIRY):
                found.update(_text(r) for r in await self.redis.zrange(key, 0, -1))
            await self.redis.delete(OLD_LOBBY)
        return found
