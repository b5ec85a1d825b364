"""The waiting room of ``echo-ridge play``: the table id to give to friends, its game, its seats
and who sits in them (``Lobby.table``, asked again every second; a signed-in player's rating
beside the name, ``?`` while provisional; a bot's level beside its name), buttons (and the keys
``e``, ``n``, ``s``) to add an easy, a normal or a strong bot, and to start.  When the game
starts (the seat's view leaves status ``new``), the game screen takes over; leaving the table
goes back to the lobby (the app's ``show_lobby``).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import (
    Button,
    Footer,
    Header,
    Label,
    RichLog,
    Static,
)

from echoridge_client.errors import ClientError
from echoridge_client.session import TableSession
from echoridge_protocol import messages as m
from echoridge_terminal.context import BOT_LEVELS, Context, mode_words, player_name
from echoridge_terminal.game import GameScreen
from echoridge_terminal.help import HelpScreen


class WaitingScreen(Screen[None]):
    """A joined table before its start: invite friends, add bots, start."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "add_bot('easy')", "Easy bot"),
        Binding("n", "add_bot('normal')", "Normal bot"),
        Binding("s", "add_bot('strong')", "Strong bot"),
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
        with Horizontal(id="bot-buttons"):
            yield Label("Add a bot:", id="bot-label")
            for kind, word, _ in BOT_LEVELS:
                yield Button(f"{word} ({kind[0]})", id=f"add-{kind}")
        with Horizontal(id="waiting-buttons"):
            yield Button("Start game", id="start", variant="primary")
            yield Button("Leave", id="leave", variant="error")
        yield RichLog(id="wait-log", wrap=True, markup=True)
        yield Footer()

    def on_mount(self) -> None:
        ctx = self.ctx
        assert ctx.session is not None
        ctx.session.on_update = self._view_changed
        self._info()
        self.note(Text.assemble("Joined table ", (str(ctx.table), "bold"), " as ",
                                (ctx.name, "bold"), "."))  # fmt: skip
        self.note("F1: how to play.")
        self.set_interval(1.0, self._poll)
        self.run_worker(self._poll(), group="poll")

    def note(self, text: str | Text) -> None:
        self.query_one("#wait-log", RichLog).write(text)

    def _info(self) -> None:
        ctx = self.ctx
        seats = "?" if ctx.seats is None else str(ctx.seats)
        taken = "?" if self.taken is None else str(self.taken)
        out = Text("Table ")
        out.append(f" {ctx.table} ", style="bold reverse")
        if ctx.mode:
            out.append("  Game: ")
            out.append(ctx.mode, style="bold")
        if ctx.mode == "co-op":
            out.append(" (the team against the clock; roles are drawn at the start)")
        out.append("\nYou are ")
        out.append(ctx.name, style="bold")  # the player's own input: text, never markup
        out.append("\nSeats taken: ")
        out.append(f"{taken}/{seats}", style="bold")
        out.append("\nFriends join with: ")
        out.append(f"echo-ridge play {ctx.url}", style="bold")
        out.append(", then join table ")
        out.append(str(ctx.table), style="bold")
        out.append("\nFill the free seats with bots, then start the game. Bots: ")
        for n, (kind, word, what) in enumerate(BOT_LEVELS):
            out.append(", " if n else "")
            out.append(word, style="bold")
            out.append(f" ({kind[0]}) {what}")
        out.append(".")
        self.query_one("#table-info", Static).update(out)
        self.query_one("#seat-list", Static).update(self.seat_list())

    def seat_list(self) -> Text:
        """Every seat of the table: who sits there (bots marked) or free."""
        ctx = self.ctx
        out = Text("Seats:\n", style="bold")
        if self.info is None:
            return out + Text("  (looking...)", style="dim")
        sitting = {p.seat: p for p in self.info.players}
        for seat in range(self.info.seats):
            out.append(f"  {seat + 1}. ")
            p = sitting.get(seat)
            if p is None:
                out.append("free", style="dim")
            else:
                out.append(player_name(p), style="bold" if seat == ctx.seat else "")
                if seat == ctx.seat:
                    out.append(" (you)")
                if p.identity and p.identity in ctx.blocked:
                    out.append("  ⚠ a player you block", style="bold red")
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

    @on(Button.Pressed, "#bot-buttons Button")
    def _add_pressed(self, event: Button.Pressed) -> None:
        self.action_add_bot((event.button.id or "").removeprefix("add-"))

    def action_add_bot(self, kind: str) -> None:
        """A bot of this level (``easy``, ``normal``, ``strong``) takes the next free seat."""
        if self.info is not None and self.info.taken >= self.info.seats:
            self.note("Every seat is taken: start the game.")
            return
        self._run(self._add_bot(kind))

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
                self.note(f"Added {'an' if kind == 'easy' else 'a'} {kind} bot.")
                self.bots += 1
                if self.taken is not None:
                    self.taken += 1
            else:
                self.note(f"[red]No bot added: {result.code} {result.message or ''}[/]")
            await self._poll()
        except (ClientError, ValueError) as exc:  # ValueError: a kind this SDK does not know
            self.note(Text(str(exc), style="red"))
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
        self.app.call_later(self.app.show_lobby)  # type: ignore[attr-defined]
