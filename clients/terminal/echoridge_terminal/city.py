"""The city (SPEC.md §6.1 ``city``): a 5×5 grid of blocks by their names, each with its
mobster, its clue token, the event tokens on it, HQ's Holding tokens and the cars, the
Informants beside the rows and the Witnesses above the columns, and a legend.

The last move (``lastmove``) is highlighted: the name of each block where the moving officer's
car went or acted is marked ``»`` on the officer's colour, and each block the turn brought
something to (a mobster placed by the roll, an event token) ``»`` in red.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from echoridge_terminal.describe import my_seat
from echoridge_terminal.i18n import t
from echoridge_terminal.lastmove import NEWS_STYLE, LastMove
from echoridge_terminal.render import (
    MOBSTER_LETTERS,
    MOBSTER_STYLES,
    Checked,
    mobster,
    seat_style,
)

View = dict[str, Any]
CELL = 15
LABEL = 6  # the rows' labels ("row 1", "fila 1")
MARK = "»"


def moved_style(seat: int | None) -> str:
    """The highlight of the blocks of an officer's last move: the name on their colour."""
    return (seat_style(seat) if seat is not None else "bold white") + " reverse"


def _clue(clue: dict[str, Any], block: Any, checked: Checked) -> Text:
    kind, value = clue.get("kind"), clue.get("value")
    letter = "S" if kind == "search" else "K"
    if value is None:
        return Text(f"{letter}?", style="bold white on grey30")
    shown = ("+" if value else "-") if kind == "search" else str(value)
    out = Text(f"{letter}{shown}", style="bold black on gold1")
    if checked.token(block):
        out.append("✓", style="bold green")
    return out


def _name(b: dict[str, Any], highlight: str | None) -> Text:
    name = t("city.hq") if b.get("hq") else str(b.get("name") or "")
    if highlight is None:
        return Text(name[:CELL], style="bold underline" if b.get("hq") else "bold")
    return Text(f"{MARK}{name}"[:CELL].ljust(CELL), style=highlight)


def _cell(
    b: dict[str, Any], me: int | None, holding: list[str], checked: Checked, highlight: str | None
) -> Text:
    """Three lines: the name; the mobster, the clue token and the event tokens (HQ: the
    Holding tokens left); the cars."""
    out = _name(b, highlight)
    out.append("\n")
    if b.get("mobster"):
        out.append_text(mobster(str(b["mobster"])))
        out.append(" ")
    if b.get("clue"):
        out.append_text(_clue(b["clue"], b["block"], checked))
        out.append(" ")
    if b.get("hq") and holding:
        out.append(t("city.holding"))
        for colour in holding:
            out.append(MOBSTER_LETTERS.get(colour, "?"), style=MOBSTER_STYLES.get(colour, ""))
        out.append(" ")
    for slot in b.get("events") or ():
        out.append(t("city.event_token", slot=slot), style="bold white on dark_red")
        out.append(" ")
    out.rstrip()
    out.append("\n")
    cars = b.get("cars") or []
    if cars:
        out.append(t("city.cars"))
        for seat in cars:
            style = seat_style(seat) + (" reverse" if seat == me else "")
            out.append(str(seat + 1), style=style)
            out.append(" ")
    return out


def _highlight(b: dict[str, Any], last: LastMove | None) -> str | None:
    if last is None:
        return None
    block = b.get("block")
    at = (int(block[0]), int(block[1])) if isinstance(block, (list, tuple)) else None
    if at in last.acted:
        return moved_style(last.seat)
    if at in last.brought:
        return NEWS_STYLE
    return None


def city(view: View, checked: Checked, last: LastMove | None = None) -> RenderableType:
    c = view.get("city") or {}
    blocks = c.get("blocks") or []
    if len(blocks) != 25:
        return Text(t("city.none"), style="dim")
    informants = set(c.get("informants") or ())
    witnesses = set(c.get("witnesses") or ())
    holding = list(c.get("holding_tokens") or ())
    me = my_seat(view)
    table = Table(show_lines=True, padding=(0, 0))
    table.add_column("", width=LABEL)
    for col in range(1, 6):
        head = Text(t("city.column", n=col))
        head.append("W" if col in witnesses else " ", style="bold white on dark_green")
        table.add_column(head, width=CELL, no_wrap=True)
    for row in range(1, 6):
        label = Text(t("city.row", n=row) + "\n")
        if row in informants:
            label.append(" I ", style="bold white on purple4")
        cells = []
        for col in range(1, 6):
            b = blocks[(row - 1) * 5 + col - 1]
            cells.append(_cell(b, me, holding, checked, _highlight(b, last)))
        table.add_row(label, *cells)
    return Group(table, legend(last))


def legend(last: LastMove | None = None) -> Text:
    """What the glyphs mean: each glyph, then its meaning (one message each)."""
    items: list[tuple[tuple[tuple[str, str], ...], str]] = [
        ((("R", MOBSTER_STYLES["red"]), ("B", MOBSTER_STYLES["blue"]),
          ("G", MOBSTER_STYLES["gray"])), "mobsters"),
        ((("S?", "bold white on grey30"), (" ", ""), ("K?", "bold white on grey30")), "face_down"),
        ((("S+", "bold black on gold1"), (" ", ""), ("K3", "bold black on gold1")), "known"),
        ((("I", "bold white on purple4"),), "informant"),
        ((("W", "bold white on dark_green"),), "witness"),
        (((t("city.event_token", slot=1), "bold white on dark_red"),), "event"),
    ]  # fmt: skip
    out = Text()
    for glyph, meaning in items:
        out.append_text(Text.assemble(*glyph))
        out.append(" ")
        out.append(t(f"city.legend.{meaning}"))
        out.append("  ")
    out.append(t("city.legend.car"))
    if last is not None and (last.acted or last.brought):
        out.append("\n")
        out.append(MARK, style=moved_style(last.seat))
        out.append(" ")
        out.append(t("city.legend.last"))
        out.append("  ")
        out.append(MARK, style=NEWS_STYLE)
        out.append(" ")
        out.append(t("city.legend.new"))
    return out
