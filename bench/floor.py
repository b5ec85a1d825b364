"""The I/O floor of issue 13: a minimal asyncio websockets server that does only a command's I/O,
loaded with the shape of ``load_bench.py``, to set our figures against.

The server (``--serve``): a connection on ``/t/TABLE/SEAT`` joins a table (seats 0-3 play, seat 4
watches).  For each frame a seat sends, the server runs one EVALSHA of a small append script (INCR
a version, XADD the frame to the table's stream) on a real redis-server (the embedded one,
``EmbeddedRedis``, with its durable settings), then sends five pre-encoded frames to the table's
connections (the seats and the spectator); the first byte of a frame names the seat whose command
it answers, so the sender knows its ack.  Variants of the sends (``--variant``):

- ``send``: ``await ws.send(frame)`` for each connection, straight from the handler;
- ``broadcast``: websockets' ``broadcast()`` of the frame to the five, straight from the handler;
- ``queue``: the frame put on a per-connection ``asyncio.Queue`` that a writer task per
  connection drains with ``await ws.send`` (our outbox design).

Each runs on the plain asyncio loop and on uvloop (if installed: ``pip install uvloop``).

The load (``--load``, one or more generator processes): TABLES tables x 4 seats + 1 spectator;
the seats of a table take turns, each thinking ``--think`` seconds (exponential) before its
command, one command in flight per table (as the bots of ``load_bench`` play); ``--think 0`` is
unpaced (saturation).  Latency is command-to-ack at the sender (its own frame back).  Each
generator reports its CPU and its own loop lag; the parent (``drive``) reads the server's CPU
(and Redis's) from ``/proc`` over a measuring window after a warm-up.

``drive`` is generic (any server process and generator processes speaking the small line protocol
below), so ``peer_bench.py`` uses it for the boardgame.io peer too:

- the server prints ``listening PORT``; on stdin ``reset`` zeroes its counters, ``report`` makes
  it print one JSON line (``commands``, ``lag_max_ms``, ``lag_p99_ms``);
- each generator prints ``ready`` once connected, waits for ``go T0 T1`` (epoch seconds) on stdin,
  loads the server until T1, counting only commands sent in [T0, T1), and prints one JSON line
  (``commands``, ``latencies_ms``, ``deliveries``, ``bytes``, ``cpu_seconds``, ``lag_max_ms``,
  ``lag_p99_ms``, ``errors``).

Usage: python bench/floor.py [--quick] [--tables N] [--duration S] [--variants send,queue]
       [--loops asyncio,uvloop] [--no-saturation]
(``python bench/peer_bench.py`` runs it with the boardgame.io peer.)  Never asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TICKS = os.sysconf("SC_CLK_TCK")
HERE = Path(__file__).resolve().parent
THINK = 1.0
FRAME_BYTES = 832  # our mean delta in issue 13's measurement
COMMAND_BYTES = 48
SERVER_LAG_TICK = 0.1  # seconds between loop-lag samples in the server (as echo-ridge serve's)
GENERATOR_LAG_TICK = 0.01  # and in the generators
VARIANTS = ("send", "broadcast", "queue")
LOOPS = ("asyncio", "uvloop")

# One EVALSHA on a command's path: a version and a stream entry, as small as an append gets.
APPEND = """
local v = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '1000', '0-' .. v, 'c', ARGV[1])
return v
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (``/proc/PID/stat``), as load_bench reads them."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy (``/proc/stat``: all but idle and
    iowait), to tell how much of a window went to processes other than the bench's."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    values = [int(v) for v in fields[:8]]  # user nice system idle iowait irq softirq steal
    return (sum(values) - values[3] - values[4]) / TICKS


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by the nearest-rank method (as loadbots'); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def has_uvloop() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


def run_loop(main: Any, loop: str) -> Any:
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


class LagMeter:
    """The event loop's lag: how late a ``tick`` sleep wakes, sampled continuously (a stall
    delays the pending sleep, so the maximum is caught whatever the tick; the tick is what the
    sampling costs)."""

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.samples: list[float] = []
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.tick)
            self.samples.append(max(0.0, time.perf_counter() - before - self.tick))
            if len(self.samples) > 1_000_000:  # bounded
                del self.samples[:500_000]

    def reset(self) -> None:
        self.samples = []

    def report(self) -> dict[str, float]:
        return {
            "lag_max_ms": round(max(self.samples, default=0.0) * 1000, 2),
            "lag_p99_ms": round(percentile(self.samples, 99) * 1000, 2),
        }


