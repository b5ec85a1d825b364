"""Issue 26's one comparison, one command: our server, the I/O floor and the boardgame.io 0.50
peer, one after the other with the same load shape, each on one core, to print the ratios.

The load: TABLES tables x 4 seats + 1 spectator, each seat thinking ``--think`` seconds
(exponential, 1 s) before a command, over a ``--seconds`` window after a ``--warmup``:

1. ours: ``echo-ridge serve`` on its embedded Redis (``load_bench.start_server``), loaded by the
   lean raw seats of ``workers_bench.py`` (msgpack on a raw websocket, mirroring only ``status``
   and ``you.legal``; paced here), not the SDK bots, whose 2.4 ms per command would compete with
   the server on two cores.  A finished table is replaced by a new one (set up through the lobby,
   which the server pays for too), so the load stays the same through the window.
2. the I/O floor (``floor.py``, ``send`` on uvloop: one EVALSHA append and five sends per
   command), with frames of our measured mean delta size, loaded by its own lean generator;
3. the boardgame.io peer (``peer_bench.py``, ``peers/``: Node, Koa + socket.io, ~3.8 KB per
   update), loaded by its own socket.io generator; if Node or its packages are missing, its
   figures are null and the report says why.

(Each generator is the lean one for its server's protocol: the floor and the peer do not speak
ours.)  The server under test runs on core 0 and everything else (the generators, Redis, this
script) on core 1 (``taskset``; unpinned, and said so, without it).  Per window: the server's
CPU per command (``/proc/PID/stat``), p50/p99 command-to-delta at the sender (ours: send to the
accepted result and the delta of its version), bytes per update (the mean delta frame any viewer
received), and for ours the GC share of the server's CPU and the longest GC pause
(``echoridge_gc_*`` on ``/metrics``: wall time, so a disturbed window overstates them; the
longest is exact if it was the largest since the server started, else its bucket's bound) and
Redis calls per command (INFO commandstats, which counts the calls the append script makes too;
XREAD, the follower's, apart).  A window is ``disturbed`` when other processes used more than
``DISTURBED`` of a core meanwhile (``/proc/stat`` minus the measured processes).  The last
line is ``compare {json}``; never asserts on time.

Usage: python bench/compare.py [--tables 200] [--seconds 60] [--warmup 10] [--quick] [--no-peer]
       [--only-ours] [--py-spy FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import floor
import peer_bench
from load_bench import (
    IGNORED_CALLS,
    GameServer,
    command_calls,
    delta,
    histogram,
    py_spy,
    start_server,
)
from workers_bench import Tally, table_slot

GC = "echoridge_gc_"  # the garbage collector's metrics
DISTURBED = 0.1  # cores other processes may use during a window before it is marked disturbed
# Issue 26's targets at 200 tables: (compare key, at most, what).
TARGETS = (
    ("cpu_ours_over_peer", 1.0, "server CPU per command, ours / boardgame.io's"),
    ("cpu_ours_over_floor", 1.5, "server CPU per command, ours / the I/O floor's (stretch)"),
    ("p99_ours_over_peer", 1.5, "p99 command-to-delta, ours / boardgame.io's"),
    ("gc_share", 0.03, "GC share of the server's CPU"),
    ("max_gc_pause_ms", 10.0, "longest GC pause, ms"),
    ("bytes_per_update", 300.0, "mean bytes per update"),
)
SERVER_CORE, LOAD_CORE = 0, 1
OUTCOMES = ("accepted", "rejected", "duplicate", "stale")
GRACE = 30.0  # seconds after a window the commands sent in it may take to be answered


# --- pinning -------------------------------------------------------------------------------------


def taskset() -> str | None:
    """The ``taskset`` binary, if there is one and two cores to pin to."""
    return shutil.which("taskset") if (os.cpu_count() or 1) >= 2 else None


def pinned(command: list[str], core: int) -> list[str]:
    """``command`` started on ``core`` (its threads and children too)."""
    binary = taskset()
    return [binary, "-c", str(core), *command] if binary else command


def pin(pid: int, core: int) -> None:
    """Move a running process (every thread of it) to ``core``."""
    binary = taskset()
    if binary:
        subprocess.run([binary, "-a", "-p", "-c", str(core), str(pid)],
                       stdout=subprocess.DEVNULL, check=False)  # fmt: skip


# --- ours: the generator ------------------------------------------------------------------------


async def ours_load(url: str, first: int, tables: int, think: float, seed: int) -> None:
    """``--load``: print ``ready``, wait for ``go T0 T1`` (epoch seconds) on stdin, keep
    ``tables`` tables busy (coming in over most of the time left before T0) until T1; print one
    JSON line of what was seen in [T0, T1) (as ``floor.drive``'s generators do)."""
    loop = asyncio.get_running_loop()
    lag = floor.LagMeter(floor.GENERATOR_LAG_TICK)
    lag.start()
    go: asyncio.Future[tuple[float, float]] = loop.create_future()

    def line(text: str) -> None:
        if text.startswith("go ") and not go.done():
            t0, t1 = text.split()[1:]
            go.set_result((float(t0), float(t1)))

    floor.on_stdin_lines(line)
    print("ready", flush=True)
    t0, t1 = await asyncio.wait_for(go, 600)
    tally = Tally()
    stop_at = loop.time() + (t1 - time.time()) + GRACE
    ramp = max(0.0, t0 - time.time()) * 0.8 / max(1, tables)
    slots = [
        asyncio.create_task(
            table_slot(url, seed * 1_000_003 + first + i, tally, stop_at, i * ramp, think, 1)
        )
        for i in range(tables)
    ]
    await asyncio.sleep(max(0.0, t0 - time.time()))
    tally.deliveries = tally.delta_bytes = tally.sent = 0
    tally.latencies.clear()
    tally.timing = True
    lag.reset()
    cpu = time.process_time()
    await asyncio.sleep(max(0.0, t1 - time.time()))
    tally.timing = False
    used = time.process_time() - cpu
    # The commands sent before T1 are timed to their answer, as floor.drive's generators do.
    while tally.timed_open > 0 and loop.time() < stop_at:
        await asyncio.sleep(0.01)
    report = {
        "commands": tally.sent,
        "latencies_ms": [round(x * 1000, 3) for x in tally.latencies],
        "deliveries": tally.deliveries,
        "bytes": tally.delta_bytes,
        "cpu_seconds": round(used, 3),
        "games": tally.games,
        "errors": len(tally.errors),
        "error_samples": tally.errors[:3],
        **lag.report(),
    }
    print(json.dumps(report), flush=True)
    for task in slots:
        task.cancel()
    await asyncio.gather(*slots, return_exceptions=True)


# --- ours: the window ---------------------------------------------------------------------------


def snapshot(server: GameServer) -> dict[str, Any]:
    r = server.redis()
    try:
        calls = command_calls(r)
    finally:
        r.close()
    return {
        "at": time.perf_counter(),
        "server": server.cpu_seconds(),
        "redis": floor.cpu_seconds(server.redis_pid),
        "busy": floor.machine_busy_seconds(),
        "self": time.process_time(),
        "metrics": server.metrics(),
        "calls": calls,
    }


def window_max(before: dict[str, float], after: dict[str, float], name: str, gauge: str) -> float:
    """The largest observation of histogram ``name`` between two scrapes, in seconds: the
    since-start maximum ``gauge`` if it grew meanwhile, else the upper bound of the highest
    bucket that grew (no more than the gauge)."""
    if after.get(gauge, 0.0) > before.get(gauge, 0.0):
        return after[gauge]
    buckets, count, _ = histogram(before, after, name)
    previous = top = 0.0
    for bound, cumulative in buckets:  # cumulative: the last bucket that adds is the highest
        if cumulative > previous:
            top = bound
        previous = cumulative
    if not count:
        return 0.0
    return min(top or math.inf, after.get(gauge, math.inf))


def run_ours(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="ercompare-"))
    server = start_server(work, 0, extra=("--workers", "1"))
    generators: list[subprocess.Popen[bytes]] = []
    try:
        pin(server.process.pid, SERVER_CORE)
        pin(server.redis_pid, LOAD_CORE)
        cores = {
            "server_cores": sorted(os.sched_getaffinity(server.process.pid)),
            "redis_cores": sorted(os.sched_getaffinity(server.redis_pid)),
        }
        for first, n in floor.split(args.tables, args.generators):
            command = [sys.executable, str(Path(__file__).resolve()), "--load", server.url,
                       "--first", str(first), "--tables", str(n), "--think", str(args.think),
                       "--seed", str(args.seed)]  # fmt: skip
            generators.append(
                subprocess.Popen(
                    pinned(command, LOAD_CORE), stdin=subprocess.PIPE, stdout=subprocess.PIPE
                )
            )
        for g in generators:
            if (said := floor._readline(g, 120, "our generator")) != "ready":
                raise RuntimeError(f"our generator said {said!r}")
        t0 = time.time() + args.warmup
        t1 = t0 + args.seconds
        for g in generators:
            floor._send(g, f"go {t0} {t1}")
        time.sleep(max(0.0, t0 - time.time()))
        before = snapshot(server)
        with py_spy(server.process.pid, args.py_spy):  # (its samples cost the server a little)
            time.sleep(max(0.0, t1 - time.time()))
        after = snapshot(server)
        reports = [json.loads(floor._readline(g, 120, "our generator")) for g in generators]
    finally:
        for g in generators:
            if g.stdin is not None:
                with contextlib.suppress(OSError):
                    g.stdin.close()
            try:
                g.wait(30)
            except subprocess.TimeoutExpired:
                g.kill()
                g.wait()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    b, a = before["metrics"], after["metrics"]
    seconds = after["at"] - before["at"]
    commands = sum(delta(b, a, f'echoridge_commands_total{{outcome="{o}"}}') for o in OUTCOMES)
    server_cpu = after["server"] - before["server"]
    redis_cpu = after["redis"] - before["redis"]
    generator_cpu = sum(r["cpu_seconds"] for r in reports)
    gc_seconds = sum(delta(b, a, f'{GC}seconds_total{{generation="{g}"}}') for g in "012")
    calls = after["calls"] - before["calls"]
    xread = calls["xread"]
    redis_calls = sum(n for name, n in calls.items() if name not in IGNORED_CALLS | {"xread"})
    latencies = [x for r in reports for x in r["latencies_ms"]]
    deliveries = sum(r["deliveries"] for r in reports)
    measured = server_cpu + redis_cpu + generator_cpu + after["self"] - before["self"]
    other = max(0.0, after["busy"] - before["busy"] - measured) / seconds

    def per_command(x: float, scale: float = 1000.0) -> float | None:
        return round(x / commands * scale, 3) if commands else None

    gc_pause = window_max(b, a, "echoridge_gc_pause_seconds", "echoridge_gc_pause_max_seconds")
    lag = window_max(b, a, "echoridge_loop_lag_seconds", "echoridge_loop_lag_max_seconds")
    return {
        "run": f"ours {args.tables} tables think {args.think:g} s",
        "seconds": round(seconds, 2),
        "commands": int(commands),
        "accepted": int(delta(b, a, 'echoridge_commands_total{outcome="accepted"}')),
        "commands_per_second": round(commands / seconds, 1),
        "p50_ms": round(floor.percentile(latencies, 50), 2) if latencies else None,
        "p99_ms": round(floor.percentile(latencies, 99), 2) if latencies else None,
        "max_ms": round(max(latencies, default=0.0), 2),
        "timed": len(latencies),
        "mean_frame_bytes": round(sum(r["bytes"] for r in reports) / deliveries, 1)
        if deliveries
        else None,
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_ms_per_command": per_command(server_cpu),
        "server_cpu_utilisation": round(server_cpu / seconds, 3),
        "gc_share": round(gc_seconds / server_cpu, 4) if server_cpu else None,
        "gc_seconds": round(gc_seconds, 3),
        "gc_by_generation": {
            g: {
                "collections": int(delta(b, a, f'{GC}collections_total{{generation="{g}"}}')),
                "seconds": round(delta(b, a, f'{GC}seconds_total{{generation="{g}"}}'), 3),
            }
            for g in "012"
        },
        "max_gc_pause_ms": round(gc_pause * 1000, 2),
        "server_loop_lag_max_ms": round(lag * 1000, 1),
        "redis_calls_per_command": per_command(redis_calls, 1.0),
        "redis_xread_per_command": per_command(xread, 1.0),
        "redis_calls": dict(calls.most_common(12)),
        "redis_cpu_ms_per_command": per_command(redis_cpu),
        "generator_cpu_utilisation": round(generator_cpu / seconds, 3),
        "generator_loop_lag_max_ms": max((r["lag_max_ms"] for r in reports), default=0.0),
        "games_finished": sum(r["games"] for r in reports),
        "errors": sum(r["errors"] for r in reports),
        "error_samples": [s for r in reports for s in r["error_samples"]][:3],
        "other_cpu_utilisation": round(other, 3),
        **cores,
    }


