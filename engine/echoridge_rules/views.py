"""``view(state, viewer)``: what one viewer may see (rules.md §15), as plain maps and lists.

This is the only way state leaves the engine.  A ``Seat`` sees the public table plus its own
secrets, decision and legal actions (under ``you``: none while the server plays the seat, whose
bot takes them from ``legal_actions``); a ``Spectator`` sees the public table; and
``Everyone`` (only once the game is over) sees every secret as well.  Once the game is over,
every viewer's view holds every secret (``secrets`` and the city's values): seats keep ``you``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from echoridge_rules.board import BLOCKS, Block
from echoridge_rules.data import (
    CLUES_NEEDED,
    COLORS,
    EVENT_LINES,
    EVIDENCE_ORDER,
    HQ,
    RESULT_EXPLAINED,
    SUSPECTS,
)
from echoridge_rules.decisions import ChooseDiscard, ChooseSlot, Decision
from echoridge_rules.errors import RulesError
from echoridge_rules.flow import decided_by
from echoridge_rules.legal import Options, options, seat_controls
from echoridge_rules.model import ClueKind, ClueToken, Place, State, Status
from echoridge_rules.proofs import private_proofs, proof, public_proofs, setup_items
from echoridge_rules.queries import (
    clues,
    coop,
    hand,
    holder,
    hour_cap,
    knows_trait,
    shared_force,
    team_known_tokens,
)
from echoridge_rules.seats import played_by_server
from echoridge_rules.serial import to_plain
from echoridge_rules.viewcache import ViewCache


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int


@dataclass(frozen=True, slots=True)
class Spectator:
    pass


@dataclass(frozen=True, slots=True)
class Everyone:
    """Every secret: only once the game is over."""


Viewer = Seat | Spectator | Everyone
SPECTATOR = Spectator()
EVERYONE = Everyone()


def _intern_block(cache: ViewCache, viewer: Any, i: int, key: Any, make: Any) -> Any:
    """Block ``i`` of the city ``viewer`` sees: made again only when what it shows changed."""
    return cache.memo(("block", viewer, i), key, lambda: cache.intern(("block", viewer, i), make()))


def _make(i: int, key: Any, make: Any) -> Any:
    return make()


def view(
    state: State, viewer: Viewer, cache: ViewCache | None = None, *, hindsight: bool = False
) -> dict[str, Any]:
    """What ``viewer`` may see of ``state``; with a ``cache``, sharing unchanged subtrees with
    the views the cache made before (see ``ViewCache``).  ``Everyone``'s view of a game still
    being played is refused, unless ``hindsight``: the caller knows the game ``state`` is a
    version of is over (a replay with everything revealed, issue 27), so every secret of that
    version may be shown (nothing before the start, when there is none)."""
    if isinstance(viewer, Everyone):
        if state.status is not Status.OVER and not hindsight:
            raise RulesError("the full view is only published after the game")
        if state.status is Status.NEW:
            viewer = SPECTATOR
    if isinstance(viewer, Seat) and not 0 <= viewer.seat < len(state.players):
        raise RulesError("no such seat")
    if cache is None:
        cache = ViewCache()
    me = viewer.seat if isinstance(viewer, Seat) else None
    # Once the game is over every viewer sees every secret (rules.md §12, SPEC.md §9.4).
    everyone = isinstance(viewer, Everyone) or state.status is Status.OVER
    known = team_known_tokens(state, me) if me is not None else frozenset()
    public = cache.public(state, _public_sections)
    city = public["city"]
    if everyone:
        blocks = functools.partial(_intern_block, cache, (me, everyone))
        city = cache.intern(("city", me, everyone), _city(state, known, everyone, blocks))
    elif known:
        city = cache.intern(("city", me), _known_city(state, city, known, cache, me))
    out: dict[str, Any] = {
        "status": public["status"],
        "mode": public["mode"],
        "coop": public["coop"],
        "turn": public["turn"],
        "city": city,
        "bag": public["bag"],
        "track": public["track"],
        "events": public["events"],
        "force": public["force"],
        "suspects": public["suspects"],
        "evidence": public["evidence"],
        "players": public["players"],
        "looks": public["looks"],
        "commitments": public["commitments"],
        "proofs": public["proofs"],
        "decisions": public["decisions"],
        "you": cache.intern(("you", me), _you(state, me, cache)) if me is not None else None,
        "result": public["result"],
        "secrets": _secrets(state) if everyone else None,
    }
    return out


def _public_sections(state: State, cache: ViewCache) -> dict[str, Any]:
    """The sections every viewer sees alike (``city`` as a spectator sees it), interned.

    Each section is made again only when a part of the state it reads changed since the last
    state this cache saw (its key: those parts, compared with ``==``, which is quick on the
    same objects, and a version changes few); otherwise the section made then is used as it is.
    A key must name everything its section reads (tests/rules/test_view_cache.py plays games
    to check the sections equal those made without a cache)."""
    players = state.players
    mats = tuple((p.informants, p.witnesses, p.holding_tokens) for p in players)  # clues()
    co = coop(state)

    def section(name: str, key: Any, make: Any) -> Any:
        return cache.memo(name, key, lambda: cache.intern(name, make()))

    return {
        "status": state.status.value,
        "mode": state.mode.value,
        "coop": section("coop", (state.mode, state.marker, state.rules, players if co else None),
                        lambda: _coop(state)),
        "turn": section("turn", state.turn, lambda: _turn(state)),
        "city": cache.memo(
            "city",
            (state.tokens, state.slots, tuple(p.car for p in players), state.mobsters,
             state.layout, state.informants, state.witnesses, state.hq_holding),
            lambda: cache.intern("city", _city(
                state, frozenset(), False, functools.partial(_intern_block, cache, None)
            )),
        ),
        "bag": section("bag", state.bag, lambda: dict(
            zip((c.value for c in COLORS), state.bag, strict=True))),
        "track": section(
            "track",
            (state.order, tuple(p.space for p in players), state.lines),
            lambda: {"stacks": _stacks(state), "lines": list(EVENT_LINES),
                     "crossed": sorted(state.lines)},
        ),
        "events": section(
            "events",
            (state.slots, len(state.event_deck), state.event_discard),
            lambda: _events(state),
        ),
        "force": section(
            "force",
            (len(state.force_deck), state.force_discard, state.pool),
            lambda: {"deck": len(state.force_deck), "discard": list(state.force_discard),
                     "pool": list(state.pool)},
        ),
        "suspects": section(
            "suspects",
            (len(state.suspect_deck), len(state.suspects_out)),
            lambda: {"deck": len(state.suspect_deck), "out_of_game": len(state.suspects_out)},
        ),
        "evidence": section(
            "evidence",
            (state.tokens, mats, state.solved, state.mode, state.murderer),
            lambda: _evidence(state),
        ),
        "players": [
            cache.memo(
                ("player", p.seat),
                (p, state.tokens, state.solved, state.votes, state.team_force, state.mode),
                lambda seat=p.seat: cache.intern(("player", seat), _player(state, seat)),
            )
            for p in players
        ],
        "looks": section("looks", state.looks, lambda: [list(pair) for pair in state.looks]),
        "commitments": cache.memo(
            "commitments",
            state.commitments,
            lambda: {label: digest.hex() for label, digest in state.commitments},
        ),
        "proofs": section(
            "proofs",
            (state.tokens, state.salts,
             co and (tuple(p.suspects for p in players), state.solved, state.deck_order,
                     state.murderer)),
            lambda: public_proofs(state),
        ),
        "decisions": section("decisions", state.pending,
                             lambda: [_public_decision(d) for d in state.pending]),
        "result": cache.intern("result", _result(state)) if state.status is Status.OVER else None,
    }  # fmt: skip


def _events(state: State) -> dict[str, Any]:
    return {
        "slots": [
            None
            if a is None
            else {
                "card": a.card,
                "tokens": [list(b) for b in a.tokens],
                "removed_by": list(a.removed_by),
                "card_mobsters": [c.value for c in a.card_mobsters],
                "deadline": a.deadline,
            }
            for a in state.slots
        ],
        "deck": len(state.event_deck),
        "discard": list(state.event_discard),
    }


def _evidence(state: State) -> list[dict[str, Any]]:
    return [
        {
            "evidence": e.value,
            "clues": sum(clues(state, p, e) for p in state.players),
            "needed": CLUES_NEEDED[e],
            "holder": holder(state, e),
            "trait": _shown_trait(state, e),
        }
        for e in EVIDENCE_ORDER
    ]


def _coop(state: State) -> dict[str, Any] | None:
    """The co-op game's public facts (§14): the Out-of-Time Marker and the hour cap below it,
    the lead, the mobsters out of the game and whether the two officers share a Force hand."""
    if not coop(state):
        return None
    return {
        "marker": state.marker,
        "cap": hour_cap(state),
        "lead": state.lead,
        "removed": dict(zip((c.value for c in COLORS), state.removed, strict=True)),
        "shared_force": shared_force(state),
    }


def _shown_trait(state: State, evidence: Any) -> str | None:
    """A solved evidence's trait where it is shown to everyone (co-op, §14)."""
    if not coop(state) or holder(state, evidence) is None:
        return None
    return SUSPECTS[state.murderer].trait(evidence)


