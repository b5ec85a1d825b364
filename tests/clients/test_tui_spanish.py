"""The terminal client in Spanish (``--lang es``) against a real server: the lobby, the
waiting room with a bot and a game begun, worded in Spanish, with SVG screenshots saved in
``screenshots/``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from echoridge_terminal import EchoRidgeApp
from echoridge_terminal.game import GameScreen
from echoridge_terminal.screens import LobbyScreen
from echoridge_terminal.waiting import WaitingScreen
from tests.clients.test_tui import SIZE, text_of, until
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

SHOTS = Path(__file__).resolve().parents[2] / "screenshots"


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


async def test_the_lobby_and_the_waiting_room_in_spanish(server: ServerProcess) -> None:
    SHOTS.mkdir(exist_ok=True)
    app = EchoRidgeApp(server.url, name="Tester", lang="es")
    async with asyncio.timeout(80), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen) and app.ctx.lobby is not None,
            "the lobby connects",
        )
        assert "Conectado con" in text_of(app.screen, "#lobby-status")
        app.save_screenshot(path=str(SHOTS), filename="tui-es-lobby.svg")
        await pilot.click("#seats-2")
        await pilot.click("#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        assert isinstance(waiting, WaitingScreen)
        await until(pilot, lambda: waiting.info is not None, "the seats are listed")
        assert "Plazas ocupadas" in text_of(waiting, "#table-info")
        assert "Tester (tú)" in text_of(waiting, "#seat-list")
        assert "2. libre" in text_of(waiting, "#seat-list")
        await pilot.press("n")
        await until(pilot, lambda: waiting.taken == 2, "the bot sits")
        app.save_screenshot(path=str(SHOTS), filename="tui-es-waiting.svg")
        await pilot.click("#start")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        await until(pilot, lambda: bool(app.screen.log_lines), "the log")
        assert any("Empieza la partida con 2 agentes" in line for line in app.screen.log_lines)
        app.save_screenshot(path=str(SHOTS), filename="tui-es-game.svg")
