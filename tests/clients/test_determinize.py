"""The determinizer (echoridge_client.determinize): worlds sampled from one seat's view.

Real games are played in-process with the bot policies (as in test_policies.py); at every
position with no decision owed, each seat's view is determinized and the sample checked against
the view (its own view of the sample is the same view: every field, commitments and proofs
included, since the salts the seat holds proofs of are kept) and against the true state (every
fact the seat knows is respected; the true world is among those sampled).
"""

from __future__ import annotations

import copy
import functools
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from echoridge.simulate import acting_seat, game_seed
from echoridge_client.determinize import Determinizer, Unsupported, sample
from echoridge_client.policies import GreedyPolicy, Policy, RandomPolicy
from echoridge_rules import Rng, Seat, State, Status, decide, evolve, legal_actions, view
from echoridge_rules.carddata import EVENT_IDS, FORCE_DECK
from echoridge_rules.commands import Command, StartGame
from echoridge_rules.data import (
    EVIDENCE_ORDER,
    RULES_VERSION,
    SEARCH_TOKENS,
    STAKEOUT_VALUES,
    SUSPECT_IDS,
    SUSPECTS,
)
from echoridge_rules.model import ClueKind, Place
from echoridge_rules.queries import hand, knows_trait, shared_force, team_known_tokens
from echoridge_rules.serial import load, to_plain

MAX_COMMANDS = 5_000
# (players, mode, lineup, rules): competitive 1-4 seats (1: solo) and co-op 2-4
TABLES = (
    ("g", "", 2),
    ("r", "", RULES_VERSION),
    ("gr", "", RULES_VERSION),
    ("rgg", "", 2),
    ("grgr", "", RULES_VERSION),
    ("gggg", "", 2),
    ("gr", "cooperative", RULES_VERSION),
    ("ggr", "cooperative", 2),
    ("grgg", "cooperative", RULES_VERSION),
)
GAMES = 2


def _policies(lineup: str, game: int) -> list[Policy]:
    kinds: dict[str, Callable[[bytes], Policy]] = {"g": GreedyPolicy, "r": RandomPolicy}
    return [kinds[k](f"determinize/{game}/{seat}".encode()) for seat, k in enumerate(lineup)]


@functools.cache
def _game(lineup: str, mode: str, rules: int, game: int) -> tuple[State, ...]:
    """Every state of one game at which the game waited for a command, in order."""
    rng = Rng(game_seed(900 + len(lineup), game), f"determinize/{mode}")
    policies = _policies(lineup, game)
    state = State()
    cmd = StartGame(len(lineup), mode=mode, rules=rules)
    states: list[State] = []
    for _ in range(MAX_COMMANDS):
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
        seat = acting_seat(state)
        if seat is None:
            assert state.status is Status.OVER
            return tuple(states)
        states.append(state)
        v = view(state, Seat(seat))
        cmd = load(policies[seat].choose(v, v["you"]["legal"]))
    raise AssertionError("the game did not end")


def _supported(state: State) -> bool:
    return state.status is Status.PLAYING and not state.pending


def positions(step: int = 1) -> Iterator[tuple[State, int]]:
    """(true state, viewing seat) at every ``step``-th supported position of every game."""
    for lineup, mode, rules in TABLES:
        for game in range(GAMES):
            states = [s for s in _game(lineup, mode, rules, game) if _supported(s)]
            for state in states[::step]:
                for seat in range(len(state.players)):
                    yield state, seat


# --- the sample's view is the view ----------------------------------------------------------


def test_the_sample_looks_the_same_to_the_seat() -> None:
    """Every field, commitments and proofs included; and its legal commands are the view's."""
    count = 0
    for state, seat in positions():
        v = view(state, Seat(seat))
        s = sample(v, random.Random(count), rules=state.rules)
        assert view(s, Seat(seat)) == v
        assert [to_plain(c) for c in legal_actions(s, seat)] == v["you"]["legal"]
        count += 1
    assert count > 1_000


