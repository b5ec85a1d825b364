"""The soak run (``make soak``): two ``echo-ridge serve`` processes on one Redis (appendfsync
always), 20 tables of remote random bots (4 seats and a spectator each, the seats of a table
spread over both servers) playing game after game for ``--minutes`` (10), with:

- random client disconnects (a seat's connection dropped without a close, every few seconds;
  it reconnects and resumes, on the other server if need be);
- one ``kill -9`` of a server a third of the way in (started again on its port 2 s later: its
  seats fail over to the other server and back);
- one ``kill -9`` of Redis two thirds of the way in (started again on its data 3 s later).

At the end every game must have finished, its transcript verified (engine replay), and every
command the server acknowledged to a seat must be in the transcript at its version (lost = 0).
The servers' RSS and open file descriptors are sampled every 10 s; the report gives them after
the warm-up (the first ``--warmup`` minutes, 2) and at the end, per server process.  Prints one
JSON line and a summary; exit status 1 if a game failed or a command was lost (never on time).
Usage: python bench/soak.py [--minutes M] [--tables N] [--warmup M]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from echoridge.store.embedded import free_port, redis_binary
from echoridge.transcript import replay
from echoridge_client.botsessions import BotSeat, BotSpectator, Stats
from echoridge_client.errors import ClientError
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import TableSession
from echoridge_client.transcripts import fetch_transcript, unacknowledged, verify

READY = "echo-ridge: serving on"
SAMPLE_SECONDS = 10.0
THINK = 0.25  # seconds a seat thinks before a command, on average
DISCONNECT_EVERY = 3.0  # seconds between two dropped client connections, on average


# --- processes -----------------------------------------------------------------------------------


@dataclass
class Process:
    """A child process (a server or Redis) that can be killed and started again as it was."""

    name: str
    args: list[str]
    port: int
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    lives: list[dict[str, Any]] = field(default_factory=list)  # per process: RSS/fd samples

    def start(self, ready: str | None = None) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.args,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                env={**os.environ, **self.env},
            )
        self.lives.append({"pid": self.process.pid, "samples": []})
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log.read_text()[-2000:]}")
            started = _answers(self.port) if ready is None else ready in self.log.read_text()
            if started:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def sample(self, at: float) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        pid = self.process.pid
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            rss = next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS"))
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            self.lives[-1]["samples"].append((round(at, 1), rss, fds))


def _answers(port: int) -> bool:
    import socket

    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5) as s:
        s.sendall(b"PING\r\n")
        return s.recv(16).startswith(b"+PONG")
    return False


def redis_process(work: Path) -> Process:
    port = free_port()
    data = work / "redis"
    data.mkdir()
    args = [
        redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
        "--save", "", "--appendonly", "yes", "--appendfsync", "always",
        "--maxmemory-policy", "noeviction",
    ]  # fmt: skip
    return Process("redis", args, port, work / "redis.log")


def server_process(work: Path, name: str, redis_url: str) -> Process:
    port = free_port()
    args = [
        sys.executable, "-m", "echoridge.cli", "serve", "--port", str(port),
        "--redis-url", redis_url, "--commands-per-second", "1000",
        "--max-connections-per-ip", "0", "--bot-delay", "0", "--decision-timeout", "0",
        "--tables-per-minute-per-ip", "0", "--max-waiting-tables-per-ip", "0",
    ]  # fmt: skip
    return Process(name, args, port, work / f"{name}.log", {"PYTHONUNBUFFERED": "1"})


# --- games ---------------------------------------------------------------------------------------


@dataclass
class Game:
    table: str
    finished: bool = False
    verified: bool = False
    lost: int = 0
    acknowledged: int = 0
    error: str | None = None


async def play_game(
    urls: list[str], index: int, stats: Stats, rng: random.Random, live: set[BotSeat]
) -> Game:
    """One table: 4 seats (alternating between the servers) and a spectator, to the end.  An
    error before the start raises (the setup met an outage: lobby requests that are not safe
    to repeat are not retried); after it, it is the game's."""
    lobby = await _lobby(urls, rng)
    seats: list[BotSeat] = []
    spectator: BotSpectator | None = None
    try:
        table = (await lobby.create(4)).table
        tokens = [(await lobby.join(table, f"bot {index}.{s}")).token for s in range(4)]
        for s, token in enumerate(tokens):
            order = urls[s % 2 :] + urls[: s % 2]  # this seat's server first, then the other
            seat = BotSeat(order, table, token=token, stats=stats, rate=0, think=THINK,
                           seed=rng.randbytes(8), seat=s)  # fmt: skip
            await seat.start()
            seats.append(seat)
        order = urls[index % 2 :] + urls[: index % 2]
        watcher = spectator = BotSpectator(order, table, stats=stats)
        await spectator.start()
        started = await lobby.start(table, tokens[0])
        if started.outcome != "accepted":
            raise ClientError(f"start refused: {started.code}")
        game = Game(table)
        live.update(seats)
        try:
            async with asyncio.timeout(900):
                await asyncio.gather(*(s.play(RandomPolicy(rng.randbytes(8))) for s in seats))
                await watcher.wait(lambda: watcher.over)
            game.finished = True
            await lobby.close()  # (its server may have been killed since: use one that answers)
            lobby = await _lobby(urls, rng)
            transcript = await fetch_transcript(lobby, table)
            ok, what = verify(transcript, replay)
            acks = [ack for s in seats for ack in s.acks]
            game.acknowledged = len(acks)
            game.lost = len(unacknowledged(transcript, acks))
            game.verified = ok and game.lost == 0
            if not ok:
                game.error = what
        except Exception as exc:
            game.error = f"{type(exc).__name__}: {exc}"
        return game
    finally:
        live.difference_update(seats)
        sessions: list[TableSession] = [*seats, *([spectator] if spectator else [])]
        for session in sessions:
            stats.reconnects += session.reconnects
            stats.deliveries += session.deliveries
            await session.close()
        await lobby.close()


