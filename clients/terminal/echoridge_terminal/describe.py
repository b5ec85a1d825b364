"""Readable words for the menu: one line per command of ``you.legal`` (SPEC.md §5.4), with its
cost from ``you.hours`` (the hours the server says it adds to the turn; no cost is shown
without it: a client never works one out), blocks by their names in the city, and one greyed
line per action of ``you.unavailable`` with the reason in the catalogue's words."""

from __future__ import annotations

from typing import Any

from echoridge_client.logtext import block_names, block_text, catalog, seat_name, seat_names
from echoridge_protocol.codes import ALL_CODES
from echoridge_terminal import coop
from echoridge_terminal.data import (
    ACTIONS,
    DECISIONS,
    EVIDENCE_CLUE,
    candidates,
    force_name,
    suspect_name,
    suspect_trait,
)
from echoridge_terminal.i18n import language

View = dict[str, Any]
Command = dict[str, Any]


def names(view: View, me: int | None = None) -> list[str]:
    """Display names per seat (the players' own, ``(bot)`` after a server bot's; ``P1``.. for a
    seat without one; ``(you)`` after ``me``'s): shown as text, never as markup."""
    out = seat_names(list(view.get("players") or ()))
    if me is not None and 0 <= me < len(out):
        out[me] = f"{out[me]} (you)"
    return out


def who(seat: int | None, me: int | None = None, view: View | None = None) -> str:
    """A seat's display name from ``view`` (``(you)`` after the viewer's own), else P1..P4
    (seat 0 is P1)."""
    if seat is None:
        return "nobody"
    name = seat_name(names(view), seat) if view is not None else f"P{seat + 1}"
    return f"{name} (you)" if seat == me else name


def where(view: View, block: Any) -> str:
    """A block by its name in the city (``(col,row)`` while the city has no names)."""
    return block_text(block, block_names(view)) if block else "?"


def block_of(view: View, block: Any) -> dict[str, Any]:
    c, r = int(block[0]), int(block[1])
    blocks = (view.get("city") or {}).get("blocks") or []
    index = (r - 1) * 5 + (c - 1)
    return blocks[index] if 0 <= index < len(blocks) else {}


def clue_words(clue: dict[str, Any] | None) -> str:
    if not clue:
        return ""
    kind, value = clue.get("kind"), clue.get("value")
    if kind == "search":
        return "Search token" + ("" if value is None else (" (success)" if value else " (failure)"))
    return "Stakeout token" + ("" if value is None else f" (value {value})")


def what_is_on(view: View, block: Any) -> str:
    b = block_of(view, block)
    parts = []
    if b.get("mobster"):
        parts.append(f"{b['mobster']} mobster")
    if b.get("clue"):
        parts.append(clue_words(b["clue"]))
    if b.get("events"):
        parts.append("event " + " ".join(f"#{s}" for s in b["events"]))
    if b.get("hq"):
        parts.append("HQ")
    return ", ".join(parts)


def my_seat(view: View) -> int | None:
    you = view.get("you")
    return int(you["seat"]) if isinstance(you, dict) and "seat" in you else None


def my_car(view: View) -> list[int] | None:
    me = my_seat(view)
    players = view.get("players") or []
    if me is None or me >= len(players):
        return None
    return list(players[me]["car"])


def innocents(view: View) -> set[str]:
    """The suspects this viewer knows to be innocent: its hand, the cards it saw and (co-op)
    every officer's face-up Suspects."""
    you = view.get("you") or {}
    out = {str(s) for s in you.get("suspects") or ()} | {str(s) for s in you.get("seen") or ()}
    for cards in coop.face_up(view).values():
        out.update(cards)
    return out


def _ns(command: Command) -> str:
    return " (Night Shift)" if command.get("night_shift") else ""


def _known_token(view: View, block: Any) -> str:
    for t in (view.get("you") or {}).get("known_tokens") or ():
        if list(t["block"]) == list(block):
            whose = "the team knows" if coop.is_coop(view) else "you know"
            return f" - {whose} it is {t['value']}"
    return ""


def accuse_note(view: View, suspect: str) -> str:
    you = view.get("you") or {}
    if suspect in (you.get("suspects") or ()):
        return "innocent: in your hand"
    if suspect in (you.get("seen") or ()):
        return "innocent: you saw the card"
    for seat, cards in coop.face_up(view).items():
        if suspect in cards:
            return f"innocent: face up with {who(seat, my_seat(view), view)}"
    traits: dict[str, str] = you.get("traits") or {}
    for evidence, value in traits.items():
        if suspect_trait(suspect, evidence) != value:
            return f"ruled out: {evidence} is {value}"
    return "possible"


