"""Issue 26's transcripts built once: the server's CPU per ``transcript`` download of a finished
4-player game, served from the kept copy and built from the log (what every download cost before
transcripts were kept: the replay through the engine and the re-projection of the public view at
every version; today only a game whose kept copy is missing pays it, once).

1. Starts ``echo-ridge serve`` on its embedded Redis (load_bench.py's ``start_server``) and plays
   one 4-seat game: three of the server's random bots and one SDK random bot.
2. Kept: ``--downloads`` requests over one lobby connection (msgpack, then JSON), each answered
   from the kept bytes; built: ``--rebuilds`` times, the kept copy is deleted and the next request
   builds (and keeps) it.  The server's CPU (``/proc/PID/stat``) over each window, per download.
3. Each window's disturbance: the CPU the rest of the machine used meanwhile (``/proc/stat``
   busy time less the server's, Redis's and this process's), as a share of the window's wall
   time on all cores; a busy machine slows everything, so read the figures as rough.

Prints one JSON line per window and ``transcripts {json}`` last; never asserts on time.
Usage: python bench/transcript_bench.py [--downloads N] [--rebuilds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

import load_bench
from echoridge.store import keys
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from floor import machine_busy_seconds

GAME_TIMEOUT = 300  # seconds


async def play_game(url: str) -> tuple[str, int]:
    """A 4-seat game: three of the server's random bots and an SDK random bot; its table and
    last version."""
    lobby = await Lobby.connect(url)
    try:
        table = (await lobby.create(4)).table
        token = (await lobby.join(table, "bench")).token
        for _ in range(3):
            await lobby.add_bot(table, token, "random")
        seat = await Seat.sit(url, table, token)
        try:
            await lobby.start(table, token)
            await seat.play(RandomPolicy(26), timeout=GAME_TIMEOUT)
            return table, seat.version
        finally:
            await seat.close()
    finally:
        await lobby.close()


async def lobby_session(url: str, subprotocol: str) -> ClientConnection:
    ws = await connect(url, subprotocols=[Subprotocol(subprotocol)], max_size=None)
    await ws.send(codec.encode(m.Hello(m.PROTOCOL, "transcript-bench"), subprotocol))
    await ws.recv()  # (welcome)
    return ws


async def download(ws: ClientConnection, table: str, subprotocol: str, n: int) -> int:
    """One request and its reply (read, not decoded): the reply's size."""
    await ws.send(codec.encode(m.GetTranscript(id=f"r{n}", table=table), subprotocol))
    frame = await ws.recv()
    return len(frame)


async def window(server: Any, name: str, count: int, step: Any) -> dict[str, Any]:
    """Run ``step(i)`` ``count`` times; the server's CPU per step and the window's disturbance."""
    redis_pid = server.redis_pid
    cpu, redis_cpu = server.cpu_seconds(), load_bench.cpu_seconds(redis_pid)
    own, busy, began = time.process_time(), machine_busy_seconds(), time.perf_counter()
    size = 0
    for i in range(count):
        size = await step(i)
    wall = time.perf_counter() - began
    used = server.cpu_seconds() - cpu
    ours = used + load_bench.cpu_seconds(redis_pid) - redis_cpu + time.process_time() - own
    others = max(0.0, machine_busy_seconds() - busy - ours)
    report = {
        "window": name,
        "downloads": count,
        "bytes": size,
        "server_cpu_ms_per_download": round(used / count * 1000, 3),
        "wall_ms_per_download": round(wall / count * 1000, 2),
        "others_share": round(others / (wall * (os.cpu_count() or 1)), 3),
    }
    print(json.dumps(report), flush=True)
    return report


async def bench(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="ertr-"))
    server = load_bench.start_server(work, 0)
    try:
        table, version = await play_game(server.url)
        redis = server.redis()
        for _ in range(200):  # kept by the node whose append ended the game
            if redis.exists(keys.transcript(table)):
                break
            await asyncio.sleep(0.05)
        stored = len(redis.get(keys.transcript(table)) or b"")
        results = []
        for sub in (m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON):
            ws = await lobby_session(server.url, sub)
            try:
                await download(ws, table, sub, -1)  # (warm)

                async def kept(i: int, ws: ClientConnection = ws, sub: str = sub) -> int:
                    return await download(ws, table, sub, i)

                async def built(i: int, ws: ClientConnection = ws, sub: str = sub) -> int:
                    redis.delete(keys.transcript(table))
                    return await download(ws, table, sub, i)

                name = sub.rsplit(".", 1)[1]
                results.append(await window(server, f"kept {name}", args.downloads, kept))
                results.append(await window(server, f"built {name}", args.rebuilds, built))
            finally:
                await ws.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    figures = {
        r["window"].replace(" ", "_") + "_cpu_ms": r["server_cpu_ms_per_download"] for r in results
    }
    summary = {
        "versions": version,
        "kept_bytes": stored,
        **figures,
        "others_share_max": max(r["others_share"] for r in results),
    }
    print("transcripts " + json.dumps(summary), flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--downloads", type=int, default=400)
    parser.add_argument("--rebuilds", type=int, default=40)
    return asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
