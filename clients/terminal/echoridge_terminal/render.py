"""Rich renderables of a view (SPEC.md §6.1): the time track, the event slots and evidence, the
officers (the city is in ``city``, the seat's own panel in ``panels``, the end in ``result``).
In a co-op game (rules.md §14) the track shows the Out-of-Time Marker and the hour cap, the
officers their roles (the lead starred), the evidence its solved traits and the bag the mobsters
out of the game (the team section is in ``team``).

Every value a server reveals is marked ✓ when the SDK's verifier opened its commitment
(``Checked``), · when there was nothing to check it against (a look at a single card).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from echoridge_client.logtext import catalog
from echoridge_terminal import coop
from echoridge_terminal.data import (
    EVENT_LINES,
    HOURS,
    ability_name,
    evidence_name,
    force_name,
    is_night,
    suspect_name,
)
from echoridge_terminal.describe import my_seat, where, who
from echoridge_terminal.i18n import language, t

View = dict[str, Any]

SEAT_STYLES = ("bold cyan", "bold magenta", "bold yellow", "bold green")
MOBSTER_STYLES = {
    "red": "bold white on red3",
    "blue": "bold white on blue3",
    "gray": "bold black on grey70",
}
MOBSTER_LETTERS = {"red": "R", "blue": "B", "gray": "G"}
MARKER_STYLE = "bold white on dark_orange3"


def seat_style(seat: int) -> str:
    return SEAT_STYLES[seat % len(SEAT_STYLES)]


def mobster(colour: str) -> Text:
    return Text(f" {MOBSTER_LETTERS.get(colour, '?')} ", style=MOBSTER_STYLES.get(colour, "bold"))


@dataclass
class Checked:
    """What the SDK's verifier has checked: label -> value of every opened commitment."""

    labels: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, verifier: Any) -> Checked:
        checked = getattr(verifier, "checked", None) or ()
        return cls({label: value for label, value, _salt in checked})

    def token(self, block: Any) -> bool:
        return f"token/{block[0]},{block[1]}" in self.labels

    def trait(self, evidence: str) -> bool:
        return f"trait/{evidence}" in self.labels

    def suspect(self, suspect: str) -> bool:
        return any(
            value == suspect and label.startswith(("deck/", "look/"))
            for label, value in self.labels.items()
        )

    def mark(self, ok: bool) -> Text:
        return Text(" ✓", style="bold green") if ok else Text(" ·", style="dim")


# --- the time track -----------------------------------------------------------------------------


def _space_style(s: int, cap: int | None) -> str:
    if cap is not None and s > cap:  # past the hour cap (co-op): out of time
        return "dim strike"
    style = "bold blue" if is_night(s) else "bold yellow"
    if s >= 43:  # where Rest Your Case is allowed
        style += " underline"
    return style


def track(view: View) -> RenderableType:
    stacks = (view.get("track") or {}).get("stacks") or []
    crossed = set((view.get("track") or {}).get("crossed") or ())
    players = view.get("players") or []
    on: dict[int, list[int]] = {s["space"]: list(reversed(s["seats"])) for s in stacks}
    me = my_seat(view)
    m, cap = coop.marker(view), coop.cap(view)
    out = Text(t("track.title"), style="bold")
    out.append(t("track.day"), style="bold yellow")
    out.append(" 0-12, 25-36  ")
    out.append(t("track.night"), style="bold blue")
    out.append(" 13-24, 37-48  ")
    out.append("|", style="bold red")
    out.append(t("track.legend"))
    if m is not None:  # co-op
        out.append("\n")
        out.append(t("track.ot"), style=MARKER_STYLE)
        last = (cap or 0) - 1  # on the cap itself a tracker has ended (rulings.md 40)
        rest = "yes" if last >= 43 else "no"
        out.append(t("track.marker", space=m, cap=str(cap), rest=rest, last=last))
    out.append("\n")
    last_space = max(HOURS, m or 0)
    for first, last in ((0, 24), (25, last_space)):
        height = max((len(on.get(s, ())) for s in range(first, last + 1)), default=0)
        line = Text()
        for s in range(first, last + 1):
            line.append(f"{s:>2}", style=_space_style(s, cap))
            if s in EVENT_LINES:
                line.append("|", style="dim red" if s in crossed else "bold red")
            else:
                line.append(" ")
        out.append_text(line)
        out.append("\n")
        if m is not None and first <= m <= last:  # the marker, under its space
            out.append("   " * (m - first))
            out.append(t("track.ot"), style=MARKER_STYLE)
            out.append("\n")
        for k in range(height):
            line = Text()
            for s in range(first, last + 1):
                seats = on.get(s, [])
                if k < len(seats):
                    seat = seats[k]
                    ended = seat < len(players) and players[seat].get("ended")
                    style = seat_style(seat) + (" dim" if ended else "")
                    style += " reverse" if seat == me else ""
                    line.append(f"P{seat + 1}", style=style)
                else:
                    line.append("  ")
                line.append(" ")
            out.append_text(line)
            out.append("\n")
    if players:
        out.append(t("track.officers"))
        for p in players:
            seat = int(p["seat"])
            out.append(f"P{seat + 1}", style=seat_style(seat))
            out.append(f" {who(seat, me, view)}")
            tag = coop.role_tag(view, seat)
            out.append(f", {tag}   " if tag else "   ")
        out.append("\n")
    turn = view.get("turn")
    if turn:
        out.append_text(turn_line(view, turn, me, m is not None))
    return out


