"""The load benchmark: a real ``echo-ridge serve`` process on its embedded Redis (in a temp dir),
loaded by remote bots over the network, and beside it a minimal websockets broadcast server.

1. Starts ``echo-ridge serve`` (``--commands-per-second 1000000 --bot-delay 0
   --decision-timeout 0``) and runs ``echo-ridge bots`` (``run_tables``) in ``--generators``
   processes: 200
   tables x 4 seats + 1 spectator (``--quick``: 20), random bots; the tables arrive over
   ``--ramp`` seconds (10) and each seat thinks ``--think`` seconds (1 on average, exponential,
   so commands arrive as from independent people) before each command; ``--think 0`` plays
   unpaced, which saturates the server (throughput, not latency).
2. Reports for the play (from the first table's creation to the end of the last game):
   commands/s, deliveries/s, command-to-delta latency p50/p99 (client side, around
   ``Seat.act``; and the server's own command time from its histogram), Redis calls per command
   (INFO commandstats before/after: EVALSHA per command, and every call but the follower's XREAD
   per command; note that commandstats also counts the calls a Lua script makes, so a MONITOR
   sample of a few seconds splits the calls between clients and scripts to give the round trips
   per command), server CPU seconds per command (``/proc/PID/stat``), and the server's event-loop
   lag (``echoridge_loop_lag_seconds`` from ``/metrics``).
3. Then starts a minimal websockets broadcast server (this file, ``--baseline-server``), opens the
   same number of connections (same binary/text mix), has it broadcast as many messages of the
   same average sizes as the bots received deltas, and compares deliveries per server CPU-second.

The bots run in ``--generators`` processes of their own (2), each with its share of the tables;
their CPU and their own event-loop lag are reported beside the server's (a generator that falls
behind delays the replies it times).  Prints JSON lines and a summary against the targets (p99
< 20 ms; 1 Redis round trip per command); never asserts on time; bench/targets.py reads the
lines.  Usage: python bench/load_bench.py [--quick] [--tables N] [--generators N] [--py-spy FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import hashlib
import json
import math
import multiprocessing
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

from echoridge.serve import GC_THRESHOLDS
from echoridge.store import scripts
from echoridge.store.embedded import EmbeddedRedis, free_port
from echoridge.transcript import replay
from echoridge_client.botsessions import Stats
from echoridge_client.loadbots import BotOptions, ok, percentile, run_tables, subprotocol_of
from echoridge_protocol import messages as m

READY = "echo-ridge: serving on"
TICKS = os.sysconf("SC_CLK_TCK")
TARGET_P99_MS = 20.0  # issue 13, at 200 tables (bench/targets.py prints every target)
TARGET_ROUND_TRIPS = 1.0
THINK = 1.0  # seconds a seat thinks before a command, on average (a fast human takes longer)
RAMP = 10.0  # seconds over which the tables arrive
BASELINE_CPU = 2.0  # seconds of baseline server CPU to measure, at least
GENERATORS = 2  # load generator processes (the bots' client), each with its share of the tables


# --- processes ---------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (``/proc/PID/stat``)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


@dataclass
class GameServer:
    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path
    log: Path
    embedded: EmbeddedRedis | None = None  # started here (with --redis-pool), else by the server

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def redis_pid(self) -> int:
        if self.embedded is not None and self.embedded.process is not None:
            return self.embedded.process.pid
        return int((self.data_dir / "redis.pid").read_text().strip())

    @property
    def redis_sock(self) -> Path:
        return self.data_dir / "redis.sock"

    def redis(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.redis_sock))

    def cpu_seconds(self) -> float:
        """The server's CPU: the process's, and with ``--workers`` its workers' (the children
        multiprocessing spawned; the embedded Redis is counted apart)."""
        total = cpu_seconds(self.process.pid)
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                        total += cpu_seconds(int(child))
        return total

    def metrics(self) -> dict[str, float]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            return parse_metrics(r.read().decode())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.embedded is not None:
            self.embedded.stop()


def start_server(
    work: Path,
    pool: int,
    gc_threshold: str | None = None,
    bot_delay: float = 0.0,
    extra: tuple[str, ...] = (),
) -> GameServer:
    """``echo-ridge serve`` on an embedded Redis in ``work``.  ``pool`` > 0: the embedded Redis
    is started here (the same ``EmbeddedRedis``) and handed to the server as ``--redis-url``
    with ``?max_connections=POOL``; 0: the server starts it itself, as ``make run`` does.
    ``gc_threshold`` ("700,10,10") replaces the thresholds ``serve`` sets (``GC_THRESHOLDS``),
    to measure what the collector costs."""
    port = free_port()
    data_dir = work / "data"
    embedded = None
    where = ["--data-dir", str(data_dir)]
    if pool:
        embedded = EmbeddedRedis(data_dir)
        where = ["--redis-url", f"{embedded.start()}?max_connections={pool}"]
    python = [sys.executable, "-m", "echoridge.cli"]
    if gc_threshold:
        python = [
            sys.executable,
            "-c",
            f"import sys; import echoridge.serve as s; s.GC_THRESHOLDS = ({gc_threshold}); "
            "from echoridge.cli import main; sys.exit(main())",
        ]
    log = work / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [
                *python, "serve",
                "--port", str(port),
                *where,
                "--commands-per-second", "1000000",
                "--max-connections-per-ip", "0",  # every bot connects from 127.0.0.1
                "--tables-per-minute-per-ip", "0",  # ... and creates its tables from there
                "--max-waiting-tables-per-ip", "0",
                "--bot-delay", str(bot_delay),
                "--decision-timeout", "0",
                *extra,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )  # fmt: skip
    server = GameServer(process, port, data_dir, log, embedded)
    deadline = time.monotonic() + 60
    while READY not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"the server did not start: {log.read_text(errors='replace')}")
        time.sleep(0.05)
    return server


# --- /metrics ----------------------------------------------------------------------------------

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$")


def parse_metrics(text: str) -> dict[str, float]:
    """Every sample of the exposition text: ``'name{labels}' -> value``."""
    out = {}
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match:
            out[match.group(1)] = float(match.group(2))
    return out


def delta(before: dict[str, float], after: dict[str, float], series: str) -> float:
    return after.get(series, 0.0) - before.get(series, 0.0)


def histogram(
    before: dict[str, float], after: dict[str, float], name: str
) -> tuple[list[tuple[float, float]], float, float]:
    """A histogram's change between two scrapes: ``([(le, cumulative count)], count, sum)``."""
    buckets = []
    for series in after:
        match = re.fullmatch(rf'{name}_bucket\{{le="([^"]+)"\}}', series)
        if match:
            buckets.append((float(match.group(1)), delta(before, after, series)))
    buckets.sort()
    return buckets, delta(before, after, f"{name}_count"), delta(before, after, f"{name}_sum")


