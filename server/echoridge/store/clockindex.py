"""The clock index: when each table's earliest running clock runs out.

One sorted set ``er:clocks`` (member: table id, score: ms since the Unix epoch).  A runner keeps
its table's entry up to date (tables/servermoves.py); every node reads the entries that are due
(tables/clockwork.py) and opens those tables, so a clock runs out on time even when no node has a
session at its table.  The index is global, like the lobby's (``er:lobby:open``): in a Redis
Cluster it lives on one shard.  It is only a hint: what a clock does is decided from the log.
"""

from __future__ import annotations

from collections.abc import Mapping

from echoridge.store.connection import Redis, redis_errors

KEY = "er:clocks"


class ClockIndex:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def update(self, due: Mapping[str, int | None]) -> None:
        """Set each table's earliest deadline (None: nothing runs there).  One round trip."""
        if not due:
            return
        async with redis_errors("updating the clock index"):
            pipe = self.redis.pipeline(transaction=False)
            later = {table: at for table, at in due.items() if at is not None}
            if later:
                pipe.zadd(KEY, later)
            gone = [table for table, at in due.items() if at is None]
            if gone:
                pipe.zrem(KEY, *gone)
            await pipe.execute()

    async def due(self, now_ms: int, limit: int = 64) -> list[str]:
        """Tables whose earliest deadline is at or before ``now_ms``, earliest first."""
        async with redis_errors("reading the clock index"):
            rows = await self.redis.zrangebyscore(KEY, "-inf", now_ms, start=0, num=limit)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in rows]

    async def forget(self, table: str) -> None:
        async with redis_errors("updating the clock index"):
            await self.redis.zrem(KEY, table)
