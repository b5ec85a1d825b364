"""The SDK's chat against a real server: seats chat while they play a whole game, a delayed
spectator reads the table's lines, mute hides a sender's lines (those kept and those to come),
and a seat's opt-in to the spectators' chat survives a lost connection."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat, Spectator
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

TIMEOUT = 20.0


def texts(lines: list[m.ChatLine]) -> list[str]:
    return [line.text for line in lines]


async def test_seats_chat_while_playing_and_mute_hides_a_sender(
    servers: Callable[..., ServerProcess],  # noqa: F811
) -> None:
    server = servers("--bot-delay", "0")
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2, spectator_delay=2)).table
    tokens = [(await lobby.join(table, name)).token for name in ("Ana", "Ben")]
    ana = await Seat.sit(server.url, table, tokens[0])
    ben = await Seat.sit(server.url, table, tokens[1])
    fan = await Spectator.watch(server.url, table, name="Fan")
    told: list[str] = []
    ben.on_chat = lambda session, lines: told.extend(texts(lines))
    await lobby.start(table, tokens[0])

    assert (await ana.say("good luck")).outcome == "accepted"
    await ben.wait(lambda: "good luck" in texts(ben.chat), TIMEOUT)
    (line,) = ben.chat
    assert (line.sender, line.name, line.seat) == ("seat:0", "Ana", 0)
    ben.mute("seat:0")
    assert ben.muted == {"seat:0"} and ben.chat == []
    await ana.say("you will not see this")
    assert (await ben.say("you too")).outcome == "accepted"
    await ben.wait(lambda: "you too" in texts(ben.chat), TIMEOUT)
    assert texts(ben.chat) == ["you too"] and told == ["good luck", "you too"]
    ben.unmute("seat:0")
    assert texts(ben.chat) == ["good luck", "you will not see this", "you too"]
    refused = await ana.say("x" * 501)
    assert (refused.outcome, refused.code) == ("rejected", "chat/too_long")

    await asyncio.gather(
        ana.play(RandomPolicy(1), timeout=120), ben.play(RandomPolicy(2), timeout=120)
    )
    await fan.wait(lambda: fan.over and len(fan.chat) == 3, TIMEOUT)  # delayed, then all
    assert texts(fan.chat) == ["good luck", "you will not see this", "you too"]
    for session in (ana, ben, fan):
        await session.close()
    await lobby.close()


async def test_the_spectators_chat_opt_in_survives_a_lost_connection(
    servers: Callable[..., ServerProcess],  # noqa: F811
) -> None:
    server = servers()
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2)).table
    token = (await lobby.join(table, "Ana")).token
    ana = await Seat.sit(server.url, table, token)
    fan = await Spectator.watch(server.url, table, name="Fan")
    assert (await fan.say("before", "spectators")).outcome == "accepted"
    await fan.wait(lambda: texts(fan.chat) == ["before"], TIMEOUT)
    assert ana.chat == []
    assert (await ana.chat_options(True)).outcome == "accepted"
    await ana.wait(lambda: texts(ana.chat) == ["before"], TIMEOUT)
    assert ana.chat[0].name == "Fan" and ana.chat[0].sender.startswith("spectator:")
    assert ana.connection is not None
    ana.connection.ws.transport.abort()  # lost without a close handshake: ana reconnects
    await ana.wait(lambda: ana.reconnects >= 1, TIMEOUT)
    said = await fan.say("after", "spectators")
    assert said.outcome == "accepted"
    await ana.wait(lambda: "after" in texts(ana.chat), TIMEOUT)
    assert texts(ana.chat) == ["before", "after"]  # nothing doubled by the reconnect
    for session in (ana, fan):
        await session.close()
    await lobby.close()
