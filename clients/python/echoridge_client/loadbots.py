"""``echo-ridge bots``: remote bot clients that play whole games over the network, to load a
server and to check it; and the transcript download of ``echo-ridge verify URL TABLE``.

``run_bots(BotOptions(url, tables=N, players=P, spectators=K))`` creates N tables over the lobby,
joins P seats per table (each with its own client seed) and opens K spectator sessions per table,
starts the games and plays them to the end with ``Seat.play`` and the chosen policy, at most
``concurrency`` tables at a time.  With ``server_bots=KIND`` each table has ``server_bot_seats``
more seats, after the client's, where its first seat seats server-side bots of that kind
(``add_bot``): the client's seats are then the people whose commands are timed.  Then it
downloads every finished table's transcript and verifies it (botchecks.py, transcripts.py); the
transcript must also carry this client's seeds, the commitment the table was created with, as
many entries as the seats saw versions, and every command the server acknowledged to a seat, at
its version (``lost`` counts those missing).  The
report is one dict (printed as one JSON line by the command), with at least ``tables``,
``finished``, ``verified``, ``errors``, ``commands``, ``acknowledged``, ``lost``,
``deliveries``, ``p50_ms``, ``p99_ms`` and ``seconds``.  The sessions are in botsessions.py, the
options and per-table records in botoptions.py.  The tables are of ``mode``, competitive
or cooperative.

A connection the server refuses for now (HTTP 429: the cap per client address, 64 by default,
which local load from one address reaches; 503: the cap in all) is tried again after the
server's ``Retry-After``, and the first refusal of each kind says on stderr which server flag to
raise (``busy`` in the report counts them).  A table refused while it opens its seats' and
spectators' connections gives them back and opens them again one table at a time, so tables
holding a part each never wait on one another.  A table the server refuses to create for now
(``table/rate_limited``: the tables one address may create a minute, 10 by default) is asked
for again after the ``retry_in`` the server names, and the first such refusal says which flag
lifts the limit (``limited`` in the report counts them).

Latency is command-to-delta, measured around ``Seat.act``: from sending a command to the seat's
view reaching the version of its (accepted) result.  ``rate`` paces every connection's messages
(commands per second per seat, and the lobby's requests): the reference server allows 10 messages
a second per connection, so the default of 9 works against a default server; 0 turns pacing off
(for a server started with a high ``--commands-per-second``).

This module needs the client package only (``echoridge_client``, ``echoridge_protocol``).
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from echoridge_client.botchecks import check_tables
from echoridge_client.botoptions import (
    BOT_KINDS,
    SETUP_AT_ONCE,
    SUBPROTOCOL_CHOICES,
    SUBPROTOCOL_NAMES,
    BotOptions,
    TableRun,
    derive,
    subprotocol_of,
)
from echoridge_client.botsessions import BotSeat, BotSpectator, Pacer, Stats
from echoridge_client.errors import Busy, ClientError
from echoridge_client.lobby import Lobby
from echoridge_client.search import make_policy
from echoridge_client.session import TableSession
from echoridge_client.transcripts import (
    download_transcripts,
)
from echoridge_protocol import messages as m

__all__ = [
    "BOT_KINDS",
    "SUBPROTOCOL_CHOICES",
    "SUBPROTOCOL_NAMES",
    "BotOptions",
    "TableRun",
    "download_transcripts",
    "main",
    "make_policy",
    "ok",
    "percentile",
    "run_bots",
    "run_tables",
    "subprotocol_of",
]

# --- one table ----------------------------------------------------------------------------------


async def _play_table(
    run: TableRun,
    options: BotOptions,
    stats: Stats,
    setup: asyncio.Semaphore,
    crowded: asyncio.Lock,
) -> None:
    seats: list[BotSeat] = []
    watchers: list[BotSpectator] = []
    lobby: Lobby | None = None
    i = run.index
    deadline: asyncio.Timeout | None = None
    try:
        async with asyncio.timeout(options.timeout) as deadline:
            async with setup:
                lobby = await _lobby(options, i, stats)
                pacer = Pacer(options.rate)
                await pacer.wait()
                mode: m.GameMode | None = None  # competitive: the field left out
                if options.mode == "cooperative":
                    mode = "cooperative"
                created = await lobby.create(options.seats, public=True, spectators=True, mode=mode)
                run.table, run.commit = created.table, created.server_seed_commit.hex()
                tokens = []
                for s in range(options.players):
                    seed = derive(options.seed, "client", i, s)
                    await pacer.wait()
                    joined = await lobby.join(run.table, f"bot {i}.{s}", seed)
                    if joined.seat != s:
                        raise ClientError(f"joined seat {joined.seat}, expected {s}")
                    run.seeds.append(seed)
                    tokens.append(joined.token)
                for _ in range(options.players, options.seats):
                    await pacer.wait()
                    assert options.server_bots is not None
                    added = await lobby.add_bot(run.table, tokens[0], options.server_bots)
                    if added.outcome != "accepted":
                        raise ClientError(f"add_bot refused: {added.code}")
                try:
                    await _open(run, options, stats, tokens, seats, watchers, busy_for=0)
                except Busy:
                    # The server's cap is reached (HTTP 429 or 503).  Tables that each hold a
                    # part of their connections could wait on one another until they time out:
                    # give back what this one holds, then open its connections one table at a
                    # time (``crowded``), waiting as the server asks, while the tables in play
                    # finish and make room.
                    await _close(seats, watchers, lobby)
                    seats.clear()
                    watchers.clear()
                    lobby = None
                    async with crowded:
                        await _open(run, options, stats, tokens, seats, watchers, options.timeout)
                        lobby = await _lobby(options, i, stats)
                stats.connections += len(seats) + len(watchers)
                await pacer.wait()
                started = await lobby.start(run.table, tokens[0])
                if started.outcome != "accepted":
                    raise ClientError(f"start refused: {started.code}")
                await lobby.close()
                lobby = None
            policies = [
                make_policy(options.bot, derive(options.seed, "policy", i, s))
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
        if deadline is not None and _past(deadline):
            run.error = f"the table did not finish in {options.timeout:g} s"
        else:
            run.error = _describe(group)
    finally:
        run.acks = [ack for seat in seats for ack in seat.acks]
        for session in [*seats, *watchers]:
            stats.deliveries += session.deliveries
            stats.reconnects += session.reconnects
        await _close(seats, watchers, lobby)


async def _lobby(options: BotOptions, i: int, stats: Stats) -> Lobby:
    return await Lobby.connect(
        options.url,
        subprotocol_of(options, i, 0),
        busy_for=options.timeout,
        on_busy=stats.refused,
        on_limited=stats.waited,
    )


async def _open(
    run: TableRun,
    options: BotOptions,
    stats: Stats,
    tokens: list[str],
    seats: list[BotSeat],
    watchers: list[BotSpectator],
    busy_for: float,
) -> None:
    """Open the sessions of a table's seats and spectators (into ``seats`` and ``watchers``),
    waiting up to ``busy_for`` seconds for a connection the server refuses for now (else
    ``Busy``)."""
    i = run.index
    for s, token in enumerate(tokens):
        seat = BotSeat(
            options.url,
            run.table,
            token=token,
            subprotocol=subprotocol_of(options, i, s),
            stats=stats,
            rate=options.rate,
            think=options.think,
            seed=derive(options.seed, "think", i, s),
            seat=s,
        )
        seats.append(seat)
        await seat.start(busy_for=busy_for)
    for k in range(options.spectators):
        watcher = BotSpectator(
            options.url,
            run.table,
            subprotocol=subprotocol_of(options, i, options.players + k),
            stats=stats,
        )
        watchers.append(watcher)
        await watcher.start(busy_for=busy_for)


async def _close(seats: list[BotSeat], watchers: list[BotSpectator], lobby: Lobby | None) -> None:
    closing: list[Awaitable[None]] = [s.close() for s in [*seats, *watchers]]
    if lobby is not None:
        closing.append(lobby.close())
    await asyncio.gather(*closing, return_exceptions=True)


def _past(deadline: asyncio.Timeout) -> bool:
    """Whether ``deadline`` ran out.  (Not only ``expired()``: when it runs out while a timeout
    of the connection's own is pending, that one may take the cancellation for its own and the
    error that ends the table is the connection's, with the deadline still "expiring".)"""
    when = deadline.when()
    return deadline.expired() or (
        when is not None and when <= asyncio.get_running_loop().time()
    )


def _over(session: TableSession) -> Callable[[], bool]:
    return lambda: session.over


def _describe(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error or 'timed out'}"


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
    options: BotOptions,
    played: Callable[[], Awaitable[None]] | None = None,
    stats: Stats | None = None,
) -> tuple[dict[str, Any], list[TableRun]]:
    """``run_bots``, and what became of each table.  ``stats`` is updated as the games go (a
    caller may watch it)."""
    options.check()
    stats = Stats() if stats is None else stats
    runs = [TableRun(i) for i in range(options.tables)]
    setup = asyncio.Semaphore(min(SETUP_AT_ONCE, options.concurrency or SETUP_AT_ONCE))
    crowded = asyncio.Lock()  # tables opening their connections one at a time (HTTP 429, 503)
    slots = asyncio.Semaphore(options.concurrency or max(1, options.tables))
    cpu = time.process_time()
    began = time.perf_counter()

    async def one(run: TableRun) -> None:
        if options.ramp and options.tables > 1:
            await asyncio.sleep(options.ramp * run.index / options.tables)
        async with slots:
            await _play_table(run, options, stats, setup, crowded)

    await asyncio.gather(*(one(run) for run in runs))
    play_seconds = time.perf_counter() - began
    play_cpu = time.process_time() - cpu
    if played is not None:
        await played()
    if options.verify:
        await check_tables(runs, options)
    seconds = time.perf_counter() - began
    errors = [r for r in runs if r.error is not None]
    report: dict[str, Any] = {
        "tables": options.tables,
        "finished": sum(r.finished for r in runs),
        "verified": sum(r.verified for r in runs),
        "errors": len(errors),
        "commands": stats.commands,
        "acknowledged": sum(len(r.acks) for r in runs),
        "lost": sum(r.lost for r in runs),
        "retries": stats.retries,
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
        "deliveries_per_second": round(stats.deliveries / play_seconds, 1) if play_seconds else 0,
        "client_cpu_seconds": round(play_cpu, 3),
        "connections": stats.connections,
        "reconnects": stats.reconnects,
        "busy": stats.busy,
        "limited": stats.limited,
        "delta_bytes": {
            name: round(total / frames, 1)
            for name, (frames, total) in sorted(stats.sizes.items())
            if frames
        },
        "players": options.players,
        "mode": options.mode,
        "spectators": options.spectators,
        "bot": options.bot,
        "server_bots": options.server_bots,
        "server_bot_seats": options.seats - options.players,
        "subprotocol": options.subprotocol,
        "rate": options.rate,
        "think": options.think,
        "ramp": options.ramp,
        "concurrency": options.concurrency or options.tables,
        "verify": "replay" if options.replay is not None else "protocol",
    }
    if options.bot in ("greedy", "normal"):
        report["greedy_fallbacks"] = stats.fallbacks
    elif options.bot == "strong":  # searches that failed and played the greedy pick instead
        report["search_fallbacks"] = stats.fallbacks
    if errors:
        report["error_samples"] = [f"{r.table or r.index}: {r.error}" for r in errors[:5]]
    return report, runs


def ok(report: dict[str, Any]) -> bool:
    """Every table finished and verified, nothing failed, no acknowledged command lost."""
    tables = report["tables"]
    finished = report["finished"] == tables == report["verified"]
    return bool(report["errors"] == 0 and finished and report["lost"] == 0)


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