def turn_line(view: View, turn: dict[str, Any], me: int | None, together: bool) -> Text:
    """``Turn 5, Ada: a day turn from space 12, now after the drive; 2 h driven, 0 h of
    actions so far`` (the point of the turn in the catalogue's words)."""
    phases = catalog(language()).values.get("phase") or {}
    point = phases.get(str(turn.get("phase")), str(turn.get("phase")))
    time = "coop" if together else str(turn.get("time"))
    out = Text(t("turn.number", n=turn["number"]), style="bold")
    out.append(who(turn["seat"], me, view), style=seat_style(int(turn["seat"])))
    out.append(t("turn.line", time=time, start=turn["start"], point=point,
                 drive=turn["drive_hours"], actions=turn["action_hours"]))  # fmt: skip
    return out


# --- events, evidence, decks --------------------------------------------------------------------


def events(view: View) -> RenderableType:
    """The three event slots: each event by its name, where its tokens are, what it asks to
    resolve, what it gives, what it changes while it stays, and a Timed event's deadline (the
    words of the catalogue's ``events``)."""
    ev = view.get("events") or {}
    me = my_seat(view)
    out = Text(t("events.title"), style="bold")
    for i, slot in enumerate(ev.get("slots") or [], start=1):
        out.append(f"#{i} ", style="bold white on dark_red")
        if slot is None:
            out.append(t("events.empty"), style="dim")
            continue
        words = catalog(language()).event(str(slot["card"]))
        out.append(f" {words.get('name', slot['card'])}", style="bold")
        tokens = ", ".join(where(view, b) for b in slot.get("tokens") or ())
        out.append(t("events.tokens", blocks=tokens, none="no" if tokens else "yes"))
        if slot.get("removed_by"):
            removers = ", ".join(who(s, me, view) for s in slot["removed_by"])
            out.append(t("events.removed_by", names=removers))
        if slot.get("card_mobsters"):
            out.append(t("events.on_card"))
            for colour in slot["card_mobsters"]:
                out.append_text(mobster(colour))
        out.append("\n")
        if slot.get("deadline") is not None:
            out.append(t("events.deadline", space=slot["deadline"]), style="bold red")
            timed = words.get("timed", "")
            out.append(t("events.timed", text=timed.split(": ", 1)[-1]), style="red")
        for key in ("asks", "reward", "while"):
            if words.get(key):
                out.append(t(f"events.{key}"), style="bold")
                out.append(f"{words[key]}\n")
    return out


def evidence(view: View, checked: Checked) -> RenderableType:
    me = my_seat(view)
    traits: dict[str, str] = (view.get("you") or {}).get("traits") or {}
    out = Text(t("evidence.title"), style="bold")
    for e in view.get("evidence") or ():
        name = str(e["evidence"])
        clues, needed = int(e["clues"]), int(e["needed"])
        out.append(f"{evidence_name(name):<10}")
        out.append("■" * min(clues, needed), style="bold green")
        out.append("□" * max(needed - clues, 0), style="dim")
        out.append(f" {clues}/{needed}")
        if e.get("holder") is not None:
            out.append(t("evidence.held", name=who(e["holder"], me, view)), style="bold")
        if e.get("trait"):  # co-op: a solved evidence's trait is shown to everyone
            out.append(t("evidence.shown", trait=str(e["trait"])), style="bold green")
            out.append_text(checked.mark(checked.trait(name)))
        elif name in traits:
            out.append(t("evidence.known", trait=traits[name]), style="bold green")
            out.append_text(checked.mark(checked.trait(name)))
        out.append("\n")
    bag = view.get("bag") or {}
    sus, force = view.get("suspects") or {}, view.get("force") or {}
    out.append(t("evidence.bag"))
    for colour in ("red", "blue", "gray"):
        out.append_text(mobster(colour))
        out.append(f"{bag.get(colour, 0)} ")
    removed = coop.coop(view).get("removed") or {}
    if any(removed.get(c) for c in ("red", "blue", "gray")):
        out.append(t("evidence.out_of_game"))
        for colour in ("red", "blue", "gray"):
            if removed.get(colour):
                out.append_text(mobster(colour))
                out.append(f"{removed[colour]} ")
    out.append(t("evidence.decks", suspects=sus.get("deck", 0), out=sus.get("out_of_game", 0),
                 force=force.get("deck", 0), discard=len(force.get("discard") or ()),
                 events=(view.get("events") or {}).get("deck", 0)))  # fmt: skip
    if force.get("pool"):
        pool = ", ".join(force_name(c) for c in force["pool"])
        out.append(t("evidence.pool", cards=pool))
    proofs = view.get("proofs") or []
    if proofs:
        out.append(t("evidence.revealed"))
        for p in proofs:
            out.append(proof_words(view, str(p["label"]), str(p["value"])))
            out.append_text(checked.mark(p["label"] in checked.labels))
            out.append("  ")
        out.append("\n")
    return out


