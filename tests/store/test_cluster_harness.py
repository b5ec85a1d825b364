"""The Redis Cluster harness (tests/cluster.py) on real processes: six redis-servers (three
primaries, a replica each) per cluster test, a redis-py asyncio cluster client through them.

- The cluster comes up whole: three primaries own the 16384 slots, each has its own replica,
  and the client's keys land where the harness says.
- A slot with 50 keys (a stream among them) moves to another primary in batches while the client
  reads and writes it (ASK redirects in between, MOVED after); and back with ``migrate_slot``.
- kill -9 of a primary: its replica takes over, replicated data survives, and the killed node
  rejoins as a replica when restarted.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import ClusterNode as ClientNode
from redis.asyncio.cluster import RedisCluster as ClusterClient
from redis.exceptions import AskError

from tests.cluster import (
    SLOTS,
    RedisCluster,
    begin_migration,
    failover_by_kill,
    migrate_slot,
    parse_cluster_nodes,
    start_cluster,
)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    with start_cluster(tmp_path) as c:
        yield c


@contextlib.asynccontextmanager
async def client_of(cluster: RedisCluster) -> AsyncIterator[ClusterClient]:
    client = ClusterClient(
        startup_nodes=[ClientNode(host, port) for host, port in cluster.startup_nodes()],
        decode_responses=True,
    )
    try:
        await client.initialize()
        yield client
    finally:
        await client.aclose()


async def stream_values(client: ClusterClient, stream: str, name: str = "n") -> list[str]:
    """The ``name`` field of every entry of ``stream``, in order."""
    entries = await client.xrange(stream)
    assert entries is not None
    return [str((fields or {})[name]) for _, fields in entries]


def port_of_key(client: ClusterClient, key: str) -> int:
    """The port of the primary the client would send ``key`` to."""
    node = client.get_node_from_key(key)
    assert node is not None
    return int(node.port)


def test_parse_cluster_nodes_and_slots() -> None:
    text = (
        "07c3 127.0.0.1:30004@40004 slave e7d1 0 1426238317239 4 connected\n"
        "e7d1 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460 6000"
        " [5461->-67ed]\n"
        "67ed 127.0.0.1:30002@40002 master,fail? - 1426238316232 0 2 disconnected 5461-10922\n"
    )
    replica, me, other = parse_cluster_nodes(text)
    assert (replica.node_id, replica.port, replica.master_id) == ("07c3", 30004, "e7d1")
    assert replica.is_replica and not replica.troubled and replica.slots == ()
    assert me.myself and me.is_master and me.config_epoch == 1
    assert me.slots == ((0, 5460), (6000, 6000)) and me.slot_count() == 5462
    assert me.serves(6000) and not me.serves(5461)
    assert other.troubled and other.link_state == "disconnected"
    c = RedisCluster([], Path("."))
    assert c.slot_of("foo") == 12182  # the cluster spec's example
    assert c.slot_of("{user1000}.following") == c.slot_of(b"{user1000}.followers")
    assert c.slot_of("{}x") != c.slot_of("{}y")  # an empty tag is no tag


async def test_cluster_comes_up_whole(cluster: RedisCluster) -> None:
    primaries, replicas = cluster.primaries(), cluster.replicas()
    assert len(primaries) == 3 and len(replicas) == 3
    assert sorted(primaries + replicas, key=id) == sorted(cluster.nodes, key=id)
    served = sorted(r for p in primaries for r in p.myself().slots)
    assert sum(hi - lo + 1 for lo, hi in served) == SLOTS
    assert all(a[1] < b[0] for a, b in itertools.pairwise(served))  # disjoint
    assert {r.myself().master_id for r in replicas} == {p.node_id for p in primaries}
    assert {cluster.replica_of(p).port for p in primaries} == {r.port for r in replicas}
    for node in cluster.nodes:
        assert node.cluster_info()["cluster_state"] == "ok"
        assert node.url == f"redis://127.0.0.1:{node.port}"
    assert cluster.health_problem(replicas_per_primary=1) is None
    assert cluster.url == "redis+cluster://" + ",".join(
        f"{h}:{p}" for h, p in cluster.startup_nodes()
    )
    assert [p for _, p in cluster.startup_nodes()] == [n.port for n in cluster.nodes]

    # one key per primary, found by its hash tag
    keys: dict[int, str] = {}
    for i in range(1000):
        key = f"{{t{i}}}:k"
        keys.setdefault(cluster.primary_of_slot(cluster.slot_of(key)).port, key)
        if len(keys) == 3:
            break
    assert set(keys) == {p.port for p in primaries}
    async with client_of(cluster) as client:
        for port, key in keys.items():
            assert await client.set(key, f"on {port}")
            assert port_of_key(client, key) == port
        for port, key in keys.items():
            assert await client.get(key) == f"on {port}"
            assert cluster.primary_of_slot(cluster.slot_of(key)).command("GET", key) == (
                f"on {port}".encode()
            )
        stream = "{table}:log"
        assert cluster.slot_of(stream) == cluster.slot_of("table")
        ids = [await client.xadd(stream, {"n": str(i), "x": "y"}) for i in range(5)]
        entries = await client.xrange(stream)
        assert entries is not None and [e[0] for e in entries] == ids
        assert await stream_values(client, stream) == [str(i) for i in range(5)]


async def test_live_slot_migration(cluster: RedisCluster) -> None:
    tag = "{mig}"
    slot = cluster.slot_of(tag)
    source = cluster.primary_of_slot(slot)
    target = next(p for p in cluster.primaries() if p is not source)
    values = {f"{tag}:k{i}": f"v{i}" for i in range(49)}
    stream = f"{tag}:log"
    added: dict[str, str] = {}

    async with client_of(cluster) as client:
        for key, value in values.items():
            await client.set(key, value)
        for i in range(3):
            await client.xadd(stream, {"n": str(i)})
        assert int(source.command("CLUSTER", "COUNTKEYSINSLOT", slot)) == 50
        xlen = 3

        async def everything_reads_back() -> None:
            for key, value in (values | added).items():
                assert await client.get(key) == value, key
            assert await stream_values(client, stream) == [str(i) for i in range(xlen)]

        await everything_reads_back()
        migration = begin_migration(cluster, slot, target, keys_per_batch=10)
        await everything_reads_back()
        batches = 0
        while moved := migration.move_some_keys():
            batches += 1
            assert moved == 10
            assert migration.keys_left() == 50 - 10 * batches
            on_target = int(target.command("CLUSTER", "COUNTKEYSINSLOT", slot))
            assert on_target == 10 * batches + len(added)
            if batches == 1:  # the source now sends readers of a moved key to the target
                moved_key = target.command("CLUSTER", "GETKEYSINSLOT", slot, 1)[0]
                with pytest.raises(AskError):
                    source.command("GET", moved_key)
            await everything_reads_back()
            # writes go on too: a new key lands on the target, the stream grows wherever it is
            added[f"{tag}:new{batches}"] = f"n{batches}"
            await client.set(f"{tag}:new{batches}", f"n{batches}")
            await client.xadd(stream, {"n": str(xlen)})
            xlen += 1
            await everything_reads_back()
        assert batches == 5 and migration.moved == 50
        assert cluster.primary_of_slot(slot) is source  # until finish
        migration.finish()
        assert cluster.primary_of_slot(slot) is target
        assert int(source.command("CLUSTER", "COUNTKEYSINSLOT", slot)) == 0
        assert int(target.command("CLUSTER", "COUNTKEYSINSLOT", slot)) == 50 + len(added)
        await everything_reads_back()  # the old client follows MOVED
    cluster.wait_healthy(10)

    async with client_of(cluster) as fresh:
        assert port_of_key(fresh, stream) == target.port
        for key, value in (values | added).items():
            assert await fresh.get(key) == value
        assert len(await stream_values(fresh, stream)) == xlen

    # and back in one go
    assert migrate_slot(cluster, slot, source, keys_per_batch=7) == 50 + len(added)
    assert cluster.primary_of_slot(slot) is source
    async with client_of(cluster) as fresh:
        for key, value in (values | added).items():
            assert await fresh.get(key) == value
        assert len(await stream_values(fresh, stream)) == xlen
    cluster.wait_healthy(10)


async def test_failover_by_kill(tmp_path: Path) -> None:
    with start_cluster(tmp_path) as cluster:
        stream = "{table}:log"
        values = {f"{{t{i}}}:k": f"v{i}" for i in range(30)}
        async with client_of(cluster) as client:
            for key, value in values.items():
                await client.set(key, value)
            for i in range(10):
                await client.xadd(stream, {"n": str(i)})
        for primary in cluster.primaries():
            assert primary.wait_replicated(1, 5000) >= 1
        victim = cluster.primary_of_slot(cluster.slot_of(stream))
        replica = cluster.replica_of(victim)

        started = time.monotonic()
        promoted = failover_by_kill(cluster, victim)
        took = time.monotonic() - started
        assert promoted is replica, took
        assert not victim.alive()
        assert cluster.primary_of_slot(cluster.slot_of(stream)) is promoted
        assert victim not in cluster.primaries() and promoted in cluster.primaries()
        assert len(cluster.primaries()) == 3 and len(cluster.replicas()) == 2

        async with client_of(cluster) as fresh:
            for key, value in values.items():
                assert await fresh.get(key) == value
            assert await stream_values(fresh, stream) == [str(i) for i in range(10)]
            await fresh.xadd(stream, {"n": "after"})

        # the killed primary comes back as the replica of its successor
        victim.restart()
        cluster.wait_healthy(20, replicas_per_primary=1)
        assert cluster.replica_of(promoted) is victim
        assert victim.myself().is_replica
        async with client_of(cluster) as fresh:
            assert (await stream_values(fresh, stream))[-1] == "after"

    assert not any(node.alive() for node in cluster.nodes)
    assert all((node.directory / "nodes.conf").exists() for node in cluster.nodes)
