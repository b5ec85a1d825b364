"""A separate process that appends one command to a table, racing another such process.

Usage: python race_worker.py URL TABLE NAME COMMAND_ID
It rebuilds the table, says it is ready, waits for the go signal, decides the acting seat's first
legal command and appends it; on a conflict it catches up, decides again and retries.  Prints
one JSON line: the outcome of each attempt and the version finally appended.
"""

from __future__ import annotations

import asyncio
import json
import sys

from echoridge.simulate import acting_seat
from echoridge.store import Appended, Conflict, Duplicate, NewEntry, Storage
from echoridge_rules import RuleViolation, decide, evolve, legal_actions
from echoridge_rules.rng import Rng

SEED = b"\x05" * 32


async def main(url: str, table: str, name: str, command_id: str) -> None:
    storage = await Storage.open(url)
    try:
        rebuilt = await storage.log.rebuild(table)
        state, head = rebuilt.state, rebuilt.head
        await storage.redis.rpush(f"race:{table}:ready", name)
        await storage.redis.blpop([f"race:{table}:go:{name}"], timeout=30)
        attempts = []
        while True:
            seat = acting_seat(state)
            assert seat is not None
            command = legal_actions(state, seat)[0]
            try:
                events = decide(state, command, Rng(SEED, table))
            except RuleViolation as exc:  # cannot happen: the command comes from legal_actions
                attempts.append(f"refused {exc.code}")
                break
            entry = NewEntry(seat, command, tuple(events))
            result = await storage.log.append(table, head, command_id, entry)
            if isinstance(result, Appended):
                attempts.append("appended")
                head = result.head
                break
            if isinstance(result, Duplicate):
                attempts.append("duplicate")
                head = result.entry.head
                break
            assert isinstance(result, Conflict)
            attempts.append("conflict")
            for entry in await storage.log.load(table, head):  # catch up, then decide again
                for e in entry.events:
                    state = evolve(state, e)
                head = entry.head
        print(json.dumps({"name": name, "attempts": attempts, "version": head.version}), flush=True)
    finally:
        await storage.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
