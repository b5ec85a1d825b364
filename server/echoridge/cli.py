"""The ``echo-ridge`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="echo-ridge", description="Echo Ridge game server")
    sub = parser.add_subparsers(dest="command", required=True)

    srv = sub.add_parser("serve", help="run the game server")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on")
    srv.add_argument("--port", type=int, default=8765, help="port (0: any free port)")
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
        "--commands-per-second",
        type=int,
        default=10,
        help="messages per second a connection may send (bursts of twice that)",
    )
    srv.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL") or None,
        help="use this Redis (default: $REDIS_URL, else an embedded redis-server)",
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

    sim = sub.add_parser("simulate", help="play random games in-process and report")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=4, choices=range(1, 5))
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument(
        "--transcripts", metavar="DIR", help="write each finished game's public transcript here"
    )

    ver = sub.add_parser("verify", help="verify finished games' transcripts")
    ver.add_argument("files", nargs="+", metavar="FILE", help="transcript JSON files")

    args = parser.parse_args(argv)
    if args.command == "serve":
        from echoridge.serve import Options
        from echoridge.serve import main as serve

        return serve(
            Options(
                host=args.host,
                port=args.port,
                redis_url=args.redis_url,
                data_dir=args.data_dir,
                check_redis=not args.skip_redis_checks,
                commands_per_second=args.commands_per_second,
                decision_seconds=args.decision_timeout,
                bot_delay=args.bot_delay,
            )
        )
    if args.command == "simulate":
        from echoridge.simulate import simulate

        if args.games < 0:
            parser.error("--games must not be negative")
        out = None
        if args.transcripts:
            out = Path(args.transcripts)
            out.mkdir(parents=True, exist_ok=True)
        report = simulate(args.games, args.players, args.seed, out)
        print(json.dumps(report, sort_keys=True))
        return 0 if report["errors"] == 0 and report["finished"] == report["games"] else 1
    if args.command == "verify":
        return verify_files(args.files)
    return 2


def verify_files(files: list[str]) -> int:
    """Check each transcript (protocol checks, then a replay through the engine)."""
    from echoridge.transcript import replay

    failed = 0
    for name in files:
        try:
            transcript = json.loads(Path(name).read_text())
        except (OSError, ValueError) as exc:
            print(f"FAILED {name}: cannot read it: {exc}")
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
