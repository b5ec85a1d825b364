"""Ratings kept in Redis: a projection of the archive's finished games (issue 28).

The truth is the archive (store/archive.py): each finished game's record says who sat, who won
and who was away at the end.  Ratings are computed from those records in end order
(``echoridge.ratings``) and kept here only so that the lobby, the leaderboard and the player
pages read them in a round trip; ``rebuild`` computes them all again from the archive and gets
the same numbers (``echo-ridge ratings rebuild``).

A game is counted once, whichever node archives it and however often: ``apply`` reads the
ratings it needs with the projection's revision, rates the game in Python (openskill), and
writes with one script (``APPLY``) that refuses when the revision moved (another game was
counted meanwhile: read again, rate again) or the table is counted already.  Games are rated
in end order: one that ends before the last game counted (two nodes, two games ending in the
same moment) makes ``apply`` rebuild everything from the archive, so that the projection is
always what a rebuild gives.  A rebuild writes new keys beside the live ones in batches, then
swaps them in with one script (``SWAP``) if the revision has not moved, else starts again.

Keys (one hash tag, ``{ratings}``: one slot, also on a Redis Cluster; ratings are small):
``er:{ratings}:rev`` (the revision: bumped by every write), ``er:{ratings}:counted`` (set of
the tables counted), ``er:{ratings}:last`` (the order key of the last game counted),
``er:{ratings}:r:<mode>`` (hash: identity -> "mu sigma games"), ``er:{ratings}:top:<mode>``
(sorted set: identity by shown rating, the leaderboard; never a bot level's ``bot:LEVEL``),
``er:{ratings}:g:<table>`` (hash: identity -> "before after": the shown rating before and
after that game).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from echoridge.ratings import RATED_MODES, Rating, Ratings, is_bot, order, placing, shown
from echoridge.store.connection import Redis, redis_errors
from echoridge.store.connection import text as _text
from echoridge.store.errors import StoreError

PREFIX = "er:{ratings}:"
REV, COUNTED, LAST = PREFIX + "rev", PREFIX + "counted", PREFIX + "last"
NEW = "new:"  # the prefix of a rebuild's keys until they are swapped in
BATCH = 500  # players or games written per round trip by a rebuild
TRIES = 50  # an apply that keeps meeting other writes gives up (logged; a rebuild mends it)
FIRST = shown(25.0, 25.0 / 3)  # a player's shown rating before a first game (openskill's prior)


def _ratings_key(mode: str, new: str = "") -> str:
    return f"{PREFIX}{new}r:{mode}"


def _top_key(mode: str, new: str = "") -> str:
    return f"{PREFIX}{new}top:{mode}"


def _game_key(table: str) -> str:
    return f"{PREFIX}g:{table}"


def order_key(record: Mapping[str, Any]) -> str:
    """A game's place in the rating order as a string that sorts the same way."""
    ended, table = order(record)
    return f"{ended:015d}:{table}"


def _pack(r: Rating) -> str:
    return f"{r.mu!r} {r.sigma!r} {r.games}"


def _unpack(value: Any) -> Rating:
    mu, sigma, games = _text(value).split()
    return Rating(float(mu), float(sigma), int(games))


# KEYS: rev, counted, last, ratings, top, game; ARGV: rev read, table, order key, then per
# player: identity, packed rating, shown after, shown before -> 'ok' | 'retry' | 'counted'
APPLY = """
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 'retry' end
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return 'counted' end
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SET', KEYS[3], ARGV[3])
for i = 4, #ARGV, 4 do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
  if string.sub(ARGV[i], 1, 4) ~= 'bot:' then
    redis.call('ZADD', KEYS[5], tonumber(ARGV[i + 2]), ARGV[i])
  end
  redis.call('HSET', KEYS[6], ARGV[i], ARGV[i + 3] .. ' ' .. ARGV[i + 2])
end
redis.call('INCR', KEYS[1])
return 'ok'
"""

