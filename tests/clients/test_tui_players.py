"""Players who come back (issue 28) in the terminal client, headless against a real server: an
identity made at the first ``play`` (a name taken is asked again), kept in a 0600 file and
signed in with on the next run; ``--guest``; ratings next to names in the lobby and the waiting
room after a rated game; the leaderboard, a player's page and a game's replay from it; a report
from the replay (sent, then already sent); a block at a live table that hides the player's chat
and marks the tables they sit at.

One server and one rated game (two signed-in SDK players, random policies) for the whole file;
the app's identities live in each test's own directory (``config_dir``), never in the home.
"""

from __future__ import annotations

import asyncio
import json
import stat
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, OptionList

from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from echoridge_terminal import EchoRidgeApp
from echoridge_terminal.chatpanel import ChatPanel
from echoridge_terminal.game import GameScreen
from echoridge_terminal.idstore import IdentityStore, Stored
from echoridge_terminal.moderation import PlayersDialog
from echoridge_terminal.ratings import LeaderboardScreen, PlayerScreen
from echoridge_terminal.replayer import ReplayScreen
from echoridge_terminal.screens import LobbyScreen
from echoridge_terminal.waiting import WaitingScreen
from tests.clients.test_tui import SIZE, click, text_of, until
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server


def handle(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:6]


@dataclass(frozen=True)
class Player:
    id: str
    handle: str
    secret: str


@dataclass(frozen=True)
class Rated:
    """A finished, rated 2-seat game: Ada at seat 0, Ben at seat 1."""

    table: str
    version: int
    ada: Player
    ben: Player


@pytest.fixture(scope="module")
def server(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    log = tmp_path_factory.mktemp("players") / "server.log"
    process = start_server(redis_server.url, log, "--bot-delay", "0")
    yield process
    process.stop()


async def _rated_game(url: str) -> Rated:
    lobbies = [await Lobby.connect(url) for _ in range(2)]
    players = []
    for lobby, prefix in zip(lobbies, ("Ada", "Ben"), strict=True):
        reply = await lobby.create_identity(handle(prefix))
        assert reply.secret is not None
        players.append(Player(reply.identity.id, reply.identity.handle, reply.secret))
    table = (await lobbies[0].create(2)).table
    tokens = [(await lobby.join(table, "ignored")).token for lobby in lobbies]
    seats = [await Seat.sit(url, table, token) for token in tokens]
    try:
        await lobbies[0].start(table, tokens[0])
        await asyncio.gather(
            *(s.play(RandomPolicy(bytes([n]) * 8), timeout=120) for n, s in enumerate(seats))
        )
        async with asyncio.timeout(30):  # rated as it is archived, moments after the end
            while True:
                games = (await lobbies[0].games(tables=[table])).games
                if games and all(p.rating is not None for p in games[0].players):
                    break
                await asyncio.sleep(0.1)
        return Rated(table, seats[0].version, players[0], players[1])
    finally:
        for s in seats:
            await s.close()
        for lobby in lobbies:
            await lobby.close()


@pytest.fixture(scope="module")
def rated(server: ServerProcess) -> Rated:
    return asyncio.run(_rated_game(server.url))


def config_with(directory: Path, url: str, player: Player) -> Path:
    """A config directory that keeps ``player``'s identity for ``url`` (another device's run)."""
    IdentityStore(directory).put(url, Stored(player.secret, player.id, player.handle))
    return directory


async def signed_in(url: str, player: Player) -> Lobby:
    return await Lobby.connect(url, identity=player.secret)


def lobby_ready(app: EchoRidgeApp) -> bool:
    return (
        isinstance(app.screen, LobbyScreen)
        and app.ctx.lobby is not None
        and "Connected" in text_of(app.screen, "#lobby-status")
    )


def row_of(widget: DataTable[Any], key: str) -> list[str]:
    """A DataTable row's cells, as plain text."""
    return [str(getattr(c, "plain", c)) for c in widget.get_row(key)]


async def test_first_play_makes_an_identity_asks_again_when_taken_and_signs_in_later(
    server: ServerProcess, tmp_path: Path
) -> None:
    taken = handle("Taken")
    other = await Lobby.connect(server.url)
    await other.create_identity(taken)
    await other.close()
    store = IdentityStore(tmp_path / "config")
    app = EchoRidgeApp(server.url, name=taken.upper(), config_dir=store.directory)
    fresh = handle("Fresh")
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: lobby_ready(app), "the lobby")
        assert "no identity yet" in text_of(app.screen, "#lobby-status")
        await click(pilot, "#create")
        await until(
            pilot, lambda: "already taken" in text_of(app.screen, "#lobby-status"), "the name taken"
        )
        name = app.screen.query_one("#name", Input)
        assert app.focused is name and not store.path.exists() and app.ctx.me is None
        name.value = fresh
        await pilot.pause(1.0)  # (a button ignores clicks for 0.2 s after a press; slack for load)
        await click(pilot, "#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        me = app.ctx.me
        assert me is not None and me.handle == fresh
        assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
        stored = store.get(server.url)
        assert stored is not None and (stored.id, stored.handle) == (me.id, fresh)
        assert stored.secret == app.ctx.lobby.secret  # type: ignore[union-attr]
        assert stored.secret not in repr(stored)
        # (the seat list says "looking..." until the table's first answer)
        await until(pilot, lambda: fresh in text_of(app.screen, "#seat-list"), "the seats")
        seats = text_of(app.screen, "#seat-list")
        assert fresh in seats and stored.secret not in seats + text_of(app.screen, "#table-info")
    again = EchoRidgeApp(server.url, config_dir=store.directory)
    async with asyncio.timeout(40), again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: lobby_ready(again), "the lobby, signed in")
        assert f"signed in as {fresh}" in text_of(again.screen, "#lobby-status")
        assert again.ctx.me is not None and again.ctx.me.id == stored.id
        field = again.screen.query_one("#name", Input)
        assert field.value == fresh and field.disabled
    assert json.loads(store.path.read_text())["servers"][server.url]["handle"] == fresh


