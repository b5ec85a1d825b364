"""Turn steps 2-5 (rules.md §4.3), the Mobster Roll (§8.1), drawing and setting up events (§8.2,
§8.3), the Too-Many-Events Penalty (§8.4), Timed expiry (§11.4) and the accusation (§12)."""

from __future__ import annotations

from echoridge_rules import tasks as t
from echoridge_rules.board import NON_HQ, index
from echoridge_rules.carddata import (
    EVENTS,
    EventHandLimit,
    MobsterOnTokens,
    MobstersOnCard,
    Penalty,
    SpreeOn33,
    TokenOnHQ,
    Tokens,
)
from echoridge_rules.context import Ctx
from echoridge_rules.data import CLOCK_MARK, END_ZONE, EVENT_LINES, HQ, SPREE_DOUBLES
from echoridge_rules.decisions import ChooseAccusation, ChooseRest
from echoridge_rules.events import (
    AccusationOpened,
    CardMobsterAdded,
    EventDeckShuffled,
    EventDiscarded,
    EventExpired,
    EventPlaced,
    EventReplaced,
    EventTokenPlaced,
    GameEnded,
    MarkerMoved,
    MobsterPlaced,
    MobsterRolled,
    PhaseEntered,
    PlayerEnded,
    SuspectRemoved,
    TrackerAdvanced,
    TrackersPushed,
    TurnBegan,
)
from echoridge_rules.model import Phase, State
from echoridge_rules.queries import (
    coop,
    event_token_blocks,
    force_blocked,
    hand,
    hour_cap,
    next_seat,
    night_at,
    ongoing,
    tt_order,
)


def window_opens(state: State, seat: int) -> bool:
    """Whether W3/W4 open for the active player: decided on public facts only (hand size, NO_FORCE),
    so a pause never tells the table what the hand holds."""
    p = state.players[seat]
    return bool(hand(state, seat)) and not p.ended and not force_blocked(state)


def next_turn(ctx: Ctx) -> None:
    state = ctx.state
    seat = next_seat(state)
    if seat is None:
        ctx.emit(AccusationOpened())
        for p in ctx.state.players:
            ctx.ask(ChooseAccusation(p.seat))
        return
    night = night_at(state, state.players[seat].space)
    ctx.emit(TurnBegan(seat, state.turns + 1, night))


def after_action(ctx: Ctx) -> None:
    turn = ctx.state.turn
    assert turn is not None
    if window_opens(ctx.state, turn.seat):
        ctx.emit(PhaseEntered(Phase.W3))
    else:
        ctx.push(t.Advance())


def advance(ctx: Ctx) -> None:
    """Step 2's advance, then Step 3: one event per Event Line crossed first."""
    turn = ctx.state.turn
    assert turn is not None
    start = ctx.state.players[turn.seat].space
    end = min(hour_cap(ctx.state), start + turn.hours)
    lines = tuple(k for k in EVENT_LINES if start <= k < end and k not in ctx.state.lines)
    ctx.emit(PhaseEntered(Phase.STEPS))
    ctx.emit(TrackerAdvanced(turn.seat, end, lines))
    ctx.push(*(t.DrawEvent() for _ in lines), t.EnterW4())


def enter_w4(ctx: Ctx) -> None:
    turn = ctx.state.turn
    assert turn is not None
    if window_opens(ctx.state, turn.seat):
        ctx.emit(PhaseEntered(Phase.W4))
    else:
        roll_then_end(ctx)


def roll_then_end(ctx: Ctx) -> None:
    turn = ctx.state.turn
    assert turn is not None
    if turn.skip_roll:
        ctx.push(t.EndTurn())
    else:
        ctx.push(t.MobsterRoll(), t.EndTurn())


def mobster_roll(ctx: Ctx) -> None:
    black = ctx.below(6) + 1
    white = ctx.below(6) + 1
    ctx.emit(MobsterRolled(black, white))
    follow: list[t.Task] = []
    if 6 not in (black, white) and (black, white) != (3, 3):
        block = (black, white)
        if ctx.state.mobsters[index(block)] is not None:
            follow.append(t.DrawEvent())
        elif sum(ctx.state.bag) == 0:
            follow.append(t.Penalty())
        else:
            ctx.emit(MobsterPlaced(block, ctx.bag_draw()))
    if black == white and (
        black in SPREE_DOUBLES or (black == 3 and ongoing(ctx.state, SpreeOn33))
    ):
        follow.append(t.MobsterRoll())
    ctx.push(*follow)


