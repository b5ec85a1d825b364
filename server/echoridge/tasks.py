"""Stopping tasks whatever the libraries they await do with a cancellation."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any], every: float = 1.0) -> None:
    """Cancel ``task`` and wait until it is done, cancelling it again every ``every`` seconds.

    A library may swallow a cancellation: redis-py can complete a command that was cancelled
    while in flight and return normally, so a task that loops on Redis goes on to wait
    elsewhere.  One ``cancel()`` and an ``await`` would then wait forever."""
    while not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait({task}, timeout=every)
    if not task.cancelled():
        with contextlib.suppress(asyncio.CancelledError, Exception):
            task.result()  # retrieved: no "exception was never retrieved" warning
