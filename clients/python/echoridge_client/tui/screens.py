"""The lobby and the waiting room of ``echo-ridge play``.

Lobby: the public tables waiting for players or being played, newest first, a page at a time
(F6: more), with the game each plays
(competitive, solo or cooperative; select one to join it, or to watch it), a form to create a
table (seats 1-4, the mode: competitive, or cooperative with 2-4 seats; public, spectators) and
to join a table by its id.  Waiting room: the table id to give to friends, its game, its seats
and who sits in them (``Lobby.table``, asked again every second), buttons to add random or
greedy bots and to start.
When the game starts (the seat's view leaves status ``new``), the game screen takes over.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field
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
    Header,
    Input,
    Label,
    RadioButton,
    RadioSet,
    RichLog,
    Static,
)

from echoridge_client.errors import ClientError
from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat, Spectator, TableSession
from echoridge_client.tui.game import GameScreen
from echoridge_client.tui.help import HelpScreen
from echoridge_protocol import messages as m


def player_name(p: m.SeatInfo) -> str:
    return f"{p.name} ({p.bot} bot)" if p.bot else p.name


MODE_WORDS = {"competitive": "competitive", "solo": "solo", "cooperative": "co-op"}


def mode_words(mode: str | None, seats: int | None = None) -> str:
    """A table's game in a word: ``co-op``, ``competitive`` or ``solo`` (a listing without a
    mode: competitive, solo with one seat)."""
    if mode is None:
        return "solo" if seats == 1 else "competitive"
    return MODE_WORDS.get(mode, mode)


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:
        name = ""
    return (name or "Officer")[:32]


@dataclass
class Context:
    """What the screens of one app share."""

    url: str
    name: str = field(default_factory=default_name)
    lobby: Lobby | None = None
    session: TableSession | None = None
    table: str | None = None
    token: str | None = None
    seat: int | None = None
    seats: int | None = None  # the table's seat count, when known
    mode: str | None = None  # the table's game in words (``mode_words``), when known

    async def close(self) -> None:
        if self.session is not None:
            self.session.on_update = None
            await self.session.close()
            self.session = None
        if self.lobby is not None:
            await self.lobby.close()
            self.lobby = None


class LobbyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        ("f5", "refresh", "Refresh tables"),
        ("f6", "more", "More tables"),
        Binding("f1", "help", "How to play"),
        ("ctrl+q", "app.quit", "Quit"),
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
        self.sub_title = f"lobby of {ctx.url}"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Connecting to {self.ctx.url}...", id="lobby-status")
        with Horizontal():
            with Vertical(id="tables-box"):
                yield Label("Public tables (Enter joins a waiting table, watches one being played)")
                table: DataTable[str] = DataTable(id="tables", cursor_type="row")
                yield table
                with Horizontal(id="list-buttons"):
                    yield Button("Refresh (F5)", id="refresh")
                    yield Button("More tables (F6)", id="more", disabled=True)
            with Vertical(id="forms"):
                yield Label("Your name")
                yield Input(self.ctx.name, id="name", max_length=32)
                yield Label("Create a table: seats")
                with RadioSet(id="seats"):
                    for n in range(1, 5):
                        yield RadioButton(str(n), value=n == 4, id=f"seats-{n}")
                yield Label("Game")
                with RadioSet(id="mode"):
                    yield RadioButton("Competitive", value=True, id="mode-competitive")
                    yield RadioButton("Cooperative (2-4)", id="mode-cooperative")
                yield Checkbox("Public (listed in the lobby)", True, id="public")
                yield Checkbox("Spectators may watch", True, id="spectators")
                yield Button("Create table", id="create", variant="primary")
                yield Label("Join a table by its id")
                yield Input(placeholder="t-...", id="table-id")
                yield Button("Join", id="join")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        table.add_columns("table", "game", "status", "seats", "taken", "players", "spectators")
        self.run_worker(self._connect(), exclusive=True, group="lobby")

    def status(self, text: str, error: bool = False) -> None:
        self.query_one("#lobby-status", Static).update(f"[b red]{text}[/]" if error else text)

    async def _connect(self) -> None:
        try:
            if self.ctx.lobby is None:
                self.ctx.lobby = await Lobby.connect(
                    self.ctx.url, on_busy=lambda busy: self.status(f"{busy}; waiting to retry")
                )
        except (ClientError, OSError, TimeoutError) as exc:
            self.status(f"Cannot connect to {self.ctx.url}: {exc}  (F5 to retry)", error=True)
            return
        self.status(f"Connected to {self.ctx.url}")
        await self._refresh()
        if self.timer is None:
            self.timer = self.set_interval(3.0, self._relist)

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
            self.status(f"Lost the lobby: {exc}  (F5 reconnects)", error=True)
            lobby, self.ctx.lobby = self.ctx.lobby, None
            await lobby.close()
            return
        self.query_one("#more", Button).disabled = cursor is None
        widget = self.query_one("#tables", DataTable)
        widget.clear()
        self.listed, self.modes = {}, {}
        self.playing = {t.table for t in tables if t.status == "playing"}
        for t in tables:
            self.listed[t.table] = t.seats
            self.modes[t.table] = mode_words(getattr(t, "mode", None), t.seats)
            widget.add_row(
                t.table,
                self.modes[t.table],
                t.status,
                str(t.seats),
                str(t.taken),
                Text(", ".join(player_name(p) for p in t.players)),  # text, never markup
                "yes" if t.spectators else "no",
                key=t.table,
            )

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

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
            self.status("A cooperative game needs 2 to 4 seats.", error=True)
            return
        public = self.query_one("#public", Checkbox).value
        spectators = self.query_one("#spectators", Checkbox).value
        mode: m.GameMode | None = "cooperative" if cooperative else None
        self._run(self._create(seats, public, spectators, mode))

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
            spectator = await Spectator.watch(ctx.url, table)
        except ClientError as exc:
            self.status(f"Could not watch {table}: {exc}", error=True)
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
        self, seats: int, public: bool, spectators: bool, mode: m.GameMode | None = None
    ) -> None:
        """A new table (``mode`` None: competitive, solo with one seat), then a seat at it."""
        try:
            if self.ctx.lobby is None:
                raise ClientError("not connected")
            created = await self.ctx.lobby.create(
                seats, public=public, spectators=spectators, mode=mode
            )
        except ClientError as exc:
            self.status(f"Could not create a table: {exc}", error=True)
            self.busy = False
            return
        self.modes[created.table] = mode_words(mode, seats)
        await self._join(created.table, seats)

    async def _join(self, table: str, seats: int | None) -> None:
        ctx = self.ctx
        ctx.name = self.query_one("#name", Input).value.strip()[:32] or default_name()
        try:
            if ctx.lobby is None:
                raise ClientError("not connected")
            joined = await ctx.lobby.join(table, ctx.name)
            ctx.table, ctx.token, ctx.seat, ctx.seats = table, joined.token, joined.seat, seats
            ctx.mode = self.modes.get(table)
            ctx.session = await Seat.sit(ctx.url, table, joined.token)
        except ClientError as exc:
            self.status(f"Could not join {table}: {exc}", error=True)
            self.busy = False
            return
        self.busy = False
        if ctx.session.status != "new":
            self.app.call_later(self.app.switch_screen, GameScreen(ctx.session, read_only=False))
        else:
            self.app.call_later(self.app.switch_screen, WaitingScreen(ctx))


class WaitingScreen(Screen[None]):
    """A joined table before its start: invite friends, add bots, start."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "How to play"),
        ("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.taken: int | None = None
        self.info: m.TableInfo | None = None  # the last look at the table
        self.busy = False
        self.bots = 0  # bots this screen added
        self.sub_title = f"table {ctx.table}"
        self.started = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="table-info")
        yield Static(id="seat-list")
        with Horizontal(id="waiting-buttons"):
            yield Button("Add random bot", id="add-random")
            yield Button("Add greedy bot", id="add-greedy")
            yield Button("Start game", id="start", variant="primary")
            yield Button("Leave", id="leave", variant="error")
        yield RichLog(id="wait-log", wrap=True, markup=True)
        yield Footer()

    def on_mount(self) -> None:
        ctx = self.ctx
        assert ctx.session is not None
        ctx.session.on_update = self._view_changed
        self._info()
        self.note(f"Joined table [b]{ctx.table}[/] as P{(ctx.seat or 0) + 1}.")
        self.note("F1: how to play.")
        self.set_interval(1.0, self._poll)
        self.run_worker(self._poll(), group="poll")

    def note(self, text: str) -> None:
        self.query_one("#wait-log", RichLog).write(text)

    def _info(self) -> None:
        ctx = self.ctx
        seats = "?" if ctx.seats is None else str(ctx.seats)
        taken = "?" if self.taken is None else str(self.taken)
        game = f"  Game: [b]{ctx.mode}[/]" if ctx.mode else ""
        if ctx.mode == "co-op":
            game += " (the team against the clock; roles are drawn at the start)"
        self.query_one("#table-info", Static).update(
            f"Table [b reverse] {ctx.table} [/]{game}\nYou are [b]P{(ctx.seat or 0) + 1}[/] "
            f"(seat {ctx.seat}), name {ctx.name}\n"
            f"Seats taken: [b]{taken}/{seats}[/]\n"
            f"Friends join with: [b]echo-ridge play {ctx.url}[/], then join table "
            f"[b]{ctx.table}[/]\nFill the free seats with bots, then start the game."
        )
        self.query_one("#seat-list", Static).update(self.seat_list())

    def seat_list(self) -> Text:
        """Every seat of the table: who sits there (bots marked) or free."""
        ctx = self.ctx
        out = Text("Seats:\n", style="bold")
        if self.info is None:
            return out + Text("  (looking...)", style="dim")
        sitting = {p.seat: p for p in self.info.players}
        for seat in range(self.info.seats):
            out.append(f"  P{seat + 1}  ")
            p = sitting.get(seat)
            if p is None:
                out.append("free", style="dim")
            else:
                out.append(player_name(p), style="bold" if seat == ctx.seat else "")
                if seat == ctx.seat:
                    out.append(" (you)")
            out.append("\n")
        return out

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def _view_changed(self, session: TableSession) -> None:
        if session.status != "new":
            self._go()

    def _go(self) -> None:
        if self.started or self.ctx.session is None:
            return
        self.started = True
        self.app.call_later(self.app.switch_screen, GameScreen(self.ctx.session, read_only=False))

    async def _poll(self) -> None:
        ctx = self.ctx
        if ctx.session is not None and ctx.session.status != "new":
            self._go()
            return
        if ctx.lobby is None or self.started:
            return
        try:
            mine = await ctx.lobby.table(ctx.table or "")
        except ClientError:
            return
        if mine is not None:
            ctx.seats, self.taken, self.info = mine.seats, mine.taken, mine
            ctx.mode = mode_words(getattr(mine, "mode", None), mine.seats)
        self._info()

    @on(Button.Pressed, "#add-random")
    def _add_random(self) -> None:
        self._run(self._add_bot("random"))

    @on(Button.Pressed, "#add-greedy")
    def _add_greedy(self) -> None:
        self._run(self._add_bot("greedy"))

    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        self._run(self._start_game())

    @on(Button.Pressed, "#leave")
    def _leave(self) -> None:
        self._run(self._leave_table())

    def _run(self, work: object) -> None:
        if self.busy:
            return
        self.busy = True
        self.run_worker(work, group="waiting")  # type: ignore[arg-type]

    async def _add_bot(self, kind: str) -> None:
        ctx = self.ctx
        try:
            assert ctx.lobby and ctx.table and ctx.token
            result = await ctx.lobby.add_bot(ctx.table, ctx.token, kind)
            if result.outcome == "accepted":
                self.note(f"Added a {kind} bot.")
                self.bots += 1
                if self.taken is not None:
                    self.taken += 1
            else:
                self.note(f"[red]No bot added: {result.code} {result.message or ''}[/]")
            await self._poll()
        except ClientError as exc:
            self.note(f"[red]{exc}[/]")
        finally:
            self.busy = False

    async def _start_game(self) -> None:
        ctx = self.ctx
        try:
            assert ctx.lobby and ctx.table and ctx.token
            result = await ctx.lobby.start(ctx.table, ctx.token)
            if result.outcome == "accepted":
                self.note("The game starts.")
            else:
                self.note(f"[red]Cannot start: {result.code} {result.message or ''}[/]")
        except ClientError as exc:
            self.note(f"[red]{exc}[/]")
        finally:
            self.busy = False

    async def _leave_table(self) -> None:
        ctx = self.ctx
        try:
            assert ctx.lobby and ctx.table and ctx.token
            if ctx.session is not None:
                ctx.session.on_update = None
                await ctx.session.close()
                ctx.session = None
            await ctx.lobby.leave(ctx.table, ctx.token)
        except ClientError as exc:
            self.note(f"[red]{exc}[/]")
            self.busy = False
            return
        ctx.table = ctx.token = None
        ctx.seat = None
        self.started = True  # stop polling
        self.app.call_later(self.app.switch_screen, LobbyScreen(ctx))
