"""The store's Redis client waits for a free connection instead of failing a call."""

from __future__ import annotations

import asyncio

from echoridge.store.connection import client
from tests.conftest import RedisServer


async def test_more_calls_at_once_than_connections_wait_for_one(redis_server: RedisServer) -> None:
    redis = client(redis_server.url + "?max_connections=4")
    try:
        # 50 calls that each hold a connection for a while: beyond 4 at once they must queue
        # (redis-py's default pool raises "Too many connections" instead).
        results = await asyncio.gather(*(redis.blpop([f"nothing-{i}"], 0.05) for i in range(50)))
        assert results == [None] * 50
        pool = redis.connection_pool
        made = len(pool._available_connections) + len(pool._in_use_connections)
        assert 1 <= made <= 4
    finally:
        await redis.aclose()
