"""Who is at a table, across nodes: each node's sessions of the table, shared through Redis.

Every node that has sessions at a table keeps one hash ``er:{table}:here:<node>`` (seat ``N``
-> since when that seat has had a session on this node, in ms; ``spectators`` -> how many)
that expires unless the node renews it, and names itself in the set ``er:{table}:nodes``.  A
node that dies is forgotten when its hash expires.  When a node's last session of a seat
closes it writes the time into ``er:{table}:away`` (seat -> ms).  Reading merges them: a seat
is connected if any node has it (since the earliest), otherwise away since the latest time
known (0: it never connected).  All keys carry the table's hash tag.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from echoridge.store.connection import Redis, redis_errors

TTL_SECONDS = 15  # a node renews its hash well within this (tables/presence.py)


def _here(table: str, node: str) -> str:
    return f"er:{{{table}}}:here:{node}"


def _nodes(table: str) -> str:
    return f"er:{{{table}}}:nodes"


def _away(table: str) -> str:
    return f"er:{{{table}}}:away"


@dataclass(frozen=True, slots=True)
class Seen:
    """The merged presence of a table: per seat (connected, since ms), and spectators."""

    seats: tuple[tuple[bool, int], ...]
    spectators: int


class PresenceStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def publish(
        self,
        table: str,
        node: str,
        seats: Mapping[int, int],
        spectators: int,
        gone: Mapping[int, int] = {},
    ) -> None:
        """This node's sessions at ``table``: ``seats`` (seat -> connected since, ms) and the
        number of ``spectators``; ``gone``: seats whose last session here just closed (seat
        -> when).  One round trip."""
        here = _here(table, node)
        async with redis_errors("publishing presence"):
            pipe = self.redis.pipeline(transaction=True)
            pipe.delete(here)
            if seats or spectators:
                fields: dict[Any, Any] = {str(s): t for s, t in seats.items()}
                fields["spectators"] = spectators
                pipe.hset(here, mapping=fields)
                pipe.expire(here, TTL_SECONDS)
                pipe.sadd(_nodes(table), node)
                pipe.expire(_nodes(table), 86400)
            else:
                pipe.srem(_nodes(table), node)
            if gone:
                pipe.hset(_away(table), mapping={str(s): t for s, t in gone.items()})
                pipe.expire(_away(table), 30 * 86400)
            await pipe.execute()

    async def read(self, table: str, seats: int) -> Seen:
        """The presence of ``table``'s ``seats`` seats, merged over every live node."""
        async with redis_errors("reading presence"):
            nodes = [_text(n) for n in await self.redis.smembers(_nodes(table))]
            pipe = self.redis.pipeline(transaction=False)
            for node in nodes:
                pipe.hgetall(_here(table, node))
            pipe.hgetall(_away(table))
            replies: list[Any] = await pipe.execute()
            dead = [node for node, reply in zip(nodes, replies, strict=False) if not reply]
            if dead:
                await self.redis.srem(_nodes(table), *dead)
        since: dict[int, int] = {}
        spectators = 0
        for reply in replies[:-1]:
            for key, value in reply.items():
                name = _text(key)
                if name == "spectators":
                    spectators += int(value)
                elif name.isdigit():
                    seat = int(name)
                    since[seat] = min(int(value), since.get(seat, int(value)))
        away = {int(_text(k)): int(v) for k, v in replies[-1].items()}
        return Seen(
            tuple(
                (True, since[s]) if s in since else (False, away.get(s, 0)) for s in range(seats)
            ),
            spectators,
        )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