def draw_event(ctx: Ctx) -> None:
    """§8.3: reveal the top event (replacing Timed ones near the end) into the lowest free slot."""
    state = ctx.state
    free = [i + 1 for i, a in enumerate(state.slots) if a is None]
    if not free:
        ctx.push(t.Penalty())
        return
    late = any(p.space in CLOCK_MARK for p in state.players)
    while True:
        if not ctx.state.event_deck:
            ctx.emit(EventDeckShuffled(ctx.shuffle(ctx.state.event_discard)))
        card = ctx.state.event_deck[0]
        if EVENTS[card].timed is not None and late:
            ctx.emit(EventReplaced(card))
            continue
        break
    spec = EVENTS[card]
    deadline = None
    if spec.timed is not None:
        turn = ctx.state.turn
        assert turn is not None
        # From where this turn's advance put the tracker (a later penalty move does not count).
        landed = ctx.state.players[turn.seat].space if turn.landed is None else turn.landed
        deadline = landed + spec.timed.deadline
    slot = free[0]
    ctx.emit(EventPlaced(card, slot, deadline))
    set_up_event(ctx, slot)


def set_up_event(ctx: Ctx, slot: int) -> None:
    """§11.1 setup: tokens by event-setup rolls, mobsters on tokens or on the card."""
    active = ctx.state.slots[slot - 1]
    assert active is not None
    spec = EVENTS[active.card]
    with_mobsters = any(isinstance(s, MobsterOnTokens) for s in spec.setup)
    mobster_blocks = []
    follow: list[t.Task] = []
    for item in spec.setup:
        if isinstance(item, Tokens):
            for _ in range(item.count):
                taken = event_token_blocks(ctx.state)
                free = [b for b in NON_HQ if b not in taken]
                valid = free
                if with_mobsters:
                    valid = [b for b in free if ctx.state.mobsters[index(b)] is None]
                if valid:
                    block = ctx.pick(valid)
                    if with_mobsters:
                        mobster_blocks.append(block)
                else:
                    block = ctx.pick(free)
                ctx.emit(EventTokenPlaced(slot, block))
        elif isinstance(item, TokenOnHQ):
            ctx.emit(EventTokenPlaced(slot, HQ))
        elif isinstance(item, MobsterOnTokens):
            for block in mobster_blocks:
                if sum(ctx.state.bag) == 0:
                    follow.append(t.Penalty())
                else:
                    ctx.emit(MobsterPlaced(block, ctx.bag_draw()))
        elif isinstance(item, MobstersOnCard):
            for _ in range(item.count):
                if sum(ctx.state.bag) == 0:
                    break
                ctx.emit(CardMobsterAdded(slot, ctx.bag_draw()))
    if any(isinstance(e, EventHandLimit) for e in spec.ongoing):
        follow.extend(t.DiscardDown(seat) for seat in tt_order(ctx.state))
    ctx.push(*follow)


def place_mobsters(ctx: Ctx, count: int) -> None:
    """Bag mobsters placed with event-setup rolls (starting mobsters, MOB(n))."""
    follow: list[t.Task] = []
    for _ in range(count):
        if sum(ctx.state.bag) == 0:
            follow.append(t.Penalty())
            continue
        color = ctx.bag_draw()
        valid = [b for b in NON_HQ if ctx.state.mobsters[index(b)] is None]
        ctx.emit(MobsterPlaced(ctx.pick(valid), color))
    ctx.push(*follow)


def penalty(ctx: Ctx) -> None:
    """§8.4: the top Suspect leaves the game unseen; with an empty deck every tracker moves.
    In co-op (§14) the Out-of-Time Marker moves back 1 instead, and every officer it reaches
    has ended at once."""
    marker = ctx.state.marker
    if coop(ctx.state) and marker is not None:
        ctx.emit(MarkerMoved(marker - 1))
        for seat in tt_order(ctx.state):
            p = ctx.state.players[seat]
            if not p.ended and p.space >= marker - 1:
                ctx.emit(PlayerEnded(seat, rested=False))
        return
    if ctx.state.suspect_deck:
        ctx.emit(SuspectRemoved(ctx.state.suspect_deck[0]))
    else:
        ctx.emit(TrackersPushed())