async def _lobby(urls: list[str], rng: random.Random) -> Lobby:
    """A lobby connection to whichever server answers (one may be down)."""
    for attempt in range(200):
        with contextlib.suppress(ClientError, OSError, TimeoutError):
            return await Lobby.connect(urls[(attempt + rng.randrange(2)) % len(urls)])
        await asyncio.sleep(0.25)
    raise ClientError("no server answers")


async def table_loop(
    urls: list[str], index: int, until: float, stats: Stats, games: list[Game], live: set[BotSeat]
) -> None:
    """Game after game at one table slot until ``until`` (the last one is played out)."""
    rng = random.Random(index)
    while time.monotonic() < until:
        try:
            games.append(await play_game(urls, index, stats, rng, live))
        except Exception as exc:  # a setup that met an outage: counted, and the slot goes on
            if time.monotonic() >= until:
                break
            games.append(Game("?", error=f"setup: {type(exc).__name__}: {exc}"))
            await asyncio.sleep(1)


# --- the run -------------------------------------------------------------------------------------


async def disconnects(until: float, rng: random.Random, live: set[BotSeat]) -> int:
    """Drop a random seat's connection (no close frame) every few seconds; how many."""
    dropped = 0
    while time.monotonic() < until:
        await asyncio.sleep(rng.expovariate(1 / DISCONNECT_EVERY))
        seats = sorted((s for s in live if s.connection and not s.over), key=id)
        if seats:
            connection = rng.choice(seats).connection
            assert connection is not None
            transport = connection.ws.transport
            if not transport.is_closing():
                transport.abort()
                dropped += 1
    return dropped


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="echoridge-soak-"))
    redis = redis_process(work)
    redis.start()
    url = f"redis://127.0.0.1:{redis.port}/0"
    servers = [server_process(work, name, url) for name in ("server-a", "server-b")]
    for server in servers:
        server.start(READY)
    urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
    processes = [*servers, redis]
    began = time.monotonic()
    seconds = args.minutes * 60
    until = began + seconds
    stats = Stats()
    games: list[Game] = []
    events: list[str] = []

    async def sampler() -> None:
        while True:
            for p in processes:
                p.sample(time.monotonic() - began)
            await asyncio.sleep(SAMPLE_SECONDS)

    async def outages() -> None:
        if args.no_kills:
            return
        await asyncio.sleep(seconds / 3)
        servers[1].kill()
        events.append(f"{time.monotonic() - began:.0f}s: kill -9 server-b")
        await asyncio.sleep(2)
        servers[1].start(READY)
        await asyncio.sleep(seconds / 3)
        redis.kill()
        events.append(f"{time.monotonic() - began:.0f}s: kill -9 redis")
        await asyncio.sleep(3)
        redis.start()

    sampling = asyncio.create_task(sampler())
    breaking = asyncio.create_task(outages())
    live: set[BotSeat] = set()
    dropping = asyncio.create_task(disconnects(until, random.Random(99), live))
    try:
        loops = (table_loop(urls, i, until, stats, games, live) for i in range(args.tables))
        await asyncio.gather(*loops)
        await breaking
        dropped = await dropping
        for p in processes:
            p.sample(time.monotonic() - began)
    finally:
        sampling.cancel()
        for p in processes:
            p.stop()
    played = [g for g in games if g.table != "?"]
    return {
        "minutes": round((time.monotonic() - began) / 60, 1),
        "tables": args.tables,
        "games": len(played),
        "finished": sum(g.finished for g in played),
        "verified": sum(g.verified for g in played),
        "failed_setups": len(games) - len(played),
        "errors": [f"{g.table}: {g.error}" for g in games if g.error][:10],
        "acknowledged": sum(g.acknowledged for g in played),
        "lost": sum(g.lost for g in played),
        "commands": stats.commands,
        "retries": stats.retries,
        "reconnects": stats.reconnects,
        "dropped_connections": dropped,
        "events": events,
        "servers": {p.name: _flatness(p, args.warmup * 60) for p in processes},
        "work": str(work),
    }


