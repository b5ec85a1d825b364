"""A node's background sweep: a task that calls ``sweep()`` every ``poll_seconds`` until closed
(a Redis outage is retried at the next poll).  The expiry of unstarted tables (expiry.py) and
the archive's releases (archiving.py) are sweeps; the clocks' index (clockwork.py) is one that
also wakes for its runners' notes (its own ``_run``)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from echoridge.store import StoreError


class Sweep:
    name = "sweep"

    def __init__(self, poll_seconds: float) -> None:
        self.poll_seconds = poll_seconds
        self._task: asyncio.Task[None] | None = None

    def _begin(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(StoreError):
                await self.sweep()
            await asyncio.sleep(self.poll_seconds)

    async def sweep(self) -> Any:
        raise NotImplementedError
