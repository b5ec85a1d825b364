"""The archive of finished games (store/archive.py) on a real redis-server: the transcript kept
once (a second keeper, as another node that built it too, changes nothing), compressed with xz
(and a zlib value of before still read), living as long as the table's metadata; the record and
the indexes; the release of the live keys only once both are kept; retention's drop; and the
stored bytes moved out and back."""

from __future__ import annotations

import zlib

import msgpack

from echoridge.store import Storage, keys
from echoridge.store.archive import DUE, ENDED, PUBLIC, XZ_MAGIC
from tests.store.conftest import make_table

PACKED = b"\x85" + b"the transcript's msgpack bytes " * 200
RECORD = {"format": "echoridge.record.v1", "ended": 1_700_000_000_000, "public": True}


async def test_kept_once_compressed_and_read_back(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    assert await storage.archive.get(table) is None
    assert await storage.archive.keep(table, PACKED) is True
    assert await storage.archive.keep(table, b"another build") is False  # (SET NX)
    assert await storage.archive.get(table) == PACKED
    raw = await storage.redis.get(keys.transcript(table))
    assert raw is not None and raw.startswith(XZ_MAGIC) and len(raw) < len(PACKED) / 10
    assert await storage.redis.pttl(keys.transcript(table)) == -1  # (the metadata has none)


async def test_a_zlib_value_kept_before_the_archive_is_read(
    storage: Storage, table_id: str
) -> None:
    table = await make_table(storage, table_id)
    await storage.redis.set(keys.transcript(table), zlib.compress(PACKED))
    assert await storage.archive.get(table) == PACKED


async def test_it_lives_as_long_as_the_tables_metadata(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    await storage.redis.expire(keys.meta(table), 600)
    assert await storage.archive.archive(table, PACKED, RECORD, 0) is True
    for key in (keys.transcript(table), keys.record(table)):
        assert 590_000 < await storage.redis.pttl(key) <= 600_000


async def test_nothing_is_kept_for_a_table_that_is_gone(storage: Storage, table_id: str) -> None:
    assert await storage.archive.keep(table_id, PACKED) is False
    assert await storage.archive.archive(table_id, PACKED, RECORD, 0) is False
    assert await storage.redis.exists(keys.transcript(table_id), keys.record(table_id)) == 0
    assert await storage.redis.zscore(ENDED, table_id) is None


async def test_an_unreadable_kept_value_reads_as_none(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    await storage.redis.set(keys.transcript(table), b"not compressed")
    assert await storage.archive.get(table) is None  # (built again from the log)


async def test_the_record_and_the_indexes(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    assert await storage.archive.record(table) is None and not await storage.archive.archived(table)
    assert await storage.archive.archive(table, PACKED, RECORD, 5_000) is True
    assert await storage.archive.record(table) == RECORD
    assert await storage.archive.archived(table)
    assert await storage.redis.zscore(ENDED, table) == RECORD["ended"]
    assert await storage.redis.zscore(PUBLIC, table) == RECORD["ended"]
    assert await storage.redis.zscore(DUE, table) == 5_000
    assert table in await storage.archive.due(5_000, 1000)
    assert table not in await storage.archive.due(4_999, 1000)
    # a second archiving (another node) keeps the first record and release time
    assert await storage.archive.archive(table, PACKED, {**RECORD, "turns": 9}, 9_000) is False
    assert await storage.archive.record(table) == RECORD
    assert await storage.redis.zscore(DUE, table) == 5_000


async def test_the_live_keys_are_released_only_once_archived(
    storage: Storage, table_id: str
) -> None:
    table = await make_table(storage, table_id)
    await storage.redis.xadd(keys.log(table), {"c": b"x"}, id="0-1")
    await storage.redis.hset(keys.command_ids(table), "0:a", 1)
    assert await storage.archive.keep(table, PACKED) is True  # a transcript, but no record
    assert await storage.archive.release(table) == "not_archived"
    assert await storage.redis.exists(keys.meta(table), keys.log(table)) == 2
    assert await storage.archive.archive(table, PACKED, RECORD, 0) is False  # (record added)
    assert await storage.archive.release(table) == "ok"
    assert await storage.redis.exists(*keys.live(table)) == 0
    assert await storage.archive.get(table) == PACKED
    assert await storage.archive.record(table) == RECORD
    assert await storage.archive.release(table) == "gone"
    assert table not in await storage.archive.due(2**52, 1000)


async def test_retention_drops_an_archived_game(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    assert await storage.archive.archive(table, PACKED, {**RECORD, "ended": 1}, 2) is True
    assert table in await storage.archive.older(2, 1000)
    assert table not in await storage.archive.older(1, 1000)
    await storage.archive.drop(table)
    assert await storage.redis.exists(keys.transcript(table), keys.record(table)) == 0
    assert await storage.redis.exists(*keys.live(table)) == 0
    for index in (ENDED, PUBLIC, DUE):
        assert await storage.redis.zscore(index, table) is None


async def test_raw_and_restore_move_the_stored_bytes(storage: Storage, table_id: str) -> None:
    table = await make_table(storage, table_id)
    assert await storage.archive.raw(table) is None
    await storage.archive.archive(table, PACKED, {**RECORD, "ended": 7}, 0)
    raw = await storage.archive.raw(table)
    assert raw is not None and msgpack.unpackb(raw[1]) == {**RECORD, "ended": 7}
    assert (table, 7) in await storage.archive.page(0, 100_000)
    await storage.archive.drop(table)
    await storage.archive.restore(table, *raw)
    assert await storage.archive.raw(table) == raw
    assert await storage.archive.get(table) == PACKED
    assert await storage.redis.zscore(ENDED, table) == 7
    assert await storage.redis.zscore(DUE, table) is None  # (its live keys are not back)


async def test_the_record_of_games_pages_newest_first_by_player(
    storage: Storage, table_id: str
) -> None:
    """Public games listed by a person's name (case and width ignored), newest first, in pages
    that neither repeat nor skip a game (two games ended in the same millisecond); a private
    game and a bot's name are not listed, but a private game's record is read by its table."""
    name = f"Zoë {table_id}"
    ended = [1_700_000_000_000 + 1000 * i for i in range(7)]
    ended[3] = ended[4]  # a tie
    tables = []
    for i, when in enumerate(ended):
        table = await make_table(storage, f"{table_id}-{i}")
        players = [{"seat": 0, "name": name, "bot": None}, {"seat": 1, "name": "x", "bot": None}]
        record = {**RECORD, "table": table, "ended": when, "players": players}
        await storage.archive.archive(table, PACKED, record, 0)
        tables.append(table)
    private = await make_table(storage, f"{table_id}-p")
    hidden = {**RECORD, "table": private, "public": False, "players": [{"seat": 0, "name": name}]}
    await storage.archive.archive(private, PACKED, hidden, 0)
    bot = await make_table(storage, f"{table_id}-b")
    botted = {**RECORD, "table": bot, "players": [{"seat": 0, "name": name, "bot": "random"}]}
    await storage.archive.archive(bot, PACKED, botted, 0)

    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page, cursor = await storage.archive.listing(3, name.upper(), cursor)
        assert len(page) <= 3
        seen += [r["table"] for r in page]
        if cursor is None:
            break
    assert sorted(seen) == sorted(tables) and len(seen) == 7
    assert [ended[tables.index(t)] for t in seen] == sorted(ended, reverse=True)
    found = await storage.archive.records([private, bot, tables[0], "t-none"])
    assert set(found) == {private, bot, tables[0]}
    await storage.archive.drop(tables[0])
    page, _ = await storage.archive.listing(10, name)
    assert tables[0] not in [r["table"] for r in page] and len(page) == 6
