"""Non-interference for the game log: a viewer's log entries of a version are unchanged when
everything that viewer may not know is changed, both in the state after the version (as the view
test does) and in the version's events.  What is secret in an event is said here, from the rules
(rules.md §15), independently of rules/log.py's audiences."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from hypothesis import given

from echoridge.rules import SPECTATOR, Seat, Status
from echoridge.rules import events as ev
from echoridge.rules.data import FORCE_DECK, SUSPECT_IDS
from echoridge.rules.log import entries_for, told
from tests.rules.test_properties import game_params, perturb_secrets, play_game, props


def scramble(event: ev.Event, viewer: int | None, r: random.Random) -> ev.Event:
    """The event with every field ``viewer`` may not know replaced by some other value."""
    def other_seat(seat: int) -> bool:
        return viewer is None or seat != viewer

    match event:
        case ev.Drawn():
            return replace(event, value=r.randrange(event.bound))
        case ev.GameStarted():
            return replace(
                event,
                murderer=r.choice(SUSPECT_IDS),
                suspect_deck=tuple(r.sample(SUSPECT_IDS, len(event.suspect_deck))),
                event_deck=tuple(r.sample(event.event_deck, len(event.event_deck))),
                force_deck=tuple(r.sample(event.force_deck, len(event.force_deck))),
                tokens=tuple(replace(t, value=r.randrange(6)) for t in event.tokens),
            )
        case ev.SuspectDrawn(seat=seat) if other_seat(seat):
            return replace(event, card=r.choice(SUSPECT_IDS))
        case ev.SuspectSeen(seat=seat, target=target, card=card) if card is not None and (
            viewer not in (seat, target)
        ):
            return replace(event, card=r.choice(SUSPECT_IDS), label=f"look/{r.randrange(9)}/0")
        case ev.SlotsDealt():
            return replace(event, slots=tuple(r.sample(event.slots, len(event.slots))))
        case ev.SuspectRemoved():
            return replace(event, card=r.choice(SUSPECT_IDS))
        case ev.ForceDeckShuffled() | ev.EventDeckShuffled():
            return replace(event, cards=tuple(r.sample(event.cards, len(event.cards))))
        case ev.ForceGained(seat=seat, kept=True) if other_seat(seat):
            return replace(event, card=r.choice(FORCE_DECK))
        case ev.Accused(seat=seat) if other_seat(seat):
            return replace(event, suspect=r.choice([*SUSPECT_IDS, None]))
        case _:
            return event


@props(25)
@given(game_params)
def test_other_seats_secrets_never_change_a_log_entry(params: tuple[Any, ...]) -> None:
    game = play_game(*params)
    r = random.Random(game.choices)
    scrambled: Counter[str] = Counter()
    steps = [s for s in game.steps if s.after.status is not Status.OVER]
    secret = (ev.SuspectDrawn, ev.SuspectSeen, ev.ForceGained, ev.Accused, ev.TokenPeeked)
    rich = [s for s in steps if any(isinstance(e, secret) for e in s.events)]
    for step in rich + r.sample(steps, min(len(steps), 30)):
        for viewer in (None, *range(game.players)):
            who = SPECTATOR if viewer is None else Seat(viewer)
            p = perturb_secrets(step.after, viewer, r)
            events = [scramble(e, viewer, r) for e in step.events]
            pairs = zip(events, step.events, strict=True)
            scrambled.update(type(a).__name__ for a, b in pairs if a != b)
            where = f"viewer {viewer}, {game.repro()}, {step.command}"
            assert entries_for(told(p.state, step.command, events), who) == entries_for(
                told(step.after, step.command, step.events), who
            ), where
    # the scrambling reaches the events that carry secrets, so the test can fail
    assert scrambled["Drawn"] > 0, scrambled
    if game.players > 1:
        private = ("SuspectDrawn", "SuspectSeen", "ForceGained")
        assert sum(scrambled[k] for k in private) > 0, scrambled
