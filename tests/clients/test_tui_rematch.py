"""The rematch in the terminal client (SPEC.md §4.6): on the result screen of a finished game
a seat presses ``m`` and lands in the waiting room of a new table with the same settings and
its bot in its seat; a spectator of the old table is offered the rematch and ``w`` watches it.
Against a real server; the game is played to its end through the SDK."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from echoridge_terminal import EchoRidgeApp
from echoridge_terminal.game import GameScreen
from echoridge_terminal.result import ResultScreen
from echoridge_terminal.waiting import WaitingScreen
from tests.clients.test_tui import SIZE, play_last_entries, text_of, until
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers()


async def finished_table(url: str) -> tuple[str, str]:
    """A table of Tester and a greedy bot, played to its end: its id and Tester's token."""
    lobby = await Lobby.connect(url)
    try:
        table = (await lobby.create(2, spectator_delay=1)).table
        token = (await lobby.join(table, "Tester")).token
        await lobby.add_bot(table, token, "greedy")
        await lobby.start(table, token)
    finally:
        await lobby.close()
    seat = await Seat.sit(url, table, token)
    try:
        async with asyncio.timeout(90):
            await play_last_entries(seat)
    finally:
        await seat.close()
    return table, token


async def test_m_on_the_result_screen_opens_the_rematch_and_a_spectator_may_watch_it(
    server: ServerProcess,
) -> None:
    old, token = await finished_table(server.url)
    app = EchoRidgeApp(server.url, name="Tester")
    async with asyncio.timeout(60), app.run_test(size=SIZE) as pilot:
        ctx = app.ctx
        seat = await Seat.sit(server.url, old, token)
        ctx.table, ctx.token, ctx.seat, ctx.session = old, token, 0, seat
        await app.switch_screen(GameScreen(seat, read_only=False))
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        result = app.screen
        assert isinstance(result, ResultScreen)
        await until(pilot, lambda: "m: rematch" in text_of(result, "#rematch-line"), "m")
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        new = ctx.table
        assert new is not None and new != old and ctx.session is not seat
        room = app.screen
        await until(pilot, lambda: "Greedy" in text_of(room, "#seat-list"), "the bot seated")
        seats = text_of(room, "#seat-list")
        assert "Tester (you)" in seats and "(normal bot)" in seats  # greedy: the old name of normal

    # A spectator of the old table is told of the rematch, and watches it.
    watcher = EchoRidgeApp(server.url, watch=old)
    async with asyncio.timeout(60), watcher.run_test(size=SIZE) as watching:
        await until(watching, lambda: isinstance(watcher.screen, ResultScreen), "the end")
        seen = watcher.screen
        assert isinstance(seen, ResultScreen)
        await until(watching, lambda: "w to watch" in text_of(seen, "#rematch-line"), "w")
        assert new in text_of(seen, "#rematch-line") and "m: rematch" not in seen.rematch_words()
        await watching.press("w")
        await until(
            watching,
            lambda: isinstance(watcher.screen, GameScreen) and watcher.ctx.table == new,
            "the rematch watched",
        )
        screen = watcher.screen
        assert isinstance(screen, GameScreen) and screen.read_only
        await watching.pause(0.3)
