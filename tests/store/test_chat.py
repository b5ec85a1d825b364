"""The chat store on a real Redis: lines numbered 1, 2, 3 per channel in one round trip, capped
streams with the table's hash tag, outside the game log, a follower on another Storage that
hands every new line on in order, and the rate limit kept in the same script; nothing written for
a table with no metadata (a finished game's chat is released with it: store/archive.py)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from echoridge.store import Storage, TableNotFound
from echoridge.store.chat import MAXLEN, Rate, RateLimited, StoredLine, key, rate_key
from tests.conftest import RedisServer
from tests.store.conftest import make_table


@pytest.fixture
async def table_id(storage: Storage) -> str:
    """A table (its metadata: chat is refused without it)."""
    return await make_table(storage, "t" + uuid.uuid4().hex[:12])


async def add(storage: Storage, table: str, channel: str, text: str) -> StoredLine:
    return await storage.chat.add(
        table, channel, sender="seat:0", name="Ana", text=text, version=3, at=1, seat=0
    )


async def test_lines_are_numbered_per_channel_and_kept_in_their_own_streams(
    storage: Storage, table_id: str
) -> None:
    assert key(table_id, "table") == f"er:{{{table_id}}}:chat:table"
    firsts = [await add(storage, table_id, "table", f"t{i}") for i in range(3)]
    other = await add(storage, table_id, "spectators", "s0")
    assert [line.seq for line in firsts] == [1, 2, 3] and other.seq == 1
    recent = await storage.chat.recent(table_id)
    assert [line.text for line in recent["table"]] == ["t0", "t1", "t2"]
    assert recent["table"][0] == firsts[0]
    assert [line.text for line in recent["spectators"]] == ["s0"]
    assert not await storage.redis.exists(f"er:{{{table_id}}}:log")  # not in the game log


async def test_nothing_is_said_at_a_table_with_no_metadata(storage: Storage) -> None:
    gone = "t" + uuid.uuid4().hex[:12]
    with pytest.raises(TableNotFound):
        await add(storage, gone, "table", "hello?")
    assert not await storage.redis.exists(key(gone, "table"), rate_key(gone, "seat:0"))


async def test_a_stream_is_capped_and_numbering_goes_on(storage: Storage, table_id: str) -> None:
    for i in range(MAXLEN + 150):
        await add(storage, table_id, "table", f"l{i}")
    kept = (await storage.chat.recent(table_id))["table"]
    assert MAXLEN <= len(kept) < MAXLEN + 150
    assert kept[-1].seq == MAXLEN + 150 and kept[-1].text == f"l{MAXLEN + 149}"


async def test_another_storage_follows_new_lines_in_order(
    redis_server: RedisServer, storage: Storage, table_id: str
) -> None:
    await add(storage, table_id, "table", "before")
    other = await Storage.open(redis_server.url)
    got: list[StoredLine] = []
    arrived = asyncio.Event()

    def take(lines: list[StoredLine]) -> None:
        got.extend(lines)
        if len(got) >= 3:
            arrived.set()

    try:
        handle = other.chat_follower.follow(table_id, {"table": 1}, take)
        for text in ("a", "b"):
            await add(storage, table_id, "table", text)
        await add(storage, table_id, "spectators", "c")
        await asyncio.wait_for(arrived.wait(), 10)
        assert sorted((line.channel, line.seq, line.text) for line in got) == [
            ("spectators", 1, "c"), ("table", 2, "a"), ("table", 3, "b"),
        ]
        other.chat_follower.unfollow(table_id, handle)
    finally:
        await other.close()


async def test_the_rate_limit_is_kept_with_the_lines_and_only_lines_said_count(
    redis_server: RedisServer, storage: Storage, table_id: str
) -> None:
    """One script checks the limit, appends and counts (one round trip), on the table's slot:
    a second Storage (another node or worker) sees the same count; a refused line is neither
    appended nor counted; another sender and another table are not held back."""
    rate = Rate(lines=3, seconds=30.0)

    async def say(s: Storage, who: str, table: str = table_id) -> StoredLine:
        return await s.chat.add(
            table, "spectators", sender="spectator:ab", name="Fan", text="hi", version=0, at=1,
            seat=None, who=who, rate=rate,
        )  # fmt: skip

    other = await Storage.open(redis_server.url)
    try:
        await say(storage, "addr:203.0.113.7")
        await say(other, "addr:203.0.113.7")
        await say(storage, "addr:203.0.113.7")
        for s in (storage, other):
            with pytest.raises(RateLimited) as refused:
                await say(s, "addr:203.0.113.7")
            assert 29 < refused.value.wait <= 30
        kept = (await storage.chat.recent(table_id))["spectators"]
        assert [line.seq for line in kept] == [1, 2, 3]  # the refused ones were not appended
        assert (await say(other, "addr:2001:db8:1:2::/64")).seq == 4
        another = await make_table(storage, "t" + table_id)
        assert (await say(storage, "addr:203.0.113.7", another)).seq == 1
        counted = rate_key(table_id, "addr:203.0.113.7")
        assert counted == f"er:{{{table_id}}}:chatrate:addr:203.0.113.7"
        assert await storage.redis.zcard(counted) == 3
        assert 0 < await storage.redis.pttl(counted) <= 30_000  # gone with its window
    finally:
        await other.close()


async def test_a_signed_in_sender_is_held_to_its_identity_s_limit_from_any_address(
    storage: Storage, table_id: str
) -> None:
    """A signed-in spectator who moves to another address (or a seat's player who also
    watches) still counts against its identity's limit; the line carries the identity, and
    another identity at the same address is held back by the address only."""
    rate = Rate(lines=3, seconds=30.0)

    async def say(who: str, identity: str | None, channel: str = "spectators") -> StoredLine:
        return await storage.chat.add(
            table_id, channel, sender="spectator:ab", name="Fan", text="hi", version=0, at=1,
            seat=None, identity=identity, who=who, rate=rate,
        )  # fmt: skip

    first = await say("addr:203.0.113.7", "p-00000000000000aa")
    assert first.identity == "p-00000000000000aa"
    await say("addr:198.51.100.1", "p-00000000000000aa")
    await say("seat:2", "p-00000000000000aa", "table")  # the other channel counts too
    with pytest.raises(RateLimited):
        await say("addr:192.0.2.9", "p-00000000000000aa")  # a new address, the same player
    line = await say("addr:192.0.2.9", "p-00000000000000bb")
    assert line.identity == "p-00000000000000bb"
    kept = (await storage.chat.recent(table_id))["spectators"]
    assert [line.identity for line in kept] == ["p-00000000000000aa"] * 2 + ["p-00000000000000bb"]
    guest = await say("addr:192.0.2.10", None)
    assert guest.identity is None
    assert (await storage.chat.recent(table_id))["spectators"][-1].identity is None


async def test_a_line_said_again_once_the_window_has_moved_on(
    storage: Storage, table_id: str
) -> None:
    rate = Rate(lines=2, seconds=0.3)

    async def say() -> StoredLine:
        return await storage.chat.add(table_id, "table", sender="seat:1", name="Ben", text="x",
                                      version=1, at=1, seat=1, rate=rate)  # fmt: skip

    await say()
    await say()
    with pytest.raises(RateLimited):
        await say()
    await asyncio.sleep(0.35)
    assert (await say()).seq == 3
