"""The cooperative game's part of a view (rules.md §14; the keys are null or empty outside
co-op), read for the terminal client: each officer's role, the lead, the Out-of-Time Marker and
the hour cap, the shared Force hand of two officers, every officer's face-up Suspects, the solved
traits shown to all, and ``you.team`` (what each teammate holds and has accused; a spectator has
none).  The renderables are in ``team``."""

from __future__ import annotations

from typing import Any

from echoridge_terminal.data import role_name

View = dict[str, Any]

LEAD_MARK = "★"


def is_coop(view: View) -> bool:
    return view.get("mode") == "cooperative" or isinstance(view.get("coop"), dict)


def coop(view: View) -> dict[str, Any]:
    """The view's ``coop`` section ({} outside co-op)."""
    c = view.get("coop")
    return c if isinstance(c, dict) else {}


def lead(view: View) -> int | None:
    seat = coop(view).get("lead")
    return int(seat) if isinstance(seat, int) else None


def marker(view: View) -> int | None:
    space = coop(view).get("marker")
    return int(space) if isinstance(space, int) else None


def cap(view: View) -> int | None:
    space = coop(view).get("cap")
    if isinstance(space, int):
        return int(space)
    m = marker(view)
    return None if m is None else m - 1


def shared_force(view: View) -> bool:
    return bool(coop(view).get("shared_force"))


def role_of(view: View, seat: int) -> str | None:
    players = view.get("players") or []
    role = players[seat].get("role") if 0 <= seat < len(players) else None
    return str(role) if role else None


def role_tag(view: View, seat: int) -> str:
    """``Detective ★`` (the lead), ``Patrol Cop``; "" for a seat without a role."""
    role = role_of(view, seat)
    if role is None:
        return ""
    return role_name(role) + (f" {LEAD_MARK}" if seat == lead(view) else "")


def face_up(view: View) -> dict[int, list[str]]:
    """Seat -> the Suspects it holds face up (co-op: every card drawn; public)."""
    return {
        int(p.get("seat", i)): [str(s) for s in p.get("face_up") or ()]
        for i, p in enumerate(view.get("players") or ())
    }


def you_team(view: View) -> dict[str, Any]:
    """``you.team`` ({} for a spectator and outside co-op)."""
    t = (view.get("you") or {}).get("team")
    return t if isinstance(t, dict) else {}


def accusations(view: View) -> list[str | None]:
    """The team's choices per seat, as this viewer knows them ([] for a spectator)."""
    return [None if a is None else str(a) for a in you_team(view).get("accusations") or ()]


def solved_traits(view: View) -> dict[str, str]:
    """Evidence -> the murderer's trait, for every solved evidence shown to everyone."""
    return {
        str(e["evidence"]): str(e["trait"])
        for e in view.get("evidence") or ()
        if isinstance(e, dict) and e.get("trait")
    }


def standing(view: View) -> str | None:
    """The accusation that stands as the team's now: the common choice when every choice made
    agrees, else the lead's (None: the lead has not chosen and the choices differ or none is
    made)."""
    chosen = accusations(view)
    made = {a for a in chosen if a is not None}
    if len(made) == 1 and all(a is not None for a in chosen):
        return next(iter(made))
    chief = lead(view)
    return chosen[chief] if chief is not None and chief < len(chosen) else None