# --- the floor and the peer: floor.drive, pinned ------------------------------------------------


def pin_run(run: floor.Run) -> floor.Run:
    """``run`` with its server on the server's core and its generators on the load's."""
    generators = run.generators
    run.server = pinned(run.server, SERVER_CORE)
    run.generators = lambda port: [pinned(c, LOAD_CORE) for c in generators(port)]
    return run


def run_floor(args: argparse.Namespace, frame_bytes: int) -> dict[str, Any]:
    from echoridge.store.embedded import EmbeddedRedis

    work = Path(tempfile.mkdtemp(prefix="ercompare-floor-"))
    redis = EmbeddedRedis(work / "redis")
    url = redis.start()
    assert redis.process is not None
    try:
        pin(redis.process.pid, LOAD_CORE)
        loop = "uvloop" if floor.has_uvloop() else "asyncio"
        (run,) = floor.floor_runs(
            url, redis.process.pid, tables=args.tables, think=args.think, variants=["send"],
            loops=[loop], generators=args.generators, frame_bytes=frame_bytes, seed=args.seed,
            label=f"{args.tables} tables think {args.think:g} s",
        )  # fmt: skip
        return floor.drive(pin_run(run), args.warmup, args.seconds)
    finally:
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)


def run_peer(args: argparse.Namespace) -> tuple[dict[str, Any] | None, str | None]:
    """The peer's window, or None and why it did not run."""
    if args.no_peer:
        return None, "--no-peer"
    installed = (peer_bench.PEERS / "node_modules" / ".package-lock.json").exists()
    if args.no_install and not installed:
        return None, "its packages are not installed (npm ci in bench/peers) and --no-install"
    why = peer_bench.npm_ready()
    if why is not None:
        return None, why
    shape = argparse.Namespace(think=args.think, seed=args.seed, generators=args.generators,
                               no_saturation=True)  # fmt: skip
    ((run, _),) = peer_bench.peer_runs(shape, args.tables)
    return floor.drive(pin_run(run), args.warmup, args.seconds), None


