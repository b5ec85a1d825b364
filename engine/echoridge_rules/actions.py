"""The active player's commands: Drive, the ten actions (§5) and closing a Force window.

Each command has a ``check_*`` that raises ``RuleViolation`` and returns what the execution needs,
and an ``exec_*`` that emits events and schedules tasks.  ``legal_actions`` uses the same checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_rules import commands as c
from echoridge_rules import tasks as t
from echoridge_rules.board import NEIGHBOURS, Block, index, near, on_board
from echoridge_rules.carddata import (
    EVENTS,
    FORCE_CARDS,
    BlockAction,
    DriveWaive,
    NoForceOnBackup,
    ResolveKind,
    RiskCap,
    StakeoutMargin,
    TimeWaivers,
    TwoDiceLow,
)
from echoridge_rules.context import Ctx
from echoridge_rules.coopdata import ROLES
from echoridge_rules.data import ACTIONS, HQ, NO_TIME_WAIVER, Action, TimeOfDay
from echoridge_rules.effects import nab_removals
from echoridge_rules.errors import RuleViolation
from echoridge_rules.events import (
    ActionTaken,
    ArrestSetCompleted,
    BackupCalled,
    CarDriven,
    HeldMobsterReleased,
    HoldingTokenTaken,
    InformantTaken,
    MobsterApprehended,
    MobsterArrested,
    MobsterHeld,
    PhaseEntered,
    SearchTokenFlipped,
    StakeoutFailed,
    StakeoutSucceeded,
    TokenPeeked,
    WitnessTaken,
)
from echoridge_rules.flow import roll_then_end
from echoridge_rules.model import ClueKind, Phase, State, Status, Turn
from echoridge_rules.queries import (
    ability,
    action_cost,
    action_time,
    car_counts,
    city_token,
    coop,
    drive_cost,
    hour_cap,
    mobster_at,
    ongoing,
    role_allows,
)

MAX_PATH = 64

ACTION_OF: dict[type, Action] = {
    c.Arrest: Action.ARREST,
    c.CoffeeBreak: Action.COFFEE_BREAK,
    c.CallForBackup: Action.CALL_FOR_BACKUP,
    c.CatchInformant: Action.CATCH_INFORMANT,
    c.CatchWitness: Action.CATCH_WITNESS,
    c.SearchScene: Action.SEARCH_SCENE,
    c.Stakeout: Action.STAKEOUT,
    c.HoldMobster: Action.BRING_IN_1,
    c.BookMobster: Action.BRING_IN_2,
    c.ResolveEvent: Action.RESOLVE_EVENT,
}


def check_turn(state: State, seat: int) -> Turn:
    """The checks every turn command shares: playing, this seat's turn, nothing owed."""
    if state.status is Status.NEW:
        raise RuleViolation("rules/game_not_started", "The game has not started yet.")
    if state.status is not Status.PLAYING:
        raise RuleViolation("rules/game_over", "Every officer has ended; only accusations remain.")
    if not 0 <= seat < len(state.players):
        raise RuleViolation("rules/unknown_seat", "There is no such seat at this table.")
    turn = state.turn
    if turn is None or turn.seat != seat:
        raise RuleViolation("rules/not_your_turn", "It is another officer's turn.")
    if state.pending:
        raise RuleViolation("rules/decision_owed", "A decision must be answered first.")
    return turn


# --- Drive --------------------------------------------------------------------------------------


def code_three_waiver(turn: Turn) -> int:
    return sum(
        eff.blocks
        for card in turn.played
        if isinstance(eff := FORCE_CARDS[card].effect, DriveWaive)
    )


def check_drive(state: State, cmd: c.Drive) -> int:
    turn = check_turn(state, cmd.seat)
    if turn.phase is not Phase.W1:
        raise RuleViolation(
            "rules/wrong_window", "You can only drive at the start of your turn, once."
        )
    path = cmd.path
    if not path or len(path) > MAX_PATH or not all(on_board(b) for b in path):
        raise RuleViolation("rules/bad_path", "Give the blocks you drive through, in order.")
    here = state.players[cmd.seat].car
    for block in path:
        if block not in NEIGHBOURS[here]:
            raise RuleViolation(
                "rules/bad_path", f"Block {block} is not adjacent to block {here}."
            )
        here = block
    hours = drive_cost(state, cmd.seat, path, code_three_waiver(turn))
    if turn.start + hours > hour_cap(state) - 1:
        raise RuleViolation(
            "rules/over_hour_cap", "After a Drive you must still have at least 1 hour left."
        )
    return hours


