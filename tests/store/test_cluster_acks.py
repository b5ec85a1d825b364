"""Durability on a real Redis Cluster's failover (``--replica-acks``, store/log.py): with K = 1
an append is acknowledged only once its replica has it (WAIT in the same round trip), so a
replica that lags makes the append unavailable rather than acknowledged, and the retry of the
same command id is the same entry; with K = 0 an acknowledged append that a failover lost is
caught by the hash chain (the log no longer holds what its followers saw), never served as if
nothing had happened."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from echoridge.store import (
    Appended,
    Duplicate,
    Head,
    Storage,
    StoreUnavailable,
    TableDamaged,
    genesis,
    keys,
)
from tests.cluster import RedisCluster, failover_by_kill, start_cluster

from .conftest import make_table
from .test_follow import note


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    # A replica frozen for a few seconds may still be promoted (validity factor 0).
    with start_cluster(tmp_path, "--cluster-replica-validity-factor", "0") as c:
        yield c


async def appended(storage: Storage, table: str, head: Head, i: int) -> Head:
    result = await storage.log.append(table, head, f"c{i}", note(i))
    assert isinstance(result, Appended), result
    return result.head


async def test_with_replica_acks_a_lagging_replica_holds_the_acknowledgement(
    cluster: RedisCluster,
) -> None:
    storage = await Storage.open(cluster.url, replica_acks=1)
    storage.log.ack_timeout_ms = 300
    try:
        table = await make_table(storage, "acked")
        head = genesis(table)
        for i in range(3):
            head = await appended(storage, table, head, i)  # the replica has each at once
        primary = cluster.primary_of_slot(cluster.slot_of(keys.log(table)))
        replica = cluster.replica_of(primary)
        replica.freeze()
        try:
            with pytest.raises(StoreUnavailable, match="replicas acknowledged"):
                await storage.log.append(table, head, "c3", note(3))
        finally:
            replica.thaw()
        # The client sends the same command again: it is the entry already appended, now
        # on the replica too, so it is acknowledged once, as version 4.
        again = await storage.log.append(table, head, "c3", note(3))
        assert isinstance(again, Duplicate) and again.entry.version == 4
        assert [e.version for e in await storage.log.load(table)] == [1, 2, 3, 4]
    finally:
        await storage.close()


async def test_without_replica_acks_an_append_lost_in_a_failover_is_caught(
    cluster: RedisCluster,
) -> None:
    storage = await Storage.open(cluster.url)
    try:
        table = await make_table(storage, "lossy")
        head = genesis(table)
        for i in range(3):
            head = await appended(storage, table, head, i)
        primary = cluster.primary_of_slot(cluster.slot_of(keys.log(table)))
        await asyncio.to_thread(primary.wait_replicated)
        replica = cluster.replica_of(primary)
        replica.freeze()
        # Cut the replication link too: a frozen replica's socket would still take in (and,
        # thawed, apply) what the primary sends it.  What is appended now never reaches it.
        await asyncio.to_thread(primary.command, "CLIENT", "KILL", "TYPE", "replica")
        lost = await appended(storage, table, head, 3)  # acknowledged (K = 0)
        primary.kill()
        replica.thaw()
        await asyncio.to_thread(cluster.wait_healthy, 30)
        async with asyncio.timeout(20):
            while True:  # the client finds the promoted replica
                try:
                    with pytest.raises(TableDamaged, match="rolled back"):
                        await storage.log.load(table, lost)  # what a follower had seen
                    break
                except StoreUnavailable:
                    await asyncio.sleep(0.2)
        assert [e.version for e in await storage.log.load(table)] == [1, 2, 3]
    finally:
        await storage.close()


@pytest.mark.parametrize("acks", [0, 1])
async def test_after_a_failover_the_new_primary_is_given_the_scripts(
    cluster: RedisCluster, acks: int
) -> None:
    """A replica keeps no script across a restart (the script cache is not persisted, and the
    store loaded them while it was down, say): promoted, it answers the first EVALSHA with
    NOSCRIPT, and the store loads the script there and runs it again (both paths: EVALSHA
    alone, and EVALSHA with WAIT on a connection of ours to the slot's primary)."""
    storage = await Storage.open(cluster.url, replica_acks=acks)
    try:
        table = await make_table(storage, f"scripts{acks}")
        head = genesis(table)
        for i in range(2):
            head = await appended(storage, table, head, i)
        primary = cluster.primary_of_slot(cluster.slot_of(keys.log(table)))
        replica = cluster.replica_of(primary)
        primary.wait_replicated()
        replica.command("SCRIPT", "FLUSH")  # (as a restart would leave it)
        promoted = failover_by_kill(cluster, primary)
        assert promoted.port == replica.port
        sha = storage.log.scripts._sha["APPEND"]
        assert promoted.command("SCRIPT", "EXISTS", sha) == [0]
        if acks:  # the old primary comes back as the replica that acknowledges
            primary.restart()
            cluster.wait_healthy(30, replicas_per_primary=1)
        for _ in range(40):  # until the client has the new topology
            try:
                head = await appended(storage, table, head, 2)
                break
            except StoreUnavailable:
                await asyncio.sleep(0.25)
        else:
            raise AssertionError("no append after the failover")
        assert promoted.command("SCRIPT", "EXISTS", sha) == [1]
        assert head.version == 3
    finally:
        await storage.close()
