"""The SDK's ``Seat.act`` (and so ``play``) sends a command refused for the connection's rate
(``protocol/rate_limited``: it had no effect) again after the server's ``retry_in``, with the same
id, instead of giving it up: a solo game played as fast as the SDK can goes to its end on a
server that allows 2 commands a second."""

from __future__ import annotations

import pytest

from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy
from echoridge_client.session import Seat
from tests.e2e.conftest import ServerProcess

pytestmark = pytest.mark.timeout(300)


async def test_a_seat_playing_faster_than_the_rate_waits_and_finishes(servers) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = servers("--commands-per-second", "2")
    lobby = await Lobby.connect(server.url)
    try:
        table = (await lobby.create(1, mode="solo")).table
        token = (await lobby.join(table, "Solo")).token
        seat = await Seat.sit(server.url, table, token)
        try:
            await lobby.start(table, token)
            await seat.play(GreedyPolicy(b"rate"), timeout=240)
            assert seat.over
            assert seat.retries > 0  # the bucket ran dry, and nothing was given up
        finally:
            await seat.close()
    finally:
        await lobby.close()
