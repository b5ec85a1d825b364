"""``legal_actions(state, seat)``: every command a seat may send now, parameters included;
``options(state, seat)`` adds what a view shows beside them: each command's hours, and why each
action the seat could take on its turn is not among them.

Candidates are generated per command kind and kept when ``check`` accepts them, so this list and
``decide`` can never disagree.  Drives are the one exception to "every": a Drive may take any
path, so the list holds one cheapest path (fewest hours, then canonical block order) to each
reachable block; any other valid path is legal too.  The hours and the refusals come from the
same checks (``check`` returns how a command is carried out, and its cost with it; a refused
candidate raises the code a ``result`` would carry), so they cannot disagree with ``decide``.
"""

from __future__ import annotations

import heapq
import weakref
from dataclasses import dataclass

from echoridge_rules import commands as c
from echoridge_rules.board import BLOCKS, NEIGHBOURS, Block, index
from echoridge_rules.carddata import FORCE_CARDS, TimeWaivers
from echoridge_rules.data import ACTIONS, EVIDENCE_ORDER, SUSPECT_IDS, Action
from echoridge_rules.decisions import (
    ChooseAccusation,
    ChooseDiscard,
    ChooseGain,
    ChooseInterrogate,
    ChoosePeek,
    ChoosePoolCard,
    ChooseRest,
    ChooseSlot,
    ChooseTrait,
    Decision,
)
from echoridge_rules.engine import check, hours_of
from echoridge_rules.errors import RuleViolation
from echoridge_rules.model import Phase, State, Status
from echoridge_rules.queries import ability, face_down_tokens, hand, surcharges
from echoridge_rules.serial import tag_of

# The actions of a turn (§5), by command type, in the order a view lists their refusals.
ACTION_TYPES: tuple[str, ...] = (
    "arrest", "coffee_break", "call_for_backup", "catch_informant", "catch_witness",
    "search_scene", "stakeout", "hold_mobster", "book_mobster", "resolve_event",
)  # fmt: skip
_VAGUE = frozenset({"rules/no_such_event", "rules/risk_out_of_range"})  # said only if alone


@dataclass(frozen=True, slots=True)
class Options:
    """What ``seat`` may do now, as its view shows it: ``legal`` (``legal_actions``), the hours
    each adds to the turn (``hours``, the same order), and ``unavailable``: on its turn while
    it may still act, (command type, code) for each action of ``ACTION_TYPES`` of which no
    command is legal, with the rule that forbids it (the first refusal of its simplest
    variant: the lowest risk, no Night Shift)."""

    legal: tuple[c.Command, ...] = ()
    hours: tuple[int, ...] = ()
    unavailable: tuple[tuple[str, str], ...] = ()


def legal_actions(state: State, seat: int) -> tuple[c.Command, ...]:
    return options(state, seat).legal


def options(state: State, seat: int) -> Options:
    """What ``seat`` may do in ``state`` (see ``Options``).  The last few answers are kept by
    the state's identity: a version's views, the server's auto-pass and its bots ask about the
    same state one after the other, and states are never changed."""
    key = (id(state), seat)
    kept = _RECENT.get(key)
    if kept is not None and kept[0]() is state:
        return kept[1]
    made = _options(state, seat)
    if len(_RECENT) >= RECENT:
        del _RECENT[next(iter(_RECENT))]  # the oldest
    _RECENT[key] = (weakref.ref(state), made)  # (a state is freed when its table lets go)
    return made


RECENT = 16  # answers of ``options`` kept (a 4-seat table's version asks of 4 seats)
_RECENT: dict[tuple[int, int], tuple[weakref.ref[State], Options]] = {}


def _options(state: State, seat: int) -> Options:
    if state.status in (Status.NEW, Status.OVER) or not 0 <= seat < len(state.players):
        return Options()
    legal: list[c.Command] = []
    hours: list[int] = []
    refused: dict[str, list[str]] = {}
    settled: set[tuple[type, bool]] = set()  # risk actions refused whatever the risk
    for cmd in _candidates(state, seat):
        family = _risk_family(cmd)
        if family is not None and family in settled:
            continue  # (its lowest risk was refused by a rule checked before the risk)
        try:
            execute = check(state, cmd)
        except RuleViolation as exc:
            codes = refused.setdefault(tag_of(cmd), [])
            if exc.code not in codes:
                codes.append(exc.code)
            if family is not None and exc.code not in _RISKY:
                settled.add(family)
            continue
        legal.append(cmd)
        hours.append(hours_of(execute))
    acted = {tag_of(cmd) for cmd in legal}
    unavailable = tuple(
        (kind, next((code for code in refused[kind] if code not in _VAGUE), refused[kind][0]))
        for kind in ACTION_TYPES
        if kind in refused and kind not in acted
    )
    return Options(tuple(legal), tuple(hours), unavailable)


# The codes of actions.check_action that depend on the declared risk: it reads the risk only
# after every other rule, so a risk action refused with another code at its lowest risk is
# refused with that code at every risk (tests/rules/test_options.py holds the shortcut to
# checking them all).
_RISKY = frozenset({"rules/risk_out_of_range", "rules/over_hour_cap"})


def _risk_family(cmd: c.Command) -> tuple[type, bool] | None:
    """A risk action's variants that differ only in their risk (its type and Night Shift)."""
    if isinstance(cmd, c.CallForBackup | c.Stakeout):
        return (type(cmd), cmd.night_shift)
    return None


