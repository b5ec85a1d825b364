"""Issue 25, the terminal client: a table a new player can read.  Driven with textual's pilot at
180×50 (the README's size) against a real server: the log pane is tall enough to read, a bot's
move is highlighted on the board with its words beside it, a spectator gets no seat controls,
the waiting room says names rather than seat numbers, the end screen says who named whom and
what decided; and, with no server, every final view of simulated games through the end screen.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.widgets import OptionList, RichLog, Static
from textual.widgets._footer import FooterKey

from echoridge.simulate import acting_seat, game_seed
from echoridge_client.lobby import Lobby
from echoridge_client.logtext import block_names, catalog
from echoridge_client.session import Seat
from echoridge_rules import State, decide, evolve, legal_actions
from echoridge_rules.commands import Accuse, StartGame
from echoridge_rules.data import RULES_VERSION
from echoridge_rules.rng import Rng
from echoridge_rules.views import Seat as SeatViewer
from echoridge_rules.views import view as project
from echoridge_terminal import EchoRidgeApp, logpanel, team
from echoridge_terminal.app import CSS
from echoridge_terminal.city import MARK, moved_style
from echoridge_terminal.data import suspect_name
from echoridge_terminal.describe import COSTED, hours_of
from echoridge_terminal.describe import names as names_of
from echoridge_terminal.game import GameScreen
from echoridge_terminal.result import summary
from echoridge_terminal.screens import LobbyScreen
from echoridge_terminal.team import lead_rule
from echoridge_terminal.waiting import WaitingScreen
from tests.clients.test_tui import click, plain, text_of, until
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server

SIZE = (180, 50)  # the README's terminal


@pytest.fixture(scope="module")
def table_server(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    server = start_server(
        redis_server.url, Path(tmp_path_factory.mktemp("tui-table")) / "log", "--bot-delay", "0"
    )
    yield server
    server.stop()


class Host(App[None]):
    """A game screen with the terminal client's own layout."""

    CSS = CSS


async def seated(url: str, name: str = "Nora") -> tuple[Lobby, Seat, str]:
    """A started 2-seat table: ``name`` and a greedy bot."""
    lobby = await Lobby.connect(url)
    table = (await lobby.create(2)).table
    token = (await lobby.join(table, name)).token
    await lobby.add_bot(table, token, "greedy")
    seat = await Seat.sit(url, table, token)
    await lobby.start(table, token)
    await seat.wait(lambda: seat.status == "playing", 10)
    return lobby, seat, table


def segments(renderable: Any, width: int = 100) -> list[Segment]:
    console = Console(width=width, color_system="truecolor", force_terminal=True)
    return list(console.render(renderable, console.options))


async def test_the_log_pane_reads_and_a_bots_move_is_shown_on_the_board(
    table_server: ServerProcess,
) -> None:
    lobby, seat, _table = await seated(table_server.url)
    me = seat.you["seat"]
    bot = 1 - me
    app = Host()
    try:
        async with asyncio.timeout(60), app.run_test(size=SIZE) as pilot:
            game = GameScreen(seat, read_only=False)
            await app.push_screen(game)
            await until(pilot, lambda: not game.dirty, "the first drawing")
            log = game.query_one("#log", RichLog)
            assert log.content_size.height >= 8, log.content_size  # lines of the log to read

            def bots_turn_done() -> bool:  # my turn, after a whole turn of the bot's
                last = game.last
                kinds = {e["kind"] for e in last.entries} if last else set()
                return (
                    game.ready and last is not None and last.seat == bot and not last.current
                    and "action_taken" in kinds
                )  # fmt: skip

            while not bots_turn_done():
                await until(pilot, lambda: game.ready, "my turn", timeout=20)
                if bots_turn_done():
                    break
                sent = game.sent
                await pilot.press("enter")  # my move: the first entry of the menu
                await until(pilot, lambda: game.sent > sent, "the move is sent")  # noqa: B023
            last = game.last
            assert last is not None and last.acted  # at least where the bot's car acted

            # on the board: each block of the bot's move, marked and on the bot's colour
            names = {tuple(b["block"]): b["name"] for b in seat.view["city"]["blocks"]}
            style = Style.parse(moved_style(bot))
            city = game.query_one("#city", Static).content  # what the board shows
            marked = {
                s.text.strip() for s in segments(city) if s.text.startswith(MARK)
                and s.style is not None and s.style.reverse and s.style.color == style.color
            }  # fmt: skip
            assert {f"{MARK}{names[b]}"[:15].strip() for b in last.acted} <= marked
            others = {f"{MARK}{names[b]}"[:15] for b in set(names) - last.acted - last.brought}
            assert not marked & others

            # near the board: whose move, and what it was, in the log's words
            near = " ".join(text_of(game, "#last-move").split())
            assert near.startswith("Last move") and "Greedy 2 (bot) — the last turn" in near
            action = next(e for e in last.entries if e["kind"] == "action_taken")
            line = logpanel.line(action, names_of(seat.view), me,
                                 blocks=block_names(seat.view))  # fmt: skip
            assert line is not None and line.plain.strip() in near
            assert not re.search(r"\(\d,\d\)", near)
    finally:
        await seat.close()
        await lobby.close()


