"""``evolve(state, event) -> state``: apply one fact.  Never checks, never draws, never fails on
stored history; ``fold(events)`` rebuilds a game from its events alone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from echoridge_rules import events as ev
from echoridge_rules.board import index
from echoridge_rules.carddata import (
    ABILITIES,
    FORCE_CARDS,
    CostReduction,
    ExtraAction,
    IgnoreTimeOfDay,
    RiskBonus,
    SkipRoll,
    TimeWaivers,
)
from echoridge_rules.coopdata import MARKER_START, Mode
from echoridge_rules.data import ACTIONS, COLORS, GRID, HOURS, MOBSTERS_PER_COLOR, Action, Color
from echoridge_rules.model import ActiveEvent, ClueToken, Place, Player, State, Status, Turn
from echoridge_rules.proofs import look_label
from echoridge_rules.queries import hand, shared_force


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    s = State() if state is None else state
    for e in events:
        s = evolve(s, e)
    return s


def _bag(bag: tuple[int, int, int], color: Color, delta: int) -> tuple[int, int, int]:
    i = COLORS.index(color)
    out = list(bag)
    out[i] += delta
    return (out[0], out[1], out[2])


def _set_player(state: State, player: Player) -> State:
    players = list(state.players)
    players[player.seat] = player
    return state.but(players=tuple(players))


def _set_mobster(state: State, block: tuple[int, int], color: Color | None) -> State:
    mob = list(state.mobsters)
    mob[index(block)] = color
    return state.but(mobsters=tuple(mob))


def _set_slot(state: State, slot: int, active: ActiveEvent | None) -> State:
    slots = list(state.slots)
    slots[slot - 1] = active
    return state.but(slots=tuple(slots))


def _set_token(state: State, token: ClueToken) -> State:
    return state.but(
        tokens=tuple(token if t.block == token.block else t for t in state.tokens)
    )


def _token(state: State, block: tuple[int, int]) -> ClueToken:
    for t in state.tokens:
        if t.block == block:
            return t
    raise KeyError(block)


def _to_top(order: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return (*(s for s in order if s != seat), seat)


def _without(cards: tuple[str, ...], position: int) -> tuple[str, ...]:
    return cards[:position] + cards[position + 1 :]


def evolve(state: State, event: ev.Event) -> State:
    match event:
        case ev.Drawn():
            return state.but(draws=state.draws + 1)
        case ev.Continued(agenda=agenda, pending=pending):
            return state.but(agenda=agenda, pending=pending)
        case ev.GameStarted():
            return _started(state, event)
        case ev.TurnBegan(seat=seat, number=number, night=night):
            start = state.players[seat].space
            s = _turn_ended(state)
            return s.but(
                turn=Turn(seat, number, start, night), turns=number, votes=(), handed_self=()
            )
        case ev.PhaseEntered(phase=phase):
            assert state.turn is not None
            return state.but(turn=state.turn.but(phase=phase))
        case ev.CarDriven(seat=seat, path=path, hours=hours):
            assert state.turn is not None
            s = _set_player(state, state.players[seat].but(car=path[-1]))
            return s.but(turn=state.turn.but(path=path, drive_hours=hours))
        case ev.CarMoved(seat=seat, block=block):
            return _set_player(state, state.players[seat].but(car=block))
        case ev.ForcePlayed(seat=seat, card=card):
            return _force_played(state, seat, card)
        case ev.ActionTaken():
            return _action_taken(state, event)
        case ev.TrackerAdvanced(seat=seat, space=space, lines=lines):
            s = _set_player(state, state.players[seat].but(space=space))
            turn = state.turn.but(landed=space) if state.turn is not None else None
            return s.but(
                order=_to_top(state.order, seat), lines=state.lines | set(lines), turn=turn
            )
        case ev.TrackersPushed():
            return _pushed(state)
        case ev.MarkerMoved(space=space):
            return state.but(marker=space)
        case ev.SlotsDealt(slots=slots, salts=salts):
            k = state.deals
            labels = (look_label(k, i) for i in range(1, len(salts) + 1))
            dealt = tuple(zip(labels, slots, salts, strict=False))
            return state.but(deals=k + 1, dealt=state.dealt + dealt)
        case ev.MobsterRolled() | ev.BackupCalled() | ev.EventResolved():
            return state
        case ev.EventExpired() | ev.SuspectGainLost() | ev.ForceGainLost():
            return state
        case ev.PlayerEnded(seat=seat):
            p = state.players[seat]
            bag = state.bag
            for color in (*p.arrests, *((p.holding,) if p.holding else ())):
                bag = _bag(bag, color, 1)
            s = _set_player(state, p.but(ended=True, arrests=(), holding=None))
            return s.but(bag=bag)
        case ev.MobsterPlaced(block=block, color=color):
            s = _set_mobster(state, block, color)
            return s.but(bag=_bag(state.bag, color, -1))
        case ev.MobsterApprehended(block=block, color=color):
            s = _set_mobster(state, block, None)
            return s.but(bag=_bag(state.bag, color, 1))
        case ev.MobsterArrested(seat=seat, block=block, color=color):
            p = state.players[seat]
            arrests = tuple(c for c in COLORS if c in p.arrests or c == color)
            return _set_mobster(_set_player(state, p.but(arrests=arrests)), block, None)
        case ev.ArrestSetCompleted(seat=seat):
            p = state.players[seat]
            bag = state.bag
            for color in p.arrests:
                bag = _bag(bag, color, 1)
            return _set_player(state, p.but(arrests=())).but(bag=bag)
        case ev.MobsterHeld(seat=seat, block=block, color=color):
            p = state.players[seat].but(holding=color, held_on_turn=state.turns)
            return _set_mobster(_set_player(state, p), block, None)
        case ev.HeldMobsterReleased(seat=seat):
            p = state.players[seat]
            bag = _bag(state.bag, p.holding, 1) if p.holding else state.bag
            return _set_player(state, p.but(holding=None)).but(bag=bag)
        case ev.BadgeRaised(seat=seat, level=level):
            return _set_player(state, state.players[seat].but(badge=level))
        case ev.InformantTaken(seat=seat, row=row):
            p = state.players[seat]
            s = _set_player(state, p.but(informants=(*p.informants, row)))
            return s.but(informants=state.informants - {row})
        case ev.WitnessTaken(seat=seat, col=col):
            p = state.players[seat]
            s = _set_player(state, p.but(witnesses=(*p.witnesses, col)))
            return s.but(witnesses=state.witnesses - {col})
        case ev.SearchTokenFlipped(seat=seat, block=block):
            return _set_token(state, _token(state, block).but(place=Place.MAT, holder=seat))
        case ev.StakeoutSucceeded(seat=seat, block=block):
            return _set_token(state, _token(state, block).but(place=Place.MAT, holder=seat))
        case ev.StakeoutFailed():
            return state
        case ev.TokenPeeked(seat=seat, block=block):
            p = state.players[seat]
            return _set_player(state, p.but(known_tokens=p.known_tokens | {block}))
        case ev.HoldingTokenTaken(seat=seat, color=color):
            p = state.players[seat]
            s = _set_player(state, p.but(holding_tokens=(*p.holding_tokens, color)))
            return s.but(hq_holding=tuple(c for c in state.hq_holding if c != color))
        case ev.EvidenceSolved(evidence=evidence, seat=seat):
            return state.but(solved=(*state.solved, (evidence, seat)))
        case ev.CityTokensRemoved(kind=kind):
            tokens = tuple(
                t.but(place=Place.REMOVED)
                if t.kind == kind and t.place == Place.CITY
                else t
                for t in state.tokens
            )
            return state.but(tokens=tokens)
        case ev.TraitLearned(seat=seat, evidence=evidence):
            p = state.players[seat]
            return _set_player(state, p.but(learned=(*p.learned, evidence)))
        case ev.SuspectDrawn(seat=seat, card=card):
            p = state.players[seat]
            s = _set_player(state, p.but(suspects=(*p.suspects, card)))
            return s.but(suspect_deck=state.suspect_deck[1:])
        case ev.SuspectSeen(seat=seat, target=target, card=card, label=label, salt=salt):
            s = state.but(looks=(*state.looks, (seat, target)))
            if card is None:
                return s
            looker = s.players[seat]
            if label is not None and salt is not None:
                looker = looker.but(look_proofs=(*looker.look_proofs, (label, card, salt)))
            if card not in looker.seen:
                looker = looker.but(seen=(*looker.seen, card))
            s = _set_player(s, looker)
            owner = s.players[target]
            return _set_player(s, owner.but(shown=(*owner.shown, (seat, card))))
        case ev.SuspectRemoved(card=card):
            return state.but(
                suspect_deck=state.suspect_deck[1:],
                suspects_out=(*state.suspects_out, card),
            )
        case ev.ForceDeckShuffled(cards=cards):
            return state.but(force_deck=cards, force_discard=())
        case ev.ForceGained(seat=seat, card=card, kept=kept):
            s = state.but(force_deck=state.force_deck[1:])
            if not kept:
                return s.but(force_discard=(*s.force_discard, card))
            return _to_hand(s, seat, card)
        case ev.ForceDiscarded(seat=seat, card=card, position=position):
            s = _from_hand(state, seat, position)
            return s.but(force_discard=(*s.force_discard, card))
        case ev.PoolRevealed(cards=cards):
            return state.but(pool=(*state.pool, *cards), force_deck=state.force_deck[len(cards) :])
        case ev.PoolCardTaken(seat=seat, card=card, kept=kept):
            s = state.but(pool=_without(state.pool, state.pool.index(card)))
            if not kept:
                return s.but(force_discard=(*s.force_discard, card))
            return _to_hand(s, seat, card)
        case ev.PoolDiscarded():
            return state.but(pool=(), force_discard=(*state.force_discard, *state.pool))
        case ev.EventDeckShuffled(cards=cards):
            return state.but(event_deck=cards, event_discard=())
        case ev.EventReplaced(card=card):
            return state.but(
                event_deck=state.event_deck[1:],
                event_discard=(*state.event_discard, card),
            )
        case ev.EventPlaced(card=card, slot=slot, deadline=deadline):
            s = state.but(event_deck=state.event_deck[1:])
            return _set_slot(s, slot, ActiveEvent(card, deadline=deadline))
        case ev.EventTokenPlaced(slot=slot, block=block):
            a = state.slots[slot - 1]
            assert a is not None
            return _set_slot(state, slot, a.but(tokens=(*a.tokens, block)))
        case ev.CardMobsterAdded(slot=slot, color=color):
            a = state.slots[slot - 1]
            assert a is not None
            s = _set_slot(state, slot, a.but(card_mobsters=(*a.card_mobsters, color)))
            return s.but(bag=_bag(state.bag, color, -1))
        case ev.EventTokenRemoved(slot=slot, block=block, seat=seat):
            a = state.slots[slot - 1]
            assert a is not None
            left = tuple(b for b in a.tokens if b != block)
            return _set_slot(state, slot, a.but(tokens=left, removed_by=(*a.removed_by, seat)))
        case ev.EventDiscarded(slot=slot):
            a = state.slots[slot - 1]
            assert a is not None
            bag = state.bag
            for color in a.card_mobsters:
                bag = _bag(bag, color, 1)
            s = _set_slot(state, slot, None)
            return s.but(bag=bag, event_discard=(*state.event_discard, a.card))
        case ev.AccusationOpened():
            return state.but(status=Status.ACCUSING, turn=None, handed_self=())
        case ev.Accused(seat=seat, suspect=suspect):
            p = state.players[seat].but(accused=True, accusation=suspect)
            return _set_player(state, p)
        case ev.TurnTimedOut(seat=seat):
            assert state.turn is not None
            p = state.players[seat]
            s = _set_player(state, p.but(strikes=p.strikes + 1))
            return s.but(turn=state.turn.but(timed_out=True))
        case ev.SeatHandedOver(seat=seat, reason=reason):
            s = _set_player(state, state.players[seat].but(auto=reason))
            handed = (*state.handed_self, seat) if reason == "self" else state.handed_self
            return s.but(votes=tuple(v for v in state.votes if seat not in v), handed_self=handed)
        case ev.SeatTakenBack(seat=seat):
            s = _set_player(state, state.players[seat].but(auto="", strikes=0))
            return s.but(votes=tuple(v for v in state.votes if v[1] != seat))
        case ev.TimeExtended(seat=seat, seconds=seconds):
            assert state.turn is not None
            p = state.players[seat]
            s = _set_player(state, p.but(bank=p.bank - seconds))
            return s.but(turn=state.turn.but(extended=state.turn.extended + seconds))
        case ev.HandoverVoted(seat=seat, target=target):
            return state.but(votes=(*state.votes, (seat, target)))
        case ev.AutoPassSet(seat=seat, on=on):
            return _set_player(state, state.players[seat].but(auto_pass=on))
        case ev.GameEnded(winners=winners, team_accusation=team_accusation):
            return state.but(status=Status.OVER, winners=winners, team_accusation=team_accusation)
        case ev.GameStopped(reason=reason):
            return state.but(
                status=Status.OVER, winners=(), stopped=reason, agenda=(), pending=(), votes=()
            )
        case _:
            assert_never(event)


def _turn_ended(state: State) -> State:
    """A turn its player ended themself clears their timed-out strikes."""
    turn = state.turn
    if turn is None or turn.timed_out or not state.players[turn.seat].strikes:
        return state
    return _set_player(state, state.players[turn.seat].but(strikes=0))


def _started(state: State, e: ev.GameStarted) -> State:
    coop = e.mode == Mode.COOPERATIVE
    players = tuple(
        Player(
            seat=i,
            ability=ability,
            time_waivers=(
                eff.uses if isinstance(eff := ABILITIES[ability].effect, TimeWaivers) else 0
            ),
            name=e.names[i] if e.names else "",
            bot=e.bots[i] if e.bots else "",
            bank=e.clock[1] if e.clock else 0,
            role=e.roles[i] if e.roles else "",
        )
        for i, ability in enumerate(e.abilities)
    )
    s = state.but(
        players=players,
        mode=Mode.COOPERATIVE if coop else Mode.SOLO if e.players == 1 else Mode.COMPETITIVE,
    )
    red, blue, gray = (MOBSTERS_PER_COLOR - n for n in s.removed)
    return s.but(
        status=Status.PLAYING,
        marker=MARKER_START if coop else None,
        layout=e.layout,
        mobsters=(None,) * (GRID * GRID),
        bag=(red, blue, gray),
        informants=frozenset(range(1, GRID + 1)),
        witnesses=frozenset(range(1, GRID + 1)),
        hq_holding=COLORS,
        tokens=e.tokens,
        murderer=e.murderer,
        suspect_deck=e.suspect_deck,
        deck_order=e.suspect_deck,
        commitments=e.commitments,
        salts=e.salts,
        event_deck=e.event_deck,
        force_deck=e.force_deck,
        order=e.order,
        clock=e.clock,
        rules=e.rules,
    )


def _to_hand(state: State, seat: int, card: str) -> State:
    """The card to the seat's Force hand: the team's one hand when two co-op officers share it."""
    if shared_force(state):
        return state.but(team_force=(*state.team_force, card))
    p = state.players[seat]
    return _set_player(state, p.but(force=(*p.force, card)))


def _from_hand(state: State, seat: int, position: int) -> State:
    if shared_force(state):
        return state.but(team_force=_without(state.team_force, position))
    p = state.players[seat]
    return _set_player(state, p.but(force=_without(p.force, position)))


def _force_played(state: State, seat: int, card: str) -> State:
    s = _from_hand(state, seat, hand(state, seat).index(card))
    s = s.but(force_discard=(*s.force_discard, card))
    turn = s.turn
    assert turn is not None
    turn = turn.but(played=(*turn.played, card))
    match FORCE_CARDS[card].effect:
        case IgnoreTimeOfDay():
            turn = turn.but(ignore_time=True)
        case SkipRoll():
            turn = turn.but(skip_roll=True)
        case ExtraAction():
            turn = turn.but(extra_action=True)
        case CostReduction(hours=h):
            turn = turn.but(cost_reduction=turn.cost_reduction + h)
        case RiskBonus(bonus=b):
            turn = turn.but(risk_bonus=turn.risk_bonus + b)
        case _:
            pass
    return s.but(turn=turn)


def _action_taken(state: State, e: ev.ActionTaken) -> State:
    turn = state.turn
    assert turn is not None
    risky = ACTIONS[Action(e.action)].risk is not None
    turn = turn.but(
        actions=(*turn.actions, e.action),
        action_hours=turn.action_hours + e.hours,
        ignore_time=False,
        cost_reduction=0,
        risk_bonus=0 if risky else turn.risk_bonus,
    )
    s = state.but(turn=turn)
    if e.night_shift:
        p = s.players[e.seat]
        s = _set_player(s, p.but(time_waivers=p.time_waivers - 1))
    return s


def _pushed(state: State) -> State:
    movers = [p.seat for p in state.players if p.space < HOURS]
    players = tuple(
        p.but(space=p.space + 1) if p.seat in movers else p for p in state.players
    )
    order = (*(s for s in state.order if s not in movers), *(s for s in state.order if s in movers))
    return state.but(players=players, order=order)

