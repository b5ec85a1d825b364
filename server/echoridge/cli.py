"""The ``echo-ridge`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from echoridge import admincli, archivecli, playerscli
from echoridge.net.gate import Admission
from echoridge.net.limits import Limits
from echoridge.tables.archiving import GRACE_SECONDS
from echoridge.tables.botmoves import DEFAULT_BUDGET, DEFAULT_PROCESSES, MAX_BUDGET, MIN_BUDGET
from echoridge.tables.quota import LobbyLimits
from echoridge_protocol.kinds import BOT_KINDS

DEFAULT_URL = "ws://127.0.0.1:8765/ws"  # play: the server of `make run`


MODE_CHOICES = ("competitive", "cooperative")


def _mode(value: str) -> str:
    """``--mode``: ``competitive``, or ``coop`` / ``cooperative``."""
    return "cooperative" if value == "coop" else value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="echo-ridge", description="Echo Ridge game server")
    sub = parser.add_subparsers(dest="command", required=True)

    srv = sub.add_parser("serve", help="run the game server")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on")
    srv.add_argument("--port", type=int, default=8765, help="port (0: any free port)")
    srv.add_argument(
        "--workers",
        default="1",
        metavar="N",
        help="server processes sharing the port (SO_REUSEPORT, Linux), restarted if they die; "
        "auto: one per core (default 1)",
    )
    srv.add_argument(
        "--no-table-affinity",
        action="store_true",
        help="with --workers: let the kernel spread every connection at random instead of "
        "serving each table's connections in one worker (to measure the difference)",
    )
    srv.add_argument(
        "--decision-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="apply the default answer of a decision owed this long (0: never)",
    )
    srv.add_argument(
        "--bot-delay",
        type=float,
        default=0.3,
        metavar="SECONDS",
        help="how long a server-side bot waits before it moves",
    )
    srv.add_argument(
        "--bot-processes",
        type=int,
        default=DEFAULT_PROCESSES,
        metavar="N",
        help="worker processes for the strong bots' searches, started at the first strong "
        "decision (default %(default)s; 0: search in a thread of the server process instead, "
        "which shares its core and its GIL with the tables); per server process with --workers",
    )
    srv.add_argument(
        "--bot-budget",
        type=float,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help=f"how long a strong bot searches per decision ({MIN_BUDGET} to {MAX_BUDGET:g}; "
        "default %(default)s)",
    )
    srv.add_argument(
        "--auto-pass-delay",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="a seat with nothing to play in a Force card window is passed for after a random "
        "half to one and a half times this (its player may turn it off in the game)",
    )
    srv.add_argument(
        "--event-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the event loop: uvloop (default, where installed) or the standard asyncio loop",
    )
    srv.add_argument(
        "--clock-floor",
        type=int,
        default=None,
        metavar="SECONDS",
        help="allow table clocks this short (tests and demos; default: the limits of "
        "tables/clocks.py)",
    )
    srv.add_argument(
        "--notify-url",
        default=os.environ.get("ECHORIDGE_NOTIFY_URL") or None,
        metavar="URL",
        help="play by notification: POST 'to move' notices for away players to this webhook "
        "(default: $ECHORIDGE_NOTIFY_URL)",
    )
    srv.add_argument(
        "--notify-secret",
        default=os.environ.get("ECHORIDGE_NOTIFY_SECRET", ""),
        metavar="SECRET",
        help="the key of the notices' HMAC-SHA256 signature (default: "
        "$ECHORIDGE_NOTIFY_SECRET; prefer the variable: arguments show in ps)",
    )
    srv.add_argument(
        "--commands-per-second",
        type=int,
        default=10,
        help="messages per second a connection may send (bursts of twice that)",
    )
    srv.add_argument(
        "--ping-interval",
        type=float,
        default=Limits.ping_seconds,
        metavar="SECONDS",
        help="how often the server pings each connection",
    )
    srv.add_argument(
        "--idle-timeout",
        type=int,
        default=Limits.idle_seconds,
        metavar="SECONDS",
        help="close a connection that sent nothing (not even a pong) this long; abort one that "
        "has not taken a frame this long",
    )
    srv.add_argument(
        "--allowed-origins",
        default="",
        metavar="ORIGINS",
        help="web origins (scheme://host[:port], comma-separated; * for any) whose pages may "
        "open websockets here, besides the server's own; handshakes without an Origin (not "
        "from a browser) are always allowed",
    )
    srv.add_argument(
        "--max-connections-per-ip",
        type=int,
        default=Admission.max_per_address,
        metavar="N",
        help="websocket connections one client address may hold (IPv6: one /64; 0: no cap)",
    )
    srv.add_argument(
        "--max-connections",
        type=int,
        default=Admission.max_connections,
        metavar="N",
        help="websocket connections in all (0: no cap; lowered to fit the open-file limit)",
    )
    srv.add_argument(
        "--trusted-proxies",
        default="",
        metavar="ADDRESSES",
        help="reverse proxies (addresses or CIDR networks, comma-separated) whose "
        "X-Forwarded-For and X-Forwarded-Host are believed",
    )
    srv.add_argument(
        "--tables-per-minute-per-ip",
        type=int,
        default=LobbyLimits.tables_per_minute,
        metavar="N",
        help="tables one client address (IPv6: one /64; behind --trusted-proxies, the "
        "forwarded client) may create per minute, counted in Redis across workers and nodes; "
        "more are refused with table/rate_limited (default %(default)s; 0: no limit, for load "
        "tests such as `echo-ridge bots` that create many tables from one address)",
    )
    srv.add_argument(
        "--max-waiting-tables-per-ip",
        type=int,
        default=LobbyLimits.waiting_tables,
        metavar="N",
        help="tables created from one client address that may wait to start at once; more are "
        "refused with table/too_many (default %(default)s; 0: no limit)",
    )
    srv.add_argument(
        "--table-idle-timeout",
        type=int,
        default=LobbyLimits.idle_seconds,
        metavar="SECONDS",
        help="close a table whose game has not started when it has had no seated player this "
        "long (default %(default)s: 30 minutes; 0: never)",
    )
    srv.add_argument(
        "--table-max-wait",
        type=int,
        default=LobbyLimits.max_wait_seconds,
        metavar="SECONDS",
        help="close a table whose game has not started this long after its creation, whoever "
        "sits there (default %(default)s: 2 hours; 0: never)",
    )
    srv.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL") or None,
        help="use this Redis (default: $REDIS_URL, else an embedded redis-server); a Redis "
        "Cluster as redis+cluster://host:port,host:port,... (some of its nodes)",
    )
    srv.add_argument(
        "--replica-acks",
        type=int,
        default=0,
        metavar="K",
        help="acknowledge a command once K replicas have it (WAIT after the append; 0: at "
        "once, and a failover may lose the latest, which the tables detect: docs/store.md)",
    )
    srv.add_argument(
        "--data-dir", default="var/redis", help="data directory of the embedded Redis"
    )
    srv.add_argument(
        "--skip-redis-checks",
        action="store_true",
        help="do not refuse a Redis that may evict keys or lose writes (managed Redis "
        "services that refuse CONFIG GET)",
    )

    srv.add_argument(
        "--archive-grace",
        type=int,
        default=GRACE_SECONDS,
        metavar="SECONDS",
        help="release a finished game's live keys (log, metadata, chat) this long after its "
        "end, keeping its archive: transcript and record (default %(default)s: an hour)",
    )
    srv.add_argument(
        "--keep-finished",
        type=admincli.duration,
        default=None,
        metavar="DURATION",
        help="drop archived games this long after their end: 30d, 12h, 90m, 3600s "
        "(default: keep them)",
    )
    srv.add_argument(
        "--move-log-level",
        choices=("debug", "info"),
        default="debug",
        help="the level of the one log line per command (table, seat, command, outcome, ms): "
        "debug, not written at the server's info level (default), or info, written",
    )
    playerscli.add_serve_arguments(srv)
    admincli.add_serve_arguments(srv)
    archivecli.add_parser(sub)
    playerscli.add_parser(sub)
    admincli.add_parser(sub)

    sim = sub.add_parser("simulate", help="play random games in-process and report")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=4, choices=range(1, 5))
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument(
        "--mode",
        choices=MODE_CHOICES,
        type=_mode,
        default="competitive",
        help="competitive (1 player: solo) or coop, rules.md §14 (2-4 players)",
    )
    sim.add_argument(
        "--transcripts", metavar="DIR", help="write each finished game's public transcript here"
    )

    ver = sub.add_parser(
        "verify",
        help="verify finished games' transcripts",
        usage="echo-ridge verify FILE [FILE ...] | echo-ridge verify URL TABLE [TABLE ...]",
    )
    ver.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="transcript JSON files; or a server's ws:// or wss:// URL followed by table ids "
        "(their transcripts are downloaded)",
    )

    ply = sub.add_parser("play", help="play in the terminal: lobby, table, game (textual)")
    ply.add_argument("url", nargs="?", default=DEFAULT_URL, metavar="URL", help="the server")
    ply.add_argument("--name", default=None, help="your display name (default: your login)")
    who = ply.add_mutually_exclusive_group()
    who.add_argument(
        "--guest",
        action="store_true",
        help="play without an identity: no rating, nothing kept (by default the first name you "
        "choose on a server becomes your identity there, kept in the config directory)",
    )
    who.add_argument(
        "--claim",
        metavar="CODE",
        default=None,
        help="play as yourself from another device: redeem the transfer code it shows (F4 in "
        "its lobby)",
    )
    ply.add_argument(
        "--config-dir",
        metavar="DIR",
        type=Path,
        default=None,
        help="where your identities are kept (default: $ECHORIDGE_CONFIG_DIR, else "
        "$XDG_CONFIG_HOME/echo-ridge, else ~/.config/echo-ridge)",
    )
    wat = sub.add_parser("watch", help="watch a table in the terminal as a spectator")
    wat.add_argument("url", metavar="URL", help="the server, ws://HOST:PORT/ws")
    wat.add_argument("table", metavar="TABLE", help="the table id")
    rep = sub.add_parser(
        "replay",
        help="replay a finished game in the terminal, version by version, as a seat, a "
        "spectator or everyone saw it",
        description="Replay a finished game as one viewer saw it. Keys: Left/Right a version, "
        "Up/Down or [ ] a turn, n/p the seat's next/previous move, Home/End, space play/pause "
        "(+/- the speed), s switch seat, q quit.",
    )
    rep.add_argument("url", metavar="URL", help="the server, ws://HOST:PORT/ws")
    rep.add_argument("table", metavar="TABLE", help="the table id of a finished game")
    whose = rep.add_mutually_exclusive_group()
    whose.add_argument(
        "--seat",
        type=int,
        choices=range(4),
        metavar="N",
        help="as seat N saw it: its hand and what it was shown (0 is the first seat, P1 on the "
        "board); default: as a spectator saw it",
    )
    whose.add_argument(
        "--everyone", action="store_true", help="with every secret of each version shown"
    )
    rep.add_argument(
        "--version",
        type=int,
        default=None,
        metavar="V",
        help="open at version V (0: before the start; default 0)",
    )
    for terminal in (ply, wat, rep):
        terminal.add_argument(
            "--lang",
            choices=("en", "es"),
            default=None,
            help="the terminal client's language (default: the locale's, LC_ALL / LC_MESSAGES "
            "/ LANG, else English)",
        )

    bots = sub.add_parser("bots", help="play games with remote bots over the network and report")
    bots.add_argument("url", metavar="URL", help="the server, ws://HOST:PORT/ws")
    bots.add_argument(
        "--tables",
        type=int,
        default=1,
        help="tables to create and play (a server allows 10 a minute from one address unless "
        "started with --tables-per-minute-per-ip 0: past that the bots wait as it asks)",
    )
    bots.add_argument("--players", type=int, default=4, choices=range(1, 5), help="seats per table")
    bots.add_argument(
        "--mode",
        choices=MODE_CHOICES,
        type=_mode,
        default="competitive",
        help="the tables' mode: competitive (1 player: solo) or coop, rules.md §14 (2-4 players)",
    )
    bots.add_argument("--spectators", type=int, default=0, help="spectators per table")
    bots.add_argument(
        "--bot",
        choices=BOT_KINDS,
        default="random",
        help="the seats' policy: a level (easy, normal, strong) or random, greedy (= normal)",
    )
    bots.add_argument(
        "--server-bots",
        choices=BOT_KINDS,
        default=None,
        metavar="KIND",
        help="seat server-side bots of this kind (add_bot) beside the --players seats",
    )
    bots.add_argument(
        "--server-bot-seats", type=int, default=1, metavar="N", help="with --server-bots (1)"
    )
    bots.add_argument(
        "--subprotocol",
        choices=("msgpack", "json", "mixed"),
        default="msgpack",
        help="mixed: alternate between the two, connection by connection",
    )
    bots.add_argument(
        "--concurrency", type=int, default=0, help="tables in play at once (0: all)"
    )
    bots.add_argument(
        "--rate",
        type=float,
        default=9.0,
        help="messages per second per connection (0: unpaced; the server allows "
        "--commands-per-second, 10 by default)",
    )
    bots.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mean time a seat thinks before each command (exponentially distributed; 0: none)",
    )
    bots.add_argument(
        "--ramp", type=float, default=0.0, metavar="SECONDS", help="spread table creation over"
    )
    bots.add_argument(
        "--timeout", type=float, default=600.0, metavar="SECONDS", help="per table"
    )
    bots.add_argument("--seed", type=int, default=None, help="fix client seeds and policies")

    args = parser.parse_args(argv)
    if args.command == "serve":
        from echoridge.serve import Options
        from echoridge.serve import main as serve

        admission = Admission(
            allowed_origins=_list(args.allowed_origins),
            max_per_address=args.max_connections_per_ip,
            max_connections=args.max_connections,
            trusted_proxies=_list(args.trusted_proxies),
        )
        lobby = LobbyLimits(
            tables_per_minute=args.tables_per_minute_per_ip,
            waiting_tables=args.max_waiting_tables_per_ip,
            idle_seconds=args.table_idle_timeout,
            max_wait_seconds=args.table_max_wait,
        )
        try:
            admission.check()
            lobby.check()
        except ValueError as exc:
            parser.error(str(exc))
        if args.ping_interval <= 0 or args.idle_timeout < 1 or args.commands_per_second < 1:
            parser.error("--ping-interval, --idle-timeout and --commands-per-second are positive")
        if args.replica_acks < 0:
            parser.error("--replica-acks is 0 or more")
        if args.archive_grace < 0:
            parser.error("--archive-grace is 0 or more")
        if args.bot_processes < 0:
            parser.error("--bot-processes is 0 or more")
        if not MIN_BUDGET <= args.bot_budget <= MAX_BUDGET:
            parser.error(f"--bot-budget is {MIN_BUDGET} to {MAX_BUDGET:g} seconds")
        jwt = playerscli.jwt_settings(args, parser)
        admin = admincli.serve_options(args, parser)
        if args.notify_url and not args.notify_secret:
            parser.error("--notify-url needs a secret: set ECHORIDGE_NOTIFY_SECRET")
        from echoridge.workers import worker_count

        try:
            workers = worker_count(args.workers)
        except ValueError:
            parser.error("--workers is a positive number or auto")
        return serve(
            Options(
                host=args.host,
                port=args.port,
                redis_url=args.redis_url,
                data_dir=args.data_dir,
                check_redis=not args.skip_redis_checks,
                limits=Limits(
                    commands_per_second=args.commands_per_second,
                    ping_seconds=args.ping_interval,
                    idle_seconds=args.idle_timeout,
                ),
                decision_seconds=args.decision_timeout,
                bot_delay=args.bot_delay,
                bot_processes=args.bot_processes,
                bot_budget=args.bot_budget,
                pass_delay=args.auto_pass_delay,
                clock_floor=args.clock_floor,
                event_loop=args.event_loop,
                notify_url=args.notify_url,
                notify_secret=args.notify_secret.encode(),
                admission=admission,
                lobby=lobby,
                workers=workers,
                table_affinity=not args.no_table_affinity,
                replica_acks=args.replica_acks,
                archive_grace=args.archive_grace,
                keep_finished=args.keep_finished,
                move_log_level=args.move_log_level,
                jwt=jwt,
                **admin,
            )
        )
    if args.command == "archive":
        return archivecli.run(args)
    if args.command == "ratings":
        return playerscli.run(args)
    if args.command == "admin":
        return admincli.run(args)
    if args.command == "simulate":
        from echoridge.simulate import simulate

        if args.games < 0:
            parser.error("--games must not be negative")
        mode = args.mode
        if mode == "cooperative" and not 2 <= args.players <= 4:
            parser.error("--mode coop needs 2 to 4 --players")
        out = None
        if args.transcripts:
            out = Path(args.transcripts)
            out.mkdir(parents=True, exist_ok=True)
        report = simulate(args.games, args.players, args.seed, out, mode)
        print(json.dumps(report, sort_keys=True))
        return 0 if report["errors"] == 0 and report["finished"] == report["games"] else 1
    if args.command == "verify":
        if args.files[0].startswith(("ws://", "wss://")):
            if len(args.files) < 2:
                parser.error("verify URL TABLE: name at least one table")
            return verify_tables(args.files[0], args.files[1:])
        return verify_files(args.files)
    if args.command == "replay":
        from echoridge_terminal import replay as replay_game

        if args.version is not None and args.version < 0:
            parser.error("--version: a version is 0 or more")
        return replay_game(
            args.url, args.table, args.seat, args.everyone, args.version, lang=args.lang
        )
    if args.command in ("play", "watch"):
        from echoridge_terminal import play, watch

        if args.command == "play":
            return play(
                args.url,
                args.name,
                guest=args.guest,
                claim=args.claim,
                config_dir=args.config_dir,
                lang=args.lang,
            )
        return watch(args.url, args.table, lang=args.lang)
    if args.command == "bots":
        from echoridge.transcript import replay
        from echoridge_client.loadbots import BotOptions
        from echoridge_client.loadbots import main as bots_main

        return bots_main(
            BotOptions(
                url=args.url,
                tables=args.tables,
                players=args.players,
                mode=args.mode,
                spectators=args.spectators,
                bot=args.bot,
                server_bots=args.server_bots,
                server_bot_seats=args.server_bot_seats,
                subprotocol=args.subprotocol,
                concurrency=args.concurrency,
                rate=args.rate,
                think=args.think,
                ramp=args.ramp,
                timeout=args.timeout,
                seed=args.seed,
                replay=replay,
            )
        )
    return 2


def _list(text: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in text.split(",") if item.strip())


def verify_files(files: list[str]) -> int:
    """Check each transcript (protocol checks, then a replay through the engine)."""
    transcripts: list[tuple[str, Any]] = []
    for name in files:
        try:
            transcripts.append((name, json.loads(Path(name).read_text())))
        except (OSError, ValueError) as exc:
            transcripts.append((name, f"cannot read it: {exc}"))
    return _verify(transcripts)


def verify_tables(url: str, tables: list[str]) -> int:
    """Download each finished table's transcript from the server, and check it the same way."""
    import asyncio

    from echoridge_client.errors import ClientError
    from echoridge_client.transcripts import download_transcripts

    try:
        downloaded = asyncio.run(download_transcripts(url, tables))
    except (ClientError, OSError, TimeoutError) as exc:
        print(f"FAILED: cannot download from {url}: {exc}")
        return 1
    return _verify(
        [
            (table, got if isinstance(got, dict) else f"cannot download it: {got}")
            for table, got in zip(tables, downloaded, strict=True)
        ]
    )


def _verify(transcripts: list[tuple[str, Any]]) -> int:
    """Print a line per transcript (``(name, transcript or why it is missing)``)."""
    from echoridge.transcript import replay

    failed = 0
    for name, transcript in transcripts:
        if isinstance(transcript, str):
            print(f"FAILED {name}: {transcript}")
            failed += 1
            continue
        report = replay(transcript)
        if report.ok:
            counts = ", ".join(f"{v} {k}" for k, v in report.counts.items())
            print(f"verified {name}: {counts}")
        else:
            print(f"FAILED {name}: [{report.code}] {report.problem}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
