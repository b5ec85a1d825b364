"""The archive of finished games (issue 27) on real servers and redis-servers: a 4-seat game (an
SDK seat and three server bots) ends; the server archives it (transcript and record) and, its
grace period over, releases its live keys: Redis then holds a fraction of what it held, a
``hello`` for the table is ``table/archived``, and its transcript is served and verifies from
the archive alone, also after the server restarts, and after ``echo-ridge archive export`` →
an empty Redis → ``archive import``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from echoridge.store import keys
from echoridge.transcript import replay
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat, Spectator
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server

GRACE = 4  # seconds: --archive-grace
ARCHIVED_BYTES = 12 * 1024  # the target for a finished game in Redis


def serve(redis_url: str, log: Path, *extra: str) -> ServerProcess:
    return start_server(redis_url, log, "--archive-grace", str(GRACE), "--bot-delay", "0", *extra)


async def table_bytes(redis: aioredis.Redis, table: str) -> dict[str, int]:
    """MEMORY USAGE of each key of the table (its hash tag)."""
    out = {}
    async for key in redis.scan_iter(match=f"er:{{{table}}}:*", count=1000):
        out[key.decode()] = int(await redis.memory_usage(key, samples=0) or 0)
    return out


async def until(check: Callable[[], Any], seconds: float, what: str) -> None:
    for _ in range(int(seconds / 0.1)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


async def play(url: str) -> tuple[str, str]:
    """A finished 4-seat game: its table and the SDK seat's token."""
    lobby = await Lobby.connect(url)
    try:
        table = (await lobby.create(4, public=True)).table
        token = (await lobby.join(table, "Ada")).token
        for _ in range(3):
            await lobby.add_bot(table, token)
        seat = await Seat.sit(url, table, token)
        try:
            await lobby.start(table, token)
            await seat.play(RandomPolicy(b"archive"), timeout=120)
            assert seat.over
        finally:
            await seat.close()
    finally:
        await lobby.close()
    return table, token


async def transcript(url: str, table: str) -> dict[str, Any]:
    lobby = await Lobby.connect(url)
    try:
        return await lobby.transcript(table)
    finally:
        await lobby.close()


@pytest.fixture
def server(redis_server: RedisServer, tmp_path: Path) -> Iterator[ServerProcess]:
    process = serve(redis_server.url, tmp_path / "s.log")
    yield process
    process.stop()


async def test_a_finished_game_is_archived_released_and_read_from_the_archive(
    server: ServerProcess,
    redis_server: RedisServer,
    start_redis: Callable[..., RedisServer],
    tmp_path: Path,
) -> None:
    redis = aioredis.from_url(redis_server.url)
    try:
        table, token = await play(server.url)
        await until(lambda: redis.exists(keys.record(table)), 10, "the game archived")
        before = await table_bytes(redis, table)
        assert keys.log(table) in before and keys.meta(table) in before
        record = await redis.get(keys.record(table))
        # watching the end on this server and on another one (which would release it later)
        other = start_server(redis_server.url, tmp_path / "other.log", "--archive-grace", "3600")
        try:
            watching = [await Spectator.watch(url, table) for url in (server.url, other.url)]
            await until(lambda: _gone(redis, table), GRACE + 10, "the live keys released")
            for spectator in watching:  # every node closes its sessions of the game
                await until(lambda s=spectator: _closed(s), 15, "the spectator's session closed")
                assert "table/archived" in str(spectator.error)
                await spectator.close()
        finally:
            other.stop()
        after = await table_bytes(redis, table)
        assert set(after) == {keys.transcript(table), keys.record(table)}
        total = sum(after.values())
        print(f"a finished 4-seat game in Redis: {sum(before.values())} B live, {total} B archived")
        assert total <= ARCHIVED_BYTES, after
        assert total < sum(before.values()) / 3

        for attempt in (Seat.sit(server.url, table, token), Spectator.watch(server.url, table)):
            with pytest.raises(Refused) as refused:
                await attempt
            assert refused.value.code == "table/archived"

        document = await transcript(server.url, table)
        assert replay(document).ok and len(document["entries"]) > 20

        # the server restarts: still served from the archive
        server.stop()
        again = serve(redis_server.url, tmp_path / "again.log")
        try:
            assert await transcript(again.url, table) == document
        finally:
            again.stop()

        # export -> an empty Redis -> import
        exported = tmp_path / "export"
        _cli("archive", "export", str(exported), "--redis-url", redis_server.url)
        assert (exported / f"{table}.transcript").exists()
        empty = start_redis()
        _cli("archive", "import", str(exported), "--redis-url", empty.url)
        moved = aioredis.from_url(empty.url)
        try:
            assert await moved.get(keys.record(table)) == record
            assert await moved.exists(*keys.live(table)) == 0
        finally:
            await moved.aclose()
        elsewhere = serve(empty.url, tmp_path / "elsewhere.log")
        try:
            assert await transcript(elsewhere.url, table) == document
            with pytest.raises(Refused) as refused:
                await Spectator.watch(elsewhere.url, table)
            assert refused.value.code == "table/archived"
        finally:
            elsewhere.stop()
    finally:
        await redis.aclose()


async def _closed(spectator: Spectator) -> bool:
    return spectator.error is not None


async def _gone(redis: aioredis.Redis, table: str) -> bool:
    return not await redis.exists(keys.meta(table))


def _cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "echoridge.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
