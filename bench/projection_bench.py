"""What projecting one version for its viewers costs, in process and without the network
(issue 26): the server's CPU per version is mostly this, and here it is measured apart from the
load's noise, so a change to views, diffs or encoding shows in it run to run.

Random 4-seat games (``--games``, co-op among them with ``--coop``) are played first; then, for
each version, as a table's fan-out does it (tables/viewers.py): the five viewers' views (four
seats and the spectators, through one ``ViewCache``), their deltas (``diff_sections``, the public
sections diffed once), the encoding of each distinct delta (msgpack; viewers whose delta is the
same share one ``Encoded``), and ``nothing_to_play`` (the auto-pass's question).  Prints each
part's CPU per version, the best of ``--repeats`` runs, and the mean delta size; never asserts
on time.  Usage: python bench/projection_bench.py [--games 12] [--repeats 3] [--coop]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from echoridge.simulate import game_seed, play_random
from echoridge.tables.viewers import SPECTATORS, Encoded, viewer_view
from echoridge_protocol import messages as m
from echoridge_protocol.delta import diff_sections
from echoridge_rules import State, Status, ViewCache
from echoridge_rules.legal import nothing_to_play

SEATS = 4


def games(count: int, coop: bool) -> list[list[State]]:
    mode = "cooperative" if coop else "competitive"
    return [
        [state for _, _, state in play_random(SEATS, game_seed(21, g), mode=mode)]
        for g in range(count)
    ]


def run(played: list[list[State]]) -> dict[str, Any]:
    parts = {"view": 0.0, "diff": 0.0, "encode": 0.0, "auto_pass": 0.0}
    versions = frames = encoded = size = 0
    clock = time.process_time
    for states in played:
        cache = ViewCache()
        views: dict[int, Any] = {}
        for state in states:
            shared: dict[Any, Any] = {}
            same: dict[Any, Encoded] = {}
            keys = [SPECTATORS] if state.status is Status.NEW else [SPECTATORS, *range(SEATS)]
            for key in keys:
                t0 = clock()
                new = viewer_view(state, key, cache)
                t1 = clock()
                parts["view"] += t1 - t0
                old = views.get(key)
                views[key] = new
                if old is None:
                    continue
                used: list[Any] = []
                ops = diff_sections(old, new, shared, used)
                t2 = clock()
                parts["diff"] += t2 - t1
                one = same.get(tuple(used))
                if one is None:
                    one = same[tuple(used)] = Encoded(m.Delta("t-bench", 1, versions, ops, None))
                    encoded += 1
                frame = one(m.SUBPROTOCOL_MSGPACK)
                parts["encode"] += clock() - t2
                frames += 1
                size += len(frame)
            t3 = clock()
            nothing_to_play(state)
            parts["auto_pass"] += clock() - t3
            versions += 1
    total = sum(parts.values())
    return {
        "versions": versions,
        "ms_per_version": round(total / versions * 1000, 4),
        **{f"{k}_ms": round(v / versions * 1000, 4) for k, v in parts.items()},
        "encodings_per_version": round(encoded / versions, 2),
        "mean_delta_bytes": round(size / frames, 1) if frames else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--coop", action="store_true")
    args = parser.parse_args()
    played = games(args.games, args.coop)
    best = min((run(played) for _ in range(args.repeats)), key=lambda r: r["ms_per_version"])
    print(
        f"# projection: {best['ms_per_version']} ms CPU per version for 5 viewers (view "
        f"{best['view_ms']}, diff {best['diff_ms']}, encode {best['encode_ms']}, auto-pass "
        f"{best['auto_pass_ms']}); {best['encodings_per_version']} encodings per version, "
        f"{best['mean_delta_bytes']} B per delta (log entries not included)"
    )
    print("projection", json.dumps({"games": args.games, "coop": args.coop, **best}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
