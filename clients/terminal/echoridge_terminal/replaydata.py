"""The data and words of a replay in the terminal (``echo-ridge replay``, tui/replayer.py): the
pages of one viewer's replay fetched and kept (``ReplayData``: every view fetched, its reveals
checked in version order), the viewer, the refusals and the secrets panel in the players' words.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from echoridge_client.errors import ClientError, RevealError
from echoridge_client.lobby import Lobby
from echoridge_client.replay import ReplayError
from echoridge_client.reveals import Verifier
from echoridge_protocol.codes import ALL_CODES
from echoridge_protocol.delta import apply, diff
from echoridge_terminal import coop, render
from echoridge_terminal.data import EVIDENCE_ORDER, force_name, suspect_name
from echoridge_terminal.describe import names, where, who

View = dict[str, Any]
Entry = dict[str, Any]

PAGE = 100  # versions a page (the server allows up to 200)
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # versions a second while playing
SPEED = 2  # the index of the speed a replay starts with
#: The seat commands: no moves of the game (SPEC.md §5.4), so n/p pass them by.
SEAT_COMMANDS = frozenset({"extend_time", "play_for_me", "take_back", "vote_handover", "auto_pass"})

#: A refusal of the replay, in words (``{table}``: the table's id, ``{url}``: the server's).
REFUSALS = {
    "table/not_found": "There is no table {table} on this server.",
    "table/not_started": "The game at table {table} has not started: there is nothing to "
    "replay yet.",
    "table/not_finished": "The game at table {table} is still being played: its replay opens "
    "once it is over. Watch it now with: echo-ridge watch {url} {table}",
    "table/closed": "Table {table} was closed before its game started: there is nothing to replay.",
}


def refusal_words(code: str, table: str, url: str = "URL") -> str:
    """A refused request in the client's words for its code."""
    words = REFUSALS.get(code)
    if words is not None:
        return words.format(table=table, url=url)
    return f"{ALL_CODES.get(code, 'The server refused.').rstrip('.')} ({code})."


@dataclass(frozen=True)
class Viewer:
    """Whose replay: a seat's (``seat``), a spectator's (neither), or everyone's."""

    seat: int | None = None
    everyone: bool = False

    def words(self, view: View) -> str:
        if self.everyone:
            return "Everyone (every secret shown)"
        if self.seat is None:
            return "A spectator's view"
        return f"Seat {self.seat} ({who(self.seat, None, view)}, P{self.seat + 1} on the board)"


class ReplayData:
    """One viewer's replay: the versions fetched so far, each its view and its log entries as
    that viewer knew them; the game's ``last`` version once a page said it."""

    def __init__(self, lobby: Lobby, table: str, viewer: Viewer, page: int | None = None) -> None:
        self.lobby, self.table, self.viewer = lobby, table, viewer
        self.page = page or PAGE
        self.views: dict[int, View] = {}
        self.logs: dict[int, tuple[Entry, ...]] = {}
        self.last: int | None = None
        self.starts: set[int] = set()  # the pages fetched, by their start
        self.verifier = Verifier()
        self.error: ClientError | None = None  # a failed reveal check, or pages that disagree
        self.lock = asyncio.Lock()
        self.filling = False  # the pages before the versions shown are being fetched

    def start_of(self, version: int) -> int:
        return version // self.page * self.page

    async def fetch(self, version: int) -> None:
        """Fetch the page that holds ``version``, unless it was (``Refused``, ``ClientError``)."""
        start = self.start_of(version)
        async with self.lock:
            if start in self.starts:
                return
            viewer = self.viewer
            page = await self.lobby.replay_page(
                self.table, viewer.seat, everyone=viewer.everyone, start=start, limit=self.page
            )
            self.last = page.last
            view = dict(page.view)
            known = self.views.get(page.start)
            if known is not None and diff(known, view) and self.error is None:
                self.error = ReplayError(
                    f"the page from version {page.start} starts from another view than the "
                    "page before it ended at"
                )
            self.views[page.start] = view
            self.logs[page.start] = tuple(page.log or ())
            for step in page.steps:
                view = apply(view, step.ops)
                self.views[step.version] = view
                self.logs[step.version] = tuple(step.log or ())
            self.starts.add(start)
            self._verify()

    def _verify(self) -> None:
        """Check every reveal fetched, in version order (a look's card opens the commitment
        shown when its slots were dealt: a page fetched before the pages before it is checked
        again once they come; what was checked is not checked twice)."""
        if self.error is not None:
            return
        try:
            for version in sorted(self.views):
                self.verifier.check(self.views[version])
        except RevealError as exc:
            self.error = exc

    def first_of_run(self, version: int) -> int:
        """The first version of the fetched run of versions that ends at ``version``."""
        first = version
        while first - 1 in self.views:
            first -= 1
        return first

    def entries(self, version: int) -> list[Entry]:
        """The log entries of the fetched run of versions up to ``version``, in order."""
        return [e for v in range(self.first_of_run(version), version + 1) for e in self.logs[v]]

    def named(self) -> View:
        """A view that names the players (the latest fetched: version 0 has no players yet)."""
        return self.views[max(self.views)] if self.views else {}

    def turn_begins(self, version: int) -> bool:
        return any(e.get("kind") == "turn_began" for e in self.logs.get(version, ()))


