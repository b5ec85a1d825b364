"""Contract tests of a table's log on a real Redis: append, load, rebuild, conflicts, duplicates,
damage detection, and one round trip per append."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from echoridge.simulate import game_seed, play_random
from echoridge.store import (
    Appended,
    Conflict,
    Duplicate,
    Head,
    NewEntry,
    Storage,
    StoreUnavailable,
    TableDamaged,
    TableNotFound,
    genesis,
    keys,
)
from echoridge.store.connection import client
from echoridge.store.embedded import free_port
from echoridge_rules import State
from echoridge_rules.commands import Command, StartGame
from echoridge_rules.events import Event
from echoridge_rules.serial import digest

from .conftest import RedisServer, make_table


def game(players: int = 4, seed: int = 1) -> Iterator[tuple[Command, list[Event], State]]:
    return play_random(players, game_seed(seed, 0))


def entry(cmd: Command, events: list[Event]) -> NewEntry:
    return NewEntry(getattr(cmd, "seat", None), cmd, tuple(events))


async def append_all(storage: Storage, table: str, n: int | None = None) -> tuple[Head, State]:
    head = genesis(table)
    state = State()
    for i, (cmd, events, after) in enumerate(game()):
        if n is not None and i >= n:
            break
        result = await storage.log.append(table, head, f"c{i}", entry(cmd, events))
        assert isinstance(result, Appended)
        assert result.head.version == head.version + 1
        head, state = result.head, after
    return head, state


async def test_append_load_round_trip(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    commands: list[tuple[Command, list[Event]]] = [(c, e) for c, e, _ in game()]
    head = genesis(table_id)
    for i, (cmd, events) in enumerate(commands):
        result = await storage.log.append(table_id, head, f"cmd-{i}", entry(cmd, events))
        assert isinstance(result, Appended)
        head = result.head
    loaded = await storage.log.load(table_id)
    assert [e.version for e in loaded] == list(range(1, len(commands) + 1))
    for e, (cmd, events) in zip(loaded, commands, strict=True):
        assert e.command == cmd and list(e.events) == events
        assert e.seat == getattr(cmd, "seat", None)
    assert loaded[-1].head == head
    assert await storage.log.head(table_id) == head
    # Loading after a head returns just the rest, verified from there.
    rest = await storage.log.load(table_id, loaded[9].head)
    assert [e.version for e in rest] == list(range(11, len(commands) + 1))


async def test_rebuild_equals_the_engine_state(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    head, state = await append_all(storage, table_id)
    rebuilt = await storage.log.rebuild(table_id)
    assert rebuilt.head == head
    assert digest(rebuilt.state) == digest(state)
    assert rebuilt.events == sum(len(e.events) for e in await storage.log.load(table_id))


async def test_a_stale_head_conflicts_and_appends_nothing(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    head, _ = await append_all(storage, table_id, 5)
    stale = (await storage.log.load(table_id))[2].head
    result = await storage.log.append(table_id, stale, "late", NewEntry(0, StartGame(2), ()))
    assert result == Conflict(5)
    assert await storage.log.head(table_id) == head
    ahead = Head(9, b"\x00" * 32)
    late = NewEntry(0, StartGame(2), ())
    assert await storage.log.append(table_id, ahead, "x", late) == Conflict(5)


async def test_a_repeated_command_id_returns_the_original(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    head, _ = await append_all(storage, table_id, 6)
    original = (await storage.log.load(table_id))[3]
    # A client retrying command c3 after a lost connection, with whatever head it now has.
    result = await storage.log.append(table_id, head, "c3", NewEntry(1, StartGame(3), ()))
    assert isinstance(result, Duplicate)
    assert result.entry == original
    assert await storage.log.head(table_id) == head  # nothing appended


async def test_commands_without_an_id_are_never_duplicates(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    head = genesis(table_id)
    for _ in range(3):
        result = await storage.log.append(table_id, head, "", NewEntry(None, StartGame(2), ()))
        assert isinstance(result, Appended)
        head = result.head
    assert head.version == 3


async def test_appending_to_an_unknown_table_is_refused(storage: Storage, table_id: str) -> None:
    with pytest.raises(TableNotFound):
        await storage.log.append(table_id, genesis(table_id), "a", NewEntry(0, StartGame(2), ()))


async def roll_back(storage: Storage, table: str, keep: int) -> None:
    """What a failover to a replica that had only the first ``keep`` entries leaves behind."""
    log = keys.log(table)
    rows = await storage.redis.xrange(log)
    await storage.redis.delete(log)
    for stream_id, fields in rows[:keep]:
        await storage.redis.xadd(log, fields, id=stream_id)


async def test_a_rolled_back_log_is_damaged(storage: Storage, table_id: str) -> None:
    """A failover that lost the last entries: a reader that saw them refuses to go on."""
    await make_table(storage, table_id)
    head, _ = await append_all(storage, table_id, 8)
    await roll_back(storage, table_id, keep=6)
    with pytest.raises(TableDamaged) as err:
        await storage.log.load(table_id, head)
    assert err.value.version == 8
    # The appender that saw version 8 conflicts, and catching up shows the damage.
    result = await storage.log.append(table_id, head, "next", NewEntry(0, StartGame(2), ()))
    assert result == Conflict(6)


async def test_deleted_last_entries_are_damage_not_a_crash(
    storage: Storage, table_id: str
) -> None:
    """Entries deleted in place (XDEL): the stream remembers its top id, so the next append at
    that id is impossible: reported as damage, not as a Redis error."""
    await make_table(storage, table_id)
    await append_all(storage, table_id, 6)
    await storage.redis.xdel(keys.log(table_id), "0-6")
    entries = await storage.log.load(table_id)
    with pytest.raises(TableDamaged):
        await storage.log.append(table_id, entries[-1].head, "n", NewEntry(0, StartGame(2), ()))


async def test_a_rewritten_history_is_damaged(storage: Storage, table_id: str) -> None:
    """Rolled back, then extended again by someone else: same version, different entry."""
    await make_table(storage, table_id)
    head, _ = await append_all(storage, table_id, 6)
    await roll_back(storage, table_id, keep=5)
    entries = await storage.log.load(table_id)
    other = await storage.log.append(
        table_id, entries[-1].head, "other", NewEntry(0, StartGame(4), ())
    )
    assert isinstance(other, Appended) and other.head.version == 6
    with pytest.raises(TableDamaged):
        await storage.log.load(table_id, head)
    with pytest.raises(TableDamaged):
        await storage.log.append(table_id, head, "mine", NewEntry(0, StartGame(2), ()))


async def test_an_edited_entry_is_damaged(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    await append_all(storage, table_id, 5)
    log = keys.log(table_id)
    rows = await storage.redis.xrange(log)
    await storage.redis.delete(log)
    for stream_id, fields in rows:
        if stream_id == b"0-3":
            fields = {**fields, b"e": fields[b"e"][:-1] + b"\x00"}
        await storage.redis.xadd(log, fields, id=stream_id)
    with pytest.raises(TableDamaged) as err:
        await storage.log.load(table_id)
    assert err.value.version == 3
    with pytest.raises(TableDamaged):
        await storage.log.rebuild(table_id)


async def test_a_missing_entry_is_damaged(storage: Storage, table_id: str) -> None:
    await make_table(storage, table_id)
    await append_all(storage, table_id, 5)
    await storage.redis.xdel(keys.log(table_id), "0-2")
    with pytest.raises(TableDamaged):
        await storage.log.load(table_id)


async def test_one_round_trip_per_append(redis_server: RedisServer, table_id: str) -> None:
    """Counted by Redis itself: MONITOR shows each command a client sends (commands run inside
    a script are shown apart, as sent by lua)."""
    storage = await Storage.open(redis_server.url)
    monitor_client = client(redis_server.url)
    try:
        await make_table(storage, table_id)
        client_id = await storage.redis.client_id()
        seen: list[str] = []
        ready = asyncio.Event()

        async def watch() -> None:
            async with monitor_client.monitor() as m:
                ready.set()
                async for command in m.listen():
                    if command.get("client_type") != "lua" and table_id in command["command"]:
                        seen.append(command["command"].split()[0].upper())

        watcher = asyncio.create_task(watch())
        await ready.wait()
        await asyncio.sleep(0.2)
        head = genesis(table_id)
        appended = 0
        for i, (cmd, events, _) in enumerate(game()):
            if i == 20:
                break
            result = await storage.log.append(table_id, head, f"c{i}", entry(cmd, events))
            assert isinstance(result, Appended)
            head, appended = result.head, appended + 1
        await storage.redis.ping()
        await asyncio.sleep(0.3)
        watcher.cancel()
        assert appended == 20
        assert seen == ["EVALSHA"] * 20, seen
        assert client_id  # the storage connection is a real client of the server
    finally:
        await storage.close()
        await monitor_client.aclose()


async def test_redis_down_is_a_store_error_not_a_redis_one() -> None:
    with pytest.raises(StoreUnavailable):
        await Storage.open(f"redis://127.0.0.1:{free_port()}/0")


async def test_redis_going_away_mid_use_is_a_store_error(
    start_redis: object, table_id: str
) -> None:
    server: RedisServer = start_redis()  # type: ignore[operator]
    storage = await Storage.open(server.url)
    try:
        await make_table(storage, table_id)
        server.stop()
        with pytest.raises(StoreUnavailable):
            await storage.log.append(
                table_id, genesis(table_id), "a", NewEntry(0, StartGame(2), ())
            )
        with pytest.raises(StoreUnavailable):
            await storage.log.load(table_id)
    finally:
        await storage.close()
