"""Two nodes that both fire the same clock apply it once: the command id of a server move
(tables/servermoves.py) makes the second append a duplicate, whichever node gets there first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from echoridge.store import Storage
from echoridge.tables import Node, Settings
from echoridge.tables.clocks import ClockSettings
from echoridge_protocol import messages as m
from tests.conftest import RedisServer

CLOCK = ClockSettings("custom", turn=600, bank=0, decision=600, grace=600, strikes=0)


@pytest.fixture
async def nodes(redis_server: RedisServer) -> AsyncIterator[tuple[Node, Node]]:
    made = []
    for _ in range(2):
        storage = await Storage.open(redis_server.url)
        made.append((Node(storage), storage))
    yield made[0][0], made[1][0]
    for node, storage in made:
        await node.close()
        await storage.close()


async def started(node: Node) -> str:
    table, _, _ = await node.create(Settings(2, True, True, 0, CLOCK))
    _, token = await node.lobby.join(table, "a", b"\x01" * 16)
    await node.lobby.join(table, "b", b"\x02" * 16)
    await node.start(table, token)
    return table


@pytest.mark.parametrize("kind", ["turn", "handover"])
async def test_the_same_timeout_from_two_nodes_is_applied_once(
    nodes: tuple[Node, Node], kind: str
) -> None:
    a, b = nodes
    table = await started(a)
    ra, rb = await a.runner(table), await b.runner(table)
    assert ra.version == rb.version == 1
    seat = ra.state.turn.seat if kind == "turn" else 1 - ra.state.turn.seat
    clock = m.RunningClock(kind, seat, 0)  # type: ignore[arg-type]
    first, second = await asyncio.gather(ra._time_out(clock), rb._time_out(clock))
    outcomes = sorted(o.outcome for o in (first, second) if o is not None)
    # the second is a duplicate (same command id), or stale if it decided after the first
    assert outcomes[0] == "accepted" and outcomes[1] in ("duplicate", "stale"), outcomes
    entries = await a.storage.log.load(table)
    kinds = [type(e.command).__name__ for e in entries]
    assert kinds.count("TimeOut" if kind == "turn" else "HandOver") == 1
    # once both have caught up, a late third firing is a duplicate too
    async with asyncio.timeout(5):
        while rb.version != ra.version:
            await asyncio.sleep(0.01)
    again = await rb._time_out(clock)
    assert again is not None and again.outcome in ("duplicate", "rejected")
