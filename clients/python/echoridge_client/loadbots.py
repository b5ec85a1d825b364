"""``echo-ridge bots``: remote bot clients that play whole games over the network, to load a
server and to check it; and the transcript download of ``echo-ridge verify URL TABLE``.

``run_bots(BotOptions(url, tables=N, players=P, spectators=K))`` creates N tables over the lobby,
joins P seats per table (each with its own client seed) and opens K spectator sessions per table,
starts the games and plays them to the end with ``Seat.play`` and the chosen policy, at most
``concurrency`` tables at a time.  Then it downloads every finished table's transcript and
verifies it: the engine replay (``echoridge.transcript.replay``, imported lazily) when the server
package is installed, else the protocol checks (``echoridge_protocol.verify``); the transcript
must also carry this client's seeds, the commitment the table was created with, and as many
entries as the seats saw versions.  The report is one dict (printed as one JSON line by the
command), with at least ``tables``, ``finished``, ``verified``, ``errors``, ``commands``,
``deliveries``, ``p50_ms``, ``p99_ms`` and ``seconds``.

Latency is command-to-delta, measured around ``Seat.act``: from sending a command to the seat's
view reaching the version of its (accepted) result.  ``rate`` paces every connection's messages
(commands per second per seat, and the lobby's requests): the reference server allows 10 messages
a second per connection, so the default of 9 works against a default server; 0 turns pacing off
(for a server started with a high ``--commands-per-second``).

This module needs the client package only (``echoridge_client``, ``echoridge_protocol``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from echoridge_client.errors import ClientError, Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy, RandomPolicy
from echoridge_client.session import Seat, Spectator, TableSession
from echoridge_protocol import codec
from echoridge_protocol import messages as m

SUBPROTOCOL_NAMES = {"msgpack": m.SUBPROTOCOL_MSGPACK, "json": m.SUBPROTOCOL_JSON}
SUBPROTOCOL_CHOICES = ("msgpack", "json", "mixed")
BOT_KINDS = ("random", "greedy")
SETUP_AT_ONCE = 32  # tables being created, joined and started at the same time
CHECKERS = 8  # connections downloading and verifying transcripts
SIZE_SAMPLE = 8  # every 8th delta of a session is re-encoded to measure frame sizes
NOT_FINISHED_WAIT = 10.0  # seconds to wait for a finished table to be marked over


@dataclass(frozen=True)
class BotOptions:
    url: str
    tables: int = 1
    players: int = 4
    spectators: int = 0
    bot: str = "random"
    subprotocol: str = "msgpack"  # msgpack, json or mixed (alternating per connection)
    concurrency: int = 0  # tables in play at once (0: all of them)
    rate: float = 9.0  # messages per second per connection (0: unpaced)
    think: float = 0.0  # mean seconds a seat thinks before each command (exponential; 0: none)
    ramp: float = 0.0  # seconds over which the tables' creations are spread evenly
    timeout: float = 600.0  # seconds per table, from its creation to the end of its game
    seed: int | None = None  # fixes client seeds and policies (default: random)
    verify: bool = True

    def check(self) -> None:
        if self.tables < 0:
            raise ValueError("--tables must not be negative")
        if not 1 <= self.players <= 4:
            raise ValueError("--players must be 1 to 4")
        if self.spectators < 0:
            raise ValueError("--spectators must not be negative")
        if self.bot not in BOT_KINDS:
            raise ValueError("--bot is random or greedy")
        if self.subprotocol not in SUBPROTOCOL_CHOICES:
            raise ValueError("--subprotocol is msgpack, json or mixed")
        if self.concurrency < 0 or self.rate < 0 or self.think < 0 or self.ramp < 0:
            raise ValueError("--concurrency, --rate, --think and --ramp must not be negative")
        if self.timeout <= 0:
            raise ValueError("--timeout must be positive")
        if not self.url.startswith(("ws://", "wss://")):
            raise ValueError("the URL is ws://HOST:PORT/ws or wss://...")


class Pacer:
    """At most ``rate`` sends a second (evenly spaced); ``rate`` 0: no pacing."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0

    async def wait(self) -> None:
        if not self.interval:
            return
        now = time.monotonic()
        at = max(self._next, now)
        self._next = at + self.interval
        if at > now:
            await asyncio.sleep(at - now)


