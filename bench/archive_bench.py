"""Issue 27's archive of finished games at scale: what N archived games take in Redis, and how
long ``echo-ridge archive export`` and ``import`` take to move them.

1. Plays a few real games with the rules engine (``--per-count`` per player count of
   ``--players``, random legal moves: ``simulate.play_random``) and records each one's public
   transcript (``transcript.Recorder``), encoded as the server keeps it (the msgpack of the
   document).  Only these are played: the N games below reuse them, so the engine's time is not
   what is measured.
2. Starts a redis-server as ``serve`` does (``EmbeddedRedis``: append-only, ``appendfsync
   always``) and archives ``--games`` N games through the real ``Archive`` API, each with its own
   table id (``t-`` and 10 hex digits, as the lobby makes them): the table's metadata, then
   ``Archive.archive`` (xz in a thread, the ``ARCHIVE`` script, the indexes), then
   ``Archive.release`` (the ``RELEASE`` script deletes the live keys), as the server does a grace
   period after each end.  Half of them are public, with four of 2,000 player names each (the
   record of games' indexes).  ``INFO memory`` ``used_memory`` before and after, per game.
   (Every copy of a template has its template's transcript, whose ``table`` field is the
   template's: the bytes and their size are a real game's, the id inside them is not the key's.)
3. Runs the real CLI, ``python -m echoridge.cli archive export DIR --redis-url URL``, as a
   subprocess (its own ``N games in S s`` line, and the wall time with the process's start), then
   ``archive import DIR`` into a second, empty redis-server started the same way, and checks
   every game: the same transcript and record bytes, the same end in ``er:archive:ended``, public
   ones in ``er:archive:public``, no live key; and replays ``--verify`` of them (one per template
   first) through the engine (``transcript.replay``) from the imported copy.

Prints JSON lines, then ``archive {json}`` last: games, MB of files, export and import seconds,
games/s, Redis bytes per archived game.  Never asserts on time.  Bounded: at most
``MAX_GAMES`` games, each subprocess at most ``CLI_TIMEOUT`` s.
Usage: python bench/archive_bench.py [--games N] [--players 1,2,3,4] [--per-count K]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgpack
import redis

from echoridge.simulate import play_random, table_seeds
from echoridge.store import Storage, keys
from echoridge.store.archive import ENDED, PUBLIC, decompress
from echoridge.store.embedded import EmbeddedRedis
from echoridge.tables.archiving import make_record
from echoridge.transcript import Recorder, replay
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_rules import State, Status

MAX_GAMES = 100_000
MAX_COMMANDS = 20_000  # a template game that has not ended by then is an error
CONCURRENCY = 16  # games archived at once (xz runs in threads)
CLI_TIMEOUT = 900.0  # seconds, per export or import
NAMES = 2_000  # distinct player names in the public games' records
STEP_MS = 60_000  # between two games' ends


@dataclass(frozen=True)
class Template:
    players: int
    packed: bytes  # the transcript's msgpack, as the server keeps it (before xz)
    final: State
    versions: int
    events: tuple[Any, ...]  # every event of the game (the record counts its turns)


def play(seed: int, game: int, players: int) -> Template:
    seeds = table_seeds(seed, game, players)
    recorder = Recorder(seeds.table, seeds.server_seed, seeds.client_seeds)
    state = State()
    every: list[Any] = []
    for n, (command, events, after) in enumerate(
        play_random(players, seeds.game_seed, seeds.table)
    ):
        recorder.record(getattr(command, "seat", None), command, events, after)
        every.extend(events)
        state = after
        if n > MAX_COMMANDS:
            raise RuntimeError(f"template game {game} ({players} players) did not end")
    if state.status is not Status.OVER:
        raise RuntimeError(f"template game {game} ({players} players) did not end")
    packed = codec.encode_value(recorder.transcript(state), m.SUBPROTOCOL_MSGPACK)
    assert isinstance(packed, bytes)
    return Template(players, packed, state, len(recorder.entries), tuple(every))


def table_id(seed: int, i: int) -> str:
    return "t-" + hashlib.sha256(f"archive-bench/{seed}/{i}".encode()).hexdigest()[:10]


def record_of(table: str, template: Template, i: int, ended: int) -> dict[str, Any]:
    """The record the server makes (``make_record``), for game ``i`` of the run: public when
    ``i`` is even, with player names from a population of ``NAMES``."""
    public = i % 2 == 0
    meta = {"public": "1" if public else "0", "created": str(ended - 30 * 60_000)}
    times = [
        SimpleNamespace(time=ended - 20 * 60_000, events=template.events),
        SimpleNamespace(time=ended, events=()),
    ]
    record = make_record(table, meta, template.final, times)  # type: ignore[arg-type]
    record["versions"] = template.versions
    for p in record["players"]:
        p["name"] = f"player{(i * 7 + p['seat'] * 131) % NAMES}"
    return record


def used_memory(r: redis.Redis) -> int:
    return int(r.info("memory")["used_memory"])


def start_redis(where: Path) -> tuple[EmbeddedRedis, str, redis.Redis]:
    embedded = EmbeddedRedis(where)
    url = embedded.start()
    return embedded, url, redis.Redis.from_url(url)


async def archive_all(
    url: str, templates: list[Template], games: int, seed: int, base_ms: int
) -> tuple[list[str], float]:
    """Archive and release ``games`` games; their tables (in end order) and the seconds."""
    storage = await Storage.open(url, check=False)
    tables = [table_id(seed, i) for i in range(games)]
    began = time.perf_counter()
    try:
        limit = asyncio.Semaphore(CONCURRENCY)

        async def one(i: int) -> None:
            async with limit:
                table, template = tables[i], templates[i % len(templates)]
                ended = base_ms + i * STEP_MS
                record = record_of(table, template, i, ended)
                await storage.redis.hset(
                    keys.meta(table),
                    mapping={"status": "over", "public": "1" if record["public"] else "0"},
                )
                assert await storage.archive.archive(table, template.packed, record, ended)
                assert await storage.archive.release(table) == "ok"

        await asyncio.gather(*(one(i) for i in range(games)))
    finally:
        await storage.close()
    return tables, time.perf_counter() - began


def cli(*args: str) -> tuple[float, str]:
    """Run ``echo-ridge ARGS`` (``python -m echoridge.cli``): its wall time and its output."""
    env = {**os.environ}
    env.pop("REDIS_URL", None)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "echoridge.cli", *args],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        check=False,
        env=env,
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"echo-ridge {' '.join(args)}: {done.stderr[-2000:]}")
    return seconds, done.stdout.strip()


def own_seconds(line: str) -> float:
    """The ``S`` of the CLI's ``export: N games in S s``."""
    return float(line.rsplit(" in ", 1)[1].split()[0])


