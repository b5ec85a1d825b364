"""A connection's bounded outbox: fan-out only ever queues into it, a writer task drains it.

``put`` never waits.  When a connection falls ``limit`` frames behind (its client reads too
slowly), the queued frames are dropped and the outbox ends with a close (4011, resync): the
client reconnects and resumes, and gets exactly the missing deltas or a fresh view.  ``close``
ends the outbox after the frames already queued (or, with ``drop``, instead of them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

Frame = bytes | str
Close = tuple[int, str]

RESYNC = 4011


class Outbox:
    def __init__(self, limit: int, on_overflow: Callable[[], None] | None = None) -> None:
        self.limit = limit
        self.on_overflow = on_overflow
        self.closing: Close | None = None
        self._queue: asyncio.Queue[Frame | Close] = asyncio.Queue()

    def __len__(self) -> int:
        return self._queue.qsize()

    def put(self, frame: Frame) -> None:
        if self.closing is not None:
            return
        if self._queue.qsize() >= self.limit:
            if self.on_overflow is not None:
                self.on_overflow()
            self.close(RESYNC, "resync: too far behind", drop=True)
            return
        self._queue.put_nowait(frame)

    def close(self, code: int, reason: str, *, drop: bool = False) -> None:
        if self.closing is not None:
            return
        self.closing = (code, reason)
        if drop:
            while not self._queue.empty():
                self._queue.get_nowait()
        self._queue.put_nowait((code, reason))

    async def get(self) -> Frame | Close:
        """The next frame, or the close ``(code, reason)`` that ends the outbox."""
        return await self._queue.get()