def team_choice(view: View, suspect: str) -> str:
    """Co-op: which teammates chose ``suspect`` (``; chosen by Ada, the lead``), else ""."""
    me, chief = my_seat(view), coop.lead(view)
    by = [
        who(seat, None, view) + (", the lead" if seat == chief else "")
        for seat, choice in enumerate(coop.accusations(view))
        if choice == suspect and seat != me
    ]
    return f"; chosen by {', '.join(by)}" if by else ""


#: The commands whose cost is shown even when it is 0 h (the actions and the Drive).
COSTED = frozenset({
    "drive", "arrest", "coffee_break", "call_for_backup", "catch_informant", "catch_witness",
    "search_scene", "stakeout", "hold_mobster", "book_mobster", "resolve_event",
})  # fmt: skip


def hours_of(view: View) -> list[int] | None:
    """``you.hours`` (one per command of ``you.legal``), or None when the server sends none."""
    you = view.get("you") or {}
    hours, legal = you.get("hours"), you.get("legal") or []
    if isinstance(hours, list) and len(hours) == len(legal):
        return [int(h) for h in hours]
    return None


def cost(kind: str, hours: int | None) -> str:
    if hours is None or (hours == 0 and kind not in COSTED):
        return ""
    return f" ({hours} h)"


def _cards(n: Any) -> str:
    return f"{n} Suspect card" + ("" if n == 1 else "s")


def describe(command: Command, view: View, hours: int | None = None) -> str:
    """One command of ``you.legal`` in words; ``hours``: its entry of ``you.hours``."""
    kind = str(command.get("type"))
    me = my_seat(view)
    players = view.get("players") or []
    price = cost(kind, hours)
    if kind == "drive":
        path = command.get("path") or []
        if not path:
            return "Drive nowhere"
        end = path[-1]
        via = " via " + ", ".join(where(view, b) for b in path[:-1]) if len(path) > 1 else ""
        there = what_is_on(view, end)
        return f"Drive to {where(view, end)}{price}{via}" + (f" - {there}" if there else "")
    if kind == "play_force":
        target = command.get("block")
        on = f" on {where(view, target)}" if target else ""
        return f"Play the Force card {force_name(str(command.get('card')))}{on}{price}"
    car = my_car(view)
    here = block_of(view, car) if car else {}
    spot = where(view, car) if car else "your block"
    if kind == "arrest":
        return f"Arrest the {here.get('mobster') or ''} mobster here{price}".replace("  ", " ")
    if kind == "coffee_break":
        return f"Coffee Break{price}: time passes, nothing happens"
    if kind == "call_for_backup":
        return f"Call for Backup at risk {command.get('risk')}{price}{_ns(command)}"
    if kind == "catch_informant":
        row = f" of row {car[1]}" if car else ""
        return f"Catch the Informant{row}{price}{_ns(command)}"
    if kind == "catch_witness":
        col = f" of column {car[0]}" if car else ""
        return f"Catch the Witness{col}{price}{_ns(command)}"
    if kind == "search_scene":
        return f"Search the Scene at {spot}{price}{_ns(command)}"
    if kind == "stakeout":
        known = _known_token(view, car) if car else ""
        return f"Stakeout at {spot}, risk {command.get('risk')}{price}{_ns(command)}{known}"
    if kind == "hold_mobster":
        held = here.get("mobster") or ""
        return f"Bring in for Holding, step 1: hold the {held} mobster here{price}"
    if kind == "book_mobster":
        held = players[me].get("holding") if me is not None and me < len(players) else None
        return f"Bring in for Holding, step 2: book the {held or ''} mobster at HQ{price}"
    if kind == "resolve_event":
        slot = int(command.get("slot") or 0)
        slots = (view.get("events") or {}).get("slots") or []
        card = slots[slot - 1]["card"] if 0 < slot <= len(slots) and slots[slot - 1] else "?"
        name = catalog(language()).event(str(card)).get("name", card)
        return f"Resolve the event {name} (#{slot}){price}{_ns(command)}"
    if kind == "proceed":
        return "Go on (play no more Force cards now)"
    if kind == "gain_suspect":
        target = command.get("look_at")
        if target is None:
            return "Draw the top Suspect card"
        n = players[target]["suspects"] if target < len(players) else "?"
        return f"Look at a Suspect card of {who(target, me, view)}, who holds {n}"
    if kind == "interrogate":
        target = command.get("target")
        if target is None:
            return "Skip the Interrogate"
        n = players[target]["suspects"] if target < len(players) else "?"
        return f"Interrogate {who(target, me, view)}, who holds {_cards(n)}"
    if kind == "pick_slot":
        decision = (view.get("you") or {}).get("decision") or {}
        target = decision.get("target")
        owner = who(target, me, view) if isinstance(target, int) else "another officer"
        return f"Pick face-down card {command.get('slot')} of the cards of {owner}"
    if kind == "discard_force":
        return f"Discard the Force card {force_name(str(command.get('card')))}"
    if kind == "take_from_pool":
        return f"Take {force_name(str(command.get('card')))} from the pool"
    if kind == "learn_trait":
        evidence = str(command.get("evidence"))
        return f"Learn the murderer's {evidence.capitalize()} trait"
    if kind == "peek_token":
        block = command.get("block")
        b = block_of(view, block)
        return f"Peek at the {clue_words(b.get('clue')) or 'token'} on {where(view, block)}"
    if kind == "rest_case":
        return "Rest your case: end your game now" if command.get("rest") else "Keep playing"
    if kind == "accuse":
        suspect = str(command.get("suspect"))
        note = accuse_note(view, suspect) + team_choice(view, suspect)
        return f"Accuse {suspect} {suspect_name(suspect)} - {note}"
    return ACTIONS.get(kind, kind.replace("_", " ").capitalize())


