"""Fixtures of the table tests: one Node on the session's redis-server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from echoridge.store import Storage
from echoridge.tables import Node
from tests.conftest import RedisServer


@pytest.fixture
async def node(redis_server: RedisServer) -> AsyncIterator[Node]:
    storage = await Storage.open(redis_server.url)
    node = Node(storage)
    yield node
    await node.close()
    await storage.close()