def exec_drive(ctx: Ctx, cmd: c.Drive, hours: int) -> None:
    ctx.emit(CarDriven(cmd.seat, cmd.path, hours))
    ctx.emit(PhaseEntered(Phase.W2))


# --- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    action: Action
    hours: int
    risk: int | None = None
    slot: int | None = None
    night_shift: bool = False


def check_action(state: State, cmd: c.ActionCommand) -> Plan:
    seat = cmd.seat
    turn = check_turn(state, seat)
    action = ACTION_OF[type(cmd)]
    may_act = turn.phase in (Phase.W1, Phase.W2) and (
        not turn.actions or (turn.extra_action and len(turn.actions) == 1)
    )
    if not may_act:
        raise RuleViolation("rules/wrong_window", "You have already taken your action this turn.")
    if any(b.action is action for b in ongoing(state, BlockAction)):
        raise RuleViolation("rules/action_blocked", "An active event forbids that action now.")
    slot = cmd.slot if isinstance(cmd, c.ResolveEvent) else None
    if slot is not None:
        _check_event_slot(state, seat, slot)
    night_shift = bool(getattr(cmd, "night_shift", False))
    if coop(state):
        _check_role(state, seat, turn, action, night_shift)
    else:
        _check_time(state, seat, turn, action, slot, night_shift)
    _check_requirement(state, seat, turn, action)
    risk = getattr(cmd, "risk", None)
    spec = ACTIONS[action]
    if spec.risk is not None:
        low, high = spec.risk
        for cap in ongoing(state, RiskCap):
            if cap.action is action:
                high = min(high, cap.cap)
        if not isinstance(risk, int) or isinstance(risk, bool) or not low <= risk <= high:
            raise RuleViolation(
                "rules/risk_out_of_range", f"Declare a risk from {low} to {high}."
            )
    hours = action_cost(state, seat, action, risk, slot)
    last = hour_cap(state)
    if turn.start + turn.hours + hours > last:
        raise RuleViolation(
            "rules/over_hour_cap",
            f"That action costs {hours} h and would take your tracker past {last}.",
        )
    return Plan(action, hours, risk, slot, night_shift)


def _check_event_slot(state: State, seat: int, slot: int) -> None:
    if not isinstance(slot, int) or not 1 <= slot <= len(state.slots) or not state.slots[slot - 1]:
        raise RuleViolation("rules/no_such_event", "There is no active event in that slot.")
    active = state.slots[slot - 1]
    assert active is not None
    car = state.players[seat].car
    if car not in active.tokens:
        raise RuleViolation(
            "rules/not_on_event_token", "Your car must be on a block holding this event's token."
        )
    if EVENTS[active.card].resolve.kind is ResolveKind.NAB and mobster_at(state, car) is not None:
        raise RuleViolation(
            "rules/mobster_on_token", "Apprehend the mobster on this token to remove it."
        )


def _check_role(state: State, seat: int, turn: Turn, action: Action, night_shift: bool) -> None:
    """Co-op (§14): no day/night limits; the clue actions are limited by role, unless a Judge's
    Signature (``turn.ignore_time``) lets this action be one the role lacks."""
    if night_shift:
        raise RuleViolation(
            "rules/night_shift_unavailable", "There are no day or night limits in co-op."
        )
    if not role_allows(state, seat, action) and not turn.ignore_time:
        role = ROLES[state.players[seat].role]
        raise RuleViolation(
            "rules/role_lacks_action", f"The {role.name} may not take that action."
        )


