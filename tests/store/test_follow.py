"""follow(): every append, exactly once and in order, to every follower, whoever appended it."""

from __future__ import annotations

import asyncio

import pytest

from echoridge.store import (
    Appended,
    Entry,
    Head,
    NewEntry,
    Storage,
    TableDamaged,
    genesis,
    keys,
)
from echoridge_rules.commands import StartGame

from .conftest import RedisServer, make_table


def note(i: int) -> NewEntry:
    return NewEntry(i % 4, StartGame(1 + i % 4), ())


async def collect(storage: Storage, table: str, head: Head, n: int) -> list[int]:
    versions: list[int] = []
    async for entry in storage.follower.follow(table, head):
        versions.append(entry.version)
        if len(versions) == n:
            break
    return versions


async def test_two_processes_each_see_every_append_once_in_order(
    redis_server: RedisServer, table_id: str
) -> None:
    """Two Storage instances stand for two server processes: both append, both follow."""
    a = await Storage.open(redis_server.url)
    b = await Storage.open(redis_server.url)
    try:
        await make_table(a, table_id)
        n = 60
        seen_a = asyncio.create_task(collect(a, table_id, genesis(table_id), n))
        seen_b = asyncio.create_task(collect(b, table_id, genesis(table_id), n))
        await asyncio.sleep(0.05)
        head = genesis(table_id)
        for i in range(n):
            writer = a if i % 3 else b
            result = await writer.log.append(table_id, head, f"c{i}", note(i))
            head = result.head  # type: ignore[union-attr]
            if i % 7 == 0:
                await asyncio.sleep(0)  # let the followers run mid-stream sometimes
        got_a, got_b = await asyncio.wait_for(asyncio.gather(seen_a, seen_b), 10)
        assert got_a == got_b == list(range(1, n + 1))
    finally:
        await a.close()
        await b.close()


async def test_one_loop_follows_many_tables(storage: Storage) -> None:
    tables = [await make_table(storage, f"m{i}{id(storage) % 10000}") for i in range(12)]
    tasks = [
        asyncio.create_task(collect(storage, t, genesis(t), 5)) for t in tables
    ]
    await asyncio.sleep(0.05)
    heads = {t: genesis(t) for t in tables}
    for i in range(5):
        for t in tables:
            heads[t] = (await storage.log.append(t, heads[t], f"c{i}", note(i))).head  # type: ignore[union-attr]
    results = await asyncio.wait_for(asyncio.gather(*tasks), 10)
    assert all(r == [1, 2, 3, 4, 5] for r in results)


async def test_a_late_follower_catches_up_then_follows(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    head = genesis(table_id)
    heads = []
    for i in range(10):
        head = (await storage.log.append(table_id, head, f"c{i}", note(i))).head  # type: ignore[union-attr]
        heads.append(head)
    # One follower from the start, one from version 4, both already behind the log.
    early = asyncio.create_task(collect(storage, table_id, genesis(table_id), 15))
    late = asyncio.create_task(collect(storage, table_id, heads[3], 11))
    await asyncio.sleep(0.05)
    for i in range(10, 15):
        head = (await storage.log.append(table_id, head, f"c{i}", note(i))).head  # type: ignore[union-attr]
    assert await asyncio.wait_for(early, 10) == list(range(1, 16))
    assert await asyncio.wait_for(late, 10) == list(range(5, 16))


async def test_following_stops_cleanly_and_can_start_again(
    storage: Storage, table_id: str
) -> None:
    await make_table(storage, table_id)
    head = (await storage.log.append(table_id, genesis(table_id), "c0", note(0))).head  # type: ignore[union-attr]
    assert await asyncio.wait_for(collect(storage, table_id, genesis(table_id), 1), 5) == [1]
    follower = asyncio.create_task(collect(storage, table_id, head, 1))
    await asyncio.sleep(0.05)
    await storage.log.append(table_id, head, "c1", note(1))
    assert await asyncio.wait_for(follower, 5) == [2]


async def test_a_follower_is_told_when_the_log_no_longer_chains(
    storage: Storage, table_id: str
) -> None:
    await make_table(storage, table_id)
    head = genesis(table_id)
    for i in range(3):
        head = (await storage.log.append(table_id, head, f"c{i}", note(i))).head  # type: ignore[union-attr]

    async def follow_all() -> None:
        async for _ in storage.follower.follow(table_id, head):
            pass

    task = asyncio.create_task(follow_all())
    await asyncio.sleep(0.05)
    # Someone writes an entry behind the store's back: it does not chain.
    await storage.redis.xadd(
        keys.log(table_id), {"c": b"\x90", "e": b"\x90", "h": b"\x00" * 32}, id="0-4"
    )
    with pytest.raises(TableDamaged):
        await asyncio.wait_for(task, 10)


async def test_an_append_this_process_made_is_taken_as_read_not_read_back(
    redis_server: RedisServer, table_id: str
) -> None:
    """``appended``: followers here get the process's own entry at once (and only once), the
    loop does not read it back; appends by another process still arrive through XREAD, and an
    entry that is not the next one is ignored."""
    a = await Storage.open(redis_server.url)
    b = await Storage.open(redis_server.url)
    try:
        await make_table(a, table_id)
        seen: list[tuple[int, str]] = []
        n = 30

        async def follow() -> None:
            async for entry in a.follower.follow(table_id, genesis(table_id)):
                seen.append((entry.version, entry.command_id))
                if len(seen) == n:
                    return

        task = asyncio.create_task(follow())
        async with asyncio.timeout(5):  # the follow has begun: its cursor is registered
            while table_id not in a.follower._cursors:
                await asyncio.sleep(0.01)
        head = genesis(table_id)
        for i in range(n):
            mine = i % 3 != 0
            writer = a if mine else b
            new = note(i)
            result = await writer.log.append(table_id, head, f"c{i}", new)
            assert isinstance(result, Appended)
            entry = Entry(
                result.head.version, new.seat, f"c{i}", new.command, new.events,
                result.head.hash, head.hash, result.time,
            )  # fmt: skip
            if mine:
                a.follower.appended(entry, table_id)
                # taken as read at once: the loop's next XREAD starts after it
                assert a.follower._cursors[table_id].head == result.head
                a.follower.appended(entry, table_id)  # a second time: ignored
                stale = Entry(99, None, "x", new.command, (), b"\0" * 32, b"\0" * 32)
                a.follower.appended(stale, table_id)  # not the next entry: ignored
            head = result.head
            if not mine:  # (so the loop has read it, and the next own append is the next entry)
                async with asyncio.timeout(5):
                    while not seen or seen[-1][0] < head.version:
                        await asyncio.sleep(0.005)
        await asyncio.wait_for(task, 10)
        assert seen == [(v, f"c{v - 1}") for v in range(1, n + 1)]
    finally:
        await a.close()
        await b.close()
