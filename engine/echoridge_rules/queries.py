"""Facts derived from the state: order of play, costs, limits, clue counts.  Pure and cheap."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from echoridge_rules.board import Block, index
from echoridge_rules.carddata import (
    ABILITIES,
    EVENTS,
    AbilityEffect,
    ActionSurcharge,
    AllNight,
    EventHandLimit,
    EventSpec,
    HandLimitDelta,
    LongDriveWaiver,
    NoForce,
    SetCost,
    SurchargeRow,
    SurchargeToken,
)
from echoridge_rules.coopdata import CLUE_ACTIONS, ROLES, SHARED_FORCE_PLAYERS, Mode
from echoridge_rules.data import (
    ACTIONS,
    DAY_SPACES,
    ENDED_CARS_COUNT,
    GRID,
    HAND_LIMIT,
    HOURS,
    Action,
    Evidence,
    TimeOfDay,
)
from echoridge_rules.model import ActiveEvent, ClueKind, ClueToken, Place, Player, State

E = TypeVar("E")


def tt_order(state: State) -> tuple[int, ...]:
    """Time Track order: every seat, lowest space first; on a shared space, top of stack first."""
    height = {seat: i for i, seat in enumerate(state.order)}
    players = state.players
    return tuple(sorted(height, key=lambda s: (players[s].space, -height[s])))


def next_seat(state: State) -> int | None:
    """The player who plays next: the first player in Time Track order who has not ended."""
    for seat in tt_order(state):
        if not state.players[seat].ended:
            return seat
    return None


def active_events(state: State) -> Iterator[tuple[int, ActiveEvent, EventSpec]]:
    """(slot, active event, card) for every occupied slot, in slot order."""
    for i, a in enumerate(state.slots):
        if a is not None:
            yield i + 1, a, EVENTS[a.card]


class _BySlots:
    """The last event slots seen and what was worked out from them: ``ongoing`` and
    ``surcharges`` depend on nothing else, and ``legal_actions`` asks them dozens of times of
    one state.  Slots are immutable, so the same object means the same answers."""

    __slots__ = ("answers", "slots")

    def __init__(self) -> None:
        self.slots: object = None
        self.answers: dict[object, Any] = {}

    def of(self, state: State) -> dict[object, Any]:
        if state.slots is not self.slots:
            self.slots, self.answers = state.slots, {}
        return self.answers


_BY_SLOTS = _BySlots()


def ongoing(state: State, kind: type[E]) -> tuple[E, ...]:
    """Every active event's ongoing effect of the given kind."""
    answers = _BY_SLOTS.of(state)
    found = answers.get(kind)
    if found is None:
        found = answers[kind] = tuple(
            eff for _, _, spec in active_events(state) for eff in spec.ongoing
            if isinstance(eff, kind)
        )  # fmt: skip
    return found


def ability(state: State, seat: int) -> AbilityEffect:
    return ABILITIES[state.players[seat].ability].effect


def hand_limit(state: State, seat: int) -> int:
    """The seat's Force hand limit; the shared hand's (§14) with either officer's ability."""
    limit = HAND_LIMIT
    holders = [p.seat for p in state.players] if shared_force(state) else [seat]
    limit += max(
        (eff.delta for s in holders if isinstance(eff := ability(state, s), HandLimitDelta)),
        default=0,
    )
    for e in ongoing(state, EventHandLimit):
        limit += e.delta
    return max(0, limit)


def all_night(state: State) -> bool:
    return bool(ongoing(state, AllNight))


def night_at(state: State, space: int) -> bool:
    """Whether a turn beginning on this space now is a night turn (ALL_NIGHT included)."""
    return space not in DAY_SPACES or all_night(state)


def force_blocked(state: State) -> bool:
    return bool(ongoing(state, NoForce))


def action_time(state: State, action: Action, slot: int | None = None) -> TimeOfDay | None:
    if action is Action.RESOLVE_EVENT:
        if slot is None or not 1 <= slot <= len(state.slots):
            return None
        a = state.slots[slot - 1]
        return EVENTS[a.card].resolve.time if a is not None else None
    return ACTIONS[action].time


def base_hours(state: State, action: Action, risk: int | None, slot: int | None) -> int:
    spec = ACTIONS[action]
    if spec.risk is not None:
        assert risk is not None
        return risk
    if action is Action.RESOLVE_EVENT:
        assert slot is not None
        a = state.slots[slot - 1]
        assert a is not None
        return EVENTS[a.card].resolve.hours
    return spec.hours


def action_cost(
    state: State, seat: int, action: Action, risk: int | None = None, slot: int | None = None
) -> int:
    """§5 cost order: base (or declared risk), ability set cost, surcharges, reductions, min 1."""
    cost = base_hours(state, action, risk, slot)
    eff = ability(state, seat)
    if isinstance(eff, SetCost) and action in eff.actions:
        cost = eff.hours
    for s in ongoing(state, ActionSurcharge):
        if s.action is action:
            cost += s.hours
    turn = state.turn
    if turn is not None and ACTIONS[action].risk is None:
        cost -= turn.cost_reduction
    return max(1, cost)