def end_turn(ctx: Ctx) -> None:
    ctx.push(
        *(t.ExpiryCheck(slot) for slot in range(1, len(ctx.state.slots) + 1)),
        t.OfferRest(),
        t.EndOn48(),
        t.NextTurn(),
    )


def expiry_check(ctx: Ctx, slot: int) -> None:
    active = ctx.state.slots[slot - 1]
    if active is None or active.deadline is None:
        return
    spaces = [p.space for p in ctx.state.players if not p.ended]
    if not spaces or min(spaces) < active.deadline:
        return
    timed = EVENTS[active.card].timed
    assert timed is not None
    ctx.emit(EventExpired(slot))
    follow: list[t.Task] = []
    match timed.penalty:
        case Penalty.PENALTY:
            follow.extend(t.Penalty() for _ in range(timed.count))
        case Penalty.DISCARD_FORCE:
            follow.extend(t.DiscardOne(seat) for seat in tt_order(ctx.state))
        case Penalty.MOBSTERS:
            follow.append(t.PlaceMobsters(timed.count))
    ctx.push(*follow, t.DiscardEvent(slot))


def discard_event(ctx: Ctx, slot: int) -> None:
    ctx.emit(EventDiscarded(slot))


def offer_rest(ctx: Ctx) -> None:
    turn = ctx.state.turn
    assert turn is not None
    p = ctx.state.players[turn.seat]
    if not p.ended and p.space in END_ZONE and p.space < hour_cap(ctx.state):
        ctx.ask(ChooseRest(p.seat))


def end_on_48(ctx: Ctx) -> None:
    """Step 5(c): every tracker on 48 (in co-op, on the hour cap M-1) has ended."""
    cap = hour_cap(ctx.state)
    for p in ctx.state.players:
        if p.space >= cap and not p.ended:
            ctx.emit(PlayerEnded(p.seat, rested=False))


def winners(state: State) -> tuple[int, ...]:
    """§12: the correct accusers, narrowed by badge, then tracker, then Evidence tokens."""
    return _ranked(state)[0]


def decided_by(state: State) -> str:
    """Why the winners of a competitive game won (the view's ``result.decided_by``):
    ``nobody`` (no correct accusation), ``accusation`` (one correct accuser), the tie-break
    that left one (``badge``, ``tracker``, ``evidence``), or ``tie`` (they share the win)."""
    return _ranked(state)[1]


def _ranked(state: State) -> tuple[tuple[int, ...], str]:
    leaders = [p for p in state.players if p.accusation == state.murderer]
    if len(leaders) <= 1:
        return tuple(p.seat for p in leaders), "accusation" if leaders else "nobody"
    evidence = {p.seat: sum(1 for _, s in state.solved if s == p.seat) for p in state.players}
    for name, key in (
        ("badge", lambda p: p.badge),
        ("tracker", lambda p: -p.space),
        ("evidence", lambda p: evidence[p.seat]),
    ):
        best = max(key(p) for p in leaders)
        leaders = [p for p in leaders if key(p) == best]
        if len(leaders) == 1:
            return (leaders[0].seat,), name
    return tuple(p.seat for p in leaders), "tie"


def team_accusation(state: State) -> str | None:
    """§14: the team's one accusation: the officers' common choice, or the lead's."""
    choices = {p.accusation for p in state.players}
    if len(choices) == 1:
        return choices.pop()
    return state.players[state.lead].accusation if state.lead is not None else None


def finish_if_all_accused(ctx: Ctx) -> None:
    state = ctx.state
    if not all(p.accused for p in state.players):
        return
    if coop(state):
        named = team_accusation(state)
        won = named is not None and named == state.murderer
        ctx.emit(GameEnded(tuple(p.seat for p in state.players) if won else (), named))
    else:
        ctx.emit(GameEnded(winners(state)))
