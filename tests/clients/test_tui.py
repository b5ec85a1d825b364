"""The terminal client (``echo-ridge play`` / ``watch``) driven headless with textual's pilot
against real server processes: a whole game played through the lobby and the menu, and a
spectator watching a running table to its end; then, with no server, every view of a simulated
game through the renderers and the menu, and the alarm of a failed reveal check."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Button, DataTable, RadioSet, Static

from echoridge.simulate import game_seed, play_random
from echoridge_client.errors import RevealError
from echoridge_client.lobby import Lobby
from echoridge_client.reveals import Verifier
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from echoridge_rules import EVERYONE, SPECTATOR
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import Status
from echoridge_rules.views import Seat as SeatViewer
from echoridge_rules.views import view as project
from echoridge_terminal import EchoRidgeApp, city, lastmove, panels, render
from echoridge_terminal.data import suspect_name
from echoridge_terminal.describe import describe, hours_of, menu_order, prompt, unavailable
from echoridge_terminal.game import AlertScreen, GameScreen
from echoridge_terminal.help import HelpScreen
from echoridge_terminal.logpanel import lines as log_lines
from echoridge_terminal.result import ResultScreen, why
from echoridge_terminal.result import summary as result_summary
from echoridge_terminal.screens import LobbyScreen
from echoridge_terminal.waiting import WaitingScreen
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

SIZE = (200, 60)


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


async def play_last_entries(seat: Seat) -> None:
    """Play a seat to the end by its last legal command (a Coffee Break or the like: a short,
    quick game)."""
    while not seat.over:
        legal = seat.legal
        if not legal:
            await seat.wait(lambda v=seat.version: seat.version != v or seat.over)
            continue
        await seat.act(legal[-1])


async def until(
    pilot: Pilot[Any], predicate: Callable[[], bool], what: str, timeout: float = 20.0
) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not predicate():
                await pilot.pause(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def click(pilot: Pilot[Any], selector: str, timeout: float = 10.0) -> None:
    """Click ``selector`` where the screen shows it. A click is aimed from the last layout: a
    widget moved by an update not laid out yet is missed (textual's click says whether it
    landed), and is clicked again once the layout has caught up."""
    try:
        async with asyncio.timeout(timeout):
            while not await pilot.click(selector):
                await pilot.pause(0.05)
    except TimeoutError:
        raise AssertionError(f"no click landed on {selector}") from None


def plain(renderable: Any) -> str:
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def text_of(screen: Any, selector: str) -> str:
    """What a Static of the screen shows, as plain text."""
    return plain(screen.query_one(selector, Static).content)


async def test_play_a_whole_game_from_the_lobby_through_the_menu(server: ServerProcess) -> None:
    app = EchoRidgeApp(server.url, name="Tester")
    async with asyncio.timeout(80), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen) and app.ctx.lobby is not None,
            "the lobby connects",
        )
        await click(pilot, "#seats-4")
        assert app.screen.query_one("#seats", RadioSet).pressed_index == 3
        await click(pilot, "#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        assert isinstance(waiting, WaitingScreen)
        table = app.ctx.table
        assert table and table in text_of(waiting, "#table-info")
        await until(pilot, lambda: waiting.info is not None, "the seats are listed")
        assert "1. Tester (you)" in text_of(waiting, "#seat-list")
        assert "2. free" in text_of(waiting, "#seat-list")

        info = text_of(waiting, "#table-info")  # the levels, explained, with their keys
        assert "Easy (e) plays loosely" in info and "Normal (n) plays to win" in info
        assert "Strong (s) thinks ahead" in info
        keys = {k: b.binding.description for k, b in waiting.active_bindings.items()}
        assert keys["e"] == "Easy bot" and keys["n"] == "Normal bot" and keys["s"] == "Strong bot"
        # each level: easy by its button, normal and strong by their keys
        for n, choice in enumerate(("#add-easy", "n", "s"), start=1):
            if choice.startswith("#"):
                widget = waiting.query_one(choice, Button)
                # a button ignores clicks for 0.2 s after a press (its "active" look)
                await until(pilot, lambda: not widget.has_class("-active"), "a button at rest")  # noqa: B023
                await click(pilot, choice)
            else:
                await until(pilot, lambda: not waiting.busy, "the last bot added")
                await pilot.press(choice)
            await until(pilot, lambda: waiting.bots == n, f"bot {n} is added")  # noqa: B023
        await until(pilot, lambda: not waiting.busy and waiting.taken == 4, "four seats taken")
        assert "4/4" in text_of(waiting, "#table-info")
        await until(
            pilot,
            lambda: waiting.info is not None and len(waiting.info.players) == 4,
            "bots listed",
        )
        assert waiting.info is not None  # the server's listing: each bot of the level chosen
        levels = {p.seat: p.bot for p in waiting.info.players}
        assert levels == {0: None, 1: "easy", 2: "normal", 3: "strong"}
        seats = text_of(waiting, "#seat-list")
        for level in ("easy", "normal", "strong"):
            assert f"({level} bot)" in seats  # shown beside the bot's seat
        strong_name = next(p.name for p in waiting.info.players if p.seat == 3)
        await click(pilot, "#start")

        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        game = app.screen
        assert isinstance(game, GameScreen) and not game.read_only
        await until(pilot, lambda: not game.dirty, "the first drawing")
        city = text_of(game, "#city")
        assert "HQ" in city and "row 5" in city and "col 5" in city
        assert "Time track" in text_of(game, "#track")
        assert "Tester (you)" in text_of(game, "#officers")
        assert "(bot)" in text_of(game, "#officers")  # bots are marked

        await pilot.press("question_mark")  # how to play, and back
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        await until(pilot, lambda: bool(app.screen.query("#help")), "the help's contents")
        help_text = text_of(app.screen, "#help")
        assert "HOW TO PLAY" in help_text and "Mobster Roll" in help_text
        assert "Stakeout" in help_text and "face-down Search token" in help_text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is game, "back to the game")

        moves = 0
        while not isinstance(app.screen, ResultScreen):
            await until(
                pilot,
                lambda: game.ready or isinstance(app.screen, ResultScreen),
                "a menu or the result",
                timeout=30,
            )
            if isinstance(app.screen, ResultScreen):
                break
            sent = game.sent
            await pilot.press("enter")  # the first (highlighted) entry of the menu
            await until(pilot, lambda: game.sent > sent, "the choice is sent")  # noqa: B023
            moves += 1

        result = app.screen
        assert isinstance(result, ResultScreen)
        session = app.ctx.session
        assert session is not None and session.over and session.error is None
        murderer = session.view["result"]["murderer"]
        summary = result.words
        assert "GAME OVER" in summary
        assert f"The murderer was {murderer} {suspect_name(murderer)}" in summary
        for head in ("named", "badge", "tracker", "Evidence tokens"):  # who named whom, and
            assert head in summary  # what a tie-break compares
        assert "Tester (you)" in summary and f"{strong_name} (bot)" in summary
        reason = why(session.view)  # the server's result.decided_by, in words
        assert reason and reason in " ".join(summary.split())
        assert moves >= 5
        assert any(line.startswith("-- Turn") for line in game.log_lines)
        assert "  The game begins with 4 officers" in game.log_lines
        assert any(line.startswith("  The game is over. Winners:") for line in game.log_lines)
        assert any(line.startswith("  Tester (you) drove") for line in game.log_lines)
        hand = session.you.get("suspects") or []
        if hand:  # every card drawn was checked against its commitment, and says so
            assert f"{hand[0]} {suspect_name(hand[0])} ✓" in text_of(game, "#you")

        await pilot.press("b")  # back to the final board
        assert app.screen is game


async def test_watch_renders_a_running_table(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2)).table
    token = (await lobby.join(table, "person")).token
    await lobby.add_bot(table, token, "greedy")
    seat = await Seat.sit(server.url, table, token)
    await lobby.start(table, token)
    await seat.wait(lambda: seat.status == "playing", 10)

    async def play_first_entries() -> None:
        await play_last_entries(seat)

    app = EchoRidgeApp(server.url, watch=table)
    player: asyncio.Task[None] | None = None
    try:
        async with asyncio.timeout(60), app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen) and game.read_only
            await until(pilot, lambda: not game.dirty, "the first drawing")
            city = text_of(game, "#city")
            assert "HQ" in city and "car " in city and "row 5" in city
            assert "Spectating" in text_of(game, "#prompt")
            assert "Spectating" in text_of(game, "#you")
            assert "person" in text_of(game, "#officers") and "(bot)" in text_of(game, "#officers")
            assert game.commands == []

            player = asyncio.create_task(play_first_entries())
            await until(
                pilot, lambda: isinstance(app.screen, ResultScreen), "the game's end", timeout=40
            )
            result = app.screen
            assert isinstance(result, ResultScreen)
            murderer = seat.view["result"]["murderer"]
            assert "GAME OVER" in result.words and murderer in result.words
            assert any(line.startswith("-- Turn") for line in game.log_lines)
            assert app.ctx.session is not None and app.ctx.session.error is None
            await pilot.pause(0.3)  # let the result screen settle before the app exits
    finally:
        if player is not None:
            player.cancel()
        await seat.close()
        await lobby.close()


def blocks_named(entry: dict[str, Any]) -> list[Any]:
    """Every block a log entry names (its ``block``, each of its ``path``)."""
    out = list(entry.get("path") or ())
    if isinstance(entry.get("block"), list):
        out.append(entry["block"])
    return out


def test_every_view_of_a_simulated_game_renders_and_every_command_reads() -> None:
    """No server: every view of a random 3-player game, for each seat and a spectator, goes
    through the renderers, the log panel, the last move and the menu's descriptions (with their
    costs and the missing actions' reasons); reveals the verifier checked are marked ✓; the last
    move highlights only blocks its entries name (or the mover's car)."""
    verifiers = [Verifier() for _ in range(3)]
    kinds: set[str] = set()
    lines: list[str] = []
    logs: list[list[dict[str, Any]]] = [[], [], [], []]  # per viewer, as its session keeps it
    moved = 0
    state = None
    for command, events, state in play_random(3, game_seed(7, 0)):
        said = told(state, command, events)
        over = state.status is Status.OVER
        for i, viewer in enumerate([SeatViewer(0), SeatViewer(1), SeatViewer(2), SPECTATOR]):
            v = project(state, viewer)
            names = [f"name {s}" for s in range(3)]
            new_lines = [
                t.plain
                for t in log_lines(
                    entries_for(said, EVERYONE if over else viewer), names, i if i < 3 else None,
                    whole=over,
                )
            ]  # fmt: skip
            if i == 0:
                lines += new_lines
            logs[i] += entries_for(said, EVERYONE if over else viewer)
            last = lastmove.of(logs[i], v)
            if last is not None:
                named = {tuple(b) for e in last.entries for b in blocks_named(e)}
                players = v["players"]
                car = {tuple(players[last.seat]["car"])} if last.seat is not None else set()
                assert last.acted | last.brought <= named | car
                moved += bool(last.acted)
            checked = render.Checked()
            if i < 3:
                verifiers[i].check(v)
                checked = render.Checked.of(verifiers[i])
            seat = i if i < 3 else None
            for part in (
                lastmove.text(last, v, names, seat),
                city.city(v, checked, last),
                render.track(v),
                render.events(v),
                render.evidence(v, checked),
                render.officers(v),
            ):
                plain(part)
            case = plain(panels.you(v, checked))
            possible = next((ln for ln in case.splitlines() if ln.startswith("Possible")), "")
            assert not re.search(r"\bS\d\d\b", possible), possible  # names, never card ids
            prompt(v)
            legal = (v.get("you") or {}).get("legal") or []
            assert sorted(menu_order(v, legal)) == list(range(len(legal)))
            hours = hours_of(v) or [None] * len(legal)
            for cmd, cost in zip(legal, hours, strict=True):
                kinds.add(cmd["type"])
                assert describe(cmd, v, cost)
            assert all(unavailable(v))
    assert state is not None
    assert moved > 100  # the last move highlighted something, most of the time
    final = project(state, SeatViewer(0))
    assert final["status"] == "over"
    murderer = final["result"]["murderer"]
    assert f"The murderer was {murderer} {suspect_name(murderer)}" in plain(result_summary(final))
    assert {"drive", "coffee_break", "accuse"} <= kinds
    assert any(line.startswith("-- Turn") for line in lines)
    assert any(line.endswith("(only you)") for line in lines)
    hand = final["you"]["suspects"]
    if hand:
        you = plain(panels.you(final, render.Checked.of(verifiers[0])))
        assert f"{hand[0]} {suspect_name(hand[0])} ✓" in you


async def test_a_failed_reveal_check_raises_the_alarm() -> None:
    """A session whose verifier caught a bad reveal: the game screen says so, loudly."""

    class Stub:
        table, version, verifier, on_update, on_log = "t-stub", 1, None, None, None
        log_whole = over = False
        presence = clocks = deadline = on_chat = None
        chat: list[Any] = []  # noqa: RUF012
        view: dict[str, Any] = {"status": "playing", "you": None}  # noqa: RUF012
        log: list[dict[str, Any]] = []  # noqa: RUF012
        error: BaseException | None = None

    stub = Stub()
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        game = GameScreen(stub, read_only=True)  # type: ignore[arg-type]
        await app.push_screen(game)
        await pilot.pause(0.2)
        stub.error = RevealError("deck/3 = S07 does not open its commitment")
        await until(  # the screen, and its contents mounted (they come a moment later)
            pilot,
            lambda: isinstance(app.screen, AlertScreen) and bool(app.screen.query("#alarm")),
            "the alarm",
        )
        assert "REVEAL CHECK FAILED" in text_of(app.screen, "#alarm")
        assert "deck/3 = S07" in text_of(app.screen, "#alarm")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is game, "the alarm is dismissed")
        assert "REVEAL CHECK FAILED" in text_of(game, "#alert")


