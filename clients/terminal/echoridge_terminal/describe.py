"""Readable words for the menu: one line per command of ``you.legal`` (SPEC.md §5.4), with its
cost from ``you.hours`` (the hours the server says it adds to the turn; no cost is shown
without it: a client never works one out), blocks by their names in the city, and one greyed
line per action of ``you.unavailable`` with the reason in the catalogue's words."""

from __future__ import annotations

from typing import Any

from echoridge_client.logtext import (
    HQ_NAME,
    block_names,
    block_text,
    catalog,
    seat_name,
    seat_names,
)
from echoridge_terminal import coop
from echoridge_terminal.data import (
    action_name,
    candidates,
    decision_words,
    evidence_clue,
    evidence_name,
    force_name,
    suspect_gender,
    suspect_name,
    suspect_trait,
)
from echoridge_terminal.i18n import error_words, language, t

View = dict[str, Any]
Command = dict[str, Any]


def names(view: View, me: int | None = None) -> list[str]:
    """Display names per seat (the players' own, ``(bot)`` after a server bot's; ``P1``.. for a
    seat without one; ``(you)`` after ``me``'s): shown as text, never as markup."""
    out = seat_names(list(view.get("players") or ()))
    if me is not None and 0 <= me < len(out):
        out[me] = t("word.you", name=out[me])
    return out


def who(seat: int | None, me: int | None = None, view: View | None = None) -> str:
    """A seat's display name from ``view`` (``(you)`` after the viewer's own), else P1..P4
    (seat 0 is P1)."""
    if seat is None:
        return t("word.nobody")
    name = seat_name(names(view), seat) if view is not None else f"P{seat + 1}"
    return t("word.you", name=name) if seat == me else name


def where(view: View, block: Any) -> str:
    """A block by its name in the city (``(col,row)`` while the city has no names); HQ in the
    reader's language."""
    if not block:
        return "?"
    text = block_text(block, block_names(view))
    return t("block.hq") if text == HQ_NAME else text


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
        known = "unknown" if value is None else "yes" if value else "no"
        return t("clue.search", success=known)
    return t("clue.stakeout", known="no" if value is None else "yes", value=str(value))


def what_is_on(view: View, block: Any) -> str:
    b = block_of(view, block)
    parts = []
    if b.get("mobster"):
        parts.append(t("block.mobster", color=str(b["mobster"])))
    if b.get("clue"):
        parts.append(clue_words(b["clue"]))
    if b.get("events"):
        parts.append(t("block.event", slots=" ".join(f"#{s}" for s in b["events"])))
    if b.get("hq"):
        parts.append(t("block.hq"))
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
    """``yes`` for a command played with Night Shift (the messages' ``ns`` argument)."""
    return "yes" if command.get("night_shift") else "no"


def _known_token(view: View, block: Any) -> str:
    """A face-down token's value the viewer (co-op: the team) knows, else ""."""
    for token in (view.get("you") or {}).get("known_tokens") or ():
        if list(token["block"]) == list(block):
            team = "yes" if coop.is_coop(view) else "no"
            return t("menu.known_token", team=team, value=str(token["value"]))
    return ""


def accuse_note(view: View, suspect: str) -> str:
    you = view.get("you") or {}
    gender = suspect_gender(suspect)
    if suspect in (you.get("suspects") or ()):
        return t("accuse.in_hand", gender=gender)
    if suspect in (you.get("seen") or ()):
        return t("accuse.seen", gender=gender)
    for seat, cards in coop.face_up(view).items():
        if suspect in cards:
            return t("accuse.face_up", gender=gender, name=who(seat, my_seat(view), view))
    traits: dict[str, str] = you.get("traits") or {}
    for evidence, value in traits.items():
        if suspect_trait(suspect, evidence) != value:
            return t("accuse.ruled_out", gender=gender, evidence=evidence_name(evidence),
                     value=value)  # fmt: skip
    return t("accuse.possible", gender=gender)


def team_choice(view: View, suspect: str) -> str:
    """Co-op: which teammates chose ``suspect`` (``Ada, the lead``), else ""."""
    me, chief = my_seat(view), coop.lead(view)
    by = [
        t("accuse.chooser", name=who(seat, None, view), lead="yes" if seat == chief else "no")
        for seat, choice in enumerate(coop.accusations(view))
        if choice == suspect and seat != me
    ]
    return ", ".join(by)


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
    """The messages' ``price`` argument: `` (2 h)``, or "" when no cost is shown."""
    if hours is None or (hours == 0 and kind not in COSTED):
        return ""
    return t("menu.hours", n=hours)


