"""Two server processes on one Redis serve one table; one is killed with SIGKILL mid-game, its
players reconnect to the other and resume, and the game ends with a transcript that verifies."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from echoridge.transcript import replay
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.e2e.players import play_seat
from tests.net.wsclient import Client, FrameLog, Mirror, WsClientError


async def seat_with_failover(
    urls: list[str],
    table: str,
    token: str,
    rng: random.Random,
    log: FrameLog,
    result_log: list[dict[str, object]],
) -> dict[str, int]:
    """Play a seat; when its server goes away, reconnect to the next one and resume."""
    mirror: Mirror | None = None
    results: list[dict[str, object]] = result_log
    reconnects = 0
    turn = 0
    while True:
        url = urls[turn % len(urls)]
        try:
            async with Client.connect(url, mirror=mirror, record=log) as client:
                await client.hello(table=table, token=token, resume=mirror is not None or None)
                mirror = client.mirror
                counts = await play_seat(client, rng, timeout=120)
                assert mirror is not None
                results.append(mirror.view["result"])
                return {**counts, "reconnects": reconnects}
        except (ConnectionClosed, OSError, InvalidHandshake, WsClientError, TimeoutError):
            reconnects += 1
            turn += 1
            await asyncio.sleep(0.05)
            if reconnects > 20:
                raise


async def test_one_table_on_two_nodes_survives_a_killed_node(
    servers: Callable[..., ServerProcess],
) -> None:
    a, b = servers(), servers()
    async with Client.connect(a.url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(4, public=True, spectators=True)).table
        tokens = [(await lobby.join(table, f"p{i}")).token for i in range(4)]
        await lobby.start(table, tokens[0])
    logs = [FrameLog() for _ in range(4)]
    seen_results: list[dict[str, object]] = []
    # seats 0 and 1 start on A (and fail over to B), seats 2 and 3 play on B
    plans = [[a.url, b.url], [a.url, b.url], [b.url], [b.url]]
    async with Client.connect(b.url) as watcher:
        await watcher.hello(table=table, spectate=True)
        players = [
            asyncio.create_task(
                seat_with_failover(
                    plans[i], table, tokens[i], random.Random(10 + i), logs[i], seen_results
                )
            )
            for i in range(4)
        ]
        assert watcher.mirror is not None
        await watcher.until_version(25, timeout=60)
        a.kill()
        results = await asyncio.wait_for(asyncio.gather(*players), 180)
        assert sum(r["reconnects"] for r in results[:2]) >= 2  # both of A's players moved
        assert all(r["reconnects"] == 0 for r in results[2:])
        assert all(r["rejected"] == 0 for r in results)
        while watcher.mirror.status != "over":
            await watcher.recv(30)
        final = watcher.mirror.version

    async with Client.connect(b.url) as lobby:
        await lobby.hello()
        reply = await lobby.request(m.GetTranscript(id="tr", table=table))
        assert isinstance(reply, m.Transcript)
    transcript = dict(reply.transcript)
    assert len(transcript["entries"]) == final
    report = replay(transcript)
    assert report.ok, report.problem
    # every seat's mirror, carried across the failover by resume, ends on the engine's result
    assert len(seen_results) == 4
    assert all(r == transcript["final"]["result"] for r in seen_results)
    assert all(len(log) > 0 for log in logs)