class StubSession:
    """What the game screen reads of a session, without a server."""

    table, version, verifier = "t-stub", 3, None
    on_update: Any = None
    on_log: Any = None
    on_chat: Any = None
    clocks: Any = None
    deadline: Any = None
    error: BaseException | None = None
    log_whole = False
    over = False
    chat: list[Any] = []  # noqa: RUF012

    def __init__(self, view: dict[str, Any], log: list[dict[str, Any]]) -> None:
        self.view = view
        self.log = log
        self.presence = m.Presence(
            table="t-stub",
            seats=(m.SeatPresence(0, True, 1), m.SeatPresence(1, False, 2)),
            spectators=2,
        )


async def test_the_log_panel_words_the_entries_with_names_and_marks_private_ones() -> None:
    _command, _events, state = next(iter(play_random(2, game_seed(3, 0))))
    view = project(state, SeatViewer(0))  # a real view, with names of our own
    view["players"][0].update(name="Ada", bot=None)
    view["players"][1].update(name="Robo", bot="greedy")
    first = [
        {"kind": "game_started", "players": 2, "order": [0, 1], "abilities": [], "names": [],
         "bots": [], "to": []},
        {"kind": "drawn", "index": 0, "bound": 24, "value": 3, "to": []},
        {"kind": "turn_began", "seat": 0, "number": 1, "night": False},
    ]  # fmt: skip
    stub = StubSession(view, list(first))
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        game = GameScreen(stub, read_only=True)  # type: ignore[arg-type]
        await app.push_screen(game)
        await pilot.pause(0.2)
        assert stub.on_log is not None
        assert game.log_lines == [
            "  The game begins with 2 officers",
            "-- Turn 1 (day): Ada (you) --",
        ]
        stub.on_log(stub, [
            {"kind": "car_driven", "seat": 0, "path": [[3, 3], [3, 2]], "hours": 1},
            {"kind": "action_taken", "seat": 0, "action": "call_for_backup", "hours": 4,
             "risk": 4},
            {"kind": "backup_called", "seat": 0, "risk": 4, "dice": [6], "success": False},
            {"kind": "token_peeked", "seat": 0, "block": [3, 2], "token": "stakeout",
             "value": 2, "to": [0]},
            {"kind": "token_peeked", "seat": 1, "block": [1, 1], "token": "search", "to": [1]},
        ], False)  # fmt: skip
        name = {(c, r): view["city"]["blocks"][(r - 1) * 5 + c - 1]["name"]
                for c in range(1, 6) for r in range(1, 6)}  # fmt: skip
        assert name[3, 3] == "Police HQ"
        assert game.log_lines[2:] == [  # blocks by their names, never (col,row)
            f"  Ada (you) drove Police HQ → {name[3, 2]} (1 h)",
            "  Ada (you): Call for Backup, 4 h",
            "  Ada (you) called for backup: risk 4, die 6: failure",
            f"  Ada (you) looked at the Stakeout token on {name[3, 2]}: 2 (only you)",
            f"  Robo (bot) looked at the Search token on {name[1, 1]}",
        ]
        assert not any(re.search(r"\(\d,\d\)", line) for line in game.log_lines)
        await pilot.pause(0.2)
        officers = text_of(game, "#officers")
        assert "● Ada (you)" in officers and "◆ Robo (bot)" in officers
        assert "2 watching" in text_of(game, "#prompt")
        stub.on_log(stub, [{"kind": "turn_began", "seat": 1, "number": 2, "night": True}], True)
        assert game.log_lines == ["-- Turn 2 (night): Robo (bot) --"]  # a fresh log


async def test_a_table_being_played_is_watched_from_the_lobby(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2)).table
    token = (await lobby.join(table, "person")).token
    await lobby.add_bot(table, token, "greedy")
    await lobby.start(table, token)
    app = EchoRidgeApp(server.url, name="Tester")
    try:
        async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, LobbyScreen) and table in app.screen.playing,
                "the table listed as being played",
            )
            widget = app.screen.query_one("#tables", DataTable)
            widget.focus()
            widget.move_cursor(row=widget.get_row_index(table))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen) and game.read_only
            await until(pilot, lambda: bool(game.log_lines), "the log")
            assert "  The game begins with 2 officers" in game.log_lines
            await pilot.pause(0.2)
    finally:
        await lobby.close()
