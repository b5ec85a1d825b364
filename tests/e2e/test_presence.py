"""Presence across nodes: seats and spectators on two servers of one Redis see who is connected
and since when, and see a seat go away, whichever node its session was on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.net.wsclient import Client


async def until_presence(
    client: Client, wanted: Callable[[m.Presence], bool], timeout: float = 10.0
) -> m.Presence:
    """Read (and keep) messages until the latest presence satisfies ``wanted``."""
    deadline = time.monotonic() + timeout
    while client.presence is None or not wanted(client.presence):
        left = deadline - time.monotonic()
        assert left > 0, f"presence never became as wanted: {client.presence}"
        try:  # _read keeps presence messages and returns the others (kept for later)
            client._pending.append(await asyncio.wait_for(client._read(), min(left, 0.1)))
        except TimeoutError:
            continue
    return client.presence


def connected(p: m.Presence) -> list[bool]:
    return [s.connected for s in p.seats]


async def test_presence_follows_seats_and_spectators_on_two_nodes(
    servers: Callable[..., ServerProcess],
) -> None:
    a, b = servers(), servers()
    began = int(time.time() * 1000)
    async with Client.connect(a.url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(2, public=True, spectators=True)).table
        tokens = [(await lobby.join(table, name)).token for name in ("Ana", "Ben")]
        await lobby.start(table, tokens[0])
    async with (
        Client.connect(a.url) as ana,
        Client.connect(a.url) as watcher,
    ):
        await ana.hello(table=table, token=tokens[0])
        await watcher.hello(table=table, spectate=True)
        first = await until_presence(ana, lambda p: connected(p) == [True, False])
        assert first.table == table and len(first.seats) == 2
        assert first.seats[0].since >= began and first.seats[1].since == 0  # Ben never came
        async with Client.connect(b.url) as ben:  # on the other node
            await ben.hello(table=table, token=tokens[1])
            both = await until_presence(
                watcher, lambda p: connected(p) == [True, True] and p.spectators == 1
            )
            assert both.seats[0].since == first.seats[0].since
            await until_presence(ben, lambda p: connected(p) == [True, True])
            left = int(time.time() * 1000)
        gone = await until_presence(
            ana, lambda p: connected(p) == [True, False] and p.seats[1].since > 0
        )
        assert gone.seats[1].since >= left  # away since Ben's session closed
        assert gone.spectators == 1
