"""The seat's own panel (its mat, Force hand, Suspect hand, seen cards, known traits and tokens,
the possible murderers) and the result of the game.  Reveals are marked as in ``render``.
Co-op (rules.md §14): the role and its clue actions, the shared Force hand, what the team knows,
the team's accusation so far (``team``) and the team's result."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from echoridge_client.tui import coop, team
from echoridge_client.tui.data import (
    ABILITIES,
    COOP_FORCE,
    EVIDENCE_ORDER,
    FORCE,
    candidates,
    force_name,
    is_night,
    role_actions,
    role_name,
    suspect_name,
)
from echoridge_client.tui.describe import at, innocents, my_seat, who
from echoridge_client.tui.render import Checked, seat_style

View = dict[str, Any]


# --- the seat's own part ------------------------------------------------------------------------


def _suspect_line(out: Text, suspect: str, checked: Checked) -> None:
    out.append(f"  {suspect} {suspect_name(suspect)}")
    out.append_text(checked.mark(checked.suspect(suspect)))
    out.append("\n")


def you(view: View, checked: Checked) -> RenderableType:
    y = view.get("you")
    if not isinstance(y, dict):
        return Text("Spectating: hands and private knowledge are hidden.", style="dim")
    me = int(y["seat"])
    players = view.get("players") or []
    p = players[me] if me < len(players) else {}
    out = Text(f"You are {who(me, None, view)} (P{me + 1})", style=seat_style(me))
    ability = str(p.get("ability") or "")
    name, effect = ABILITIES.get(ability, (ability or "-", ""))
    out.append(f"  ability {name}", style="bold")
    out.append(f" ({effect})\n" if effect else "\n")
    together = coop.is_coop(view)
    if p:
        space = int(p["space"])
        out.append(f"Space {space}")
        if not together:  # co-op has no day/night limits
            out.append(f" ({'night' if is_night(space) else 'day'})")
        out.append(f"  badge {p.get('badge')}  car {at(p.get('car'))}")
        if ability == "night_shift":
            out.append(f"  Night Shift uses left {p.get('night_shift_left')}")
        out.append("\n")
    role = coop.role_of(view, me)
    if role is not None:
        out.append(f"Role: {role_name(role)}", style="bold")
        if me == coop.lead(view):
            out.append(" ★ the lead (your accusation stands if the team's differ)")
        out.append(f"; clue actions: {role_actions(role)}\n")
    hand = [str(c) for c in y.get("force") or ()]
    shared = coop.shared_force(view)
    out.append("Force hand (the team's, shared): " if shared else "Force hand: ", style="bold")
    effects = {**FORCE, **COOP_FORCE} if together else FORCE
    out.append(
        ", ".join(f"{force_name(c)} ({effects.get(c, ('', ''))[1]})" for c in hand) or "none"
    )
    out.append("\n")
    out.append(f"Suspect hand ({len(y.get('suspects') or ())}), innocent:\n", style="bold")
    for s in y.get("suspects") or ():
        _suspect_line(out, str(s), checked)
    if y.get("seen"):
        out.append("Seen in other hands, innocent:\n", style="bold")
        for s in y["seen"]:
            _suspect_line(out, str(s), checked)
    for looker, card in y.get("shown") or ():
        out.append(f"  {who(looker, me, view)} saw your {card}\n", style="dim")
    traits: dict[str, str] = y.get("traits") or {}
    out.append("Known traits of the murderer" + (" (the team)" if together else "") + ": ",
               style="bold")  # fmt: skip
    if not traits:
        out.append("none")
    for e in EVIDENCE_ORDER:
        if e in traits:
            out.append(f"{e} = {traits[e]}")
            out.append_text(checked.mark(checked.trait(e)))
            out.append("  ")
    out.append("\n")
    known = y.get("known_tokens") or []
    if known:
        out.append("Tokens the team knows: " if together else "Tokens you know: ", style="bold")
        for t in known:
            out.append(f"{at(t['block'])} {t['kind']} {t['value']}")
            out.append_text(checked.mark(checked.token(t["block"])))
            out.append("  ")
        out.append("\n")
    possible = candidates(innocents(view), traits)
    out.append(f"Possible murderers ({len(possible)}): ", style="bold")
    if len(possible) > 6:  # names only once the field is narrow
        out.append(" ".join(possible) + "\n")
    else:
        out.append(", ".join(f"{s} {suspect_name(s)}" for s in possible) + "\n", style="bold")
    if y.get("accusation"):
        out.append(f"Your accusation: {y['accusation']} {suspect_name(str(y['accusation']))}\n")
    if together and view.get("status") == "accusing":  # the joint accusation first
        return team.accusation_text(view) + "\n" + out
    return out


# --- the result ---------------------------------------------------------------------------------


def result(view: View) -> Text:
    r = view.get("result") or {}
    me = my_seat(view)
    murderer = str(r.get("murderer") or "?")
    winners = [int(w) for w in r.get("winners") or ()]
    out = Text("GAME OVER\n\n", style="bold red")
    out.append("The murderer was ")
    out.append(f"{murderer} {suspect_name(murderer)}\n\n", style="bold")
    if coop.is_coop(view):
        return out + team.result_lines(view)
    for seat, accused in enumerate(r.get("accusations") or ()):
        right = accused == murderer
        out.append(f"{who(seat, me, view):>4} accused ", style=seat_style(seat))
        out.append(f"{accused or 'nobody'} {suspect_name(str(accused)) if accused else ''}")
        out.append("  right\n" if right else "  wrong\n", style="green" if right else "red")
    out.append("\n")
    if not winners:
        out.append("Nobody named the murderer: everyone loses.\n", style="bold")
    else:
        names = ", ".join(who(w, me, view) for w in winners)
        verb = "win" if len(winners) > 1 else "wins"
        out.append(f"{names} {verb}!\n", style="bold green")
    return out
