"""The cooperative game's renderables (rules.md §14; ``coop`` reads the view; the marker on the
time track, the roles on the officers' table and the mobsters out of the game are in
``render``): the team section (each officer's role, the lead starred, its clue actions and
face-up Suspects; for a seat also each teammate's Force hand and accusation; the solved traits),
the joint accusation as it stands, and the co-op result (the team's suspect, won or lost)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from echoridge_terminal.coop import (
    accusations,
    face_up,
    is_coop,
    lead,
    role_of,
    role_tag,
    shared_force,
    solved_traits,
    standing,
    you_team,
)
from echoridge_terminal.data import (
    EVIDENCE_ORDER,
    evidence_name,
    force_name,
    role_actions,
    role_name,
    suspect_name,
)
from echoridge_terminal.describe import my_seat, who
from echoridge_terminal.i18n import t
from echoridge_terminal.render import seat_style

View = dict[str, Any]

# --- the team section ----------------------------------------------------------------------------


def _choice(suspect: str | None) -> Text:
    if suspect is None:
        return Text(t("team.not_yet"), style="dim")
    return Text(f"{suspect} {suspect_name(suspect)}", style="bold")


def team_panel(view: View) -> RenderableType:
    """Every officer's role (the lead starred), clue actions and face-up Suspects; for a seat,
    also each teammate's Force hand and accusation (``you.team``); the solved traits."""
    if not is_coop(view):
        return Text("")
    players = view.get("players") or []
    me = my_seat(view)
    mine = you_team(view)
    hands = mine.get("force") or []
    accused = accusations(view)
    ups = face_up(view)
    table = Table(
        title=t("team.title"),
        title_style="bold",
        title_justify="left",
        box=None,
        padding=(0, 1),
        pad_edge=False,
        header_style="bold underline",
    )
    heads = ["officer", "clue_actions", "face_up"]
    if mine:
        heads += ["force", "accuses"]
    for head in heads:  # long cells wrap (never cut short); the officer keeps a line
        table.add_column(t(f"team.column.{head}"), overflow="fold", no_wrap=head == "officer")
    for i, p in enumerate(players):
        seat = int(p.get("seat", i))
        role = role_of(view, seat)
        cards = ups.get(seat) or []
        name = Text(who(seat, me, view), style=seat_style(seat))
        name.append(f"\n{role_tag(view, seat) or '-'}", style="bold")
        row: list[Text | str] = [
            name,
            role_actions(role),
            Text(" ".join(cards) or "-", style="" if cards else "dim"),
        ]
        if mine:
            hand = hands[seat] if seat < len(hands) else []
            row.append(", ".join(force_name(str(c)) for c in hand) or t("you.none"))
            row.append(_choice(accused[seat] if seat < len(accused) else None))
        table.add_row(*row)
    notes = Text(lead_rule(view) + "\n")
    if shared_force(view):
        notes.append(t("team.shared_force") + "\n")
    traits = solved_traits(view)
    notes.append(t("team.solved"), style="bold")
    shown = [e for e in EVIDENCE_ORDER if e in traits]
    for n, e in enumerate(shown):
        if n:
            notes.append("  ")
        notes.append(t("you.trait", evidence=evidence_name(e), trait=traits[e]))
    if not shown:
        notes.append(t("team.none_yet"), style="dim")
    return Group(table, notes)


def board(view: View) -> RenderableType:
    """The team section of the board; while the team accuses, its accusation under it."""
    if view.get("status") == "accusing":
        return Group(team_panel(view), accusation_text(view))
    return team_panel(view)


# --- the joint accusation ------------------------------------------------------------------------


def lead_rule(view: View) -> str:
    """The lead's rule in one sentence, naming the lead (and, when a bot is the Detective,
    why the lead is someone else: a bot never overrules a person)."""
    me, chief = my_seat(view), lead(view)
    if chief is None:
        return t("team.rule")
    players = view.get("players") or []
    role = role_of(view, chief)
    name = who(chief, me, view)
    if role == "detective" or role is None:
        return t("team.rule.detective", name=name)
    bots = [p for p in players if p.get("bot") and p.get("role") == "detective"]
    detective = who(int(bots[0]["seat"]), me, view) if bots else t("team.a_bot")
    return t("team.rule.other", name=name, role=role_name(role), detective=detective)


def accusation_text(view: View) -> Text:
    """The team's choices so far (a spectator: who has chosen), whether they agree, and which
    stands: the common choice, or the lead's when they differ."""
    me = my_seat(view)
    chosen = accusations(view)
    players = view.get("players") or []
    out = Text(t("team.accusation"), style="bold")
    out.append(t("team.accusation.how", rule=lead_rule(view)) + "\n")
    for i, p in enumerate(players):
        seat = int(p.get("seat", i))
        tag = role_tag(view, seat)
        out.append(f"  {who(seat, me, view)}", style=seat_style(seat))
        out.append(f", {tag}: " if tag else ": ")
        if chosen:
            out.append_text(_choice(chosen[seat] if seat < len(chosen) else None))
        else:  # a spectator: only whether they have chosen
            done = bool(p.get("accused"))
            out.append(t("team.has_chosen") if done else t("team.not_yet"),
                       style="bold" if done else "dim")  # fmt: skip
        out.append("\n")
    made = Counter(a for a in chosen if a is not None)
    if len(made) > 1:
        now = standing(view)
        chief = lead(view)
        differ = t(
            "team.differ",
            known="yes" if chief is not None else "no",
            name=who(chief, me, view) if chief is not None else "",
            chosen="yes" if now else "no",
            suspect=f"{now} {suspect_name(now)}" if now else "",
        )
        out.append(differ + "\n", style="bold yellow")
    elif len(made) == 1 and None not in chosen:
        agreed = next(iter(made))
        out.append(t("team.agreed", suspect=f"{agreed} {suspect_name(agreed)}") + "\n",
                   style="bold green")  # fmt: skip
    return out


def result_lines(view: View) -> Text:
    """The co-op end: each officer's choice, the team's suspect (the lead's when the choices
    differed) and whether the team won (``winners``: every seat, or nobody)."""
    r = view.get("result") or {}
    me = my_seat(view)
    choices = list(r.get("accusations") or ())
    accused = r.get("team_accusation")
    out = Text()
    for seat, choice in enumerate(choices):
        tag = role_tag(view, seat)
        out.append(f"  {who(seat, me, view)}", style=seat_style(seat))
        out.append(f", {tag}," if tag else "")
        suspect = f"{choice} {suspect_name(str(choice))}" if choice else ""
        out.append(t("team.chose", chosen="yes" if choice else "no", suspect=suspect) + "\n")
    chief = lead(view)
    line = t(
        "team.accused",
        accused="yes" if accused else "no",
        suspect=f"{accused} {suspect_name(str(accused))}" if accused else "",
        differed="yes" if len({c for c in choices if c is not None}) > 1 else "no",
        known="yes" if chief is not None else "no",
        lead=who(chief, me, view) if chief is not None else "",
    )
    out.append("\n")
    out.append(line, style="bold")
    out.append("\n\n")
    if r.get("winners"):
        out.append(t("team.won") + "\n", style="bold green")
    else:
        out.append(t("team.lost") + "\n", style="bold red")
    return out
