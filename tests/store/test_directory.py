"""The directory (tables' metadata, secrets and the lobby index) and the checks Storage.open makes
on a Redis before using it.  Real redis-servers only.

Tests that look at the whole lobby index use a Redis of their own (``lobby``), since the
session server is shared with every other store test."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import pytest
from redis import exceptions as rexc

from echoridge.store import (
    RedisMisconfigured,
    Storage,
    StoreError,
    StoreUnavailable,
    TableExists,
    TableNotFound,
    keys,
)
from echoridge.store.directory import Directory
from echoridge.store.embedded import free_port
from echoridge.store.lobbyindex import INDEX_KEYS, index_key
from tests.store.conftest import RedisServer

StartRedis = Callable[..., RedisServer]

SECRET = bytes(range(256))  # binary-safe: every byte value, NUL and invalid UTF-8 included


@pytest.fixture
async def lobby(start_redis: StartRedis) -> AsyncIterator[Storage]:
    """Storage on a fresh Redis of this test's own: the lobby index holds only its tables."""
    s = await Storage.open(start_redis().url)
    yield s
    await s.close()


async def create(
    directory: Directory, table: str, status: str = "open", public: bool = True
) -> None:
    await directory.create(table, {"status": status, "public": "1" if public else "0"})
    time.sleep(0.002)  # the lobby orders by creation time in ms: keep creations apart


async def listed(directory: Directory, limit: int = 100) -> list[str]:
    """The first page of the lobby, newest first."""
    return [table for table, _ in (await directory.page(limit)).tables]


async def indexed(storage: Storage) -> list[str]:
    """The raw lobby index (every listed table), newest first, without the read-time repair."""
    return [
        m.decode() if isinstance(m, bytes) else str(m)
        for m in await storage.redis.zrevrange(index_key(), 0, -1)
    ]


async def in_any_index(storage: Storage, table: str) -> bool:
    return any([await storage.redis.zscore(key, table) is not None for key in INDEX_KEYS])


# --- create, meta, update, secrets -----------------------------------------------------------


async def test_create_stores_meta_and_secrets(storage: Storage, table_id: str) -> None:
    before = int(time.time() * 1000)
    await storage.directory.create(
        table_id,
        {"status": "open", "public": "0", "seats": "4", "name": "Ridge night"},
        {"seed": SECRET, "token:0": b"hash0"},
    )
    meta = await storage.directory.meta(table_id)
    assert before <= int(meta.pop("created")) <= int(time.time() * 1000)
    assert meta == {"status": "open", "public": "0", "seats": "4", "name": "Ridge night"}
    assert await storage.directory.secret(table_id, "seed") == SECRET
    assert await storage.directory.secret(table_id, "token:0") == b"hash0"
    assert await storage.directory.secret(table_id, "token:1") is None
    # Secrets are kept apart from the metadata, and the log is not created by create().
    assert "seed" not in meta
    assert await storage.redis.exists(keys.log(table_id)) == 0


async def test_create_without_secrets(storage: Storage, table_id: str) -> None:
    await storage.directory.create(table_id, {"status": "open"})
    assert (await storage.directory.meta(table_id))["status"] == "open"
    assert await storage.directory.secret(table_id, "seed") is None


async def test_second_create_is_table_exists_and_changes_nothing(
    storage: Storage, table_id: str
) -> None:
    await storage.directory.create(table_id, {"status": "playing", "public": "0"}, {"seed": b"1"})
    first = await storage.directory.meta(table_id)
    with pytest.raises(TableExists):
        await storage.directory.create(
            table_id, {"status": "open", "public": "1", "extra": "x"}, {"seed": b"2"}
        )
    assert await storage.directory.meta(table_id) == first
    assert await storage.directory.secret(table_id, "seed") == b"1"
    assert not await in_any_index(storage, table_id)


@pytest.mark.parametrize(
    "table",
    [
        "",
        "a" * 65,
        "has space",
        "br{ace",
        "br}ace",
        "co:lon",
        "sl/ash",
        "st*r",
        "ünï",
        "new\nline",
        "tab\t",
        "dot.ted",
    ],
)
async def test_invalid_table_ids_are_refused(storage: Storage, table: str) -> None:
    with pytest.raises(StoreError, match="invalid table id"):
        await storage.directory.create(table, {"status": "open", "public": "1"})
    assert await storage.redis.exists(keys.meta(table)) == 0
    assert not await in_any_index(storage, table)


@pytest.mark.parametrize("table", ["a" * 64, "A-b_9", "x"])
async def test_valid_table_id_edges_are_accepted(lobby: Storage, table: str) -> None:
    await lobby.directory.create(table, {"status": "open", "public": "1"})
    assert (await lobby.directory.meta(table))["status"] == "open"
    assert await listed(lobby.directory) == [table]


