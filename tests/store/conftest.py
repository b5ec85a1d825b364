"""Store fixtures: a Storage on the session's redis-server, fresh table ids."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from echoridge.store import Storage
from tests.conftest import RedisServer


@pytest.fixture
async def storage(redis_server: RedisServer) -> AsyncIterator[Storage]:
    s = await Storage.open(redis_server.url)
    yield s
    await s.close()


@pytest.fixture
def table_id() -> str:
    return "t" + uuid.uuid4().hex[:12]


async def make_table(storage: Storage, table: str, public: bool = False) -> str:
    await storage.directory.create(
        table, {"status": "open", "public": "1" if public else "0"}, {"seed": b"\x00" * 32}
    )
    return table