def turn_words(view: View) -> str:
    """Where the game stands at a version, in the players' words."""
    status = view.get("status")
    if status == "new":
        return "Before the start"
    if status == "over":
        return "The game is over"
    if status == "accusing":
        return "The accusations"
    turn = view.get("turn") or {}
    number, seat = turn.get("number"), turn.get("seat")
    when = "" if coop.is_coop(view) else f" ({turn.get('time')})"
    return f"Turn {number}{when}, {who(seat, None, view)} to play"


def secrets(view: View, checked: render.Checked) -> RenderableType:
    """Everyone's panel: the secrets of the version (``view.secrets``, SPEC.md §6.1)."""
    s = view.get("secrets")
    if not isinstance(s, dict):
        return Text("Everyone's view: no secrets before the game starts.", style="dim")
    out = Text("Every secret at this version\n", style="bold")
    murderer = next((p["value"] for p in s.get("proofs") or () if p.get("label") == "murderer"),
                    None)  # fmt: skip
    if murderer:
        out.append("The murderer: ", style="bold")
        out.append(f"{murderer} {suspect_name(str(murderer))}\n", style="bold red")
    traits = s.get("traits") or {}
    if traits:
        out.append("Traits: ", style="bold")
        out.append(", ".join(f"{e} = {traits[e]}" for e in EVIDENCE_ORDER if e in traits) + "\n")
    who_is = names(view)
    hands, force = s.get("hands") or [], s.get("force_hands") or []
    for seat, hand in enumerate(hands):
        name = who_is[seat] if seat < len(who_is) else f"P{seat + 1}"
        out.append(f"{name}: ", style=render.seat_style(seat))
        out.append("Suspects " + (", ".join(f"{c} {suspect_name(str(c))}" for c in hand) or "none"))
        cards = force[seat] if seat < len(force) else []
        out.append("; Force " + (", ".join(force_name(str(c)) for c in cards) or "none") + "\n")
    deck = s.get("suspect_deck") or []
    out.append(f"Suspect deck ({len(deck)}), top first: ", style="bold")
    out.append(", ".join(f"{c} {suspect_name(str(c))}" for c in deck[:5]) or "empty")
    out.append(" …\n" if len(deck) > 5 else "\n")
    tokens = [t for t in s.get("tokens") or () if t.get("place") == "city"]
    if tokens:
        out.append("Tokens in the city: ", style="bold")
        for t in tokens:
            value = t.get("value")
            shown = ("success" if value else "failure") if t.get("kind") == "search" else value
            out.append(f"{where(view, t.get('block'))}: {shown}  ")
        out.append("\n")
    return out
