"""Finished games' transcripts built once (tables/transcripts.py, store/transcripts.py), on a
real server and redis-server: a one-seat game played by an SDK bot.  Its transcript is refused
before the end as ever, and kept nowhere; once the game is over the server that appended the
end keeps it, unasked, in ``er:{table}:transcript`` (xz of msgpack, no time to live like the
table's metadata); every download is the kept document, in exactly the frames a fresh build from
the log would give; and a kept transcript that is gone (a game finished before transcripts were
kept) is built and kept again at the next request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from echoridge.store import Storage, keys
from echoridge.store.archive import decompress
from echoridge.transcript import Recorder, replay
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_rules import State, evolve
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server

SUBPROTOCOLS = (m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON)


@pytest.fixture(scope="module")
def server(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    process = start_server(redis_server.url, tmp_path_factory.mktemp("transcripts") / "s.log")
    yield process
    process.stop()


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def download(url: str, table: str, subprotocol: str) -> bytes | str:
    """The raw frame of a ``transcript`` reply (request id ``tr``), on a lobby session."""
    async with connect(url, subprotocols=[Subprotocol(subprotocol)]) as ws:
        await ws.send(codec.encode(m.Hello(protocol=m.PROTOCOL, client="test/0"), subprotocol))
        await ws.recv()  # (welcome)
        await ws.send(codec.encode(m.GetTranscript(id="tr", table=table), subprotocol))
        return await ws.recv()


async def fresh_build(redis_url: str, table: str) -> dict[str, Any]:
    """The transcript replayed from the log, as every download built it before it was kept."""
    storage = await Storage.open(redis_url)
    try:
        meta = await storage.directory.meta(table)
        secrets = await storage.directory.secrets(table)
        seeds = [bytes.fromhex(meta[f"cseed:{i}"]) for i in range(int(meta["seats"]))]
        recorder = Recorder(table, secrets["server_seed"], seeds)
        state = State()
        for entry in await storage.log.load(table):
            for e in entry.events:
                state = evolve(state, e)
            recorder.record(entry.seat, entry.command, entry.events, state)
        return recorder.transcript(state)
    finally:
        await storage.close()


async def kept(redis: aioredis.Redis, table: str, seconds: float = 10) -> bytes | None:
    """The kept value (compressed), waiting up to ``seconds`` for it."""
    for _ in range(int(seconds / 0.05)):
        value = await redis.get(keys.transcript(table))
        if value is not None:
            return bytes(value)
        await asyncio.sleep(0.05)
    return None


@pytest.fixture(scope="module")
def finished(server: ServerProcess) -> str:
    """A finished one-seat game; on the way, its transcript is refused before the start and
    during the game (SPEC.md §4.5), as before."""
    return asyncio.run(play_solo(server))


async def play_solo(server: ServerProcess) -> str:
    lobby = await Lobby.connect(server.url)
    try:
        table = (await lobby.create(1)).table
        token = (await lobby.join(table, "solo")).token
        with pytest.raises(Refused) as early:
            await lobby.transcript(table)
        assert early.value.code == "table/not_started"
        seat = await Seat.sit(server.url, table, token)
        try:
            await lobby.start(table, token)
            await seat.until_version(1, 10)
            with pytest.raises(Refused) as playing:
                await lobby.transcript(table)
            assert playing.value.code == "table/not_finished"
            await seat.play(RandomPolicy(b"solo"), timeout=60)
            assert seat.over
        finally:
            await seat.close()
    finally:
        await lobby.close()
    return table


async def test_refused_before_the_end_and_kept_nowhere_until_then(
    server: ServerProcess, redis: aioredis.Redis
) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        table = (await lobby.create(1)).table
        token = (await lobby.join(table, "solo")).token
        await lobby.start(table, token)
        for _ in range(2):  # (asking does not keep anything either)
            with pytest.raises(Refused) as playing:
                await lobby.transcript(table)
            assert playing.value.code == "table/not_finished"
        assert await redis.exists(keys.transcript(table)) == 0
    finally:
        await lobby.close()


async def test_the_end_keeps_the_transcript_once_compressed_and_downloads_send_it(
    server: ServerProcess, redis_server: RedisServer, redis: aioredis.Redis, finished: str
) -> None:
    table = finished
    stored = await kept(redis, table)  # kept by the end itself: nobody has asked for it
    assert stored is not None, "the finished game's transcript was not kept"
    assert await redis.pttl(keys.transcript(table)) == await redis.pttl(keys.meta(table)) == -1
    packed = decompress(stored)
    assert packed is not None and len(stored) < len(packed) / 4
    document = msgpack.unpackb(packed)
    fresh = await fresh_build(redis_server.url, table)
    assert document == fresh and replay(document).ok
    for sub in SUBPROTOCOLS:
        first = await download(server.url, table, sub)
        second = await download(server.url, table, sub)
        assert first == second == codec.encode(m.Transcript("tr", table, fresh), sub)
    assert await redis.get(keys.transcript(table)) == stored  # written once


async def test_a_transcript_no_longer_kept_is_built_and_kept_at_the_request(
    server: ServerProcess, redis_server: RedisServer, redis: aioredis.Redis, finished: str
) -> None:
    table = finished
    await redis.delete(keys.transcript(table))  # as for a game finished before they were kept
    lobby = await Lobby.connect(server.url)
    try:
        served = await lobby.transcript(table)
    finally:
        await lobby.close()
    fresh = await fresh_build(redis_server.url, table)
    assert served == fresh
    after = await redis.get(keys.transcript(table))  # kept again, by that request
    assert after is not None, "the transcript was not kept at the request"
    assert msgpack.unpackb(decompress(after)) == fresh
    assert await download(server.url, table, m.SUBPROTOCOL_MSGPACK) == codec.encode(
        m.Transcript("tr", table, fresh), m.SUBPROTOCOL_MSGPACK
    )