def _turn(state: State) -> dict[str, Any] | None:
    turn = state.turn
    if turn is None:
        return None
    return {
        "seat": turn.seat,
        "number": turn.number,
        "start": turn.start,
        "time": "night" if turn.night else "day",
        "phase": turn.phase.value,
        "path": [list(b) for b in turn.path],
        "drive_hours": turn.drive_hours,
        "actions": list(turn.actions),
        "action_hours": turn.action_hours,
        "played": list(turn.played),
        "timed_out": turn.timed_out,
        "extended": turn.extended,
    }


def _clue(token: ClueToken, known: frozenset[tuple[int, int]], everyone: bool) -> dict[str, Any]:
    return {
        "kind": token.kind.value,
        "value": token.value if everyone or token.block in known else None,
    }


def _city(
    state: State,
    known: frozenset[tuple[int, int]],
    everyone: bool,
    block_of: Any = _make,
) -> dict[str, Any]:
    """The city; ``block_of(i, key, make)`` gives block ``i`` (``make()``, or the block made
    before from an equal ``key``: everything the block shows)."""
    on_block = {t.block: t for t in state.tokens if t.place is Place.CITY}
    events: dict[tuple[int, int], list[int]] = {}
    for i, a in enumerate(state.slots):
        if a is not None:
            for b in a.tokens:
                events.setdefault(b, []).append(i + 1)
    cars: dict[tuple[int, int], list[int]] = {}
    for p in state.players:
        cars.setdefault(p.car, []).append(p.seat)
    blocks = []
    names = state.layout
    for i, b in enumerate(BLOCKS):
        mob = state.mobsters[i]
        tok = on_block.get(b)
        here, parked = events.get(b, []), cars.get(b, [])
        name = names[i] if names else ""
        make = functools.partial(_block, b, name, mob, tok, known, everyone, here, parked)
        shown = tok is not None and (everyone or tok.block in known)
        key = (mob, tok, shown, tuple(here), tuple(parked), name)
        blocks.append(block_of(i, key, make))
    return {
        "blocks": blocks,
        "informants": sorted(state.informants),
        "witnesses": sorted(state.witnesses),
        "holding_tokens": [c.value for c in state.hq_holding],
    }


