"""The soak run (``make soak``; ``SOAK_ARGS`` passes options): does a server's memory stay flat
over hours of games?  Two ``echo-ridge serve`` processes on one Redis (appendfsync always), on
127.0.0.1, and ``--tables`` (6) tables of remote bots (``--bot``, greedy; 4 seats and a
spectator each, the seats of a table spread over both servers) playing game after game for
``--minutes`` (120), with random client disconnects (a seat's connection dropped without a
close every few seconds; it reconnects and resumes, on the other server if need be).  With
``--kills``: one ``kill -9`` of a server a third of the way in (started again on its port 2 s
later) and one of Redis two thirds of the way in (started again on its data 3 s later).

Every ``--sample`` seconds (10) the report samples each process's RSS and open descriptors and
the games played so far.  Per server process (per life, with ``--kills``) it gives the RSS
after the warm-up (the first ``--warmup`` minutes of its life: 10% of the run, 5 minutes at
most, so that it ends well before the server's first full collection at 15 minutes, serve.py:
garbage that waits for that pass shows as growth), at the end, the largest after the warm-up,
the growth per game (least squares over the samples after the warm-up) and per hour, and
whether it is flat: never more than 10% above its after-warm-up value.  Redis's memory is
reported beside them (it keeps the archived games, so it grows with them by design).  Every
sample is kept in ``samples.json`` in the run's directory (``work`` in the report).  Every game
must finish, its transcript verify (engine replay), and every command the server acknowledged
to a seat be in the transcript (lost = 0).

Bounded: no game starts after ``--minutes`` (or once ``--games`` have started), a game has 15
minutes at most; SIGINT or SIGTERM ends it early (no game starts any more; a second one cancels
the games in play).  Prints one JSON line (stdout) and a summary (stderr); exit status 1 if a
game failed, a command was lost, or a server's RSS was not flat (never on time).
Usage: python bench/soak.py [--minutes M] [--tables N] [--warmup M] [--games N] [--bot B]
       [--kills] [--sample S]
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
from echoridge_client.policies import GreedyPolicy, Policy, RandomPolicy
from echoridge_client.session import TableSession
from echoridge_client.transcripts import fetch_transcript, unacknowledged, verify

READY = "echo-ridge: serving on"
SAMPLE_SECONDS = 10.0
THINK = 0.25  # seconds a seat thinks before a command, on average
DISCONNECT_EVERY = 3.0  # seconds between two dropped client connections, on average
GAME_SECONDS = 900.0  # a game that takes longer fails (the bots play one in a minute or so)
WARMUP = 5.0  # minutes of warm-up at most (the first full collection comes at 15)
FLAT = 0.10  # flat: the RSS never more than this fraction above its value after the warm-up
POLICIES: dict[str, type[RandomPolicy] | type[GreedyPolicy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
}


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

    def sample(self, at: float, games: int) -> None:
        """Note (seconds into the run, RSS KiB, open fds, games played so far)."""
        if self.process is None or self.process.poll() is not None:
            return
        pid = self.process.pid
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            rss = next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS"))
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            self.lives[-1]["samples"].append((round(at, 1), rss, fds, games))


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


@dataclass
class Run:
    """What the table slots share: the servers' URLs, the policy, the counts, the limits."""

    urls: list[str]
    policy: type[RandomPolicy] | type[GreedyPolicy]
    until: float  # (monotonic) no game starts after this
    max_games: int  # no game starts once this many have (0: no cap)
    stats: Stats = field(default_factory=Stats)
    games: list[Game] = field(default_factory=list)  # every game ended, in order
    started: int = 0
    live: set[BotSeat] = field(default_factory=set)  # seats in play (for the disconnects)

    def stop(self, soak: asyncio.Task[Any]) -> None:
        """SIGINT or SIGTERM: start no more games (those in play end, then the report); a
        second one cancels ``soak`` (the processes are stopped, no report)."""
        if self.until > time.monotonic():
            self.until = time.monotonic()
        else:
            soak.cancel()

    def may_start(self) -> bool:
        if time.monotonic() >= self.until:
            return False
        return not self.max_games or self.started < self.max_games