def bucket_quantile(buckets: list[tuple[float, float]], count: float, q: float) -> float:
    """The upper bound of the bucket holding the q-quantile (an upper estimate)."""
    if not count:
        return 0.0
    for bound, cumulative in buckets:
        if cumulative >= q * count:
            return bound
    return math.inf


# --- Redis -------------------------------------------------------------------------------------

SCRIPTS = ("APPEND", "CREATE_TABLE", "UPDATE_META", "JOIN", "LEAVE", "START", "CLOSE", "PRESENCE")
IGNORED_CALLS = {"info", "monitor", "config", "client", "ping"}  # ours, not the server's


def command_calls(r: redis.Redis) -> Counter[str]:
    stats: dict[str, Any] = r.info("commandstats")
    return Counter({k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()})


_MONITOR_LINE = re.compile(rb'^\+?[\d.]+ \[\d+ ([^\]]*)\] "([^"]+)"(?: "([^"]*)")?')


def monitor(sock: str) -> dict[str, Any]:
    """Count the commands Redis runs (MONITOR) until SIGTERM, split into those clients sent (round
    trips; EVALSHA by script, and HGET of a command-id hash apart) and those Lua scripts ran."""
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    script_names = {
        hashlib.sha1(getattr(scripts, name).encode()).hexdigest().encode(): name
        for name in SCRIPTS
    }
    clients: Counter[str] = Counter()
    scripted: Counter[str] = Counter()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(sock)
        conn.sendall(b"MONITOR\r\n")
        conn.settimeout(0.2)
        buffer = b""
        first = True
        while not stopping:
            try:
                chunk = conn.recv(1 << 16)
            except TimeoutError:
                continue
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\r\n")
            for line in lines:
                if first:  # +OK: from here on every command is seen
                    first = False
                    print("monitoring", flush=True)
                    continue
                match = _MONITOR_LINE.match(line)
                if not match:
                    continue
                source, name, arg = match.group(1), match.group(2).decode().lower(), match.group(3)
                if source == b"lua":
                    scripted[name] += 1
                    continue
                if name == "evalsha":
                    name = f"evalsha {script_names.get(arg or b'', '?')}"
                elif name == "hget" and arg is not None and arg.endswith(b":cids"):
                    name = "hget cids"  # a stale command: was its id appended before?
                clients[name] += 1
    return {"clients": clients, "scripts": scripted}


