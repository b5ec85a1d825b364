"""The server of the recovery test: start the embedded Redis on a data directory, play a table of
random legal commands into it, print one JSON line, then wait to be killed.

    python tests/store/play_table.py DATA_DIR [--commands 50] [--table ID] [--linger SECONDS]

The line is ``{"table", "version", "hash", "digest", "redis_pid", "url"}``: the table id, the log's
version and chain hash (hex) after the last append, ``echoridge_rules.serial.digest`` of the state
and the embedded redis-server's pid.  After ``--linger`` seconds (a safety net for when nobody
kills it) the script stops its Redis and exits 0.

``play`` and ``game`` are importable, so the test can compute the same game in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import uuid
from collections.abc import Iterator

from echoridge.simulate import acting_seat, play_random
from echoridge.store import Appended, Head, NewEntry, Storage, genesis
from echoridge.store.embedded import EmbeddedRedis
from echoridge_rules import State
from echoridge_rules.commands import Command
from echoridge_rules.events import Event
from echoridge_rules.serial import digest

PLAYERS = 4


def game_seed(table: str) -> bytes:
    return hashlib.sha256(f"echo-ridge/tests/play_table/{table}".encode()).digest()


def command_id(n: int) -> str:
    return f"cmd-{n}"


def game(table: str) -> Iterator[tuple[int | None, Command, list[Event], State]]:
    """The table's game: (seat that sent the command, command, events, state after), forever
    deterministic for a given table id.  The first command (StartGame) is the server's own."""
    before = State()
    for n, (command, events, after) in enumerate(play_random(PLAYERS, game_seed(table), table)):
        yield (acting_seat(before) if n else None), command, events, after
        before = after


async def play(storage: Storage, table: str, commands: int) -> tuple[Head, State]:
    """Create ``table`` and append the first ``commands`` commands of its game, one at a time."""
    await storage.directory.create(
        table, {"status": "playing", "public": "0"}, {"seed": game_seed(table)}
    )
    head = genesis(table)
    state = State()
    played = 0
    for n, (seat, command, events, after) in enumerate(game(table)):
        if n == commands:
            break
        result = await storage.log.append(
            table, head, command_id(n), NewEntry(seat, command, tuple(events))
        )
        if not isinstance(result, Appended):
            raise RuntimeError(f"append {n} of {table} gave {result!r}")
        head, state, played = result.head, after, n + 1
    if played != commands:
        raise RuntimeError(f"the game of {table} ended after {played} commands")
    return head, state


async def run(data_dir: str, table: str, commands: int, linger: float) -> int:
    embedded = EmbeddedRedis(data_dir)
    url = embedded.start()
    try:
        storage = await Storage.open(url)
        try:
            head, state = await play(storage, table, commands)
            assert embedded.process is not None
            line = {
                "table": table,
                "version": head.version,
                "hash": head.hash.hex(),
                "digest": digest(state),
                "redis_pid": embedded.process.pid,
                "url": url,
            }
            print(json.dumps(line, sort_keys=True), flush=True)
            await asyncio.sleep(linger)  # the test kills us with SIGKILL long before this ends
        finally:
            await storage.close()
    finally:
        embedded.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir")
    parser.add_argument("--commands", type=int, default=50)
    parser.add_argument("--table", default="")
    parser.add_argument("--linger", type=float, default=120.0)
    args = parser.parse_args(argv)
    table = args.table or "rec" + uuid.uuid4().hex[:12]
    return asyncio.run(run(args.data_dir, table, args.commands, args.linger))


if __name__ == "__main__":
    sys.exit(main())
