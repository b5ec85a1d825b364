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
    EVIDENCE_ORDER,
    SUSPECTS,
    ability_effect,
    ability_name,
    candidates,
    evidence_name,
    force_effect,
    force_name,
    is_night,
    role_actions,
    role_name,
    suspect_gender,
    suspect_name,
)
from echoridge_terminal.describe import block_of, innocents, where, who
from echoridge_terminal.i18n import t
from echoridge_terminal.render import Checked, seat_style

View = dict[str, Any]


# --- the seat's own part ------------------------------------------------------------------------


def _suspect_line(out: Text, suspect: str, checked: Checked) -> None:
    out.append(t("you.suspect", id=suspect, name=suspect_name(suspect)))
    out.append_text(checked.mark(checked.suspect(suspect)))
    out.append("\n")


def you(view: View, checked: Checked, live: bool = True) -> RenderableType:
    """The seat's panel; ``live``: at a table (else a replay: no keys to press)."""
    y = view.get("you")
    if not isinstance(y, dict):
        return Text(t("you.spectating"), style="dim")
    me = int(y["seat"])
    players = view.get("players") or []
    p = players[me] if me < len(players) else {}
    out = Text(t("you.are", name=who(me, None, view)), style=seat_style(me))
    out.append(t("you.on_board", n=me + 1), style="dim")
    ability = str(p.get("ability") or "")
    effect = ability_effect(ability)
    out.append(t("you.ability", name=ability_name(ability or None)), style="bold")
    out.append(t("you.ability.effect", effect=effect) if effect else "\n")
    together = coop.is_coop(view)
    if p:
        space = int(p["space"])
        time = "coop" if together else "night" if is_night(space) else "day"  # co-op: no limits
        out.append(t("you.space", space=space, time=time, badge=str(p.get("badge")),
                     car=where(view, p.get("car"))))  # fmt: skip
        if ability == "night_shift":
            out.append(t("you.night_shift", n=str(p.get("night_shift_left"))))
        out.append("\n")
    role = coop.role_of(view, me)
    if role is not None:
        lead = "yes" if me == coop.lead(view) else "no"
        out.append(t("you.role", role=role_name(role)), style="bold")
        out.append(t("you.role.actions", lead=lead, actions=role_actions(role)))
    hand = [str(c) for c in y.get("force") or ()]
    shared = coop.shared_force(view)
    out.append(t("you.force.shared") if shared else t("you.force"), style="bold")
    cards = [t("you.force.card", name=force_name(c), effect=force_effect(c, together))
             for c in hand]  # fmt: skip
    out.append("; ".join(cards) or t("you.none"))
    out.append("\n")
    if isinstance(y.get("auto_pass"), bool):  # contract item 3: the server passes for you
        on = bool(y["auto_pass"])
        out.append(t("you.auto_pass"), style="bold")
        out.append(t("word.on") if on else t("word.off"),
                   style="bold green" if on else "bold yellow")  # fmt: skip
        turns = t("you.auto_pass.key", on="yes" if on else "no")
        out.append(turns if live else "\n", style="dim")
    out.append(t("you.suspects", n=len(y.get("suspects") or ())), style="bold")
    for s in y.get("suspects") or ():
        _suspect_line(out, str(s), checked)
    if y.get("seen"):
        out.append(t("you.seen"), style="bold")
        for s in y["seen"]:
            _suspect_line(out, str(s), checked)
    for looker, card in y.get("shown") or ():
        out.append(t("you.shown", name=who(looker, me, view), card=str(card)), style="dim")
    traits: dict[str, str] = y.get("traits") or {}
    out.append(t("you.traits", team="yes" if together else "no"), style="bold")
    if not traits:
        out.append(t("you.traits.none"))
    for e in EVIDENCE_ORDER:
        if e in traits:
            out.append(t("you.trait", evidence=evidence_name(e), trait=traits[e]))
            out.append_text(checked.mark(checked.trait(e)))
            out.append("  ")
    out.append("\n")
    known = face_down_known(view)
    if known:
        out.append(t("you.tokens", team="yes" if together else "no"), style="bold")
        for token in known:
            out.append(t("you.token", block=where(view, token["block"]),
                         token=token_words(token)))  # fmt: skip
            out.append_text(checked.mark(checked.token(token["block"])))
            out.append("  ")
        out.append("\n")
    possible = candidates(innocents(view), traits)
    out.append(t("you.possible", n=len(possible)), style="bold")
    if len(possible) == len(SUSPECTS):
        out.append(t("you.possible.all"))
    else:  # by name (the cards' ids mean nothing to a player); bold once the field is narrow
        names = ", ".join(suspect_name(s) for s in possible)
        out.append(names + "\n", style="bold" if len(possible) <= 6 else "")
    if y.get("accusation"):
        accused = str(y["accusation"])
        out.append(t("you.accusation", id=accused, name=suspect_name(accused),
                     gender=suspect_gender(accused)))  # fmt: skip
    if together and view.get("status") == "accusing":  # the joint accusation first
        return team.accusation_text(view) + "\n" + out
    return out


def face_down_known(view: View) -> list[dict[str, Any]]:
    """``you.known_tokens`` still face down in the city (a token since won or removed is
    no secret any more, and no longer on the board)."""
    out = []
    for token in (view.get("you") or {}).get("known_tokens") or ():
        clue = block_of(view, token.get("block")).get("clue") or {}
        if clue.get("kind") == token.get("kind"):
            out.append(token)
    return out


def token_words(token: dict[str, Any]) -> str:
    if token.get("kind") == "search":
        return t("token.search", success="yes" if token.get("value") else "no")
    return t("token.stakeout", value=str(token.get("value")))