def _check_time(
    state: State, seat: int, turn: Turn, action: Action, slot: int | None, night_shift: bool
) -> None:
    needed = action_time(state, action, slot)
    now = TimeOfDay.NIGHT if turn.night else TimeOfDay.DAY
    waivable = action not in NO_TIME_WAIVER
    wrong = needed is not None and needed is not now and not (turn.ignore_time and waivable)
    if night_shift:
        eff = ability(state, seat)
        if (
            not wrong
            or not waivable
            or not isinstance(eff, TimeWaivers)
            or state.players[seat].time_waivers < 1
        ):
            raise RuleViolation(
                "rules/night_shift_unavailable",
                "Night Shift only lets an action ignore a day or night limit it would break, "
                "twice per game, and never for Bring in for Holding.",
            )
    elif wrong:
        raise RuleViolation(
            "rules/wrong_time_of_day",
            f"That action is {'day' if needed is TimeOfDay.DAY else 'night'}-only, "
            f"and this is a {now.value} turn.",
        )


def _check_requirement(state: State, seat: int, turn: Turn, action: Action) -> None:
    p = state.players[seat]
    car = p.car
    here = mobster_at(state, car) is not None
    match action:
        case Action.ARREST | Action.CATCH_INFORMANT | Action.CATCH_WITNESS | Action.BRING_IN_1:
            if not here:
                raise RuleViolation("rules/no_mobster_here", "There is no mobster on your block.")
            if action is Action.CATCH_INFORMANT and car[1] not in state.informants:
                raise RuleViolation(
                    "rules/no_informant", f"The Informant of row {car[1]} is already taken."
                )
            if action is Action.CATCH_WITNESS and car[0] not in state.witnesses:
                raise RuleViolation(
                    "rules/no_witness", f"The Witness of column {car[0]} is already taken."
                )
            if action is Action.BRING_IN_1 and p.holding is not None:
                raise RuleViolation("rules/holding_full", "Your Holding spot is already full.")
        case Action.CALL_FOR_BACKUP:
            if all(mobster_at(state, b) is None for b in near(car)):
                raise RuleViolation(
                    "rules/no_mobster_nearby",
                    "There is no mobster on your block or an adjacent block.",
                )
        case Action.SEARCH_SCENE | Action.STAKEOUT:
            kind = ClueKind.SEARCH if action is Action.SEARCH_SCENE else ClueKind.STAKEOUT
            token = city_token(state, car)
            if token is None or token.kind is not kind:
                raise RuleViolation(
                    f"rules/no_{kind.value}_token",
                    f"There is no face-down {kind.value.title()} token on your block.",
                )
        case Action.BRING_IN_2:
            if p.holding is None:
                raise RuleViolation("rules/nothing_held", "Your Holding spot is empty.")
            if p.held_on_turn >= turn.number:
                raise RuleViolation(
                    "rules/held_this_turn", "Step 2 must wait for a later turn than step 1."
                )
            if car != HQ:
                raise RuleViolation("rules/not_at_hq", "Step 2 needs your car at HQ.")
        case Action.COFFEE_BREAK | Action.RESOLVE_EVENT:
            pass


def apprehend(ctx: Ctx, seat: int, block: Block, removals: list[tuple[int, Block]]) -> None:
    """Take the mobster off a block to the bag, noting NAB tokens for effect step (2)."""
    color = ctx.state.mobsters[index(block)]
    assert color is not None
    removals.extend(nab_removals(ctx.state, block))
    ctx.emit(MobsterApprehended(seat, block, color))


