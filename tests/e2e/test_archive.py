"""The archive of finished games (issue 27) on real servers and redis-servers: a 4-seat game (an
SDK seat and three server bots) ends; the server archives it (transcript and record) and, its
grace period over, releases its live keys: Redis then holds a fraction of what it held, a
``hello`` for the table is ``table/archived``, and its transcript is served and verifies, and
every viewer's replay agrees with it, from the archive alone, also after the server restarts,
and after ``echo-ridge archive export`` → an empty Redis → ``archive import`` (where the
record of games lists it)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
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
from echoridge_client.replay import check_against_transcript
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


async def replays_agree(url: str, table: str, document: dict[str, Any]) -> None:
    """Every seat's replay, a spectator's and everyone's agree with the transcript (and every
    reveal in them verifies: the SDK checks as it applies the pages)."""
    lobby = await Lobby.connect(url)
    try:
        began = time.perf_counter()  # the first page: the game rebuilt from the archive
        first = await lobby.replay_page(table, 0)
        took = time.perf_counter() - began
        print(f"replay's first page of a 4-seat game ({first.last} versions): {took * 1000:.0f} ms")
        for seat in (0, 1, 2, 3, None):
            versions = [(v.version, v.view) async for v in lobby.replay(table, seat)]
            assert len(versions) == len(document["entries"]) + 1
            check_against_transcript(versions, document, seat)
        everyone = [(v.version, v.view) async for v in lobby.replay(table, everyone=True)]
        check_against_transcript(everyone, document, everyone=True)
    finally:
        await lobby.close()


async def games(url: str, table: str) -> Any:
    lobby = await Lobby.connect(url)
    try:
        return (await lobby.games(tables=[table])).games
    finally:
        await lobby.close()


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
    # another server, which would release the game later, started first (a slow start must
    # not eat the grace period in which the spectators below open their sessions)
    other = start_server(redis_server.url, tmp_path / "other.log", "--archive-grace", "3600")
    try:
        table, token = await play(server.url)
        # watching the end on this server and on the other one
        watching = [await Spectator.watch(url, table) for url in (server.url, other.url)]
        await until(lambda: redis.exists(keys.record(table)), 10, "the game archived")
        before = await table_bytes(redis, table)
        assert keys.log(table) in before and keys.meta(table) in before
        record = await redis.get(keys.record(table))
        try:
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
            await replays_agree(again.url, table, document)
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
            await replays_agree(elsewhere.url, table, document)
            listed = await games(elsewhere.url, table)
            assert [g.table for g in listed] == [table]
            assert listed[0].version == len(document["entries"])
            with pytest.raises(Refused) as refused:
                await Spectator.watch(elsewhere.url, table)
            assert refused.value.code == "table/archived"
        finally:
            elsewhere.stop()
    finally:
        other.stop()  # (stopped before, unless something failed first)
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