def nothing_to_play(state: State) -> int | None:
    """The seat of an open W3/W4 window in which ``proceed`` is its only legal command (the
    window "pass when I have nothing to play" answers, ruling 47), else None."""
    turn = state.turn
    if state.pending or turn is None or turn.phase not in (Phase.W3, Phase.W4):
        return None
    seat = turn.seat
    return seat if legal_actions(state, seat) == (c.Proceed(seat),) else None


def _accepted(state: State, candidates: list[c.Command]) -> tuple[c.Command, ...]:
    """The candidates ``check`` accepts, in order."""
    out = []
    for cmd in candidates:
        try:
            check(state, cmd)
        except RuleViolation:
            continue
        out.append(cmd)
    return tuple(out)


def seat_controls(state: State, seat: int) -> tuple[c.Command, ...]:
    """The seat commands (seats.py) a seat may send now: "more time", "play for me", taking
    the seat back, and handover votes.  Apart from ``legal``: they are not moves of the game."""
    if state.status in (Status.NEW, Status.OVER) or not 0 <= seat < len(state.players):
        return ()
    p = state.players[seat]
    candidates: list[c.Command] = [c.ExtendTime(seat), c.PlayForMe(seat), c.TakeBack(seat)]
    candidates.append(c.AutoPass(seat, not p.auto_pass))
    candidates += [c.VoteHandover(seat, t) for t in range(len(state.players)) if t != seat]
    return _accepted(state, candidates)


def _candidates(state: State, seat: int) -> list[c.Command]:
    for d in state.pending:
        if d.seat == seat:
            return _answers(state, d)
    turn = state.turn
    if state.pending or turn is None or turn.seat != seat:
        return []
    out: list[c.Command] = []
    if turn.phase in (Phase.W3, Phase.W4):
        out.append(c.Proceed(seat))
    if turn.phase is Phase.W1:
        out.extend(c.Drive(seat, path) for path in cheapest_paths(state, seat))
    for card in dict.fromkeys(hand(state, seat)):
        if FORCE_CARDS[card].needs_block:
            out.extend(c.PlayForce(seat, card, b) for b in BLOCKS)
        else:
            out.append(c.PlayForce(seat, card))
    if turn.phase in (Phase.W1, Phase.W2):
        out.extend(_actions(state, seat))
    return out


def _actions(state: State, seat: int) -> list[c.Command]:
    waivers = isinstance(ability(state, seat), TimeWaivers) and state.players[seat].time_waivers
    out: list[c.Command] = [
        c.Arrest(seat),
        c.CoffeeBreak(seat),
        c.HoldMobster(seat),
        c.BookMobster(seat),
    ]
    backup = ACTIONS[Action.CALL_FOR_BACKUP].risk
    stakeout = ACTIONS[Action.STAKEOUT].risk
    assert backup is not None and stakeout is not None
    for ns in (False, True) if waivers else (False,):
        out.extend(c.CallForBackup(seat, r, ns) for r in range(backup[0], backup[1] + 1))
        out.append(c.CatchInformant(seat, ns))
        out.append(c.CatchWitness(seat, ns))
        out.append(c.SearchScene(seat, ns))
        out.extend(c.Stakeout(seat, r, ns) for r in range(stakeout[0], stakeout[1] + 1))
        out.extend(c.ResolveEvent(seat, slot, ns) for slot in range(1, len(state.slots) + 1))
    return out


def _answers(state: State, d: Decision) -> list[c.Command]:
    seat = d.seat
    others = [p.seat for p in state.players if p.seat != seat]
    match d:
        case ChooseGain():
            return [c.GainSuspect(seat, None), *(c.GainSuspect(seat, o) for o in others)]
        case ChooseInterrogate():
            return [c.Interrogate(seat, None), *(c.Interrogate(seat, o) for o in others)]
        case ChooseSlot(slots=slots):
            return [c.PickSlot(seat, i) for i in range(1, len(slots) + 1)]
        case ChooseDiscard():
            return [c.DiscardForce(seat, card) for card in dict.fromkeys(hand(state, seat))]
        case ChoosePoolCard():
            return [c.TakeFromPool(seat, card) for card in dict.fromkeys(state.pool)]
        case ChooseTrait():
            return [c.LearnTrait(seat, e) for e in EVIDENCE_ORDER]
        case ChoosePeek():
            return [c.PeekToken(seat, tok.block) for tok in face_down_tokens(state)]
        case ChooseRest():
            return [c.RestCase(seat, False), c.RestCase(seat, True)]
        case ChooseAccusation():
            return [c.Accuse(seat, s) for s in SUSPECT_IDS]
    return []


def cheapest_paths(state: State, seat: int) -> list[tuple[Block, ...]]:
    """One cheapest path (base hours plus surcharges) from the car to every other block."""
    start = state.players[seat].car
    extra = surcharges(state)
    best: dict[Block, tuple[int, tuple[Block, ...]]] = {start: (0, ())}
    heap: list[tuple[int, int, tuple[int, ...], Block]] = [(0, 0, (), start)]
    while heap:
        cost, _, key, block = heapq.heappop(heap)
        if best[block][0] < cost:
            continue
        path = best[block][1]
        for nxt in NEIGHBOURS[block]:
            step = cost + 1 + extra.get(nxt, 0)
            if nxt not in best or step < best[nxt][0]:
                best[nxt] = (step, (*path, nxt))
                heapq.heappush(heap, (step, len(path) + 1, (*key, index(nxt)), nxt))
    return [best[b][1] for b in BLOCKS if b != start and b in best]
