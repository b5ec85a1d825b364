"""The lobby's indexes and quotas on a real Redis: pages through tables created in the same
millisecond, the expiry script's decisions (tables made "in the past" through their metadata),
the keys a closed table leaves (each with a time to live), and the quota script's atomicity
and its repair of tables no longer waiting."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable

import pytest

from echoridge.store import Storage, keys
from echoridge.store.lobbyindex import EXPIRY, ExpiryPolicy
from echoridge.store.quota import Granted, TooFast, TooMany
from tests.store.conftest import RedisServer

MINUTE = 60_000


@pytest.fixture
async def lobby(start_redis: Callable[..., RedisServer]) -> AsyncIterator[Storage]:
    """Storage on a Redis of the test's own: the indexes hold only its tables."""
    s = await Storage.open(start_redis().url)
    yield s
    await s.close()


def now_ms() -> int:
    return int(time.time() * 1000)


async def open_table(
    storage: Storage, table: str, created: int, seated: dict[int, str] | None = None, **more: str
) -> None:
    """An open public 4-seat table created at ``created`` (ms); ``seated``: seat -> "" for a
    person or a bot kind."""
    meta = {"status": "open", "public": "1", "spectators": "1", "seats": "4"}
    meta["created"] = str(created)
    for seat, bot in (seated or {}).items():
        meta[f"name:{seat}"] = f"p{seat}"
        if bot:
            meta[f"bot:{seat}"] = bot
    meta["taken"] = str(len(seated or {}))
    await storage.directory.create(table, {**meta, **more}, {"owner": b"x"})


# --- pages ------------------------------------------------------------------------------------


async def test_pages_through_tables_of_one_millisecond_show_each_once(lobby: Storage) -> None:
    same = now_ms()
    tables = [f"t-{i:02d}" for i in range(12)]
    for table in tables:
        await open_table(lobby, table, same)
    await open_table(lobby, "t-older", same - 1)
    await open_table(lobby, "t-newer", same + 1)
    seen, cursor = [], None
    for _ in range(20):
        page = await lobby.directory.page(5, cursor=cursor)
        seen += [t for t, _ in page.tables]
        cursor = page.next
        if cursor is None:
            break
    # Newest first; one millisecond's tables by id, backwards.
    assert seen == ["t-newer", *sorted(tables, reverse=True), "t-older"]


async def test_full_tables_are_not_offered(lobby: Storage) -> None:
    await open_table(lobby, "t-full", now_ms(), {0: "", 1: "", 2: "", 3: "greedy"})
    await open_table(lobby, "t-room", now_ms(), {0: ""})
    assert [t for t, _ in (await lobby.directory.page(10)).tables] == ["t-room"]
    assert [t for t, _ in (await lobby.directory.page(10, status="waiting")).tables] == ["t-room"]


# --- expiry -----------------------------------------------------------------------------------

POLICY = ExpiryPolicy(idle_ms=30 * MINUTE, max_ms=120 * MINUTE)


@pytest.mark.parametrize(
    ("age_minutes", "seated", "idle_minutes", "outcome"),
    [
        (10, {}, None, "later"),  # nobody ever sat: idle since its creation
        (31, {}, None, "ok"),
        (31, {0: "greedy"}, None, "ok"),  # bots are not people
        (31, {0: ""}, None, "later"),  # someone sits there
        (119, {0: ""}, None, "later"),
        (121, {0: ""}, None, "ok"),  # whoever sits there
        (60, {}, 20, "later"),  # the last one left 20 minutes ago
        (60, {}, 31, "ok"),
    ],
)
async def test_the_expiry_script_closes_a_table_only_when_its_time_is_up(
    lobby: Storage,
    age_minutes: int,
    seated: dict[int, str],
    idle_minutes: int | None,
    outcome: str,
) -> None:
    d = lobby.directory
    d.expiry = POLICY
    more = {} if idle_minutes is None else {"idle_since": str(now_ms() - idle_minutes * MINUTE)}
    await open_table(lobby, "t-1", now_ms() - age_minutes * MINUTE, seated, **more)
    assert await lobby.redis.zscore(EXPIRY, "t-1") is not None
    assert await d.lobby.due(now_ms()) == (["t-1"] if outcome == "ok" else [])
    got, at = await d.expire("t-1")
    assert got == outcome
    meta = await d.meta("t-1")
    if outcome == "ok":
        assert meta["status"] == "closed" and meta["closed_by"] == "expiry"
        assert await lobby.redis.zscore(EXPIRY, "t-1") is None
        assert (await d.page(10)).tables == []
    else:
        assert meta["status"] == "open" and at is not None and at > now_ms()
        assert await lobby.redis.zscore(EXPIRY, "t-1") == at


