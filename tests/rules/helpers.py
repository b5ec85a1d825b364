"""Given/when/then helpers for rules tests.

``given(...)`` builds a started game with an empty city and lets a test set the scene; ``turn_of``
begins the next turn through the engine; ``when`` sends one command with scripted random draws and
returns the new state and the events.  Dice are scripted as die faces with ``die(n)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from echoridge_rules import Rng, State, decide, evolve, fold
from echoridge_rules import commands as c
from echoridge_rules.board import index
from echoridge_rules.carddata import ABILITIES, TimeWaivers
from echoridge_rules.context import Ctx
from echoridge_rules.data import COLORS, RULES_VERSION, Color
from echoridge_rules.engine import run
from echoridge_rules.events import Continued, Event
from echoridge_rules.flow import next_turn
from echoridge_rules.model import ActiveEvent, ClueKind, ClueToken

SEED = b"\x07" * 32


@dataclass
class Scripted:
    """Randomness for tests: the scripted values first (each checked against its bound), then
    the real generator.  ``values`` are raw draws in range(bound)."""

    values: list[int] = field(default_factory=list)
    fallback: Rng = field(default_factory=lambda: Rng(SEED, "test"))
    used: list[tuple[int, int]] = field(default_factory=list)  # (bound, value) of each draw

    def below(self, index: int, bound: int) -> int:
        if self.values:
            value = self.values.pop(0)
            assert 0 <= value < bound, f"scripted draw {value} out of range({bound})"
        else:
            value = self.fallback.below(index, bound)
        self.used.append((bound, value))
        return value

    def salt(self, label: str) -> bytes:
        return self.fallback.salt(label)


def die(face: int) -> int:
    """The raw draw that rolls this die face."""
    assert 1 <= face <= 6
    return face - 1


def started(
    players: int = 4,
    seed: bytes = SEED,
    mode: str = "",
    roles: Sequence[str] = (),
    rules: int = RULES_VERSION,
) -> State:
    """A real started game, before its first turn (``mode`` "cooperative": the co-op game with
    these roles by seat, or drawn ones), under the current rules unless ``rules`` says."""
    start = c.StartGame(players, mode=mode, roles=tuple(roles), rules=rules)
    return fold(decide(State(), start, Rng(seed, "test")))


def given(
    players: int = 4,
    abilities: Sequence[str] | None = None,
    spaces: Mapping[int, int] | None = None,
    order: Sequence[int] | None = None,
    cars: Mapping[int, tuple[int, int]] | None = None,
    mobsters: Mapping[tuple[int, int], str] | None = None,
    tokens: Iterable[tuple[tuple[int, int], str, int]] | None = None,
    suspects: Mapping[int, Sequence[str]] | None = None,
    force: Mapping[int, Sequence[str]] | None = None,
    seed: bytes = SEED,
    mode: str = "",
    roles: Sequence[str] = (),
    rules: int = RULES_VERSION,
) -> State:
    """A started game with an empty city, then the scene: abilities (default Quartermaster, which
    changes no example), tracker spaces and stack order (bottom first), cars, mobsters, the clue
    tokens in the city (block, "search"/"stakeout", value), Suspect hands and Force hands.
    ``mode``, ``roles`` and ``rules`` as for ``started``; the co-op bag lacks the §14 mobsters."""
    state = started(players, seed, mode, roles, rules)
    bag = tuple(5 - n for n in state.removed)
    state = replace(state, mobsters=(None,) * 25, bag=(bag[0], bag[1], bag[2]), turn=None,
                    turns=0, agenda=(), pending=())
    abilities = abilities or ["quartermaster"] * players
    new_players = []
    for p, ability in zip(state.players, abilities, strict=True):
        eff = ABILITIES[ability].effect
        uses = eff.uses if isinstance(eff, TimeWaivers) else 0
        p = replace(p, ability=ability, time_waivers=uses)
        if spaces and p.seat in spaces:
            p = replace(p, space=spaces[p.seat])
        if cars and p.seat in cars:
            p = replace(p, car=cars[p.seat])
        new_players.append(p)
    state = replace(state, players=tuple(new_players))
    if order is not None:
        state = replace(state, order=tuple(order))
    elif spaces:
        state = replace(state, order=tuple(range(players)))
    if mobsters:
        state = place_mobsters(state, mobsters)
    if tokens is not None:
        state = replace(state, tokens=tuple(
            ClueToken(block, ClueKind(kind), value) for block, kind, value in tokens
        ))
    if suspects:
        state = deal_suspects(state, suspects)
    if force:
        state = deal_force(state, force)
    return state


def player(state: State, seat: int, **changes: object) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)  # type: ignore[arg-type]
    return replace(state, players=tuple(players))


def place_mobsters(state: State, mobsters: Mapping[tuple[int, int], str]) -> State:
    cells = list(state.mobsters)
    bag = list(state.bag)
    for block, color in mobsters.items():
        col = Color(color)
        cells[index(block)] = col
        bag[COLORS.index(col)] -= 1
    return replace(state, mobsters=tuple(cells), bag=(bag[0], bag[1], bag[2]))


def deal_suspects(state: State, hands: Mapping[int, Sequence[str]]) -> State:
    """Give these Suspect cards to these players, taking them out of the deck (the murderer
    is moved to a card nobody was given if needed)."""
    given_cards = {card for cards in hands.values() for card in cards}
    murderer = state.murderer
    deck = [s for s in state.suspect_deck if s not in given_cards]
    if murderer in given_cards:
        murderer = deck.pop()
    for seat, cards in hands.items():
        state = player(state, seat, suspects=tuple(cards))
    return replace(state, suspect_deck=tuple(deck), murderer=murderer)


def deal_force(state: State, hands: Mapping[int, Sequence[str]]) -> State:
    deck = list(state.force_deck)
    for seat, cards in hands.items():
        for card in cards:
            deck.remove(card)
        state = player(state, seat, force=tuple(cards))
    return replace(state, force_deck=tuple(deck))


def with_event(
    state: State,
    slot: int,
    card: str,
    tokens: Sequence[tuple[int, int]] = (),
    removed_by: Sequence[int] = (),
    deadline: int | None = None,
    card_mobsters: Sequence[str] = (),
) -> State:
    """An active event in a slot (taken out of the event deck)."""
    slots = list(state.slots)
    slots[slot - 1] = ActiveEvent(
        card, tuple(tokens), tuple(removed_by), tuple(Color(m) for m in card_mobsters), deadline
    )
    bag = list(state.bag)
    for m in card_mobsters:
        bag[COLORS.index(Color(m))] -= 1
    deck = tuple(e for e in state.event_deck if e != card)
    return replace(state, slots=tuple(slots), event_deck=deck, bag=(bag[0], bag[1], bag[2]))


def events_on_top(state: State, *cards: str) -> State:
    """Put these event cards on top of the Event deck, in this order."""
    rest = tuple(e for e in state.event_deck if e not in cards)
    return replace(state, event_deck=(*cards, *rest))


def force_on_top(state: State, *cards: str) -> State:
    """Put these Force cards on top of the Force deck, in this order."""
    rest = list(state.force_deck)
    for card in cards:
        rest.remove(card)
    return replace(state, force_deck=(*cards, *rest))


# The windows of §9 in which each Force card may be played, read with ruling 2 (a W2 card may
# be played at W1 before the Drive).  Written out here so the tests do not read data.py.
CARD_WINDOWS: dict[str, set[str]] = {
    "code_three": {"w1"},
    "radio_car": {"w1"},
    "judges_signature": {"w1", "w2"},
    "tip_line": {"w1", "w2", "w3", "w4"},
    "checkpoint": {"w4"},
    "double_shift": {"w3"},
    "rubber_stamp": {"w1", "w2"},
    "telephoto": {"w1", "w2"},
    "squad_wagon": {"w1", "w2"},
    "jailhouse_deal": {"w1", "w2", "w3", "w4"},
}


def turn_of(state: State, seat: int | None = None) -> State:
    """Begin the next turn through the engine (checking it is ``seat``'s, if given)."""
    ctx = Ctx(state, Rng(SEED, "test"))
    next_turn(ctx)
    run(ctx)
    assert ctx.state.turn is not None, "nobody has a turn"
    if seat is not None:
        assert ctx.state.turn.seat == seat, f"turn of {ctx.state.turn.seat}, not {seat}"
    return ctx.state


def when(
    state: State, command: c.Command, draws: Sequence[int] = ()
) -> tuple[State, list[Event]]:
    """Send one command with these raw random draws first; return the new state and events.
    The new state is folded from the events, so every test also checks decide against evolve."""
    rng = Scripted(list(draws))
    events = decide(state, command, rng)  # type: ignore[arg-type]
    assert not rng.values, f"scripted draws left unused: {rng.values}"
    after = state
    for e in events:
        after = evolve(after, e)
    return after, events


def kinds(events: Iterable[Event]) -> list[str]:
    return [type(e).__name__ for e in events if not isinstance(e, Continued)]


def of_type(events: Iterable[Event], cls: type) -> list[Event]:
    return [e for e in events if isinstance(e, cls)]
