"""Issue 13's targets, each with its measured value and met/missed, from the reports the benches
of ``make bench`` wrote into DIR (their standard output, kept by the Makefile):

- ``load.txt``: bench/load_bench.py at 200 tables (server CPU per command, p99, delta bytes, Redis
  round trips on a command's path);
- ``load1000.txt``: bench/load_bench.py at 1,000 tables (p99);
- ``fanout.txt``: bench/fanout_bench.py (1,000 spectators against a bare broadcast());
- ``peer.txt``: bench/peer_bench.py (the I/O floor and boardgame.io, same load shape);
- ``workers.txt``: bench/workers_bench.py (issue 14: 2 workers against 1 at saturation).

A report that is missing (a bench skipped or failed) makes its targets "not measured".  The
floor and the peer run after our own bench, not at the same moment: the ratios compare runs
made one after the other on the same machine.  Usage: python bench/targets.py DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

CPU_MS = 1.5  # server CPU per accepted command at 200 tables, at most
FLOOR_RATIO = 2.0  # ... and at most this many times the I/O floor's
P99_200_MS = 20.0
P99_1000_MS = 100.0
SPECTATOR_RATIO = 0.8
DELTA_BYTES = 300
ROUND_TRIPS = 1.0
WORKERS_RATIO = 1.6  # issue 14: commands/s of 2 workers over 1, at saturation


def lines(path: Path, tag: str) -> list[dict[str, Any]]:
    """The JSON of every line of ``path`` that starts with ``tag``."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(errors="replace").splitlines():
        head, _, rest = line.partition(" ")
        if head == tag and rest.strip().startswith("{"):
            out.append(json.loads(rest))
    return out


def verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else ("met" if ok else "MISSED")


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".bench")
    load = next(iter(lines(out / "load.txt", "load")), None)
    bots = next(iter(lines(out / "load.txt", "bots")), None)
    redis = next(iter(lines(out / "load.txt", "redis")), None)
    large = next(iter(lines(out / "load1000.txt", "load")), None)
    ours_fan = next(iter(lines(out / "fanout.txt", "ours")), None)
    base_fan = next(iter(lines(out / "fanout.txt", "baseline")), None)
    floors = [r for r in lines(out / "peer.txt", "floor") if "unpaced" not in r["run"]]
    peers = [r for r in lines(out / "peer.txt", "peer") if "unpaced" not in r["run"]]

    print("# issue 13 targets (measured | target | verdict)")
    cpu = load["server_cpu_ms_per_command"] if load else None
    print(f"#   server CPU per command at {load['tables'] if load else 200} tables: "
          f"{cpu} ms | <= {CPU_MS} ms | {verdict(None if cpu is None else cpu <= CPU_MS)}")
    floor = min(floors, key=lambda r: r["server_cpu_ms_per_command"]) if floors else None
    if floor is not None and cpu is not None:
        ratio = cpu / floor["server_cpu_ms_per_command"]
        print(f"#   ... against the I/O floor ({floor['run']}, "
              f"{floor['server_cpu_ms_per_command']} ms): {ratio:.2f}x | <= {FLOOR_RATIO}x | "
              f"{verdict(ratio <= FLOOR_RATIO)}")
    else:
        print(f"#   ... against the I/O floor: | <= {FLOOR_RATIO}x | not measured")
    peer = peers[0] if peers else None
    if peer is not None and cpu is not None:
        print(f"#   ... against boardgame.io ({peer['server_cpu_ms_per_command']} ms/move): "
              f"{cpu} ms | below | {verdict(cpu < peer['server_cpu_ms_per_command'])}")
    else:
        print("#   ... against boardgame.io: | below | not measured")
    p99 = load["p99_ms"] if load else None
    print(f"#   command-to-delta p99 at 200 tables: {p99} ms | < {P99_200_MS} ms | "
          f"{verdict(None if p99 is None else p99 < P99_200_MS)}")
    p99_large = large["p99_ms"] if large else None
    print(f"#   command-to-delta p99 at {large['tables'] if large else 1000} tables: {p99_large} ms"
          f" | < {P99_1000_MS} ms | "
          f"{verdict(None if p99_large is None else p99_large < P99_1000_MS)}")
    if ours_fan and base_fan:
        ratio = ours_fan["deliveries_per_cpu_second"] / base_fan["deliveries_per_cpu_second"]
        print(f"#   {ours_fan['spectators']} spectators on one table, deliveries per server "
              f"CPU-second against a bare broadcast(): {ratio:.2f}x | >= {SPECTATOR_RATIO}x | "
              f"{verdict(ratio >= SPECTATOR_RATIO)}")
    else:
        print(f"#   spectators against a bare broadcast(): | >= {SPECTATOR_RATIO}x | not measured")
    size = None
    if bots:
        sizes = bots["delta_bytes"]
        size = sizes.get("echoridge.v2.msgpack")
    print(f"#   mean delta per seat (msgpack): {size} B | <= {DELTA_BYTES} B | "
          f"{verdict(None if size is None else size <= DELTA_BYTES)}")
    trips = redis["monitor"]["round_trips_per_command_on_its_path"] if redis else None
    print(f"#   Redis round trips on a command's path: {trips} | {ROUND_TRIPS:g} | "
          f"{verdict(None if trips is None else trips <= ROUND_TRIPS + 0.005)}")
    workers = next(iter(lines(out / "workers.txt", "summary")), None)
    ratio = workers["workers_2_over_1"] if workers else None
    print(f"#   (issue 14) 2 workers over 1 at saturation: {ratio}x | >= {WORKERS_RATIO}x | "
          f"{verdict(None if ratio is None else ratio >= WORKERS_RATIO)}")
    for run in (load, large):
        if run:
            print(f"#   ({run['tables']} tables: the load generator used "
                  f"{run['client_cpu_seconds']} s of CPU over {run['play_seconds']} s, its "
                  f"loop lag max {run.get('client_loop_lag_max_ms', '?')} ms, p99 "
                  f"{run.get('client_loop_lag_p99_ms', '?')} ms; the server's loop lag max "
                  f"{run['loop_lag_max_ms']} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