def describe(command: Command, view: View, hours: int | None = None) -> str:
    """One command of ``you.legal`` in words; ``hours``: its entry of ``you.hours``."""
    kind = str(command.get("type"))
    me = my_seat(view)
    players = view.get("players") or []
    price = cost(kind, hours)
    ns = _ns(command)
    if kind == "drive":
        path = command.get("path") or []
        if not path:
            return t("menu.drive.nowhere")
        end = path[-1]
        via = ", ".join(where(view, b) for b in path[:-1])
        there = what_is_on(view, end)
        return t("menu.drive", to=where(view, end), price=price, via=via, there=there,
                 stops="yes" if via else "no", busy="yes" if there else "no")  # fmt: skip
    if kind == "play_force":
        target = command.get("block")
        on = where(view, target) if target else ""
        return t("menu.play_force", card=force_name(str(command.get("card"))), on=on,
                 target="yes" if target else "no", price=price)  # fmt: skip
    car = my_car(view)
    here = block_of(view, car) if car else {}
    spot = where(view, car) if car else t("menu.your_block")
    if kind == "arrest":
        return t("menu.arrest", color=str(here.get("mobster") or ""), price=price)
    if kind == "coffee_break":
        return t("menu.coffee_break", price=price)
    if kind == "call_for_backup":
        return t("menu.call_for_backup", risk=str(command.get("risk")), price=price, ns=ns)
    if kind == "catch_informant":
        return t("menu.catch_informant", row=str(car[1]) if car else "none", price=price, ns=ns)
    if kind == "catch_witness":
        return t("menu.catch_witness", column=str(car[0]) if car else "none", price=price, ns=ns)
    if kind == "search_scene":
        return t("menu.search_scene", at=spot, price=price, ns=ns)
    if kind == "stakeout":
        known = _known_token(view, car) if car else ""
        return t("menu.stakeout", at=spot, risk=str(command.get("risk")), price=price, ns=ns,
                 known=known)  # fmt: skip
    if kind == "hold_mobster":
        return t("menu.hold_mobster", color=str(here.get("mobster") or ""), price=price)
    if kind == "book_mobster":
        held = players[me].get("holding") if me is not None and me < len(players) else None
        return t("menu.book_mobster", color=str(held or ""), price=price)
    if kind == "resolve_event":
        slot = int(command.get("slot") or 0)
        slots = (view.get("events") or {}).get("slots") or []
        card = slots[slot - 1]["card"] if 0 < slot <= len(slots) and slots[slot - 1] else "?"
        name = catalog(language()).event(str(card)).get("name", card)
        return t("menu.resolve_event", name=str(name), slot=slot, price=price, ns=ns)
    if kind == "proceed":
        return t("menu.proceed")
    if kind == "gain_suspect":
        target = command.get("look_at")
        if target is None:
            return t("menu.draw_suspect")
        n = players[target]["suspects"] if target < len(players) else "?"
        return t("menu.look_at", name=who(target, me, view), n=str(n))
    if kind == "interrogate":
        target = command.get("target")
        if target is None:
            return t("menu.skip_interrogate")
        n = players[target]["suspects"] if target < len(players) else 0
        return t("menu.interrogate", name=who(target, me, view), n=int(n))
    if kind == "pick_slot":
        decision = (view.get("you") or {}).get("decision") or {}
        target = decision.get("target")
        known = isinstance(target, int)
        owner = who(target, me, view) if known else ""
        return t("menu.pick_slot", slot=str(command.get("slot")), owner=owner,
                 known="yes" if known else "no")  # fmt: skip
    if kind == "discard_force":
        return t("menu.discard_force", card=force_name(str(command.get("card"))))
    if kind == "take_from_pool":
        return t("menu.take_from_pool", card=force_name(str(command.get("card"))))
    if kind == "learn_trait":
        evidence = str(command.get("evidence"))
        return t("menu.learn_trait", evidence=evidence)
    if kind == "peek_token":
        block = command.get("block")
        b = block_of(view, block)
        token = clue_words(b.get("clue")) or t("menu.token")
        return t("menu.peek_token", token=token, on=where(view, block))
    if kind == "rest_case":
        return t("menu.rest_case") if command.get("rest") else t("menu.keep_playing")
    if kind == "accuse":
        suspect = str(command.get("suspect"))
        return t("menu.accuse", id=suspect, name=suspect_name(suspect),
                 gender=suspect_gender(suspect), note=accuse_note(view, suspect),
                 chosen=(chosen := team_choice(view, suspect)), by="yes" if chosen else "no")
    return action_name(kind)


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
        name = words.get(UNAVAILABLE_ACTIONS.get(kind, kind)) or action_name(kind)
        reason = catalog(language()).reason(kind, code, error_words(code).rstrip("."))
        said = reason.startswith(name.split(",")[0])
        line = reason if said else t("menu.unavailable", action=name, reason=reason)
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
        return t("prompt.spectating")
    me = my_seat(view)
    status = view.get("status")
    if status == "over":
        return t("prompt.over")
    decision = you.get("decision")
    if isinstance(decision, dict):
        kind = str(decision.get("kind"))
        if kind == "accusation" and coop.is_coop(view):
            return t("prompt.decide.team")
        return t("prompt.decide", what=decision_words(kind))
    turn = view.get("turn") or {}
    if you.get("legal") and turn.get("seat") == me:
        point = (catalog(language()).values.get("phase") or {}).get(str(turn.get("phase")), "")
        time = "coop" if coop.is_coop(view) else str(turn.get("time"))
        return t("prompt.your_turn", time=time, point=point, known="yes" if point else "no")
    waiting = [d for d in view.get("decisions") or () if d.get("seat") != me]
    if waiting:
        d = waiting[0]
        kind = str(d.get("kind"))
        return t("prompt.waiting_decision", name=who(d["seat"], me, view),
                 what=decision_words(kind))  # fmt: skip
    if status == "accusing":
        if coop.is_coop(view):
            return t("prompt.waiting_team")
        return t("prompt.waiting_accusations")
    if turn:
        return t("prompt.waiting_turn", name=who(turn.get("seat"), me, view))
    return t("prompt.waiting")


def evidence_label(evidence: str) -> str:
    return t("evidence.label", evidence=evidence_name(evidence), clues=evidence_clue(evidence))