def on_stdin_lines(handle: Callable[[str], None]) -> None:
    """Call ``handle`` with each line arriving on stdin (a pipe from the parent)."""
    loop = asyncio.get_running_loop()
    buffer = b""
    fd = sys.stdin.fileno()
    os.set_blocking(fd, False)

    def readable() -> None:
        nonlocal buffer
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        if not chunk:
            loop.remove_reader(fd)
            handle("eof")
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            handle(line.decode().strip())

    loop.add_reader(fd, readable)


# --- the floor server ---------------------------------------------------------------------------


async def floor_server(redis_url: str, variant: str, frame_bytes: int) -> None:
    from websockets.asyncio.server import ServerConnection, broadcast, serve

    from echoridge.store.connection import client

    redis = client(redis_url)
    sha = await redis.script_load(APPEND)
    frames = [bytes([s]) + os.urandom(frame_bytes - 1) for s in range(8)]  # pre-encoded
    tables: dict[str, list[Any]] = defaultdict(list)
    counts = {"commands": 0}
    lag = LagMeter(SERVER_LAG_TICK)
    lag.start()
    stopped = asyncio.Event()

    def command(line: str) -> None:
        if line == "reset":
            counts["commands"] = 0
            lag.reset()
        elif line == "report":
            print(json.dumps({**counts, **lag.report()}), flush=True)
        elif line == "eof":
            stopped.set()

    on_stdin_lines(command)

    async def writer(ws: ServerConnection, queue: asyncio.Queue[bytes]) -> None:
        with contextlib.suppress(Exception):
            while True:
                await ws.send(await queue.get())

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        _, _, table, seat_text = ws.request.path.split("/")
        seat = int(seat_text)
        members = tables[table]
        version_key, log_key = f"floor:{table}:v", f"floor:{table}:log"
        frame = frames[seat]
        task = None
        if variant == "queue":
            queue: asyncio.Queue[bytes] = asyncio.Queue()
            task = asyncio.create_task(writer(ws, queue))
            member: Any = queue
        else:
            member = ws
        members.append(member)
        try:
            async for message in ws:
                await redis.evalsha(sha, 2, version_key, log_key, message)
                if variant == "broadcast":
                    broadcast(members, frame)
                elif variant == "send":
                    for other in list(members):
                        with contextlib.suppress(Exception):
                            await other.send(frame)
                else:
                    for other in members:
                        other.put_nowait(frame)
                counts["commands"] += 1
        finally:
            members.remove(member)
            if not members:
                del tables[table]
            if task is not None:
                task.cancel()

    async with serve(
        handler, "127.0.0.1", 0, compression=None, ping_interval=None, max_size=1 << 20
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"listening {port}", flush=True)
        await stopped.wait()
    await redis.aclose()


# --- the floor load generator -------------------------------------------------------------------


