"""The ``echo-ridge`` command."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="echo-ridge", description="Echo Ridge game server")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("serve", help="serve games over websockets (not built yet)")

    sim = sub.add_parser("simulate", help="play random games in-process and report")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=4, choices=range(1, 5))
    sim.add_argument("--seed", type=int, default=0)

    args = parser.parse_args(argv)
    if args.command == "serve":
        print(
            "echo-ridge: the game server is not built yet; the rules engine is.\n"
            "Try: echo-ridge simulate --games 100 --players 4 --seed 7",
            file=sys.stderr,
        )
        return 0
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
