"""``echo-ridge replay``: a finished game as one viewer saw it (SPEC.md §4.7), version by version,
on the live game screen's widgets (``game.board_column``, ``game.draw_board``, the log panel's
words: ``game.log_texts``).

The viewer is a seat (its hand, its private reveals, its log), a spectator, or everyone (every
secret of each version).  Pages of ``PAGE`` versions are fetched when a version on them is first
shown (``Lobby.replay_page``), and the pages before the versions shown in the background so
the log up to the version shown is whole (never the pages after it: those are fetched when a
version on them is shown); every view fetched is kept, so stepping back is instant.  Every
reveal fetched is checked against its commitment (``reveals.Verifier``, in version order, as
``replay.replayed`` does), and a page must start from the view the page before it ended at; a
failure is shown in red over the board.

Keys: Left/Right a version, Up/Down (or [ and ]) a turn (a turn starts at the version whose log
has its ``turn_began``), n/p the chosen seat's next/previous move (from the game's transcript:
the commands made for that seat, not its seat controls), Home/End, space plays and pauses
(+/- change the speed), s switches the viewer (each seat by its player's name, a spectator,
everyone), q quits; x (signed in with an identity) reports or blocks a player of the game as of
the version shown (moderation.py); Escape goes back when the replay was opened from a player's
page.  A refused request is said in the client's words for its code, never with the server's
message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar

from babel.numbers import format_decimal
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, RichLog, Static

from echoridge_client.errors import Busy, ClientError, Refused, RevealError
from echoridge_terminal import render, signin
from echoridge_terminal.context import Context
from echoridge_terminal.describe import who
from echoridge_terminal.game import (
    AlertScreen,
    board_column,
    draw_board,
    log_texts,
    reveal_alert,
)
from echoridge_terminal.header import Header
from echoridge_terminal.help import HelpScreen
from echoridge_terminal.i18n import language, t
from echoridge_terminal.moderation import PlayersDialog, can_moderate
from echoridge_terminal.replaydata import (
    SEAT_COMMANDS,
    SPEED,
    SPEEDS,
    Entry,
    ReplayData,
    View,
    Viewer,
    refusal_words,
    secrets,
    turn_words,
)
from echoridge_terminal.result import summary


class ReplayScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", t("replay.key.previous"), key_display="←", priority=True),
        Binding("right", "step(1)", t("replay.key.next"), key_display="→", priority=True),
        Binding(
            "up,left_square_bracket",
            "turn(-1)",
            t("replay.key.turn_back"),
            key_display="↑",
            priority=True,
        ),
        Binding(
            "down,right_square_bracket",
            "turn(1)",
            t("replay.key.next_turn"),
            key_display="↓",
            priority=True,
        ),
        Binding("p", "move(-1)", t("replay.key.move_back")),
        Binding("n", "move(1)", t("replay.key.next_move")),
        Binding("home", "jump(0)", t("replay.key.start"), priority=True),
        Binding("end", "jump(-1)", t("replay.key.end"), priority=True),
        Binding("space", "play", t("replay.key.play"), key_display="space", priority=True),
        Binding("plus,equals_sign", "speed(1)", t("replay.key.faster"), key_display="+"),
        Binding("minus", "speed(-1)", t("replay.key.slower"), key_display="-"),
        Binding("s", "switch", t("replay.key.switch")),
        Binding("x", "players", t("game.key.players")),
        Binding("question_mark,f1", "help", t("key.help"), show=False),
        Binding("escape", "back", t("key.back")),
        Binding("q", "app.quit", t("key.quit")),
    ]

    def __init__(
        self,
        ctx: Context,
        table: str,
        viewer: Viewer,
        version: int | None = None,
        *,
        back: bool = False,
    ) -> None:
        super().__init__()
        self.ctx, self.table, self.viewer = ctx, table, viewer
        self.back = back  # opened from another screen (a player's page): Escape goes back
        self.sub_title = t("replay.title", table=table)
        self.wanted = version or 0  # the version asked for (--version)
        self.data: dict[Viewer, ReplayData] = {}
        self.version: int | None = None  # the version shown
        self.target = self.wanted  # the version to show (being fetched when not shown)
        self.busy = False  # fetching for a move of the user's: keys wait
        self.failed: str | None = None  # why there is no replay to show
        self.note = ""  # one line under the status: what a key could not do, ...
        self.playing = False
        self.speed = SPEED
        self.timer: Timer | None = None
        self.movers: list[int | None] | None = None  # version -> the seat whose move it was
        self.alerted: BaseException | None = None
        self.log_key: tuple[Viewer, int, int] | None = None  # (viewer, first, last) logged
        self.log_lines: list[str] = []  # the log panel's lines, for tests
        self.step_lines: list[str] = []  # this version's entries as the log words them
        self.status_text = ""  # the status line, plain

    # --- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="alert")
        yield Static(id="replay-status")
        yield Static(id="replay-note")
        with Horizontal(id="replay-body"):
            yield from board_column()
            with Vertical(id="side"):
                yield Static(id="step")
                yield RichLog(id="log", wrap=True, max_lines=2000)
                with VerticalScroll(id="you-box"):
                    yield Static(id="you")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#alert", Static).display = False
        self._status(t("replay.fetching", table=self.table, url=self.ctx.url))
        self.run_worker(self._open(), group="replay-open")

    # --- the current viewer's data -----------------------------------------------------------

    @property
    def replay(self) -> ReplayData:
        data = self.data.get(self.viewer)
        if data is None:
            assert self.ctx.lobby is not None
            data = self.data[self.viewer] = ReplayData(self.ctx.lobby, self.table, self.viewer)
        return data

    @property
    def view(self) -> View | None:
        """The view shown (None: none yet)."""
        return None if self.version is None else self.replay.views.get(self.version)

    @property
    def last(self) -> int | None:
        return self.replay.last

    # --- opening ----------------------------------------------------------------------------

    async def _open(self) -> None:
        ctx = self.ctx
        try:
            if ctx.lobby is None:  # signed in with the identity kept, if any (for x)
                await signin.sign_in(
                    ctx, lambda busy: self._status(t("lobby.busy", problem=busy)), play=False
                )
            await self._first_page()
        except signin.Banned as exc:
            self._fail(exc.words)
            return
        except Refused as exc:
            self._fail(await self._refused(exc))
            return
        except Busy as exc:
            self._fail(t("replay.busy", problem=str(exc)))
            return
        except (ClientError, OSError, TimeoutError):
            self._fail(t("replay.unreachable", url=ctx.url))
            return
        self.refresh_bindings()  # (x: once signed in)
        data = self.replay
        assert data.last is not None
        self.target = min(self.wanted, data.last)
        self._show()

    async def _first_page(self) -> None:
        data = self.replay
        try:
            await data.fetch(self.wanted)
        except Refused as exc:
            if exc.code != "protocol/bad_field" or self.wanted == 0:
                raise
            await data.fetch(0)  # past the end? (else it raises again: the seat)
            assert data.last is not None
            self.note = t("replay.past_end", last=data.last)
            self.wanted = data.last
            await data.fetch(data.last)

    async def _refused(self, exc: Refused) -> str:
        seat = self.viewer.seat
        if exc.code == "protocol/bad_field" and seat is not None:
            seats: int | None = None
            try:
                assert self.ctx.lobby is not None
                info = await self.ctx.lobby.table(self.table)
                seats = info.seats if info is not None else None
            except (ClientError, OSError, TimeoutError):
                pass
            return t("replay.no_seat", table=self.table, seat=seat,
                     known="yes" if seats else "no", last=(seats or 1) - 1)  # fmt: skip
        return refusal_words(exc.code, self.table, self.ctx.url)

    def _fail(self, words: str) -> None:
        self.failed = words
        self.playing = False
        alert = self.query_one("#alert", Static)
        alert.display = True
        alert.update(Text(f" {words} ", style="bold white on dark_red"))
        self.query_one("#replay-body", Horizontal).display = False  # nothing to show there
        self._status(t("replay.nothing"))

    def _backfill(self, data: ReplayData, version: int) -> None:
        """Fetch the pages before the run of versions fetched that ends at ``version``, newest
        first, until it reaches the start, so the log up to ``version`` is whole."""
        if data.filling or data.first_of_run(version) <= 0:
            return
        data.filling = True

        async def fill() -> None:
            try:
                at: int | None = version
                while at is not None and (first := data.first_of_run(at)) > 0:
                    await data.fetch(first - 1)
                    if data is not self.replay or self.version is None:
                        return  # (another viewer now: its own pages)
                    self._show()
                    at = self.version
            except (ClientError, OSError, TimeoutError):
                pass  # (the log says it lacks the start; the next version shown tries again)
            finally:
                data.filling = False

        self.run_worker(fill(), group="replay-backfill")

    # --- moving about -----------------------------------------------------------------------

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        self.busy = True
        fetching = self.note

        async def run() -> None:
            try:
                await work
                if self.note == fetching:  # done: no more to say
                    self.note = ""
            except Refused as exc:
                self.note = refusal_words(exc.code, self.table, self.ctx.url)
                self.playing = False
            except (ClientError, OSError, TimeoutError):
                self.note = t("replay.lost", url=self.ctx.url)
                self.playing = False
            finally:
                self.busy = False
                if self.version is not None:
                    self._show()

        self.run_worker(run(), group="replay-fetch")

    def _usable(self) -> bool:
        return self.failed is None and self.version is not None and not self.busy

    def go(self, version: int) -> None:
        """Show ``version`` (clamped to the game), fetching its page first when needed."""
        data = self.replay
        last = data.last if data.last is not None else version
        self.target = max(0, min(version, last))
        if self.target in data.views:
            self._show()
            return
        first = data.start_of(self.target)
        end = min(first + data.page, last)
        self.note = t("replay.fetching_versions", first=first, end=end)
        self._status_line()

        async def fetch() -> None:
            await data.fetch(self.target)

        self._run(fetch())

    def seek(self, direction: int, want: Callable[[int], bool], nothing: str) -> None:
        """Go to the first version after the target, in ``direction``, that ``want``s (the
        pages on the way are fetched); ``nothing``: what to say when there is none."""
        data = self.replay
        assert data.last is not None
        last = data.last
        v = self.target + direction
        while 0 <= v <= last and v in data.views and not want(v):
            v += direction
        if not 0 <= v <= last:
            self.note = nothing
            self._status_line()
            return
        if v in data.views:
            self.note = ""
            self.go(v)
            return

        async def fetching(v: int) -> None:  # on from the first version not fetched
            while 0 <= v <= last:
                await data.fetch(v)
                if want(v):
                    self.note, self.target = "", v
                    return
                v += direction
            self.note = nothing

        self.note = t("replay.fetching_from", first=data.start_of(v))
        self._status_line()
        self._run(fetching(v))

    def action_step(self, by: int) -> None:
        if not self._usable():
            return
        self.note = ""
        if not 0 <= self.target + by <= (self.last or 0):
            self.note = t("replay.at_start") if by < 0 else t("replay.at_end")
            self._status_line()
            return
        self.go(self.target + by)

    def action_turn(self, direction: int) -> None:
        """The start of the next turn (Down), or of this turn or the one before (Up); past the
        last turn: the end; before the first: the start."""
        if not self._usable():
            return
        data = self.replay
        assert data.last is not None
        edge = data.last if direction > 0 else 0
        if self.target == edge:
            self.note = t("replay.at_end") if direction > 0 else t("replay.at_start")
            self._status_line()
            return
        self.seek(direction, lambda v: data.turn_begins(v) or v == edge, "")

    def _next_move(self, seat: int, direction: int) -> int | None:
        movers = self.movers or []
        v = self.target + direction
        while 0 <= v < len(movers) and movers[v] != seat:
            v += direction
        return v if 0 <= v < len(movers) else None

    def action_move(self, direction: int) -> None:
        """n/p: the next or previous version made by a move of the chosen seat."""
        if not self._usable():
            return
        seat = self.viewer.seat
        if seat is None:
            self.note = t("replay.no_seat_moves")
            self._status_line()
            return
        name = who(seat, None, self.replay.named())
        nothing = t("replay.no_move", name=name, after="yes" if direction > 0 else "no")
        if self.movers is not None:
            v = self._next_move(seat, direction)
            self.note = "" if v is not None else nothing
            if v is None:
                self._status_line()
            else:
                self.go(v)
            return
        data = self.replay

        async def fetch() -> None:
            assert self.ctx.lobby is not None
            transcript = await self.ctx.lobby.transcript(self.table)
            movers: list[int | None] = [None]  # version 0: before the first command
            for entry in transcript.get("entries") or ():
                command = entry.get("command") or {}
                mover = entry.get("seat")
                own = isinstance(mover, int) and command.get("type") not in SEAT_COMMANDS
                movers.append(mover if own else None)
            self.movers = movers
            v = self._next_move(seat, direction)
            if v is None:
                self.note = nothing
                return
            await data.fetch(v)
            self.note, self.target = "", v

        self.note = t("replay.fetching_transcript")
        self._status_line()
        self._run(fetch())

    def action_jump(self, where_to: int) -> None:
        """Home (0), End (-1: the last version)."""
        if not self._usable():
            return
        self.note = ""
        self.go(where_to if where_to >= 0 else (self.last or 0))

    def action_play(self) -> None:
        if not self._usable():
            return
        if not self.playing and self.target >= (self.last or 0):
            self.target = 0  # from the end: play from the start again
            self.go(0)
        self.playing = not self.playing
        self.note = ""
        self._restart_timer()
        self._status_line()

    def action_speed(self, by: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + by))
        self._restart_timer()
        self._status_line()

    def _restart_timer(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        if self.playing:
            self.timer = self.set_interval(1 / SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        if not self.playing or self.busy or self.failed is not None:
            return
        if self.target >= (self.last or 0):
            self.playing = False
            self._restart_timer()
            self.note = t("replay.ended")
            self._status_line()
            return
        self.go(self.target + 1)

    def action_switch(self) -> None:
        """s: the next viewer: each seat (by its player's name), a spectator, everyone."""
        if not self._usable():
            return
        players = self.replay.named().get("players") or []  # (version 0 has none yet)
        viewers = [Viewer(seat=int(p["seat"])) for p in players]
        viewers += [Viewer(), Viewer(everyone=True)]
        at = viewers.index(self.viewer) if self.viewer in viewers else -1
        named = self.replay.named()
        self.viewer = viewers[(at + 1) % len(viewers)]
        self.log_key = None
        data = self.replay
        if data.last is None:  # the first page of this viewer

            async def first() -> None:
                await data.fetch(self.target)

            v = self.viewer
            self.note = t(
                "replay.fetching_as",
                viewer="everyone" if v.everyone else "spectator" if v.seat is None else "seat",
                name="" if v.seat is None else who(v.seat, None, named),
            )
            self._status_line()
            self._run(first())
            return
        self.note = ""
        self.go(self.target)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "players":
            return can_moderate(self.ctx)
        if action == "back":
            return self.back
        return True

    def action_players(self) -> None:
        """x: report or block a player of this game, as of the version shown."""
        if can_moderate(self.ctx) and self.failed is None:
            self.app.push_screen(PlayersDialog(self.ctx, self.table, lambda: self.version or 0))

    def action_back(self) -> None:
        if self.back:
            self.playing = False
            self._restart_timer()
            self.app.pop_screen()

    # --- drawing ----------------------------------------------------------------------------

    def _status(self, text: str) -> None:
        self.status_text = text
        self.query_one("#replay-status", Static).update(Text(text, style="bold reverse"))

    def _status_line(self) -> None:
        self.query_one("#replay-note", Static).update(Text(self.note, style="yellow"))
        view = self.view
        if view is None or self.failed is not None:
            return
        speed = format_decimal(SPEEDS[self.speed], locale=language())
        parts = [
            t("replay.version_of", version=self.version, last=self.last),
            turn_words(view),
            self.viewer.words(self.replay.named()),
            t("replay.playing" if self.playing else "replay.paused", speed=speed),
        ]
        self._status(" · ".join(parts))  # (the status line's fields, each worded whole)

    def _show(self) -> None:
        """Draw the target version (fetched) and its log."""
        with contextlib.suppress(NoMatches):  # (the app is closing: its widgets are gone)
            self._draw()

    def _draw(self) -> None:
        data = self.replay
        version = self.target
        view = data.views.get(version)
        if view is None or data.last is None:
            return
        self.version = version
        whole = self.viewer.everyone or version == data.last  # the last version: told whole
        entries = data.entries(version)
        checked = render.Checked.of(data.verifier)
        draw_board(self, view, entries, checked, whole=self.viewer.everyone, live=False)
        if self.viewer.everyone:
            self.query_one("#you", Static).update(secrets(view, checked))
        elif self.viewer.seat is not None and not isinstance(view.get("you"), dict):
            name = who(self.viewer.seat, None, data.named())
            before = Text(t("replay.no_cards", name=name), style="dim")
            self.query_one("#you", Static).update(before)
        if view.get("status") == "over":  # the result first, as the live game's end shows it
            you = self.query_one("#you", Static)
            you.update(Group(summary(view), Text(""), you.content))
        self._step(view, version, data.logs.get(version, ()), whole)
        self._log(data, version)
        self._status_line()
        self._alarm(data.error)
        self._backfill(data, version)

    def _step(self, view: View, version: int, entries: tuple[Entry, ...], whole: bool) -> None:
        lines = log_texts(list(entries), view, whole)
        self.step_lines = [line.plain for line in lines]
        out = Text(t("replay.step", version=version) + "\n", style="bold")
        out.highlight_words([str(version)], "reverse")
        if not lines:
            words = t("replay.step.start") if version == 0 else t("replay.step.nothing")
            out.append("  " + words, style="dim")
        for n, line in enumerate(lines):
            out.append_text(line)
            if n < len(lines) - 1:
                out.append("\n")
        self.query_one("#step", Static).update(out)

    def _log(self, data: ReplayData, version: int) -> None:
        """The log panel: every entry up to ``version``, as the live log wrote it (appended
        when the replay moved on by one version, else written again)."""
        log = self.query_one("#log", RichLog)
        first = data.first_of_run(version)
        key = (self.viewer, first, version)
        if key == self.log_key:
            return
        last = data.last if data.last is not None else version
        if (
            self.log_key is not None
            and self.log_key[:2] == key[:2]
            and self.log_key[2] == version - 1
        ):
            versions = [version]
        else:
            log.clear()
            self.log_lines = []
            versions = list(range(first, version + 1))
            if first > 0:
                log.write(Text(t("replay.log_fetching", first=first), style="dim"))
        view = data.views[version]
        for v in versions:
            whole = self.viewer.everyone or v == last
            for line in log_texts(list(data.logs[v]), view, whole):
                log.write(line)
                self.log_lines.append(line.plain)
        self.log_key = key

    def _alarm(self, error: ClientError | None) -> None:
        alert = self.query_one("#alert", Static)
        if error is None:
            if self.failed is None:
                alert.display = False
            return
        alert.display = True
        if isinstance(error, RevealError):
            alert.update(reveal_alert(error))
        else:
            alert.update(
                Text(t("replay.check_failed", problem=str(error)), style="bold white on red")
            )
        if error is not self.alerted:
            self.alerted = error
            self.playing = False
            self._restart_timer()
            self.app.bell()
            if isinstance(error, RevealError):
                self.app.push_screen(AlertScreen(str(error)))
