"""The seat's own panel (its mat, Force hand and the auto-pass setting, Suspect hand, seen cards,
known traits and face-down tokens, the possible murderers).  Reveals are marked as in ``render``.
Co-op (rules.md §14): the role and its clue actions, the shared Force hand, what the team knows,
the team's accusation so far (``team``)."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from echoridge_terminal import coop, team
from echoridge_terminal.data import (
    ABILITIES,
    COOP_FORCE,
    EVIDENCE_ORDER,
    FORCE,
    SUSPECTS,
    candidates,
    force_name,
    is_night,
    role_actions,
    role_name,
    suspect_name,
)
from echoridge_terminal.describe import block_of, innocents, where, who
from echoridge_terminal.render import Checked, seat_style

View = dict[str, Any]


# --- the seat's own part ------------------------------------------------------------------------


def _suspect_line(out: Text, suspect: str, checked: Checked) -> None:
    out.append(f"  {suspect} {suspect_name(suspect)}")
    out.append_text(checked.mark(checked.suspect(suspect)))
    out.append("\n")


def you(view: View, checked: Checked, live: bool = True) -> RenderableType:
    """The seat's panel; ``live``: at a table (else a replay: no keys to press)."""
    y = view.get("you")
    if not isinstance(y, dict):
        return Text("Spectating: hands and private knowledge are hidden.", style="dim")
    me = int(y["seat"])
    players = view.get("players") or []
    p = players[me] if me < len(players) else {}
    out = Text(f"You are {who(me, None, view)}", style=seat_style(me))
    out.append(f" (P{me + 1} on the board)", style="dim")
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
        out.append(f"  badge {p.get('badge')}  car at {where(view, p.get('car'))}")
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
        "; ".join(f"{force_name(c)} ({effects.get(c, ('', ''))[1]})" for c in hand) or "none"
    )
    out.append("\n")
    if isinstance(y.get("auto_pass"), bool):  # contract item 3: the server passes for you
        on = bool(y["auto_pass"])
        out.append("Pass when I have nothing to play: ", style="bold")
        out.append("on" if on else "off", style="bold green" if on else "bold yellow")
        out.append(f"  (a turns it {'off' if on else 'on'})\n" if live else "\n", style="dim")
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
    known = face_down_known(view)
    if known:
        whose = "the team knows" if together else "you know"
        out.append(f"Face-down tokens {whose}: ", style="bold")
        for t in known:
            out.append(f"{where(view, t['block'])}: {token_words(t)}")
            out.append_text(checked.mark(checked.token(t["block"])))
            out.append("  ")
        out.append("\n")
    possible = candidates(innocents(view), traits)
    out.append(f"Possible murderers ({len(possible)}): ", style="bold")
    if len(possible) == len(SUSPECTS):
        out.append("all of them, nobody ruled out yet\n")
    else:  # by name (the cards' ids mean nothing to a player); bold once the field is narrow
        names = ", ".join(suspect_name(s) for s in possible)
        out.append(names + "\n", style="bold" if len(possible) <= 6 else "")
    if y.get("accusation"):
        out.append(f"Your accusation: {y['accusation']} {suspect_name(str(y['accusation']))}\n")
    if together and view.get("status") == "accusing":  # the joint accusation first
        return team.accusation_text(view) + "\n" + out
    return out


def face_down_known(view: View) -> list[dict[str, Any]]:
    """``you.known_tokens`` still face down in the city (a token since won or removed is
    no secret any more, and no longer on the board)."""
    out = []
    for t in (view.get("you") or {}).get("known_tokens") or ():
        clue = block_of(view, t.get("block")).get("clue") or {}
        if clue.get("kind") == t.get("kind"):
            out.append(t)
    return out


def token_words(token: dict[str, Any]) -> str:
    if token.get("kind") == "search":
        return "Search, " + ("success" if token.get("value") else "failure")
    return f"Stakeout {token.get('value')}"