# --- the report ---------------------------------------------------------------------------------


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def report(args: argparse.Namespace, runs: dict[str, dict[str, Any] | None],
           skipped: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    """Print each figure, each ratio and each window's disturbance; the ``compare`` JSON."""
    ours = runs["ours"] or {}

    def figure(name: str, key: str) -> Any:
        run = runs.get(name)
        return run.get(key) if run else None

    windows = {}
    for name, run in runs.items():
        if run is None:
            print(f"# {name:5}: not run ({skipped.get(name, '?')})")
            continue
        other = run["other_cpu_utilisation"]
        windows[name] = {"other_cpu_cores": other, "disturbed": other > DISTURBED}
        print(f"# {name:5}: {run['server_cpu_ms_per_command']} ms server CPU/command, p50 "
              f"{run['p50_ms']} ms, p99 {run['p99_ms']} ms, {run['commands_per_second']} "
              f"commands/s, {run['mean_frame_bytes']} B per update, server "
              f"{run['server_cpu_utilisation']:.0%} of a core, generators "
              f"{run['generator_cpu_utilisation']:.0%}, errors {run['errors']}; others on the "
              f"machine {other:.0%} of a core"
              + (" -- DISTURBED" if other > DISTURBED else ""))  # fmt: skip
    if runs["ours"] is not None:
        print(f"# ours : GC {ours['gc_share']:.1%} of the server's CPU, longest GC pause "
              f"{ours['max_gc_pause_ms']} ms, loop lag max {ours['server_loop_lag_max_ms']} ms; "
              f"Redis {ours['redis_calls_per_command']} calls/command (the scripts' included; "
              f"XREAD {ours['redis_xread_per_command']} apart)")  # fmt: skip
    ratios = {}
    for other in ("peer", "floor"):
        for what, key in (("cpu", "server_cpu_ms_per_command"), ("p99", "p99_ms"),
                          ("bytes", "mean_frame_bytes")):  # fmt: skip
            if other == "floor" and what == "bytes":
                continue  # the floor sends frames of our size
            ratios[f"{what}_ours_over_{other}"] = ratio(figure("ours", key), figure(other, key))
    for key, value in ratios.items():
        pair = ("ours", key.rsplit("_", 1)[1])
        disturbed = [n for n in pair if windows.get(n, {}).get("disturbed")]
        print(f"# {key}: {value if value is not None else 'n/a'}"
              + (f" (disturbed: {', '.join(disturbed)})" if disturbed else ""))  # fmt: skip
    out = {
        "tables": args.tables,
        "seconds": args.seconds,
        "think": args.think,
        "pinned": taskset() is not None,
        "ours_cpu_ms": figure("ours", "server_cpu_ms_per_command"),
        "peer_cpu_ms": figure("peer", "server_cpu_ms_per_command"),
        "floor_cpu_ms": figure("floor", "server_cpu_ms_per_command"),
        "ours_p50_ms": figure("ours", "p50_ms"),
        "peer_p50_ms": figure("peer", "p50_ms"),
        "floor_p50_ms": figure("floor", "p50_ms"),
        "ours_p99_ms": figure("ours", "p99_ms"),
        "peer_p99_ms": figure("peer", "p99_ms"),
        "floor_p99_ms": figure("floor", "p99_ms"),
        "gc_share": figure("ours", "gc_share"),
        "max_gc_pause_ms": figure("ours", "max_gc_pause_ms"),
        "bytes_per_update": figure("ours", "mean_frame_bytes"),
        "peer_bytes_per_update": figure("peer", "mean_frame_bytes"),
        "redis_calls_per_command": figure("ours", "redis_calls_per_command"),
        **ratios,
        "windows": windows,
        "skipped": skipped,
        "disturbed": any(w["disturbed"] for w in windows.values()),
    }
    note = "" if args.tables == 200 else f" -- set for 200 tables, this run has {args.tables}"
    print(f"# issue 26 targets (measured | at most | verdict){note}")
    for key, most, what in TARGETS:
        value = out[key]
        verdict = "not measured" if value is None else ("met" if value <= most else "MISSED")
        print(f"#   {what}: {value if value is not None else 'n/a'} | {most:g} | {verdict}")
    if out["disturbed"]:
        print("#   DISTURBED: other processes used the machine during a window (see above)")
    return out


def main_compare(args: argparse.Namespace) -> int:
    binary = taskset()
    print(f"# compare (issue 26): {args.tables} tables x 4 seats + 1 spectator, think "
          f"{args.think:g} s (exponential), {args.generators} generator processes, windows of "
          f"{args.seconds:g} s after {args.warmup:g} s; {os.cpu_count()} cores, "
          + (f"the server on core {SERVER_CORE}, the rest on core {LOAD_CORE} (taskset)"
             if binary else "UNPINNED (no taskset, or fewer than 2 cores)")
          + f"; load average {os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
    if binary:  # this script and what it starts (Redis, generators) on the load's core
        os.sched_setaffinity(0, {LOAD_CORE})
    runs: dict[str, dict[str, Any] | None] = {}
    skipped: dict[str, str] = {}
    runs["ours"] = ours = run_ours(args)
    peer_bench.emit("ours    ", ours)
    frame_bytes = round(ours["mean_frame_bytes"] or floor.FRAME_BYTES)
    if args.only_ours:
        runs["floor"] = runs["peer"] = None
        skipped["floor"] = skipped["peer"] = "--only-ours"
        out = report(args, runs, skipped)
        print("compare", json.dumps(out), flush=True)
        return 0
    try:
        runs["floor"] = run_floor(args, frame_bytes)
        peer_bench.emit("floor   ", runs["floor"])
    except (RuntimeError, OSError) as error:
        runs["floor"], skipped["floor"] = None, f"failed: {error}"
    try:
        runs["peer"], why = run_peer(args)
    except (RuntimeError, OSError) as error:
        runs["peer"], why = None, f"failed: {error}"
    if why is not None:
        skipped["peer"] = why
        print(f"# boardgame.io peer not run: {why}", flush=True)
    else:
        peer_bench.emit("peer    ", runs["peer"] or {})
    out = report(args, runs, skipped)
    print(f"# load average {os.getloadavg()[0]:.2f} at the end", flush=True)
    print("compare", json.dumps(out), flush=True)
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument("--think", type=float, default=floor.THINK, help="mean think seconds")
    parser.add_argument("--generators", type=int, default=2, help="load generator processes")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument(
        "--quick", action="store_true", help="10 tables, 1 generator, 3 s windows, 2 s warm-up"
    )
    parser.add_argument("--no-peer", action="store_true", help="skip the boardgame.io peer")
    parser.add_argument(
        "--no-install",
        action="store_true",
        help="skip the peer rather than run npm ci if its packages are missing",
    )
    parser.add_argument("--only-ours", action="store_true", help="run our server only")
    parser.add_argument(
        "--py-spy", metavar="FILE", help="record our server's window with py-spy (raw stacks)"
    )
    parser.add_argument("--load", metavar="WS_URL", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        given = set(argv if argv is not None else sys.argv[1:])
        args.tables = args.tables if "--tables" in given else 10
        args.seconds = args.seconds if "--seconds" in given else 3.0
        args.warmup = args.warmup if "--warmup" in given else 2.0
        args.generators = args.generators if "--generators" in given else 1
    return args


def main() -> int:
    args = parse()
    if args.load:
        runner = floor.run_loop
        with contextlib.suppress(KeyboardInterrupt):
            runner(ours_load(args.load, args.first, args.tables, args.think, args.seed),
                   "uvloop" if floor.has_uvloop() else "asyncio")  # fmt: skip
        return 0
    return main_compare(args)


if __name__ == "__main__":
    sys.exit(main())
