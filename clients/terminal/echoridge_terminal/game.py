"""The game screen (a seat, or a read-only spectator) and the alarm a failed reveal check
raises (the end of the game is ``result``).

Left: the city with the last move highlighted and, under it, what that move was
(``lastmove``), the time track, the officers, in a co-op game the team (``team``), each seat's
clocks, the events in play and the evidence.  Right: what the menu is for, the menu (one entry
per command of ``you.legal`` with its cost from ``you.hours``, Enter sends it with
``Seat.act``; then each action of ``you.unavailable``, greyed, with the reason), the game log
(the session's log entries, SPEC.md §6.3, in words: ``logpanel``; co-op: what the team was told
is marked so; at least 8 lines at 180×50), the seat's mat, hand and knowledge, and the chat.
Under the officers, each seat's running clocks, bank, and away and "played by the server"
markers (``clocks``); t (more time), p (play for me), b (take my seat back), v (vote to let the
server play for an away player) and a (pass when I have nothing to play) send the seat's
``you.controls`` and are in the footer only while they are offered (never for a spectator).
While the server plays the seat the menu offers nothing.  The screen redraws at most ten times
a second.  ``?`` or F1 opens the help screen (how to play, what the board shows); x (for a
player with an identity) reports or blocks another player of the table (moderation.py).
"""

from __future__ import annotations

import math
import time
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from echoridge_client.errors import ClientError, RevealError
from echoridge_client.logtext import block_names
from echoridge_client.session import Seat, TableSession
from echoridge_terminal import city, clocks, coop, lastmove, logpanel, panels, render, team
from echoridge_terminal.chatpanel import ChatPanel
from echoridge_terminal.describe import (
    describe,
    hours_of,
    menu_order,
    my_seat,
    names,
    prompt,
    unavailable,
)
from echoridge_terminal.header import Header
from echoridge_terminal.help import HelpScreen
from echoridge_terminal.i18n import error_words, t
from echoridge_terminal.moderation import PlayersDialog, can_moderate
from echoridge_terminal.result import ResultScreen

#: The seat commands of ``you.controls`` the keys send (their words: ``game.not_possible``).
CONTROLS = ("extend_time", "play_for_me", "take_back", "vote_handover", "auto_pass")


class GameScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", t("key.quit")),
        Binding("m", "focus_menu", t("game.key.menu")),
        Binding("r", "show_result", t("game.key.result"), show=False),
        Binding("question_mark,f1", "help", t("key.help")),
        Binding("t", "control('extend_time')", t("game.key.more_time")),
        Binding("p", "control('play_for_me')", t("game.key.play_for_me")),
        Binding("b", "control('take_back')", t("game.key.take_back")),
        Binding("v", "control('vote_handover')", t("game.key.vote")),
        Binding("a", "control('auto_pass')", t("game.key.auto_pass")),
        Binding("x", "players", t("game.key.players")),
    ]

    def __init__(self, session: TableSession, *, read_only: bool) -> None:
        super().__init__()
        self.session = session
        self.read_only = read_only or not isinstance(session, Seat)
        self.sub_title = t("game.title", table=str(session.table),
                           watching="yes" if self.read_only else "no")  # fmt: skip
        self.dirty = True
        self.sending = False
        self.commands: list[dict[str, Any]] = []  # what the menu offers, in legal order
        self.entries: list[tuple[str | Text, str | None]] = []  # the menu's lines as drawn
        self.served = False  # the server plays this seat now
        self.menu_version = -2
        self.result_shown = False
        self.alerted: BaseException | None = None
        self.log_lines: list[str] = []  # every line of the log panel, for tests
        self.sent = 0  # commands chosen from the menu
        self.offered: frozenset[str] = frozenset()  # the kinds of you.controls the keys show
        self.last: lastmove.LastMove | None = None  # the last move, as the board shows it

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="alert")
        with Horizontal():
            yield from board_column()
            with Vertical(id="side"):
                yield Static(id="prompt")
                yield OptionList(id="menu")
                yield RichLog(id="log", wrap=True, max_lines=1000)
                with VerticalScroll(id="you-box"):
                    yield Static(id="you")
                yield ChatPanel(self.session)  # the chat log and its input (chatpanel.py)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#alert", Static).display = False
        if self.read_only:  # a spectator has no menu and no hand: the log takes the room
            self.query_one("#menu", OptionList).display = False
            self.query_one("#you-box", VerticalScroll).display = False
        self.session.on_update = self._view_changed
        self.session.on_log = self._logged
        self._logged(self.session, list(self.session.log), True)
        self._view_changed(self.session)
        self.clock_shown = ""
        self.set_interval(0.1, self._tick)
        self.query_one("#menu", OptionList).focus()

    # --- following the session ------------------------------------------------------------------

    def _view_changed(self, session: TableSession) -> None:
        """Called by the SDK after every change of the view (or of who is connected)."""
        self.dirty = True

    def _logged(self, session: TableSession, entries: list[dict[str, Any]], reset: bool) -> None:
        """Called by the SDK with new log entries (``reset``: a fresh log from a welcome)."""
        if not self.is_attached:
            return
        log = self.query_one("#log", RichLog)
        if reset:
            log.clear()
            self.log_lines = []
        # a fresh log is whole when the welcome came after the game; new entries also when
        # they are the last version's (told whole to everyone)
        whole = session.log_whole or (not reset and session.over)
        for text in log_texts(entries, session.view, whole):
            log.write(text)
            self.log_lines.append(text.plain)
        self.dirty = True

    def _tick(self) -> None:
        error = self.session.error
        if error is not None and error is not self.alerted:
            self.alerted = error
            self.alarm(error)
        shown = clock_text(self.session) + clocks.seats(self.session).plain
        if shown != self.clock_shown:  # the clocks tick
            self.clock_shown, self.dirty = shown, True
        if not self.dirty:
            return
        self.dirty = False
        self.redraw()

    def alarm(self, error: BaseException) -> None:
        alert = self.query_one("#alert", Static)
        alert.display = True
        if isinstance(error, RevealError):
            alert.update(reveal_alert(error))
            self.app.bell()
            self.app.push_screen(AlertScreen(str(error)))
        else:
            words = t("game.connection_problem", problem=problem_words(error))
            alert.update(Text(words, style="bold white on dark_red"))

    def redraw(self) -> None:
        view = self.session.view
        checked = render.Checked.of(self.session.verifier)
        presence = getattr(self.session, "presence", None)
        self.last = draw_board(
            self, view, self.session.log, checked, whole=self.session.log_whole,
            presence=presence, clocks_of=self.session,
        )  # fmt: skip
        watching = presence.spectators if presence is not None else 0
        clock = clock_text(self.session)
        title = t("game.prompt", prompt=prompt(view), watching=watching, clock=clock,
                  timed="yes" if clock else "no")  # fmt: skip
        if self.sending:
            title = t("game.sending")
        self.query_one("#prompt", Static).update(Text(title, style="bold reverse"))
        self._menu(view)
        self._keys()
        if view.get("status") == "over" and not self.result_shown:
            self.result_shown = True
            self.app.push_screen(self._result(view))

    def _menu(self, view: dict[str, Any]) -> None:
        menu = self.query_one("#menu", OptionList)
        served = clocks.played_by_server(view, my_seat(view))
        legal = [] if self.read_only or served else list((view.get("you") or {}).get("legal") or [])
        if self.sending:
            menu.disabled = True
            return
        entries = self._entries(view, legal, served)
        if entries != self.entries or self.menu_version < 0:
            # (also when what it says changes: a teammate's choice beside the same commands)
            same_commands = legal == self.commands and self.menu_version >= 0
            kept = menu.highlighted if same_commands else None
            self.commands, self.served, self.entries = legal, served, entries
            self.menu_version = self.session.version
            menu.clear_options()
            for words, ident in entries:
                if ident is None:
                    menu.add_option(Option(words, disabled=True))
                else:
                    menu.add_option(Option(words, id=ident))
            menu.highlighted = kept if kept is not None and kept < len(entries) else 0
        was_disabled = menu.disabled
        menu.disabled = not legal
        if legal and (was_disabled or self.focused is None):
            menu.focus()  # a disabled menu lost the focus: give it back

    def _entries(
        self, view: dict[str, Any], legal: list[dict[str, Any]], served: bool
    ) -> list[tuple[str | Text, str | None]]:
        """The menu's lines: (words, the index in ``legal`` as an id), or (words, None) greyed."""
        if self.read_only:
            return [(t("game.menu.spectating"), None)]
        if view.get("status") == "over":
            return [(t("game.menu.over"), None)]
        if served:
            return [(t("game.menu.served"), None)]
        if not legal:
            return [(t("game.menu.nothing"), None)]
        hours = hours_of(view)
        entries: list[tuple[str | Text, str | None]] = []
        for n, i in enumerate(menu_order(view, legal), start=1):
            words = describe(legal[i], view, None if hours is None else hours[i])
            entries.append((f"{n:>2}. {words}", str(i)))
        for words in unavailable(view):  # greyed, with the reason
            entries.append((Text(f"  - {words}", style="dim"), None))
        return entries

    # --- acting ---------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """The menu offers commands and none is being sent (for tests and scripts)."""
        return bool(self.commands) and not self.sending and not self.dirty

    @on(OptionList.OptionSelected, "#menu")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if self.read_only or self.sending or event.option.id is None:
            return
        command = self.commands[int(event.option.id)]
        self.sent += 1
        self.sending = True
        self.dirty = True
        self.run_worker(self._send(command), group="act", exclusive=True)

    async def _send(self, command: dict[str, Any]) -> None:
        seat = self.session
        assert isinstance(seat, Seat)
        log = self.query_one("#log", RichLog)
        try:
            result = await seat.act(command)
            if result.outcome == "rejected":
                if result.code == "command/stale_version":
                    log.write(Text(t("game.moved_first"), style="yellow"))
                else:  # in the catalogue's words, never the server's English message
                    refused = t("game.refused", code=str(result.code),
                                reason=error_words(str(result.code)))  # fmt: skip
                    log.write(Text(refused, style="bold red"))
        except RevealError as exc:
            self.alerted = exc
            self.alarm(exc)
        except (ClientError, TimeoutError) as exc:
            log.write(Text(t("game.cannot_send", problem=problem_words(exc)), style="bold red"))
        finally:
            self.sending = False
            self.commands = []
            self.menu_version = -2
            self.dirty = True

    def _keys(self) -> None:
        """Show in the footer the keys of the seat commands offered now (none to spectators)."""
        offered = frozenset() if self.read_only else frozenset(
            kind for kind in CONTROLS if clocks.control_for(self.session, kind) is not None
        )  # fmt: skip
        if offered != self.offered:
            self.offered = offered
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "control":
            return bool(parameters) and parameters[0] in self.offered
        if action == "players":
            return can_moderate(getattr(self.app, "ctx", None))
        return True

    def action_players(self) -> None:
        """x: report or block another player of the table (a player with an identity)."""
        ctx = getattr(self.app, "ctx", None)
        if ctx is None or not can_moderate(ctx):
            return
        session = self.session
        panel = self.query_one(ChatPanel)
        self.app.push_screen(
            PlayersDialog(ctx, session.table, lambda: session.version, on_blocked=panel.refilter)
        )

    def action_control(self, kind: str) -> None:
        """t, p, b, v, a: the seat command of ``you.controls`` of that kind, if it is offered."""
        if self.read_only or self.sending:
            return
        command = clocks.control_for(self.session, kind)
        if command is None:
            self.query_one("#log", RichLog).write(
                Text(t("game.not_possible", what=kind), style="yellow")
            )
            return
        self.sending = True
        self.dirty = True
        self.run_worker(self._send(command), group="act", exclusive=True)

    def action_focus_menu(self) -> None:
        self.query_one("#menu", OptionList).focus()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def _result(self, view: dict[str, Any]) -> ResultScreen:
        """The result screen, with the session and the app's context for the rematch."""
        return ResultScreen(view, self.session, getattr(self.app, "ctx", None))

    def action_show_result(self) -> None:
        if self.session.view.get("status") == "over":
            self.app.push_screen(self._result(self.session.view))