class Monitor:
    """``monitor`` in a subprocess of ours (parsing its stream costs the server nothing)."""

    def __init__(self, sock: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--monitor", str(sock)],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        assert self.process.stdout is not None
        self.process.stdout.readline()  # monitoring

    def stop(self) -> dict[str, Any]:
        self.process.terminate()
        out, _ = self.process.communicate(timeout=60)
        return dict(json.loads(out or b"{}"))


# --- the baseline: a minimal websockets broadcast server ----------------------------------------


async def baseline_server() -> None:
    """``--baseline-server``: prints ``listening PORT``; connections on /binary and /text are
    receivers; a connection on /control sends ``{"deliveries", "binary", "text"}`` (sizes in
    bytes) and gets ``done`` once every message is queued."""
    receivers: dict[str, list[ServerConnection]] = {"binary": [], "text": []}

    async def handler(ws: ServerConnection) -> None:
        path = ws.request.path if ws.request is not None else "/"
        if path == "/control":
            async for message in ws:
                await blast(receivers, json.loads(message))
                await ws.send("done")
            return
        kind = "text" if path == "/text" else "binary"
        receivers[kind].append(ws)
        await ws.wait_closed()

    async with serve(
        handler, "127.0.0.1", 0, compression=None, ping_interval=None, max_size=None
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"listening {port}", flush=True)
        await asyncio.Future()


async def blast(receivers: dict[str, list[ServerConnection]], spec: dict[str, int]) -> None:
    """Broadcast rounds of one message per connection until ``deliveries`` are queued."""
    frames: dict[str, bytes | str] = {
        "binary": os.urandom(spec["binary"]),
        "text": "x" * spec["text"],
    }
    everyone = [(kind, ws) for kind, group in receivers.items() for ws in group]
    rounds, rest = divmod(spec["deliveries"], len(everyone))
    for r in range(rounds + 1):
        last = r == rounds
        for kind, group in receivers.items():
            targets = group if not last else [ws for k, ws in everyone[:rest] if k == kind]
            if targets:
                broadcast(targets, frames[kind])
        # Let the clients keep up: no more than a few MB waiting in our buffers.
        while sum(ws.transport.get_write_buffer_size() for _, ws in everyone) > 4 << 20:
            await asyncio.sleep(0.002)
        await asyncio.sleep(0)


async def run_baseline(
    connections: dict[str, int], sizes: dict[str, int], deliveries: int
) -> dict[str, Any]:
    """Blast ``deliveries`` messages over the connections, again until the server has used
    at least ``BASELINE_CPU`` seconds (CPU time is counted in 10 ms ticks); per-blast figures."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--baseline-server"],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        port = int(line.split()[1])
        base = f"ws://127.0.0.1:{port}"
        received = 0
        done = asyncio.Event()
        gate = asyncio.Semaphore(50)

        async def open_one(kind: str) -> ClientConnection:
            async with gate:
                return await connect(
                    f"{base}/{kind}", compression=None, max_size=None, ping_interval=None
                )

        clients = await asyncio.gather(
            *(open_one(kind) for kind, n in connections.items() for _ in range(n))
        )

        async def read(ws: ClientConnection) -> None:
            nonlocal received
            with contextlib.suppress(Exception):
                async for _ in ws:
                    received += 1
                    if received >= deliveries:
                        done.set()

        readers = [asyncio.create_task(read(ws)) for ws in clients]
        await asyncio.sleep(0.5)  # every connection registered
        blasts = 0
        seconds = used = 0.0
        async with connect(f"{base}/control", compression=None) as control:
            while used < BASELINE_CPU and blasts < 100:
                received = 0
                done.clear()
                cpu = cpu_seconds(process.pid)
                began = time.perf_counter()
                await control.send(json.dumps({"deliveries": deliveries, **sizes}))
                await asyncio.wait_for(done.wait(), 300)
                seconds += time.perf_counter() - began
                used += cpu_seconds(process.pid) - cpu
                blasts += 1
                await control.recv()  # done
        await asyncio.gather(*(ws.close() for ws in clients), return_exceptions=True)
        for task in readers:
            task.cancel()
        return {
            "connections": sum(connections.values()),
            "deliveries": received,
            "bytes": sizes,
            "blasts": blasts,
            "seconds": round(seconds / blasts, 3),
            "server_cpu_seconds": round(used / blasts, 3),
            "deliveries_per_cpu_second": round(received * blasts / used, 1)
            if used
            else math.inf,
        }
    finally:
        process.terminate()
        process.wait(10)


# --- the run -----------------------------------------------------------------------------------


@dataclass
class Snapshot:
    at: float
    server_cpu: float
    redis_cpu: float
    calls: Counter[str]
    metrics: dict[str, float]

    @classmethod
    def take(cls, server: GameServer, r: redis.Redis) -> Snapshot:
        return cls(
            time.perf_counter(),
            server.cpu_seconds(),
            cpu_seconds(server.redis_pid),
            command_calls(r),
            server.metrics(),
        )


async def sample_loop_lag(out: list[float], tick: float = 0.1) -> None:
    """The load generator's own event-loop lag (as the server's ``watch_loop_lag``): a busy
    generator delays the replies it times, so its lag is reported beside its CPU."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(tick)
        out.append(max(0.0, loop.time() - before - tick))