async def test_a_guest_plays_without_an_identity(
    server: ServerProcess, tmp_path: Path, rated: Rated
) -> None:
    config = config_with(tmp_path / "config", server.url, rated.ada)
    kept = (config / "identity.json").read_text()
    app = EchoRidgeApp(server.url, name=handle("Guest"), guest=True, config_dir=config)
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: lobby_ready(app), "the lobby")
        assert "playing as a guest" in text_of(app.screen, "#lobby-status")
        await click(pilot, "#create")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        assert app.ctx.me is None and app.ctx.lobby is not None
        info = await app.ctx.lobby.table(app.ctx.table or "")
        assert info is not None and info.players[0].identity is None
    assert (config / "identity.json").read_text() == kept


async def test_ratings_the_leaderboard_a_players_page_and_a_replay_from_it(
    server: ServerProcess, tmp_path: Path, rated: Rated
) -> None:
    ada, ben = rated.ada, rated.ben
    sdk = await signed_in(server.url, ben)
    ratings = {
        p.identity: f"{p.rating}?"  # (one game: provisional)
        for p in (await sdk.games(tables=[rated.table])).games[0].players
    }
    waiting = (await sdk.create(2)).table
    await sdk.join(waiting, "ignored")
    app = EchoRidgeApp(server.url, config_dir=config_with(tmp_path, server.url, ada))
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: lobby_ready(app), "the lobby")
        tables = app.screen.query_one("#tables", DataTable)
        await until(pilot, lambda: waiting in [str(k.value) for k in tables.rows], "the table")
        assert f"{ben.handle} {ratings[ben.id]}" in row_of(tables, waiting)

        await pilot.press("f2")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, LeaderboardScreen)
                and ben.id in app.screen.handles
                and ada.id in app.screen.handles
            ),
            "the leaderboard",
        )
        board = app.screen.query_one("#board-table", DataTable)
        assert row_of(board, ben.id)[1:3] == [ben.handle, ratings[ben.id]]
        assert row_of(board, ada.id)[1] == f"{ada.handle} (you)"
        board.move_cursor(row=board.get_row_index(ben.id))
        await pilot.press("enter")
        await until(
            pilot,
            lambda: isinstance(app.screen, PlayerScreen) and rated.table in app.screen.games,
            "Ben's page",
        )
        page: Any = app.screen
        assert f"Competitive rating: {ratings[ben.id]} after 1 rated game" in page.heading
        games = page.query_one("#games-table", DataTable)
        row = row_of(games, rated.table)
        assert row[3].startswith(ratings[ben.id][:-1]) and ada.handle in row[4]
        games.move_cursor(row=games.get_row_index(rated.table))
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, ReplayScreen)
                and f"Version 0 of {rated.version}" in app.screen.status_text
            ),
            "the replay",
        )
        assert f"Seat 1 ({ben.handle}" in app.screen.status_text  # as Ben saw it
        await pilot.press("escape")
        assert app.screen is page
        await pilot.press("escape")
        await pilot.press("m")  # the player's own page, from the leaderboard
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, PlayerScreen)
                and app.screen.identity == ada.id
                and app.screen.games
            ),
            "my page",
        )
        assert f"{ada.handle} (you)" in app.screen.heading

        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        app.screen.query_one("#table-id", Input).value = waiting
        await click(pilot, "#join")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, WaitingScreen)
                and ada.handle in text_of(app.screen, "#seat-list")
            ),
            "the waiting room",
        )
        seats = text_of(app.screen, "#seat-list")
        assert f"{ada.handle} {ratings[ada.id]} (you)" in seats
        assert f"{ben.handle} {ratings[ben.id]}" in seats
    await sdk.close()