def test_supported_positions_have_an_empty_agenda_and_the_turn_is_inferred_exactly() -> None:
    """No view shows the agenda: it is empty whenever no decision is owed (``engine.run``);
    the turn's unshown fields (Double Shift, Judge's Signature, Rubber Stamp, Telephoto,
    Checkpoint, where the tracker landed) come out as the engine has them."""
    played = Counter[str]()
    for state, seat in positions():
        assert state.agenda == ()
        assert state.turn is not None
        s = Determinizer(view(state, Seat(seat)), rules=state.rules).sample(random.Random(0))
        assert s.turn == state.turn
        assert s.agenda == () and s.pending == ()
        active = state.turn.seat
        if state.players[active].holding is not None:
            # Bring in step 2 may follow only on a later turn: the rules read no more than that
            held = state.players[active].held_on_turn >= state.turn.number
            assert (s.players[active].held_on_turn >= state.turn.number) == held
        if seat == active:
            played.update(state.turn.played)
    assert len(played) >= 5, played  # the games played a good many kinds of Force card


# --- what the seat knows is respected -------------------------------------------------------


def _known_cards(state: State, seat: int) -> set[str]:
    cards = set(state.players[seat].suspects) | set(state.players[seat].seen)
    if state.mode.value == "cooperative":
        cards |= {c for p in state.players for c in p.suspects}
    return cards


def _holder(state: State, card: str) -> int | None:
    return next((p.seat for p in state.players if card in p.suspects), None)


def test_samples_respect_every_known_fact() -> None:
    truth_sampled = 0
    narrow = 0
    for i, (state, seat) in enumerate(positions(step=7)):
        v = view(state, Seat(seat))
        d = Determinizer(v, rules=state.rules)
        assert state.murderer in d.candidates  # never wrongly excluded
        known = _known_cards(state, seat)
        traits = {
            e: SUSPECTS[state.murderer].trait(e)
            for e in EVIDENCE_ORDER
            if knows_trait(state, seat, e)
        }
        rng = random.Random(i)
        murderers = Counter[str]()
        for _ in range(40):
            s = d.sample(rng)
            murderers[s.murderer] += 1
            assert s.murderer not in known
            assert all(SUSPECTS[s.murderer].trait(e) == t for e, t in traits.items())
            # every Suspect card is in exactly one place
            places = [
                [s.murderer],
                list(s.suspect_deck),
                list(s.suspects_out),
                *(list(p.suspects) for p in s.players),
            ]
            assert sorted(c for cards in places for c in cards) == sorted(SUSPECT_IDS)
            assert s.deck_order[len(s.deck_order) - len(s.suspect_deck) :] == s.suspect_deck
            assert len(s.deck_order) == len(SUSPECT_IDS) - 1
            assert s.murderer not in s.deck_order
            for p, q in zip(s.players, state.players, strict=True):
                assert len(p.suspects) == len(q.suspects)
                assert len(hand(s, p.seat)) == len(hand(state, q.seat))
            assert len(s.suspect_deck) == len(state.suspect_deck)
            assert len(s.suspects_out) == len(state.suspects_out)
            for card in state.players[seat].seen:  # a seen card stays in its holder's hand
                assert _holder(s, card) == _holder(state, card)
            assert s.players[seat].suspects == state.players[seat].suspects
            if state.mode.value == "cooperative":
                assert [p.suspects for p in s.players] == [p.suspects for p in state.players]
            # Force and Event cards: every card in one place; the seat's hands as they are
            force = [*s.force_deck, *s.force_discard, *s.pool]
            if shared_force(s):
                force += s.team_force
            else:
                force += [c for p in s.players for c in p.force]
            assert Counter(force) == Counter(FORCE_DECK)
            assert hand(s, seat) == hand(state, seat)
            assert len(s.force_deck) == len(state.force_deck)
            events = [*s.event_deck, *s.event_discard, *(a.card for a in s.slots if a)]
            assert sorted(events) == sorted(EVENT_IDS)
            # clue tokens: the §2 mix, the same places, every value the seat knows
            # (which mat holds which of two equal tokens is not shown: only each mat's values)
            assert [(t.block, t.place) for t in s.tokens if t.place is not Place.REMOVED] == [
                (t.block, t.place) for t in state.tokens if t.place is not Place.REMOVED
            ]
            assert {t.block for t in s.tokens} == {t.block for t in state.tokens}
            mix = Counter((t.kind, t.value) for t in s.tokens)
            assert mix == Counter(
                [(ClueKind.SEARCH, int(ok)) for ok in SEARCH_TOKENS]
                + [(ClueKind.STAKEOUT, x) for x in STAKEOUT_VALUES]
            )
            true = {t.block: t for t in state.tokens}
            for t in s.tokens:
                if t.place is not Place.CITY:
                    assert t.kind is true[t.block].kind or t.place is Place.REMOVED
                else:
                    assert t.kind is true[t.block].kind
                if t.place is Place.MAT or t.block in team_known_tokens(state, seat):
                    assert (t.kind, t.value) == (true[t.block].kind, true[t.block].value)
        if murderers[state.murderer]:
            truth_sampled += 1
        if len(d.candidates) <= 3:
            narrow += 1
            assert murderers[state.murderer] > 0  # 40 draws among at most 3
        assert set(murderers) <= set(d.candidates)
    assert truth_sampled > 0 and narrow > 0


