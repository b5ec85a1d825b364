"""Finished games' transcripts, kept once: ``er:{table}:transcript``.

The value is the transcript document encoded as msgpack (the bytes a ``transcript`` reply of the
msgpack subprotocol carries in its ``transcript`` field) and compressed with zlib (stdlib: zstd
is no dependency, and on these documents, mostly repeated view keys, zlib at level 6 gives ~4x:
a 4-player game's 50 KB of msgpack is kept in ~12 KB).  ``keep`` writes it once, SET NX in one
script (``KEEP_TRANSCRIPT``), so two nodes that both build it keep the first, and it lives as
long as the table's metadata: no time to live while the table has none (a finished game's keys
have none), the metadata's when it has one.  Tables/transcripts.py builds and serves it.
"""

from __future__ import annotations

import zlib
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, Scripts, redis_errors

LEVEL = 6  # zlib's default: level 9 saves under 1% more on transcripts, at twice the time


class TranscriptStore:
    def __init__(self, redis: Redis, scripts: Scripts) -> None:
        self.redis = redis
        self.scripts = scripts

    async def get(self, table: str) -> bytes | None:
        """The kept transcript (msgpack, decompressed), or None: none kept, or not readable (it
        is then built again from the log)."""
        async with redis_errors("reading a transcript"):
            value: Any = await self.redis.get(keys.transcript(table))
        if value is None:
            return None
        try:
            return zlib.decompress(value)
        except zlib.error:
            return None

    async def keep(self, table: str, packed: bytes) -> bool:
        """Keep ``packed`` (the msgpack document) unless a transcript is kept already or the
        table is gone; whether this call wrote it.  One round trip."""
        reply = await self.scripts.call(
            "KEEP_TRANSCRIPT",
            (keys.transcript(table), keys.meta(table)),
            (zlib.compress(packed, LEVEL),),
        )
        return int(reply) == 1