def _block(
    b: Block,
    name: str,
    mob: Any,
    tok: ClueToken | None,
    known: frozenset[tuple[int, int]],
    everyone: bool,
    events: list[int],
    cars: list[int],
) -> dict[str, Any]:
    return {
        "block": list(b),
        "name": name,
        "hq": b == HQ,
        "mobster": mob.value if mob is not None else None,
        "clue": _clue(tok, known, everyone) if tok is not None else None,
        "events": events,
        "cars": cars,
    }


def _known_city(
    state: State,
    public: dict[str, Any],
    known: frozenset[tuple[int, int]],
    cache: ViewCache,
    me: int | None,
) -> dict[str, Any]:
    """The city as a seat sees it: the public city with the values of the face-down tokens it
    knows (``_city(state, known, False)``, made from the public one)."""
    blocks = list(public["blocks"])
    for t in state.tokens:
        if t.place is Place.CITY and t.block in known:
            i = _BLOCK_INDEX[t.block]
            block = dict(blocks[i])
            block["clue"] = _clue(t, known, False)
            blocks[i] = cache.intern(("block", me, i), block)
    return {**public, "blocks": blocks}


_BLOCK_INDEX: dict[tuple[int, int], int] = {b: i for i, b in enumerate(BLOCKS)}


def _stacks(state: State) -> list[dict[str, Any]]:
    by_space: dict[int, list[int]] = {}
    for seat in state.order:
        by_space.setdefault(state.players[seat].space, []).append(seat)
    return [{"space": s, "seats": seats} for s, seats in sorted(by_space.items())]


