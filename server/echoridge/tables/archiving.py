"""Finished games archived: their records, and the release of their live keys (issue 27).

When a game ends, the node whose append ended it builds its transcript (tables/transcripts.py)
and archives it with the game's record (``make_record``) in store/archive.py.  A grace period
later (``grace_seconds``, ``--archive-grace``: time to see the end, chat and agree a rematch),
the table's live keys (log, command ids, metadata, secrets, chat, presence) are released: every
``POLL_SECONDS`` the archiver asks the archive's index for the games due and releases each
(``RELEASE`` checks the transcript and the record are kept first; a game whose archive is not
complete, its build lost to an outage, is built now and released at the next poll).  Its sessions
on this node are closed (4004 ``table/archived``), and those on other nodes at their archiver's
next poll (which looks for its finished games released); from then on a ``hello`` for it is refused
with ``table/archived``, and its transcript, verification and record read the archive alone.
With ``keep_seconds`` (``--keep-finished``) archived games older than that are dropped.  Every
node archives; the scripts make one of them do each release.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import Any

from echoridge.logs import get_logger
from echoridge.store.entries import Entry
from echoridge.tables.errors import TableError
from echoridge.tables.polling import Sweep
from echoridge_protocol import messages as m
from echoridge_rules import State, Status
from echoridge_rules.events import TurnBegan

POLL_SECONDS = 5.0
BATCH = 64  # games released (or dropped) per poll, at most
GRACE_SECONDS = 3600  # after the end, before the live keys are released (--archive-grace)
RECORD_FORMAT = "echoridge.record.v1"

log = get_logger("echoridge.tables")


def make_record(
    table: str, meta: Mapping[str, str], final: State, entries: Sequence[Entry]
) -> dict[str, Any]:
    """The record of a finished game: who played (names, bots, roles), the result, when."""
    return {
        "format": RECORD_FORMAT,
        "table": table,
        "mode": final.mode.value,
        "public": meta.get("public") == "1",
        "seats": len(final.players),
        "players": [
            {
                "seat": p.seat,
                "name": p.name,
                "bot": p.bot or None,
                "role": p.role or None,
                "identity": meta.get(f"identity:{p.seat}") or None,
                "absent": bool(p.auto and not p.bot),  # the server played it at the end
            }
            for p in final.players
        ],
        "murderer": final.murderer,
        "accusations": [p.accusation for p in final.players],
        "winners": list(final.winners),
        "created": int(meta.get("created", "0") or 0),
        "started": entries[0].time if entries else 0,
        "ended": entries[-1].time if entries else 0,
        "turns": max(
            (e.number for entry in entries for e in entry.events if isinstance(e, TurnBegan)),
            default=0,
        ),
        "versions": len(entries),
        "rules": final.rules,
        "rate_bots": meta.get("rate_bots") == "1",
        "stopped": final.stopped,
    }


def listed(
    record: Mapping[str, Any], changes: Mapping[str, tuple[int, int]] | None = None
) -> m.GameRecord:
    """A record as the record of games lists it (SPEC 4.8): a one-seat competitive game is
    ``solo``, as in ``tables``; ``changes``: the rated players' ratings before and after it
    (store/ratingstore.py)."""
    changes = changes or {}
    players = record["players"]
    accusations = list(record.get("accusations") or [])
    mode = record["mode"]
    if mode == "competitive" and record["seats"] == 1:
        mode = "solo"
    return m.GameRecord(
        table=record["table"],
        mode=mode,
        public=bool(record.get("public")),
        seats=record["seats"],
        players=tuple(
            m.GamePlayer(
                seat=p["seat"],
                name=p["name"],
                bot=p.get("bot") or None,
                role=p.get("role") or None,
                accusation=accusations[p["seat"]] if p["seat"] < len(accusations) else None,
                identity=p.get("identity") or None,
                absent=True if p.get("absent") else None,
                rating=changes[p["identity"]][1] if p.get("identity") in changes else None,
                rating_change=(
                    changes[p["identity"]][1] - changes[p["identity"]][0]
                    if p.get("identity") in changes
                    else None
                ),
            )
            for p in players
        ),
        murderer=record["murderer"],
        winners=tuple(record.get("winners") or ()),
        created=int(record.get("created") or 0),
        started=int(record.get("started") or 0),
        ended=int(record.get("ended") or 0),
        turns=int(record.get("turns") or 0),
        version=int(record.get("versions") or 0),
        stopped=record["stopped"] if record.get("stopped") in m.STOP_REASONS else None,
    )


class Archiver(Sweep):
    name = "archiver"

    def __init__(
        self,
        node: Any,
        grace_seconds: float = GRACE_SECONDS,
        keep_seconds: float | None = None,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        super().__init__(poll_seconds)
        self.node = node
        self.archive = node.storage.archive
        self.grace_seconds = grace_seconds
        self.keep_seconds = keep_seconds  # None: archived games are kept for good

    def release_at(self, ended_ms: int) -> int:
        """When the live keys of a game that ended at ``ended_ms`` are released (ms)."""
        return ended_ms + int(self.grace_seconds * 1000)

    def start(self) -> None:
        # (a short grace is polled more often: tests and demos)
        self.poll_seconds = min(self.poll_seconds, max(0.2, self.grace_seconds / 2))
        self._begin()

    async def sweep(self) -> tuple[int, int]:
        """Release the games due, drop those past retention: how many of each this node did."""
        now = int(time.time() * 1000)
        released = dropped = 0
        for table in await self.archive.due(now, BATCH):
            await self.node.players.settle(table)  # (rated before, unless an outage missed it)
            outcome = await self.archive.release(table)
            if outcome == "not_archived":
                with contextlib.suppress(TableError):  # (built and archived: released next time)
                    await self.node.transcripts.get(table)
                continue
            await self.node.archived_here(table)
            if outcome == "ok":
                released += 1
                log.info("table archived", table=table)
        # Released by another node: this node's sessions of those games go too.
        over = [t for t, r in self.node.runners.items() if r.state.status is Status.OVER]
        for table in await self.archive.released(over):
            await self.node.archived_here(table)
        if self.keep_seconds is not None:
            for table in await self.archive.older(now - int(self.keep_seconds * 1000), BATCH):
                await self.archive.drop(table)
                await self.node.archived_here(table)
                dropped += 1
                log.info("archived game dropped", table=table)
        return released, dropped