@dataclass
class Stats:
    """What all the sessions of a run counted."""

    commands: int = 0  # commands answered (any outcome)
    accepted: int = 0
    stale: int = 0  # rejected with command/stale_version (another seat got in first)
    rejected: int = 0  # any other rejection
    paced_stale: int = 0  # the view moved on while a command waited for its turn to be sent
    latencies: list[float] = field(default_factory=list)  # seconds, accepted commands
    deliveries: int = 0
    reconnects: int = 0
    connections: int = 0
    sizes: dict[str, list[int]] = field(default_factory=dict)  # subprotocol -> [frames, bytes]
    fallbacks: int = 0  # greedy policy choices that fell back to a safe command

    def sample(self, subprotocol: str, message: m.Delta) -> None:
        tally = self.sizes.setdefault(subprotocol, [0, 0])
        tally[0] += 1
        tally[1] += len(codec.encode(message, subprotocol))


class _Measured:
    """Shared by the seat and the spectator: samples the size of the deltas received."""

    stats: Stats
    _received: int

    def _measure(self, subprotocol: str, message: m.ServerMessage) -> None:
        if isinstance(message, m.Delta):
            self._received += 1
            if self._received % SIZE_SAMPLE == 1:
                self.stats.sample(subprotocol, message)


class BotSeat(_Measured, Seat):
    """A seat that paces its commands and times each from sending to its delta."""

    def __init__(
        self, *args: Any, stats: Stats, rate: float, think: float = 0.0, seed: bytes = b"",
        **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.stats = stats
        self.pacer = Pacer(rate)
        self.think = think
        self.thinking = random.Random(seed)  # think times: independent seats, Poisson arrivals
        self._received = 0

    async def _on_message(self, message: m.ServerMessage) -> None:
        self._measure(self.subprotocol, message)
        await super()._on_message(message)

    async def act(self, command: dict[str, Any], timeout: float = 30.0) -> m.Result:
        version = self.version
        if self.think:
            await asyncio.sleep(self.thinking.expovariate(1.0 / self.think))
        await self.pacer.wait()
        if self.version != version:
            # The command was chosen from a view that is no longer current: have the caller
            # choose again, as after a stale result (nothing was sent).
            self.stats.paced_stale += 1
            return m.Result(id="paced", outcome="rejected", version=self.version,
                            code="command/stale_version")  # fmt: skip
        started = time.perf_counter()
        result = await super().act(command, timeout)
        stats = self.stats
        stats.commands += 1
        if result.outcome == "accepted":
            stats.accepted += 1
            stats.latencies.append(time.perf_counter() - started)
        elif result.code == "command/stale_version":
            stats.stale += 1
        elif result.outcome == "rejected":
            stats.rejected += 1
        return result


class BotSpectator(_Measured, Spectator):
    def __init__(self, *args: Any, stats: Stats, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stats = stats
        self._received = 0

    async def _on_message(self, message: m.ServerMessage) -> None:
        self._measure(self.subprotocol, message)
        await super()._on_message(message)


@dataclass
class TableRun:
    """One table of the run."""

    index: int
    table: str = ""
    commit: str = ""  # hex of the server seed commitment given at creation
    seeds: list[bytes] = field(default_factory=list)  # the client seed of each seat
    version: int = 0  # the last version the seats saw
    finished: bool = False
    verified: bool = False
    error: str | None = None


# --- seeds and policies -------------------------------------------------------------------------


def _derive(seed: int | None, *parts: object) -> bytes:
    if seed is None:
        return os.urandom(32)
    text = "/".join(str(p) for p in (seed, *parts))
    return hashlib.sha256(text.encode()).digest()


def make_policy(kind: str, seed: bytes) -> RandomPolicy | GreedyPolicy:
    return GreedyPolicy(seed) if kind == "greedy" else RandomPolicy(seed)


def subprotocol_of(options: BotOptions, table: int, connection: int) -> str:
    """The subprotocol of a table's n-th connection (seats first, then spectators)."""
    if options.subprotocol == "mixed":
        return m.SUBPROTOCOLS[(table + connection) % 2]
    return SUBPROTOCOL_NAMES[options.subprotocol]


# --- one table ----------------------------------------------------------------------------------


async def _play_table(
    run: TableRun, options: BotOptions, stats: Stats, setup: asyncio.Semaphore
) -> None:
    seats: list[BotSeat] = []
    watchers: list[BotSpectator] = []
    lobby: Lobby | None = None
    i = run.index
    deadline: asyncio.Timeout | None = None
    try:
        async with asyncio.timeout(options.timeout) as deadline:
            async with setup:
                lobby = await Lobby.connect(options.url, subprotocol_of(options, i, 0))
                pacer = Pacer(options.rate)
                await pacer.wait()
                created = await lobby.create(options.players, public=True, spectators=True)
                run.table, run.commit = created.table, created.server_seed_commit.hex()
                tokens = []
                for s in range(options.players):
                    seed = _derive(options.seed, "client", i, s)
                    await pacer.wait()
                    joined = await lobby.join(run.table, f"bot {i}.{s}", seed)
                    if joined.seat != s:
                        raise ClientError(f"joined seat {joined.seat}, expected {s}")
                    run.seeds.append(seed)
                    tokens.append(joined.token)
                for s, token in enumerate(tokens):
                    seat = BotSeat(
                        options.url,
                        run.table,
                        token=token,
                        subprotocol=subprotocol_of(options, i, s),
                        stats=stats,
                        rate=options.rate,
                        think=options.think,
                        seed=_derive(options.seed, "think", i, s),
                    )
                    seats.append(seat)
                    await seat.start()
                for k in range(options.spectators):
                    watcher = BotSpectator(
                        options.url,
                        run.table,
                        subprotocol=subprotocol_of(options, i, options.players + k),
                        stats=stats,
                    )
                    watchers.append(watcher)
                    await watcher.start()
                stats.connections += len(seats) + len(watchers)
                await pacer.wait()
                started = await lobby.start(run.table, tokens[0])
                if started.outcome != "accepted":
                    raise ClientError(f"start refused: {started.code}")
                await lobby.close()
                lobby = None
            policies = [
                make_policy(options.bot, _derive(options.seed, "policy", i, s))
                for s in range(options.players)
            ]
            async with asyncio.TaskGroup() as group:
                for seat, policy in zip(seats, policies, strict=True):
                    group.create_task(seat.play(policy))
                for watcher in watchers:
                    group.create_task(watcher.wait(_over(watcher)))
            run.version = max(s.version for s in seats)
            if any(w.version != run.version for w in watchers):
                raise ClientError("a spectator ended at another version than the seats")
            run.finished = True
            stats.fallbacks += sum(getattr(p, "fallbacks", 0) for p in policies)
    except* Exception as group:
        if deadline is not None and deadline.expired():
            run.error = f"the table did not finish in {options.timeout:g} s"
        else:
            run.error = _describe(group)
    finally:
        sessions: list[TableSession] = [*seats, *watchers]
        for session in sessions:
            stats.deliveries += session.deliveries
            stats.reconnects += session.reconnects
        closing: list[Awaitable[None]] = [s.close() for s in sessions]
        if lobby is not None:
            closing.append(lobby.close())
        await asyncio.gather(*closing, return_exceptions=True)


def _over(session: TableSession) -> Callable[[], bool]:
    return lambda: session.over


def _describe(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error or 'timed out'}"


# --- transcripts --------------------------------------------------------------------------------


async def fetch_transcript(
    lobby: Lobby, table: str, pacer: Pacer | None = None, wait: float = NOT_FINISHED_WAIT
) -> dict[str, Any]:
    """A finished table's transcript; waits up to ``wait`` seconds for a just-finished table to
    be marked over (the server does it right after the last command)."""
    deadline = time.monotonic() + wait
    while True:
        if pacer is not None:
            await pacer.wait()
        try:
            return await lobby.transcript(table)
        except Refused as exc:
            if exc.code != "table/not_finished" or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.1)


def verify(transcript: dict[str, Any]) -> tuple[bool, str]:
    """The engine replay when the server package is installed, else the protocol checks.
    ``(ok, what)``: what was counted, or what failed."""
    check: Callable[[dict[str, Any]], Any]
    try:
        from echoridge.transcript import replay

        check = replay
    except ImportError:
        from echoridge_protocol.verify import verify_transcript

        check = verify_transcript
    report = check(transcript)
    if report.ok:
        return True, ", ".join(f"{v} {k}" for k, v in report.counts.items())
    return False, f"[{report.code}] {report.problem}"


def _check(run: TableRun, transcript: dict[str, Any]) -> str | None:
    """Why the transcript does not verify, or None."""
    ok, what = verify(transcript)
    if not ok:
        return what
    if transcript.get("server_seed_commit") != run.commit:
        return "the transcript's server seed commitment is not the one given at creation"
    if transcript.get("client_seeds") != [s.hex() for s in run.seeds]:
        return "the transcript's client seeds are not ours"
    entries = transcript.get("entries")
    if not isinstance(entries, list) or len(entries) != run.version:
        return f"the transcript does not hold the {run.version} versions the seats saw"
    return None


async def _check_tables(runs: Sequence[TableRun], options: BotOptions) -> None:
    queue: asyncio.Queue[TableRun] = asyncio.Queue()
    for run in runs:
        if run.finished:
            queue.put_nowait(run)

    async def worker() -> None:
        lobby: Lobby | None = None
        pacer = Pacer(options.rate)
        try:
            while not queue.empty():
                run = queue.get_nowait()
                try:
                    if lobby is None:
                        lobby = await Lobby.connect(options.url, subprotocol_of(options, 0, 0))
                    transcript = await fetch_transcript(lobby, run.table, pacer)
                    problem = _check(run, transcript)
                except (ClientError, TimeoutError, OSError) as exc:
                    problem = f"cannot download the transcript: {exc or type(exc).__name__}"
                    if lobby is not None:
                        await lobby.close()
                        lobby = None
                if problem is None:
                    run.verified = True
                else:
                    run.error = f"transcript: {problem}"
                await asyncio.sleep(0)  # let the other downloads go on between replays
        finally:
            if lobby is not None:
                await lobby.close()

    count = min(CHECKERS, max(1, queue.qsize()), options.concurrency or CHECKERS)
    await asyncio.gather(*(worker() for _ in range(count)))


# --- the run ------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by the nearest-rank method; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


async def run_bots(
    options: BotOptions, played: Callable[[], Awaitable[None]] | None = None
) -> dict[str, Any]:
    """Play the tables, then download and verify their transcripts; the report.  ``played`` is
    awaited when the last game has ended, before the transcripts (for benchmarks)."""
    report, _ = await run_tables(options, played)
    return report


async def run_tables(
    options: BotOptions, played: Callable[[], Awaitable[None]] | None = None
) -> tuple[dict[str, Any], list[TableRun]]:
    """``run_bots``, and what became of each table."""
    options.check()
    stats = Stats()
    runs = [TableRun(i) for i in range(options.tables)]
    setup = asyncio.Semaphore(min(SETUP_AT_ONCE, options.concurrency or SETUP_AT_ONCE))
    slots = asyncio.Semaphore(options.concurrency or max(1, options.tables))
    cpu = time.process_time()
    began = time.perf_counter()

    async def one(run: TableRun) -> None:
        if options.ramp and options.tables > 1:
            await asyncio.sleep(options.ramp * run.index / options.tables)
        async with slots:
            await _play_table(run, options, stats, setup)

    await asyncio.gather(*(one(run) for run in runs))
    play_seconds = time.perf_counter() - began
    play_cpu = time.process_time() - cpu
    if played is not None:
        await played()
    if options.verify:
        await _check_tables(runs, options)
    seconds = time.perf_counter() - began
    errors = [r for r in runs if r.error is not None]
    report: dict[str, Any] = {
        "tables": options.tables,
        "finished": sum(r.finished for r in runs),
        "verified": sum(r.verified for r in runs),
        "errors": len(errors),
        "commands": stats.commands,
        "accepted": stats.accepted,
        "stale": stats.stale,
        "rejected": stats.rejected,
        "paced_stale": stats.paced_stale,
        "deliveries": stats.deliveries,
        "p50_ms": round(percentile(stats.latencies, 50) * 1000, 2),
        "p99_ms": round(percentile(stats.latencies, 99) * 1000, 2),
        "max_ms": round(max(stats.latencies, default=0.0) * 1000, 2),
        "seconds": round(seconds, 3),
        "play_seconds": round(play_seconds, 3),
        "commands_per_second": round(stats.commands / play_seconds, 1) if play_seconds else 0,
        "deliveries_per_second": round(stats.deliveries / play_seconds, 1)
        if play_seconds
        else 0,
        "client_cpu_seconds": round(play_cpu, 3),
        "connections": stats.connections,
        "reconnects": stats.reconnects,
        "delta_bytes": {
            name: round(total / frames, 1)
            for name, (frames, total) in sorted(stats.sizes.items())
            if frames
        },
        "players": options.players,
        "spectators": options.spectators,
        "bot": options.bot,
        "subprotocol": options.subprotocol,
        "rate": options.rate,
        "think": options.think,
        "ramp": options.ramp,
        "concurrency": options.concurrency or options.tables,
        "verify": "replay" if _has_engine() else "protocol",
    }
    if options.bot == "greedy":
        report["greedy_fallbacks"] = stats.fallbacks
    if errors:
        report["error_samples"] = [f"{r.table or r.index}: {r.error}" for r in errors[:5]]
    return report, runs


def _has_engine() -> bool:
    try:
        import echoridge.transcript  # noqa: F401
    except ImportError:
        return False
    return True


def ok(report: dict[str, Any]) -> bool:
    """Every table finished and verified, and nothing failed."""
    tables = report["tables"]
    return bool(report["errors"] == 0 and report["finished"] == tables == report["verified"])


def main(options: BotOptions) -> int:
    """``echo-ridge bots``: run, print the report as one JSON line; 0 if every table verified."""
    try:
        options.check()
    except ValueError as exc:
        print(f"echo-ridge bots: {exc}", file=sys.stderr)
        return 2
    report = asyncio.run(run_bots(options))
    print(json.dumps(report, sort_keys=True), flush=True)
    return 0 if ok(report) else 1


# --- echo-ridge verify URL TABLE ----------------------------------------------------------------


async def download_transcripts(
    url: str, tables: Sequence[str], subprotocol: str = m.SUBPROTOCOL_MSGPACK
) -> list[dict[str, Any] | ClientError]:
    """Each table's transcript, or the error that kept it from being downloaded."""
    lobby = await Lobby.connect(url, subprotocol)
    out: list[dict[str, Any] | ClientError] = []
    pacer = Pacer(9.0)  # within a default server's rate limit
    try:
        for table in tables:
            try:
                out.append(await fetch_transcript(lobby, table, pacer, wait=0))
            except ClientError as exc:
                out.append(exc)
    finally:
        with contextlib.suppress(Exception):
            await lobby.close()
    return out
