"""A table's presence on one node: which seats have a session here (since when) and how many
spectators, published to the store (store/presence.py) and merged with the other nodes'; the
merged ``presence`` message goes to every session of the table here whenever it changes.

Sessions coming and going only mark the presence dirty; one task per table publishes and reads
(one round trip, and one more when other nodes have sessions there) at most every
``SETTLE_SECONDS`` after a change, and every ``RENEW_SECONDS`` while the node has sessions there
(renewing its entry and noticing changes made on other nodes).  Fan-out never awaits: frames are
only queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from echoridge.store import StoreError
from echoridge.tables.viewers import Encoded
from echoridge.tasks import cancel_and_wait
from echoridge_protocol import messages as m

if TYPE_CHECKING:
    from collections.abc import Callable

    from echoridge.tables.viewers import Group, Sink

RENEW_SECONDS = 5.0  # (store/presence.py: TTL_SECONDS 15)
SETTLE_SECONDS = 0.05
SPECTATORS = -1


def now_ms() -> int:
    return int(time.time() * 1000)


class TablePresence:
    def __init__(
        self,
        table: str,
        node: str,
        store: object,
        seats: int,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.table, self.node, self.store, self.seats = table, node, store, seats
        self.on_change = on_change  # called when the merged presence changes
        self.since: dict[int, int] = {}  # seat -> connected here since (ms)
        self.gone: dict[int, int] = {}  # seats whose last session here closed -> when
        self.spectators = 0
        self.current: Encoded | None = None  # the presence last sent
        self.groups: dict[int, Group] = {}
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def changed(self, groups: dict[int, Group]) -> None:
        """Sessions came or went: note this node's seats and spectators, and wake the task."""
        self.groups = groups
        t = now_ms()
        here = {key for key, g in groups.items() if key != SPECTATORS and g.sinks}
        for seat in here - self.since.keys():
            self.since[seat] = t
            self.gone.pop(seat, None)
        for seat in self.since.keys() - here:
            del self.since[seat]
            self.gone[seat] = t
        spectators = groups.get(SPECTATORS)
        self.spectators = len(spectators.sinks) if spectators is not None else 0
        self._dirty.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"presence {self.table}"
            )

    def greet(self, sink: Sink) -> None:
        """A new session gets the presence known now (after its welcome)."""
        if self.current is not None:
            sink.deliver(self.current(sink.subprotocol))

    async def close(self) -> None:
        """Stop publishing; forget the task (its CancelledError holds the frames that hold
        this object) and the callback (its runner's: a cycle), so that a closed runner and
        its presence are freed by reference counting."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        self.on_change = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._dirty.wait(), RENEW_SECONDS)
            await asyncio.sleep(SETTLE_SECONDS)
            self._dirty.clear()
            gone, self.gone = self.gone, {}
            try:
                seen = await self.store.sync(  # type: ignore[attr-defined]
                    self.table, self.node, self.seats, dict(self.since), self.spectators, gone
                )
            except StoreError:
                self.gone = {**gone, **self.gone}
                continue
            message = m.Presence(
                table=self.table,
                seats=tuple(
                    m.SeatPresence(seat, connected, since)
                    for seat, (connected, since) in enumerate(seen.seats)
                ),
                spectators=seen.spectators,
            )
            if self.current is None or message != self.current.message:
                self.current = Encoded(message)
                self.current.send(s for group in self.groups.values() for s in group.sinks)
                if self.on_change is not None:
                    self.on_change()
            if not self.since and not self.spectators and not self._dirty.is_set():
                return  # nobody here any more: the entry is gone from the store
