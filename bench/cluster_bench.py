"""The cost of ``--replica-acks`` and of a Redis Cluster, per append (issue 14).

Appends one table's log in series (each waits for the one before, as a table's commands do) and
a few tables at once, on one Redis and on a real Redis Cluster (3 primaries, 3 replicas on
127.0.0.1, tests/cluster.py), with K = 0 and K = 1 replicas acknowledging (WAIT in the same
round trip).  Prints one JSON line per run: appends/s, p50 and p99 latency in ms.
Usage: python bench/cluster_bench.py [--appends N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cluster import start_cluster

from echoridge.store import Head, NewEntry, Storage, genesis
from echoridge.store.embedded import EmbeddedRedis
from echoridge_rules.commands import StartGame

ENTRY = NewEntry(0, StartGame(4), ())
TABLES_AT_ONCE = 20


async def one_table(storage: Storage, table: str, n: int, latencies: list[float]) -> None:
    await storage.directory.create(table, {"status": "open", "public": "0"}, {"seed": b"0" * 32})
    head: Head = genesis(table)
    for i in range(n):
        began = time.perf_counter()
        result = await storage.log.append(table, head, f"c{i}", ENTRY)
        latencies.append(time.perf_counter() - began)
        head = result.head  # type: ignore[union-attr]


async def run(url: str, where: str, acks: int, appends: int) -> None:
    storage = await Storage.open(url, check=False, replica_acks=acks)
    try:
        for mode, tables in (("series", 1), ("concurrent", TABLES_AT_ONCE)):
            latencies: list[float] = []
            began = time.perf_counter()
            tag = f"{where.replace(' ', '_')}-{acks}-{mode}-{time.monotonic_ns()}"
            await asyncio.gather(
                *(one_table(storage, f"b{tag}-{t}", appends // tables, latencies)
                  for t in range(tables))
            )  # fmt: skip
            seconds = time.perf_counter() - began
            ordered = sorted(latencies)
            print(json.dumps({
                "store": where, "replica_acks": acks, "mode": mode, "tables": tables,
                "appends": len(latencies),
                "appends_per_s": round(len(latencies) / seconds, 1),
                "p50_ms": round(statistics.median(ordered) * 1000, 3),
                "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 3),
            }), flush=True)  # fmt: skip
    finally:
        await storage.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    args = parser.parse_args()
    print("# --replica-acks and Redis Cluster: appends on 127.0.0.1 (2 cores shared)")
    with tempfile.TemporaryDirectory(prefix="ercluster-") as work:
        with EmbeddedRedis(Path(work) / "single") as single:
            asyncio.run(run(single.url, "one redis", 0, args.appends))
        with start_cluster(Path(work) / "cluster") as cluster:
            for acks in (0, 1):
                asyncio.run(run(cluster.url, "cluster", acks, args.appends))
    return 0


if __name__ == "__main__":
    sys.exit(main())
