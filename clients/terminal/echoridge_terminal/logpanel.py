"""The game screen's log: one line per entry of the session's ``log`` (SPEC.md §6.3), in the
words of ``logtext`` with the players' names.  A turn's first line stands out; what only this
seat was told is marked (``(only you)``) and coloured; each action is followed by its result
(the entries come in the engine's order: the action, its dice or risk, what it gave); the kinds
a short log leaves out (the generator's draws, phase changes) are not shown.  In a co-op game
(``team``) what the whole team was told and spectators were not carries the catalog's team mark
instead, in the same colour.  Blocks are worded by their names in the city (``blocks``:
``logtext.block_names(view)``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from echoridge_client.logtext import catalog, is_private, is_team, render, seat_name
from echoridge_terminal.i18n import language

Entry = dict[str, Any]

STYLES = {
    "turn_began": "bold reverse",
    "game_started": "bold",
    "game_ended": "bold red",
    "game_stopped": "bold red",
    "accusation_opened": "bold",
    "timed_out": "yellow",
    "evidence_solved": "bold green",
    "mobster_arrested": "bold",
}
PRIVATE_STYLE = "bold green"
INDENT = "  "  # the lines of a turn, under its first


def seat_label(names: Sequence[str], seat: int | None) -> str:
    """A seat's display name, as the log words it."""
    return seat_name(names, seat)


def line(
    entry: Entry,
    names: Sequence[str],
    me: int | None,
    whole: bool = False,
    team: bool = False,
    blocks: Sequence[str] = (),
) -> Text | None:
    """One entry as a line of the panel (None: a kind the short log leaves out); ``team``: a
    co-op game (of ``len(names)`` seats), where an entry told to every seat was the team's."""
    if catalog(language()).is_hidden(entry):
        return None
    kind = str(entry.get("kind"))
    seats = len(names) if team else 0
    private = is_private(entry, me, whole, seats) or is_team(entry, me, whole, seats)
    words = render(
        entry, names, me, whole=whole, coop=team, blocks=blocks, language=language()
    )
    if kind == "turn_began":
        return Text(f"-- {words} --", style=STYLES[kind])
    style = PRIVATE_STYLE if private else STYLES.get(kind, "")
    return Text(INDENT + words, style=style)


def lines(
    entries: Sequence[Entry],
    names: Sequence[str],
    me: int | None,
    whole: bool = False,
    *,
    team: bool = False,
    blocks: Sequence[str] = (),
) -> list[Text]:
    return [t for e in entries if (t := line(e, names, me, whole, team, blocks)) is not None]
