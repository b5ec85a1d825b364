"""A connection's bounded outbox: fan-out only ever queues into it, a writer task drains it.

``put`` never waits.  When a connection falls ``limit`` frames behind (its client reads too
slowly), the queued frames are dropped and the outbox ends with a close (4011, resync): the
client reconnects and resumes, and gets exactly the missing deltas or a fresh view; ``put`` says
so by returning True, for its caller to report.  ``close`` ends the outbox after the frames
already queued (or, with ``drop``, instead of them); its ``Close`` says whether a ``bye`` goes
before the close frame (``announce``: every close the server starts; not the one that answers a
client's own ``bye``, SPEC.md §3.4).  An outbox holds no callback into its session: a session
and its outbox are no reference cycle, so a closed connection is freed by reference counting,
without waiting for a full collection (serve.py, ``collect_fully``).
"""

from __future__ import annotations

import asyncio
from collections import deque

Frame = bytes | str
Close = tuple[int, str, bool]  # (close code, reason, announce with a bye)

RESYNC = 4011


class Outbox:
    """``items``: the frames (and at last the close) waiting, oldest first; empty when the
    connection keeps up."""

    __slots__ = ("_waiter", "closing", "items", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.closing: Close | None = None
        self.items: deque[Frame | Close] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def __len__(self) -> int:
        return len(self.items)

    def put(self, frame: Frame) -> bool:
        """Queue ``frame``; True if it overflowed the outbox (now closing with 4011)."""
        if self.closing is not None:
            return False
        if len(self.items) >= self.limit:
            self.close(RESYNC, "resync: too far behind", drop=True)
            return True
        self._push(frame)
        return False

    def close(self, code: int, reason: str, *, drop: bool = False, announce: bool = True) -> None:
        if self.closing is not None:
            return
        self.closing = (code, reason, announce)
        if drop:
            self.items.clear()
        self._push(self.closing)

    def _push(self, item: Frame | Close) -> None:
        self.items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Frame | Close:
        """The next frame, or the close ``(code, reason, announce)`` that ends the outbox."""
        while not self.items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.items.popleft()
