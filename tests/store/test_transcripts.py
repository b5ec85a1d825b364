"""The kept transcripts of finished games (store/transcripts.py) on a real redis-server: kept
once (a second keeper, as another node that built it too, changes nothing), compressed, living
as long as the table's metadata, never kept for a table that is gone."""

from __future__ import annotations

import zlib

from echoridge.store import Storage, keys
from tests.store.conftest import make_table

PACKED = b"\x85" + b"the transcript's msgpack bytes " * 200


async def test_kept_once_compressed_and_read_back(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    assert await storage.transcripts.get(table) is None
    assert await storage.transcripts.keep(table, PACKED) is True
    assert await storage.transcripts.keep(table, b"another build") is False  # (SET NX)
    assert await storage.transcripts.get(table) == PACKED
    raw = await storage.redis.get(keys.transcript(table))
    assert raw is not None and zlib.decompress(raw) == PACKED and len(raw) < len(PACKED) / 10
    assert await storage.redis.pttl(keys.transcript(table)) == -1  # (the metadata has none)


async def test_it_lives_as_long_as_the_tables_metadata(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    await storage.redis.expire(keys.meta(table), 600)
    assert await storage.transcripts.keep(table, PACKED) is True
    assert 590_000 < await storage.redis.pttl(keys.transcript(table)) <= 600_000


async def test_nothing_is_kept_for_a_table_that_is_gone(storage: Storage, table_id: str) -> None:
    assert await storage.transcripts.keep(table_id, PACKED) is False
    assert await storage.redis.exists(keys.transcript(table_id)) == 0


async def test_an_unreadable_kept_value_reads_as_none(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    await storage.redis.set(keys.transcript(table), b"not zlib")
    assert await storage.transcripts.get(table) is None  # (built again from the log)