def _player(state: State, seat: int) -> dict[str, Any]:
    p = state.players[seat]
    mat = [t for t in state.tokens if t.holder == seat]
    return {
        "seat": seat,
        "name": p.name,
        "bot": p.bot or None,
        "ability": p.ability,
        "role": p.role or None,
        "space": p.space,
        "ended": p.ended,
        "badge": p.badge,
        "car": list(p.car),
        "arrests": [c.value for c in p.arrests],
        "holding": p.holding.value if p.holding else None,
        "informants": list(p.informants),
        "witnesses": list(p.witnesses),
        "search": [t.value for t in mat if t.kind is ClueKind.SEARCH],  # 1 success, 0 failure
        "stakeout": [t.value for t in mat if t.kind is ClueKind.STAKEOUT],
        "holding_tokens": [c.value for c in p.holding_tokens],
        "evidence": [e.value for e, s in state.solved if s == seat],
        "learned": [e.value for e in p.learned],
        "suspects": len(p.suspects),
        "face_up": list(p.suspects) if coop(state) else [],  # co-op: every draw is face up
        "force": len(hand(state, seat)),
        "night_shift_left": p.time_waivers,
        "accused": p.accused,
        "auto": p.auto or None,
        "bank": p.bank,
        "strikes": p.strikes,
        "votes": [voter for voter, target in state.votes if target == seat],
    }


def _public_decision(d: Decision) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": d.seat, "kind": d.kind}
    if isinstance(d, ChooseSlot):
        out["target"] = d.target
    return out


def _you(state: State, seat: int, cache: ViewCache) -> dict[str, Any]:
    p = state.players[seat]
    mine = cache.memo(
        ("you", seat),
        (p.suspects, p.seen, p.shown, p.force, p.known_tokens, p.accusation, p.learned,
         p.look_proofs, state.tokens, state.pending, state.murderer, state.solved, state.salts,
         state.deck_order,
         coop(state) and (state.team_force,
                          tuple((q.known_tokens, q.force, q.accusation) for q in state.players))),
        lambda: _your_secrets(state, seat),
    )  # everything _your_secrets reads (compared with ==, which is quick on the same objects)
    turn = state.turn
    controls_key = (
        state.status,
        state.clock,
        None if turn is None else (turn.seat, turn.timed_out, turn.extended),
        tuple((q.bot, q.auto, q.bank, q.auto_pass) for q in state.players),
        state.votes,
        state.handed_self,
        state.rules,
    )  # everything seats.check_seat_command reads
    # SPEC §6.1: ``legal`` is what the seat may send now, so nothing while the server plays it;
    # beside it each command's hours, and why the actions it may not take now are missing
    now = Options() if played_by_server(state, seat) else options(state, seat)
    unavailable = [{"type": kind, "code": code} for kind, code in now.unavailable]
    return {
        **mine,
        "legal": cache.intern(("legal", seat), cache.legal(seat, now.legal)),
        "hours": cache.intern(("hours", seat), list(now.hours)),
        "auto_pass": p.auto_pass,
        "unavailable": cache.intern(("unavailable", seat), unavailable),
        "controls": cache.memo(
            ("controls", seat),
            controls_key,
            lambda: [to_plain(cmd) for cmd in seat_controls(state, seat)],
        ),
    }


