"""Benchmark of the wire protocol: bytes per delta, and encode+decode time per delta, in both
subprotocols, on the deltas of real simulated 4-player games (a spectator and every seat).

Prints a small report; never asserts on time.  Usage: python bench/protocol_bench.py [--games N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from echoridge.simulate import game_seed, play_random
from echoridge_protocol import codec, diff
from echoridge_protocol import messages as m
from echoridge_rules import SPECTATOR, Seat, view


def deltas(games: int) -> dict[str, list[m.Delta]]:
    out: dict[str, list[m.Delta]] = {"spectator": [], "seat": []}
    for g in range(games):
        views: dict[object, object] = {}
        for version, (_, _, state) in enumerate(play_random(4, game_seed(77, g)), start=1):
            for viewer in (SPECTATOR, Seat(0), Seat(1), Seat(2), Seat(3)):
                new = view(state, viewer)
                old = views.get(viewer)
                if old is not None:
                    ops = diff(old, new)
                    kind = "spectator" if viewer is SPECTATOR else "seat"
                    out[kind].append(m.Delta(table="t-bench", epoch=0, version=version, ops=ops))
                views[viewer] = new
    return out


def measure(items: list[m.Delta], sub: str, repeats: int) -> dict[str, float]:
    frames = [codec.encode(d, sub) for d in items]
    sizes = sorted(len(f if isinstance(f, bytes) else f.encode()) for f in frames)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for d in items:
            codec.decode(codec.encode(d, sub), sub, sender="server")
        best = min(best, time.perf_counter() - started)
    return {
        "deltas": len(items),
        "bytes_median": statistics.median(sizes),
        "bytes_p90": sizes[int(len(sizes) * 0.9)],
        "bytes_max": sizes[-1],
        "encode_decode_us": round(best / len(items) * 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    print("# protocol benchmark (one process, one core)")
    found = deltas(args.games)
    for kind, items in found.items():
        for sub in (m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON):
            print("delta   ", json.dumps({"viewer": kind, "subprotocol": sub,
                                         **measure(items, sub, repeats=3)}))


if __name__ == "__main__":
    main()
