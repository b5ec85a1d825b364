"""Do strong server-side bots slow the people at their tables?  The load bench with server bots.

    python bench/server_bots_bench.py [--tables 50] [--bot-processes 1,2] [--seed 1]

Each run is bench/load_bench.py's setup (a real ``echo-ridge serve`` on its embedded Redis, in a
temp dir; ``start_server``, and ``run_generators``: the client in ``--generators`` processes):
``--tables`` tables, each with ``--players`` seats played over websockets by the load tool's
client-side bots (the "people": ``--bot`` policy, think ``--think`` s on average, tables arriving
over ``--ramp`` s) and ``--server-bot-seats`` seats of server-side bots (``add_bot``,
``echo-ridge bots --server-bots KIND``).  One run with ``normal`` server bots, then one with
``strong`` ones per ``--bot-processes`` value (serve ``--bot-processes N --bot-budget B``), all
with the same ``--seed`` (the people's seeds and policies; the servers' seeds differ).  Every table
plays to the end and its transcript is verified.

Prints one JSON line per run (``run``): the people's command-to-delta latency p50/p99/max
(client side, around ``Seat.act``; the server bots' moves are not commands of a session and are
not timed), the server's own time for those commands (its histogram, upper bucket bounds), the
server process's CPU and its bot pool's (the spawned workers) apart, the event loop's lag, and
the strong searches that fell back to the normal policy (``strong bot failed`` in the server
log: a search not back within 20 budgets and 5 s, e.g. queued behind the other tables'); then
one line per strong run (``compare``) with its ratios to the normal run.  Never asserts on
time.  A strong run is bound by its pool (about 35 searches of ``--bot-budget`` s per table of
2 strong bots): ``--concurrency`` or fewer ``--tables`` bound its length.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from echoridge.serve import GC_THRESHOLDS
from echoridge.transcript import replay
from echoridge_client.loadbots import BotOptions, ok
from load_bench import (
    GameServer,
    bucket_quantile,
    cpu_seconds,
    delta,
    histogram,
    run_generators,
    start_server,
)

THINK = 1.0  # as load_bench.py: a seat thinks 1 s on average before a command
RAMP = 10.0


def pool_cpu_seconds(server: GameServer) -> float:
    """CPU seconds of the server's spawned children (its strong bots' process pool)."""
    total = 0.0
    pid = server.process.pid
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    total += cpu_seconds(int(child))
    return total


async def one_run(args: argparse.Namespace, kind: str, processes: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="erbots-"))
    extra = ("--bot-processes", str(processes), "--bot-budget", str(args.bot_budget))
    server = start_server(work, 0, extra=extra)
    options = BotOptions(
        url=server.url,
        replay=replay,
        tables=args.tables,
        players=args.players,
        spectators=args.spectators,
        bot=args.bot,
        server_bots=kind,
        server_bot_seats=args.server_bot_seats,
        rate=0,
        think=args.think,
        ramp=args.ramp,
        concurrency=args.concurrency,
        timeout=args.timeout,
        seed=args.seed,
    )
    name = f"{kind}/p{processes}" if kind == "strong" else kind
    print(f"# {name}: {args.tables} tables x ({args.players} people + {args.server_bot_seats} "
          f"{kind} server bots), think {args.think:g} s, ramp {args.ramp:g} s, concurrency "
          f"{args.concurrency or 'all'}; serve {' '.join(extra)}", flush=True)  # fmt: skip
    try:
        marks: list[tuple[float, float, float, dict[str, float]]] = []

        def mark() -> None:
            marks.append(
                (time.perf_counter(), cpu_seconds(server.process.pid), pool_cpu_seconds(server),
                 server.metrics())
            )  # fmt: skip

        async def played() -> None:
            mark()

        mark()
        report, lags = await run_generators(options, args.generators, played)
        failures = server.log.read_text(errors="replace").count("strong bot failed")
    finally:
        server.stop()
    (t0, cpu0, pool0, m0), (t1, cpu1, pool1, m1) = marks
    play = t1 - t0
    cmd_buckets, cmd_count, _ = histogram(m0, m1, "echoridge_command_seconds")
    lag_buckets, lag_count, _ = histogram(m0, m1, "echoridge_loop_lag_seconds")
    accepted = delta(m0, m1, 'echoridge_commands_total{outcome="accepted"}')
    line = {
        "run": name,
        "server_bots": kind,
        "bot_processes": processes,
        "bot_budget": args.bot_budget,
        "tables": args.tables,
        "people_per_table": args.players,
        "server_bots_per_table": args.server_bot_seats,
        "finished": report["finished"],
        "verified": report["verified"],
        "errors": report["errors"],
        "play_seconds": round(play, 1),
        "people_commands": report["commands"],
        "people_p50_ms": report["p50_ms"],
        "people_p99_ms": report["p99_ms"],
        "people_max_ms": report["max_ms"],
        "server_people_commands_accepted": int(accepted),
        "server_command_p50_ms_le": bucket_quantile(cmd_buckets, cmd_count, 0.5) * 1000,
        "server_command_p99_ms_le": bucket_quantile(cmd_buckets, cmd_count, 0.99) * 1000,
        "server_cpu_seconds": round(cpu1 - cpu0, 2),
        "server_cpu_utilisation": round((cpu1 - cpu0) / play, 3) if play else 0.0,
        "bot_pool_cpu_seconds": round(pool1 - pool0, 2),
        "bot_pool_cpu_utilisation": round((pool1 - pool0) / play, 3) if play else 0.0,
        "loop_lag_max_ms": round(m1.get("echoridge_loop_lag_max_seconds", 0) * 1000, 1),
        "loop_lag_p99_ms_le": bucket_quantile(lag_buckets, lag_count, 0.99) * 1000,
        "client_cpu_seconds": report["client_cpu_seconds"],
        "client_loop_lag_max_ms": round(max(lags, default=0.0) * 1000, 1),
        "strong_fallbacks": failures,
        "ok": ok(report),
    }
    if report.get("error_samples"):
        line["error_samples"] = report["error_samples"]
    if args.keep:
        line["kept"] = str(work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return line


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


async def bench(args: argparse.Namespace) -> int:
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)  # as load_bench.py: the client's pauses are not timed
    processes = [int(p) for p in args.bot_processes.split(",")]
    print(f"# server bots bench: {os.cpu_count()} cores, seed {args.seed}", flush=True)
    normal = await one_run(args, "normal", processes[0])
    print(json.dumps(normal), flush=True)
    good = normal["ok"]
    for n in processes:
        strong = await one_run(args, "strong", n)
        print(json.dumps(strong), flush=True)
        good = good and strong["ok"]
        compare = {
            "compare": f"{strong['run']} vs {normal['run']}",
            "people_p50_ratio": ratio(strong["people_p50_ms"], normal["people_p50_ms"]),
            "people_p99_ratio": ratio(strong["people_p99_ms"], normal["people_p99_ms"]),
            "people_p99_ms": [normal["people_p99_ms"], strong["people_p99_ms"]],
            "server_cpu_ratio": ratio(strong["server_cpu_seconds"], normal["server_cpu_seconds"]),
            "server_cpu_utilisation_ratio": ratio(
                strong["server_cpu_utilisation"], normal["server_cpu_utilisation"]
            ),
            "bot_pool_cpu_seconds": strong["bot_pool_cpu_seconds"],
            "play_seconds_ratio": ratio(strong["play_seconds"], normal["play_seconds"]),
        }
        print(json.dumps(compare), flush=True)
    return 0 if good else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--players", type=int, default=2, help="people (client seats) a table")
    parser.add_argument("--server-bot-seats", type=int, default=2, help="server bots a table")
    parser.add_argument("--spectators", type=int, default=0)
    parser.add_argument("--bot", default="random", help="the people's policy (load_bench's)")
    parser.add_argument(
        "--bot-processes",
        default="1",
        metavar="N[,N...]",
        help="serve --bot-processes of each strong run (default 1; e.g. 1,2)",
    )
    parser.add_argument("--bot-budget", type=float, default=0.5, help="serve --bot-budget")
    parser.add_argument("--think", type=float, default=THINK, metavar="SECONDS")
    parser.add_argument("--ramp", type=float, default=RAMP, metavar="SECONDS")
    parser.add_argument("--concurrency", type=int, default=0, help="tables at once (0: all)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--generators", type=int, default=2, help="load generator processes")
    parser.add_argument("--keep", action="store_true", help="keep the temp dirs (server logs)")
    args = parser.parse_args()
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
