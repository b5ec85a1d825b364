"""Readiness and draining, on real servers: ``/readyz`` is 200 while Redis answers and 503 once
it does not (``/healthz`` stays 200: the process lives); on SIGTERM a server stops listening,
closes every session with 1012, and its players' SDK sessions reconnect at once to the next
server and play on (SPEC.md §7.2)."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable

from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, http_get, start_server, started_game


async def paced(seat: Seat, policy: RandomPolicy) -> None:
    """Play to the end, a command every 50 ms at most (so the game outlasts the drain)."""
    while not seat.over:
        version, legal = seat.version, seat.legal
        if legal:
            await seat.act(policy.choose(seat.view, legal))
            await asyncio.sleep(0.05)
        else:
            await seat.wait(lambda v=version: seat.version != v or seat.over)  # type: ignore[misc]


async def test_ready_while_redis_answers(
    start_redis: Callable[..., RedisServer], tmp_path: object
) -> None:
    redis = start_redis()
    server = start_server(redis.url, tmp_path / "server.log")  # type: ignore[operator]
    try:
        assert await http_get(server, "/readyz") == (200, "ready\n")
        redis.freeze()  # (a Redis that does not answer; the ping gives up after 1 s)
        try:
            assert await http_get(server, "/readyz") == (503, "no redis\n")
            assert await http_get(server, "/healthz") == (200, "ok\n")
        finally:
            redis.thaw()
        assert await http_get(server, "/readyz") == (200, "ready\n")
    finally:
        server.stop()


async def test_sigterm_drains_and_the_players_move_to_the_other_server(
    servers: Callable[..., ServerProcess],
) -> None:
    a, b = servers("--bot-delay", "0"), servers("--bot-delay", "0")
    table, tokens = await started_game(a.url, 2)
    seats = [Seat([a.url, b.url], table, token=t) for t in tokens]
    for seat in seats:
        await seat.start()
    closes: list[int | None] = []
    try:
        plays = [asyncio.create_task(paced(s, RandomPolicy(bytes([i]))))
                 for i, s in enumerate(seats)]  # fmt: skip
        await asyncio.sleep(1.0)
        first = [s.connection for s in seats]
        a.process.send_signal(signal.SIGTERM)
        began = time.monotonic()
        async with asyncio.timeout(15):
            while any(s.connection in (c, None) for s, c in zip(seats, first, strict=True)):
                await asyncio.sleep(0.02)
        moved = time.monotonic() - began
        closes = [c.close_code if c is not None else None for c in first]
        async with asyncio.timeout(120):
            await asyncio.gather(*plays)
        assert all(s.view["status"] == "over" for s in seats)
        assert all(s.reconnects >= 1 for s in seats)
    finally:
        for seat in seats:
            await seat.close()
    assert closes == [1012, 1012]
    assert moved < 5  # (at once: no backoff of seconds; the drain itself takes a moment)
    assert a.process.wait(30) == 0
    assert '"drained"' in a.output() and "echo-ridge: stopped" in a.output()