def test_the_murderer_is_drawn_uniformly_among_the_candidates() -> None:
    state, seat = next((s, k) for s, k in positions(step=5) if s.turns > 20)
    d = Determinizer(view(state, Seat(seat)), rules=state.rules)
    rng = random.Random(5)
    n = 400 * len(d.candidates)
    counts = Counter(d.sample(rng).murderer for _ in range(n))
    assert set(counts) == set(d.candidates)
    assert all(250 < c < 550 for c in counts.values()), counts


# --- playing on ------------------------------------------------------------------------------


def _play_on(s: State, seed: int) -> State:
    rng = Rng(game_seed(77, seed), "play-on")
    policies = [GreedyPolicy(f"play-on/{seed}/{i}".encode()) for i in range(len(s.players))]
    state = s
    for _ in range(MAX_COMMANDS):
        seat = acting_seat(state)
        if seat is None:
            return state
        v = view(state, Seat(seat))
        for event in decide(state, load(policies[seat].choose(v, v["you"]["legal"])), rng):
            state = evolve(state, event)
    raise AssertionError("the game did not end")


def test_games_play_on_from_samples_to_the_end() -> None:
    played = 0
    for i, (state, seat) in enumerate(positions(step=23)):
        if i % 3:
            continue
        s = sample(view(state, Seat(seat)), random.Random(i), rules=state.rules)
        end = _play_on(s, i)
        assert end.status is Status.OVER
        played += 1
    assert played >= 20


# --- it reads the view and nothing else -------------------------------------------------------


def test_the_same_view_and_seed_give_the_same_sample() -> None:
    for i, (state, seat) in enumerate(positions(step=31)):
        v = view(state, Seat(seat))
        a = sample(v, random.Random(i), rules=state.rules)
        b = sample(copy.deepcopy(v), random.Random(i), rules=state.rules)  # no identity cache
        c = Determinizer(v, rules=state.rules).sample(random.Random(i))
        assert a == b == c
        assert a.murderer in Determinizer(v, rules=state.rules).candidates
        # another world behind the same view (one sampled from it) gives the same sample
        world = sample(v, random.Random(i + 1), rules=state.rules)
        same = view(world, Seat(seat))
        assert same == v
        assert sample(same, random.Random(i), rules=state.rules) == a


def test_the_view_is_left_as_it_was() -> None:
    state, seat = next(positions(step=11))
    v = view(state, Seat(seat))
    before = copy.deepcopy(v)
    for k in range(5):
        sample(v, random.Random(k), rules=state.rules)
    assert v == before


# --- what it refuses ------------------------------------------------------------------------


def test_positions_it_cannot_rebuild_are_refused() -> None:
    lineup, mode, rules = TABLES[4]
    states = _game(lineup, mode, rules, 0)
    pending = next(s for s in states if s.pending)
    with pytest.raises(Unsupported, match="decision"):
        sample(view(pending, Seat(pending.pending[0].seat)), random.Random(0))
    waiting = next(s for s in states if s.pending and len(s.players) > 1)
    other = next(p.seat for p in waiting.players if p.seat != waiting.pending[0].seat)
    with pytest.raises(Unsupported):  # somebody else owes a decision
        sample(view(waiting, Seat(other)), random.Random(0))
    accusing = next(s for s in states if s.status is Status.ACCUSING)
    with pytest.raises(Unsupported):
        sample(view(accusing, Seat(0)), random.Random(0))
    start = next(s for s in states if _supported(s))
    no_proofs = copy.deepcopy(view(start, Seat(0)))
    no_proofs["commitments"] = {}
    with pytest.raises(Unsupported, match="commitments"):
        sample(no_proofs, random.Random(0))
    assert issubclass(Unsupported, ValueError)


