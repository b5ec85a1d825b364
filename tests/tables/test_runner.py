"""Fan-out never waits for a connection: a stuck viewer is told to resync, the others get every
delta, and commands go on."""

from __future__ import annotations

import gc
import random
import weakref
from typing import Any

from echoridge.net.outbox import RESYNC, Outbox
from echoridge.tables import SPECTATORS, Node, Settings
from echoridge.tables.tokens import token_hash
from echoridge_protocol import codec
from echoridge_protocol import messages as m

SUB = m.SUBPROTOCOL_MSGPACK


class Viewer:
    """A connection as the runner sees it, with a real bounded outbox nobody drains."""

    subprotocol = SUB

    def __init__(self, limit: int) -> None:
        self.outbox = Outbox(limit)

    def deliver(self, frame: bytes | str) -> None:
        self.outbox.put(frame)

    def close(self, code: int, reason: str, *, drop: bool = False) -> None:
        self.outbox.close(code, reason, drop=drop)


def welcome(
    epoch: int, version: int, view: dict[str, Any] | None, resumed: bool, log: Any = None
) -> m.Welcome:
    return m.Welcome(
        protocol=m.PROTOCOL,
        server="test",
        features=(),
        limits=m.Limits(1, 1, 1, 1),
        session="seat",
        resumed=resumed,
        epoch=epoch,
        version=version,
        view=view,
        log=log,
    )


async def test_a_stuck_viewer_never_holds_the_table_back(node: Node) -> None:
    table, _, _ = await node.create(Settings(1, True, True, 0))
    _, token = await node.lobby.join(table, "solo", b"\x01" * 16)
    await node.start(table, token)
    runner = await node.runner(table)
    stuck, reader, watcher = Viewer(limit=5), Viewer(limit=10_000), Viewer(limit=10_000)
    await runner.attach(stuck, 0, None, welcome, token_hash(token))
    await runner.attach(reader, 0, None, welcome, token_hash(token))
    await runner.attach(watcher, SPECTATORS, None, welcome)
    rng = random.Random(5)
    for _ in range(40):
        view = runner.groups[0].view
        legal = view["you"]["legal"]
        if not legal:
            break
        outcome = await runner.submit(0, f"c{runner.version}", runner.version, rng.choice(legal))
        assert outcome.outcome == "accepted"
    assert runner.version > 10
    # the stuck viewer was cut off with a resync, its backlog dropped
    assert stuck.outbox.closing == (RESYNC, "resync: too far behind", True)
    assert len(stuck.outbox) == 1
    # the others got the welcome and then one delta per version, in order
    for viewer in (reader, watcher):
        frames = []
        while len(viewer.outbox):
            frames.append(codec.decode_server(await viewer.outbox.get(), SUB))  # type: ignore[arg-type]
        assert isinstance(frames[0], m.Welcome)
        versions = [f.version for f in frames[1:] if isinstance(f, m.Delta)]
        assert versions == list(range(frames[0].version + 1, runner.version + 1))  # type: ignore[operator]


async def test_a_reaped_runner_lets_go_of_its_states_without_the_collector(node: Node) -> None:
    """A runner is a cycle, so once reaped it waits for a full collection, which serve.py's
    thresholds make rare: close() drops its history and views by reference count at once."""
    table, _, _ = await node.create(Settings(1, True, True, 0))
    _, token = await node.lobby.join(table, "solo", b"\x01" * 16)
    await node.start(table, token)
    runner = await node.runner(table)
    viewer = Viewer(limit=10_000)
    await runner.attach(viewer, 0, None, welcome, token_hash(token))
    rng = random.Random(3)
    for _ in range(10):
        legal = runner.groups[0].view["you"]["legal"]
        if not legal:
            break
        await runner.submit(0, f"c{runner.version}", runner.version, rng.choice(legal))
    assert runner.version > 5
    runner.detach(viewer)
    old = [weakref.ref(state) for _, state in list(runner.history)[:-1]]
    gc.disable()
    try:
        await node._reap(table)
        assert runner.closed and not runner.history and not runner.groups
        assert [r for r in old if r() is not None] == []
    finally:
        gc.enable()
