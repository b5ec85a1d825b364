"""The two anchors of issue 13, measured on this machine with the shape of ``load_bench.py``
(TABLES tables x 4 seats + 1 spectator, the seats taking turns, think 1 s exponential), to print
next to our own figures:

1. The I/O floor (``floor.py``): a minimal asyncio websockets server doing only a command's I/O
   (one EVALSHA append on the embedded Redis, five pre-encoded sends), with its sends straight
   from the handler (``send``: ``await ws.send`` each; ``broadcast``: websockets' ``broadcast()``)
   or through a per-connection queue and writer task (``queue``, our outbox design), on asyncio and
   on uvloop (if installed); paced, and unpaced for the saturation throughput.
2. The boardgame.io peer (``peers/``, a Node project with pinned versions): boardgame.io 0.50's
   own server (Koa + socket.io, in-memory storage) running a 4-player game with a few KB of public
   state and a secret per player (``playerView``), so each move sends the full filtered state to
   each of the five viewers (~3.8 KB); matches made over its Lobby API, played by socket.io-client
   processes speaking boardgame.io's protocol.  ``npm ci`` runs on first use; if it cannot (no
   Node, no network), the peer is skipped with a message, not failed.

Both are driven by ``floor.drive``: server CPU per command from ``/proc/PID/stat`` over a
measured window after a warm-up, command-to-ack (move-to-update) p50/p99 at the sender, the
server's loop lag, and the generators' own CPU and loop lag (they must not be the bottleneck).
Prints JSON lines (``floor``, ``peer``) and a summary next to issue 13's figures; never asserts
on time.  Usage: python bench/peer_bench.py [--quick] [--tables N] [--duration S] [--no-floor]
[--no-peer] [--variants send,broadcast,queue] [--loops asyncio,uvloop] [--no-saturation]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import floor

PEERS = Path(__file__).resolve().parent / "peers"
NPM_TIMEOUT = 300  # seconds npm ci may take

# Issue 13's figures on this machine (ms of server CPU per command, p99 ms, commands/s unpaced).
ISSUE = {
    "floor": "0.77 ms/command (0.66 ms with uvloop), p99 4.3 ms, ~3,800 commands/s unpaced; "
    "0.88 ms with a queue and writer task",
    "peer": "1.6 ms/move, p99 10-12 ms, ~3.9 KB per update",
    "ours": "4.0-4.5 ms/command, p99 92-147 ms (bench/load_bench.py)",
}


def emit(tag: str, result: dict[str, Any]) -> None:
    print(tag, json.dumps(result), flush=True)


def free_port() -> int:
    from echoridge.store.embedded import free_port as free

    return free()


def npm_ready() -> str | None:
    """Install the peer's packages from its lockfile if needed; None, or why the peer is skipped."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "node and npm are not on PATH"
    stamp = PEERS / "node_modules" / ".package-lock.json"
    lock = PEERS / "package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        print("# boardgame.io peer: npm ci (bench/peers)", flush=True)
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=PEERS,
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return f"npm ci did not finish in {NPM_TIMEOUT} s (no network?)"
        if done.returncode != 0:
            tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
            return f"npm ci failed ({tail}); no network to the npm registry?"
    check = subprocess.run(
        [node, "-p", "require('koa-compose/package.json').version + ' ' + "
         "require('boardgame.io/package.json').version"],
        cwd=PEERS, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    versions = check.stdout.split()
    if check.returncode != 0 or len(versions) != 2:
        return f"the installed packages do not load: {check.stderr.strip()[-200:]}"
    if versions[0] != "4.1.0":
        return f"koa-compose is {versions[0]}, not 4.1.0 (every Lobby route would answer 404)"
    print(f"# boardgame.io {versions[1]} (koa-compose {versions[0]}), node "
          f"{subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()}",
          flush=True)  # fmt: skip
    return None


def peer_runs(args: argparse.Namespace, tables: int) -> list[tuple[floor.Run, bool]]:
    env = {**os.environ, "NODE_ENV": "production"}  # as deployed: boardgame.io logs no INFO lines
    runs = []
    for think, label in ((args.think, f"think {args.think:g} s"), (0.0, "unpaced")):
        if think == 0.0 and args.no_saturation:
            continue
        port = free_port()

        def gens(_: int, port: int = port, think: float = think) -> list[list[str]]:
            return [
                ["node", "loadgen.js", f"http://127.0.0.1:{port}", str(first), str(n),
                 str(think), str(args.seed)]
                for first, n in floor.split(tables, args.generators)
            ]  # fmt: skip

        run = floor.Run(
            name=f"boardgame.io {tables} matches {label}",
            server=["node", "server.js", str(port)],
            generators=gens,
            env=env,
            cwd=PEERS,
        )
        runs.append((run, think == 0.0))
    return runs


def run_peer(args: argparse.Namespace) -> list[dict[str, Any]]:
    why = npm_ready()
    if why is not None:
        print(f"# boardgame.io peer SKIPPED: {why}", flush=True)
        return []
    tables = args.tables or (20 if args.quick else 200)
    duration = args.duration or (20.0 if args.quick else 60.0)
    saturation = args.saturation_duration or (8.0 if args.quick else 15.0)
    results = []
    for run, unpaced in peer_runs(args, tables):
        result = floor.drive(run, args.warmup, saturation if unpaced else duration)
        results.append(result)
        emit("peer    ", result)
    return results


def summary(floors: list[dict[str, Any]], peers: list[dict[str, Any]]) -> None:
    print("# anchors (measured here | issue 13's figures)")

    def line(r: dict[str, Any]) -> str:
        return (f"{r['server_cpu_ms_per_command']} ms server CPU/command, p50 {r['p50_ms']} ms, "
                f"p99 {r['p99_ms']} ms, {r['commands_per_second']} commands/s, server "
                f"{r['server_cpu_utilisation']:.0%} of a core, generators "
                f"{r['generator_cpu_utilisation']:.0%} (loop lag max "
                f"{r['generator_loop_lag_max_ms']} ms), others on the machine "
                f"{r['other_cpu_utilisation']:.0%}, errors {r['errors']}")  # fmt: skip

    for r in floors:
        extra = f", Redis {r['redis_cpu_ms_per_command']} ms/command" if "redis_cpu_ms_per_command" in r else ""  # noqa: E501
        print(f"#   {r['run']}: {line(r)}{extra}")
    if floors:
        print(f"#   issue 13 floor: {ISSUE['floor']}")
    for r in peers:
        print(f"#   {r['run']}: {line(r)}, {r['mean_frame_bytes']:.0f} B per update")
    if peers:
        print(f"#   issue 13 boardgame.io: {ISSUE['peer']}")
    print(f"#   issue 13 ours: {ISSUE['ours']}; targets: <= 1.5 ms and <= 2x the floor, below "
          "boardgame.io's; p99 < 20 ms")
    paced = [r for r in floors if "unpaced" not in r["run"]]
    if paced:
        best = min(paced, key=lambda r: r["server_cpu_ms_per_command"])
        print(f"#   2x the cheapest paced floor ({best['run']}): "
              f"{2 * best['server_cpu_ms_per_command']:.2f} ms/command")
    for r in [*floors, *peers]:
        if r["other_cpu_utilisation"] > 0.1:
            print(f"#   DISTURBED: {r['run']}: other processes used "
                  f"{r['other_cpu_utilisation']:.0%} of a core during the window")
    busy = [r for r in [*floors, *peers] if r["generator_cpu_utilisation"] > 0.5]
    for r in busy:
        print(f"#   note: {r['run']}: the generators used {r['generator_cpu_utilisation']:.0%} "
              "of a core on a 2-core machine: the unpaced figure is bounded by the machine, "
              "not by the server alone")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    floor.add_arguments(parser)
    parser.add_argument("--no-floor", action="store_true", help="skip the I/O floor")
    parser.add_argument("--no-peer", action="store_true", help="skip the boardgame.io peer")
    args = parser.parse_args()
    tables = args.tables or (20 if args.quick else 200)
    load = os.getloadavg()[0]
    print(f"# issue 13 anchors: {tables} tables x 4 seats + 1 spectator, think {args.think:g} s "
          f"(exponential), {args.generators} generator processes; {os.cpu_count()} cores, "
          f"load average {load:.2f} at the start", flush=True)  # fmt: skip
    floors = [] if args.no_floor else floor.run_floor(args, emit)
    peers = [] if args.no_peer else run_peer(args)
    summary(floors, peers)
    after = os.getloadavg()[0]
    print(f"# load average {after:.2f} at the end; 'others on the machine' is the CPU that "
          "processes other than the bench's used during each window (disturbance)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
