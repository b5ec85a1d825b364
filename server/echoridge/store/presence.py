"""Who is at a table, across nodes: each node's sessions of the table, shared through Redis.

Every node that has sessions at a table keeps one hash ``er:{table}:here:<node>`` (seat ``N``
-> since when that seat has had a session on this node, in ms; ``spectators`` -> how many)
that expires unless the node renews it, and names itself in the set ``er:{table}:nodes``.  A
node that dies is forgotten when its hash expires.  When a node's last session of a seat
closes it writes the time into ``er:{table}:away`` (seat -> ms).  Reading merges them: a seat
is connected if any node has it (since the earliest), otherwise away since the latest time
known (0: it never connected).  Nothing is written for a table without metadata (a finished
game released to the archive: store/archive.py).  All keys carry the table's hash tag.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors
from echoridge.store.connection import text as _text

TTL_SECONDS = 15  # a node renews its hash well within this (tables/presence.py)


def _away(table: str) -> str:
    return f"er:{{{table}}}:away"


@dataclass(frozen=True, slots=True)
class Seen:
    """The merged presence of a table: per seat (connected, since ms), and spectators."""

    seats: tuple[tuple[bool, int], ...]
    spectators: int


class PresenceStore:
    def __init__(self, redis: Redis, scripts: Scripts | None = None) -> None:
        self.redis = redis
        self.scripts = scripts or Scripts(redis)

    async def sync(
        self,
        table: str,
        node: str,
        count: int,
        seats: Mapping[int, int],
        spectators: int,
        gone: Mapping[int, int] = {},
    ) -> Seen:
        """Publish this node's sessions at ``table`` (of ``count`` seats: ``seats``, seat ->
        connected since, ms; the number of ``spectators``; ``gone``, seats whose last session
        here just closed, seat -> when) and read the table's presence merged over every live
        node: one round trip (the PRESENCE script: the writes and the reads, atomic, in the
        table's slot, so also on a Redis Cluster), and one more only when other nodes have
        sessions there too."""
        here = keys.here(table, node)
        mine: dict[str, int] = {str(s): t for s, t in seats.items()}
        mine["spectators"] = spectators
        pairs = [x for item in mine.items() for x in item] if seats or spectators else []
        away_pairs = [x for s, t in gone.items() for x in (str(s), t)]
        async with redis_errors("publishing presence"):
            members, flat = await self.scripts.call(
                "PRESENCE",
                (here, keys.nodes(table), _away(table), keys.meta(table)),
                (node, TTL_SECONDS, len(pairs) // 2, *pairs, *away_pairs),
            )
            away_reply = dict(zip(flat[::2], flat[1::2], strict=True))
            others = sorted(n for n in map(_text, members) if n != node)
            heres: list[Any] = []
            if others:
                pipe = self.redis.pipeline(transaction=False)
                for other in others:
                    pipe.hgetall(keys.here(table, other))
                heres = await pipe.execute()
                dead = [n for n, reply in zip(others, heres, strict=True) if not reply]
                if dead:
                    await self.redis.srem(keys.nodes(table), *dead)
        return _merge([mine, *heres], away_reply, count)


def _merge(heres: list[Any], away_reply: Any, seats: int) -> Seen:
    """The merged presence from each live node's hash and the away hash."""
    since: dict[int, int] = {}
    spectators = 0
    for reply in heres:
        for key, value in reply.items():
            name = _text(key)
            if name == "spectators":
                spectators += int(value)
            elif name.isdigit():
                seat = int(name)
                since[seat] = min(int(value), since.get(seat, int(value)))
    away = {int(_text(k)): int(v) for k, v in away_reply.items()}
    return Seen(
        tuple((True, since[s]) if s in since else (False, away.get(s, 0)) for s in range(seats)),
        spectators,
    )