async def floor_load(url: str, first: int, count: int, think: float, seed: int) -> None:
    from websockets.asyncio.client import ClientConnection, connect

    lag = LagMeter(GENERATOR_LAG_TICK)
    lag.start()
    gate = asyncio.Semaphore(50)
    stats = {"deliveries": 0, "bytes": 0, "errors": 0}
    waiting: dict[int, asyncio.Future[None]] = {}  # table -> the sender's ack
    command = os.urandom(COMMAND_BYTES)

    async def open_one(table: int, seat: int) -> ClientConnection:
        async with gate:
            return await connect(
                f"{url}/t/{table}/{seat}", compression=None, ping_interval=None, max_size=1 << 20
            )

    async def read(ws: ClientConnection, table: int, seat: int) -> None:
        with contextlib.suppress(Exception):
            async for message in ws:
                stats["deliveries"] += 1
                stats["bytes"] += len(message)
                if message[0] == seat:
                    future = waiting.get(table)
                    if future is not None and not future.done():
                        future.set_result(None)

    tables = list(range(first, first + count))
    connections = await asyncio.gather(
        *(open_one(t, s) for t in tables for s in range(5))
    )
    readers = [
        asyncio.create_task(read(ws, tables[i // 5], i % 5)) for i, ws in enumerate(connections)
    ]
    print("ready", flush=True)
    go: asyncio.Future[tuple[float, float]] = asyncio.get_running_loop().create_future()

    def line(text: str) -> None:
        if text.startswith("go ") and not go.done():
            t0, t1 = text.split()[1:]
            go.set_result((float(t0), float(t1)))

    on_stdin_lines(line)
    t0, t1 = await asyncio.wait_for(go, 600)
    latencies: list[float] = []
    window = {"commands": 0}
    cpu = [0.0]

    async def mark() -> None:
        await asyncio.sleep(max(0.0, t0 - time.time()))
        cpu[0] = time.process_time()
        lag.reset()
        stats.update(deliveries=0, bytes=0)

    async def play(i: int) -> None:
        rng = random.Random(seed * 1_000_003 + tables[i])
        seats = connections[i * 5 : i * 5 + 4]
        table = tables[i]
        seat = rng.randrange(4)
        loop = asyncio.get_running_loop()
        while True:
            if think:
                await asyncio.sleep(rng.expovariate(1.0 / think))
            began = time.time()
            if began >= t1:
                return
            future = loop.create_future()
            waiting[table] = future
            start = time.perf_counter()
            try:
                await seats[seat].send(command)
                await asyncio.wait_for(future, 30)
            except Exception:
                stats["errors"] += 1
                return
            if began >= t0:
                latencies.append((time.perf_counter() - start) * 1000)
                window["commands"] += 1
            seat = (seat + 1) % 4

    marker = asyncio.create_task(mark())
    await asyncio.gather(*(play(i) for i in range(len(tables))))
    await marker
    used = time.process_time() - cpu[0]
    report = {
        **window,
        **stats,
        "latencies_ms": [round(x, 3) for x in latencies],
        "cpu_seconds": round(used, 3),
        **lag.report(),
    }
    print(json.dumps(report), flush=True)
    await asyncio.gather(*(ws.close() for ws in connections), return_exceptions=True)
    for task in readers:
        task.cancel()


# --- the harness --------------------------------------------------------------------------------


@dataclass
class Run:
    """One measured run: a server process and its generators."""

    name: str
    server: list[str]
    generators: Callable[[int], list[list[str]]]  # port -> generator commands
    env: dict[str, str] | None = None
    cwd: Path | None = None
    extra_pids: dict[str, int] = field(default_factory=dict)  # e.g. redis: cpu per command too


_BUFFERS: dict[int, bytes] = {}


def _readline(process: subprocess.Popen[bytes], timeout: float, what: str) -> str:
    """A line from a child's stdout, or an error if it ends or takes longer than ``timeout``."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    while True:
        buffer = _BUFFERS.get(fd, b"")
        if b"\n" in buffer:
            line, _BUFFERS[fd] = buffer.split(b"\n", 1)
            return line.decode().strip()
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError(f"{what} said nothing for {timeout:g} s")
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                process.wait(10)
                raise RuntimeError(f"{what} exited with status {process.returncode}")
            _BUFFERS[fd] = buffer + chunk


def _send(process: subprocess.Popen[bytes], line: str) -> None:
    assert process.stdin is not None
    process.stdin.write(line.encode() + b"\n")
    process.stdin.flush()


def _popen(cmd: list[str], run: Run) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=run.env,
        cwd=run.cwd,
    )


def drive(run: Run, warmup: float, duration: float) -> dict[str, Any]:
    """Start the server and generators, measure over [T0, T1) after ``warmup``; the figures."""
    server = _popen(run.server, run)
    generators: list[subprocess.Popen[bytes]] = []
    try:
        port = int(_readline(server, 60, f"{run.name} server").split()[1])
        generators = [_popen(cmd, run) for cmd in run.generators(port)]
        for g in generators:
            line = _readline(g, 180, f"{run.name} generator")
            if line != "ready":
                raise RuntimeError(f"{run.name} generator said {line!r}")
        t0 = time.time() + warmup
        t1 = t0 + duration
        for g in generators:
            _send(g, f"go {t0} {t1}")
        time.sleep(max(0.0, t0 - time.time()))
        _send(server, "reset")
        cpu0 = cpu_seconds(server.pid)
        busy0 = machine_busy_seconds()
        extra0 = {k: cpu_seconds(pid) for k, pid in run.extra_pids.items()}
        began = time.perf_counter()
        time.sleep(max(0.0, t1 - time.time()))
        cpu1 = cpu_seconds(server.pid)
        busy1 = machine_busy_seconds()
        extra1 = {k: cpu_seconds(pid) for k, pid in run.extra_pids.items()}
        seconds = time.perf_counter() - began
        _send(server, "report")
        counted = json.loads(_readline(server, 30, f"{run.name} server"))
        reports = [json.loads(_readline(g, 60, f"{run.name} generator")) for g in generators]
    finally:
        for process in [*generators, server]:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
        for process in [*generators, server]:
            if process.stdout is not None:
                _BUFFERS.pop(process.stdout.fileno(), None)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    latencies = [x for r in reports for x in r["latencies_ms"]]
    acked = sum(r["commands"] for r in reports)
    commands = counted.get("commands") or acked
    server_cpu = cpu1 - cpu0
    generator_cpu = sum(r["cpu_seconds"] for r in reports)
    deliveries = sum(r["deliveries"] for r in reports)
    out: dict[str, Any] = {
        "run": run.name,
        "seconds": round(seconds, 2),
        "commands": commands,
        "acked_in_window": acked,
        "commands_per_second": round(commands / seconds, 1),
        "deliveries_per_second": round(deliveries / seconds, 1),
        "mean_frame_bytes": round(sum(r["bytes"] for r in reports) / deliveries, 1)
        if deliveries
        else 0,
        "p50_ms": round(percentile(latencies, 50), 2),
        "p99_ms": round(percentile(latencies, 99), 2),
        "max_ms": round(max(latencies, default=0.0), 2),
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_ms_per_command": round(server_cpu / commands * 1000, 3) if commands else None,
        "server_cpu_utilisation": round(server_cpu / seconds, 3),
        "server_loop_lag_max_ms": counted.get("lag_max_ms"),
        "server_loop_lag_p99_ms": counted.get("lag_p99_ms"),
        "generators": len(reports),
        "generator_cpu_seconds": round(generator_cpu, 2),
        "generator_cpu_utilisation": round(generator_cpu / seconds, 3),
        "generator_loop_lag_max_ms": max((r["lag_max_ms"] for r in reports), default=0.0),
        "generator_loop_lag_p99_ms": max((r["lag_p99_ms"] for r in reports), default=0.0),
        "errors": sum(r["errors"] for r in reports),
    }
    ours = server_cpu + generator_cpu
    for name in run.extra_pids:
        used = extra1[name] - extra0[name]
        ours += used
        out[f"{name}_cpu_ms_per_command"] = round(used / commands * 1000, 3) if commands else None
    # CPU the rest of the machine used meanwhile (in cores): well above ~0.05 means the figures
    # were measured beside other work (tests, a browser) on this 2-core machine.
    out["other_cpu_utilisation"] = round(max(0.0, busy1 - busy0 - ours) / seconds, 3)
    return out


def split(tables: int, parts: int) -> list[tuple[int, int]]:
    """``tables`` as ``parts`` (first, count) ranges."""
    base, extra = divmod(tables, parts)
    out, first = [], 0
    for p in range(parts):
        n = base + (p < extra)
        if n:
            out.append((first, n))
        first += n
    return out


def floor_runs(
    redis_url: str,
    redis_pid: int,
    *,
    tables: int,
    think: float,
    variants: Sequence[str],
    loops: Sequence[str],
    generators: int,
    frame_bytes: int,
    seed: int,
    label: str,
) -> list[Run]:
    python = [sys.executable, str(Path(__file__).resolve())]
    gen_loop = "uvloop" if has_uvloop() else "asyncio"
    runs = []
    for loop in loops:
        for variant in variants:

            def gens(port: int) -> list[list[str]]:
                out = []
                for first, n in split(tables, generators):
                    out.append([
                        *python, "--load", f"ws://127.0.0.1:{port}", "--first", str(first),
                        "--tables", str(n), "--think", str(think), "--seed", str(seed),
                        "--loop", gen_loop,
                    ])  # fmt: skip
                return out

            server = [
                *python, "--serve", redis_url, "--variant", variant, "--loop", loop,
                "--frame-bytes", str(frame_bytes),
            ]  # fmt: skip

            runs.append(
                Run(
                    name=f"floor {variant} {loop} {label}",
                    server=server,
                    generators=gens,
                    extra_pids={"redis": redis_pid},
                )
            )
    return runs


def run_floor(args: argparse.Namespace, emit: Callable[[str, dict[str, Any]], None]) -> list[dict]:
    """Every floor variant, paced and (unless ``--no-saturation``) unpaced; their figures."""
    from echoridge.store.embedded import EmbeddedRedis

    tables = args.tables or (20 if args.quick else 200)
    duration = args.duration or (20.0 if args.quick else 60.0)
    saturation = args.saturation_duration or (8.0 if args.quick else 15.0)
    loops = [loop for loop in args.loops.split(",") if loop]
    if "uvloop" in loops and not has_uvloop():
        print("# floor: uvloop is not installed (pip install uvloop): plain asyncio only")
        loops = [loop for loop in loops if loop != "uvloop"]
    variants = [v for v in args.variants.split(",") if v]
    work = Path(tempfile.mkdtemp(prefix="erfloor-"))
    redis = EmbeddedRedis(work / "redis")
    url = redis.start()
    assert redis.process is not None
    results = []
    try:
        common = dict(
            variants=variants,
            loops=loops,
            generators=args.generators,
            frame_bytes=args.frame_bytes,
            seed=args.seed,
        )
        paced = floor_runs(
            url, redis.process.pid, tables=tables, think=args.think,
            label=f"{tables} tables think {args.think:g} s", **common,  # type: ignore[arg-type]
        )  # fmt: skip
        unpaced = []
        if not args.no_saturation:
            unpaced = floor_runs(
                url, redis.process.pid, tables=tables, think=0.0,
                label=f"{tables} tables unpaced", **common,  # type: ignore[arg-type]
            )  # fmt: skip
        for run in [*paced, *unpaced]:
            result = drive(run, args.warmup, saturation if run in unpaced else duration)
            results.append(result)
            emit("floor   ", result)
    finally:
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="20 tables, 20 s (8 s unpaced)")
    parser.add_argument("--tables", type=int, default=0, help="default 200 (--quick: 20)")
    parser.add_argument("--think", type=float, default=THINK, help="mean think seconds (exp.)")
    parser.add_argument("--duration", type=float, default=0.0, help="measured seconds (60)")
    parser.add_argument(
        "--saturation-duration", type=float, default=0.0, help="measured seconds unpaced (15)"
    )
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument("--generators", type=int, default=2, help="load generator processes")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="send,broadcast,queue")
    parser.add_argument("--loops", default=",".join(LOOPS), help="asyncio,uvloop")
    parser.add_argument("--no-saturation", action="store_true", help="skip the unpaced runs")
    parser.add_argument("--frame-bytes", type=int, default=FRAME_BYTES)
    parser.add_argument("--seed", type=int, default=13)


def print_line(tag: str, result: dict[str, Any]) -> None:
    print(tag, json.dumps(result), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--serve", metavar="REDIS_URL", help=argparse.SUPPRESS)
    parser.add_argument("--load", metavar="WS_URL", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--variant", choices=VARIANTS, default="send", help=argparse.SUPPRESS)
    parser.add_argument("--loop", choices=LOOPS, default="asyncio", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        run_loop(floor_server(args.serve, args.variant, args.frame_bytes), args.loop)
        return 0
    if args.load:
        run_loop(floor_load(args.load, args.first, args.tables, args.think, args.seed), args.loop)
        return 0
    print(f"# I/O floor: {os.cpu_count()} cores; {FRAME_BYTES} B frames unless --frame-bytes")
    run_floor(args, print_line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
