"""The last move, for the line near the board and its highlight on the city: what a new player
most needs to see after someone (a bot, often) has played.

The log (SPEC.md §6.3) is cut into turns at its ``turn_began`` entries.  The last move is the
turn being played when it already holds something (a drive, a Force card, an action, a
decision), else the turn before it, whole: its drive, its action with the die and the risk and
whether it worked, and the end of the turn (the tracker, the Mobster Roll and what it placed).
Its words are the log's (``logpanel``: the shared catalogue, blocks by their names).  The blocks
its entries name are highlighted on the city: where the officer's car went and acted (the
path, the block of an arrest, a search, a stakeout, a look, an event token removed; the car's
block for an action that names none) in that officer's colour, and what the turn brought
(a mobster placed by the roll, a new event token) in red.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from echoridge_client.logtext import block_names, catalog
from echoridge_client.tui import logpanel

Entry = dict[str, Any]
Block = tuple[int, int]

#: Entry kinds whose ``block`` is where the moving officer's car went or acted.
ACTED = frozenset({
    "car_moved", "force_played", "mobster_apprehended", "mobster_arrested", "mobster_held",
    "search_token_flipped", "token_peeked", "stakeout_succeeded", "stakeout_failed",
    "event_token_removed",
})  # fmt: skip
#: Entry kinds whose ``block`` is something the turn brought to the city.
BROUGHT = frozenset({"mobster_placed", "event_token_placed"})
NEWS_STYLE = "bold white on red3"
MOST = 8  # lines of the last move shown near the board (the log has them all)


@dataclass
class LastMove:
    """The entries of the last move and the blocks they name."""

    seat: int | None  # whose turn it was (None: before the first turn)
    number: int | None
    night: bool
    entries: list[Entry] = field(default_factory=list)
    acted: set[Block] = field(default_factory=set)  # the officer's car: path and action
    brought: set[Block] = field(default_factory=set)  # new mobsters and event tokens
    current: bool = False  # the turn being played (else the one before it)


def _block(value: Any) -> Block | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        col, row = value
        if type(col) is int and type(row) is int:
            return (col, row)
    return None


def _shown(entry: Entry) -> bool:
    kind = str(entry.get("kind"))
    return kind != "turn_began" and not catalog().is_hidden(entry)


def of(log: Sequence[Entry], view: dict[str, Any] | None = None) -> LastMove | None:
    """The last move of ``log`` (None: nothing has been played yet).  ``view``: where the
    officer's car stands, for an action whose entries name no block."""
    starts = [i for i, e in enumerate(log) if e.get("kind") == "turn_began"]
    if not starts:
        return None
    segments = [(starts[-1], len(log))]
    if len(starts) > 1:
        segments.append((starts[-2], starts[-1]))
    for n, (first, end) in enumerate(segments):
        entries = [e for e in log[first + 1 : end] if _shown(e)]
        if not entries:
            continue
        began = log[first]
        seat = began.get("seat")
        last = LastMove(
            seat=seat if isinstance(seat, int) else None,
            number=began.get("number") if isinstance(began.get("number"), int) else None,
            night=bool(began.get("night")),
            entries=entries,
            current=n == 0,
        )
        _blocks(last, view)
        return last
    return None


def _blocks(last: LastMove, view: dict[str, Any] | None) -> None:
    acted_here = False
    for e in last.entries:
        kind = str(e.get("kind"))
        if kind == "car_driven":
            last.acted.update(b for b in map(_block, e.get("path") or ()) if b is not None)
        elif kind in ACTED and (b := _block(e.get("block"))) is not None:
            last.acted.add(b)
        elif kind in BROUGHT and (b := _block(e.get("block"))) is not None:
            last.brought.add(b)
        if kind == "action_taken" and e.get("seat") == last.seat:
            acted_here = True
    players = (view or {}).get("players") or []
    if acted_here and last.seat is not None and 0 <= last.seat < len(players):
        car = _block(players[last.seat].get("car"))  # the action happened where the car is
        if car is not None:
            last.acted.add(car)
    last.brought -= last.acted


def text(
    last: LastMove | None,
    view: dict[str, Any],
    names: Sequence[str],
    me: int | None,
    whole: bool = False,
    *,
    team: bool = False,
) -> Text:
    """The lines near the board: whose move, and what happened, in the log's words."""
    out = Text("Last move", style="bold reverse")
    if last is None:
        return out + Text("  nothing has happened yet", style="dim")
    who = logpanel.seat_label(names, last.seat)
    when = "this turn so far" if last.current else "the last turn"
    time = "night" if last.night else "day"
    number = f"turn {last.number}, " if last.number is not None else ""
    out.append(f"  {who} — {when} ({number}{time})\n", style="bold")
    blocks = block_names(view)
    shown = last.entries[-MOST:]
    if len(last.entries) > MOST:
        out.append(f"  … {len(last.entries) - MOST} earlier lines in the log\n", style="dim")
    for e in shown:
        line = logpanel.line(e, names, me, whole, team, blocks)
        if line is None:
            continue
        style = _result_style(e) or line.style
        out.append(f"  {line.plain.strip()}\n", style=style)
    out.rstrip()
    return out


def _result_style(entry: Entry) -> str:
    """Success in green, failure in red: the outcome is what the line is read for."""
    kind = str(entry.get("kind"))
    success = entry.get("success")
    if kind == "stakeout_succeeded" or (kind != "token_peeked" and success is True):
        return "bold green"
    if kind == "stakeout_failed" or (kind != "token_peeked" and success is False):
        return "bold red"
    return ""
