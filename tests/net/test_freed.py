"""What a game leaves behind on a server: nothing the cyclic garbage collector must find.

The server collects its oldest generation only every ``FULL_GC_SECONDS`` (serve.py), so an
object that dies in a reference cycle waits up to 15 minutes, and the memory a busy node frees
that way is not given back to the system (issue 24, item 12: ~150 kB a game).  Here a real
server (a ``GameServer`` and its ``Node`` on the session's redis-server, in this process, so its
objects can be counted) serves real games played by the SDK's bots over websockets on
127.0.0.1, on each event loop ``serve`` runs on, with the collector off: once every connection
has closed and the tables' runners are reaped, none of the server's sessions, connections,
outboxes, runners, presences or chats may be left.  (``bench/soak.py`` measures the memory.)
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import ServerConnection

from echoridge.net.limits import Limits
from echoridge.net.metrics import server_metrics
from echoridge.net.outbox import Outbox
from echoridge.net.server import GameServer
from echoridge.net.session import Session
from echoridge.serve import loop_factory
from echoridge.store import Storage
from echoridge.tables import Node
from echoridge.tables.chat import TableChat
from echoridge.tables.presence import TablePresence
from echoridge.tables.runner import TableRunner
from echoridge.transcript import replay
from echoridge_client.loadbots import BotOptions, run_tables
from tests.conftest import RedisServer

KINDS = (Session, ServerConnection, Outbox, TableRunner, TablePresence, TableChat)


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The cyclic collector off for the test: what dies in a cycle stays to be counted."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


@asynccontextmanager
async def serving(redis_url: str) -> AsyncIterator[tuple[GameServer, int]]:
    """A server on a free port of 127.0.0.1, and the port."""
    storage = await Storage.open(redis_url)
    metrics = server_metrics()
    node = Node(storage, metrics)
    node.bot_delay = 0
    server = GameServer(node, metrics, Limits(commands_per_second=1000))
    port = await server.start("127.0.0.1", 0)
    try:
        yield server, port
    finally:
        await server.stop()
        await node.close()
        await storage.close()


async def http_get(port: int, path: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


def left(kinds: tuple[type, ...] = KINDS) -> list[str]:
    """The server objects of ``kinds`` that are still alive (by type name)."""
    return sorted(t.__name__ for t in map(type, gc.get_objects()) if issubclass(t, kinds))


async def settled(server: GameServer) -> None:
    """Until every connection the server had is over: its session ended, websockets' handler
    returned, and the TCP connection lost (bounded: 10 s)."""
    websockets_server = server._server
    assert websockets_server is not None
    async with asyncio.timeout(10):
        while (
            server.sessions
            or server.node.seat_sessions
            or websockets_server.handler_tasks
            or any(
                not c.connection_lost_waiter.done()
                for c in gc.get_objects()
                if issubclass(type(c), ServerConnection)  # (not isinstance: weak proxies)
            )
        ):
            await asyncio.sleep(0.01)


async def play_and_count(redis_url: str) -> list[str]:
    """Two tables played to the end (a lobby, 2 seats and a spectator each, the transcripts
    fetched and checked) and a scrape of /metrics; then the runners reaped: what is left."""
    async with serving(redis_url) as (server, port):
        url = f"ws://127.0.0.1:{port}/ws"
        options = BotOptions(url, tables=2, players=2, spectators=1, rate=0, seed=24, replay=replay)
        report, runs = await run_tables(options)
        assert report["finished"] == report["verified"] == 2, report
        assert (await http_get(port, "/metrics")).startswith(b"HTTP/1.1 200")
        await settled(server)
        node = server.node
        assert set(node.runners) == {run.table for run in runs}
        for table in list(node.runners):
            await node._reap(table)  # (what the idle timer does, IDLE_RUNNER_SECONDS later)
        assert not node.runners
        return left()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_played_game_leaves_nothing_for_the_collector(
    redis_server: RedisServer, no_collector: None, loop: str
) -> None:
    if loop == "uvloop":
        pytest.importorskip("uvloop")
    with asyncio.Runner(loop_factory=loop_factory(loop)) as runner:
        assert runner.run(play_and_count(redis_server.url)) == []
