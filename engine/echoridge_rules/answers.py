"""Answers to owed decisions (rules.md §4.5), and the default answer of a timed-out decision."""

from __future__ import annotations

from echoridge_rules import commands as c
from echoridge_rules import tasks as t
from echoridge_rules.context import Ctx
from echoridge_rules.data import SUSPECTS, Evidence
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
from echoridge_rules.effects import gain_options, see_slot, take_from_pool
from echoridge_rules.errors import RuleViolation
from echoridge_rules.events import (
    Accused,
    ForceDiscarded,
    PlayerEnded,
    SuspectDrawn,
    TokenPeeked,
    TraitLearned,
)
from echoridge_rules.flow import finish_if_all_accused
from echoridge_rules.model import State, Status
from echoridge_rules.queries import city_token, hand, look_targets, tt_order, unknown_solved

_ANSWERS: dict[type, type] = {
    c.GainSuspect: ChooseGain,
    c.Interrogate: ChooseInterrogate,
    c.PickSlot: ChooseSlot,
    c.DiscardForce: ChooseDiscard,
    c.TakeFromPool: ChoosePoolCard,
    c.LearnTrait: ChooseTrait,
    c.PeekToken: ChoosePeek,
    c.RestCase: ChooseRest,
    c.Accuse: ChooseAccusation,
}


def owed(state: State, seat: int) -> Decision | None:
    """The decision this seat must answer now, if any."""
    for d in state.pending:
        if d.seat == seat:
            return d
    return None


def check_answer(state: State, cmd: c.Answer) -> Decision:
    if state.status is Status.NEW:
        raise RuleViolation("rules/game_not_started", "The game has not started yet.")
    if state.status is Status.OVER:
        raise RuleViolation("rules/game_over", "The game is over.")
    if not 0 <= cmd.seat < len(state.players):
        raise RuleViolation("rules/unknown_seat", "There is no such seat at this table.")
    decision = owed(state, cmd.seat)
    if decision is None or not isinstance(decision, _ANSWERS[type(cmd)]):
        raise RuleViolation("rules/no_decision_owed", "You owe no such decision now.")
    if isinstance(cmd, c.Accuse) and cmd.suspect not in SUSPECTS:
        raise RuleViolation("rules/unknown_suspect", "There is no such suspect (S01 to S16).")
    if not _valid(state, cmd, decision):
        raise RuleViolation("rules/not_an_option", "That is not one of your choices.")
    return decision


def _valid(state: State, cmd: c.Answer, decision: Decision) -> bool:
    match cmd:
        case c.GainSuspect(look_at=target):
            can_draw, targets = gain_options(state, cmd.seat)
            return can_draw if target is None else target in targets
        case c.Interrogate(target=target):
            return target is None or target in look_targets(state, cmd.seat)
        case c.PickSlot(slot=slot):
            assert isinstance(decision, ChooseSlot)
            return isinstance(slot, int) and 1 <= slot <= len(decision.slots)
        case c.DiscardForce(card=card):
            return card in hand(state, cmd.seat)
        case c.TakeFromPool(card=card):
            return card in state.pool
        case c.LearnTrait(evidence=evidence):
            return isinstance(evidence, Evidence) and evidence in unknown_solved(state, cmd.seat)
        case c.PeekToken(block=block):
            return isinstance(block, tuple) and city_token(state, block) is not None
        case c.RestCase(rest=rest):
            return isinstance(rest, bool)
        case c.Accuse(suspect=suspect):
            return suspect in SUSPECTS
    return False


def exec_answer(ctx: Ctx, cmd: c.Answer, decision: Decision) -> None:
    ctx.state = ctx.state.but(pending=tuple(d for d in ctx.state.pending if d != decision))
    seat = cmd.seat
    match cmd:
        case c.GainSuspect(look_at=None):
            ctx.emit(SuspectDrawn(seat, ctx.state.suspect_deck[0]))
        case c.GainSuspect(look_at=target) | c.Interrogate(target=target):
            if target is not None:
                ctx.push(t.Look(seat, target))
        case c.PickSlot(slot=slot):
            assert isinstance(decision, ChooseSlot)
            see_slot(ctx, decision, slot)
        case c.DiscardForce(card=card):
            assert isinstance(decision, ChooseDiscard)
            held = hand(ctx.state, seat)
            if decision.reason == "hand_limit":
                position = len(held) - 1 - held[::-1].index(card)  # the newest copy
                ctx.emit(ForceDiscarded(seat, card, position))
                ctx.push(t.DiscardDown(seat))
            else:
                ctx.emit(ForceDiscarded(seat, card, held.index(card)))  # the oldest copy
        case c.TakeFromPool(card=card):
            take_from_pool(ctx, seat, card)
        case c.LearnTrait(evidence=evidence):
            ctx.emit(TraitLearned(seat, evidence))
        case c.PeekToken(block=block):
            ctx.emit(TokenPeeked(seat, block))
        case c.RestCase(rest=rest):
            if rest:
                ctx.emit(PlayerEnded(seat, rested=True))
        case c.Accuse(suspect=suspect):
            ctx.emit(Accused(seat, suspect))
            finish_if_all_accused(ctx)


def default_answer(state: State, decision: Decision) -> c.Answer | None:
    """§4.5.6: the answer applied when a decision times out; None when the default is a skip
    (Interrogate, a slot pick, a `P` peek), a look at slot 1, or no accusation."""
    seat = decision.seat
    match decision:
        case ChooseGain():
            can_draw, _ = gain_options(state, seat)
            return c.GainSuspect(seat, None) if can_draw else None
        case ChooseDiscard(reason=reason):
            held = hand(state, seat)
            return c.DiscardForce(seat, held[-1] if reason == "hand_limit" else held[0])
        case ChoosePoolCard():
            return c.TakeFromPool(seat, state.pool[0])
        case ChooseTrait():
            return c.LearnTrait(seat, unknown_solved(state, seat)[0])
        case ChooseRest():
            return c.RestCase(seat, False)
        case ChooseInterrogate() | ChooseSlot() | ChoosePeek() | ChooseAccusation():
            return None
    return None


def exec_default(ctx: Ctx, decision: Decision) -> None:
    """Apply a timed-out decision's default answer."""
    answer = default_answer(ctx.state, decision)
    if answer is not None:
        exec_answer(ctx, answer, decision)
        return
    state = ctx.state
    ctx.state = state.but(pending=tuple(d for d in state.pending if d != decision))
    match decision:
        case ChooseGain(seat=seat):
            # Deck empty: a look at the first eligible player in Time Track order, slot 1.
            _, targets = gain_options(state, seat)
            first = next(s for s in tt_order(state) if s in targets)
            ctx.push(t.Look(seat, first, slot_one=True))
        case ChooseAccusation(seat=seat):
            ctx.emit(Accused(seat, None))
            finish_if_all_accused(ctx)
        case _:
            pass  # skipped
