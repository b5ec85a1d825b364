"""How to play, in the terminal client (``?`` or F1 on the game and waiting screens): the goal,
the turn, the actions, evidence and suspects, the end, the cooperative game, what every
glyph of the board means, and the keys (the lobby's too: identity, ratings, report and block).
It follows docs/rules.md (Spanish: docs/rules.es.md), in short; the full rules are there.  Its
words are the ``help.*`` messages of ``locales/`` (one paragraph, one key)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from echoridge_client.logtext import catalog
from echoridge_terminal.header import Header
from echoridge_terminal.i18n import language, t
from echoridge_terminal.render import MARKER_STYLE, MOBSTER_STYLES

#: The actions' rows (rules.md §5): the action's name is ``action.<id>``; its hours, when it may
#: be taken and what it does are ``help.hours.<id>``, ``help.when.<id>``, ``help.does.<id>``.
ACTIONS = (
    "arrest", "coffee_break", "call_for_backup", "catch_informant", "catch_witness",
    "search_scene", "stakeout", "bring_in", "resolve_event",
)  # fmt: skip

#: The parts of the page in order: (heading's key, the part: a paragraph's key or a renderable).
PARTS = ("goal", "turn", "actions", "evidence", "coop", "board", "clocks", "keys", "players")


def glyphs() -> RenderableType:
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()

    def g(*parts: str | tuple[str, str]) -> Text:
        return Text.assemble(*parts)  # styled spans: the style stops at the glyph

    hq = t("city.hq")
    rows: list[tuple[Text, str]] = [
        (g((" R ", MOBSTER_STYLES["red"]), (" B ", MOBSTER_STYLES["blue"]),
           (" G ", MOBSTER_STYLES["gray"])), "mobsters"),
        (g(("S?", "bold white on grey30")), "search"),
        (g(("K?", "bold white on grey30")), "stakeout"),
        (g(("S+", "bold black on gold1"), " ", ("S-", "bold black on gold1")), "search_known"),
        (g(("K3", "bold black on gold1")), "stakeout_known"),
        (g(("✓", "bold green")), "checked"),
        (g(("·", "dim")), "unchecked"),
        (g((" I ", "bold white on purple4")), "informant"),
        (g(("W", "bold white on dark_green")), "witness"),
        (g((t("city.event_token", slot=1), "bold white on dark_red")), "event"),
        (g(t("help.sample.cars")), "cars"),
        (g(("»Harbor Docks", "bold magenta reverse")), "last_move"),  # (block names: data)
        (g(("»Old Mill", "bold white on red3")), "news"),
        (g((hq, "bold underline")), "hq"),
        (g(("12", "bold yellow"), " ", ("13", "bold blue")), "track"),
        (g(("|", "bold red")), "event_line"),
        (g(("P1", "bold cyan")), "tracker"),
        (g(("●", "bold green"), " ", ("○", "dim red"), " ", ("◆", "bold cyan")), "presence"),
        (g((catalog(language()).private_mark, "bold green")), "private"),
        (g((t("track.ot"), MARKER_STYLE)), "marker"),
        (g("★"), "lead"),
        (g((catalog(language()).team_mark, "bold green")), "team"),
    ]  # fmt: skip
    for glyph, meaning in rows:
        table.add_row(glyph, t(f"help.glyph.{meaning}"))
    return table


def actions() -> RenderableType:
    table = Table(box=None, header_style="bold underline", padding=(0, 1))
    for head in ("action", "hours", "when", "does"):
        table.add_column(t(f"help.column.{head}"), no_wrap=head != "does")
    for action in ACTIONS:
        table.add_row(
            t(f"action.{action}"),
            t(f"help.hours.{action}"),
            t(f"help.when.{action}"),
            t(f"help.does.{action}"),
        )
    return table


def how_to_play() -> RenderableType:
    def head(part: str) -> Text:
        return Text("\n" + t(f"help.head.{part}"), style="bold reverse")

    special = {"actions": actions, "board": glyphs}
    shown: list[RenderableType] = [Text(t("help.title"), style="bold")]
    for part in PARTS:
        shown.append(head(part))
        shown.append(special[part]() if part in special else Text(t(f"help.{part}")))
    shown.append(head("rules"))
    shown.append(Text(t("help.rules")))
    return Group(*shown)


class HelpScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,b", "app.pop_screen", t("key.back")),
        Binding("q", "app.quit", t("key.quit")),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="help-box"):
            yield Static(how_to_play(), id="help")
        yield Footer()
