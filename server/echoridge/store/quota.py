"""A client's quota of tables: how many it created lately, and how many of those still wait to
start, counted in Redis so that the limits hold across reconnects, the workers of one server
and every node sharing the Redis.

``WHO`` names the client (tables/quota.py: ``ip:ADDRESS``, ``ip:NETWORK/64``, and later an
identity).  Two sorted sets share the hash tag ``{WHO}``, so one script sees both, on one shard
of a Redis Cluster: ``er:quota:{WHO}:made`` (table → ms created, the last ``window_ms``: the
creation rate, a sliding window) and ``er:quota:{WHO}:waiting`` (table → ms created: the
tables that may still wait to start).  ``RESERVE`` (scripts.py) checks both and counts the new
table in one atomic step.  Nothing removes a table from ``waiting`` when it starts or closes:
when the set is at the cap, the tables in it are looked up (at most the cap's number, in one
round trip) and those no longer open are dropped (a table not yet created is dropped only
``IN_FLIGHT_MS`` after its reservation: it may be on its way), then the reservation is tried
once more.  So the count cannot drift, and only a client at its cap pays for the check.  Both
sets expire on their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors
from echoridge.store.connection import text as _text

IN_FLIGHT_MS = 10_000  # a reserved table whose metadata is missing this long was never made


@dataclass(frozen=True)
class Granted:
    pass


@dataclass(frozen=True)
class TooFast:
    """The creation rate is used up: ``retry_ms`` until one more table may be created."""

    retry_ms: int


@dataclass(frozen=True)
class TooMany:
    """``waiting`` tables created by this client wait to start."""

    waiting: int


Reservation = Granted | TooFast | TooMany


def made_key(who: str) -> str:
    return f"er:quota:{{{who}}}:made"


def waiting_key(who: str) -> str:
    return f"er:quota:{{{who}}}:waiting"


class Quotas:
    def __init__(self, redis: Redis, scripts: Scripts) -> None:
        self.redis = redis
        self.scripts = scripts

    async def reserve(
        self,
        who: str,
        table: str,
        *,
        per_window: int,
        window_ms: int,
        waiting: int,
        waiting_seconds: int,
    ) -> Reservation:
        """Count ``table`` as created by ``who`` now, unless ``who`` created ``per_window``
        tables in the last ``window_ms`` or has ``waiting`` tables waiting to start (0: no
        limit).  ``waiting_seconds``: how long the waiting set lives after its last table."""
        args = (table, window_ms, per_window, waiting, max(1, waiting_seconds))
        for attempt in (0, 1):
            reply: Any = await self.scripts.call(
                "RESERVE", (made_key(who), waiting_key(who)), args
            )
            outcome = _text(reply[0])
            if outcome == "ok":
                return Granted()
            if outcome == "rate":
                return TooFast(int(reply[1]))
            now, flat = int(reply[1]), reply[2]
            tables = {_text(flat[i]): int(float(flat[i + 1])) for i in range(0, len(flat), 2)}
            if attempt or not await self._prune(who, tables, now):
                return TooMany(len(tables))
        raise AssertionError("unreachable")

    async def _prune(self, who: str, tables: dict[str, int], now: int) -> bool:
        """Drop from ``who``'s waiting set the tables no longer open (``tables``: table -> when
        it was reserved); whether any was."""
        names = list(tables)
        async with redis_errors("reading tables"):
            pipe = self.redis.pipeline(transaction=False)
            for table in names:
                pipe.hget(keys.meta(table), "status")
            statuses: list[Any] = await pipe.execute()
        gone = [
            t
            for t, status in zip(names, statuses, strict=True)
            if (status is None and now - tables[t] > IN_FLIGHT_MS)
            or (status is not None and _text(status) != "open")
        ]
        if gone:
            async with redis_errors("updating a quota"):
                await self.redis.zrem(waiting_key(who), *gone)
        return bool(gone)
