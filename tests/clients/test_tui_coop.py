"""The terminal client in a cooperative game (rules.md §14; tui/coop.py, tui/team.py): on a real
server, a co-op table is listed as such, is created from the lobby's form, shows the roles, the
Out-of-Time Marker and the team section, and its accusation screen shows the teammate's choice
before the team's result; with no server, every view of simulated co-op games goes through the
renderers (a spectator never sees the team's hands or choices)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Button, DataTable, OptionList, RadioSet

from echoridge.simulate import game_seed, play_random
from echoridge_client.lobby import Lobby
from echoridge_client.logtext import catalog
from echoridge_rules import EVERYONE, SPECTATOR
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import Status
from echoridge_rules.views import Seat as SeatViewer
from echoridge_rules.views import Viewer
from echoridge_rules.views import view as project
from echoridge_terminal import EchoRidgeApp, city, panels, render, team
from echoridge_terminal.data import force_name, suspect_name
from echoridge_terminal.describe import describe, prompt
from echoridge_terminal.game import GameScreen
from echoridge_terminal.logpanel import lines as log_lines
from echoridge_terminal.result import ResultScreen
from echoridge_terminal.result import summary as result_summary
from echoridge_terminal.screens import LobbyScreen
from echoridge_terminal.waiting import WaitingScreen
from tests.clients.test_tui import SIZE, click, plain, text_of, until
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


def menu_texts(game: GameScreen) -> list[str]:
    menu = game.query_one("#menu", OptionList)
    return [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]


async def test_a_coop_table_from_the_lobby_to_the_team_result(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    listed = (await lobby.create(3, mode="cooperative")).table  # someone else's co-op table
    app = EchoRidgeApp(server.url, name="Ada")
    try:
        async with asyncio.timeout(120), app.run_test(size=SIZE) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, LobbyScreen) and listed in app.screen.listed,
                "the lobby lists the co-op table",
            )
            tables = app.screen.query_one("#tables", DataTable)
            assert tables.get_row(listed)[1] == "co-op"
            assert isinstance(app.screen, LobbyScreen) and app.screen.modes[listed] == "co-op"

            await click(pilot, "#seats-2")
            await click(pilot, "#mode-cooperative")
            assert app.screen.query_one("#mode", RadioSet).pressed_index == 1
            await click(pilot, "#create")
            await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
            waiting = app.screen
            assert isinstance(waiting, WaitingScreen)
            assert app.ctx.table and (await lobby.table(app.ctx.table)).mode == "cooperative"  # type: ignore[union-attr]
            await until(pilot, lambda: waiting.info is not None, "the seats are listed")
            assert "Game: co-op" in text_of(waiting, "#table-info")
            button = waiting.query_one("#add-normal", Button)
            await until(pilot, lambda: not button.has_class("-active"), "a button at rest")
            await click(pilot, "#add-normal")
            await until(pilot, lambda: waiting.bots == 1 and not waiting.busy, "a bot is added")
            await click(pilot, "#start")

            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            await until(pilot, lambda: not game.dirty, "the first drawing")
            session = app.ctx.session
            assert session is not None and session.view["mode"] == "cooperative"
            officers = text_of(game, "#officers")
            assert "Detective" in officers and "Patrol Cop" in officers
            # the person leads: with a bot as the Detective, the Patrol Cop (ruling 45)
            view = session.view
            lead = view["players"][view["coop"]["lead"]]
            assert not lead.get("bot")
            lead_role = "Detective" if lead["role"] == "detective" else "Patrol Cop"
            assert f"{lead_role} ★" in officers
            track = text_of(game, "#track")
            assert "Out-of-Time Marker on 49: hour cap 48" in track
            assert track.count("OT") >= 2  # the legend and the marker under space 49
            board = text_of(game, "#team")
            assert "The team" in board and "Catch Witness, Search Scene" in board
            assert "share one Force hand" in board
            assert "Role: " in text_of(game, "#you")
            assert "(the team's, shared)" in text_of(game, "#you")

            # Play the first menu entry until this seat owes its accusation.
            def accusing() -> bool:
                decision = session.you.get("decision") or {}
                return decision.get("kind") == "accusation" and game.ready

            while not accusing():
                await until(pilot, lambda: game.ready or accusing(), "a menu", timeout=30)
                if accusing():
                    break
                sent = game.sent
                await pilot.press("enter")
                await until(pilot, lambda: game.sent > sent, "the choice is sent")  # noqa: B023

            me = session.you["seat"]
            mate = 1 - me
            await until(
                pilot,
                lambda: session.you["team"]["accusations"][mate] is not None,
                "the teammate's choice",
            )
            choice = session.you["team"]["accusations"][mate]

            def entries() -> list[str]:
                return [t for t in menu_texts(game) if t.lstrip(" 0123456789.").startswith(
                    f"Accuse {choice} ")]  # fmt: skip

            # (the suspect's id may be on the board already, as a face-up card: wait for the menu)
            shown = lambda: any("chosen by" in t for t in entries())  # noqa: E731
            await until(pilot, shown, "the menu shows it")
            assert len(entries()) == 1
            assert f"{choice} {suspect_name(choice)}" in text_of(game, "#team")
            assert "The team's accusation" in text_of(game, "#you")
            assert "joint accusation" in text_of(game, "#prompt")

            await pilot.press("enter")  # the first (highlighted) suspect
            await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
            result = app.screen
            assert isinstance(result, ResultScreen)
            r = session.view["result"]
            summary = result.words
            assert f"The team accused {r['team_accusation']}" in summary
            won = r["team_accusation"] == r["murderer"]
            assert ("the team wins!" if won else "the team loses.") in summary
            assert bool(r["winners"]) is won
            await pilot.pause(0.2)
    finally:
        await lobby.close()


def accused(state: Any) -> list[str]:
    return [p.accusation for p in state.players if p.accusation]


def _renders(v: dict[str, Any]) -> str:
    checked = render.Checked()
    parts = (city.city(v, checked), render.track(v), render.events(v),
             render.evidence(v, checked), render.officers(v), team.board(v),
             panels.you(v, checked))  # fmt: skip
    for cmd in (v.get("you") or {}).get("legal") or ():
        assert describe(cmd, v)
    prompt(v)
    return "\n".join(plain(p) for p in parts)


@pytest.mark.parametrize("players", [2, 4])
def test_every_view_of_a_simulated_coop_game_renders(players: int) -> None:
    """Every few views of a random co-op game, for each seat and a spectator, go through the
    renderers and the menu; the team's hands and choices reach the seats only; the accusation
    shows a teammate's choice; the log marks what the team was told."""
    seats = [SeatViewer(s) for s in range(players)]
    teamed: list[str] = []
    mid_accusation = False
    state = None
    for n, (command, events, state) in enumerate(
        play_random(players, game_seed(5, players), mode="cooperative")
    ):
        said = told(state, command, events)
        over = state.status is Status.OVER
        teamed += [
            t.plain
            for t in log_lines(entries_for(said, EVERYONE if over else seats[0]),
                               [f"n{s}" for s in range(players)], 0, whole=over, team=True)
        ]  # fmt: skip
        if n % 7 and state.status is not Status.ACCUSING:
            continue
        viewers: list[Viewer] = [*seats, SPECTATOR]
        for viewer in viewers:
            v = project(state, viewer)
            shown = _renders(v)
            assert "Detective ★" in shown and "Out-of-Time Marker on" in shown
            if not isinstance(viewer, SeatViewer):
                if over:
                    continue
                board = plain(team.board(v))
                assert "face-up Suspects" in board
                assert "accuses" not in board
                hands = project(state, seats[0])["you"]["team"]["force"]
                assert not any(force_name(c) in board for hand in hands for c in hand)
                assert not any(f"{s} {suspect_name(s)}" in board for s in accused(state))
                continue
            if v["status"] != "accusing":
                continue
            chosen = v["you"]["team"]["accusations"]
            mine = chosen[viewer.seat]
            others = {a for s, a in enumerate(chosen) if a and s != viewer.seat}
            if mine is None and others:  # a teammate chose before this seat
                mid_accusation = True
                board = plain(team.board(v))
                assert all(f"{a} {suspect_name(a)}" in board for a in others)
                notes = [describe(c, v) for c in v["you"]["legal"] if c["suspect"] in others]
                assert notes and all("chosen by" in d for d in notes)
    assert state is not None and state.status is Status.OVER
    assert mid_accusation
    assert any(line.endswith(catalog().team_mark) for line in teamed)
    assert not any(line.endswith("(only you)") for line in teamed)
    final = project(state, SeatViewer(0))
    summary = plain(result_summary(final))
    theirs = final["result"]["team_accusation"]
    assert f"The team accused {theirs} {suspect_name(theirs)}" in summary
    assert ("the team wins!" if final["result"]["winners"] else "the team loses.") in summary
