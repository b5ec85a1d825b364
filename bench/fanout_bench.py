"""Issue 13's spectator target: one table with many spectators (1,000), deliveries per server
CPU-second against a bare websockets ``broadcast()`` of the same frames in the same run.

1. Starts ``echo-ridge serve`` (as load_bench.py does, with ``--bot-delay DELAY``) and makes one
   table of 4 seats the server plays itself: the creator's seat says ``play_for_me``, three bots.
2. Opens SPECTATORS spectator connections from light clients (raw websockets, msgpack: they only
   count frames, they decode nothing), in ``--processes`` processes of their own, before the
   start.
3. Starts the game and measures the server's CPU (``/proc/PID/stat``) from the start to the end of
   the game, against the frames the spectators received meanwhile.
4. Runs load_bench.py's bare broadcast server over the same number of connections with frames of
   the same mean size, and compares deliveries per server CPU-second (target >= 0.8x).

Prints JSON lines and the target with met/missed; never asserts on time.
Usage: python bench/fanout_bench.py [--spectators N] [--bot-delay S] [--processes P]
[--py-spy FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

import load_bench
from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from echoridge_protocol import codec
from echoridge_protocol import messages as m

TARGET_RATIO = 0.8
SPECTATORS = 1000
# Seconds the server's bots wait before each move.  0: the game runs as fast as the server
# goes, as the baseline blasts its frames; paced (0.05), every send wakes a reader that sleeps,
# which the kernel charges to the sender and the baseline never pays (0.63x against 0.72-0.84x).
BOT_DELAY = 0.0
GAME_TIMEOUT = 600  # seconds


def watchers(url: str, table: str, count: int, ready: Any, done: Any, out: Any) -> None:
    """A process of ``count`` spectators: counts frames and bytes after each welcome; reports
    once ``done`` is set (the game is over)."""

    async def main() -> None:
        frames = bytes_ = 0
        hello = codec.encode(
            m.Hello(m.PROTOCOL, "fanout-bench", table=table, spectate=True),
            m.SUBPROTOCOL_MSGPACK,
        )
        gate = asyncio.Semaphore(50)

        async def one() -> Any:
            async with gate:
                ws = await connect(
                    url,
                    subprotocols=[m.SUBPROTOCOL_MSGPACK],  # type: ignore[list-item]
                    compression=None,
                    max_size=None,
                    ping_interval=None,
                    open_timeout=60,
                )
                await ws.send(hello)
                await ws.recv()  # welcome
                return ws

        connections = await asyncio.gather(*(one() for _ in range(count)))
        ready.set()

        async def read(ws: Any) -> None:
            nonlocal frames, bytes_
            with contextlib.suppress(Exception):
                async for frame in ws:
                    frames += 1
                    bytes_ += len(frame)

        readers = [asyncio.create_task(read(ws)) for ws in connections]
        while not done.is_set():
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # the last frames
        cpu = time.process_time()
        out.put({"frames": frames, "bytes": bytes_, "cpu": cpu})
        for task in readers:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in connections), return_exceptions=True)

    asyncio.run(main())


async def setup(url: str) -> tuple[str, str]:
    lobby = await Lobby.connect(url)
    try:
        created = await lobby.create(4)
        joined = await lobby.join(created.table, "fan")
        for _ in range(3):
            await lobby.add_bot(created.table, joined.token, "random")
        return created.table, joined.token
    finally:
        await lobby.close()


async def play(url: str, table: str, token: str) -> int:
    """Start the game, hand the creator's seat to the server, wait for the end: the version."""
    lobby = await Lobby.connect(url)
    try:
        await lobby.start(table, token)
    finally:
        await lobby.close()
    seat = await Seat.sit(url, table, token)
    try:
        await seat.play_for_me()
        deadline = time.monotonic() + GAME_TIMEOUT
        while seat.view is None or seat.view["status"] != "over":
            if time.monotonic() > deadline:
                raise TimeoutError("the game did not end")
            await asyncio.sleep(0.1)
        return seat.version
    finally:
        await seat.close()


async def bench(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="erfan-"))
    server = load_bench.start_server(
        work, 0, bot_delay=args.bot_delay, extra=("--event-loop", args.event_loop)
    )
    ctx = multiprocessing.get_context("spawn")
    procs: list[Any] = []
    try:
        table, token = await setup(server.url)
        per = [args.spectators // args.processes] * args.processes
        per[0] += args.spectators - sum(per)
        done, out = ctx.Event(), ctx.Queue()
        readies = []
        for count in per:
            ready = ctx.Event()
            p = ctx.Process(
                target=watchers, args=(server.url, table, count, ready, done, out), daemon=True
            )
            p.start()
            procs.append(p)
            readies.append(ready)
        for ready in readies:
            while not ready.wait(0.1):
                await asyncio.sleep(0)
        cpu = load_bench.cpu_seconds(server.process.pid)
        began = time.perf_counter()
        with load_bench.py_spy(server.process.pid, args.py_spy):
            version = await play(server.url, table, token)
        seconds = time.perf_counter() - began
        used = load_bench.cpu_seconds(server.process.pid) - cpu
        done.set()
        reports = [out.get(timeout=120) for _ in procs]
    finally:
        for p in procs:
            p.join(30)
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    frames = sum(r["frames"] for r in reports)
    size = round(sum(r["bytes"] for r in reports) / max(1, frames))
    ours = {
        "spectators": args.spectators,
        "versions": version,
        "seconds": round(seconds, 2),
        "deliveries": frames,
        "mean_frame_bytes": size,
        "server_cpu_seconds": round(used, 3),
        "server_cpu_us_per_delivery": round(used / frames * 1e6, 2) if frames else None,
        "deliveries_per_cpu_second": round(frames / used, 1) if used else None,
        "client_cpu_seconds": round(sum(r["cpu"] for r in reports), 2),
        "client_processes": args.processes,
    }
    print("ours    ", json.dumps(ours), flush=True)
    baseline = await load_bench.run_baseline(
        {"binary": args.spectators}, {"binary": size, "text": size}, frames
    )
    print("baseline", json.dumps(baseline), flush=True)
    ratio = (ours["deliveries_per_cpu_second"] or 0) / baseline["deliveries_per_cpu_second"]
    verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
    print(
        f"# target: {args.spectators} spectators on one table, {ours['deliveries_per_cpu_second']}"
        f" vs {baseline['deliveries_per_cpu_second']} deliveries per server CPU-second for a "
        f"bare broadcast() = {ratio:.3f}x (>= {TARGET_RATIO}x): {verdict}",
        flush=True,
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=SPECTATORS)
    parser.add_argument("--bot-delay", type=float, default=BOT_DELAY)
    parser.add_argument("--event-loop", choices=("uvloop", "asyncio"), default="uvloop")
    parser.add_argument("--py-spy", metavar="FILE", help="record the server with py-spy (raw)")
    parser.add_argument("--processes", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    return asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
