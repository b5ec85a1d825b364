"""The terminal client's lobby lists the public tables newest first, a page at a time: F6 (or
"More tables") shows the next page.  A server on a Redis of its own, so the listing holds only
this test's tables."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Button, DataTable

from echoridge_client.lobby import Lobby
from echoridge_terminal import EchoRidgeApp
from echoridge_terminal.screens import LobbyScreen
from tests.clients.test_tui import SIZE, click, until
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server

TABLES = 53  # a page of 50 (the server's page size), and 3 more


@pytest.fixture
def lone_server(
    start_redis: Callable[..., RedisServer], tmp_path: Path
) -> Iterator[ServerProcess]:
    server = start_server(start_redis().url, tmp_path / "server.log")
    yield server
    server.stop()


async def test_the_lobby_shows_the_newest_tables_first_and_more_with_f6(
    lone_server: ServerProcess,
) -> None:
    lobby = await Lobby.connect(lone_server.url)
    try:
        made = [(await lobby.create(2)).table for _ in range(TABLES)]
    finally:
        await lobby.close()
    app = EchoRidgeApp(lone_server.url, name="Tester")
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen)
            and app.screen.query_one("#tables", DataTable).row_count == 50,
            "the first page",
        )
        screen = app.screen
        widget = screen.query_one("#tables", DataTable)
        rows = [str(widget.coordinate_to_cell_key((i, 0)).row_key.value) for i in range(50)]
        assert rows == made[::-1][:50]  # newest first
        more = screen.query_one("#more", Button)
        assert not more.disabled
        await pilot.press("f6")
        await until(pilot, lambda: widget.row_count == TABLES, "the second page")
        rows = [str(widget.coordinate_to_cell_key((i, 0)).row_key.value) for i in range(TABLES)]
        assert rows == made[::-1]
        assert more.disabled


async def test_a_table_rated_with_its_bots_is_made_from_the_create_form(
    lone_server: ServerProcess,
) -> None:
    from textual.widgets import Checkbox

    from echoridge_terminal.waiting import WaitingScreen

    app = EchoRidgeApp(lone_server.url, name="Rater")
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen) and app.ctx.lobby is not None,
            "the lobby connects",
        )
        await click(pilot, "#rate-bots")
        assert app.screen.query_one("#rate-bots", Checkbox).value is True
        await click(pilot, "#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        table = app.ctx.table
    check = await Lobby.connect(lone_server.url)
    try:
        info = await check.table(table)  # type: ignore[arg-type]
        assert info is not None and info.rate_bots is True
    finally:
        await check.close()
