"""How to play, in the terminal client (``?`` or F1 on the game and waiting screens): the goal,
the turn, the actions, evidence and suspects, the end, the cooperative game, what every
glyph of the board means, and the keys (the lobby's too: identity, ratings, report and block).
It follows docs/rules.md, in short; the full rules are there."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from echoridge_client.logtext import catalog
from echoridge_terminal.i18n import language
from echoridge_terminal.render import MARKER_STYLE, MOBSTER_STYLES

GOAL = """\
Someone has been murdered in Echo Ridge. Each officer has 48 hours on the shared time track to
find out which of 16 suspects did it. Drive around the 5x5 city, arrest mobsters and collect
clues. When the clues of one kind (over all players together) are complete, that evidence is
solved: whoever collected the last clue learns one trait of the murderer in secret, and everyone
who holds a clue of that kind gains a Suspect card. A Suspect card you hold or have seen is an
innocent person (the murderer's card is sealed away). When every officer has ended, each one
accuses a suspect in secret. The only officer who named the murderer wins; several: the highest
badge, then the lowest tracker, then the most evidence tokens win; none: everybody loses."""

TURN = """\
The officer furthest back on the time track plays next (on a shared space: the top of the stack),
so you may play several turns in a row. A turn that starts on 0-12 or 25-36 is a day turn, on
13-24 or 37-47 a night turn, whatever the hours spent during it.
  1. Drive (optional): block to adjacent block, 1 h per block entered (events may add more).
  2. Action (required): exactly one; your tracker then moves on by the drive's and the action's
     hours. No action ever takes you past 48.
  3. Event lines (8, 16, 24, 32, 40): the first advance across a line brings in an event.
  4. Mobster Roll: black and white dice name a block; an empty block gets a mobster from the
     bag, an occupied one brings an event; a 6 or 3-3 is a reprieve; doubles 1-1, 2-2, 4-4, 5-5
     roll again (a crime spree).
  5. End of turn: timed events expire; on 43-47 you may Rest Your Case (end your game); on 48
     your game ends.
Force cards cost no hours; play them on your own turn at the moment each allows (the menu only
offers what is allowed now). Badge levels 2, 4, 6, 8 and 10 each give an Interrogate: look at a
random Suspect card of another officer."""

ACTIONS = [
    ("Arrest", "1 h", "day/night", "a mobster on your block: onto your arrest spot of its "
     "colour (all three filled: +1 badge)"),
    ("Coffee Break", "1 h", "day/night", "nothing happens; time passes"),
    ("Call for Backup", "risk 1-6 h", "day", "one die; die <= risk: every mobster on your block "
     "and the adjacent ones is apprehended and you gain a Force card; else only yours"),
    ("Catch Informant", "2 h", "day", "a mobster on your block: take the Informant of your row, "
     "+1 badge (5 solve Rank)"),
    ("Catch Witness", "2 h", "night", "a mobster on your block: take the Witness of your column, "
     "+1 badge (5 solve Gang)"),
    ("Search Scene", "2 h", "day", "turn the Search token on your block face up, +1 badge "
     "(3 successes solve Forensics)"),
    ("Stakeout", "risk 1-5 h", "night", "you alone see the Stakeout token's value; value <= risk: "
     "it is yours, +1 badge (3 solve Getaway)"),
    ("Bring in for Holding", "2 h + 2 h", "night", "step 1 holds the mobster on your block; "
     "step 2, at HQ on a later turn: the Holding token of its colour, +1 badge (3 solve Weapon)"),
    ("Resolve Event", "as the event says", "as the event says", "deal with an event at one of "
     "its tokens; 'Events in play' on the board says what each asks and what it gives to who "
     "resolves it and to who helped"),
]  # fmt: skip

EVIDENCE = """\
Rank: Boss or Underboss (Informants)    Gang: Red Rhinos or Blue Bees (Witnesses)
Forensics: Fingerprints or Shoeprints (Search successes)    Getaway: Car or Motorcycle
(Stakeouts)    Weapon: Gun or Knife (Holding tokens).  Your panel lists the suspects who are
still possible given the traits you know and the innocents you have seen."""


COOP = """\
In a cooperative game (2-4 officers) the team plays together against the clock and wins only if
its one joint accusation names the murderer. Each officer has a role, drawn at the start, that
limits the clue actions they may take (every role may Drive, Arrest, Call for Backup, take a
Coffee Break, Resolve Events and Rest Your Case):
  Detective (the lead): Catch Witness, Search Scene      Patrol Cop: Catch Informant, Stakeout,
  Bring in for Holding      Analyst: Search Scene, Stakeout      Forensic Tech: Catch Informant,
  Catch Witness, Bring in for Holding.
There are no day/night limits and no arrest spots. Some mobsters are out of the game; a removed
gray one is the Out-of-Time Marker, on 49 at first: the hour cap is one space before it, and
each Too-Many-Events Penalty moves it back a space (a tracker it reaches has ended). Every
Suspect drawn is face up for all to see; solved traits are shown to everyone, and whatever one
officer learns the team learns. With 2 officers the team shares one Force hand (limit 2).
At the end each officer chooses a suspect; if the choices differ, the lead's stands. The team
section of the board shows every role, face-up Suspect, hand and choice."""


def glyphs() -> RenderableType:
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()

    def g(*parts: str | tuple[str, str]) -> Text:
        return Text.assemble(*parts)  # styled spans: the style stops at the glyph

    rows: list[tuple[Text, str]] = [
        (g((" R ", MOBSTER_STYLES["red"]), (" B ", MOBSTER_STYLES["blue"]),
           (" G ", MOBSTER_STYLES["gray"])), "a red, blue or gray mobster on the block"),
        (g(("S?", "bold white on grey30")), "a face-down Search token"),
        (g(("K?", "bold white on grey30")), "a face-down Stakeout token"),
        (g(("S+", "bold black on gold1"), " ", ("S-", "bold black on gold1")),
         "a Search token you know: success or failure"),
        (g(("K3", "bold black on gold1")), "a Stakeout token whose value you know"),
        (g(("✓", "bold green")), "a reveal the client checked against the server's commitment"),
        (g(("·", "dim")), "a reveal with nothing to check it against"),
        (g((" I ", "bold white on purple4")), "the Informant of that row is still in place"),
        (g(("W", "bold white on dark_green")), "the Witness of that column is still in place"),
        (g(("ev1", "bold white on dark_red")), "a token of the event in slot 1"),
        (g("car 1 2"), "the cars of P1 and P2 (yours reversed; the officers' line under the "
         "time track says who is who)"),
        (g(("»Harbor Docks", "bold magenta reverse")),
         "the last move: where that officer's car went and acted, on their colour; the lines "
         "under the board say what happened"),
        (g(("»Old Mill", "bold white on red3")),
         "what the last turn brought: a mobster the roll placed, an event token"),
        (g(("* HQ *", "bold underline")), "Police HQ; 'hold RBG': the Holding tokens left there"),
        (g(("12", "bold yellow"), " ", ("13", "bold blue")),
         "time track: day spaces yellow, night blue; 43-48 underlined"),
        (g(("|", "bold red")), "an event line (dim once crossed)"),
        (g(("P1", "bold cyan")), "a tracker on the time track (stacks: top first)"),
        (g(("●", "bold green"), " ", ("○", "dim red"), " ", ("◆", "bold cyan")),
         "an officer connected, away, or played by the server (a bot)"),
        (g(("(only you)", "bold green")), "a log line only you were told"),
        (g(("OT", MARKER_STYLE)), "co-op: the Out-of-Time Marker on the time track"),
        (g("★"), "co-op: the lead, whose accusation stands when the team's differ"),
        (g((catalog(language()).team_mark, "bold green")),
         "co-op: a log line the team was told, the spectators not"),
    ]  # fmt: skip
    for glyph, meaning in rows:
        table.add_row(glyph, meaning)
    return table


def actions() -> RenderableType:
    table = Table(box=None, header_style="bold underline", padding=(0, 1))
    for head in ("action", "hours", "when", "what it does"):
        table.add_column(head, no_wrap=head != "what it does")
    for row in ACTIONS:
        table.add_row(*row)
    return table


KEYS = """\
Enter: send the highlighted menu entry (its cost in hours is the server's; greyed lines say why
an action is not possible now)    m: back to the menu    r: the result (after the game)
t: more time (moves time from your bank to this turn)    p: play for me (the server plays your
seat)    b: take my seat back    v: vote to let the server play for a player who is away
a: pass when I have nothing to play (on or off)    These keys show in the footer only while
they are possible.    x: report or block another player (with an identity)    ?/F1: this
screen    Escape: back    q: quit"""

PLAYERS = """\
The first name you choose on a server (creating or joining a table) becomes your identity
there: nobody else can take that name, and your competitive games against other players with
an identity are rated. The client keeps the identity's secret in identity.json in your config
directory (~/.config/echo-ridge, or $ECHORIDGE_CONFIG_DIR); keep it to yourself. Play without
one with  echo-ridge play --guest.
Ratings: a new player has 1000; winning raises it, and it rises as the server grows sure of
your skill. "1012?": provisional (your first games).
In the lobby: F2 the leaderboard (Enter: a player's page, m: yours), F3 your page (your games,
each player's rating change; Enter replays a game), F4 you: rename, a transfer code to play as
yourself on another device (echo-ridge play URL --claim CODE there; it works once, for ten
minutes), the players you block.
At a table or in a replay, x reports another player to the server's operators (a reason, and
what happened), or blocks them: their chat is hidden from you, and the lobby marks the tables
where they sit ("⚠ blocked player")."""

CLOCKS = """\
A table may have a clock. Under the officers each seat shows its running clocks counting down:
"turn 1:12 left" (then the server plays the rest of that turn), "decision 0:40 left" (then the
server answers by default), "handover in 2:00" for a player who is away (then the server plays
the seat until they come back), and its time bank. "away since 14:03": nobody is connected for
that seat. "played by the server (reason)": the server plays that seat now; reconnecting takes
it back, or b (after p, only b does)."""


def how_to_play() -> RenderableType:
    def head(text: str) -> Text:
        return Text(f"\n{text}", style="bold reverse")

    return Group(
        Text("HOW TO PLAY ECHO RIDGE", style="bold"),
        head("The goal"), Text(GOAL),
        head("A turn"), Text(TURN),
        head("The actions"), actions(),
        head("Evidence and the murderer's traits"), Text(EVIDENCE),
        head("The cooperative game"), Text(COOP),
        head("The board"), glyphs(),
        head("Clocks, absence and handover"), Text(CLOCKS),
        head("Keys"), Text(KEYS),
        head("Your identity, ratings, reports and blocks"), Text(PLAYERS),
    )  # fmt: skip


class HelpScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,b", "app.pop_screen", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="help-box"):
            yield Static(how_to_play(), id="help")
        yield Footer()