async def test_create_needs_a_status(storage: Storage, table_id: str) -> None:
    with pytest.raises(StoreError, match="status"):
        await storage.directory.create(table_id, {"public": "1"})
    with pytest.raises(TableNotFound):
        await storage.directory.meta(table_id)


async def test_update_changes_fields_and_returns_the_new_meta(
    storage: Storage, table_id: str
) -> None:
    await storage.directory.create(table_id, {"status": "open", "public": "0", "seats": "3"})
    created = (await storage.directory.meta(table_id))["created"]
    new = await storage.directory.update(table_id, {"status": "playing", "turn": "2"})
    assert new == {
        "status": "playing",
        "public": "0",
        "seats": "3",
        "turn": "2",
        "created": created,
    }
    assert await storage.directory.meta(table_id) == new
    assert await storage.directory.update(table_id, {}) == new  # no change: just the metadata


async def test_unknown_tables_are_table_not_found(storage: Storage, table_id: str) -> None:
    with pytest.raises(TableNotFound):
        await storage.directory.meta(table_id)
    with pytest.raises(TableNotFound):
        await storage.directory.update(table_id, {"status": "open", "public": "1"})
    with pytest.raises(TableNotFound):
        await storage.directory.update(table_id, {})
    # A refused update creates nothing: no metadata, no lobby entry.
    assert await storage.redis.exists(keys.meta(table_id)) == 0
    assert not await in_any_index(storage, table_id)
    assert await storage.directory.secret(table_id, "seed") is None


async def test_set_secret_overwrites_and_adds(storage: Storage, table_id: str) -> None:
    await storage.directory.create(table_id, {"status": "open"}, {"seed": b"old"})
    await storage.directory.set_secret(table_id, "seed", SECRET)
    await storage.directory.set_secret(table_id, "token:2", b"\x00h2")
    assert await storage.directory.secret(table_id, "seed") == SECRET
    assert await storage.directory.secret(table_id, "token:2") == b"\x00h2"
    assert "token:2" not in await storage.directory.meta(table_id)


async def test_set_secret_on_an_unknown_table_is_refused(storage: Storage, table_id: str) -> None:
    try:
        with pytest.raises(TableNotFound):
            await storage.directory.set_secret(table_id, "token:0", b"stale")
    finally:
        orphan = await storage.redis.exists(keys.secrets(table_id))
        await storage.redis.delete(keys.secrets(table_id))
    assert orphan == 0


# --- the lobby index -------------------------------------------------------------------------


async def test_lobby_lists_exactly_the_open_public_tables_newest_first(lobby: Storage) -> None:
    d = lobby.directory
    # Created in the order of their ids, so an index sorted by id would show.
    await create(d, "t-a")
    await create(d, "t-private", public=False)
    await create(d, "t-b")
    await create(d, "t-playing", status="playing")
    await create(d, "t-over", status="over", public=True)
    await create(d, "t-c")
    page = await d.page(100)
    assert [t for t, _ in page.tables] == ["t-c", "t-b", "t-a"] and page.next is None
    for table, meta in page.tables:
        assert meta == await d.meta(table)
    assert await indexed(lobby) == ["t-c", "t-b", "t-a"]  # nothing else was ever indexed
    assert await listed(d, limit=2) == ["t-c", "t-b"]


async def test_lobby_is_empty_without_tables(lobby: Storage) -> None:
    assert (await lobby.directory.page(50)).tables == []
    assert await lobby.directory.reindex() == 0


async def test_lobby_drops_a_table_whose_status_changes(lobby: Storage) -> None:
    d = lobby.directory
    for t in ("t-1", "t-2", "t-3"):
        await create(d, t)
    await d.update("t-2", {"status": "playing"})
    assert await listed(d) == ["t-3", "t-1"]
    assert await indexed(lobby) == ["t-3", "t-1"]  # dropped by update, not only hidden
    await d.update("t-2", {"status": "open"})  # back in, at its creation time
    assert await listed(d) == ["t-3", "t-2", "t-1"]


async def test_lobby_drops_a_table_made_private_and_lists_one_made_public(lobby: Storage) -> None:
    d = lobby.directory
    await create(d, "t-1")
    await create(d, "t-2", public=False)
    await d.update("t-1", {"public": "0"})
    assert await listed(d) == []
    assert await indexed(lobby) == []
    await d.update("t-2", {"public": "1"})
    assert await listed(d) == ["t-2"]
    await d.update("t-1", {"public": "1"})
    assert await listed(d) == ["t-2", "t-1"]


