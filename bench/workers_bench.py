"""``serve --workers`` at saturation (issue 14): commands per second with 1 and 2 workers, on
one Redis and on a Redis Cluster.

For each configuration (1 worker; 2 workers; 2 workers with ``--no-table-affinity``, to show what
the routing of net/affinity.py is worth; then 1 and 2 workers on a real Redis Cluster of 3
primaries and 3 replicas on 127.0.0.1, tests/cluster.py, unless ``--no-cluster``) this starts
``echo-ridge serve`` on its embedded Redis (load_bench.start_server), keeps ``--tables`` tables
of 4 seats busy for ``--warmup`` + ``--window`` seconds, and reports over the window: accepted
commands per second (the server's ``/metrics``), the CPU of the server (every worker), of Redis
and of this load generator.

The load generator is made light so that it is not what limits the server on 2 cores shared
with it: one process on uvloop, and lean seats of its own, not the SDK's.  A lean seat speaks
the protocol on a raw websocket (msgpack), mirrors only what it needs of its view (``status``
and ``you.legal``, from the deltas' ops on those paths) and is unpaced: it sends a random legal
command as soon as its view offers one, and waits for the result.  A finished table is replaced
by a new one (created, joined and started through the lobby, which the server pays for too), so
the load stays the same through the window.  It never asserts on time; it prints JSON lines.

Usage: python bench/workers_bench.py [--tables 100] [--window 30] [--warmup 15] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedOK

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # (tests/cluster.py)

from echoridge_client.connection import for_table
from echoridge_client.lobby import Lobby
from echoridge_protocol import messages as m
from echoridge_protocol.delta import apply
from load_bench import cpu_seconds, delta, start_server

ACCEPTED = 'echoridge_commands_total{outcome="accepted"}'
TRACKED = (("status",), ("you", "legal"))  # what a lean seat mirrors of its view
CONFIGS = (("1 worker", ("--workers", "1")), ("2 workers", ("--workers", "2")),
           ("2 workers, no affinity", ("--workers", "2", "--no-table-affinity")))  # fmt: skip
TARGET_RATIO = 1.6  # 2 workers over 1, at saturation, on this 2-core machine


def _mirror(view: Any) -> dict[str, Any]:
    """The part of a view a lean seat keeps."""
    you = view.get("you") if isinstance(view, dict) else None
    legal = you.get("legal", []) if isinstance(you, dict) else []
    return {"status": view.get("status") if isinstance(view, dict) else None,
            "you": {"legal": legal}}  # fmt: skip


def follow(mirror: dict[str, Any], ops: list[Any]) -> dict[str, Any]:
    """Apply the ops of a delta that touch the mirrored paths (a whole-view or ``you`` set
    replaces them; an op inside them applies as it is; every other op is skipped)."""
    for op in ops:
        path = tuple(op[1])
        if not path:
            mirror = _mirror(op[2])
        elif path == ("you",) and op[0] == "set":
            mirror = {**mirror, "you": _mirror({"you": op[2]})["you"]}
        elif any(path[: len(t)] == t for t in TRACKED):
            mirror = apply(mirror, [op])
    return mirror


class Tally:
    def __init__(self) -> None:
        self.sent = 0
        self.games = 0
        self.errors: list[str] = []
        self.deliveries = 0  # deltas received (seats and spectators)
        self.delta_bytes = 0  # their frames' bytes
        self.latencies: list[float] = []  # seconds, send -> result and delta (accepted, timed)
        self.timing = False  # whether commands sent now are timed (a paced window)
        self.timed_open = 0  # timed commands not yet answered


async def lean_seat(url: str, table: str, token: str | None, rng: random.Random, tally: Tally,
                    stop_at: float, think: float = 0.0) -> None:  # fmt: skip
    """Play one seat to the end of the game (or ``stop_at``); ``token`` None: watch as a
    spectator.  ``think`` > 0 paces it (bench/compare.py): once its view offers a command the seat
    thinks that long on average (exponential) before sending, and thinks again if the view moved
    meanwhile; the time from a send to its accepted result and the delta of that version is kept
    in ``tally.latencies`` while ``tally.timing``."""
    packb, unpackb = msgpack.packb, msgpack.unpackb
    async with connect(for_table(url, table), subprotocols=[m.SUBPROTOCOL_MSGPACK],  # type: ignore[list-item]
                       compression=None, max_size=1 << 20, open_timeout=30) as ws:  # fmt: skip
        hello = {"type": "hello", "protocol": m.PROTOCOL, "client": "workers-bench",
                 "table": table, **({"token": token} if token else {"spectate": True})}  # fmt: skip
        await ws.send(packb(hello))
        mirror: dict[str, Any] = {"status": None, "you": {"legal": []}}
        version = -1
        pending: str | None = None
        ids = 0
        loop = asyncio.get_running_loop()
        due: float | None = None  # a paced seat's send time, and the version it chose at
        chosen = -1
        timed: tuple[float, int] | None = None  # (sent at, the accepted version awaited)
        sent_at: float | None = None
        while True:
            try:
                if due is None:
                    frame = await ws.recv()
                else:
                    frame = await asyncio.wait_for(ws.recv(), max(0.0, due - loop.time()))
            except TimeoutError:
                frame = None
            except ConnectionClosedOK:
                return
            message = unpackb(frame) if frame is not None else {}
            kind = message.get("type")
            if kind == "welcome":
                version, mirror = message["version"], _mirror(message.get("view"))
            elif kind == "delta":
                version, mirror = message["version"], follow(mirror, message["ops"])
                tally.deliveries += 1
                tally.delta_bytes += len(frame)  # type: ignore[arg-type]
            elif kind == "result":
                if message.get("id") == pending:
                    pending = None
                    if sent_at is not None and message.get("outcome") == "accepted":
                        timed = (sent_at, message.get("version") or 0)
                    elif sent_at is not None:
                        tally.timed_open -= 1
                    sent_at = None
            elif kind == "error":
                if message.get("id") == pending:
                    pending = None
                    tally.timed_open -= sent_at is not None
                    sent_at = None
                else:
                    tally.errors.append(str(message.get("code")))
                    return
            elif frame is not None:
                continue
            if timed is not None and version >= timed[1]:
                tally.latencies.append(time.perf_counter() - timed[0])
                tally.timed_open -= 1
                timed = None
            if mirror["status"] == "over" or loop.time() > stop_at:
                return
            legal = mirror["you"]["legal"]
            if pending is not None or not legal:
                due = None
                continue
            if think:
                now = loop.time()
                if due is None or version != chosen:  # (again if the view moved meanwhile)
                    due, chosen = now + rng.expovariate(1.0 / think), version
                    continue
                if now < due:
                    continue
                due = None
            ids += 1
            pending = f"c{ids}"
            command = rng.choice(legal)
            sent_at = time.perf_counter() if tally.timing else None
            tally.timed_open += sent_at is not None
            await ws.send(packb({"type": "command", "id": pending, "expected": version,
                                 "command": command}))  # fmt: skip
            tally.sent += 1


async def table_slot(url: str, seed: int, tally: Tally, stop_at: float, delay: float,
                     think: float = 0.0, spectators: int = 0) -> None:  # fmt: skip
    """Keep one table busy: after ``delay`` seconds (the tables come in over the warm-up, so
    that their games do not all end at once), set a game up, play it out (4 seats, thinking
    ``think`` seconds, and ``spectators`` watching), again, until ``stop_at``."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    await asyncio.sleep(delay)
    while loop.time() < stop_at:
        lobby = await Lobby.connect(url)
        try:
            created = await lobby.create(4)
            tokens = [(await lobby.join(created.table, f"p{i}")).token for i in range(4)]
            await lobby.start(created.table, tokens[0])
        finally:
            await lobby.close()
        everyone: list[str | None] = [*tokens, *[None] * spectators]
        seats = [lean_seat(url, created.table, t, random.Random(rng.random()), tally, stop_at,
                           think) for t in everyone]  # fmt: skip
        results = await asyncio.gather(*seats, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                tally.errors.append(f"{type(r).__name__}: {r}")
        tally.games += 1


async def measure(
    name: str, extra: tuple[str, ...], args: argparse.Namespace, cluster: Any = None
) -> dict[str, Any]:
    """One configuration's window.  ``cluster``: a running Redis Cluster (tests/cluster.py) the
    server uses instead of its embedded Redis; its nodes' CPU is Redis's."""
    work = Path(tempfile.mkdtemp(prefix="erworkers-"))
    if cluster is not None:
        extra = (*extra, "--redis-url", cluster.url)

    def redis_cpu() -> float:
        if cluster is None:
            return cpu_seconds(server.redis_pid)
        return sum(cpu_seconds(n.process.pid) for n in cluster.live())

    server = start_server(work, 0, extra=extra)
    try:
        loop = asyncio.get_running_loop()
        stop_at = loop.time() + args.warmup + args.window + 60  # (the slots stop when told)
        tally = Tally()
        ramp = args.warmup * 0.8 / args.tables
        url = server.url
        slots = [asyncio.create_task(table_slot(url, args.seed + i, tally, stop_at, i * ramp))
                 for i in range(args.tables)]  # fmt: skip
        await asyncio.sleep(args.warmup)
        before = (time.monotonic(), server.metrics(), server.cpu_seconds(),
                  redis_cpu(), _own_cpu())  # fmt: skip
        await asyncio.sleep(args.window)
        after = (time.monotonic(), server.metrics(), server.cpu_seconds(),
                 redis_cpu(), _own_cpu())  # fmt: skip
        for task in slots:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*slots, return_exceptions=True)
    finally:
        server.stop()
    seconds = after[0] - before[0]
    accepted = delta(before[1], after[1], ACCEPTED)
    report = {
        "config": name,
        "tables": args.tables,
        "window_seconds": round(seconds, 1),
        "accepted": int(accepted),
        "commands_per_second": round(accepted / seconds, 1),
        "server_cpu_utilisation": round((after[2] - before[2]) / seconds, 2),
        "server_cpu_ms_per_command": round((after[2] - before[2]) / accepted * 1000, 3)
        if accepted
        else None,
        "redis_cpu_utilisation": round((after[3] - before[3]) / seconds, 2),
        "generator_cpu_utilisation": round((after[4] - before[4]) / seconds, 2),
        "generator_cpu_ms_per_command": round((after[4] - before[4]) / accepted * 1000, 3)
        if accepted
        else None,
        "handed_off": int(delta(before[1], after[1],
                                'echoridge_connections_handed_off_total{outcome="passed"}')),
        "games_finished": tally.games,
        "errors": len(tally.errors),
        "error_samples": tally.errors[:3],
    }  # fmt: skip
    print("workers ", json.dumps(report), flush=True)
    return report


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def main(args: argparse.Namespace) -> int:
    print(f"# workers at saturation: {args.tables} tables x 4 lean unpaced seats, window "
          f"{args.window:g} s after {args.warmup:g} s; {os.cpu_count()} cores shared by the "
          "server, its Redis and this generator", flush=True)  # fmt: skip
    reports = [await measure(name, extra, args) for name, extra in CONFIGS]
    one, two, spread = (r["commands_per_second"] for r in reports)
    on_cluster = []
    if not args.no_cluster:
        from tests.cluster import start_cluster

        with start_cluster(Path(tempfile.mkdtemp(prefix="erworkers-cluster-"))) as cluster:
            for name, extra in CONFIGS[:2]:
                report = await measure(f"{name}, Redis Cluster 3+3", extra, args, cluster)
                on_cluster.append(report["commands_per_second"])
    ratio = two / one if one else 0.0
    summary = {
        "workers_2_over_1": round(ratio, 2),
        "target": TARGET_RATIO,
        "met": ratio >= TARGET_RATIO,
        "no_affinity_2_over_1": round(spread / one, 2) if one else 0.0,
    }
    if on_cluster:
        pairs = zip(on_cluster, (one, two), strict=True)
        summary["cluster_over_one_redis"] = [round(c / o, 2) if o else 0.0 for c, o in pairs]
    print("summary ", json.dumps(summary), flush=True)
    print(f"# 2 workers / 1 worker = {ratio:.2f}x (target >= {TARGET_RATIO}x: "
          f"{'met' if summary['met'] else 'MISSED'}); without table affinity "
          f"{summary['no_affinity_2_over_1']}x", flush=True)  # fmt: skip
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--window", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=15.0,
                        help="seconds before measuring (the tables come in over 80%% of it)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--quick", action="store_true", help="20 tables, 5 s windows")
    parser.add_argument("--no-cluster", action="store_true", help="skip the Redis Cluster runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.window, args.warmup = 20, 5.0, 2.0
    return args


if __name__ == "__main__":
    arguments = parse()
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover
        runner = asyncio.run
    sys.exit(runner(main(arguments)))