async def test_a_spectator_has_no_seat_controls_and_no_jargon(
    table_server: ServerProcess,
) -> None:
    lobby, seat, table = await seated(table_server.url, "Ada")
    app = EchoRidgeApp(table_server.url, watch=table)
    try:
        async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen) and game.read_only
            await until(pilot, lambda: not game.dirty and bool(game.query(FooterKey)), "a footer")
            await pilot.pause(0.2)
            keys = [k.description for k in game.query(FooterKey)]
            assert "Quit" in keys and "How to play" in keys
            for control in ("More time", "Play for me", "Take my seat back", "Take back"):
                assert control not in keys
            prompt = text_of(game, "#prompt")
            assert "version" not in prompt and "playing" not in prompt
            track = text_of(game, "#track")
            assert "phase" not in track and " w1" not in track
            assert "now before the drive" in track or "now after" in track
    finally:
        await seat.close()
        await lobby.close()


async def test_the_waiting_room_says_names_not_seat_numbers(table_server: ServerProcess) -> None:
    app = EchoRidgeApp(table_server.url, name="Nora")
    async with asyncio.timeout(30), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen) and app.ctx.lobby is not None,
            "the lobby",
        )
        await click(pilot, "#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await until(pilot, lambda: waiting.info is not None, "the seats")  # type: ignore[attr-defined]
        info = text_of(waiting, "#table-info")
        assert "You are Nora" in info
        assert "seat 0" not in info and "P1" not in info
        assert "1. Nora (you)" in text_of(waiting, "#seat-list")
        log = waiting.query_one("#wait-log", RichLog)
        lines = "\n".join(line.text for line in log.lines)
        assert "as Nora" in lines and "P1" not in lines


async def test_costs_and_missing_actions_come_from_the_server(
    table_server: ServerProcess,
) -> None:
    """Each menu entry's cost is the server's ``you.hours`` (contract item 1), never one the
    client works out; each action of ``you.unavailable`` (item 2) is a greyed entry with the
    catalogue's reason."""
    lobby, seat, _table = await seated(table_server.url)
    app = Host()
    try:
        async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
            game = GameScreen(seat, read_only=False)
            await app.push_screen(game)
            await until(pilot, lambda: game.ready, "my turn", timeout=20)
            menu = game.query_one("#menu", OptionList)
            options = [menu.get_option_at_index(i) for i in range(menu.option_count)]
            hours = hours_of(seat.view)
            assert hours is not None and len(hours) == len(seat.legal) == len(game.commands)
            chosen = [o for o in options if not o.disabled]
            assert len(chosen) == len(hours)
            for option in chosen:
                i, words = int(option.id or 0), str(option.prompt)
                shown = re.findall(r"(\d+) h\b", words)
                if hours[i] or game.commands[i]["type"] in COSTED:
                    assert shown == [str(hours[i])], words
                else:
                    assert not shown, words  # a Force card, a decision: no hours

            missing = seat.you["unavailable"]
            greyed = [str(o.prompt).strip(" -") for o in options if o.disabled]
            assert missing and greyed  # on a turn: why each action is missing
            for item in missing:  # (one line for a reason two steps share)
                reason = catalog().reason(item["type"], item["code"])
                assert reason and any(words.endswith(reason) for words in greyed), item
            assert len(greyed) == len(set(greyed)) <= len(missing)
    finally:
        await seat.close()
        await lobby.close()


DECIDED = {
    "accusation": "alone named the murderer",
    "badge": "wins on badges",
    "tracker": "wins on the time track",
    "evidence": "wins on Evidence tokens",
    "tie": "share the win",
    "nobody": "Nobody named the murderer",
}


def finished(players: int, seed: bytes, right: int) -> dict[str, Any]:
    """A game of random moves under the server's rules version, in which the first ``right``
    seats to accuse name the murderer and the others someone else: the engine decides who
    won and why (``result.decided_by``).  The final view of seat 0."""
    rng, chooser = Rng(seed, "sim"), Rng(seed[::-1], "sim")
    state, cmd, n, named = State(), StartGame(players, rules=RULES_VERSION), 0, 0
    while True:
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
        seat = acting_seat(state)
        if seat is None:
            return project(state, SeatViewer(0))
        options = legal_actions(state, seat)
        accusing = [c for c in options if isinstance(c, Accuse)]
        if accusing:
            wanted = [c for c in accusing if (c.suspect == state.murderer) == (named < right)]
            cmd, named = wanted[0], named + 1
        else:
            cmd = options[chooser.below(n, len(options))]
        n += 1


def final_views() -> Iterator[dict[str, Any]]:
    for n, (players, right) in enumerate([(2, 0), (2, 1), (3, 1), (2, 2), (3, 3), (4, 4),
                                          (4, 2), (3, 2), (2, 2), (4, 3)]):  # fmt: skip
        yield finished(players, game_seed(11, n), right)


VIEWS = list(final_views())


@pytest.mark.parametrize("view", VIEWS)
def test_the_end_screen_says_who_named_whom_and_what_decided(view: dict[str, Any]) -> None:
    r = view["result"]
    words = plain(summary(view))
    assert f"The murderer was {r['murderer']} {suspect_name(r['murderer'])}" in words
    for head in ("named", "badge", "tracker", "Evidence tokens"):
        assert head in words
    for p in view["players"]:
        accused = r["accusations"][p["seat"]]
        row = next(line for line in words.splitlines() if line.startswith(
            "P1 (you)" if p["seat"] == 0 else f"P{p['seat'] + 1} "))  # fmt: skip
        assert (f"{accused} {suspect_name(accused)}" if accused else "nobody") in row
        assert ("right" if accused == r["murderer"] else "wrong") in row
        assert f"space {p['space']}" in row and f" {p['badge']} " in row
        assert ("wins" in row) is (p["seat"] in r["winners"])
    assert DECIDED[r["decided_by"]] in words  # why, in words (contract item 4)
    if r["decided_by"] == "badge":  # with the figures compared, the winner's first
        winner = view["players"][r["winners"][0]]
        assert f"wins on badges: {winner['badge']} to " in words


def test_the_end_screen_of_a_game_the_operator_stopped_says_so() -> None:
    from echoridge_rules.commands import StopGame

    rng, state = Rng(b"\x07" * 32, "sim"), State()
    for cmd in (StartGame(3, rules=RULES_VERSION), StopGame()):
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
    words = plain(summary(project(state, SeatViewer(1))))
    assert "stopped this game before its end: nobody wins" in words
    assert "Nobody named the murderer" not in words and "wins\n" not in words
    assert f"The murderer was {state.murderer}" in words


def test_the_end_screens_cover_every_reason_a_tie_break_gives() -> None:
    assert {v["result"]["decided_by"] for v in VIEWS} >= {"nobody", "accusation", "badge"}


@pytest.mark.parametrize("bot_detective", [True, False])
def test_coop_says_the_leads_rule_in_one_sentence(bot_detective: bool) -> None:
    """A co-op game as the server starts it (rules v3): when a bot plays the Detective, the
    person leads (contract item 5) and the team's words say so in one sentence, never a name
    with stacked parentheses ("Greedy 2 (bot) (Detective, lead)")."""
    roles = ("detective", "patrol_cop") if bot_detective else ("patrol_cop", "detective")
    start = StartGame(2, names=("Greedy 2", "Nora"), bots=("greedy", ""), mode="cooperative",
                      roles=roles, rules=RULES_VERSION)  # fmt: skip
    state = State()
    for event in decide(state, start, Rng(game_seed(3, 1), "sim")):
        state = evolve(state, event)
    view = project(state, SeatViewer(1))
    assert view["coop"]["lead"] == 1  # Nora leads either way: the Detective, or the person
    rule = lead_rule(view)
    assert rule.count(".") == 1 and rule.startswith("If the team's choices differ")
    if bot_detective:
        assert (
            "the lead is Nora (you), the Patrol Cop, because the Detective is Greedy 2 (bot)"
            in rule
        )
        assert "a bot never overrules a person" in rule
    else:
        assert "the lead is the Detective, Nora (you)." in rule
    shown = plain(team.board(view)) + plain(team.accusation_text(view))
    assert rule in " ".join(shown.split())
    assert not re.search(r"\) \(", shown)  # no "(bot) (Detective ★)"
