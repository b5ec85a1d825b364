"""``decide(state, command, rng) -> events``: check a command, carry it out, run the agenda
until the game waits for someone, and return every event this produced."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import assert_never

from echoridge_protocol.kinds import STOP_REASONS  # what the server may name in StopGame
from echoridge_rules import commands as c
from echoridge_rules import effects, flow
from echoridge_rules import tasks as t
from echoridge_rules.actions import (
    check_action,
    check_drive,
    check_proceed,
    exec_action,
    exec_drive,
    exec_proceed,
)
from echoridge_rules.answers import check_answer, exec_answer, exec_default, owed
from echoridge_rules.cards import check_play, exec_play
from echoridge_rules.context import Ctx
from echoridge_rules.errors import RuleViolation
from echoridge_rules.events import Continued, Event, GameStopped
from echoridge_rules.model import Phase, State
from echoridge_rules.rng import Rng
from echoridge_rules.seats import check_game_on, check_on, check_seat_command
from echoridge_rules.serial import conforms
from echoridge_rules.setup import check_start, exec_start

Execute = Callable[[Ctx], None]


def check(state: State, command: c.Command) -> Execute:
    """Raise RuleViolation unless the command is legal now; return how to carry it out."""
    match command:
        case c.StartGame(
            players=players, names=names, bots=bots, clock=clock, mode=mode, roles=roles,
            rules=rules,
        ):
            check_start(state, players, names, bots, clock, mode, roles, rules)
            return partial(
                exec_start, players=players, names=names, bots=bots, clock=clock, mode=mode,
                roles=roles, rules=rules,
            )
        case c.ApplyDefault(seat=seat):
            return _check_default(state, seat)
        case c.StopGame(reason=reason):
            return _check_stop(state, reason)
        case (
            c.TimeOut() | c.HandOver() | c.ExtendTime() | c.PlayForMe() | c.TakeBack()
            | c.VoteHandover() | c.AutoPass()
        ):
            return check_seat_command(state, command)
        case c.Drive():
            return partial(exec_drive, cmd=command, hours=check_drive(state, command))
        case c.PlayForce():
            return partial(exec_play, cmd=command, turn=check_play(state, command))
        case c.Proceed():
            return partial(exec_proceed, phase=check_proceed(state, command))
        case (
            c.Arrest() | c.CoffeeBreak() | c.CallForBackup() | c.CatchInformant()
            | c.CatchWitness() | c.SearchScene() | c.Stakeout() | c.HoldMobster()
            | c.BookMobster() | c.ResolveEvent()
        ):
            return partial(exec_action, cmd=command, plan=check_action(state, command))
        case (
            c.GainSuspect() | c.Interrogate() | c.PickSlot() | c.DiscardForce()
            | c.TakeFromPool() | c.LearnTrait() | c.PeekToken() | c.RestCase() | c.Accuse()
        ):
            return partial(exec_answer, cmd=command, decision=check_answer(state, command))
        case _:
            assert_never(command)


def hours_of(execute: Execute) -> int:
    """The hours a command ``check`` accepted adds to the turn: a Drive's, an action's (after
    every event, card and ability: its plan's); 0 for any other command."""
    keywords = execute.keywords if isinstance(execute, partial) else {}
    if "hours" in keywords:
        return int(keywords["hours"])
    plan = keywords.get("plan")
    return int(plan.hours) if plan is not None else 0


def _check_default(state: State, seat: int) -> Execute:
    """A timed-out decision gets its default; an open W3/W4 window is closed."""
    check_game_on(state, seat)
    decision = owed(state, seat)
    if decision is not None:
        return partial(exec_default, decision=decision)
    turn = state.turn
    if turn is not None and turn.seat == seat and turn.phase in (Phase.W3, Phase.W4):
        return partial(exec_proceed, phase=turn.phase)
    raise RuleViolation("rules/no_decision_owed", "That seat owes no decision now.")


def _check_stop(state: State, reason: str) -> Execute:
    """The server may stop a game that is on (its turns or its accusations), for a reason it
    names; the game is over at once, with no winner."""
    if reason not in STOP_REASONS:
        raise RuleViolation("rules/not_an_option", "That is not one of the choices.")
    check_on(state)
    return partial(_stop, reason=reason)


def _stop(ctx: Ctx, reason: str) -> None:
    ctx.emit(GameStopped(reason))


def decide(state: State, command: c.Command, rng: Rng) -> list[Event]:
    """The events a legal command produces.  Raises RuleViolation for an illegal one."""
    if not conforms(command):
        raise RuleViolation("rules/bad_command", "That command's fields have the wrong types.")
    execute_command = check(state, command)
    ctx = Ctx(state, rng)
    execute_command(ctx)
    run(ctx)
    if ctx.state.agenda != state.agenda or ctx.state.pending != state.pending:
        ctx.emit(Continued(ctx.state.agenda, ctx.state.pending))
    return ctx.events


def run(ctx: Ctx) -> None:
    """Run tasks until a decision is owed or the agenda is empty (the game waits for a turn
    command, or is over)."""
    while ctx.state.agenda and not ctx.state.pending:
        task = ctx.state.agenda[0]
        ctx.state = ctx.state.but(agenda=ctx.state.agenda[1:])
        execute(ctx, task)


def execute(ctx: Ctx, task: t.Task) -> None:
    match task:
        case t.NextTurn():
            flow.next_turn(ctx)
        case t.AfterAction():
            flow.after_action(ctx)
        case t.Advance():
            flow.advance(ctx)
        case t.EnterW4():
            flow.enter_w4(ctx)
        case t.MobsterRoll():
            flow.mobster_roll(ctx)
        case t.EndTurn():
            flow.end_turn(ctx)
        case t.ExpiryCheck(slot=slot):
            flow.expiry_check(ctx, slot)
        case t.OfferRest():
            flow.offer_rest(ctx)
        case t.EndOn48():
            flow.end_on_48(ctx)
        case t.DrawEvent():
            flow.draw_event(ctx)
        case t.Penalty():
            flow.penalty(ctx)
        case t.PlaceMobsters(count=count):
            flow.place_mobsters(ctx, count)
        case t.DiscardEvent(slot=slot):
            flow.discard_event(ctx, slot)
        case t.GainBadge(seat=seat):
            effects.gain_badge(ctx, seat)
        case t.InterrogateBonus(seat=seat):
            effects.interrogate_bonus(ctx, seat)
        case t.SuspectGain(seat=seat):
            effects.suspect_gain(ctx, seat)
        case t.Look(seat=seat, target=target, slot_one=slot_one):
            effects.look(ctx, seat, target, slot_one)
        case t.ForceGain(seat=seat):
            effects.force_gain(ctx, seat)
        case t.DiscardDown(seat=seat):
            effects.discard_down(ctx, seat)
        case t.DiscardOne(seat=seat):
            effects.discard_one(ctx, seat)
        case t.RemoveTokens(seat=seat, removals=removals):
            effects.remove_tokens(ctx, seat, removals)
        case t.RewardEvent(slot=slot, resolver=resolver, contributors=contributors):
            effects.reward_event(ctx, slot, resolver, contributors)
        case t.GiveReward(seat=seat, reward=reward):
            effects.give_reward(ctx, seat, reward)
        case t.DiscardPool():
            effects.discard_pool(ctx)
        case t.SolveEvidence(seat=seat):
            effects.solve_evidence(ctx, seat)
        case _:
            assert_never(task)