class AlertScreen(ModalScreen[None]):
    """A loud, blocking warning: a reveal did not open its commitment."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "app.pop_screen", t("game.key.dismiss"))
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                t("game.reveal_failed", problem=self.message),
                style="bold white on red",
                justify="center",
            ),
            id="alarm",
        )


def board_column() -> ComposeResult:
    """The board's column (the live game screen's, also the replay's): the city, the last
    move, the time track, the officers, the team, the clocks, the events and the evidence."""
    with VerticalScroll(id="board"):
        yield Static(id="city")
        yield Static(id="last-move")
        yield Static(id="track")
        yield Static(id="officers")
        yield Static(id="team")
        yield Static(id="clocks")
        yield Static(id="events")
        yield Static(id="evidence")


class _ViewOnly:
    """What ``clocks.seats`` reads of a session, for a view with no session (a replay): no
    clock runs and nobody's presence is known."""

    presence = clocks = None

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view


def draw_board(
    screen: Screen[Any],
    view: dict[str, Any],
    log: list[dict[str, Any]],
    checked: render.Checked,
    *,
    whole: bool,
    presence: Any = None,
    clocks_of: Any = None,
    live: bool = True,
) -> lastmove.LastMove | None:
    """Draw ``view`` on the widgets of ``board_column`` and ``#you`` of ``screen``: ``log``, the
    entries so far (for the last move), ``whole`` when they were told whole; ``presence`` and
    ``clocks_of`` (a session: its running clocks), when live (``live``: at a table, not in a
    replay).  The last move, as shown."""
    me = my_seat(view)
    last = lastmove.of(log, view) if view.get("status") != "new" else None
    screen.query_one("#city", Static).update(city.city(view, checked, last))
    together = coop.is_coop(view)
    words = lastmove.text(last, view, names(view, me), me, whole, team=together)
    screen.query_one("#last-move", Static).update(words)
    screen.query_one("#track", Static).update(render.track(view))
    screen.query_one("#events", Static).update(render.events(view))
    screen.query_one("#evidence", Static).update(render.evidence(view, checked))
    screen.query_one("#officers", Static).update(render.officers(view, presence))
    screen.query_one("#team", Static).display = together
    if together:
        screen.query_one("#team", Static).update(team.board(view))
    source = clocks_of if clocks_of is not None else _ViewOnly(view)
    screen.query_one("#clocks", Static).update(clocks.seats(source))
    screen.query_one("#you", Static).update(panels.you(view, checked, live))
    return last