async def play_game(run: Run, index: int, rng: random.Random) -> Game:
    """One table: 4 seats (alternating between the servers) and a spectator, to the end.  An
    error before the start raises (the setup met an outage: lobby requests that are not safe
    to repeat are not retried); after it, it is the game's."""
    urls, stats = run.urls, run.stats
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
        run.live.update(seats)
        try:
            async with asyncio.timeout(GAME_SECONDS):
                policies: list[Policy] = [run.policy(rng.randbytes(8)) for _ in seats]
                await asyncio.gather(*(s.play(p) for s, p in zip(seats, policies, strict=True)))
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
        run.live.difference_update(seats)
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


async def table_loop(run: Run, index: int) -> None:
    """Game after game at one table slot while the run may start games (the last one is
    played out)."""
    rng = random.Random(index)
    while run.may_start():
        run.started += 1
        try:
            run.games.append(await play_game(run, index, rng))
        except Exception as exc:  # a setup that met an outage: counted, and the slot goes on
            run.games.append(Game("?", error=f"setup: {type(exc).__name__}: {exc}"))
            await asyncio.sleep(1)


# --- the run -------------------------------------------------------------------------------------


async def disconnects(run: Run, rng: random.Random) -> int:
    """Drop a random seat's connection (no close frame) every few seconds; how many."""
    dropped = 0
    while run.may_start():
        await asyncio.sleep(rng.expovariate(1 / DISCONNECT_EVERY))
        seats = sorted((s for s in run.live if s.connection and not s.over), key=id)
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
    processes = [*servers, redis]
    began = time.monotonic()
    seconds = args.minutes * 60
    run = Run(
        [f"ws://127.0.0.1:{s.port}/ws" for s in servers],
        POLICIES[args.bot],
        began + seconds,
        args.games,
    )
    events: list[str] = []

    def sample() -> None:
        for p in processes:
            p.sample(time.monotonic() - began, len(run.games))

    async def sampler() -> None:
        while True:
            sample()
            await asyncio.sleep(args.sample)

    async def outages() -> None:
        if not args.kills:
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

    loop, this = asyncio.get_running_loop(), asyncio.current_task()
    assert this is not None
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, run.stop, this)
    sampling = asyncio.create_task(sampler())
    breaking = asyncio.create_task(outages())
    dropping = asyncio.create_task(disconnects(run, random.Random(99)))
    try:
        await asyncio.gather(*(table_loop(run, i) for i in range(args.tables)))
        breaking.cancel()
        dropping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await breaking
        dropped = 0
        with contextlib.suppress(asyncio.CancelledError):
            dropped = await dropping
        sample()
    finally:
        sampling.cancel()
        for p in processes:
            p.stop()
    warmup = (args.warmup if args.warmup is not None else min(args.minutes / 10, WARMUP)) * 60
    samples = {p.name: p.lives for p in processes}
    (work / "samples.json").write_text(json.dumps(samples))  # (seconds, RSS KiB, fds, games)
    played = [g for g in run.games if g.table != "?"]
    stats = run.stats
    return {
        "minutes": round((time.monotonic() - began) / 60, 1),
        "tables": args.tables,
        "bot": args.bot,
        "kills": args.kills,
        "warmup_minutes": round(warmup / 60, 1),
        "games": len(played),
        "finished": sum(g.finished for g in played),
        "verified": sum(g.verified for g in played),
        "failed_setups": len(run.games) - len(played),
        "errors": [f"{g.table}: {g.error}" for g in run.games if g.error][:10],
        "error_count": sum(1 for g in run.games if g.error),
        "acknowledged": sum(g.acknowledged for g in played),
        "lost": sum(g.lost for g in played),
        "commands": stats.commands,
        "retries": stats.retries,
        "reconnects": stats.reconnects,
        "dropped_connections": dropped,
        "events": events,
        "servers": {p.name: memory(p, warmup) for p in servers},
        "redis": memory(redis, warmup),
        "work": str(work),
    }


