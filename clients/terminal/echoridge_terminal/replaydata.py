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
from echoridge_terminal.data import (
    EVIDENCE_ORDER,
    evidence_name,
    force_name,
    suspect_gender,
    suspect_name,
)
from echoridge_terminal.describe import names, where, who
from echoridge_terminal.i18n import error_words, t

View = dict[str, Any]
Entry = dict[str, Any]

PAGE = 100  # versions a page (the server allows up to 200)
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # versions a second while playing
SPEED = 2  # the index of the speed a replay starts with
#: The seat commands: no moves of the game (SPEC.md §5.4), so n/p pass them by.
SEAT_COMMANDS = frozenset({"extend_time", "play_for_me", "take_back", "vote_handover", "auto_pass"})

#: The refusals of a replay worded for it (``replay.refused.<code>``, with the table's id and
#: the server's URL); any other code: its ``error.<code>`` sentence.
REFUSALS = frozenset({"table/not_found", "table/not_started", "table/not_finished", "table/closed"})


def refusal_words(code: str, table: str, url: str = "URL") -> str:
    """A refused request in the client's words for its code."""
    if code in REFUSALS:
        return t(f"replay.refused.{code}", table=table, url=url)
    if code not in ALL_CODES:
        return error_words(code)  # (names the code)
    return t("replay.refused", reason=error_words(code).rstrip("."), code=code)


@dataclass(frozen=True)
class Viewer:
    """Whose replay: a seat's (``seat``), a spectator's (neither), or everyone's."""

    seat: int | None = None
    everyone: bool = False

    def words(self, view: View) -> str:
        if self.everyone:
            return t("replay.viewer.everyone")
        if self.seat is None:
            return t("replay.viewer.spectator")
        return t("replay.viewer.seat", seat=self.seat, name=who(self.seat, None, view),
                 n=self.seat + 1)  # fmt: skip


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
                self.error = ReplayError(t("replay.pages_differ", start=page.start))
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
    if status in ("new", "over", "accusing"):
        return t(f"replay.status.{status}")
    turn = view.get("turn") or {}
    number, seat = turn.get("number"), turn.get("seat")
    time = "coop" if coop.is_coop(view) else str(turn.get("time"))
    return t("replay.turn", n=str(number), time=time, name=who(seat, None, view))


def secrets(view: View, checked: render.Checked) -> RenderableType:
    """Everyone's panel: the secrets of the version (``view.secrets``, SPEC.md §6.1)."""
    s = view.get("secrets")
    if not isinstance(s, dict):
        return Text(t("replay.secrets.none"), style="dim")
    out = Text(t("replay.secrets.title") + "\n", style="bold")
    murderer = next((p["value"] for p in s.get("proofs") or () if p.get("label") == "murderer"),
                    None)  # fmt: skip
    if murderer:
        out.append(t("replay.secrets.murderer", gender=suspect_gender(str(murderer))),
                   style="bold")  # fmt: skip
        out.append(f"{murderer} {suspect_name(str(murderer))}\n", style="bold red")
    traits = s.get("traits") or {}
    if traits:
        out.append(t("replay.secrets.traits"), style="bold")
        for n, e in enumerate(e for e in EVIDENCE_ORDER if e in traits):
            if n:
                out.append(", ")
            out.append(t("you.trait", evidence=evidence_name(e), trait=traits[e]))
        out.append("\n")
    who_is = names(view)
    hands, force = s.get("hands") or [], s.get("force_hands") or []
    for seat, hand in enumerate(hands):
        name = who_is[seat] if seat < len(who_is) else f"P{seat + 1}"
        out.append(f"{name}: ", style=render.seat_style(seat))
        cards = force[seat] if seat < len(force) else []
        suspects = ", ".join(f"{c} {suspect_name(str(c))}" for c in hand)
        forces = ", ".join(force_name(str(c)) for c in cards)
        out.append(t("replay.secrets.hands", suspects=suspects or t("you.none"),
                     force=forces or t("you.none")) + "\n")  # fmt: skip
    deck = s.get("suspect_deck") or []
    out.append(t("replay.secrets.deck", n=len(deck)), style="bold")
    out.append(", ".join(f"{c} {suspect_name(str(c))}" for c in deck[:5]) or t("replay.empty"))
    out.append(" …\n" if len(deck) > 5 else "\n")
    tokens = [k for k in s.get("tokens") or () if k.get("place") == "city"]
    if tokens:
        out.append(t("replay.secrets.tokens"), style="bold")
        for k in tokens:
            value = k.get("value")
            shown = t("replay.success" if value else "replay.failure") if (
                k.get("kind") == "search") else str(value)  # fmt: skip
            out.append(f"{where(view, k.get('block'))}: {shown}  ")
        out.append("\n")
    return out
