"""serve.py's upkeep: the periodic full collection."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from typing import Any

from echoridge.serve import collect_fully


async def test_collect_fully_runs_full_collections() -> None:
    generations: list[int] = []
    three = asyncio.Event()

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            generations.append(info["generation"])
            if generations.count(2) >= 3:
                three.set()

    gc.callbacks.append(callback)
    task = asyncio.create_task(collect_fully(every=0.01))
    try:
        async with asyncio.timeout(30):
            await three.wait()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        gc.callbacks.remove(callback)
    assert generations.count(2) >= 3
