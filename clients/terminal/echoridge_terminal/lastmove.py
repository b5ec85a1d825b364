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
(a mobster placed by the roll, a new event token) in red.  Bots play in a fraction of a second,
so the turns before it, back to the viewer's own, follow in a line each (what was done and what
came of it), so a player's own result and every bot's stay in view until their next turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from echoridge_client.logtext import block_names, catalog
from echoridge_terminal import logpanel
from echoridge_terminal.i18n import language, t

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
#: What a turn's one-line summary says: the action and what came of it.
OUTCOMES = frozenset({
    "car_driven", "action_taken", "backup_called", "search_token_flipped", "stakeout_succeeded",
    "stakeout_failed", "mobster_arrested", "informant_taken", "witness_taken", "mobster_held",
    "holding_token_taken", "evidence_solved", "event_resolved", "player_ended",
})  # fmt: skip
EARLIER = 3  # turns summed up under the last move
#: Lines a long last move leaves to the log.
LESS = frozenset({"tracker_advanced", "slots_dealt", "badge_raised", "force_deck_shuffled",
                  "event_deck_shuffled", "pool_discarded"})  # fmt: skip
NEWS_STYLE = "bold white on red3"
MOST = 9  # lines of the last move shown near the board (the log has them all)


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
    earlier: list[tuple[int | None, list[Entry]]] = field(default_factory=list)  # seat, entries


def _block(value: Any) -> Block | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        col, row = value
        if type(col) is int and type(row) is int:
            return (col, row)
    return None


def _shown(entry: Entry) -> bool:
    kind = str(entry.get("kind"))
    return kind != "turn_began" and not catalog(language()).is_hidden(entry)


def _seat(entry: Entry) -> int | None:
    seat = entry.get("seat")
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def of(log: Sequence[Entry], view: dict[str, Any] | None = None) -> LastMove | None:
    """The last move of ``log`` (None: nothing has been played yet).  ``view``: where the
    officer's car stands, for an action whose entries name no block, and whose turns the
    earlier lines go back to (a seat's own; a spectator's: the last few)."""
    starts = [i for i, e in enumerate(log) if e.get("kind") == "turn_began"][-(EARLIER + 2) :]
    if not starts:
        return None  # the last move and the turns before it, at most
    ends = [*starts[1:], len(log)]
    turns = [
        (log[a], [e for e in log[a + 1 : b] if _shown(e)])
        for a, b in zip(starts, ends, strict=True)
    ]
    n = len(turns) - 1
    if not turns[n][1]:  # the turn being played holds nothing yet: the one before it
        n -= 1
    if n < 0 or not turns[n][1]:
        return None
    began, entries = turns[n]
    last = LastMove(
        seat=_seat(began),
        number=began.get("number") if isinstance(began.get("number"), int) else None,
        night=bool(began.get("night")),
        entries=entries,
        current=n == len(turns) - 1,
    )
    me = (view or {}).get("you", {}) or {}
    mine = me.get("seat") if isinstance(me, dict) else None
    if last.seat != mine:
        for began, entries in reversed(turns[max(0, n - EARLIER) : n]):
            last.earlier.append((_seat(began), entries))
            if _seat(began) == mine:
                break
    _blocks(last, view)
    return last


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
    out = Text(t("last.title"), style="bold reverse")
    if last is None:
        out.append(t("last.nothing"), style="dim")
        return out
    who = logpanel.seat_label(names, last.seat)
    playing = view.get("status") in ("playing", "accusing")
    when = "current" if last.current and playing else "last"
    time = "coop" if team else "night" if last.night else "day"  # co-op has no day and night
    number = "none" if last.number is None else "yes"
    out.append(t("last.header", who=who, when=when, number=number, n=last.number or 0,
                 time=time), style="bold")  # fmt: skip
    blocks = block_names(view)
    shown = last.entries
    if len(shown) > MOST:  # the least telling lines go first (the log keeps them all)
        shown = [e for e in shown if str(e.get("kind")) not in LESS][:MOST]
    for e in shown:
        line = logpanel.line(e, names, me, whole, team, blocks)
        if line is None:
            continue
        style = _result_style(e) or line.style
        out.append(f"  {line.plain.strip()}\n", style=style)
    if len(shown) < len(last.entries):
        hidden = len(last.entries) - len(shown)
        out.append(t("last.more", n=hidden), style="dim")
    if last.earlier:
        out.append(t("last.before"), style="bold")
    for seat, entries in last.earlier:
        who = logpanel.seat_label(names, seat)
        words = [
            _without(said.plain.strip(), who) for e in _outcomes(entries)
            if (said := logpanel.line(e, names, me, whole, team, blocks)) is not None
        ]  # fmt: skip
        out.append(f"  {who}: ", style="bold")
        out.append("; ".join(words) or t("last.no_action"), style="dim" if not words else "")
        out.append("\n")
    out.rstrip()
    return out


def _outcomes(entries: list[Entry]) -> list[Entry]:
    """A turn's drive and what its action came to (the action itself when nothing did)."""
    kept = [e for e in entries if str(e.get("kind")) in OUTCOMES]
    results = [e for e in kept if e.get("kind") not in ("car_driven", "action_taken")]
    return [e for e in kept if e.get("kind") != "action_taken"] if results else kept


def _without(line: str, who: str) -> str:
    """A line of the summary without the officer's name it starts with (said once before)."""
    for lead in (f"{who}: ", f"{who} "):
        if line.startswith(lead):
            return line.removeprefix(lead)
    return line


def _result_style(entry: Entry) -> str:
    """Success in green, failure in red: the outcome is what the line is read for."""
    kind = str(entry.get("kind"))
    success = entry.get("success")
    if kind == "stakeout_succeeded" or (kind != "token_peeked" and success is True):
        return "bold green"
    if kind == "stakeout_failed" or (kind != "token_peeked" and success is False):
        return "bold red"
    return ""
