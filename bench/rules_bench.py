"""Benchmarks of the rules engine: simulated games per second and folded events per second.

Prints a small report; never asserts on time.  Usage: python bench/rules_bench.py [--games N]
"""

from __future__ import annotations

import argparse
import json
import time

from echoridge.simulate import game_seed, play_random, simulate
from echoridge_rules import fold


def bench_simulate(games: int, players: int) -> dict[str, float]:
    report = simulate(games, players, seed=1)
    return {
        "players": players,
        "games": games,
        "games_per_s": round(games / report["seconds"], 1),
        "commands_per_s": round(report["commands"] / report["seconds"]),
        "events_per_s": round(report["events"] / report["seconds"]),
    }


def bench_fold(games: int, repeats: int) -> dict[str, float]:
    logs = []
    for g in range(games):
        events = []
        for _, evs, _ in play_random(4, game_seed(99, g)):
            events.extend(evs)
        logs.append(events)
    total = sum(len(e) for e in logs)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for events in logs:
            fold(events)
        best = min(best, time.perf_counter() - started)
    return {
        "games": games,
        "events": total,
        "events_per_game": round(total / games, 1),
        "seconds": round(best, 4),
        "events_per_s": round(total / best),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    print("# rules engine benchmark (one process, one core)")
    for players in (1, 2, 3, 4):
        print("simulate", json.dumps(bench_simulate(args.games, players)))
    print("fold    ", json.dumps(bench_fold(args.games, repeats=3)))


if __name__ == "__main__":
    main()