# KEYS: rev, then pairs (new key, live key); ARGV: rev read -> 1 | 0 (the revision moved)
SWAP = """
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
for i = 2, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('RENAME', KEYS[i], KEYS[i + 1])
  else
    redis.call('DEL', KEYS[i + 1])
  end
end
redis.call('INCR', KEYS[1])
return 1
"""


class RatingStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._apply = redis.register_script(APPLY)
        self._swap = redis.register_script(SWAP)

    # --- reading ----------------------------------------------------------------------------

    async def get(self, mode: str, identities: Sequence[str]) -> dict[str, Rating]:
        """The ratings in ``mode`` of those of ``identities`` who have one (one round trip)."""
        if not identities:
            return {}
        async with redis_errors("reading ratings"):
            values: Any = await self.redis.hmget(_ratings_key(mode), list(identities))
        return {i: _unpack(v) for i, v in zip(identities, values, strict=True) if v is not None}

    async def changes(self, tables: Sequence[str]) -> dict[str, dict[str, tuple[int, int]]]:
        """Per table, each rated player's shown rating before and after that game."""
        if not tables:
            return {}
        async with redis_errors("reading ratings"):
            pipe = self.redis.pipeline(transaction=False)
            for table in tables:
                pipe.hgetall(_game_key(table))
            values: list[Any] = await pipe.execute()
        out: dict[str, dict[str, tuple[int, int]]] = {}
        for table, fields in zip(tables, values, strict=True):
            if fields:
                out[table] = {
                    _text(k): (int(b), int(a))
                    for k, v in fields.items()
                    for b, a in [_text(v).split()]
                }
        return out

    async def top(self, mode: str, start: int, count: int) -> list[tuple[str, Rating]]:
        """The ratings of ``mode`` best first, from rank ``start`` (0: the best)."""
        async with redis_errors("reading the leaderboard"):
            found: Any = await self.redis.zrevrange(_top_key(mode), start, start + count - 1)
            ids = [_text(i) for i in found]
        rated = await self.get(mode, ids)
        return [(i, rated[i]) for i in ids if i in rated]

    async def counted(self, table: str) -> bool:
        async with redis_errors("reading ratings"):
            return bool(await self.redis.sismember(COUNTED, table))

    # --- writing ----------------------------------------------------------------------------

    async def apply(
        self, record: Mapping[str, Any], archived: AsyncIterator[Mapping[str, Any]] | None = None
    ) -> str:
        """Count one finished game's record, once: ``ok``, ``counted`` (before, by any node),
        ``unrated`` (it rates nobody), or ``rebuilt`` (it ended before the last game counted:
        every rating was computed again from ``archived``, the archive's records)."""
        placed = placing(record)
        if placed is None:
            return "unrated"
        mode, places = placed
        table, key = str(record["table"]), order_key(record)
        players = [who for who, _ in places]
        keys = [REV, COUNTED, LAST, _ratings_key(mode), _top_key(mode), _game_key(table)]
        for _ in range(TRIES):
            async with redis_errors("reading ratings"):
                pipe = self.redis.pipeline(transaction=False)
                pipe.get(REV)
                pipe.sismember(COUNTED, table)
                pipe.get(LAST)
                pipe.hmget(_ratings_key(mode), players)
                rev, is_counted, last, values = await pipe.execute()
            if is_counted:
                return "counted"
            if last is not None and key < _text(last):
                if archived is None:
                    raise StoreError("a game ended before the last one rated: rebuild")
                await self.rebuild(archived)
                return "rebuilt"
            ratings = Ratings()
            ratings.by_mode[mode] = {
                who: _unpack(v) for who, v in zip(players, values, strict=True) if v is not None
            }
            changes = ratings.rate(mode, places, table)
            args: list[Any] = [_text(rev) if rev is not None else "0", table, key]
            for who, (before, after) in changes.items():
                was = before.shown if before is not None else FIRST
                args += [who, _pack(after), after.shown, was]
            async with redis_errors("writing ratings"):
                outcome = _text(
                    await self._apply(
                        keys=keys,
                        args=args,
                    )
                )
            if outcome != "retry":
                return outcome if outcome == "counted" else "ok"
        raise StoreError("ratings kept changing while a game was rated")

    async def rebuild(self, records: AsyncIterator[Mapping[str, Any]]) -> Ratings:
        """Compute every rating again from ``records`` (the archive's, any order: they are
        sorted here) and put them in place of the projection; the ratings computed."""
        every = [r async for r in records]
        # (CPU only, and the same whatever the projection holds: once, off the event loop)
        ratings, games, last = await asyncio.to_thread(_rate_in_order, every)
        while True:
            async with redis_errors("reading ratings"):
                rev: Any = await self.redis.get(REV)
            await self._write_new(ratings, last)
            pairs = [_new(COUNTED), COUNTED, _new(LAST), LAST]
            for mode in RATED_MODES:
                pairs += [_ratings_key(mode, NEW), _ratings_key(mode)]
                pairs += [_top_key(mode, NEW), _top_key(mode)]
            async with redis_errors("writing ratings"):
                swapped = await self._swap(
                    keys=[REV, *pairs], args=[_text(rev) if rev is not None else "0"]
                )
            if int(swapped):
                break
        await self._write_games(games)
        return ratings

    async def _write_new(self, ratings: Ratings, last: str | None) -> None:
        news = [_new(COUNTED), _new(LAST)]
        news += [_ratings_key(mode, NEW) for mode in RATED_MODES]
        news += [_top_key(mode, NEW) for mode in RATED_MODES]
        async with redis_errors("writing ratings"):
            await self.redis.delete(*news)
            counted = sorted(ratings.counted)
            for i in range(0, len(counted), BATCH):
                await self.redis.sadd(_new(COUNTED), *counted[i : i + BATCH])
            if last is not None:
                await self.redis.set(_new(LAST), last)
            for mode, players in ratings.by_mode.items():
                items = sorted(players.items())
                for i in range(0, len(items), BATCH):
                    chunk = items[i : i + BATCH]
                    pipe = self.redis.pipeline(transaction=False)
                    pipe.hset(_ratings_key(mode, NEW), mapping={w: _pack(r) for w, r in chunk})
                    top = {w: r.shown for w, r in chunk if not is_bot(w)}
                    if top:
                        pipe.zadd(_top_key(mode, NEW), top)
                    await pipe.execute()

    async def _write_games(self, games: dict[str, dict[str, tuple[int, int]]]) -> None:
        tables = sorted(games)
        async with redis_errors("writing ratings"):
            for i in range(0, len(tables), BATCH):
                pipe = self.redis.pipeline(transaction=False)
                for table in tables[i : i + BATCH]:
                    key = _game_key(table)
                    pipe.delete(key)
                    pipe.hset(key, mapping={w: f"{b} {a}" for w, (b, a) in games[table].items()})
                await pipe.execute()


def _rate_in_order(
    every: list[Mapping[str, Any]],
) -> tuple[Ratings, dict[str, dict[str, tuple[int, int]]], str | None]:
    """The ratings of these games in end order, each rated game's changes (shown before and
    after), and the order key of the last rated game."""
    ratings = Ratings()
    games: dict[str, dict[str, tuple[int, int]]] = {}
    last = None
    for record in sorted(every, key=order):
        changes = ratings.apply(record)
        if changes is not None:
            games[str(record["table"])] = {
                who: (before.shown if before else FIRST, after.shown)
                for who, (before, after) in changes.items()
            }
            last = order_key(record)
    return ratings, games, last


def _new(key: str) -> str:
    """A rebuild's key for the live ``key``."""
    return PREFIX + NEW + key[len(PREFIX) :]
