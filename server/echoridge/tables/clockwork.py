"""Clocks that run out where nobody is: the node's side of the clock index.

Runners note their table's earliest deadline (``note``, which never awaits); one task writes the
notes to the store's index in batches (store/clockindex.py) and, every ``POLL_SECONDS``, asks it
for tables whose deadline has passed.  A due table that this node does not run is opened: its
runner rebuilds the clocks from the log (tables/clocks.py) and its timer fires at once.  Every
node does this; a second node's timeout is a duplicate (servermoves.py), so it is applied once.
An idle runner opened this way closes like any other (node.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from echoridge.logs import get_logger
from echoridge.store import StoreError
from echoridge.tables.errors import TableError
from echoridge.tables.polling import Sweep

POLL_SECONDS = 1.0
BATCH_SECONDS = 0.1  # notes gathered before one write to the index

log = get_logger("echoridge.tables")


class Clockwork(Sweep):
    """A sweep that also wakes for the runners' notes (``_run``)."""

    name = "clockwork"

    def __init__(self, node: Any, poll_seconds: float = POLL_SECONDS) -> None:
        super().__init__(poll_seconds)
        self.node = node
        self.index = node.storage.clocks
        self.notes: dict[str, int | None] = {}
        self._wake = asyncio.Event()

    def note(self, table: str, at: int | None) -> None:
        """``table``'s earliest deadline is now ``at`` (ms; None: no clock runs there)."""
        self.notes[table] = at
        self._wake.set()

    def start(self) -> None:
        self._begin()

    async def close(self) -> None:
        await super().close()
        with contextlib.suppress(StoreError):
            await self._flush()

    async def _flush(self) -> None:
        notes, self.notes = self.notes, {}
        try:
            await self.index.update(notes)
        except StoreError:
            self.notes = {**notes, **self.notes}
            raise

    async def _run(self) -> None:
        next_poll = 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.05, next_poll - time.monotonic()))
            self._wake.clear()
            try:
                if self.notes:
                    await asyncio.sleep(BATCH_SECONDS)  # gather the notes of many tables
                    await self._flush()
                if time.monotonic() >= next_poll:
                    next_poll = time.monotonic() + self.poll_seconds
                    await self._open_due()
            except StoreError:
                next_poll = time.monotonic() + self.poll_seconds
                await asyncio.sleep(self.poll_seconds)

    async def _open_due(self) -> None:
        for table in await self.index.due(int(time.time() * 1000)):
            runner = self.node.runners.get(table)
            if runner is not None and not runner.closed:
                continue  # its own timer is armed
            try:
                await self.node.runner(table)
            except TableError as exc:  # gone or damaged: nothing will run there
                log.info("clock index entry dropped", table=table, code=exc.code)
                await self.index.forget(table)
            except StoreError:
                raise