async def test_lobby_read_repairs_a_table_no_longer_open(lobby: Storage) -> None:
    d = lobby.directory
    for t in ("t-1", "t-2", "t-3"):
        await create(d, t)
    # Changed behind the store's back (as by a server that died between the metadata and the
    # index writes): the index still lists t-2.
    await lobby.redis.hset(keys.meta("t-2"), "status", "over")
    assert await indexed(lobby) == ["t-3", "t-2", "t-1"]
    assert await listed(d) == ["t-3", "t-1"]
    assert await indexed(lobby) == ["t-3", "t-1"]  # the read removed it


async def test_lobby_read_repairs_a_table_made_private_behind_its_back(lobby: Storage) -> None:
    d = lobby.directory
    await create(d, "t-1")
    await lobby.redis.hset(keys.meta("t-1"), "public", "0")
    assert await listed(d) == []
    assert await indexed(lobby) == []


async def test_lobby_read_repairs_a_table_whose_meta_was_deleted(lobby: Storage) -> None:
    d = lobby.directory
    await create(d, "t-1")
    await create(d, "t-2")
    await lobby.redis.delete(keys.meta("t-1"))
    assert await listed(d) == ["t-2"]
    assert await indexed(lobby) == ["t-2"]
    with pytest.raises(TableNotFound):
        await d.meta("t-1")


async def test_a_page_with_stale_entries_is_short_but_its_cursor_goes_on(lobby: Storage) -> None:
    # The cost of a page is bounded by its size: entries found stale are dropped, not replaced
    # by reading further; the cursor goes on after them.
    d = lobby.directory
    for t in ("t-1", "t-2", "t-3"):
        await create(d, t)
    await lobby.redis.hset(keys.meta("t-3"), "status", "over")
    first = await d.page(1)
    assert first.tables == [] and first.next is not None
    second = await d.page(1, cursor=first.next)
    assert [t for t, _ in second.tables] == ["t-2"] and second.next is not None
    third = await d.page(1, cursor=second.next)
    assert [t for t, _ in third.tables] == ["t-1"] and third.next is None


async def test_reindex_restores_a_deleted_index(lobby: Storage) -> None:
    d = lobby.directory
    for t in ("t-a", "t-b", "t-c"):
        await create(d, t)
    await create(d, "t-private", public=False)
    await create(d, "t-playing", status="playing")
    await d.update("t-b", {"status": "playing"})
    before = (await d.page(50)).tables
    assert [t for t, _ in before] == ["t-c", "t-a"]

    await lobby.redis.delete(*INDEX_KEYS)
    assert (await d.page(50)).tables == []
    assert await d.reindex() == 2
    assert (await d.page(50)).tables == before  # same tables, same order (creation time kept)
    assert await indexed(lobby) == ["t-c", "t-a"]
    assert await d.reindex() == 2  # idempotent


async def test_reindex_adds_a_table_missing_from_the_index(lobby: Storage) -> None:
    d = lobby.directory
    await create(d, "t-1")
    await create(d, "t-2")
    for key in INDEX_KEYS:  # a server died between the table and the index
        await lobby.redis.zrem(key, "t-1")
    assert await listed(d) == ["t-2"]
    assert await d.reindex() == 2
    assert await listed(d) == ["t-2", "t-1"]


async def test_reindex_drops_tables_whose_meta_says_not_open(lobby: Storage) -> None:
    d = lobby.directory
    await create(d, "t-1")
    await create(d, "t-2")
    await lobby.redis.hset(keys.meta("t-1"), "status", "over")
    assert await d.reindex() == 1
    assert await indexed(lobby) == ["t-2"]


async def test_reindex_leaves_no_entry_without_metadata(lobby: Storage) -> None:
    d = lobby.directory
    await create(d, "t-1")
    await create(d, "t-2")
    await lobby.redis.delete(keys.meta("t-1"))
    assert await d.reindex() == 1
    assert await indexed(lobby) == ["t-2"]


# --- Storage.open checks the Redis -----------------------------------------------------------


async def test_a_safe_redis_is_accepted(start_redis: StartRedis) -> None:
    server = start_redis("--appendfsync", "always")
    s = await Storage.open(server.url)
    try:
        assert await s.redis.ping()
    finally:
        await s.close()


async def test_an_evicting_redis_is_refused_with_the_fix(start_redis: StartRedis) -> None:
    server = start_redis("--maxmemory-policy", "allkeys-lru")
    with pytest.raises(RedisMisconfigured) as caught:
        await Storage.open(server.url)
    message = str(caught.value)
    assert "maxmemory-policy is allkeys-lru" in message
    assert "set maxmemory-policy noeviction" in message
    assert "appendonly" not in message  # only what is wrong