async def test_a_report_from_the_replay_is_sent_then_already_sent(
    server: ServerProcess, tmp_path: Path, rated: Rated
) -> None:
    config = config_with(tmp_path, server.url, rated.ada)
    app = EchoRidgeApp(server.url, replay=rated.table, version=5, config_dir=config)
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, ReplayScreen) and "Version 5 of" in app.screen.status_text
            ),
            "the replay",
        )
        await pilot.press("x")
        await until(
            pilot,
            lambda: isinstance(app.screen, PlayersDialog) and app.screen.people,
            "the dialog's players",
        )
        dialog: Any = app.screen
        assert [p.name for p in dialog.people] == [rated.ben.handle]  # (not oneself)
        await click(pilot, "#reason-cheating")
        dialog.query_one("#report-text", Input).value = "Knew every card"
        await click(pilot, "#send")
        await until(pilot, lambda: dialog.said.startswith("Report sent"), "the report sent")
        await pilot.pause(0.3)
        await click(pilot, "#send")
        await until(pilot, lambda: "already reported" in dialog.said, "already reported")


async def test_a_block_hides_the_players_chat_and_marks_their_tables(
    server: ServerProcess, tmp_path: Path, rated: Rated
) -> None:
    ada, ben = rated.ada, rated.ben
    sdk = await signed_in(server.url, ben)
    table = (await sdk.create(2)).table
    token = (await sdk.join(table, "ignored")).token
    config = config_with(tmp_path, server.url, ada)
    app = EchoRidgeApp(server.url, config_dir=config)
    async with asyncio.timeout(40), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: lobby_ready(app), "the lobby")
        app.screen.query_one("#table-id", Input).value = table
        await click(pilot, "#join")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        await sdk.start(table, token)
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        seat = await Seat.sit(server.url, table, token)
        panel = app.screen.query_one(ChatPanel)
        assert (await seat.say("hello from Ben")).outcome == "accepted"
        await until(pilot, lambda: any("hello from Ben" in t for t in panel.lines), "Ben's line")
        await pilot.press("x")
        await until(
            pilot,
            lambda: isinstance(app.screen, PlayersDialog) and app.screen.people,
            "the dialog's players",
        )
        dialog: Any = app.screen
        people = dialog.query_one("#people", OptionList)
        assert people.highlighted == 0 and dialog.people[0].identity == ben.id
        await click(pilot, "#block")
        await until(pilot, lambda: "is blocked" in dialog.said, "the block")
        assert not any("hello from Ben" in t for t in panel.lines)  # gone from the panel
        assert str(dialog.query_one("#block").label) == "Unblock"
        await pilot.press("escape")
        assert (await seat.say("still Ben")).outcome == "accepted"
        session = app.ctx.session
        assert session is not None
        await until(
            pilot,
            lambda: any(line.text == "still Ben" for line in session._chat_lines),
            "the line received",
        )
        await pilot.pause(0.2)
        assert not any("Ben" in t for t in panel.lines)
        await seat.close()
    assert [p.id for p in await sdk.blocked()] == []  # (Ben blocks nobody; Ada blocks Ben)
    marked = (await sdk.create(2)).table
    await sdk.join(marked, "ignored")
    again = EchoRidgeApp(server.url, config_dir=config)
    async with asyncio.timeout(40), again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: lobby_ready(again), "the lobby")
        tables = again.screen.query_one("#tables", DataTable)
        await until(pilot, lambda: marked in [str(k.value) for k in tables.rows], "Ben's table")
        assert "⚠ blocked player" in row_of(tables, marked)[5]
        assert again.ctx.blocked == {ben.id: ben.handle}
    await sdk.close()