def log_texts(entries: list[dict[str, Any]], view: dict[str, Any], whole: bool) -> list[Text]:
    """Log entries as the game screen's log panel shows them to the viewer of ``view``."""
    me = my_seat(view)
    return logpanel.lines(entries, names(view, me), me, whole, team=coop.is_coop(view),
                          blocks=block_names(view))  # fmt: skip


def reveal_alert(error: BaseException) -> Text:
    """The red line over the board after a failed reveal check."""
    return Text(t("game.reveal_alert", problem=str(error)), style="bold white on red")


def problem_words(error: BaseException) -> str:
    """An error in words: a protocol error by its code from the catalogue (never the server's
    English message), anything else as it says itself."""
    code = getattr(error, "code", None)
    return error_words(code) if isinstance(code, str) and code else str(error)


def clock_text(session: TableSession) -> str:
    """The decision clock (SPEC.md §6.5) while the view is at its version: whom the server will
    answer for, and in how many seconds; "" when none runs."""
    d = getattr(session, "deadline", None)
    view = session.view
    if d is None or view is None or d.version != session.version or view.get("status") == "over":
        return ""
    left = max(0, math.ceil(d.at / 1000 - time.time()))
    who = names(view, my_seat(view))
    seats = ", ".join(who[s] if s < len(who) else f"P{s + 1}" for s in d.seats)
    return t("game.clock", seats=seats, n=left)