def memory(process: Process, warmup: float) -> list[dict[str, Any]]:
    """Per life of the process: its RSS (KiB) and open fds after the warm-up (``warmup``
    seconds into the life) and at the end; the largest RSS after the warm-up and in all; the
    growth per game (least squares over the samples after the warm-up) and per hour; flat:
    never more than ``FLAT`` above the value after the warm-up.  A life that ended before its
    warm-up did is reported, with no verdict (``flat``: None)."""
    out = []
    for life in process.lives:
        samples = life["samples"]
        if not samples:
            continue
        start, end = samples[0][0], samples[-1][0]
        after = [s for s in samples if s[0] - start >= warmup]
        report: dict[str, Any] = {
            "pid": life["pid"], "from_s": start, "to_s": end,
            "rss_kib_start": samples[0][1], "rss_kib_end": samples[-1][1],
            "rss_kib_max": max(s[1] for s in samples), "fds_end": samples[-1][2],
            "rss_kib_by_5_minutes": list({(s[0] - start) // 300: s[1] for s in samples}.values()),
        }  # fmt: skip
        if len(after) >= 2:
            warm = after[0]
            games = after[-1][3] - warm[3]
            hours = (after[-1][0] - warm[0]) / 3600
            per_hour = round((after[-1][1] - warm[1]) / hours, 1) if hours else None
            report.update({
                "rss_kib_after_warmup": warm[1],
                "rss_kib_max_after_warmup": max(s[1] for s in after),
                "fds_after_warmup": warm[2],
                "games_after_warmup": games,
                "growth_kib_per_game": _slope([(s[3], s[1]) for s in after]),
                "growth_kib_per_hour": per_hour,
                "growth_after_warmup": round(max(s[1] for s in after) / warm[1] - 1, 4),
            })  # fmt: skip
            report["flat"] = report["growth_after_warmup"] <= FLAT
        else:
            report["flat"] = None
        out.append(report)
    return out


def _slope(points: list[tuple[int, int]]) -> float | None:
    """Least-squares slope of y over x (None if every x is the same)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    if not var:
        return None
    return round(sum((x - mx) * (y - my) for x, y in points) / var, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=120.0, help="of games (default 120)")
    parser.add_argument("--tables", type=int, default=6, help="tables in play at once (6)")
    parser.add_argument(
        "--warmup", type=float, default=None, help="minutes (default: 10%% of --minutes, 5 at most)"
    )
    parser.add_argument("--games", type=int, default=0, help="start at most this many (0: any)")
    parser.add_argument("--bot", choices=sorted(POLICIES), default="greedy")
    parser.add_argument("--sample", type=float, default=SAMPLE_SECONDS, help="seconds (10)")
    parser.add_argument("--kills", action="store_true", help="kill -9 a server, then Redis")
    args = parser.parse_args()
    if args.minutes <= 0 or args.tables < 1 or args.games < 0 or args.sample <= 0:
        parser.error("--minutes, --tables and --sample are positive; --games is 0 or more")
    report = asyncio.run(soak(args))
    print(json.dumps(report, sort_keys=True), flush=True)
    lives = [life for lives in report["servers"].values() for life in lives]
    flat = all(life["flat"] is not False for life in lives) and any(life["flat"] for life in lives)
    good = (
        report["games"] > 0
        and report["games"] == report["finished"] == report["verified"]
        and report["lost"] == 0
        and flat
    )
    say = sys.stderr.write
    say(
        f"soak: {report['minutes']} min, {report['tables']} tables at a time ({report['bot']} "
        f"bots): {report['games']} games, {report['finished']} finished, {report['verified']} "
        f"verified, {report['error_count']} errors, {report['failed_setups']} failed setups; "
        f"{report['lost']} acknowledged commands lost of {report['acknowledged']}; "
        f"{report['dropped_connections']} connections dropped, {report['reconnects']} "
        f"reconnects, {report['retries']} retries; {'; '.join(report['events']) or 'no kills'}\n"
    )
    for name, lives in [*report["servers"].items(), ("redis", report["redis"])]:
        for life in lives:
            say(f"  {name} pid {life['pid']} ({life['from_s']}-{life['to_s']} s): ")
            if life["flat"] is None:
                say(f"RSS {life['rss_kib_start']} -> {life['rss_kib_end']} KiB (no warm-up)\n")
                continue
            say(
                f"RSS after the warm-up ({report['warmup_minutes']} min) "
                f"{life['rss_kib_after_warmup']} KiB, end {life['rss_kib_end']}, max after "
                f"the warm-up {life['rss_kib_max_after_warmup']} "
                f"({life['growth_after_warmup']:+.1%}), max {life['rss_kib_max']}; "
                f"{life['growth_kib_per_game']} KiB/game over {life['games_after_warmup']} "
                f"games, {life['growth_kib_per_hour']} KiB/h; fds {life['fds_after_warmup']} "
                f"-> {life['fds_end']}"
                + ("" if name == "redis" else f"; {'flat' if life['flat'] else 'NOT flat'}")
                + "\n"
            )
    say(f"soak: {'ok' if good else 'FAILED'} (RSS {'flat' if flat else 'NOT flat'} within "
        f"{FLAT:.0%} after the warm-up)\n")  # fmt: skip
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
