"""Report and block (SPEC.md §4.11), in the terminal: ``x`` at a live table (game.py) and in a
replay (replayer.py) opens ``PlayersDialog``, for a player with an identity (a guest has none:
the key is not offered).

The dialog lists the table's other signed-in players (the seats with an identity: the table's
listing, else the finished game's record); for the one chosen, Block or Unblock (their chat is
hidden, from every session of this app, and the lobby marks the tables they sit at), and a
report: a reason in plain words (``players.REPORT_REASONS``, worded ``report.reason.*``) and what
happened, optional, up to 500 characters, about the version shown.  Answers are worded by their
code ("Report sent", already reported...), never with the server's text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from echoridge_client.errors import ClientError, Refused
from echoridge_client.lobby import Lobby
from echoridge_protocol.players import REPORT_REASONS
from echoridge_terminal import signin
from echoridge_terminal.context import Context
from echoridge_terminal.i18n import isolate, t

MAX_TEXT = 500


@dataclass(frozen=True)
class Someone:
    """A seat taken by a signed-in player."""

    seat: int
    name: str
    identity: str


async def signed_in_players(lobby: Lobby, table: str) -> list[Someone]:
    """The seats of ``table`` taken by signed-in players: from its listing (a live or recent
    table), else from the finished game's record."""
    info = await lobby.table(table)
    seats = info.players if info is not None else ()
    people = [Someone(p.seat, p.name, p.identity) for p in seats if p.identity]
    if not people:
        games = (await lobby.games(tables=[table])).games
        for game in games[:1]:
            people = [Someone(p.seat, p.name, p.identity) for p in game.players if p.identity]
    return people


def can_moderate(ctx: Context | None) -> bool:
    """The app's player has an identity (reports and blocks need one)."""
    return ctx is not None and ctx.me is not None