def surcharges(state: State) -> dict[Block, int]:
    """Extra hours for entering each block: +1 per SURCHARGE_TOKEN event with a token on it,
    +1 per SURCHARGE_ROW event with a token in its row.  Blocks with none are left out.
    The same dict for the same slots: do not change it."""
    answers = _BY_SLOTS.of(state)
    known = answers.get("surcharges")
    if known is not None:
        return known  # type: ignore[no-any-return]
    table: dict[Block, int] = {}
    for a in state.slots:
        if a is None:
            continue
        for eff in EVENTS[a.card].ongoing:
            if isinstance(eff, SurchargeToken):
                for b in a.tokens:
                    table[b] = table.get(b, 0) + 1
            elif isinstance(eff, SurchargeRow):
                for row in {b[1] for b in a.tokens}:
                    for col in range(1, GRID + 1):
                        table[(col, row)] = table.get((col, row), 0) + 1
    answers["surcharges"] = table
    return table


def drive_cost(state: State, seat: int, path: tuple[Block, ...], code_three: int) -> int:
    """Hours of a Drive: base 1 per block entered, minus waivers, plus surcharges."""
    waivers = code_three
    eff = ability(state, seat)
    if isinstance(eff, LongDriveWaiver) and len(path) >= eff.min_drive:
        waivers += eff.blocks
    base = len(path) - min(len(path), waivers)
    extra = surcharges(state)
    return base + (sum(extra.get(b, 0) for b in path) if extra else 0)


def event_token_blocks(state: State) -> set[Block]:
    return {b for a in state.slots if a is not None for b in a.tokens}


def mobster_at(state: State, block: Block) -> object:
    return state.mobsters[index(block)]


def city_token(state: State, block: Block) -> ClueToken | None:
    """The face-down Search or Stakeout token on a block, if any."""
    for t in state.tokens:
        if t.block == block and t.place is Place.CITY:
            return t
    return None


def face_down_tokens(state: State) -> list[ClueToken]:
    return [t for t in state.tokens if t.place is Place.CITY]


def clues(state: State, player: Player, evidence: Evidence) -> int:
    """How many clues of this evidence a player holds on their mat."""
    match evidence:
        case Evidence.RANK:
            return len(player.informants)
        case Evidence.GANG:
            return len(player.witnesses)
        case Evidence.FORENSICS:
            return sum(
                1
                for t in state.tokens
                if t.holder == player.seat and t.kind is ClueKind.SEARCH and t.value == 1
            )
        case Evidence.GETAWAY:
            return sum(
                1 for t in state.tokens if t.holder == player.seat and t.kind is ClueKind.STAKEOUT
            )
        case Evidence.WEAPON:
            return len(player.holding_tokens)


def holder(state: State, evidence: Evidence) -> int | None:
    for e, seat in state.solved:
        if e is evidence:
            return seat
    return None


def knows_trait(state: State, seat: int, evidence: Evidence) -> bool:
    """Whether the seat knows the murderer's trait for this evidence; in co-op every solved
    evidence is shown to everyone (§14)."""
    h = holder(state, evidence)
    if h is not None and coop(state):
        return True
    return h == seat or evidence in state.players[seat].learned


def unknown_solved(state: State, seat: int) -> list[Evidence]:
    """Solved evidence whose trait this player does not know yet, in §7.1 order."""
    solved = {e for e, _ in state.solved}
    return [e for e in Evidence if e in solved and not knows_trait(state, seat, e)]


def solo(state: State) -> bool:
    return len(state.players) == 1


def car_counts(state: State, p: Player) -> bool:
    """Whether ``p``'s car counts for resolving an Event on its block (§11.2): an officer's
    who has not ended, and from rules v3 a resting one's too (§5.10)."""
    return not p.ended or state.rules >= ENDED_CARS_COUNT


def coop(state: State) -> bool:
    return state.mode is Mode.COOPERATIVE


def look_targets(state: State, seat: int) -> list[int]:
    """Other players holding at least one Suspect card, in seat order (none in co-op, where
    every Suspect gain is a draw)."""
    if coop(state):
        return []
    return [p.seat for p in state.players if p.seat != seat and p.suspects]


# --- co-op (§14) ---------------------------------------------------------------------------------


def hour_cap(state: State) -> int:
    """The last space a tracker may reach: 48, or in co-op the space below the Out-of-Time
    Marker."""
    return HOURS if state.marker is None else state.marker - 1


def shared_force(state: State) -> bool:
    """Whether the officers share one Force hand (co-op with 2 players)."""
    return coop(state) and len(state.players) == SHARED_FORCE_PLAYERS


def hand(state: State, seat: int) -> tuple[str, ...]:
    """The Force hand this seat plays from and discards from, oldest first."""
    return state.team_force if shared_force(state) else state.players[seat].force


def role_allows(state: State, seat: int, action: Action) -> bool:
    """Whether the seat's co-op role may take this action (every action outside co-op)."""
    role = state.players[seat].role
    return not role or action not in CLUE_ACTIONS or action in ROLES[role].actions


def team_known_tokens(state: State, seat: int) -> frozenset[Block]:
    """The face-down tokens this seat knows the value of: in co-op, the whole team's (§14)."""
    if coop(state):
        return frozenset().union(*(p.known_tokens for p in state.players))
    return state.players[seat].known_tokens
