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
from textual.widgets import DataTable, Footer, Static

from echoridge_client.errors import ClientError, Refused
from echoridge_protocol import messages as m
from echoridge_terminal import signin
from echoridge_terminal.context import Context, bot_name, mode_words
from echoridge_terminal.header import Header
from echoridge_terminal.i18n import isolate, t
from echoridge_terminal.replaydata import Viewer
from echoridge_terminal.replayer import ReplayScreen

PAGE = 50  # players, or games, a page


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
        result = Text(t("ratings.nobody_won"), style="red")
    elif mine.seat in game.winners:
        result = Text(t("ratings.won"), style="bold green")
    else:
        result = Text(t("ratings.lost"), style="red")
    rating = ""
    if mine is not None and mine.rating is not None:
        rating = f"{mine.rating} ({change_words(mine.rating_change)})"
    players = Text()
    for n, p in enumerate(game.players):
        if n:
            players.append(", ")
        # text, never markup
        players.append(bot_name(p.name, p.bot) if p.bot else p.name)
        if p.rating_change is not None:
            players.append(f" {change_words(p.rating_change)}", style="dim")
        if p.seat in game.winners:
            players.append(" ★", style="bold green")
    return ended, t(f"mode.{mode_words(game.mode, game.seats)}"), result, rating, players


class LeaderboardScreen(Screen[None]):
    """The competitive ratings, best first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,b", "app.pop_screen", t("key.back")),
        Binding("f6", "more", t("ratings.key.more_players")),
        Binding("m", "mine", t("lobby.key.my_page")),
        Binding("ctrl+q", "app.quit", t("key.quit")),
    ]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.next: str | None = None
        self.handles: dict[str, str] = {}  # identity -> handle, of the rows shown
        self.sub_title = t("ratings.leaderboard")

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(t("ratings.fetching_board"), id="board-status")
        table: DataTable[str | Text] = DataTable(id="board-table", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#board-table", DataTable)
        heads = ("rank", "player", "rating", "games")
        table.add_columns(*(t(f"ratings.column.{c}") for c in heads))
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
            self.status(t("ratings.no_board", problem=signin.code_words(exc.code)), error=True)
            return
        except (ClientError, TimeoutError) as exc:
            self.status(t("ratings.no_board", problem=str(exc)), error=True)
            return
        table = self.query_one("#board-table", DataTable)
        me = self.ctx.me
        for r in page.players:
            if r.identity in self.handles:
                continue
            self.handles[r.identity] = r.handle
            you = me is not None and r.identity == me.id
            name = Text(t("word.you", name=r.handle) if you else r.handle)  # text, never markup
            if you:
                name.highlight_words([r.handle], "bold")
            table.add_row(str(r.rank), name, shown(r.rating, r.provisional), str(r.games),
                          key=r.identity)  # fmt: skip
        self.next = page.next
        self.refresh_bindings()
        if not self.handles:
            self.status(t("ratings.nobody_rated"))
            return
        self.status(t("ratings.board_help", more="yes" if self.next else "no"))

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
        Binding("escape,b", "app.pop_screen", t("key.back")),
        Binding("f6", "more", t("ratings.key.more_games")),
        Binding("ctrl+q", "app.quit", t("key.quit")),
    ]

    def __init__(self, ctx: Context, identity: str, handle: str = "") -> None:
        super().__init__()
        self.ctx, self.identity, self.handle = ctx, identity, handle
        self.next: str | None = None
        self.games: dict[str, m.GameRecord] = {}  # table -> game, of the rows shown
        self.page: m.PlayerPage | None = None
        self.sub_title = t("ratings.player", known="yes" if handle else "no", name=handle)
        self.heading = ""  # what the top says, plain (for tests)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(t("ratings.fetching_page", known="yes" if self.handle else "no",
                       name=isolate(self.handle)), id="player-head")  # fmt: skip
        table: DataTable[str | Text] = DataTable(id="games-table", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#games-table", DataTable)
        heads = ("ended", "game", "result", "rating_after", "players")
        table.add_columns(*(t(f"ratings.column.{c}") for c in heads))
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
            words = t("ratings.no_player") if exc.code == "identity/not_found" else (
                signin.code_words(exc.code))  # fmt: skip
            self._head(Text(words, style="bold red"))
            return
        except (ClientError, TimeoutError) as exc:
            self._head(Text(t("ratings.page_failed", problem=str(exc)), style="bold red"))
            return
        self.page, self.handle, self.next = page, page.identity.handle, page.next
        self.sub_title = t("ratings.player", known="yes", name=self.handle)
        table = self.query_one("#games-table", DataTable)
        for game in page.games:
            if game.table not in self.games:
                self.games[game.table] = game
                table.add_row(*game_row(game, self.identity), key=game.table)
        self._head(self._heading(page))
        self.refresh_bindings()

    def _heading(self, page: m.PlayerPage) -> Text:
        handle = page.identity.handle
        me = self.ctx.me
        you = me is not None and me.id == page.identity.id
        out = Text(t("word.you", name=handle) if you else handle)  # text, never markup
        out.stylize("bold reverse", 0, len(out))
        if not page.ratings:
            out.append("\n" + t("ratings.no_rated_games"))
        for r in page.ratings:
            rating = shown(r.rating, r.provisional)
            line = Text(t("ratings.rating", mode=mode_words(r.mode), rating=rating, n=r.games,
                          provisional="yes" if r.provisional else "no"))  # fmt: skip
            line.highlight_words([rating], "bold")
            out.append("\n")
            out.append_text(line)
        out.append("\n" + t("ratings.replay_help" if self.games else "ratings.no_games"))
        if self.next:
            out.append(t("ratings.more_games"))
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
