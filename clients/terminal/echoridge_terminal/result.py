"""The end of the game (SPEC.md §6.1 ``result``): the murderer, who named whom and whether
they were right, each officer's badge, tracker and Evidence tokens (what a tie-break compares),
the winners and why they won (``result.decided_by``, when the server sends it, in words:
"Ben and Ada both named the murderer; Ben wins on badges: 6 to 4").  A co-op game ends with the
team's accusation (``team.result_lines``).  Its ``m`` asks for a rematch (tui/rematch.py), ``j``
joins one another player asked for, ``w`` (a spectator) watches it."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, ClassVar

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from echoridge_client.errors import ClientError
from echoridge_client.session import TableSession
from echoridge_terminal import coop, rematch, team
from echoridge_terminal.context import Context
from echoridge_terminal.data import evidence_name, suspect_gender, suspect_name
from echoridge_terminal.describe import my_seat, who
from echoridge_terminal.header import Header
from echoridge_terminal.i18n import and_list, error_words, t
from echoridge_terminal.render import seat_style

View = dict[str, Any]
def _joined(names: list[str]) -> str:
    return and_list(names)


def _figures(values: list[int]) -> str:
    """``6 to 4``: the figures a tie-break step compared."""
    return t("result.to").join(str(v) for v in values)


def why(view: View) -> str:
    """``result.decided_by`` in words, with the figures the tie-break compared ("" when the
    server did not say: a co-op game, or a server without it)."""
    r = view.get("result") or {}
    decided = r.get("decided_by")
    if not isinstance(decided, str):
        return ""
    me = my_seat(view)
    murderer = r.get("murderer")
    players = view.get("players") or []
    right = [s for s, a in enumerate(r.get("accusations") or ()) if a and a == murderer]
    winners = [int(w) for w in r.get("winners") or ()]
    if decided == "stopped":
        return t("result.stopped")  # the server's operator ended the game (SPEC.md §6.1)
    if decided == "nobody" or not right:
        return t("result.nobody")
    name = [who(s, me, view) for s in right]
    if decided == "accusation" or len(right) == 1:
        return t("result.alone", name=name[0])
    named = {"names": _joined(name), "right": len(right), "wins": len(winners)}
    win = _joined([who(s, me, view) for s in winners])

    def badge(s: int) -> int:
        return int(players[s].get("badge") or 0)

    def space(s: int) -> int:
        return int(players[s].get("space") or 0)

    def tokens(s: int) -> int:
        return len(players[s].get("evidence") or ())

    def figures(of: list[int], key: Callable[[int], int]) -> str:
        """The figures the step compared, the winners' first."""
        return _figures([key(s) for s in winners + [s for s in of if s not in winners]])

    # who was still level at each step (the server decided; these are only its figures)
    level = [s for s in right if badge(s) == max(map(badge, right))]
    closest = [s for s in level if space(s) == min(map(space, level))]
    if decided == "badge":
        return t("result.by.badge", **named, win=win, figures=figures(right, badge))
    if decided == "tracker":
        return t("result.by.tracker", **named, win=win, badge=badge(level[0]),
                 figures=figures(level, space))  # fmt: skip
    if decided == "evidence":
        return t("result.by.evidence", **named, win=win, badge=badge(level[0]),
                 space=space(closest[0]), figures=figures(closest, tokens))  # fmt: skip
    if decided == "tie":
        return t("result.by.tie", **named, win=win)
    return ""


def officers(view: View) -> Table:
    """Who named whom, and what a tie-break compares, one officer a row."""
    r = view.get("result") or {}
    me = my_seat(view)
    murderer = r.get("murderer")
    winners = {int(w) for w in r.get("winners") or ()}
    table = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    for head in ("officer", "named", "", "badge", "tracker", "tokens", ""):
        table.add_column(t(f"result.column.{head}") if head else "")
    accusations = list(r.get("accusations") or ())
    for p in view.get("players") or ():
        seat = int(p["seat"])
        accused = accusations[seat] if seat < len(accusations) else None
        named = f"{accused} {suspect_name(str(accused))}" if accused else t("word.nobody")
        right = bool(accused) and accused == murderer
        solved = [evidence_name(str(e)) for e in p.get("evidence") or ()]
        table.add_row(
            Text(who(seat, me, view), style=seat_style(seat)),
            named,
            Text(t("result.right"), style="bold green") if right
            else Text(t("result.wrong"), style="red"),
            str(p.get("badge")),
            t("result.space", space=str(p.get("space"))),
            f"{len(solved)}" + (f" ({', '.join(solved)})" if solved else ""),
            Text(t("result.wins") if seat in winners else "", style="bold green"),
        )
    return table


