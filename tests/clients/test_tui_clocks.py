"""The terminal client's clocks, absence and handover (SPEC.md §6.6; tui/clocks.py), headless:
on a real server, a solo seat under a short custom clock sees its turn countdown and bank, and
t (more time), p (play for me) and b (take my seat back) send its controls; with no server, an
away player's seat shows "away since", its handover countdown and "played by the server"."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App
from textual.widgets import OptionList

from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from echoridge_terminal import clocks
from echoridge_terminal.game import GameScreen
from echoridge_terminal.help import how_to_play
from tests.clients.test_tui import SIZE, plain, text_of, until
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    # The server plays the seat slowly enough that a solo game cannot end before "b" is pressed.
    return servers("--clock-floor", "1", "--bot-delay", "0.5", "--decision-timeout", "0")


async def test_keys_send_the_seat_controls_and_the_clocks_tick(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    clock = m.Clock("custom", turn=40, bank=60, decision=0, grace=600, strikes=0)
    table = (await lobby.create(1, clock=clock)).table
    token = (await lobby.join(table, "Solo")).token
    seat = await Seat.sit(server.url, table, token)
    await lobby.start(table, token)
    await seat.wait(lambda: bool(seat.running("turn", 0)), 10)
    app: App[None] = App()
    try:
        async with app.run_test(size=SIZE) as pilot:
            game = GameScreen(seat, read_only=False)
            await app.push_screen(game)
            await until(pilot, lambda: "turn 0:" in text_of(game, "#clocks"), "the countdown")
            shown = text_of(game, "#clocks")
            assert "Players and clocks" in shown and "bank 1:00" in shown
            await until(pilot, lambda: text_of(game, "#clocks") != shown, "the clock ticks", 5)

            await pilot.press("t")  # more time: 40 s from the bank to this turn
            await until(pilot, lambda: seat.view["turn"]["extended"] == 40, "more time")
            await until(pilot, lambda: "bank 0:20" in text_of(game, "#clocks"), "the bank")
            await until(pilot, lambda: "turn 1:" in text_of(game, "#clocks"), "a longer turn")

            await until(pilot, lambda: not game.sending, "the answer to more time")
            await pilot.press("p")  # play for me
            await until(pilot, lambda: seat.view["players"][0]["auto"] == "self", "handed over")
            await until(
                pilot,
                lambda: "played by the server (you asked)" in text_of(game, "#clocks"),
                "the marker",
            )
            menu = game.query_one("#menu", OptionList)
            await until(pilot, lambda: game.served and not game.commands, "an empty menu")
            assert "the server plays for you" in str(menu.get_option_at_index(0).prompt)

            # (a key pressed while the last command awaits its answer is not sent: the view
            # can show the handover before the answer to play_for_me arrives)
            await until(pilot, lambda: not game.sending, "the answer to play for me")
            # (b sends take_back only once the view offers it among the seat's controls)
            await until(
                pilot, lambda: clocks.control_for(seat, "take_back") is not None, "take back"
            )
            await pilot.press("b")  # take my seat back
            await until(pilot, lambda: seat.view["players"][0]["auto"] is None, "taken back")
            await until(
                pilot, lambda: "played by the server" not in text_of(game, "#clocks"), "unmarked"
            )
            await pilot.press("v")  # nobody to vote for: said, nothing sent
            await pilot.pause(0.2)
            assert seat.commands == 3
    finally:
        await seat.close()
        await lobby.close()
    help_text = plain(how_to_play())
    assert "t: more time" in help_text and "b: take my seat back" in help_text
    assert "handover in 2:00" in help_text


class Away:
    """A session stub: seat 1's player is away, the server will hand the seat over soon."""

    def __init__(self, auto: str | None) -> None:
        now = int(time.time() * 1000)
        self.view: dict[str, Any] = {
            "status": "playing",
            "you": {"seat": 0, "controls": [{"type": "vote_handover", "seat": 0, "target": 1}]},
            "turn": {"seat": 1, "timed_out": False},
            "players": [
                {"seat": 0, "name": "Ada", "bot": None, "auto": None, "bank": 30, "votes": []},
                {"seat": 1, "name": "Ben", "bot": None, "auto": auto, "bank": 0, "votes": [0]},
                {"seat": 2, "name": "Greedy 3", "bot": "greedy", "auto": None, "bank": 0,
                 "votes": []},
            ],
        }  # fmt: skip
        self.presence = m.Presence("t-stub", (
            m.SeatPresence(0, True, now), m.SeatPresence(1, False, now - 5000),
            m.SeatPresence(2, True, now)), 0)  # fmt: skip
        running = () if auto else (m.RunningClock("handover", 1, now + 65_000),)
        self.clocks = m.Clocks("t-stub", 9, running)


def test_an_away_player_is_marked_counted_down_and_played_for() -> None:
    away = plain(clocks.seats(Away(None)))
    ben = next(line for line in away.splitlines() if "Ben" in line)
    assert "away since" in ben and "handover in 1:0" in ben and "votes to let the server" in ben
    assert "played by the server" not in ben
    assert "server bot" in next(line for line in away.splitlines() if "Greedy 3" in line)
    assert clocks.control_for(Away(None), "vote_handover") == {
        "type": "vote_handover", "seat": 0, "target": 1,
    }  # fmt: skip
    assert clocks.control_for(Away(None), "extend_time") is None
    handed = plain(clocks.seats(Away("away")))
    ben = next(line for line in handed.splitlines() if "Ben" in line)
    assert "played by the server (away too long)" in ben and "handover" not in ben
    assert clocks.countdown(59.2) == "1:00" and clocks.countdown(3 * 3600) == "3:00:00"
    assert clocks.countdown(86400 + 61) == "1 d 0:01:01"
