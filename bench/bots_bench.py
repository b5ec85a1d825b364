"""How strong the bot levels are: whole games in-process, win rates with 95% intervals.

    python bench/bots_bench.py [--games 400] [--budget 0.5 | --simulations N] [--jobs 2]

Each line-up is a string of levels by seat (``s`` strong, ``g`` normal/greedy, ``e`` easy,
``r`` random); every line-up plays the same game seeds, so a seat's rate in ``sggg`` compares
with the same seat's in ``gggg`` (same seat order, same deals).  Competitive line-ups:

* ``sggg`` vs ``gggg``: the strong seat against three greedy ones (target: at least twice the
  greedy seat's rate in the same seat);
* ``gsss``: greedy against three strong; ``srrr`` vs ``grrr``: against random seats;
* ``oggg``: the ceiling of the 2x target.  ``o`` is not a bot but a cheating reference: it plays
  as the greedy bot and then names the true murderer, which it reads from the engine's state.  Its
  rate is the most that a perfect accusation gives a seat that plays as greedy does.  Each seat
  also reports how often it named the murderer (``seat_right``);
* co-op, 2 and 4 officers: a strong team's win rate against a greedy team's (target: 1.5x; it
  can be measured only where a greedy team's rate is under 1/1.5).

It also reports the decision times of each level (wall p50/p99 and CPU per decision).  The
strong bot searches ``--budget`` seconds per decision (0.5, the server's default), or a fixed
``--simulations`` per decision (faster, deterministic).  Not a timed test: a report.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections import defaultdict
from typing import Any

from echoridge.simulate import acting_seat, game_seed
from echoridge_client.policies import GreedyPolicy, RandomPolicy
from echoridge_client.search import EasyPolicy, StrongPolicy
from echoridge_rules import Rng, Seat, State, Status, ViewCache, decide, evolve, view
from echoridge_rules.commands import StartGame
from echoridge_rules.serial import load

MAX_COMMANDS = 5_000
COMPETITIVE = ("sggg", "gggg", "oggg", "gsss", "srrr", "grrr")
COOP = ("ss", "gg", "ssss", "gggg")
LEVEL = {"s": "strong", "g": "normal", "e": "easy", "r": "random", "o": "oracle"}


def make(kind: str, seed: bytes, budget: float, simulations: int | None) -> Any:
    if kind == "s":
        return StrongPolicy(seed, budget=budget, simulations=simulations)
    return {"g": GreedyPolicy, "o": GreedyPolicy, "e": EasyPolicy, "r": RandomPolicy}[kind](seed)


def play(job: tuple[str, str, int, float, int | None]) -> dict[str, Any]:
    """One game: who won, and each level's decision times (wall, CPU)."""
    lineup, mode, game, budget, simulations = job
    bots = [
        make(kind, f"bench/{game}/{seat}".encode(), budget, simulations)
        for seat, kind in enumerate(lineup)
    ]
    rng = Rng(game_seed(2026, game), "bots-bench")
    state = State()
    cmd: Any = StartGame(len(lineup), mode=mode)
    cache = ViewCache()
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for _ in range(MAX_COMMANDS):
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
        seat = acting_seat(state)
        if seat is None:
            break
        v = view(state, Seat(seat), cache)
        legal = v["you"]["legal"]
        wall, cpu = time.perf_counter(), time.process_time()
        if lineup[seat] == "o" and any(c.get("type") == "accuse" for c in legal):
            # the cheating reference: the true murderer, read from the state (see the docstring)
            choice = next(c for c in legal if c.get("suspect") == state.murderer)
        else:
            choice = bots[seat].choose(v, legal)
        if len(legal) > 1:
            times[LEVEL[lineup[seat]]].append(
                (time.perf_counter() - wall, time.process_time() - cpu)
            )
        cmd = load(choice)
    assert state.status is Status.OVER, "a game did not end"
    right = [i for i, p in enumerate(state.players) if p.accusation == state.murderer]
    return {"winners": list(state.winners), "right": right, "times": dict(times)}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate (shared wins count as fractions)."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(lineup: str, mode: str, args: argparse.Namespace, pool: Any) -> dict[str, Any]:
    jobs = [(lineup, mode, g, args.budget, args.simulations) for g in range(args.games)]
    start = time.perf_counter()
    results = pool.map(play, jobs, chunksize=1)
    seats = [0.0] * len(lineup)
    right = [0] * len(lineup)
    team = 0
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in results:
        for w in r["winners"]:
            seats[w] += 1 / len(r["winners"])
        for seat in r["right"]:
            right[seat] += 1
        team += bool(r["winners"])
        for level, ts in r["times"].items():
            times[level].extend(ts)
    n = len(results)
    out: dict[str, Any] = {
        "lineup": lineup,
        "mode": mode or "competitive",
        "games": n,
        "seconds": round(time.perf_counter() - start, 1),
        "seat_rates": [round(w / n, 3) for w in seats],
        "seat_ci95": [[round(x, 3) for x in wilson(w, n)] for w in seats],
        "seat_right": [round(k / n, 3) for k in right],
    }
    if mode:
        out["team_rate"] = round(team / n, 3)
        out["team_ci95"] = [round(x, 3) for x in wilson(team, n)]
    out["decisions"] = {
        level: {
            "count": len(ts),
            "wall_p50_ms": round(1000 * quantile([t[0] for t in ts], 0.5), 2),
            "wall_p99_ms": round(1000 * quantile([t[0] for t in ts], 0.99), 2),
            "cpu_mean_ms": round(1000 * sum(t[1] for t in ts) / max(len(ts), 1), 2),
        }
        for level, ts in sorted(times.items())
    }
    return out


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per line-up")
    parser.add_argument("--budget", type=float, default=0.5, help="strong: seconds per decision")
    parser.add_argument(
        "--simulations", type=int, default=None, help="strong: sampled worlds per decision"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--lineups", default=",".join(COMPETITIVE), help="competitive line-ups")
    parser.add_argument("--coop", default=",".join(COOP), help="co-op teams (4 officers)")
    args = parser.parse_args(argv)
    reports = []
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for lineup in filter(None, args.lineups.split(",")):
            reports.append(run(lineup, "", args, pool))
            print(json.dumps(reports[-1]), flush=True)
        for lineup in filter(None, args.coop.split(",")):
            reports.append(run(lineup, "cooperative", args, pool))
            print(json.dumps(reports[-1]), flush=True)
    by = {(r["mode"], r["lineup"]): r for r in reports}
    summary: dict[str, Any] = {"budget": args.budget, "simulations": args.simulations}
    strong, greedy = by.get(("competitive", "sggg")), by.get(("competitive", "gggg"))
    if strong and greedy:
        summary["strong_vs_3_greedy_x"] = ratio(strong["seat_rates"][0], greedy["seat_rates"][0])
        summary["target_2x_met"] = (summary["strong_vs_3_greedy_x"] or 0) >= 2
    oracle = by.get(("competitive", "oggg"))
    if oracle and greedy:
        summary["oracle_vs_3_greedy_x"] = ratio(oracle["seat_rates"][0], greedy["seat_rates"][0])
        # the share of right accusations a seat that plays as greedy needs for the 2x target
        won_when_right = oracle["seat_rates"][0] / max(oracle["seat_right"][0], 1e-9)
        summary["right_needed_for_2x"] = round(2 * greedy["seat_rates"][0] / won_when_right, 3)
        summary["greedy_right"] = greedy["seat_right"][0]
    strong, greedy = by.get(("competitive", "srrr")), by.get(("competitive", "grrr"))
    if strong and greedy:
        summary["strong_vs_3_random_x"] = ratio(strong["seat_rates"][0], greedy["seat_rates"][0])
    for team in ("ss", "ssss"):
        strong, greedy = by.get(("cooperative", team)), by.get(("cooperative", "g" * len(team)))
        if strong and greedy:
            key = f"coop{len(team)}"
            summary[f"{key}_team_x"] = ratio(strong["team_rate"], greedy["team_rate"])
            summary[f"{key}_target_1_5x_met"] = (summary[f"{key}_team_x"] or 0) >= 1.5
            # 1.5x a greedy team's rate above 2/3 would be more than every game
            summary[f"{key}_target_possible"] = greedy["team_rate"] < 1 / 1.5
    print(json.dumps({"summary": summary}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
