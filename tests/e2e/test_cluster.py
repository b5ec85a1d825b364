"""Whole games through a real Redis Cluster (3 primaries, 3 replicas; tests/cluster.py): two
server processes on ``--redis-url redis+cluster://...``, the players of each table spread over
both, every game finished and verified."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from echoridge.transcript import replay
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat, Spectator
from tests.cluster import RedisCluster, start_cluster
from tests.e2e.conftest import ServerProcess, start_server


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    with start_cluster(tmp_path / "cluster") as c:
        yield c


@pytest.fixture
def two_servers(cluster: RedisCluster, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    servers = [
        start_server(cluster.url, tmp_path / f"server-{i}.log", "--bot-delay", "0")
        for i in range(2)
    ]
    yield servers
    for s in servers:
        s.stop()


async def play_table(servers: list[ServerProcess], players: int, seed: int) -> None:
    """One table created on the first server; its seats sit on the servers in turn, a
    spectator on the last; the game is played to the end and its transcript replays."""
    lobby = await Lobby.connect(servers[0].url)
    try:
        table = (await lobby.create(players)).table
        tokens = [(await lobby.join(table, f"p{i}")).token for i in range(players)]
        seats = [
            await Seat.sit(servers[i % len(servers)].url, table, tokens[i]) for i in range(players)
        ]
        watcher = await Spectator.watch(servers[-1].url, table)
        await lobby.start(table, tokens[0])
        try:
            await asyncio.gather(
                *(seat.play(RandomPolicy(seed + i), timeout=120) for i, seat in enumerate(seats))
            )
            await watcher.wait(lambda: watcher.over, 30)
            transcript = await lobby.transcript(table)
        finally:
            for session in (*seats, watcher):
                await session.close()
    finally:
        await lobby.close()
    assert replay(transcript).ok


async def test_games_through_the_cluster_with_players_on_two_servers(
    cluster: RedisCluster, two_servers: list[ServerProcess]
) -> None:
    await asyncio.gather(*(play_table(two_servers, 3, 100 * i) for i in range(4)))
    for server in two_servers:  # nothing failed on the way (presence, chat, clocks, lobby)
        errors = [line for line in server.output().splitlines() if '"level": "error"' in line]
        assert not errors, errors[:3]