async def test_leaving_and_joining_move_the_idle_time(lobby: Storage) -> None:
    d = lobby.directory
    d.expiry = POLICY
    created = now_ms() - 60 * MINUTE
    await open_table(lobby, "t-1", created)
    seat = await d.join("t-1", "Ana", b"\x01" * 16, "hash-a")
    assert seat == 0
    meta = await d.meta("t-1")
    assert "idle_since" not in meta
    assert await lobby.redis.zscore(EXPIRY, "t-1") == created + POLICY.max_ms
    assert await d.leave("t-1", 0, "hash-a") == "ok"
    meta = await d.meta("t-1")
    assert abs(int(meta["idle_since"]) - now_ms()) < 5_000
    assert await lobby.redis.zscore(EXPIRY, "t-1") == int(meta["idle_since"]) + POLICY.idle_ms
    assert (await d.expire("t-1"))[0] == "later"


async def test_no_policy_means_no_expiry(lobby: Storage) -> None:
    await open_table(lobby, "t-1", now_ms() - 1000 * MINUTE)
    assert await lobby.redis.zscore(EXPIRY, "t-1") is None
    assert (await lobby.directory.expire("t-1"))[0] == "never"
    assert (await lobby.directory.meta("t-1"))["status"] == "open"


@pytest.mark.parametrize("how", ["close", "expire"])
async def test_a_closed_table_leaves_only_keys_that_expire(lobby: Storage, how: str) -> None:
    d = lobby.directory
    d.expiry = POLICY
    table = "t-" + uuid.uuid4().hex[:8]
    await open_table(lobby, table, now_ms() - 200 * MINUTE)
    await d.join(table, "Ana", b"\x01" * 16, "hash-a")
    for channel in ("table", "spectators"):
        await lobby.chat.add(
            table, channel, sender="seat:0", name="Ana", text="hi", version=0, at=0, seat=0
        )
    await lobby.redis.hset(f"er:{{{table}}}:away", "0", "1")
    await lobby.redis.sadd(f"er:{{{table}}}:nodes", "n1")
    await lobby.redis.hset(keys.command_ids(table), "x", "1")
    outcome = await d.close(table) if how == "close" else (await d.expire(table))[0]
    assert outcome == "ok"
    names = [k async for k in lobby.redis.scan_iter(match=f"er:{{{table}}}:*")]
    assert len(names) >= 7
    for name in names:
        assert 0 < await lobby.redis.ttl(name) <= 3600, name
    assert await d.close(table) == "closed"
    assert (await d.expire(table))[0] == "closed"


# --- quotas -----------------------------------------------------------------------------------


async def test_concurrent_reservations_grant_exactly_the_rate(lobby: Storage) -> None:
    who = "ip:192.0.2.1"
    outcomes = await asyncio.gather(
        *(
            lobby.quotas.reserve(
                who, f"t-{i}", per_window=7, window_ms=MINUTE, waiting=0, waiting_seconds=60
            )
            for i in range(40)
        )
    )
    assert sum(isinstance(o, Granted) for o in outcomes) == 7
    refused = [o for o in outcomes if not isinstance(o, Granted)]
    assert all(isinstance(o, TooFast) and 0 < o.retry_ms <= MINUTE for o in refused)
    other = await lobby.quotas.reserve(
        "ip:192.0.2.2", "t-x", per_window=7, window_ms=MINUTE, waiting=0, waiting_seconds=60
    )
    assert isinstance(other, Granted)


async def test_the_waiting_cap_drops_tables_no_longer_open(lobby: Storage) -> None:
    who = "ip:2001:db8::/64"

    async def reserve(table: str) -> object:
        return await lobby.quotas.reserve(
            who, table, per_window=0, window_ms=MINUTE, waiting=2, waiting_seconds=60
        )

    for table in ("t-a", "t-b"):
        assert isinstance(await reserve(table), Granted)
        await open_table(lobby, table, now_ms())
    assert await reserve("t-c") == TooMany(2)
    await lobby.directory.update("t-a", {"status": "playing"})
    assert isinstance(await reserve("t-c"), Granted)  # t-a no longer waits
    assert await reserve("t-d") == TooMany(2)  # t-c: reserved, not created yet, counts
    ttl = await lobby.redis.ttl("er:quota:{ip:2001:db8::/64}:waiting")
    assert 0 < ttl <= 60
