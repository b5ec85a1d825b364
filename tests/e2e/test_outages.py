"""Redis goes away under games in flight: killed (kill -9, started again 3 s later on the same
data, appendfsync always) and frozen (SIGSTOP for 10 s).  The SDK's bots retry
``server/unavailable`` with the same command ids; every game must finish and verify, and every
command the server acknowledged must be in the transcript at its version."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from echoridge_client.botsessions import Stats
from echoridge_client.loadbots import BotOptions, ok, run_tables
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server


@pytest.fixture
def redis_always(start_redis: Callable[..., RedisServer]) -> RedisServer:
    return start_redis("--appendfsync", "always")


@pytest.fixture
def on_redis(redis_always: RedisServer, tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(redis_always.url, tmp_path / "server.log", "--bot-delay", "0")
    yield server
    server.stop()


async def until(stats: Stats, accepted: int, seconds: float = 60) -> None:
    async with asyncio.timeout(seconds):
        while stats.accepted < accepted:
            await asyncio.sleep(0.05)


async def test_games_in_flight_survive_redis_killed_and_frozen(
    redis_always: RedisServer, on_redis: ServerProcess
) -> None:
    stats = Stats()
    options = BotOptions(
        on_redis.url, tables=4, players=3, spectators=1, rate=0, think=0.04, seed=5
    )
    games = asyncio.create_task(run_tables(options, stats=stats))
    await until(stats, 60)  # every table is in play (set up before the first command)
    redis_always.kill()
    await asyncio.sleep(3)
    redis_always.restart()
    await until(stats, stats.accepted + 60)
    redis_always.freeze()
    await asyncio.sleep(10)
    redis_always.thaw()
    async with asyncio.timeout(300):
        report, _ = await games
    assert ok(report), report
    assert report["lost"] == 0 and report["acknowledged"] >= report["accepted"] > 150
    assert report["retries"] > 0  # the kill was felt: commands were answered server/unavailable
    assert on_redis.process.poll() is None


async def test_a_server_side_bot_moves_again_after_redis_comes_back(
    redis_always: RedisServer, tmp_path: Path
) -> None:
    """Nobody retries for a server-side bot but the server: a move it could not append while
    Redis was down must be made again, or its opponent waits forever.  Redis is killed as soon
    as the bot is to move (it waits 0.3 s), and started again 1.5 s later."""
    server = start_server(redis_always.url, tmp_path / "bots.log", "--bot-delay", "0.3")
    lobby = await Lobby.connect(server.url)
    try:
        table = (await lobby.create(2)).table
        token = (await lobby.join(table, "host")).token
        await lobby.add_bot(table, token, "random")
        seat = await Seat.sit(server.url, table, token)
        await lobby.start(table, token)
    finally:
        await lobby.close()
    policy = RandomPolicy(b"host")
    outages = 0
    try:
        async with asyncio.timeout(90):
            while not seat.over:
                if seat.legal:
                    await seat.act(policy.choose(seat.view, seat.legal))
                    continue
                if outages < 2 and seat.status == "playing":  # the bot is to move
                    redis_always.kill()
                    await asyncio.sleep(1.5)
                    redis_always.restart()
                    outages += 1
                await seat.wait(moved_on(seat))
        assert outages == 2
    finally:
        await seat.close()
        server.stop()


def moved_on(seat: Seat) -> Callable[[], bool]:
    version = seat.version
    return lambda: seat.version != version or seat.over