def _flatness(process: Process, warmup: float) -> list[dict[str, Any]]:
    """Per life of the process: RSS (KiB) and open fds at warm-up's end and at the end."""
    out = []
    for life in process.lives:
        samples = life["samples"]
        if not samples:
            continue
        start = samples[0][0]
        warm = next((s for s in samples if s[0] - start >= warmup), samples[-1])
        out.append({
            "pid": life["pid"], "from_s": start, "to_s": samples[-1][0],
            "rss_kib_after_warmup": warm[1], "rss_kib_end": samples[-1][1],
            "rss_kib_max": max(s[1] for s in samples),
            "fds_after_warmup": warm[2], "fds_end": samples[-1][2],
            "rss_kib_by_minute": [s[1] for s in samples[:: max(1, int(60 / SAMPLE_SECONDS))]],
        })  # fmt: skip
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--warmup", type=float, default=2.0, help="minutes")
    parser.add_argument("--no-kills", action="store_true", help="no server or Redis kill")
    args = parser.parse_args()
    report = asyncio.run(soak(args))
    print(json.dumps(report, sort_keys=True))
    good = (
        report["games"] > 0
        and report["games"] == report["finished"] == report["verified"]
        and report["lost"] == 0
    )
    print(
        f"soak: {report['games']} games, {report['finished']} finished, {report['verified']} "
        f"verified, {report['lost']} acknowledged commands lost of {report['acknowledged']}; "
        f"{report['dropped_connections']} connections dropped, {report['reconnects']} "
        f"reconnects, {report['retries']} retries; {'; '.join(report['events'])}",
        file=sys.stderr,
    )
    for name, lives in report["servers"].items():
        for life in lives:
            print(
                f"  {name} pid {life['pid']} ({life['from_s']}-{life['to_s']} s): RSS "
                f"{life['rss_kib_after_warmup']} -> {life['rss_kib_end']} KiB, fds "
                f"{life['fds_after_warmup']} -> {life['fds_end']}",
                file=sys.stderr,
            )
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
