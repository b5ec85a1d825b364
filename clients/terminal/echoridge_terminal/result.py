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
from textual.widgets import Footer, Header, Static

from echoridge_client.errors import ClientError
from echoridge_client.session import TableSession
from echoridge_terminal import coop, rematch, team
from echoridge_terminal.context import Context
from echoridge_terminal.data import suspect_name
from echoridge_terminal.describe import my_seat, who
from echoridge_terminal.render import seat_style

View = dict[str, Any]
# result.decided_by "stopped" (SPEC.md §6.1): the operator ended the game; nobody won it
STOPPED = "The server's operator stopped this game before its end: nobody wins."


def _joined(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _figures(values: list[int]) -> str:
    return " to ".join(str(v) for v in values)


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
        return STOPPED
    if decided == "nobody" or not right:
        return "Nobody named the murderer: everyone loses."
    name = [who(s, me, view) for s in right]
    if decided == "accusation" or len(right) == 1:
        return f"{name[0]} alone named the murderer."
    both = "both" if len(right) == 2 else "all"
    head = f"{_joined(name)} {both} named the murderer; "
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
        return head + f"{win} wins on badges: {figures(right, badge)}."
    if decided == "tracker":
        return head + (f"at badge {badge(level[0])}, {win} wins on the time track (the lowest "
                       f"tracker): space {figures(level, space)}.")  # fmt: skip
    if decided == "evidence":
        return head + (f"at badge {badge(level[0])} and space {space(closest[0])}, {win} wins "
                       f"on Evidence tokens: {figures(closest, tokens)}.")  # fmt: skip
    if decided == "tie":
        return head + ("badges, trackers and Evidence tokens are all level: "
                       f"{win} share the win.")  # fmt: skip
    return ""


def officers(view: View) -> Table:
    """Who named whom, and what a tie-break compares, one officer a row."""
    r = view.get("result") or {}
    me = my_seat(view)
    murderer = r.get("murderer")
    winners = {int(w) for w in r.get("winners") or ()}
    table = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    for head in ("officer", "named", "", "badge", "tracker", "Evidence tokens", ""):
        table.add_column(head)
    accusations = list(r.get("accusations") or ())
    for p in view.get("players") or ():
        seat = int(p["seat"])
        accused = accusations[seat] if seat < len(accusations) else None
        named = f"{accused} {suspect_name(str(accused))}" if accused else "nobody"
        right = bool(accused) and accused == murderer
        solved = [str(e).capitalize() for e in p.get("evidence") or ()]
        table.add_row(
            Text(who(seat, me, view), style=seat_style(seat)),
            named,
            Text("right", style="bold green") if right else Text("wrong", style="red"),
            str(p.get("badge")),
            f"space {p.get('space')}",
            f"{len(solved)}" + (f" ({', '.join(solved)})" if solved else ""),
            Text("wins" if seat in winners else "", style="bold green"),
        )
    return table


def summary(view: View) -> RenderableType:
    r = view.get("result") or {}
    me = my_seat(view)
    murderer = str(r.get("murderer") or "?")
    winners = [int(w) for w in r.get("winners") or ()]
    head = Text("GAME OVER\n\n", style="bold red")
    head.append("The murderer was ")
    head.append(f"{murderer} {suspect_name(murderer)}\n", style="bold")
    if r.get("decided_by") == "stopped":
        return Group(head, officers(view), Text("\n" + STOPPED + "\n", style="bold"))
    if coop.is_coop(view):
        return Group(head, team.result_lines(view))
    out = Text("\n")
    if not winners:
        out.append("Nobody named the murderer: everyone loses.\n", style="bold")
    else:
        names = _joined([who(w, me, view) for w in winners])
        verb = "win" if len(winners) > 1 else "wins"
        out.append(f"{names} {verb}!\n", style="bold green")
        reason = why(view)
        if reason:
            out.append(reason + "\n")
    return Group(head, officers(view), out)


class ResultScreen(Screen[None]):
    """The end of the game: the murderer, every accusation, the winners and why; the rematch
    when the screen has the session (and the app's context, for a seat)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "app.pop_screen", "Back to the board"),
        Binding("escape", "app.pop_screen", "Back", show=False),
        Binding("m", "rematch", "Rematch"),
        Binding("j", "join_rematch", "Join the rematch", show=False),
        Binding("w", "watch_rematch", "Watch the rematch", show=False),
        Binding("q", "app.quit", "Quit"),
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
            return f"Rematch ready (table {next_table}): j to join"
        if next_table and self.session is not None:
            return f"The players start a rematch (table {next_table}): w to watch"
        if self.seated:
            return "m: rematch (a new table, same seats and settings)"
        return ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="result-box"):
            yield Static(self.summary, id="result")
            yield Static("b: back to the final board    q: quit", id="result-help")
            yield Static(self.rematch_words(), id="rematch-line")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(0.25, self._show_rematch)

    def _show_rematch(self) -> None:
        self.query_one("#rematch-line", Static).update(self.rematch_words())

    def _run(self, doing: str, work: object) -> None:
        if self.busy and not self.busy.startswith("Could not"):
            return
        self.busy = doing
        self._show_rematch()
        self.run_worker(work, exclusive=True, group="rematch")  # type: ignore[arg-type]

    def action_rematch(self) -> None:
        if self.seated and self.session is not None and self.session.rematch_table:
            self.action_join_rematch()
        elif self.seated:
            self._run("Setting up the rematch...", self._rematch())

    def action_join_rematch(self) -> None:
        if self.seated and self.session is not None and self.session.rematch_table:
            self._run("Joining the rematch...", self._join(self.session.rematch_table))

    def action_watch_rematch(self) -> None:
        session = self.session
        if session is not None and session.rematch_table and not self.seated:
            self._run("Opening the rematch...", self._watch(session.rematch_table))

    async def _rematch(self) -> None:
        assert self.ctx is not None and self.session is not None
        try:
            table = await rematch.ask(self.ctx, self.session)
        except (ClientError, OSError) as exc:
            self.busy = f"Could not set up the rematch: {exc}"
            return
        await self._join(table)

    async def _join(self, table: str) -> None:
        assert self.ctx is not None and self.session is not None
        try:
            await rematch.join(self.app, self.ctx, self.session, table)
        except (ClientError, OSError) as exc:
            self.busy = f"Could not join the rematch: {exc}"

    async def _watch(self, table: str) -> None:
        assert self.session is not None
        ctx = self.ctx or getattr(self.app, "ctx", None)
        try:
            await rematch.watch(self.app, ctx, self.session, table)  # type: ignore[arg-type]
        except (ClientError, OSError) as exc:
            self.busy = f"Could not watch the rematch: {exc}"


def plain(renderable: RenderableType, width: int = 100) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()
