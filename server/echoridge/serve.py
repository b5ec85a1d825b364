"""``echo-ridge serve``: bring up storage (the embedded Redis, or REDIS_URL) and run until told
to stop.  The websocket game server is built on this in a later step."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys

from echoridge.store import Storage, StoreError
from echoridge.store.embedded import EmbeddedRedis


async def serve(redis_url: str | None, data_dir: str, check: bool) -> int:
    embedded = None
    if not redis_url:
        embedded = EmbeddedRedis(data_dir)
        redis_url = embedded.start()
        where = f"embedded Redis on {embedded.data_dir}"
    else:
        where = "Redis at REDIS_URL"
    try:
        storage = await Storage.open(redis_url, check=check)
        try:
            tables = await storage.directory.reindex()
            print(
                f"echo-ridge: storage ready ({where}, {tables} open tables). The websocket game "
                "server is not built yet. Ctrl-C stops.",
                file=sys.stderr,
                flush=True,
            )
            await _until_stopped()
        finally:
            await storage.close()
    finally:
        if embedded is not None:
            embedded.stop()
    print("echo-ridge: stopped", file=sys.stderr)
    return 0


async def _until_stopped() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()


def main(redis_url: str | None, data_dir: str, check: bool) -> int:
    try:
        return asyncio.run(serve(redis_url, data_dir, check))
    except StoreError as exc:
        print(f"echo-ridge: {exc}", file=sys.stderr)
        return 1