def compare(source: redis.Redis, copy: redis.Redis, tables: list[str]) -> list[str]:
    """The problems of the copy: every game's bytes, end and listing as in the source."""
    problems: list[str] = []
    for start in range(0, len(tables), 500):
        chunk = tables[start : start + 500]
        values = []
        for r in (source, copy):
            pipe = r.pipeline(transaction=False)
            for t in chunk:
                pipe.mget(keys.transcript(t), keys.record(t))
                pipe.zscore(ENDED, t)
                pipe.zscore(PUBLIC, t)
                pipe.exists(*keys.live(t))
            values.append(pipe.execute())
        for n, t in enumerate(chunk):
            was = values[0][4 * n : 4 * n + 4]
            now = values[1][4 * n : 4 * n + 4]
            if None in was[0] or now[:3] != was[:3] or now[3] != 0:
                problems.append(t)
    return problems


def replayed(copy: redis.Redis, tables: list[str], templates: int, count: int) -> tuple[int, int]:
    """Replay ``count`` imported transcripts through the engine (every template's first):
    (checked, ok)."""
    picked = tables[: min(count, templates)]
    step = max(1, len(tables) // max(1, count - len(picked)))
    picked += tables[templates::step][: max(0, count - len(picked))]
    ok = 0
    for t in picked:
        stored = copy.get(keys.transcript(t))
        packed = decompress(bytes(stored)) if stored is not None else None
        if packed is not None:
            document = msgpack.unpackb(packed, strict_map_key=False)
            ok += bool(replay(document).ok)
    return len(picked), ok


def directory_bytes(where: Path) -> tuple[int, int]:
    files = [p for p in where.iterdir() if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def bench(args: argparse.Namespace) -> int:
    counts = [int(p) for p in args.players.split(",")]
    began = time.perf_counter()
    templates = [
        play(args.seed, 100 * players + k, players)
        for players in counts
        for k in range(args.per_count)
    ]
    for t in templates:
        print(
            json.dumps(
                {
                    "template": f"{t.players} players",
                    "versions": t.versions,
                    "msgpack_bytes": len(t.packed),
                }
            ),
            flush=True,
        )
    print(
        json.dumps({"templates": len(templates), "seconds": round(time.perf_counter() - began, 2)}),
        flush=True,
    )
    work = Path(tempfile.mkdtemp(prefix="erarchive-"))
    source = copy = None
    try:
        source, source_url, r = start_redis(work / "source")
        before = used_memory(r)
        base_ms = int(time.time() * 1000) - args.games * STEP_MS
        tables, seconds = asyncio.run(
            archive_all(source_url, templates, args.games, args.seed, base_ms)
        )
        after = used_memory(r)
        one = (keys.transcript(tables[0]), keys.record(tables[0]))  # a 1-player game's
        sample = {k: int(r.memory_usage(k, samples=0) or 0) for k in one}
        sample.update({k: int(r.memory_usage(k, samples=0) or 0) for k in (ENDED, PUBLIC)})
        archived = {
            "archived": args.games,
            "seconds": round(seconds, 2),
            "games_per_s": round(args.games / seconds, 1),
            "used_memory_before": before,
            "used_memory_after": after,
            "redis_bytes_per_game": round((after - before) / args.games),
            "keys": r.dbsize(),
            "memory_usage_sample": sample,
        }
        print(json.dumps(archived), flush=True)

        exported = work / "export"
        export_wall, export_line = cli(
            "archive", "export", str(exported), "--redis-url", source_url
        )
        files, size = directory_bytes(exported)
        print(
            json.dumps({"export": export_line, "wall_seconds": round(export_wall, 2)}), flush=True
        )

        copy, copy_url, c = start_redis(work / "copy")
        empty = used_memory(c)
        import_wall, import_line = cli("archive", "import", str(exported), "--redis-url", copy_url)
        imported = used_memory(c)
        print(
            json.dumps({"import": import_line, "wall_seconds": round(import_wall, 2)}), flush=True
        )

        problems = compare(r, c, tables)
        checked, ok = replayed(c, tables, len(templates), args.verify)
        export_s, import_s = own_seconds(export_line), own_seconds(import_line)
        report = {
            "games": args.games,
            "players": counts,
            "files": files,
            "mb_of_files": round(size / 1e6, 2),
            "bytes_per_game_file": round(size / args.games),
            "export_s": export_s,
            "export_wall_s": round(export_wall, 2),
            "export_games_per_s": round(args.games / export_s, 1) if export_s else None,
            "import_s": import_s,
            "import_wall_s": round(import_wall, 2),
            "import_games_per_s": round(args.games / import_s, 1) if import_s else None,
            "redis_bytes_per_archived_game": archived["redis_bytes_per_game"],
            "redis_bytes_per_imported_game": round((imported - empty) / args.games),
            "round_trip_mismatches": len(problems),
            "replayed": checked,
            "replayed_ok": ok,
        }
        if problems:
            report["first_mismatches"] = problems[:5]
        print("archive " + json.dumps(report), flush=True)
        return 0 if not problems and ok == checked else 1
    finally:
        for server in (source, copy):
            if server is not None:
                server.stop()
        if args.keep:
            print(f"# kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000, help="games archived (default 1000)")
    parser.add_argument("--players", default="1,2,3,4", help="the templates' player counts")
    parser.add_argument("--per-count", type=int, default=2, help="template games per count")
    parser.add_argument("--verify", type=int, default=20, help="imported games replayed")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args()
    if not 1 <= args.games <= MAX_GAMES:
        parser.error(f"--games is 1 to {MAX_GAMES}")
    if not 1 <= args.per_count <= 10:
        parser.error("--per-count is 1 to 10")
    if not all(p.strip().isdigit() and 1 <= int(p) <= 4 for p in args.players.split(",")):
        parser.error("--players: player counts 1 to 4, comma-separated")
    return bench(args)


if __name__ == "__main__":
    sys.exit(main())
