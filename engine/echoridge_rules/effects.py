"""Gains and rewards: Badge and Interrogate (§6), Suspect gains and looks (§7.3), Force cards
(§9), event token removal and resolution (§11.2) and evidence solving (§7.2)."""

from __future__ import annotations

from echoridge_protocol.fairness import commit
from echoridge_rules import tasks as t
from echoridge_rules.board import Block
from echoridge_rules.carddata import EVENTS, LookUnseen, ResolveKind, Reward
from echoridge_rules.context import Ctx
from echoridge_rules.data import (
    BADGE_MAX,
    CLUES_NEEDED,
    EVIDENCE_ORDER,
    INTERROGATE_LEVELS,
    Evidence,
)
from echoridge_rules.decisions import (
    ChooseDiscard,
    ChooseGain,
    ChooseInterrogate,
    ChoosePeek,
    ChoosePoolCard,
    ChooseSlot,
    ChooseTrait,
)
from echoridge_rules.events import (
    BadgeRaised,
    CityTokensRemoved,
    EventResolved,
    EventTokenRemoved,
    EvidenceSolved,
    ForceDeckShuffled,
    ForceGained,
    ForceGainLost,
    PoolCardTaken,
    PoolDiscarded,
    PoolRevealed,
    SlotsDealt,
    SuspectDrawn,
    SuspectGainLost,
    SuspectSeen,
    TokenPeeked,
    TraitLearned,
)
from echoridge_rules.model import ClueKind, State
from echoridge_rules.proofs import look_label
from echoridge_rules.queries import (
    ability,
    car_counts,
    clues,
    face_down_tokens,
    hand,
    hand_limit,
    look_targets,
    shared_force,
    solo,
    tt_order,
    unknown_solved,
)

# --- Badge and Suspects --------------------------------------------------------------------------


def gain_badge(ctx: Ctx, seat: int) -> None:
    badge = ctx.state.players[seat].badge
    if badge >= BADGE_MAX:
        return
    ctx.emit(BadgeRaised(seat, badge + 1))
    if badge + 1 in INTERROGATE_LEVELS:
        ctx.push(t.InterrogateBonus(seat))


def draw_or_lose(ctx: Ctx, seat: int) -> None:
    if ctx.state.suspect_deck:
        ctx.emit(SuspectDrawn(seat, ctx.state.suspect_deck[0]))
    else:
        ctx.emit(SuspectGainLost(seat))


def interrogate_bonus(ctx: Ctx, seat: int) -> None:
    """§6: optional; with nobody to interrogate (and always in Solo) draw 1 Suspect instead.
    In co-op (§14) every Interrogate is "the team draws 1 Suspect" (``look_targets`` is empty)."""
    if solo(ctx.state) or not look_targets(ctx.state, seat):
        draw_or_lose(ctx, seat)
    else:
        ctx.ask(ChooseInterrogate(seat))


def gain_options(state: State, seat: int) -> tuple[bool, list[int]]:
    """(may draw, players who may be looked at) for a Suspect gain (§7.3, §13)."""
    can_draw = bool(state.suspect_deck)
    if solo(state):
        return can_draw, []
    return can_draw, look_targets(state, seat)


def suspect_gain(ctx: Ctx, seat: int) -> None:
    can_draw, targets = gain_options(ctx.state, seat)
    if can_draw and targets:
        ctx.ask(ChooseGain(seat))
    elif can_draw:
        draw_or_lose(ctx, seat)
    elif len(targets) == 1:
        ctx.push(t.Look(seat, targets[0]))
    elif targets:
        ctx.ask(ChooseGain(seat))
    else:
        ctx.emit(SuspectGainLost(seat))


def look(ctx: Ctx, seat: int, target: int, slot_one: bool = False) -> None:
    """Shuffle the target's cards into freshly committed face-down slots for the looker."""
    cards = ctx.state.players[target].suspects
    if isinstance(ability(ctx.state, seat), LookUnseen):
        seen = ctx.state.players[seat].seen
        cards = tuple(c for c in cards if c not in seen)
    if not cards:
        ctx.emit(SuspectSeen(seat, target, None))
        return
    slots = ctx.shuffle(cards)
    deal = ctx.state.deals
    salts = tuple(ctx.salt(look_label(deal, i)) for i in range(1, len(slots) + 1))
    ctx.emit(SlotsDealt(seat, target, slots, salts))
    commitments = tuple(
        commit(look_label(deal, i), card, salt)
        for i, (card, salt) in enumerate(zip(slots, salts, strict=True), start=1)
    )
    decision = ChooseSlot(seat, target, slots, deal, salts, commitments)
    if len(slots) == 1 or slot_one:
        see_slot(ctx, decision, 1)
    else:
        ctx.ask(decision)


