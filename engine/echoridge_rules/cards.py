"""Playing Force cards (rules.md §9): windows, conditions and effects."""

from __future__ import annotations

from echoridge_rules import commands as c
from echoridge_rules import tasks as t
from echoridge_rules.actions import apprehend, check_turn
from echoridge_rules.board import Block, near, on_board
from echoridge_rules.carddata import (
    FORCE_CARDS,
    ApprehendNear,
    ExtraAction,
    GainSuspect,
    MoveCar,
    PeekToken,
    Window,
)
from echoridge_rules.context import Ctx
from echoridge_rules.errors import RuleViolation
from echoridge_rules.events import CarMoved, ForcePlayed, PhaseEntered, TokenPeeked
from echoridge_rules.model import Phase, State, Turn
from echoridge_rules.queries import city_token, force_blocked, hand, hour_cap, mobster_at

# The windows open at each phase of the turn.  At W1 a W2 card may be played too: it closes the
# Drive (the turn moves on to W2).
_OPEN: dict[Phase, frozenset[Window]] = {
    Phase.W1: frozenset({Window.W1, Window.W2}),
    Phase.W2: frozenset({Window.W2}),
    Phase.W3: frozenset({Window.W3}),
    Phase.W4: frozenset({Window.W4}),
}


def check_play(state: State, cmd: c.PlayForce) -> Turn:
    turn = check_turn(state, cmd.seat)
    spec = FORCE_CARDS.get(cmd.card) if isinstance(cmd.card, str) else None
    if spec is None:
        raise RuleViolation("rules/unknown_card", "There is no such Force card.")
    if cmd.card not in hand(state, cmd.seat):
        raise RuleViolation("rules/card_not_in_hand", f"You do not hold {spec.name}.")
    if force_blocked(state):
        raise RuleViolation("rules/force_blocked", "An active event forbids Force cards.")
    if not spec.windows & _OPEN.get(turn.phase, frozenset()):
        when = ", ".join(sorted(w.value.upper() for w in spec.windows))
        raise RuleViolation("rules/wrong_window", f"{spec.name} is played in {when} only.")
    if spec.needs_block != (cmd.block is not None):
        raise RuleViolation(
            "rules/bad_block",
            f"{spec.name} {'names' if spec.needs_block else 'does not name'} a block.",
        )
    block = cmd.block
    if block is not None and not on_board(block):
        raise RuleViolation("rules/bad_block", "That is not a block of the city.")
    match spec.effect:
        case PeekToken():
            assert block is not None
            if city_token(state, block) is None:
                raise RuleViolation("rules/bad_block", "There is no face-down token on that block.")
        case ApprehendNear():
            assert block is not None
            car = state.players[cmd.seat].car
            if block not in near(car) or mobster_at(state, block) is None:
                raise RuleViolation(
                    "rules/bad_block", "Name a block with a mobster: yours or an adjacent one."
                )
        case ExtraAction():
            if len(turn.actions) != 1 or turn.start + turn.hours > hour_cap(state) - 1:
                raise RuleViolation(
                    "rules/card_not_playable",
                    "Double Shift needs at least 1 hour left after your Drive and action.",
                )
        case _:
            pass
    return turn


def exec_play(ctx: Ctx, cmd: c.PlayForce, turn: Turn) -> None:
    spec = FORCE_CARDS[cmd.card]
    seat = cmd.seat
    ctx.emit(ForcePlayed(seat, cmd.card, cmd.block))
    if turn.phase is Phase.W1 and Window.W1 not in spec.windows:
        ctx.emit(PhaseEntered(Phase.W2))
    block: Block | None = cmd.block
    match spec.effect:
        case MoveCar():
            assert block is not None
            ctx.emit(CarMoved(seat, block))
            ctx.emit(PhaseEntered(Phase.W2))  # instead of driving
        case PeekToken():
            assert block is not None
            ctx.emit(TokenPeeked(seat, block))
        case ApprehendNear():
            assert block is not None
            removals: list[tuple[int, Block]] = []
            apprehend(ctx, seat, block, removals)
            if removals:
                ctx.push(t.RemoveTokens(seat, tuple(removals)))
        case GainSuspect():
            ctx.push(t.SuspectGain(seat))
        case ExtraAction():
            ctx.emit(PhaseEntered(Phase.W2))
        case _:
            pass  # the turn's modifiers are recorded by ForcePlayed itself