def _your_secrets(state: State, seat: int) -> dict[str, Any]:
    """``you`` but ``legal`` and ``controls``: what only this seat knows."""
    p = state.players[seat]
    tokens = {t.block: t for t in state.tokens}
    decision = next((d for d in state.pending if d.seat == seat), None)
    mine: dict[str, Any] | None = None
    if decision is not None:
        mine = _public_decision(decision)
        if isinstance(decision, ChooseSlot):
            mine["slots"] = len(decision.slots)
            mine["deal"] = decision.deal  # K of the look/K/S labels of these slots
            mine["commitments"] = [c.hex() for c in decision.commitments]
        if isinstance(decision, ChooseDiscard):
            mine["reason"] = decision.reason
    murderer = SUSPECTS.get(state.murderer)
    return {
        "seat": seat,
        "suspects": list(p.suspects),
        "seen": list(p.seen),
        "shown": [list(pair) for pair in p.shown],
        "force": list(hand(state, seat)),
        "known_tokens": [
            {"block": list(b), "kind": tokens[b].kind.value, "value": tokens[b].value}
            for b in sorted(team_known_tokens(state, seat))
        ],
        "traits": {
            e.value: murderer.trait(e)
            for e in EVIDENCE_ORDER
            if murderer is not None and knows_trait(state, seat, e)
        },
        "accusation": p.accusation,
        "proofs": private_proofs(state, seat),
        "decision": mine,
        "team": _team(state) if coop(state) else None,
    }


def _team(state: State) -> dict[str, Any]:
    """What the co-op team shares and a spectator may not see (§14): every officer's Force hand
    (the one shared hand with two) and the accusations submitted so far."""
    return {
        "force": [list(hand(state, q.seat)) for q in state.players],
        "accusations": [q.accusation for q in state.players],
    }


def _result(state: State) -> dict[str, Any]:
    explained = state.rules >= RESULT_EXPLAINED and not coop(state)  # (older games: nil)
    return {
        "murderer": state.murderer,
        "accusations": [p.accusation for p in state.players],
        "winners": list(state.winners),
        "team_accusation": state.team_accusation,
        "decided_by": "stopped" if state.stopped else decided_by(state) if explained else None,
    }


def _secrets(state: State) -> dict[str, Any]:
    murderer = SUSPECTS[state.murderer]
    values = {
        label: value
        for label, value in setup_items(state.tokens, state.murderer, state.deck_order)
    }
    return {
        "proofs": [
            proof(label, values[label], salt) for label, salt in state.salts if label in values
        ],
        "suspect_deck": list(state.suspect_deck),
        "suspects_out": list(state.suspects_out),
        "event_deck": list(state.event_deck),
        "force_deck": list(state.force_deck),
        "hands": [list(p.suspects) for p in state.players],
        "seen": [list(p.seen) for p in state.players],
        "force_hands": [list(hand(state, p.seat)) for p in state.players],
        "tokens": [
            {"block": list(t.block), "kind": t.kind.value, "value": t.value, "place": t.place.value}
            for t in state.tokens
        ],
        "traits": {e.value: murderer.trait(e) for e in EVIDENCE_ORDER},
        "look_proofs": [proof(label, card, salt) for label, card, salt in state.dealt],
    }
