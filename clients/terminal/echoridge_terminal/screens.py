"""The lobby of ``echo-ridge play``: the public tables waiting for players or being played,
newest first, a page at a time (F6: more), with the game each plays (competitive, solo or
cooperative; select one to join it, or to watch it), a form to create a table (seats 1-4, the
mode: competitive, or cooperative with 2-4 seats; public, spectators) and to join a table by
its id.  A table joined opens its waiting room (waiting.py), or the game screen if it started.

Players who come back (SPEC.md §4.9-4.11): the lobby signs in with the identity kept for the
server (signin.py), or makes one with the name chosen at the first table created or joined (a
name taken is asked again); each signed-in seat shows its rating (``Ada 1012?``: ``?`` while
provisional) and a table where a blocked player sits is marked.  F2 opens the leaderboard, F3
the player's own page (ratings.py), F4 who they are: rename, a transfer code for another
device, the players they block (account.py).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Footer,
    Input,
    Label,
    RadioButton,
    RadioSet,
    Static,
)

from echoridge_client.errors import ClientError, Refused
from echoridge_client.session import Seat, Spectator
from echoridge_protocol import messages as m
from echoridge_terminal import signin
from echoridge_terminal.account import AccountScreen
from echoridge_terminal.context import Context, default_name, mode_words, player_name
from echoridge_terminal.game import GameScreen
from echoridge_terminal.header import Header
from echoridge_terminal.help import HelpScreen
from echoridge_terminal.i18n import error_words, isolate, t
from echoridge_terminal.ratings import LeaderboardScreen, PlayerScreen
from echoridge_terminal.waiting import WaitingScreen

COLUMNS = ("table", "game", "status", "seats", "taken", "players", "spectators")


COLUMNS = ("table", "game", "status", "seats", "taken", "players", "spectators")


COLUMNS = ("table", "game", "status", "seats", "taken", "players", "spectators")


class LobbyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f5", "refresh", t("lobby.key.refresh")),
        Binding("f6", "more", t("lobby.key.more")),
        Binding("f2", "leaderboard", t("lobby.key.leaderboard")),
        Binding("f3", "my_page", t("lobby.key.my_page")),
        Binding("f4", "account", t("lobby.key.account")),
        Binding("f1", "help", t("key.help")),
        Binding("ctrl+q", "app.quit", t("key.quit")),
    ]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.busy = False
        self.listed: dict[str, int] = {}  # table -> seats, from the last listing
        self.modes: dict[str, str] = {}  # table -> its mode in words, from the last listing
        self.playing: set[str] = set()  # tables of the last listing being played
        self.pages = 1  # pages of the listing shown (F6 adds one)
        self.timer: Timer | None = None
        self.sub_title = t("lobby.title", url=ctx.url)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(t("lobby.connecting", url=self.ctx.url), id="lobby-status")
        with Horizontal():
            with Vertical(id="tables-box"):
                yield Label(t("lobby.tables"))
                table: DataTable[str] = DataTable(id="tables", cursor_type="row")
                yield table
                with Horizontal(id="list-buttons"):
                    yield Button(t("lobby.refresh"), id="refresh")
                    yield Button(t("lobby.more"), id="more", disabled=True)
            with Vertical(id="forms"):
                yield Label(t("lobby.name"), id="name-label")
                yield Input(self.ctx.name, id="name", max_length=32)
                yield Label(t("lobby.seats"))
                with RadioSet(id="seats"):
                    for n in range(1, 5):
                        yield RadioButton(str(n), value=n == 4, id=f"seats-{n}")
                yield Label(t("lobby.game"))
                with RadioSet(id="mode"):
                    yield RadioButton(t("lobby.competitive"), value=True, id="mode-competitive")
                    yield RadioButton(t("lobby.cooperative"), id="mode-cooperative")
                yield Checkbox(t("lobby.public"), True, id="public")
                yield Checkbox(t("lobby.spectators"), True, id="spectators")
                yield Checkbox(t("lobby.rate_bots"), False, id="rate-bots")
                yield Button(t("lobby.create"), id="create", variant="primary")
                yield Label(t("lobby.join_by_id"))
                yield Input(placeholder="t-...", id="table-id")
                yield Button(t("lobby.join"), id="join")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        table.add_columns(*(t(f"lobby.column.{c}") for c in COLUMNS))
        self.run_worker(self._connect(), exclusive=True, group="lobby")

    def status(self, text: str, error: bool = False) -> None:
        self.query_one("#lobby-status", Static).update(f"[b red]{text}[/]" if error else text)

    async def _connect(self) -> None:
        try:
            if self.ctx.lobby is None:
                await signin.sign_in(
                    self.ctx, on_busy=lambda busy: self.status(t("lobby.busy", problem=busy))
                )
        except signin.Banned as exc:  # say so and stop
            from echoridge_terminal.app import MessageScreen

            self.app.call_later(self.app.switch_screen, MessageScreen(exc.words))
            return
        except (ClientError, OSError, TimeoutError) as exc:
            self.status(t("lobby.cannot_connect", url=self.ctx.url, problem=str(exc)), error=True)
            return
        self.show_identity()
        await self._refresh()
        if self.timer is None:
            self.timer = self.set_interval(3.0, self._relist)

    def show_identity(self) -> None:
        """The status line (connected, who the player is, what signing in has to say) and the
        name field: a signed-in player's handle, changed with F4."""
        ctx = self.ctx
        me = ctx.me
        if me is not None:
            out = Text(t("lobby.connected.signed_in", url=ctx.url, handle=isolate(me.handle)))
        elif ctx.guest:
            out = Text(t("lobby.connected.guest", url=ctx.url))
        else:
            out = Text(t("lobby.connected.new", url=ctx.url))
        if ctx.notice:
            out.append(f"\n{ctx.notice}", style="bold yellow")
        self.query_one("#lobby-status", Static).update(out)
        field = self.query_one("#name", Input)
        label = self.query_one("#name-label", Label)
        if me is not None:
            field.value, field.disabled = me.handle, True
            label.update(t("lobby.name.rename"))
        else:
            field.disabled = False
            label.update(t("lobby.name") if ctx.guest else t("lobby.name.kept"))

    async def _relist(self) -> None:
        if not self.busy and self.is_current:
            await self._refresh()

    async def _refresh(self) -> None:
        if self.ctx.lobby is None:
            self.run_worker(self._connect(), exclusive=True, group="lobby")
            return
        tables: list[m.TableInfo] = []
        cursor: str | None = None
        try:
            for _ in range(self.pages):  # the pages shown, newest first
                page = await self.ctx.lobby.page(cursor)
                tables += page.tables
                cursor = page.next
                if cursor is None:
                    break
        except ClientError as exc:
            self.status(t("lobby.lost", problem=str(exc)), error=True)
            lobby, self.ctx.lobby = self.ctx.lobby, None
            await lobby.close()
            return
        self.query_one("#more", Button).disabled = cursor is None
        widget = self.query_one("#tables", DataTable)
        widget.clear()
        self.listed, self.modes = {}, {}
        self.playing = {info.table for info in tables if info.status == "playing"}
        for info in tables:
            self.listed[info.table] = info.seats
            self.modes[info.table] = mode_words(getattr(info, "mode", None), info.seats)
            widget.add_row(
                info.table,
                t(f"mode.{self.modes[info.table]}"),
                t("lobby.status", status=info.status),
                str(info.seats),
                str(info.taken),
                players_cell(info, self.ctx.blocked),
                t("word.yes") if info.spectators else t("word.no"),
                key=info.table,
            )

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_leaderboard(self) -> None:
        if self.ctx.lobby is not None:
            self.app.push_screen(LeaderboardScreen(self.ctx))

    def action_my_page(self) -> None:
        me = self.ctx.me
        if me is None:
            key = "lobby.no_page.guest" if self.ctx.guest else "lobby.no_page.new"
            self.status(t(key), error=True)
            return
        self.app.push_screen(PlayerScreen(self.ctx, me.id, me.handle))

    def action_account(self) -> None:
        if self.ctx.me is None:
            key = "lobby.no_identity.guest" if self.ctx.guest else "lobby.no_identity"
            self.status(t(key), error=True)
            return
        self.app.push_screen(AccountScreen(self.ctx), lambda _: self.show_identity())

    async def action_refresh(self) -> None:
        await self._refresh()

    @on(Button.Pressed, "#refresh")
    async def _refresh_pressed(self) -> None:
        await self._refresh()

    @on(Button.Pressed, "#more")
    async def action_more(self) -> None:
        """Show one more page of the listing (when there is one)."""
        if not self.query_one("#more", Button).disabled:
            self.pages += 1
            await self._refresh()

    @on(Button.Pressed, "#create")
    def _create_pressed(self) -> None:
        seats = self.query_one("#seats", RadioSet).pressed_index + 1 or 4
        cooperative = self.query_one("#mode", RadioSet).pressed_index == 1
        if cooperative and seats == 1:
            self.status(t("lobby.coop_seats"), error=True)
            return
        public = self.query_one("#public", Checkbox).value
        spectators = self.query_one("#spectators", Checkbox).value
        rate_bots = self.query_one("#rate-bots", Checkbox).value
        mode: m.GameMode | None = "cooperative" if cooperative else None
        self._run(self._create(seats, public, spectators, mode, rate_bots))

    @on(Input.Submitted, "#name")
    def _name_submitted(self) -> None:
        """Enter in the name field: the identity is made now (else at the first table)."""
        if self.ctx.me is None and not self.ctx.guest:
            self._run(self._name_chosen())

    async def _name_chosen(self) -> None:
        if await self._identity():
            self.busy = False

    @on(Button.Pressed, "#join")
    @on(Input.Submitted, "#table-id")
    def _join_pressed(self) -> None:
        table = self.query_one("#table-id", Input).value.strip()
        if table:
            self._run(self._join(table, self.listed.get(table)))

    @on(DataTable.RowSelected, "#tables")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        table = str(event.row_key.value)
        if table in self.playing:
            self._run(self._watch(table))
        else:
            self._run(self._join(table, self.listed.get(table)))

    async def _watch(self, table: str) -> None:
        """Watch a table being played, as a spectator."""
        ctx = self.ctx
        try:
            secret = ctx.lobby.secret if ctx.lobby is not None and ctx.me else None
            spectator = await Spectator.watch(ctx.url, table, identity=secret)
        except ClientError as exc:
            self.status(t("lobby.cannot_watch", table=table, problem=str(exc)), error=True)
            self.busy = False
            return
        self.busy = False
        ctx.session, ctx.table = spectator, table
        self.app.call_later(self.app.switch_screen, GameScreen(spectator, read_only=True))

    def _run(self, work: object) -> None:
        if self.busy:
            return
        self.busy = True
        self.run_worker(work, exclusive=True, group="lobby-action")  # type: ignore[arg-type]

    async def _create(
        self,
        seats: int,
        public: bool,
        spectators: bool,
        mode: m.GameMode | None = None,
        rate_bots: bool = False,
    ) -> None:
        """A new table (``mode`` None: competitive, solo with one seat; ``rate_bots``: its game
        rated with its bots as players), then a seat at it."""
        if not await self._identity():
            return
        try:
            if self.ctx.lobby is None:
                raise ClientError(t("lobby.not_connected"))
            created = await self.ctx.lobby.create(
                seats, public=public, spectators=spectators, mode=mode,
                rate_bots=True if rate_bots else None,
            )
        except ClientError as exc:
            self.status(t("lobby.cannot_create", problem=refusal(exc)), error=True)
            self.busy = False
            return
        self.modes[created.table] = mode_words(mode, seats)
        await self._join(created.table, seats)

    async def _identity(self) -> bool:
        """The first name chosen makes the player's identity (not a guest's): False when it
        cannot be (the name is taken: the player types another)."""
        ctx = self.ctx
        ctx.name = self.query_one("#name", Input).value.strip()[:32] or default_name()
        if ctx.me is not None or ctx.guest:
            return True
        try:
            problem = await signin.make_identity(ctx, ctx.name)
        except (ClientError, TimeoutError) as exc:
            problem = t("lobby.cannot_identify", problem=str(exc))
        if problem is not None:
            self.status(problem, error=True)
            self.query_one("#name", Input).focus()
            self.busy = False
            return False
        self.show_identity()
        return True

    async def _join(self, table: str, seats: int | None) -> None:
        ctx = self.ctx
        if not await self._identity():
            return
        try:
            if ctx.lobby is None:
                raise ClientError(t("lobby.not_connected"))
            joined = await ctx.lobby.join(table, ctx.name)
            ctx.table, ctx.token, ctx.seat, ctx.seats = table, joined.token, joined.seat, seats
            ctx.mode = self.modes.get(table)
            ctx.session = await Seat.sit(ctx.url, table, joined.token)
        except ClientError as exc:
            self.status(t("lobby.cannot_join", table=table, problem=refusal(exc)), error=True)
            self.busy = False
            return
        self.busy = False
        if ctx.session.status != "new":
            self.app.call_later(self.app.switch_screen, GameScreen(ctx.session, read_only=False))
        else:
            self.app.call_later(self.app.switch_screen, WaitingScreen(ctx))


def players_cell(info: m.TableInfo, blocked: dict[str, str]) -> Text:
    """A listed table's players, each signed-in one with their rating; marked when a player
    the user blocks sits there."""
    out = Text(", ".join(player_name(p) for p in info.players))  # text, never markup
    if any(p.identity in blocked for p in info.players if p.identity):
        out.append(t("lobby.blocked"), style="bold red")
    return out


def refusal(exc: ClientError) -> str:
    """A refused create or join in words (a ban by its code)."""
    if isinstance(exc, Refused):
        if exc.code == "auth/banned":
            return t("lobby.refused.banned")
        if exc.code == "table/already_seated":
            return t("lobby.refused.seated")
        return error_words(exc.code)
    return str(exc)
