"""The store on a real Redis Cluster (3 primaries, 3 replicas; tests/cluster.py): tables on every
primary, two Storage instances standing for two server processes, each following what the other
appends (clusterfollow.py); then a followed table's slot migrated mid-stream, and a primary
killed with -9 and replaced by its replica, with every entry delivered once and in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from echoridge.store import Head, Storage, StoreUnavailable, genesis, keys
from echoridge.store.chat import Rate, RateLimited
from tests.cluster import RedisCluster, begin_migration, failover_by_kill, start_cluster

from .conftest import make_table
from .test_follow import note


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    with start_cluster(tmp_path) as c:
        yield c


@pytest.fixture
async def nodes(cluster: RedisCluster) -> AsyncIterator[tuple[Storage, Storage]]:
    """Two Storage instances on the cluster, standing for two server processes."""
    a, b = await Storage.open(cluster.url), await Storage.open(cluster.url)
    yield a, b
    await a.close()
    await b.close()


class Seen:
    """What one storage's follower delivered for each table, in order."""

    def __init__(self, storage: Storage, tables: list[str]) -> None:
        self.versions: dict[str, list[int]] = {t: [] for t in tables}
        self.tasks = [asyncio.create_task(self._follow(storage, t)) for t in tables]

    async def _follow(self, storage: Storage, table: str) -> None:
        async for entry in storage.follower.follow(table, genesis(table)):
            self.versions[table].append(entry.version)

    async def until(self, counts: dict[str, int], seconds: float = 20) -> None:
        async with asyncio.timeout(seconds):
            while any(len(self.versions[t]) < n for t, n in counts.items()):
                await asyncio.sleep(0.02)

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()


async def append(storage: Storage, heads: dict[str, Head], table: str, i: int) -> None:
    result = await storage.log.append(table, heads[table], f"c{i}", note(i))
    heads[table] = result.head  # type: ignore[union-attr]


def spread_tables(cluster: RedisCluster, n: int) -> list[str]:
    """``n`` table ids whose logs fall on every primary."""
    tables, owners = [], set()
    i = 0
    while len(tables) < n or len(owners) < len(cluster.primaries()):
        table = f"ct{i}"
        owners.add(cluster.primary_of_slot(cluster.slot_of(keys.log(table))).port)
        tables.append(table)
        i += 1
    return tables


async def test_two_nodes_follow_each_other_on_every_primary(
    cluster: RedisCluster, nodes: tuple[Storage, Storage]
) -> None:
    a, b = nodes
    tables = spread_tables(cluster, 6)
    for t in tables:
        await make_table(a, t)
    seen_a, seen_b = Seen(a, tables), Seen(b, tables)
    heads = {t: genesis(t) for t in tables}
    for i in range(20):
        for t in tables:
            await append(a if i % 2 else b, heads, t, i)
    want = {t: 20 for t in tables}
    await seen_a.until(want)
    await seen_b.until(want)
    expected = list(range(1, 21))
    assert all(v == expected for v in seen_a.versions.values()), seen_a.versions
    assert all(v == expected for v in seen_b.versions.values()), seen_b.versions
    seen_a.stop()
    seen_b.stop()


async def test_a_followed_table_migrated_mid_stream_loses_and_repeats_nothing(
    cluster: RedisCluster, nodes: tuple[Storage, Storage]
) -> None:
    a, b = nodes
    table = await make_table(a, "migrating")
    slot = cluster.slot_of(keys.log(table))
    source = cluster.primary_of_slot(slot)
    target = next(p for p in cluster.primaries() if p.port != source.port)
    seen = Seen(b, [table])
    heads = {table: genesis(table)}
    n = 0
    for _ in range(10):
        n += 1
        await append(a, heads, table, n)
    migration = await asyncio.to_thread(begin_migration, cluster, slot, target, 1)
    refused = 0
    while await asyncio.to_thread(migration.move_some_keys):  # one key at a time
        try:
            await append(a, heads, table, n + 1)
            n += 1
        except StoreUnavailable:  # TRYAGAIN: the table's keys are split between the two
            refused += 1  # (a server answers server/unavailable; the client sends again)
    await asyncio.to_thread(migration.finish)
    assert refused > 0
    for _ in range(10):
        n += 1
        await append(a, heads, table, n)  # on the new primary
    await seen.until({table: n})
    await asyncio.sleep(0.3)
    assert seen.versions[table] == list(range(1, n + 1))
    assert cluster.primary_of_slot(slot).port == target.port
    seen.stop()


async def test_a_primary_killed_and_replaced_keeps_its_tables_followed(
    cluster: RedisCluster, nodes: tuple[Storage, Storage]
) -> None:
    a, b = nodes
    tables = spread_tables(cluster, 3)
    for t in tables:
        await make_table(a, t)
    seen = Seen(b, tables)
    heads = {t: genesis(t) for t in tables}
    for i in range(1, 6):
        for t in tables:
            await append(a, heads, t, i)
    await seen.until({t: 5 for t in tables})
    victim = cluster.primary_of_slot(cluster.slot_of(keys.log(tables[0])))
    await asyncio.to_thread(victim.wait_replicated)
    await asyncio.to_thread(failover_by_kill, cluster, victim)
    for i in range(6, 11):
        for t in tables:
            async with asyncio.timeout(30):
                while True:  # the writer retries while the cluster settles
                    try:
                        await append(a, heads, t, i)
                        break
                    except Exception:
                        await asyncio.sleep(0.2)
    await seen.until({t: 10 for t in tables}, seconds=30)
    assert all(v == list(range(1, 11)) for v in seen.versions.values()), seen.versions
    seen.stop()


async def test_chat_lines_of_tables_on_every_primary_reach_the_other_node(
    cluster: RedisCluster, nodes: tuple[Storage, Storage]
) -> None:
    a, b = nodes
    tables = spread_tables(cluster, 4)
    got: dict[str, list[tuple[str, int, str]]] = {t: [] for t in tables}
    for t in tables:
        b.chat_follower.follow(
            t, {}, lambda lines, t=t: got[t].extend((x.channel, x.seq, x.text) for x in lines)
        )
    rate = Rate(lines=2, seconds=60.0)  # kept with the lines, on each table's own slot
    for t in tables:
        await make_table(a, t)  # chat is refused at a table without metadata
    for t in tables:
        for text in ("a", "b"):
            await a.chat.add(t, "table", sender="seat:0", name="Ana", text=text, version=3,
                             at=1, seat=0, rate=rate)  # fmt: skip
        await a.chat.add(t, "spectators", sender="spectator:x", name="Bo", text="c",
                         version=3, at=1, seat=None, who="addr:127.0.0.1", rate=rate)  # fmt: skip
        with pytest.raises(RateLimited):  # the other node sees the same count
            await b.chat.add(t, "table", sender="seat:0", name="Ana", text="d", version=3,
                             at=1, seat=0, rate=rate)  # fmt: skip
    async with asyncio.timeout(20):
        while any(len(lines) < 3 for lines in got.values()):
            await asyncio.sleep(0.02)
    for lines in got.values():
        assert sorted(lines) == [("spectators", 1, "c"), ("table", 1, "a"), ("table", 2, "b")]