def proof_words(view: View, label: str, value: str) -> str:
    """A public reveal in words: ``Grand Hotel: Stakeout 3``, ``a Suspect drawn: S07 ...``."""
    kind, _, rest = label.partition("/")
    if kind == "token":
        col, _, row = rest.partition(",")
        if col.isdigit() and row.isdigit():
            return f"{where(view, (int(col), int(row)))}: {value}"
    if kind == "trait":
        return f"{evidence_name(rest)}: {value}"
    if kind == "deck":
        return t("proof.suspect", id=value, name=suspect_name(value))
    return f"{label}: {value}"


# --- officers -----------------------------------------------------------------------------------


def _clues(p: dict[str, Any]) -> Text:
    """A mat's clue tokens: I rows, W columns, S search sides, K stakeout values, H holding."""
    out = Text()
    if p.get("informants"):
        out.append("I" + ",".join(str(r) for r in p["informants"]) + " ")
    if p.get("witnesses"):
        out.append("W" + ",".join(str(c) for c in p["witnesses"]) + " ")
    if p.get("search"):
        out.append("S")
        for ok in p["search"]:
            out.append("+" if ok else "-", style="green" if ok else "red")
        out.append(" ")
    if p.get("stakeout"):
        out.append("K" + ",".join(str(v) for v in p["stakeout"]) + " ")
    if p.get("holding_tokens"):
        out.append("H")
        for colour in p["holding_tokens"]:
            out.append(MOBSTER_LETTERS.get(colour, "?"), style=MOBSTER_STYLES.get(colour, ""))
    return out if out.plain else Text("-", style="dim")


def presence_dot(presence: Any, seat: int, bot: bool = False) -> Text:
    """● connected, ○ away (a ``presence`` message, when the server sent one); ◆ a seat the
    server plays (it has no connection to be away from)."""
    if bot:
        return Text("◆", style="bold cyan")
    for s in getattr(presence, "seats", None) or ():
        if s.seat == seat:
            return Text("●", style="bold green") if s.connected else Text("○", style="dim red")
    return Text("")


def officers(view: View, presence: Any = None) -> RenderableType:
    """Every officer's public state; ``presence``: the session's latest ``presence`` message
    (None: not known), shown as a dot before each name.  Under each name its ability; co-op:
    each officer's role (★ the lead), and no arrest spots (arrested mobsters go back to the
    bag).  Long cells wrap rather than being cut short."""
    players = view.get("players") or []
    me = my_seat(view)
    team = coop.is_coop(view)
    shared = "yes" if team and coop.shared_force(view) else "no"
    caption = t("officers.caption", team="yes" if team else "no", shared=shared)
    table = Table(
        title=t("officers.title", presence="yes" if presence is not None else "no"),
        caption=caption,
        caption_justify="left",
        title_style="bold",
        title_justify="left",
        box=None,
        padding=(0, 1),
        collapse_padding=True,
        pad_edge=False,
        header_style="bold underline",
    )
    heads = ["officer", "track", "badge", "car"] + ([] if team else ["arrests"])
    heads += ["held", "clues", "solved", "cards", ""]
    keep = {"officer", "track", "badge", "arrests", "held"}
    for head in heads:  # long cells wrap (never cut short); names and numbers keep a line
        words = t(f"officers.column.{head}") if head else ""
        table.add_column(words, overflow="fold", no_wrap=head in keep, min_width=len(words))
    for p in players:
        seat = int(p["seat"])
        arrests = Text()
        for colour in ("red", "blue", "gray"):
            if colour in (p.get("arrests") or ()):
                arrests.append(MOBSTER_LETTERS[colour], style=MOBSTER_STYLES[colour])
            else:
                arrests.append(".", style="dim")
        state = t("officers.state", ended="yes" if p.get("ended") else "no",
                  accused="yes" if p.get("accused") else "no")  # fmt: skip
        bot = bool(p.get("bot"))
        name = presence_dot(presence, seat, bot) if presence is not None else Text()
        if name.plain:
            name.append(" ")
        name.append(who(seat, me, view), style=seat_style(seat))
        if team:  # the role under the name (★ the lead)
            name.append(f"\n  {coop.role_tag(view, seat) or '-'}", style="bold")
        name.append(f"\n  {ability_name(str(p.get('ability')))}", style="dim")
        cells: list[RenderableType] = [
            name, str(p.get("space")), str(p.get("badge")), where(view, p.get("car"))
        ]  # fmt: skip
        if not team:
            cells.append(arrests)
        solved = ",\n".join(evidence_name(str(e)) for e in p.get("evidence") or ())
        cells += [
            mobster(p["holding"]) if p.get("holding") else Text("-", style="dim"),
            _clues(p),
            Text(solved or "-", style="bold" if solved else "dim"),
            t("officers.cards", suspects=str(p.get("suspects")), force=str(p.get("force"))),
            state,
        ]
        table.add_row(*cells)
    return table