def summary(view: View) -> RenderableType:
    r = view.get("result") or {}
    me = my_seat(view)
    murderer = str(r.get("murderer") or "?")
    winners = [int(w) for w in r.get("winners") or ()]
    head = Text(t("result.game_over"), style="bold red")
    name = f"{murderer} {suspect_name(murderer)}"
    head.append(t("result.murderer", name=name, gender=suspect_gender(murderer)))
    head.highlight_words([name], "bold")
    if r.get("decided_by") == "stopped":
        return Group(head, officers(view), Text(t("result.stopped.line"), style="bold"))
    if coop.is_coop(view):
        return Group(head, team.result_lines(view))
    out = Text("\n")
    if not winners:
        out.append(t("result.nobody.line"), style="bold")
    else:
        names = _joined([who(w, me, view) for w in winners])
        out.append(t("result.winners", names=names, n=len(winners)), style="bold green")
        reason = why(view)
        if reason:
            out.append(reason + "\n")
    return Group(head, officers(view), out)


class ResultScreen(Screen[None]):
    """The end of the game: the murderer, every accusation, the winners and why; the rematch
    when the screen has the session (and the app's context, for a seat)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "app.pop_screen", t("result.key.board")),
        Binding("escape", "app.pop_screen", t("result.key.back"), show=False),
        Binding("m", "rematch", t("result.key.rematch")),
        Binding("j", "join_rematch", t("result.key.join"), show=False),
        Binding("w", "watch_rematch", t("result.key.watch"), show=False),
        Binding("q", "app.quit", t("key.quit")),
    ]

    def __init__(
        self, view: View, session: TableSession | None = None, ctx: Context | None = None
    ) -> None:
        super().__init__()
        self.view = view
        self.summary = summary(view)
        self.session = session
        self.ctx = ctx
        self.busy: str | None = None  # what the rematch is doing, or why it failed
        self.failed = False  # busy says why the rematch failed

    @property
    def words(self) -> str:
        """The screen's words as plain text (for tests and scripts)."""
        return plain(self.summary)

    @property
    def seated(self) -> bool:
        return self.session is not None and rematch.can_ask(self.ctx, self.session)

    def rematch_words(self) -> str:
        """The rematch line: what the keys do now."""
        next_table = self.session.rematch_table if self.session is not None else None
        if self.busy:
            return self.busy
        if next_table and self.seated:
            return t("result.rematch.ready", table=str(next_table))
        if next_table and self.session is not None:
            return t("result.rematch.started", table=str(next_table))
        if self.seated:
            return t("result.rematch.offer")
        return ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="result-box"):
            yield Static(self.summary, id="result")
            yield Static(t("result.help"), id="result-help")
            yield Static(self.rematch_words(), id="rematch-line")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(0.25, self._show_rematch)

    def _show_rematch(self) -> None:
        self.query_one("#rematch-line", Static).update(self.rematch_words())

    def _run(self, doing: str, work: object) -> None:
        if self.busy and not self.failed:
            return
        self.failed = False
        self.busy = doing
        self._show_rematch()
        self.run_worker(work, exclusive=True, group="rematch")  # type: ignore[arg-type]

    def action_rematch(self) -> None:
        if self.seated and self.session is not None and self.session.rematch_table:
            self.action_join_rematch()
        elif self.seated:
            self._run(t("result.rematch.setting_up"), self._rematch())

    def action_join_rematch(self) -> None:
        if self.seated and self.session is not None and self.session.rematch_table:
            self._run(t("result.rematch.joining"), self._join(self.session.rematch_table))

    def action_watch_rematch(self) -> None:
        session = self.session
        if session is not None and session.rematch_table and not self.seated:
            self._run(t("result.rematch.opening"), self._watch(session.rematch_table))

    async def _rematch(self) -> None:
        assert self.ctx is not None and self.session is not None
        try:
            table = await rematch.ask(self.ctx, self.session)
        except (ClientError, OSError) as exc:
            self.busy, self.failed = t("result.rematch.cannot_ask", problem=problem(exc)), True
            return
        await self._join(table)

    async def _join(self, table: str) -> None:
        assert self.ctx is not None and self.session is not None
        try:
            await rematch.join(self.app, self.ctx, self.session, table)
        except (ClientError, OSError) as exc:
            self.busy, self.failed = t("result.rematch.cannot_join", problem=problem(exc)), True

    async def _watch(self, table: str) -> None:
        assert self.session is not None
        ctx = self.ctx or getattr(self.app, "ctx", None)
        try:
            await rematch.watch(self.app, ctx, self.session, table)  # type: ignore[arg-type]
        except (ClientError, OSError) as exc:
            self.busy, self.failed = t("result.rematch.cannot_watch", problem=problem(exc)), True


def plain(renderable: RenderableType, width: int = 100) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def problem(error: BaseException) -> str:
    """An error in words: a protocol error by its code from the catalogue, else as it says."""
    code = getattr(error, "code", None)
    return error_words(code) if isinstance(code, str) and code else str(error)