class PlayersDialog(ModalScreen[None]):
    """Choose another signed-in player of ``table``, then block, unblock or report them (as of
    ``version()``); ``on_blocked`` is told after a block or unblock."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", t("report.key.close"))
    ]

    def __init__(
        self,
        ctx: Context,
        table: str,
        version: Callable[[], int],
        on_blocked: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.ctx, self.table, self.version, self.on_blocked = ctx, table, version, on_blocked
        self.people: list[Someone] = []
        self.said = ""  # the last answer, plain (for tests)

    def compose(self) -> ComposeResult:
        with Vertical(id="players-dialog"):
            yield Static(Text(t("report.title", table=self.table), style="bold"))
            yield OptionList(id="people")
            with Horizontal(classes="row"):
                yield Button(t("report.block"), id="block", variant="warning")
            yield Label(t("report.why"))
            with RadioSet(id="reason"):
                for reason in REPORT_REASONS:
                    yield RadioButton(t(f"report.reason.{reason}"), value=reason == "abuse",
                                      id=f"reason-{reason}")  # fmt: skip
            yield Input(placeholder=t("report.placeholder", n=MAX_TEXT),
                        max_length=MAX_TEXT, id="report-text")  # fmt: skip
            yield Button(t("report.send"), id="send", variant="error")
            yield Static(id="dialog-said")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#people", OptionList).add_option(
            Option(Text(t("report.looking"), style="dim"), disabled=True)
        )
        self.run_worker(self._load(), group="dialog-load")

    async def _load(self) -> None:
        lobby, me = self.ctx.lobby, self.ctx.me
        widget = self.query_one("#people", OptionList)
        try:
            assert lobby is not None
            people = await signed_in_players(lobby, self.table)
        except (AssertionError, ClientError, TimeoutError) as exc:
            widget.clear_options()
            widget.add_option(Option(Text(t("report.fetch_failed", problem=str(exc))),
                                     disabled=True))  # fmt: skip
            return
        self.people = [p for p in people if me is None or p.identity != me.id]
        self._list()
        widget.focus()

    def _list(self) -> None:
        widget = self.query_one("#people", OptionList)
        kept = widget.highlighted
        widget.clear_options()
        if not self.people:
            widget.add_option(Option(Text(t("report.nobody"), style="dim"), disabled=True))
        for p in self.people:
            line = Text(f"{p.name} (P{p.seat + 1})")  # text, never markup
            if p.identity in self.ctx.blocked:
                line.append(t("report.blocked"), style="bold red")
            widget.add_option(Option(line, id=str(p.seat)))
        if self.people:
            widget.highlighted = kept if kept is not None and kept < len(self.people) else 0
        self._block_label()

    def chosen(self) -> Someone | None:
        index = self.query_one("#people", OptionList).highlighted
        if index is None or not 0 <= index < len(self.people):
            return None
        return self.people[index]

    def _block_label(self) -> None:
        p = self.chosen()
        blocked = p is not None and p.identity in self.ctx.blocked
        self.query_one("#block", Button).label = t("report.unblock" if blocked else "report.block")

    @on(OptionList.OptionHighlighted, "#people")
    def _highlighted(self) -> None:
        self._block_label()

    def say(self, words: str, error: bool = False) -> None:
        self.said = words
        style = "bold red" if error else "bold green"
        self.query_one("#dialog-said", Static).update(Text(words, style=style))

    # --- block ------------------------------------------------------------------------------

    @on(Button.Pressed, "#block")
    def _block_pressed(self) -> None:
        p = self.chosen()
        if p is None:
            self.say(t("report.choose"), error=True)
            return
        self.run_worker(self._block(p), group="dialog", exclusive=True)

    async def _block(self, p: Someone) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        unblock = p.identity in self.ctx.blocked
        try:
            result = await (lobby.unblock(p.identity) if unblock else lobby.block(p.identity))
            problem = None if result.outcome == "accepted" else result.code or ""
        except Refused as exc:
            problem = exc.code
        except (ClientError, TimeoutError) as exc:
            self.say(t("report.not_sent", problem=str(exc)), error=True)
            return
        if problem is not None:
            self.say(signin.refused_words(Refused(problem, "")), error=True)
            return
        if unblock:
            self.ctx.blocked.pop(p.identity, None)
            self.say(t("players.unblocked", name=isolate(p.name)))
        else:
            self.ctx.blocked[p.identity] = p.name
            self.say(t("report.blocked_now", name=isolate(p.name)))
        self._list()
        if self.on_blocked is not None:
            self.on_blocked()

    # --- report -----------------------------------------------------------------------------

    @on(Button.Pressed, "#send")
    def _send_pressed(self) -> None:
        p = self.chosen()
        if p is None:
            self.say(t("report.choose"), error=True)
            return
        index = self.query_one("#reason", RadioSet).pressed_index
        reason = REPORT_REASONS[index] if 0 <= index < len(REPORT_REASONS) else "other"
        text = self.query_one("#report-text", Input).value.strip() or None
        self.run_worker(self._report(p, reason, text), group="dialog", exclusive=True)

    async def _report(self, p: Someone, reason: str, text: str | None) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        try:
            result = await lobby.report(self.table, p.seat, self.version(), reason, text)
            code = None if result.outcome == "accepted" else result.code or ""
        except Refused as exc:
            code = exc.code
        except (ClientError, TimeoutError) as exc:
            self.say(t("report.failed", problem=str(exc)), error=True)
            return
        if code is None:
            self.query_one("#report-text", Input).value = ""
            self.say(t("report.sent", name=isolate(p.name)))
        else:
            self.say(report_refused(code, p.name), error=True)


def report_refused(code: str, name: str) -> str:
    """A refused report in words, by its code."""
    if code == "identity/already_reported":
        return t("report.already", name=isolate(name))
    if code == "identity/not_found":
        return t("report.gone", name=isolate(name))
    if code == "protocol/bad_field":
        return t("report.bad_text")
    return t("report.failed", problem=signin.refused_words(Refused(code, "")))


def block_sessions(ctx: Context, *sessions: object) -> None:
    """Hide the chat of the blocked players in these sessions (their ``block``)."""
    for session in sessions:
        block = getattr(session, "block", None)
        if callable(block):
            block(ctx.blocked)
