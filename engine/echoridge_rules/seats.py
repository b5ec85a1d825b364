"""Seats and clocks: who plays a seat, and the rules' part of the turn clock.

The engine has no clock.  The server keeps time (tables/clocks.py) and enters what time does as
ordinary commands, so a replay never needs a clock:

- ``TimeOut(seat)``: the active seat's turn clock ran out.  The server's bot plays the rest of
  that turn (``Turn.timed_out``).  After ``strikes`` turns in a row timed out, the server plays
  the seat for good (``SeatHandedOver(reason="strikes")``); a turn the player ends themself
  clears the count.
- ``HandOver(seat, "away")``: the seat's player was away longer than the grace period.
- ``ExtendTime(seat)``: "I need more time", once per turn, moves up to one turn's time from the
  seat's bank to the turn (``TimeExtended``; the bank is counted in seconds here, the deadline
  is the server's).
- ``PlayForMe(seat)`` / ``TakeBack(seat)``: the seat's player hands the seat to the server and
  takes it back (the server also takes it back for a player who reconnects).  From rules v3 a
  seat hands itself over once per turn (the accusation counts as one turn: ``State.handed_self``),
  so toggling makes at most two log entries a turn (ruling 43); taking back is never limited.
- ``VoteHandover(seat, target)``: once every other seat a person plays voted this turn, the
  server plays ``target``.

A seat the server plays (``played_by_server``) is played by its bot; the table refuses its
player's own game commands then (they may always take the seat back).  Seats of server bots
(``Player.bot``) take no part in any of this.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from echoridge_rules import commands as c
from echoridge_rules.context import Ctx
from echoridge_rules.data import HANDOVER_ONCE_PER_TURN
from echoridge_rules.errors import RuleViolation
from echoridge_rules.model import State, Status, Turn
from echoridge_rules.seat_events import (
    AutoPassSet,
    HandoverVoted,
    SeatHandedOver,
    SeatTakenBack,
    TimeExtended,
    TurnTimedOut,
)

Execute = Callable[[Ctx], None]
HANDOVER_REASONS = ("away",)  # what the server may name in HandOver (the others are events')
MAX_CLOCK = 90 * 86400  # seconds: the longest turn or bank the rules accept


def played_by_server(state: State, seat: int) -> bool:
    """Whether the server plays ``seat`` now: a bot's seat, a seat handed over, or the rest of
    a turn that timed out."""
    p = state.players[seat]
    turn = state.turn
    return bool(p.bot or p.auto) or (turn is not None and turn.seat == seat and turn.timed_out)


def check_clock(clock: tuple[int, ...]) -> None:
    if not isinstance(clock, tuple) or (
        clock
        and (
            len(clock) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in clock)
            or not (0 <= clock[0] <= MAX_CLOCK and 0 <= clock[1] <= MAX_CLOCK)
            or not 0 <= clock[2] <= 10
        )
    ):
        raise RuleViolation("rules/bad_clock", "A clock is (turn seconds, bank seconds, strikes).")


def check_seat_command(
    state: State,
    command: (
        c.TimeOut | c.HandOver | c.ExtendTime | c.PlayForMe | c.TakeBack | c.VoteHandover
        | c.AutoPass
    ),
) -> Execute:
    seat = command.seat
    _person(state, seat)
    p = state.players[seat]
    match command:
        case c.TimeOut():
            turn = _own_turn(state, seat)
            if turn.timed_out:
                raise RuleViolation("rules/turn_timed_out", "That turn has already timed out.")
            return partial(_time_out, seat=seat)
        case c.HandOver(reason=reason):
            if reason not in HANDOVER_REASONS:
                raise RuleViolation("rules/not_an_option", "That is not one of the choices.")
            _not_handed_over(state, seat)
            return partial(_emit, event=SeatHandedOver(seat, reason))
        case c.PlayForMe():
            _not_handed_over(state, seat)
            if state.rules >= HANDOVER_ONCE_PER_TURN and seat in state.handed_self:
                raise RuleViolation(
                    "rules/handover_used",
                    "You handed this seat to the server once this turn already; play it until"
                    " the next turn.",
                )
            return partial(_emit, event=SeatHandedOver(seat, "self"))
        case c.AutoPass(on=on):
            if p.auto_pass == on:
                raise RuleViolation("rules/not_an_option", "That is how it is already.")
            return partial(_emit, event=AutoPassSet(seat, on))
        case c.TakeBack():
            if not p.auto:
                raise RuleViolation("rules/not_handed_over", "You play that seat yourself.")
            return partial(_emit, event=SeatTakenBack(seat))
        case c.ExtendTime():
            turn = _own_turn(state, seat)
            _not_handed_over(state, seat)
            if turn.timed_out:
                raise RuleViolation("rules/turn_timed_out", "That turn has already timed out.")
            if turn.extended:
                raise RuleViolation("rules/already_extended", "This turn already has more time.")
            if p.bank <= 0:
                raise RuleViolation("rules/no_time_bank", "Your time bank is empty.")
            return partial(_emit, event=TimeExtended(seat, min(p.bank, state.clock[0])))
        case c.VoteHandover(target=target):
            _not_handed_over(state, seat)
            if target == seat:
                raise RuleViolation("rules/bad_vote", "Vote for another player's seat.")
            _person(state, target)  # a seat the table does not have: rules/unknown_seat
            _not_handed_over(state, target)
            if (seat, target) in state.votes:
                raise RuleViolation("rules/already_voted", "You have voted for that already.")
            return partial(_vote, seat=seat, target=target)


def check_on(state: State) -> None:
    """The game is on: started, and not over."""
    if state.status is Status.NEW:
        raise RuleViolation("rules/game_not_started", "The game has not started yet.")
    if state.status is Status.OVER:
        raise RuleViolation("rules/game_over", "The game is over.")


def check_game_on(state: State, seat: int) -> None:
    """The game is on and ``seat`` is one of its seats."""
    check_on(state)
    if not 0 <= seat < len(state.players):
        raise RuleViolation("rules/unknown_seat", "There is no such seat at this table.")


def _person(state: State, seat: int) -> None:
    check_game_on(state, seat)
    if state.players[seat].bot:
        raise RuleViolation("rules/bot_seat", "The server plays that seat with a bot.")


def _own_turn(state: State, seat: int) -> Turn:
    if not state.clock or not state.clock[0]:
        raise RuleViolation("rules/no_clock", "This table has no turn clock.")
    turn = state.turn
    if state.status is not Status.PLAYING or turn is None or turn.seat != seat:
        raise RuleViolation("rules/not_your_turn", "It is another player's turn.")
    return turn


def _not_handed_over(state: State, seat: int) -> None:
    if state.players[seat].auto:
        raise RuleViolation("rules/already_handed_over", "The server plays that seat now.")


def _emit(ctx: Ctx, event: SeatHandedOver | SeatTakenBack | TimeExtended | AutoPassSet) -> None:
    ctx.emit(event)


def _time_out(ctx: Ctx, seat: int) -> None:
    ctx.emit(TurnTimedOut(seat))
    p = ctx.state.players[seat]
    strikes = ctx.state.clock[2]
    if strikes and p.strikes >= strikes and not p.auto:
        ctx.emit(SeatHandedOver(seat, "strikes"))


def _vote(ctx: Ctx, seat: int, target: int) -> None:
    ctx.emit(HandoverVoted(seat, target))
    state = ctx.state
    voters = {v for v, t in state.votes if t == target}
    needed = {p.seat for p in state.players if p.seat != target and not p.bot and not p.auto}
    if needed <= voters:
        ctx.emit(SeatHandedOver(target, "vote"))
