"""The cost of the lobby's listing (issue 24): one ``echo-ridge serve`` on an embedded Redis in a
temp dir, ``--tables`` public tables, then ``list_tables`` asked ``--rounds`` times: the reply's
size and the server's CPU per listing (``/proc/PID/stat``), for the server's default page and,
when it pages (welcome feature ``lobby_pages``), a page of 100 and the walk through every page.

It speaks raw protocol frames, so it measures a server of any revision: run it with another
tree's code on ``PYTHONPATH`` to compare (before pages, a listing was every table, at most
1,000, oldest first).  Everything goes to 127.0.0.1; the counts are bounded.

    python bench/lobby_bench.py [--tables 1000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from echoridge.store.embedded import free_port
from echoridge_protocol import codec
from echoridge_protocol import messages as m

READY = "echo-ridge: serving on"
TICKS = os.sysconf("SC_CLK_TCK")
SUB = m.SUBPROTOCOL_MSGPACK


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_server(work: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    limits: list[str] = []
    if importlib.util.find_spec("echoridge.tables.quota") is not None:  # (a server with limits)
        limits = ["--tables-per-minute-per-ip", "0", "--max-waiting-tables-per-ip", "0"]
    log = work / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "echoridge.cli", "serve", "--port", str(port),
                "--data-dir", str(work / "data"), "--commands-per-second", "1000000", *limits,
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while READY not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the server did not start: {log.read_text(errors='replace')}")
        time.sleep(0.05)
    return process, port


async def ask(ws: ClientConnection, message: m.ClientMessage) -> tuple[m.ServerMessage, int]:
    """Send one request; its reply and the reply's size in bytes."""
    await ws.send(codec.encode(message, SUB))
    while True:
        frame = await ws.recv()
        reply = codec.decode_server(frame, SUB)
        if getattr(reply, "id", None) == getattr(message, "id", None):
            return reply, len(frame)


async def measure(
    ws: ClientConnection, pid: int, rounds: int, make: Any
) -> dict[str, float]:
    """``make(n)`` -> the requests of one listing (followed through ``next`` when it pages)."""
    sizes, before, began = [], cpu_seconds(pid), time.perf_counter()
    for n in range(rounds):
        size, tables, cursor = 0, 0, None
        for page in range(1000):  # (bounded)
            reply, length = await ask(ws, make(f"l{n}-{page}", cursor))
            assert isinstance(reply, m.Tables), reply
            cursor = getattr(reply, "next", None)  # (none before pages)
            size, tables = size + length, tables + len(reply.tables)
            if cursor is None or not make.follow:
                break
        sizes.append(size)
    cpu = cpu_seconds(pid) - before
    return {
        "tables": tables,
        "bytes": sum(sizes) / rounds,
        "server_cpu_ms": round(cpu / rounds * 1000, 2),
        "wall_ms": round((time.perf_counter() - began) / rounds * 1000, 2),
    }


class Listing:
    def __init__(self, follow: bool = False, **fields: Any) -> None:
        self.follow, self.fields = follow, fields

    def __call__(self, rid: str, cursor: str | None) -> m.ListTables:
        more: dict[str, Any] = {"cursor": cursor} if cursor else {}  # (none before pages)
        return m.ListTables(id=rid, **self.fields, **more)


async def bench(tables: int, rounds: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="erlobby-"))
    process, port = start_server(work)
    try:
        async with connect(
            f"ws://127.0.0.1:{port}/ws", subprotocols=[Subprotocol(SUB)], max_size=2**24
        ) as ws:
            hello = m.Hello(protocol=m.PROTOCOL, client="lobby-bench/1")
            await ws.send(codec.encode(hello, SUB))
            welcome = codec.decode_server(await ws.recv(), SUB)
            assert isinstance(welcome, m.Welcome)
            for i in range(tables):  # pipelined, a hundred at a time
                await ws.send(codec.encode(m.CreateTable(f"c{i}", 2, True, True, 0), SUB))
                if i % 100 == 99 or i == tables - 1:
                    await ask(ws, m.Ping(id=f"p{i}"))
            report: dict[str, Any] = {"tables_created": tables, "rounds": rounds}
            await measure(ws, process.pid, 3, Listing())  # warm up
            report["default_listing"] = await measure(ws, process.pid, rounds, Listing())
            if "lobby_pages" in welcome.features:
                report["page_of_100"] = await measure(ws, process.pid, rounds, Listing(limit=100))
                report["every_page_of_100"] = await measure(
                    ws, process.pid, max(1, rounds // 5), Listing(True, limit=100)
                )
            return report
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    if not 1 <= args.tables <= 5000 or not 1 <= args.rounds <= 1000:
        parser.error("--tables is 1 to 5000, --rounds 1 to 1000")
    print(json.dumps(asyncio.run(bench(args.tables, args.rounds)), indent=2))


if __name__ == "__main__":
    main()
