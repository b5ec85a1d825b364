"""The leaderboard and the players' pages of ``echo-ridge play`` (SPEC.md §4.10).

The leaderboard (F2 in the lobby): the competitive ratings, best first, a page at a time (F6:
more); Enter opens the chosen player's page, m the player's own.  A player's page: their
ratings, and the finished games they sat at, newest first (F6: more), each with its result for
them and every player's rating change; Enter opens the chosen game's replay as that player saw
it (replayer.py; Escape comes back).  A rating is shown as a number, ``?`` after it while it is
provisional (the player's first games: the server is not sure yet).
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from echoridge_client.errors import ClientError, Refused
from echoridge_protocol import messages as m
from echoridge_terminal import signin
from echoridge_terminal.context import Context, bot_level, mode_words
from echoridge_terminal.replaydata import Viewer
from echoridge_terminal.replayer import ReplayScreen

PAGE = 50  # players, or games, a page
PROVISIONAL = "? after a rating: provisional (the player's first games: the server is not sure yet)"


def shown(rating: int, provisional: bool) -> str:
    return f"{rating}?" if provisional else str(rating)


def change_words(change: int | None) -> str:
    """A rating change: ``+21``, ``-18``, ``±0``; "" when the game was not rated."""
    if change is None:
        return ""
    return "±0" if change == 0 else f"{change:+d}"


def game_row(game: m.GameRecord, who: str) -> tuple[str, str, Text, str, Text]:
    """A game of ``who``'s page: when it ended, the game, the result for them, their rating
    after it (with its change), and every player (with theirs)."""
    ended = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.ended / 1000))
    mine = next((p for p in game.players if p.identity == who), None)
    if mine is None:
        result = Text("-", style="dim")
    elif not game.winners:
        result = Text("nobody won", style="red")
    elif mine.seat in game.winners:
        result = Text("won", style="bold green")
    else:
        result = Text("lost", style="red")
    rating = ""
    if mine is not None and mine.rating is not None:
        rating = f"{mine.rating} ({change_words(mine.rating_change)})"
    players = Text()
    for n, p in enumerate(game.players):
        if n:
            players.append(", ")
        # text, never markup
        players.append(f"{p.name} ({bot_level(p.bot)} bot)" if p.bot else p.name)
        if p.rating_change is not None:
            players.append(f" {change_words(p.rating_change)}", style="dim")
        if p.seat in game.winners:
            players.append(" ★", style="bold green")
    return ended, mode_words(game.mode, game.seats), result, rating, players


class LeaderboardScreen(Screen[None]):
    """The competitive ratings, best first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,b", "app.pop_screen", "Back"),
        Binding("f6", "more", "More players"),
        Binding("m", "mine", "My page"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.next: str | None = None
        self.handles: dict[str, str] = {}  # identity -> handle, of the rows shown
        self.sub_title = "leaderboard"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Fetching the leaderboard...", id="board-status")
        table: DataTable[str | Text] = DataTable(id="board-table", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#board-table", DataTable)
        table.add_columns("rank", "player", "rating", "rated games")
        table.focus()
        self.run_worker(self._fetch(None), group="board", exclusive=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mine":
            return self.ctx.me is not None
        if action == "more":
            return self.next is not None
        return True

    def status(self, text: str, error: bool = False) -> None:
        self.query_one("#board-status", Static).update(
            Text(text, style="bold red" if error else "")
        )

    async def _fetch(self, cursor: str | None) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        try:
            page = await lobby.leaderboard(limit=PAGE, cursor=cursor)
        except Refused as exc:
            self.status(f"No leaderboard: {signin.code_words(exc.code)}", error=True)
            return
        except (ClientError, TimeoutError) as exc:
            self.status(f"No leaderboard: {exc}", error=True)
            return
        table = self.query_one("#board-table", DataTable)
        me = self.ctx.me
        for r in page.players:
            if r.identity in self.handles:
                continue
            self.handles[r.identity] = r.handle
            you = me is not None and r.identity == me.id
            name = Text(r.handle, style="bold" if you else "")  # text, never markup
            if you:
                name.append(" (you)")
            table.add_row(str(r.rank), name, shown(r.rating, r.provisional), str(r.games),
                          key=r.identity)  # fmt: skip
        self.next = page.next
        self.refresh_bindings()
        if not self.handles:
            self.status("Nobody is rated yet: ratings come with competitive games between "
                        "players with an identity.")  # fmt: skip
            return
        more = "  F6: more players." if self.next else ""
        self.status(f"Enter: a player's page.  {PROVISIONAL}.{more}")

    def action_more(self) -> None:
        if self.next is not None:
            self.run_worker(self._fetch(self.next), group="board", exclusive=True)

    def action_mine(self) -> None:
        me = self.ctx.me
        if me is not None:
            self.app.push_screen(PlayerScreen(self.ctx, me.id, me.handle))

    @on(DataTable.RowSelected, "#board-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        ident = str(event.row_key.value)
        self.app.push_screen(PlayerScreen(self.ctx, ident, self.handles.get(ident, "")))


class PlayerScreen(Screen[None]):
    """One player's ratings and finished games."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,b", "app.pop_screen", "Back"),
        Binding("f6", "more", "More games"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self, ctx: Context, identity: str, handle: str = "") -> None:
        super().__init__()
        self.ctx, self.identity, self.handle = ctx, identity, handle
        self.next: str | None = None
        self.games: dict[str, m.GameRecord] = {}  # table -> game, of the rows shown
        self.page: m.PlayerPage | None = None
        self.sub_title = f"player {handle}" if handle else "player"
        self.heading = ""  # what the top says, plain (for tests)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Fetching the page of {self.handle or 'the player'}...", id="player-head")
        table: DataTable[str | Text] = DataTable(id="games-table", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#games-table", DataTable)
        table.add_columns("ended", "game", "result", "rating after", "players (rating change)")
        table.focus()
        self.run_worker(self._fetch(None), group="player", exclusive=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.next is not None if action == "more" else True

    def _head(self, text: Text) -> None:
        self.heading = text.plain
        self.query_one("#player-head", Static).update(text)

    async def _fetch(self, cursor: str | None) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        try:
            page = await lobby.player(identity=self.identity, limit=PAGE, cursor=cursor)
        except Refused as exc:
            words = "There is no such player." if exc.code == "identity/not_found" else (
                signin.code_words(exc.code))  # fmt: skip
            self._head(Text(words, style="bold red"))
            return
        except (ClientError, TimeoutError) as exc:
            self._head(Text(f"The page could not be fetched: {exc}", style="bold red"))
            return
        self.page, self.handle, self.next = page, page.identity.handle, page.next
        self.sub_title = f"player {self.handle}"
        table = self.query_one("#games-table", DataTable)
        for game in page.games:
            if game.table not in self.games:
                self.games[game.table] = game
                table.add_row(*game_row(game, self.identity), key=game.table)
        self._head(self._heading(page))
        self.refresh_bindings()

    def _heading(self, page: m.PlayerPage) -> Text:
        out = Text(page.identity.handle, style="bold reverse")
        me = self.ctx.me
        if me is not None and me.id == page.identity.id:
            out.append(" (you)")
        if not page.ratings:
            out.append("\nNo rated games yet.")
        for r in page.ratings:
            out.append(f"\n{mode_words(r.mode).capitalize()} rating: ")
            out.append(shown(r.rating, r.provisional), style="bold")
            out.append(f" after {r.games} rated game{'s' if r.games != 1 else ''}")
            if r.provisional:
                out.append(" (provisional: the first games, the server is not sure yet)")
        if self.games:
            out.append("\nEnter: replay the chosen game as this player saw it (Escape comes back).")
        else:
            out.append("\nNo finished games to show.")
        if self.next:
            out.append("  F6: more games.")
        return out

    def action_more(self) -> None:
        if self.next is not None:
            self.run_worker(self._fetch(self.next), group="player", exclusive=True)

    @on(DataTable.RowSelected, "#games-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        game = self.games.get(str(event.row_key.value))
        if game is None:
            return
        seat = next((p.seat for p in game.players if p.identity == self.identity), None)
        self.app.push_screen(ReplayScreen(self.ctx, game.table, Viewer(seat=seat), back=True))
