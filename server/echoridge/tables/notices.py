"""Play by notification: tell a webhook when a seat whose player is away is to move.

With ``--notify-url`` the server POSTs (notify.py: signed, retried, never blocking a table):

- ``to_move``: seat S of table T is to move (its turn, or a decision it owes), with the
  ``deadline`` of that clock if one runs (ms since the Unix epoch; absent on a table whose
  turns have no clock);
- ``reminder``: that deadline is one hour away (sent only for clocks longer than an hour).

Only for seats whose player is not connected (presence), never for seats the server plays.  Each
notice is sent once, whichever node notices it first: its id is claimed in Redis (SET NX, the
table's hash tag) before it is submitted.  A notice that cannot be claimed (Redis away) is
dropped: notices are a courtesy, the clocks are the rule.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from echoridge.logs import get_logger
from echoridge.store.connection import Redis, redis_errors
from echoridge.store.errors import StoreError

REMINDER_MS = 3600 * 1000  # "reminder: D is in 1 h"
KEEP_SECONDS = 8 * 86400  # how long a sent notice's id is remembered

log = get_logger("echoridge.tables")


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice: ``kind`` (to_move, reminder) of ``seat`` at ``table``; ``key`` names what it
    is about (``turnN``: a turn, ``vN``: a version's decision), so it is sent once."""

    kind: str
    table: str
    key: str
    seat: int
    name: str
    deadline: int | None
    version: int


class Notices:
    def __init__(self, redis: Redis, notifier: Any) -> None:
        self.redis = redis
        self.notifier = notifier
        self._tasks: set[asyncio.Task[None]] = set()

    def send(self, notice: Notice) -> None:
        """Send ``notice`` once per its ``key`` (what it is about: a turn or a version); never
        awaits."""
        task = asyncio.get_running_loop().create_task(self._send(notice))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, n: Notice) -> None:
        with contextlib.suppress(StoreError):
            async with redis_errors("claiming a notice"):
                claimed = await self.redis.set(
                    f"er:{{{n.table}}}:notice:{n.key}:{n.seat}:{n.kind}", "1",
                    nx=True, ex=KEEP_SECONDS,
                )  # fmt: skip
            if not claimed:
                return  # another node sent it
            event: dict[str, Any] = {
                "id": f"{n.table}:{n.key}:{n.seat}:{n.kind}",
                "type": n.kind,
                "table": n.table,
                "seat": n.seat,
                "name": n.name,
                "version": n.version,
            }
            if n.deadline is not None:
                event["deadline"] = n.deadline
            if not self.notifier.submit(event):
                log.info("notice dropped", table=n.table, seat=n.seat, kind=n.kind)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