def exec_action(ctx: Ctx, cmd: c.ActionCommand, plan: Plan) -> None:
    seat = cmd.seat
    turn = ctx.state.turn
    assert turn is not None
    bonus = turn.risk_bonus
    ctx.emit(PhaseEntered(Phase.ACTION))
    ctx.emit(ActionTaken(seat, plan.action.value, plan.hours, plan.risk, plan.slot,
                         plan.night_shift))
    p = ctx.state.players[seat]
    car = p.car
    follow: list[t.Task] = []
    removals: list[tuple[int, Block]] = []
    match plan.action:
        case Action.ARREST:
            color = ctx.state.mobsters[index(car)]
            assert color is not None
            if color in p.arrests or coop(ctx.state):  # co-op: no arrest spots (§14)
                apprehend(ctx, seat, car, removals)
            else:
                removals.extend(nab_removals(ctx.state, car))
                ctx.emit(MobsterArrested(seat, car, color))
                if len(ctx.state.players[seat].arrests) == 3:
                    ctx.emit(ArrestSetCompleted(seat))
                    follow.append(t.GainBadge(seat))
        case Action.COFFEE_BREAK:
            pass
        case Action.CALL_FOR_BACKUP:
            assert plan.risk is not None
            dice: tuple[int, ...] = (ctx.below(6) + 1,)
            if isinstance(ability(ctx.state, seat), TwoDiceLow):
                dice = (*dice, ctx.below(6) + 1)
            success = min(dice) <= plan.risk + bonus
            ctx.emit(BackupCalled(seat, plan.risk, dice, success))
            for block in near(car) if success else (car,):
                if ctx.state.mobsters[index(block)] is not None:
                    apprehend(ctx, seat, block, removals)
            if success and not ongoing(ctx.state, NoForceOnBackup):
                follow.append(t.ForceGain(seat))
        case Action.CATCH_INFORMANT:
            apprehend(ctx, seat, car, removals)
            ctx.emit(InformantTaken(seat, car[1]))
            follow.append(t.GainBadge(seat))
        case Action.CATCH_WITNESS:
            apprehend(ctx, seat, car, removals)
            ctx.emit(WitnessTaken(seat, car[0]))
            follow.append(t.GainBadge(seat))
        case Action.SEARCH_SCENE:
            token = city_token(ctx.state, car)
            assert token is not None
            ctx.emit(SearchTokenFlipped(seat, car, token.value == 1))
            follow.append(t.GainBadge(seat))
        case Action.STAKEOUT:
            assert plan.risk is not None
            token = city_token(ctx.state, car)
            assert token is not None
            ctx.emit(TokenPeeked(seat, car))
            eff = ability(ctx.state, seat)
            margin = eff.margin if isinstance(eff, StakeoutMargin) else 0
            if token.value <= plan.risk + bonus + margin:
                ctx.emit(StakeoutSucceeded(seat, car, plan.risk, token.value))
                follow.append(t.GainBadge(seat))
            else:
                ctx.emit(StakeoutFailed(seat, car, plan.risk))
        case Action.BRING_IN_1:
            color = ctx.state.mobsters[index(car)]
            assert color is not None
            removals.extend(nab_removals(ctx.state, car))
            ctx.emit(MobsterHeld(seat, car, color))
        case Action.BRING_IN_2:
            color = p.holding
            assert color is not None
            ctx.emit(HeldMobsterReleased(seat))
            if color in ctx.state.hq_holding:
                ctx.emit(HoldingTokenTaken(seat, color))
                follow.append(t.GainBadge(seat))
            else:
                follow.append(t.ForceGain(seat))
        case Action.RESOLVE_EVENT:
            assert plan.slot is not None
            removals.extend(_resolve_removals(ctx.state, seat, plan.slot))
    if removals:
        follow.append(t.RemoveTokens(seat, tuple(removals)))
    follow.extend((t.SolveEvidence(seat), t.AfterAction()))
    ctx.push(*follow)


def _resolve_removals(state: State, seat: int, slot: int) -> list[tuple[int, Block]]:
    """VISIT/NAB: the token under the car; MEET: also the other token if another officer's car
    counts on it (``car_counts``: who has not ended, and from rules v3 a resting one too; never
    in Solo)."""
    active = state.slots[slot - 1]
    assert active is not None
    car = state.players[seat].car
    out = [(slot, car)]
    if EVENTS[active.card].resolve.kind is ResolveKind.MEET and len(state.players) > 1:
        for block in active.tokens:
            if block != car and any(
                p.car == block and p.seat != seat and car_counts(state, p) for p in state.players
            ):
                out.append((slot, block))
    return out


# --- Proceed ------------------------------------------------------------------------------------


def check_proceed(state: State, cmd: c.Proceed) -> Phase:
    turn = check_turn(state, cmd.seat)
    if turn.phase not in (Phase.W3, Phase.W4):
        raise RuleViolation("rules/wrong_window", "There is no open Force window to close.")
    return turn.phase


def exec_proceed(ctx: Ctx, phase: Phase) -> None:
    if phase is Phase.W3:
        ctx.push(t.Advance())
    else:
        ctx.emit(PhaseEntered(Phase.STEPS))
        roll_then_end(ctx)

