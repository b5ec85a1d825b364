"""The terminal client in Spanish (``--lang es``) against a real server: the lobby, the
waiting room with a bot, "How to play" (``?``), and a whole game played through the menu to the
result screen, worded in Spanish, with SVG screenshots saved in ``screenshots/``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from echoridge_terminal import EchoRidgeApp
from echoridge_terminal.data import suspect_name
from echoridge_terminal.game import GameScreen
from echoridge_terminal.help import HelpScreen
from echoridge_terminal.result import ResultScreen, why
from echoridge_terminal.screens import LobbyScreen
from echoridge_terminal.waiting import WaitingScreen
from tests.clients.test_tui import SIZE, click, text_of, until
from tests.e2e.conftest import ServerProcess, http_get, servers  # noqa: F401

SHOTS = Path(__file__).resolve().parents[2] / "screenshots"


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


async def test_a_whole_game_in_spanish_to_the_result(server: ServerProcess) -> None:
    """A whole game played in Spanish through the menu (a bot in the other seat): the lobby,
    the waiting room, the board's panels, the last move, the log, the prompt and the menu, and
    the result screen are worded in Spanish; screenshots of each."""
    SHOTS.mkdir(exist_ok=True)
    me = "Tesa" + uuid.uuid4().hex[:6]  # an identity's handle of its own (Redis is shared)
    app = EchoRidgeApp(server.url, name=me, lang="es")
    async with asyncio.timeout(120), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen) and app.ctx.lobby is not None,
            "the lobby connects",
        )
        assert "Conectado con" in text_of(app.screen, "#lobby-status")
        app.save_screenshot(path=str(SHOTS), filename="tui-es-lobby.svg")
        await click(pilot, "#seats-2")
        await click(pilot, "#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        assert isinstance(waiting, WaitingScreen)
        await until(pilot, lambda: waiting.info is not None, "the seats are listed")
        assert "Plazas ocupadas" in text_of(waiting, "#table-info")
        assert f"{me} (tú)" in text_of(waiting, "#seat-list")
        assert "2. libre" in text_of(waiting, "#seat-list")
        await pilot.press("n")
        await until(pilot, lambda: waiting.taken == 2, "the bot sits")
        app.save_screenshot(path=str(SHOTS), filename="tui-es-waiting.svg")
        await click(pilot, "#start")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        game = app.screen
        assert isinstance(game, GameScreen)
        await until(pilot, lambda: bool(game.log_lines), "the log")
        assert any("Empieza la partida con 2 agentes" in line for line in game.log_lines)
        app.save_screenshot(path=str(SHOTS), filename="tui-es-game.svg")
        await until(pilot, lambda: not game.dirty, "the first drawing")
        assert "Marcador de tiempo" in text_of(game, "#track")
        assert "Agentes" in text_of(game, "#officers") and "placa" in text_of(game, "#officers")
        assert "Eventos en juego" in text_of(game, "#events")
        assert "Pruebas" in text_of(game, "#evidence") and "Bolsa" in text_of(game, "#evidence")
        you = text_of(game, "#you")
        assert f"Eres {me}" in you and "Mano de Fuerza" in you and "Posibles asesinos" in you
        keys = {b.binding.description for b in game.active_bindings.values()}
        assert "Menú" in keys and "Cómo se juega" in keys

        await pilot.press("question_mark")  # How to play, in Spanish, and the rules it names
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "How to play")
        await pilot.pause(0.1)
        words = text_of(app.screen, "#help")
        heads = ("CÓMO SE JUEGA A ECHO RIDGE", "El objetivo", "Un turno", "Las acciones",
                 "Pedir refuerzos", "La partida cooperativa", "El tablero", "* Comisaría *",
                 "Relojes, ausencias y traspaso", "Teclas", "Las reglas completas")  # fmt: skip
        for said in heads:
            assert said in words, said
        for english in ("The goal", "A turn", "Keys", " the ", " your "):
            assert english not in words, english
        assert "/protocol/rules.es.md" in words
        status, rules = await http_get(server, "/protocol/rules.es.md")
        assert status == 200 and rules.startswith("# Echo Ridge — Cómo se juega")
        help_keys = {b.binding.description for b in app.screen.active_bindings.values()}
        assert "Volver" in help_keys and "Salir" in help_keys
        app.save_screenshot(path=str(SHOTS), filename="tui-es-help.svg")
        app.screen.query_one("#help-box").scroll_end(animate=False)  # the board's glyphs, keys
        await pilot.pause(0.1)
        app.save_screenshot(path=str(SHOTS), filename="tui-es-help-end.svg")
        await pilot.press("escape")
        assert app.screen is game

        prompts: list[str] = []
        entries: list[str] = []
        board_shot = False
        while not isinstance(app.screen, ResultScreen):
            await until(
                pilot,
                lambda: game.ready or isinstance(app.screen, ResultScreen),
                "a menu or the result",
                timeout=30,
            )
            if isinstance(app.screen, ResultScreen):
                break
            prompts.append(text_of(game, "#prompt"))
            entries += [str(words) for words, _ in game.entries]
            if not board_shot and game.last is not None:  # the board after a move or two
                assert "Última jugada" in text_of(game, "#last-move")
                app.save_screenshot(path=str(SHOTS), filename="tui-es-board.svg")
                board_shot = True
            sent = game.sent
            await pilot.press("enter")  # the first (highlighted) entry of the menu
            await until(pilot, lambda: game.sent > sent, "the choice is sent")  # noqa: B023

        assert any(p.startswith(("Tu turno", "Decide:")) for p in prompts), prompts[:5]
        assert all("? ayuda" in p for p in prompts)
        spanish = ("Conducir a", "Pausa para el café", "Acusar a", "Robar la carta", "Seguir")
        assert any(e.lstrip(" 0123456789.").startswith(spanish) for e in entries), entries[:10]
        assert any("Empieza la partida con 2 agentes" in line for line in game.log_lines)
        assert any(line.startswith("  La partida ha terminado") for line in game.log_lines)

        result = app.screen
        assert isinstance(result, ResultScreen)
        session = app.ctx.session
        assert session is not None and session.over and session.error is None
        murderer = session.view["result"]["murderer"]
        words = result.words
        assert "FIN DE LA PARTIDA" in words
        assert f"{murderer} {suspect_name(murderer)}" in words
        assert "era" in words.split(murderer)[0].splitlines()[-1]  # El asesino / La asesina era
        for head in ("nombró a", "placa", "marcador", "fichas de Prueba"):
            assert head in words
        assert f"{me} (tú)" in words
        assert "volver al tablero final" in text_of(result, "#result-help")
        reason = why(session.view)
        assert reason and reason in " ".join(words.split())
        assert any(w in reason for w in ("asesino", "nadie", "Nadie"))
        app.save_screenshot(path=str(SHOTS), filename="tui-es-result.svg")
        await pilot.press("b")  # back to the final board
        assert app.screen is game
        assert text_of(game, "#prompt").startswith("La partida ha terminado")
