"""Whole games through a real Redis Cluster (3 primaries, 3 replicas; tests/cluster.py): two
server processes on ``--redis-url redis+cluster://...``, the players of each table spread over
both, every game finished and verified; and a primary killed with -9 mid-game under
``--replica-acks 1``, with no acknowledged command lost."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from echoridge.transcript import replay
from echoridge_client.botsessions import Stats
from echoridge_client.loadbots import BotOptions, ok, run_tables
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat, Spectator
from tests.cluster import (
    ClusterNode,
    RedisCluster,
    begin_migration,
    failover_by_kill,
    start_cluster,
)
from tests.e2e.conftest import ServerProcess, start_server
from tests.e2e.test_outages import until


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


def busiest_primary(cluster: RedisCluster) -> ClusterNode:
    """The primary holding the most table logs (at least one)."""
    primary = max(cluster.primaries(), key=lambda p: len(p.command("KEYS", "er:{*}:log")))
    assert primary.command("KEYS", "er:{*}:log")
    return primary


async def test_a_primary_killed_mid_game_loses_no_acknowledged_command(
    cluster: RedisCluster, tmp_path: Path
) -> None:
    """``--replica-acks 1``: a command is acknowledged once a replica has it, so the primary
    killed with -9 mid-game takes none of them along; the games go on on its promoted replica
    (the bots send again what was answered server/unavailable), finish and verify, and every
    acknowledged command is in the transcripts."""
    server = start_server(cluster.url, tmp_path / "acks.log", "--replica-acks", "1")
    try:
        stats = Stats()
        options = BotOptions(server.url, tables=6, players=2, spectators=1, rate=0, think=0.03,
                             seed=31)  # fmt: skip
        games = asyncio.create_task(run_tables(options, stats=stats))
        await until(stats, 60)  # every table is in play
        # The primary with the most tables in play; once its replica took over, it comes back
        # as that one's replica (as an operator would bring it back), so appends there can be
        # acknowledged again.
        victim = busiest_primary(cluster)
        await asyncio.to_thread(failover_by_kill, cluster, victim)
        victim.restart()
        await asyncio.to_thread(cluster.wait_healthy, 30, 1)
        async with asyncio.timeout(300):
            report, _ = await games
        assert ok(report), (report.get("error_samples"), report)
        assert report["lost"] == 0 and report["acknowledged"] >= report["accepted"]
    finally:
        server.stop()


async def test_a_live_table_migrated_to_another_primary_mid_game(
    cluster: RedisCluster, tmp_path: Path
) -> None:
    """The slot of a table in play moves to another primary key by key (IMPORTING/MIGRATING,
    MIGRATE, SETSLOT NODE) while its bots play: commands refused while its keys are split are
    sent again, and every game finishes and verifies with no acknowledged command lost or
    applied twice (the transcripts replay)."""
    server = start_server(cluster.url, tmp_path / "migrate.log")
    try:
        stats = Stats()
        options = BotOptions(server.url, tables=3, players=2, spectators=1, rate=0, think=0.03,
                             seed=41)  # fmt: skip
        games = asyncio.create_task(run_tables(options, stats=stats))
        await until(stats, 30)  # every table is in play
        source = busiest_primary(cluster)
        log_key = source.command("KEYS", "er:{*}:log")[0]
        slot = cluster.slot_of(log_key)
        target = next(p for p in cluster.primaries() if p.port != source.port)
        migration = await asyncio.to_thread(begin_migration, cluster, slot, target, 1)
        while await asyncio.to_thread(migration.move_some_keys):
            await asyncio.sleep(0.2)  # the table plays on (or is refused and retried) meanwhile
        await asyncio.to_thread(migration.finish)
        assert cluster.primary_of_slot(slot).port == target.port
        async with asyncio.timeout(300):
            report, _ = await games
        assert ok(report), (report.get("error_samples"), report)
        assert report["lost"] == 0
    finally:
        server.stop()