@pytest.mark.parametrize("policy", ["volatile-lru", "allkeys-random", "volatile-ttl"])
async def test_every_evicting_policy_is_refused(start_redis: StartRedis, policy: str) -> None:
    server = start_redis("--maxmemory-policy", policy)
    with pytest.raises(RedisMisconfigured, match=f"maxmemory-policy is {policy}"):
        await Storage.open(server.url)


async def test_a_redis_without_aof_is_refused_with_the_fix(start_redis: StartRedis) -> None:
    server = start_redis("--appendonly", "no")
    with pytest.raises(RedisMisconfigured) as caught:
        await Storage.open(server.url)
    message = str(caught.value)
    assert "appendonly is off" in message
    assert "set appendonly yes" in message
    assert "maxmemory-policy" not in message


async def test_both_problems_are_named_at_once(start_redis: StartRedis) -> None:
    server = start_redis("--appendonly", "no", "--maxmemory-policy", "allkeys-lfu")
    with pytest.raises(RedisMisconfigured) as caught:
        await Storage.open(server.url)
    assert "maxmemory-policy noeviction" in str(caught.value)
    assert "appendonly yes" in str(caught.value)


@pytest.mark.parametrize(
    "settings", [("--maxmemory-policy", "allkeys-lru"), ("--appendonly", "no")]
)
async def test_check_false_accepts_an_unsafe_redis(
    start_redis: StartRedis, settings: tuple[str, str], table_id: str
) -> None:
    server = start_redis(*settings)
    s = await Storage.open(server.url, check=False)
    try:
        await s.directory.create(table_id, {"status": "open", "public": "1"})
        assert await listed(s.directory) == [table_id]
    finally:
        await s.close()


async def test_a_redis_refusing_config_get_is_refused_naming_the_escape(
    start_redis: StartRedis,
) -> None:
    # Managed Redis services rename or forbid CONFIG: the store cannot check, and says how to
    # go on after checking by hand.
    server = start_redis("--rename-command", "CONFIG", "")
    with pytest.raises(RedisMisconfigured) as caught:
        await Storage.open(server.url)
    assert "--skip-redis-checks" in str(caught.value)
    assert "noeviction" in str(caught.value)
    s = await Storage.open(server.url, check=False)
    await s.close()


async def test_an_unreachable_redis_is_store_unavailable() -> None:
    port = free_port()  # nobody listens there
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        await Storage.open(f"redis://127.0.0.1:{port}/0")
    assert not isinstance(caught.value, rexc.RedisError)
    assert isinstance(caught.value.__cause__, (rexc.RedisError, OSError))
    assert "connecting" in str(caught.value)
    assert time.monotonic() - started < 10


async def test_an_unreachable_unix_socket_is_store_unavailable() -> None:
    with pytest.raises(StoreUnavailable):
        await Storage.open("unix:///tmp/echo-ridge-no-such-dir/redis.sock", check=False)


async def test_a_redis_that_goes_away_gives_store_unavailable(
    start_redis: StartRedis, table_id: str
) -> None:
    server = start_redis()
    s = await Storage.open(server.url)
    try:
        await s.directory.create(table_id, {"status": "open", "public": "1"})
        server.stop()
        with pytest.raises(StoreUnavailable):
            await s.directory.meta(table_id)
        with pytest.raises(StoreUnavailable):
            await s.directory.page(50)
        with pytest.raises(StoreUnavailable):
            await s.directory.create(table_id + "x", {"status": "open"})
    finally:
        await s.close()


# --- Storage.close ---------------------------------------------------------------------------


async def test_close_soon_after_open_returns(start_redis: StartRedis) -> None:
    # Regression: Follower.stop() once cancelled the follower task a single time, and Python
    # 3.11's asyncio.wait_for (which redis-py wraps around sends when a socket timeout is set)
    # swallows a cancel that arrives as the send completes: close() then waited forever.
    server = start_redis()
    for attempt in range(100):
        s = await Storage.open(server.url)
        await asyncio.sleep((attempt % 10) / 1000)  # sweep the window of the follower's start
        closing = asyncio.ensure_future(s.close())
        done, _ = await asyncio.wait({closing}, timeout=2)
        if not done:
            task = s.follower._task
            while task is not None and not task.done():  # unstick it, then fail
                task.cancel()
                await asyncio.wait({task}, timeout=0.1)
            await closing
            pytest.fail(f"Storage.close() did not return (attempt {attempt})")
