"""A finished table's rematch on one node: telling its sessions (SPEC.md §4.6).

``rematch`` (tables/lobby.py, ``Lobby.rematch``) keeps the new table's id in the old table's
metadata (``rematch``).  The node that made it tells its sessions of the old table at once
(``Node.rematch``: ``known``); the other nodes serving that table notice it in their runner's
metadata within ``CHECK_SECONDS`` (one HGET per finished table with sessions here, until it is
known or ``CHECK_FOR_SECONDS`` have passed), and a session that opens later gets the
``rematch`` message right after its welcome (``greet``).  Fan-out never awaits: one message,
encoded once per subprotocol, is queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from echoridge.store import StoreError
from echoridge.tables.viewers import Encoded
from echoridge.tasks import cancel_and_wait
from echoridge_protocol import messages as m

if TYPE_CHECKING:
    from echoridge.store.directory import Directory
    from echoridge.tables.viewers import Sink

CHECK_SECONDS = 1.0  # how often another node's rematch is looked for in the metadata
CHECK_FOR_SECONDS = 6 * 3600.0  # and for how long after the game ended here


def _nobody() -> tuple[Sink, ...]:
    return ()


class TableRematch:
    def __init__(self, table: str, directory: Directory, sinks: Callable[[], Iterable[Sink]]):
        self.table = table
        self.directory = directory
        self.sinks = sinks  # every session of the table on this node
        self.current: Encoded | None = None  # the rematch, once known
        self._task: asyncio.Task[None] | None = None

    def known(self, next_table: str) -> None:
        """The rematch is ``next_table``: tell every session here (once)."""
        if self.current is not None:
            return
        self.current = Encoded(m.Rematch(table=self.table, next=next_table))
        self.current.send(self.sinks())

    def greet(self, sink: Sink) -> None:
        """A session opened here: tell it the rematch if there is one."""
        if self.current is not None:
            sink.deliver(self.current(sink.subprotocol))

    def over(self, meta: dict[str, str]) -> None:
        """The game is over: take the rematch from ``meta``, or look for it until it is made."""
        if "rematch" in meta:
            self.known(meta["rematch"])
        elif self.current is None and self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._watch(), name=f"rematch {self.table}"
            )

    async def _watch(self) -> None:
        until = time.monotonic() + CHECK_FOR_SECONDS
        while self.current is None and time.monotonic() < until:
            await asyncio.sleep(CHECK_SECONDS)
            if not any(True for _ in self.sinks()):
                continue
            with contextlib.suppress(StoreError):
                found = await self.directory.field(self.table, "rematch")
                if found is not None:
                    self.known(found)
        self._task = None

    async def close(self) -> None:
        """Stop looking; forget the task (its CancelledError holds the frames that hold this
        object) and the runner's ``sinks`` (a cycle), so a closed runner is freed by reference
        counting (tests/net/test_freed.py)."""
        if self._task is not None:
            task, self._task = self._task, None
            await cancel_and_wait(task)
        self.sinks = _nobody
