"""The ``echo-ridge`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="echo-ridge", description="Echo Ridge game server")
    sub = parser.add_subparsers(dest="command", required=True)

    srv = sub.add_parser("serve", help="run the server (for now: its storage)")
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

    args = parser.parse_args(argv)
    if args.command == "serve":
        from echoridge.serve import main as serve

        return serve(args.redis_url, args.data_dir, check=not args.skip_redis_checks)
    if args.command == "simulate":
        from echoridge.simulate import simulate

        if args.games < 0:
            parser.error("--games must not be negative")
        report = simulate(args.games, args.players, args.seed)
        print(json.dumps(report, sort_keys=True))
        return 0 if report["errors"] == 0 and report["finished"] == report["games"] else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