# --- the turn's unshown fields, card by card ---------------------------------------------------


def _give(state: State, seat: int, card: str) -> State:
    """The state with one copy of ``card`` moved into ``seat``'s Force hand (from the deck, the
    discard pile or another hand): a consistent state to play the card from."""
    if card in state.force_deck:
        i = state.force_deck.index(card)
        state = state.but(force_deck=state.force_deck[:i] + state.force_deck[i + 1 :])
    elif card in state.force_discard:
        i = state.force_discard.index(card)
        state = state.but(force_discard=state.force_discard[:i] + state.force_discard[i + 1 :])
    else:
        owner = next(p for p in state.players if card in p.force)
        i = owner.force.index(card)
        players = list(state.players)
        players[owner.seat] = owner.but(force=owner.force[:i] + owner.force[i + 1 :])
        state = state.but(players=tuple(players))
    players = list(state.players)
    players[seat] = players[seat].but(force=(*players[seat].force, card))
    return state.but(players=tuple(players))


def _check_turn(state: State) -> None:
    assert state.turn is not None and not state.pending
    seat = state.turn.seat
    v = view(state, Seat(seat))
    s = sample(v, random.Random(3), rules=state.rules)
    assert s.turn == state.turn
    assert view(s, Seat(seat)) == v


def _run(state: State, cmd: Command, rng: Rng) -> State:
    for event in decide(state, cmd, rng):
        state = evolve(state, event)
    return state


def test_force_modifiers_of_both_actions_are_inferred() -> None:
    """Telephoto, Judge's Signature and Rubber Stamp before the first action, Double Shift, and
    the W2 cards after it: the sample's turn is the engine's at every step."""
    from echoridge_rules import commands as c
    from echoridge_rules.errors import RuleViolation

    rng = Rng(b"modifiers", "determinize")
    tried = 0
    for lineup, mode, rules in TABLES[2:6]:
        for state in _game(lineup, mode, rules, 0):
            if not _supported(state) or state.turn is None or state.turn.phase.value != "w1":
                continue
            if state.players[state.turn.seat].space > 30:
                continue
            seat = state.turn.seat
            tried += 1
            try:
                for card in ("telephoto", "judges_signature", "rubber_stamp"):
                    state = _give(state, seat, card)
                state = _run(state, c.PlayForce(seat, "telephoto"), rng)
                _check_turn(state)
                state = _run(state, c.PlayForce(seat, "judges_signature"), rng)
                _check_turn(state)
                state = _run(state, c.CoffeeBreak(seat), rng)  # not a risk action: Telephoto stays
                _check_turn(state)
                assert state.turn is not None and state.turn.risk_bonus == 2
                state = _give(state, seat, "double_shift")
                state = _run(state, c.PlayForce(seat, "double_shift"), rng)
                _check_turn(state)
                state = _run(state, c.PlayForce(seat, "rubber_stamp"), rng)
                _check_turn(state)
                state = _give(state, seat, "telephoto")
                state = _run(state, c.PlayForce(seat, "telephoto"), rng)
                _check_turn(state)
                assert state.turn is not None
                assert (state.turn.risk_bonus, state.turn.cost_reduction) == (4, 1)
                assert state.turn.extra_action and len(state.turn.actions) == 1
                action = next(
                    cmd for cmd in legal_actions(state, seat) if not isinstance(cmd, c.PlayForce)
                )
                state = _run(state, action, rng)
                turn = state.turn
                if not state.pending and state.status is Status.PLAYING and turn is not None:
                    _check_turn(state)  # (the next turn's, or the second action's W3)
                return
            except (RuleViolation, StopIteration):
                continue
    raise AssertionError(f"no position took the cards ({tried} tried)")