def see_slot(ctx: Ctx, decision: ChooseSlot, slot: int) -> None:
    """The picked slot's card and its proof go to the looker (the owner is told the card)."""
    ctx.emit(
        SuspectSeen(
            decision.seat,
            decision.target,
            decision.slots[slot - 1],
            look_label(decision.deal, slot),
            decision.salts[slot - 1],
        )
    )


# --- Force cards ---------------------------------------------------------------------------------


def refill_force_deck(ctx: Ctx) -> bool:
    """Shuffle the discard pile into a new deck when the deck is empty; False if both are."""
    if ctx.state.force_deck:
        return True
    if not ctx.state.force_discard:
        return False
    ctx.emit(ForceDeckShuffled(ctx.shuffle(ctx.state.force_discard)))
    return True


def force_gain(ctx: Ctx, seat: int) -> None:
    if not refill_force_deck(ctx):
        ctx.emit(ForceGainLost(seat))
        return
    # §5.10: an ended player keeps the card too (``kept`` False only in games recorded
    # under rules v1, when it went to the discard pile).
    ctx.emit(ForceGained(seat, ctx.state.force_deck[0], True))
    ctx.push(t.DiscardDown(seat))


def discard_down(ctx: Ctx, seat: int) -> None:
    """The hand limit, which does not apply to an ended player (§5.10), but always to the
    co-op team's shared hand (§14), which the other officer still plays; the officer who gained
    the card chooses the discard."""
    p = ctx.state.players[seat]
    if (not p.ended or shared_force(ctx.state)) and len(hand(ctx.state, seat)) > hand_limit(
        ctx.state, seat
    ):
        ctx.ask(ChooseDiscard(seat, "hand_limit"))


def discard_one(ctx: Ctx, seat: int) -> None:
    """An expiry's DISCARD_F; an ended player's cards stay out of play (ruling 27)."""
    p = ctx.state.players[seat]
    if hand(ctx.state, seat) and not p.ended:
        ctx.ask(ChooseDiscard(seat, "expiry"))


def pool_pick(ctx: Ctx, seat: int) -> None:
    pool = ctx.state.pool
    if not pool:
        return
    if len(set(pool)) == 1:
        take_from_pool(ctx, seat, pool[0])
    else:
        ctx.ask(ChoosePoolCard(seat))


def take_from_pool(ctx: Ctx, seat: int, card: str) -> None:
    ctx.emit(PoolCardTaken(seat, card, True))  # kept, also by an ended player (§5.10)
    ctx.push(t.DiscardDown(seat))


def reveal_pool(ctx: Ctx, k: int) -> None:
    """POOL(k): reveal up to k cards, reshuffling the discard pile (not the pool) if needed."""
    revealed = 0
    while revealed < k and refill_force_deck(ctx):
        chunk = ctx.state.force_deck[: k - revealed]
        ctx.emit(PoolRevealed(chunk))
        revealed += len(chunk)


# --- event tokens and resolution -----------------------------------------------------------------


def nab_removals(state: State, block: Block) -> list[tuple[int, Block]]:
    """Tokens of NAB events on a block whose mobster was just apprehended."""
    out = []
    for i, a in enumerate(state.slots):
        if a is not None and EVENTS[a.card].resolve.kind is ResolveKind.NAB and block in a.tokens:
            out.append((i + 1, block))
    return out