#: An action command type of ``you.unavailable`` -> its name (the catalogue's ``action`` words).
UNAVAILABLE_ACTIONS = {
    "hold_mobster": "bring_in_1", "book_mobster": "bring_in_2",
}  # fmt: skip


def unavailable(view: View) -> list[str]:
    """``you.unavailable`` in words, one line per action the seat may not take now: ``Arrest:
    no mobster on your block``, ``Stakeout is a night action`` (a reason that names its
    action says it once); empty without the field."""
    you = view.get("you") or {}
    items = you.get("unavailable")
    if not isinstance(items, list):
        return []
    words = catalog(language()).values.get("action") or {}
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind, code = str(item.get("type")), str(item.get("code"))
        name = words.get(UNAVAILABLE_ACTIONS.get(kind, kind)) or ACTIONS.get(kind, kind)
        reason = catalog(language()).reason(kind, code, ALL_CODES.get(code, code).rstrip("."))
        line = reason if reason.startswith(name.split(",")[0]) else f"{name}: {reason}"
        if line not in out:  # both steps of Bring in for Holding may give one reason
            out.append(line)
    return out


def menu_order(view: View, legal: list[Command]) -> list[int]:
    """Indexes of ``legal`` in menu order: the server's order, except that possible murderers
    come first among accusations."""
    innocent = innocents(view)
    traits = (view.get("you") or {}).get("traits") or {}
    possible = set(candidates(innocent, traits))

    def key(i: int) -> tuple[int, int]:
        cmd = legal[i]
        if cmd.get("type") == "accuse":
            return (0 if cmd.get("suspect") in possible else 1, i)
        return (0, i)

    return sorted(range(len(legal)), key=key)


def prompt(view: View) -> str:
    """What the menu is for right now."""
    you = view.get("you")
    if not isinstance(you, dict):
        return "Spectating (read-only: hands and private knowledge are hidden)"
    me = my_seat(view)
    status = view.get("status")
    if status == "over":
        return "The game is over"
    decision = you.get("decision")
    if isinstance(decision, dict):
        kind = str(decision.get("kind"))
        if kind == "accusation" and coop.is_coop(view):
            return "Decide: the team's joint accusation (if the choices differ, the lead's stands)"
        return "Decide: " + DECISIONS.get(kind, kind)
    turn = view.get("turn") or {}
    if you.get("legal") and turn.get("seat") == me:
        point = (catalog(language()).values.get("phase") or {}).get(str(turn.get("phase")), "")
        time = "" if coop.is_coop(view) else f" ({turn.get('time')})"
        return f"Your turn{time}, {point}: choose" if point else f"Your turn{time}: choose"
    waiting = [d for d in view.get("decisions") or () if d.get("seat") != me]
    if waiting:
        d = waiting[0]
        kind = str(d.get("kind"))
        return f"Waiting for {who(d['seat'], me, view)} to decide: {DECISIONS.get(kind, kind)}"
    if status == "accusing":
        if coop.is_coop(view):
            return "Waiting for the rest of the team's accusation"
        return "Waiting for the other accusations"
    if turn:
        return f"Waiting for {who(turn.get('seat'), me, view)} to play"
    return "Waiting"


def evidence_label(evidence: str) -> str:
    return f"{evidence.capitalize()} ({EVIDENCE_CLUE.get(evidence, '')})"