@contextlib.contextmanager
def py_spy(pid: int, out: str | None) -> Iterator[None]:
    """Record the server with py-spy (raw collapsed stacks) while the block runs."""
    binary = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if out is None or not os.path.exists(binary):
        if out is not None:
            print(f"# py-spy not found ({binary}): pip install py-spy", file=sys.stderr)
        yield
        return
    spy = subprocess.Popen(
        [binary, "record", "-p", str(pid), "-r", "100", "-f", "raw", "-o", out],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        spy.send_signal(signal.SIGINT)
        spy.wait(60)


# --- the load generator: processes of their own -----------------------------------------------


def generator(options: BotOptions, played: Any, go: Any, out: Any) -> None:
    """One load generator process: plays its share of the tables, says when its games have
    ended (``played``), waits for ``go`` (the server's figures are read meanwhile), verifies the
    transcripts and sends its report, raw latencies and loop lag samples on ``out``."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)  # its own collector's pauses would add to what it times

    async def main() -> None:
        lags: list[float] = []
        sampler = asyncio.create_task(sample_loop_lag(lags))

        async def ended() -> None:
            sampler.cancel()
            played.set()
            while not go.is_set():
                await asyncio.sleep(0.05)

        stats = Stats()
        report, _ = await run_tables(options, ended, stats)
        out.put({"report": report, "latencies": stats.latencies, "lags": lags})

    asyncio.run(main())


async def run_generators(
    options: BotOptions, processes: int, played: Any
) -> tuple[dict[str, Any], list[float]]:
    """``run_bots`` over ``processes`` generator processes, each with its share of the tables
    (and its own seed): one merged report (latency percentiles over every sample, counts and
    CPU summed) and the generators' loop lag samples.  ``played`` is awaited once every game
    has ended, before the transcripts are checked."""
    ctx = multiprocessing.get_context("spawn")
    base, extra = divmod(options.tables, processes)
    shares = [base + (i < extra) for i in range(processes)]
    shares = [n for n in shares if n]
    out = ctx.Queue()
    go = ctx.Event()
    procs, ends = [], []
    for i, n in enumerate(shares):
        seed = None if options.seed is None else options.seed * 1000 + i
        mine = dataclasses.replace(options, tables=n, seed=seed)
        ended = ctx.Event()
        p = ctx.Process(target=generator, args=(mine, ended, go, out), daemon=True)
        p.start()
        procs.append(p)
        ends.append(ended)
    loop = asyncio.get_running_loop()
    try:
        for ended in ends:
            while not ended.is_set():
                await asyncio.sleep(0.05)
        await played()
        go.set()
        parts = [await loop.run_in_executor(None, out.get, True, options.timeout) for _ in procs]
    finally:
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
    reports = [part["report"] for part in parts]
    latencies = [x for part in parts for x in part["latencies"]]
    lags = [x for part in parts for x in part["lags"]]
    merged: dict[str, Any] = dict(reports[0])
    summed = ("tables", "concurrency", "finished", "verified", "errors", "commands",
              "acknowledged", "lost", "retries", "accepted", "stale", "rejected", "paced_stale",
              "deliveries", "connections", "reconnects", "client_cpu_seconds")  # fmt: skip
    for key in summed:
        merged[key] = round(sum(r.get(key, 0) for r in reports), 3)
    for key in ("play_seconds", "seconds"):
        merged[key] = max(r[key] for r in reports)
    merged["p50_ms"] = round(percentile(latencies, 50) * 1000, 2)
    merged["p99_ms"] = round(percentile(latencies, 99) * 1000, 2)
    merged["max_ms"] = round(max(latencies, default=0.0) * 1000, 2)
    play = merged["play_seconds"]
    merged["commands_per_second"] = round(merged["commands"] / play, 1) if play else 0
    merged["deliveries_per_second"] = round(merged["deliveries"] / play, 1) if play else 0
    sizes: dict[str, list[float]] = {}
    for r in reports:
        for name, mean in r["delta_bytes"].items():
            weight = r["deliveries"] or 1
            tally = sizes.setdefault(name, [0.0, 0.0])
            tally[0] += weight
            tally[1] += mean * weight
    merged["delta_bytes"] = {name: round(t / w, 1) for name, (w, t) in sizes.items() if w}
    merged["generators"] = len(procs)
    return merged, lags


async def bench(args: argparse.Namespace) -> int:
    tables = args.tables or (20 if args.quick else 200)
    # The bots' client holds 1,000 sessions' mirrors: give it the server's collector settings,
    # so its own pauses do not add to the latency it measures.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    work = Path(tempfile.mkdtemp(prefix="erload-"))
    server = start_server(
        work, args.redis_pool, args.gc_threshold, extra=("--workers", str(args.workers))
    )
    r = server.redis()
    options = BotOptions(
        url=server.url,
        replay=replay,
        tables=tables,
        players=args.players,
        spectators=args.spectators,
        bot=args.bot,
        subprotocol=args.subprotocol,
        rate=args.rate,
        think=args.think,
        ramp=args.ramp,
        timeout=1800,
        seed=args.seed,
    )
    print(f"# load benchmark: {tables} tables x {args.players} seats + {args.spectators} "
          f"spectator(s), {args.bot} bots, {args.subprotocol}, rate {args.rate or 'unpaced'}, "
          f"think {args.think:g} s, ramp {args.ramp:g} s; "
          f"{os.cpu_count()} cores; server pid {server.process.pid}, {args.workers} worker(s)"
          + (f", gc.set_threshold({args.gc_threshold})" if args.gc_threshold else ""))  # fmt: skip
    if args.redis_pool:
        print(f"# the server's Redis pool is set to {args.redis_pool} connections "
              "(--redis-pool 0: the server's own default)")  # fmt: skip
    try:
        watch = Monitor(server.redis_sock)
        before = Snapshot.take(server, r)
        after: list[Snapshot] = []
        seen: list[dict[str, Any]] = []

        async def played() -> None:
            after.append(Snapshot.take(server, r))
            seen.append(watch.stop())

        with py_spy(server.process.pid, args.py_spy):
            report, lags = await run_generators(options, args.generators, played)
        end, monitored = after[0], seen[0]
    finally:
        server.stop()
    print("bots    ", json.dumps(report, sort_keys=True))

    play = end.at - before.at
    server_cpu = end.server_cpu - before.server_cpu
    redis_cpu = end.redis_cpu - before.redis_cpu
    outcomes = {
        o: delta(before.metrics, end.metrics, f'echoridge_commands_total{{outcome="{o}"}}')
        for o in ("accepted", "rejected", "duplicate", "stale")
    }
    commands = sum(outcomes.values())
    calls = end.calls - before.calls
    evalsha = calls["evalsha"]
    others = sum(n for name, n in calls.items() if name not in IGNORED_CALLS | {"xread"})
    lag_buckets, lag_count, lag_sum = histogram(
        before.metrics, end.metrics, "echoridge_loop_lag_seconds"
    )
    cmd_buckets, cmd_count, _ = histogram(
        before.metrics, end.metrics, "echoridge_command_seconds"
    )
    deliveries = report["deliveries"]
    ours_per_cpu = deliveries / server_cpu if server_cpu else math.inf
    clients = Counter(monitored.get("clients", {}))
    for name in IGNORED_CALLS:
        clients.pop(name, None)
    # A start appends the setup (one APPEND per table) without a command: not on the path.
    path = clients["evalsha APPEND"] + clients["hget cids"] - clients["evalsha START"]
    lifecycle = sum(clients.values()) - clients["xread"] - path
    path_trips, all_trips = path / commands, (path + lifecycle) / commands

    def gc_delta(what: str, generation: str) -> float:
        series = f'echoridge_gc_{what}_total{{generation="{generation}"}}'
        return delta(before.metrics, end.metrics, series)
    load = {
        "tables": tables,
        "workers": args.workers,
        "commands": int(commands),
        "commands_per_game": round(commands / report["finished"], 1) if report["finished"] else 0,
        "outcomes": {k: int(v) for k, v in outcomes.items()},
        "play_seconds": round(play, 2),
        "commands_per_second": round(commands / play, 1),
        "deliveries": deliveries,
        "deliveries_per_second": round(deliveries / play, 1),
        "p50_ms": report["p50_ms"],
        "p99_ms": report["p99_ms"],
        "server_command_p50_ms_le": bucket_quantile(cmd_buckets, cmd_count, 0.5) * 1000,
        "server_command_p99_ms_le": bucket_quantile(cmd_buckets, cmd_count, 0.99) * 1000,
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_ms_per_command": round(server_cpu / commands * 1000, 3),
        "server_cpu_utilisation": round(server_cpu / play, 3),
        "redis_cpu_seconds": round(redis_cpu, 2),
        "client_cpu_seconds": report["client_cpu_seconds"],
        "client_cpu_utilisation": round(report["client_cpu_seconds"] / play, 3),
        "client_loop_lag_max_ms": round(max(lags, default=0.0) * 1000, 1),
        "client_loop_lag_p99_ms": round(sorted(lags)[int(0.99 * (len(lags) - 1))] * 1000, 1)
        if lags
        else 0.0,
        "loop_lag_max_ms": round(end.metrics.get("echoridge_loop_lag_max_seconds", 0) * 1000, 1),
        "loop_lag_mean_ms": round(lag_sum / lag_count * 1000, 2) if lag_count else 0.0,
        "loop_lag_p50_ms_le": bucket_quantile(lag_buckets, lag_count, 0.5) * 1000,
        "loop_lag_p99_ms_le": bucket_quantile(lag_buckets, lag_count, 0.99) * 1000,
        "gc_seconds": {g: round(gc_delta("seconds", g), 3) for g in "012"},
        "gc_collections": {g: int(gc_delta("collections", g)) for g in "012"},
    }
    print("load    ", json.dumps(load))
    redis_report = {
        "commandstats": {
            "evalsha_per_command": round(evalsha / commands, 3),
            "calls_per_command_but_xread": round(others / commands, 3),
            "xread_per_command": round(calls["xread"] / commands, 3),
            "calls": dict(calls.most_common()),
        },
        "monitor": {
            "round_trips_per_command_on_its_path": round(path_trips, 3),
            "round_trips_per_command_but_xread": round(all_trips, 3),
            "lifecycle_round_trips_per_table": round(lifecycle / tables, 1),
            "client_calls": dict(clients.most_common()),
            "script_calls": monitored.get("scripts"),
        },
    }
    print("redis   ", json.dumps(redis_report))

    connections: Counter[str] = Counter()
    per_table = args.players + args.spectators
    for t in range(tables):
        for c in range(per_table):
            sub = subprotocol_of(options, t, c)
            connections["text" if sub == m.SUBPROTOCOL_JSON else "binary"] += 1
    sizes = report["delta_bytes"]
    frame_sizes = {
        "binary": round(sizes.get(m.SUBPROTOCOL_MSGPACK, sizes.get(m.SUBPROTOCOL_JSON, 500))),
        "text": round(sizes.get(m.SUBPROTOCOL_JSON, sizes.get(m.SUBPROTOCOL_MSGPACK, 500))),
    }
    baseline = await run_baseline(dict(connections), frame_sizes, deliveries)
    ratio = ours_per_cpu / baseline["deliveries_per_cpu_second"]
    fanout = {
        "ours_deliveries_per_cpu_second": round(ours_per_cpu, 1),
        "baseline": baseline,
        "ratio": round(ratio, 4),
    }
    print("fanout  ", json.dumps(fanout))

    print("# targets")
    verdict = "met" if report["p99_ms"] < TARGET_P99_MS else "MISSED"
    print(f"#   p99 command-to-delta {report['p99_ms']} ms (< {TARGET_P99_MS}): {verdict}")
    verdict = "met" if path_trips <= TARGET_ROUND_TRIPS + 0.005 else "MISSED"
    print(f"#   Redis round trips on a command's path: {path_trips:.3f} per command (1): {verdict}"
          f"; every call the server sent but XREAD: {all_trips:.3f} per command (with "
          f"{lifecycle / tables:.0f} per table to create, join, start, open sessions, end); "
          f"EVALSHA {evalsha / commands:.3f} per command; INFO commandstats counts "
          f"{others / commands:.2f} calls per command, the scripts' calls included")  # fmt: skip
    print(f"#   (not a target) every delivery against all of the server's CPU: {ours_per_cpu:.0f} "
          f"vs {baseline['deliveries_per_cpu_second']:.0f} deliveries per server CPU-second for "
          f"a bare broadcast() = {ratio:.3f}x; the fan-out target is bench/fanout_bench.py's")
    good = ok(report)
    print(f"# games: {report['finished']}/{tables} finished, {report['verified']} verified, "
          f"{report['errors']} errors, {load['commands_per_game']} commands per game"
          + ("" if good else " -- FAILED"))  # fmt: skip
    if args.keep:
        print(f"# kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if good else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 tables instead of 200")
    parser.add_argument("--tables", type=int, default=0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--bot", choices=("random", "greedy"), default="random")
    parser.add_argument("--subprotocol", choices=("msgpack", "json", "mixed"), default="msgpack")
    parser.add_argument("--rate", type=float, default=0.0, help="commands/s per seat (0: unpaced)")
    parser.add_argument(
        "--think",
        type=float,
        default=THINK,
        metavar="SECONDS",
        help=f"mean think time of a seat before each command, exponential (default {THINK}; "
        "0: unpaced, the server saturated)",
    )
    parser.add_argument(
        "--ramp", type=float, default=RAMP, metavar="SECONDS", help="spread table creation over"
    )
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--generators", type=int, default=GENERATORS, help="load generator processes"
    )
    parser.add_argument(
        "--workers", default="1", help="serve --workers (its CPU is the workers' together)"
    )
    parser.add_argument("--py-spy", metavar="FILE", help="record the server with py-spy (raw)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (server log)")
    parser.add_argument(
        "--redis-pool",
        type=int,
        default=0,
        metavar="N",
        help="hand the server an embedded Redis with ?max_connections=N (0: the server starts "
        "its own, as make run does, with its default pool)",
    )
    parser.add_argument(
        "--gc-threshold", metavar="G0,G1,G2", help="start the server with gc.set_threshold(...)"
    )
    parser.add_argument("--baseline-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--monitor", metavar="SOCKET", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_server:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(baseline_server())
        return 0
    if args.monitor:
        print(json.dumps(monitor(args.monitor)))
        return 0
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
