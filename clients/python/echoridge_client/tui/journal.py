"""The game log: short lines derived from what changed between two views of a table.

Views carry no history, so the log is what a watcher would notice: a new turn, a drive, an
action taken, badges, clues and evidence, events arriving and leaving, looks, Suspects, ended
games, the result.  The SDK's views are persistent (each delta makes a new map), so the client
keeps the previous view and compares.
"""

from __future__ import annotations

from typing import Any

from echoridge_client.tui.data import ACTIONS, event_name, force_name, suspect_name
from echoridge_client.tui.describe import at, my_seat, place, who

View = dict[str, Any]


def _players(view: View) -> list[dict[str, Any]]:
    return list(view.get("players") or [])


def _new(before: list[Any], after: list[Any]) -> list[Any]:
    """Items of ``after`` past the common prefix (lists here only grow, or restart)."""
    return after[len(before) :] if after[: len(before)] == before else after


def changes(old: View | None, new: View) -> list[str]:
    old = old or {}
    me = my_seat(new)
    out: list[str] = []
    status, was = new.get("status"), old.get("status")
    if status != was:
        if status == "playing":
            out.append("The game begins: someone has been murdered in Echo Ridge.")
        elif status == "accusing":
            out.append("Every officer has ended: accusations!")
    out += _turn(old.get("turn") or {}, new.get("turn") or {}, new, me)
    out += _officers(_players(old), _players(new), me)
    out += _events(old, new)
    out += _you(old.get("you") or {}, new.get("you") or {}, me)
    for a, b in _new([list(x) for x in old.get("looks") or ()], list(new.get("looks") or ())):
        out.append(f"{who(a, me)} looked at a card of {who(b, me)}.")
    out += _mobsters(old, new)
    if status == "over" and was != "over":
        r = new.get("result") or {}
        murderer = str(r.get("murderer"))
        winners = ", ".join(who(w, me) for w in r.get("winners") or ()) or "nobody"
        out.append(f"Game over. The murderer was {murderer} {suspect_name(murderer)}.")
        out.append(f"Winners: {winners}.")
    return out


def _turn(old: dict[str, Any], new: dict[str, Any], view: View, me: int | None) -> list[str]:
    if not new:
        return []
    out = []
    actor = who(new.get("seat"), me)
    same = old and old.get("number") == new.get("number")
    if not same:
        out.append(f"-- Turn {new['number']}: {actor}, space {new['start']} ({new['time']})")
        old = {}
    path_old, path_new = list(old.get("path") or ()), list(new.get("path") or ())
    if len(path_new) > len(path_old):
        out.append(f"{actor} drove to {place(view, path_new[-1])} ({new['drive_hours']} h)")
    for card in _new(list(old.get("played") or ()), list(new.get("played") or ())):
        out.append(f"{actor} played {force_name(card)}")
    for action in _new(list(old.get("actions") or ()), list(new.get("actions") or ())):
        out.append(f"{actor}: {ACTIONS.get(action, action)}")
    return out


def _officers(old: list[dict[str, Any]], new: list[dict[str, Any]], me: int | None) -> list[str]:
    out = []
    for p in new:
        seat = int(p["seat"])
        q = old[seat] if seat < len(old) else None
        if q is None:
            continue
        name = who(seat, me)
        if p["badge"] > q["badge"]:
            out.append(f"{name}: badge {q['badge']} -> {p['badge']}")
        if len(p["informants"]) > len(q["informants"]):
            out.append(f"{name} caught the Informant of row {p['informants'][-1]}")
        if len(p["witnesses"]) > len(q["witnesses"]):
            out.append(f"{name} caught the Witness of column {p['witnesses'][-1]}")
        if len(p["search"]) > len(q["search"]):
            outcome = "a success" if p["search"][-1] else "a failure"
            out.append(f"{name} searched and found {outcome}")
        if len(p["stakeout"]) > len(q["stakeout"]):
            out.append(f"{name} won a Stakeout token worth {p['stakeout'][-1]}")
        if len(p["holding_tokens"]) > len(q["holding_tokens"]):
            out.append(f"{name} took the {p['holding_tokens'][-1]} Holding token")
        if p.get("holding") and not q.get("holding"):
            out.append(f"{name} holds a {p['holding']} mobster")
        for e in _new(list(q["evidence"]), list(p["evidence"])):
            out.append(f"{name} SOLVED {str(e).upper()}!")
        if p["suspects"] > q["suspects"]:
            out.append(f"{name} gained a Suspect card")
        if p["force"] > q["force"]:
            out.append(f"{name} gained a Force card")
        if p["ended"] and not q["ended"]:
            their = "your" if seat == me else "their"
            out.append(f"{name} ended {their} game on space {p['space']}")
        if p.get("accused") and not q.get("accused"):
            out.append(f"{name} made an accusation")
    return out


def _events(old: View, new: View) -> list[str]:
    before = (old.get("events") or {}).get("slots") or [None, None, None]
    after = (new.get("events") or {}).get("slots") or [None, None, None]
    out = []
    for i, (a, b) in enumerate(zip(before, after, strict=False), start=1):
        card_a = a["card"] if a else None
        card_b = b["card"] if b else None
        if card_a == card_b:
            continue
        if card_a:
            out.append(f"Event #{i} {card_a} {event_name(card_a)} is over")
        if card_b:
            out.append(f"New event #{i}: {card_b} {event_name(card_b)}")
    return out


def _you(old: dict[str, Any], new: dict[str, Any], me: int | None) -> list[str]:
    if not new or not old:
        return []
    out = []
    for s in _new(list(old.get("suspects") or ()), list(new.get("suspects") or ())):
        out.append(f"You drew {s} {suspect_name(s)}: innocent.")
    for s in _new(list(old.get("seen") or ()), list(new.get("seen") or ())):
        out.append(f"You saw {s} {suspect_name(s)}: innocent.")
    for looker, card in _new(list(old.get("shown") or ()), list(new.get("shown") or ())):
        out.append(f"{who(looker, me)} saw your {card}.")
    traits_old: dict[str, str] = old.get("traits") or {}
    for e, v in (new.get("traits") or {}).items():
        if e not in traits_old:
            out.append(f"You learned the murderer's {e}: {v}.")
    known_old = [list(t["block"]) for t in old.get("known_tokens") or ()]
    for t in new.get("known_tokens") or ():
        if list(t["block"]) not in known_old:
            out.append(f"You know the {t['kind']} token on {at(t['block'])}: {t['value']}.")
    return out


def _mobsters(old: View, new: View) -> list[str]:
    before = (old.get("city") or {}).get("blocks") or []
    after = (new.get("city") or {}).get("blocks") or []
    if len(before) != len(after):
        return []
    return [
        f"A {b['mobster']} mobster appears on {place(new, b['block'])}"
        for a, b in zip(before, after, strict=True)
        if b.get("mobster") and not a.get("mobster")
    ]
