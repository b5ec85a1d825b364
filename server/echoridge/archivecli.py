"""``echo-ridge archive export DIR`` / ``archive import DIR``: archived games to and from files.

An export is a directory: one file per game, ``TABLE.transcript``, the transcript as Redis keeps
it (xz, or zlib for games archived before; store/archive.py), and ``index.jsonl``, one JSON line
per game in end order: ``table``, ``ended`` (ms), ``file``, ``sha256`` (of the file) and
``record`` (the game's record).  An import puts every game of an export back (checking each
file's digest first), as archived games: transcript, record and index; it overwrites a game of
the same table.  Both leave the live tables alone.  Export or import to back up, restore, or move
finished games to cold storage (docs/server.md, "Backup and restore").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack

from echoridge.store import Storage
from echoridge.store.keys import valid_table_id

INDEX = "index.jsonl"
PAGE = 200  # games read per round trip of an export


def add_parser(sub: Any) -> None:
    arc = sub.add_parser("archive", help="export or import archived (finished) games")
    what = arc.add_subparsers(dest="archive_command", required=True)
    for name, words in (
        ("export", "write every archived game to DIR (one file each and index.jsonl)"),
        ("import", "put back the archived games of an export in DIR"),
    ):
        p = what.add_parser(name, help=words)
        p.add_argument("dir", metavar="DIR")
        add_store_arguments(p)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


@contextlib.asynccontextmanager
async def opened(redis_url: str | None, data_dir: str) -> AsyncIterator[Storage]:
    """The server's storage for a command run beside it: the Redis at ``redis_url``, else the
    embedded one of ``data_dir`` (started for the command, stopped after)."""
    embedded = None
    url = redis_url
    if not url:
        from echoridge.store.embedded import EmbeddedRedis

        embedded = EmbeddedRedis(data_dir)
        url = embedded.start()
    try:
        storage = await Storage.open(url, check=False)
        try:
            yield storage
        finally:
            await storage.close()
    finally:
        if embedded is not None:
            embedded.stop()


def add_store_arguments(p: Any) -> None:
    """``--redis-url`` and ``--data-dir`` of a command run beside the server."""
    p.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL") or None,
        help="the server's Redis (default: $REDIS_URL, else the embedded one of --data-dir; "
        "stop the server that uses it first)",
    )
    p.add_argument("--data-dir", default="var/redis", help="the embedded Redis's directory")


async def _run(args: argparse.Namespace) -> int:
    async with opened(args.redis_url, args.data_dir) as storage:
        began = time.monotonic()
        if args.archive_command == "export":
            count = await export(storage, Path(args.dir))
        else:
            count = await import_(storage, Path(args.dir))
        seconds = time.monotonic() - began
        print(f"{args.archive_command}: {count} games in {seconds:.2f} s")
        return 0


async def export(storage: Storage, where: Path) -> int:
    """Write every archived game to ``where``; how many."""
    where.mkdir(parents=True, exist_ok=True)
    count = start = 0
    with open(where / INDEX, "w", encoding="utf-8") as index:
        while page := await storage.archive.page(start, PAGE):
            start += len(page)
            for table, ended in page:
                raw = await storage.archive.raw(table)
                if raw is None or not valid_table_id(table):  # (dropped meanwhile)
                    continue
                transcript, record = raw
                name = f"{table}.transcript"
                (where / name).write_bytes(transcript)
                line = {
                    "table": table,
                    "ended": ended,
                    "file": name,
                    "sha256": hashlib.sha256(transcript).hexdigest(),
                    "record": msgpack.unpackb(record),
                }
                index.write(json.dumps(line) + "\n")  # (the record keeps its order)
                count += 1
    return count


async def import_(storage: Storage, where: Path) -> int:
    """Put back the archived games of the export in ``where``; how many."""
    count = 0
    with open(where / INDEX, encoding="utf-8") as index:
        for n, text in enumerate(index, start=1):
            line = json.loads(text)
            table, name = line["table"], line["file"]
            if not valid_table_id(table) or name != f"{table}.transcript":
                raise SystemExit(f"{INDEX} line {n}: not a game of an export")
            transcript = (where / name).read_bytes()
            if hashlib.sha256(transcript).hexdigest() != line["sha256"]:
                raise SystemExit(f"{name}: its digest is not the one in {INDEX}")
            await storage.archive.restore(table, transcript, msgpack.packb(line["record"]))
            count += 1
    return count