def remove_tokens(ctx: Ctx, seat: int, removals: tuple[tuple[int, Block], ...]) -> None:
    """Effect step (2): remove tokens; each event left with none resolves, in slot order.  Its
    contributors: who removed a token earlier, and every other officer whose car counts
    (``car_counts``: from rules v3 a resting one's too) on a block whose token this removes."""
    resolving: list[t.RewardEvent] = []
    for slot in sorted({s for s, _ in removals}):
        active = ctx.state.slots[slot - 1]
        if active is None:
            continue
        blocks = [b for s, b in removals if s == slot and b in active.tokens]
        if not blocks:
            continue
        earlier = set(active.removed_by)
        for block in blocks:
            ctx.emit(EventTokenRemoved(slot, block, seat))
        after = ctx.state.slots[slot - 1]
        assert after is not None
        if after.tokens:
            continue
        present = {
            p.seat
            for p in ctx.state.players
            if p.car in blocks and car_counts(ctx.state, p) and not solo(ctx.state)
        }
        contributors = tuple(sorted((earlier | present) - {seat}))
        resolving.append(t.RewardEvent(slot, seat, contributors))
    ctx.push(*resolving)


def reward_event(ctx: Ctx, slot: int, resolver: int, contributors: tuple[int, ...]) -> None:
    """§11.2: rewards in Time Track order, then the card and its tokens are discarded."""
    active = ctx.state.slots[slot - 1]
    assert active is not None
    spec = EVENTS[active.card]
    ctx.emit(EventResolved(slot, resolver, contributors))
    gifts: list[t.Task] = []
    reward: Reward | None
    for seat in tt_order(ctx.state):
        if seat == resolver:
            reward = spec.resolver
        elif seat in contributors:
            reward = spec.contributors
        else:
            continue
        if reward is not None:
            gifts.append(t.GiveReward(seat, reward))
    pooled = any(isinstance(g, t.GiveReward) and g.reward is Reward.POOL for g in gifts)
    if pooled:
        reveal_pool(ctx, spec.pool)
    ctx.push(*gifts, t.DiscardEvent(slot), *((t.DiscardPool(),) if pooled else ()))


def give_reward(ctx: Ctx, seat: int, reward: Reward) -> None:
    match reward:
        case Reward.BADGE:
            ctx.push(t.GainBadge(seat))
        case Reward.FORCE:
            ctx.push(t.ForceGain(seat))
        case Reward.SUSPECT:
            ctx.push(t.SuspectGain(seat))
        case Reward.INTERROGATE:
            ctx.push(t.InterrogateBonus(seat))
        case Reward.PEEK:
            tokens = face_down_tokens(ctx.state)
            if len(tokens) == 1:
                ctx.emit(TokenPeeked(seat, tokens[0].block))
            elif tokens:
                ctx.ask(ChoosePeek(seat))
        case Reward.TRAIT:
            options = unknown_solved(ctx.state, seat)
            if not options:
                ctx.push(t.SuspectGain(seat))
            elif len(options) == 1:
                ctx.emit(TraitLearned(seat, options[0]))
            else:
                ctx.ask(ChooseTrait(seat))
        case Reward.POOL:
            pool_pick(ctx, seat)


def discard_pool(ctx: Ctx) -> None:
    if ctx.state.pool:
        ctx.emit(PoolDiscarded())


# --- evidence ------------------------------------------------------------------------------------

_CITY_KIND = {Evidence.FORENSICS: ClueKind.SEARCH, Evidence.GETAWAY: ClueKind.STAKEOUT}


def solve_evidence(ctx: Ctx, seat: int) -> None:
    """Effect step (3): the collector of the final clue takes the Evidence token and learns the
    trait; every player holding a clue of that kind gains 1 Suspect, in Time Track order."""
    gains: list[t.Task] = []
    solved = {e for e, _ in ctx.state.solved}
    for evidence in EVIDENCE_ORDER:
        if evidence in solved:
            continue
        players = ctx.state.players
        if sum(clues(ctx.state, p, evidence) for p in players) < CLUES_NEEDED[evidence]:
            continue
        ctx.emit(EvidenceSolved(evidence, seat))
        kind = _CITY_KIND.get(evidence)
        if kind is not None and any(
            tok.kind is kind for tok in face_down_tokens(ctx.state)
        ):
            ctx.emit(CityTokensRemoved(kind))
        gains.extend(
            t.SuspectGain(s)
            for s in tt_order(ctx.state)
            if clues(ctx.state, ctx.state.players[s], evidence) > 0
        )
    ctx.push(*gains)

