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
    Label,
    RichLog,
    Static,
)

from echoridge_client.errors import ClientError
from echoridge_client.session import TableSession
from echoridge_protocol import messages as m
from echoridge_terminal.context import Context, mode_words, player_name
from echoridge_terminal.game import GameScreen
from echoridge_terminal.header import Header
from echoridge_terminal.help import HelpScreen
from echoridge_terminal.i18n import error_words, isolate, t


class WaitingScreen(Screen[None]):
    """A joined table before its start: invite friends, add bots, start."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "add_bot('easy')", t("waiting.key.easy")),
        Binding("n", "add_bot('normal')", t("waiting.key.normal")),
        Binding("s", "add_bot('strong')", t("waiting.key.strong")),
        Binding("f1", "help", t("key.help")),
        Binding("ctrl+q", "app.quit", t("key.quit")),
    ]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.taken: int | None = None
        self.info: m.TableInfo | None = None  # the last look at the table
        self.busy = False
        self.bots = 0  # bots this screen added
        self.sub_title = t("waiting.title", table=str(ctx.table))
        self.started = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="table-info")
        yield Static(id="seat-list")
        with Horizontal(id="bot-buttons"):
            yield Label(t("waiting.add_bot"), id="bot-label")
            for kind in ("easy", "normal", "strong"):
                yield Button(t("waiting.bot_button", kind=kind), id=f"add-{kind}")
        with Horizontal(id="waiting-buttons"):
            yield Button(t("waiting.start"), id="start", variant="primary")
            yield Button(t("waiting.leave"), id="leave", variant="error")
        yield RichLog(id="wait-log", wrap=True, markup=True)
        yield Footer()

    def on_mount(self) -> None:
        ctx = self.ctx
        assert ctx.session is not None
        ctx.session.on_update = self._view_changed
        self._info()
        self.note(Text(t("waiting.joined", table=str(ctx.table), name=isolate(ctx.name))))
        self.note(t("waiting.f1"))
        self.set_interval(1.0, self._poll)
        self.run_worker(self._poll(), group="poll")

    def note(self, text: str | Text) -> None:
        self.query_one("#wait-log", RichLog).write(text)

    def _info(self) -> None:
        ctx = self.ctx
        seats = "?" if ctx.seats is None else str(ctx.seats)
        taken = "?" if self.taken is None else str(self.taken)
        out = Text(t(  # the player's name is their own input: text, never markup
            "waiting.info", table=str(ctx.table), mode=ctx.mode or "", name=isolate(ctx.name),
            taken=taken, seats=seats, url=ctx.url,
        ))
        self.query_one("#table-info", Static).update(out)
        self.query_one("#seat-list", Static).update(self.seat_list())

    def seat_list(self) -> Text:
        """Every seat of the table: who sits there (bots marked) or free."""
        ctx = self.ctx
        out = Text(t("waiting.seats") + "\n", style="bold")
        if self.info is None:
            return out + Text(t("waiting.looking"), style="dim")
        sitting = {p.seat: p for p in self.info.players}
        for seat in range(self.info.seats):
            out.append(f"  {seat + 1}. ")
            p = sitting.get(seat)
            if p is None:
                out.append(t("waiting.free"), style="dim")
            else:
                name = isolate(player_name(p))
                if seat == ctx.seat:
                    name = t("waiting.you", name=name)
                out.append(name, style="bold" if seat == ctx.seat else "")
                if p.identity and p.identity in ctx.blocked:
                    out.append(t("waiting.blocked"), style="bold red")
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
            self.note(t("waiting.full"))
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
                self.note(t("waiting.bot_added", kind=kind))
                self.bots += 1
                if self.taken is not None:
                    self.taken += 1
            else:
                problem = error_words(result.code or "")
                self.note(Text(t("waiting.no_bot", problem=problem), style="red"))
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
                self.note(t("waiting.starts"))
            else:
                problem = error_words(result.code or "")
                self.note(Text(t("waiting.cannot_start", problem=problem), style="red"))
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
