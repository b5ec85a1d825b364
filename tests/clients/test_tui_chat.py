"""The terminal client's chat panel, headless against a real server: a spectator watching in
the terminal reads a seat's line (console markup in it shown as typed), says a line of its own
on the spectators' chat, and is told when a line is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.widgets import Input

from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from echoridge_terminal import EchoRidgeApp
from echoridge_terminal.chatpanel import ChatPanel
from echoridge_terminal.game import GameScreen
from tests.clients.test_tui import SIZE, until
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401


async def test_a_spectator_chats_in_the_terminal(
    servers: Callable[..., ServerProcess],  # noqa: F811
) -> None:
    server = servers()
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2)).table
    tokens = [(await lobby.join(table, name)).token for name in ("Ana", "Ben")]
    await lobby.start(table, tokens[0])
    ana = await Seat.sit(server.url, table, tokens[0])
    app = EchoRidgeApp(server.url, watch=table)
    async with asyncio.timeout(60), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        panel: Any = app.screen.query_one(ChatPanel)
        assert (await ana.say("[bold red]hi[/] <b>all</b>")).outcome == "accepted"
        await until(pilot, lambda: any("Ana: [bold red]hi[/] <b>all</b>" in t for t in panel.lines),
                    "the seat's line, as typed")  # fmt: skip
        field = app.screen.query_one("#chat-input", Input)
        field.focus()
        field.value = "go Ana"
        await pilot.press("enter")
        await until(pilot, lambda: any("Spectator: go Ana" in t for t in panel.lines), "own line")
        assert field.value == ""
        field.value = "\u202eevil"
        await pilot.press("enter")
        await until(pilot, lambda: any("plain text only" in t for t in panel.lines), "refusal")
    await ana.close()
    await lobby.close()
