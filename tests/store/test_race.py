"""Two server processes racing to append to one table: exactly one wins each version; the other
catches up and decides again (or, retrying the same command id, gets the original result)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from echoridge.store import Appended, NewEntry, Storage, genesis
from echoridge_rules import State, decide, evolve
from echoridge_rules.commands import StartGame
from echoridge_rules.rng import Rng

from .conftest import RedisServer, make_table

WORKER = Path(__file__).with_name("race_worker.py")


async def started_table(storage: Storage, table: str) -> None:
    await make_table(storage, table)
    events = decide(State(), StartGame(4), Rng(b"\x05" * 32, table))
    start = NewEntry(None, StartGame(4), tuple(events))
    result = await storage.log.append(table, genesis(table), "start", start)
    assert isinstance(result, Appended)


async def race(
    storage: Storage, url: str, table: str, ids: tuple[str, str]
) -> list[dict[str, object]]:
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), url, table, name, cid],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for name, cid in zip(("a", "b"), ids, strict=True)
    ]
    try:
        deadline = time.monotonic() + 60
        while await storage.redis.llen(f"race:{table}:ready") < 2:
            assert time.monotonic() < deadline, "workers did not get ready"
            died = [w.stderr.read() for w in workers if w.poll() is not None and w.stderr]
            assert not died, died
            time.sleep(0.02)
        # Both have rebuilt the same state at the same version: release them together.
        async with storage.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(f"race:{table}:go:a", 1).rpush(f"race:{table}:go:b", 1)
            await pipe.execute()
        outputs = []
        for w in workers:
            out, err = w.communicate(timeout=60)
            assert w.returncode == 0, err
            outputs.append(json.loads(out.strip().splitlines()[-1]))
        return outputs
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()


async def test_racing_appenders_one_wins_the_other_catches_up(
    storage: Storage, redis_server: RedisServer, table_id: str
) -> None:
    await started_table(storage, table_id)
    results = await race(storage, redis_server.url, table_id, ("cmd-a", "cmd-b"))
    attempts = sorted(tuple(r["attempts"]) for r in results)  # type: ignore[arg-type]
    assert attempts == [("appended",), ("conflict", "appended")]
    assert sorted(r["version"] for r in results) == [2, 3]  # type: ignore[type-var]
    # The log holds both commands, each decided on the state before it: a clean fold.
    entries = await storage.log.load(table_id)
    assert [e.version for e in entries] == [1, 2, 3]
    assert {e.command_id for e in entries[1:]} == {"cmd-a", "cmd-b"}
    state = State()
    for e in entries:
        for ev in e.events:
            state = evolve(state, ev)
    assert (await storage.log.rebuild(table_id)).state == state


async def test_the_same_command_id_from_two_processes_is_applied_once(
    storage: Storage, redis_server: RedisServer, table_id: str
) -> None:
    """A client that retries through another server after a lost connection."""
    await started_table(storage, table_id)
    results = await race(storage, redis_server.url, table_id, ("same", "same"))
    attempts = sorted(tuple(r["attempts"]) for r in results)  # type: ignore[arg-type]
    assert attempts in ([("appended",), ("conflict", "duplicate")], [("appended",), ("duplicate",)])
    assert [r["version"] for r in results] == [2, 2]
    assert (await storage.log.head(table_id)).version == 2
