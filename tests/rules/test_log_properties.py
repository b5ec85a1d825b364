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

from echoridge_protocol import codec, diff
from echoridge_protocol import messages as m
from echoridge_rules import SPECTATOR, Seat, State, Status, evolve, view
from echoridge_rules import events as ev
from echoridge_rules.carddata import FORCE_DECK
from echoridge_rules.data import EVIDENCE_ORDER, SUSPECT_IDS
from echoridge_rules.log import entries_for, told
from tests.rules.test_properties import (
    _trait_key,
    game_params,
    knows_trait,
    perturb_secrets,
    play_game,
    props,
)


def scramble(
    event: ev.Event, viewer: int | None, r: random.Random, coop: bool = False
) -> ev.Event:
    """The event with every field ``viewer`` may not know replaced by some other value.  In
    co-op (§14) Suspect draws are face up and a seat knows what its team learns."""
    def other_seat(seat: int) -> bool:
        return viewer is None or (seat != viewer and not coop)

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
        case ev.SuspectDrawn(seat=seat) if other_seat(seat) and not coop:
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
    coop = game.mode == "cooperative" and game.players > 1
    r = random.Random(game.choices)
    scrambled: Counter[str] = Counter()
    steps = [s for s in game.steps if s.after.status is not Status.OVER]
    secret = (ev.SuspectDrawn, ev.SuspectSeen, ev.ForceGained, ev.Accused, ev.TokenPeeked)
    rich = [s for s in steps if any(isinstance(e, secret) for e in s.events)]
    for step in rich + r.sample(steps, min(len(steps), 30)):
        for viewer in (None, *range(game.players)):
            who = SPECTATOR if viewer is None else Seat(viewer)
            p = perturb_secrets(step.after, viewer, r)
            events = [scramble(e, viewer, r, coop) for e in step.events]
            pairs = zip(events, step.events, strict=True)
            scrambled.update(type(a).__name__ for a, b in pairs if a != b)
            where = f"viewer {viewer}, {game.repro()}, {step.command}"
            assert entries_for(told(p.state, step.command, events), who) == entries_for(
                told(step.after, step.command, step.events), who
            ), where
    # the scrambling reaches the events that carry secrets, so the test can fail
    assert scrambled["Drawn"] > 0, scrambled
    if game.players > 1:
        private = ("SuspectDrawn", "SuspectSeen", "ForceGained", "Accused") if coop else (
            "SuspectDrawn", "SuspectSeen", "ForceGained"
        )
        assert sum(scrambled[k] for k in private) > 0, scrambled


# --- whole streams --------------------------------------------------------------------------------


def relabel_game(events: list[ev.Event], viewer: int | None, final: State, r: random.Random) -> (
    list[ev.Event]
):
    """The same game with the Suspect cards ``viewer`` never holds, sees or is shown relabelled
    everywhere (the murderer among the suspects that share every trait the viewer comes to
    know), and other seats' accusations changed: a game that differs only in what the viewer
    may not know.  Commitments are kept as they are (they are opaque to the viewer)."""
    me = final.players[viewer] if viewer is not None else None
    coop = final.mode.value == "cooperative"
    protected = set(me.suspects) | set(me.seen) | {c for _, c in me.shown} if me else set()
    if coop:  # every hand is face up, and solved traits are shown to everyone (§14)
        protected |= {c for p in final.players for c in p.suspects}
        known = [e for e in EVIDENCE_ORDER if knows_trait(final, 0, e)]
    else:
        known = [e for e in EVIDENCE_ORDER if me and knows_trait(final, me.seat, e)]
    free = [s for s in SUSPECT_IDS if s not in protected]
    murderer = final.murderer
    same = [s for s in free if _trait_key(s, known) == _trait_key(murderer, known)]
    images = free[:]
    r.shuffle(images)
    pi = dict(zip(free, images, strict=True))
    target = r.choice(same)
    source = next(k for k, v in pi.items() if v == target)
    pi[source], pi[murderer] = pi[murderer], target

    def rel(card: str | None) -> str | None:
        return None if card is None else pi.get(card, card)

    out: list[ev.Event] = []
    for e in events:
        match e:
            case ev.GameStarted():
                e = replace(e, murderer=rel(e.murderer),
                            suspect_deck=tuple(map(rel, e.suspect_deck)))  # type: ignore[arg-type]  # fmt: skip
            case ev.SuspectDrawn() | ev.SuspectSeen() | ev.SuspectRemoved():
                e = replace(e, card=rel(e.card))
            case ev.SlotsDealt():
                e = replace(e, slots=tuple(map(rel, e.slots)))  # type: ignore[arg-type]
            case ev.Accused(seat=seat) if seat != viewer and not (coop and me is not None):
                e = replace(e, suspect=r.choice([*SUSPECT_IDS, None]))
        out.append(e)
    return out


def stream(events: list[ev.Event], steps: list[int], viewer: int | None) -> list[bytes]:
    """What the server sends ``viewer``, version by version until the game is over: each
    version's delta (ops and log entries), encoded."""
    who = SPECTATOR if viewer is None else Seat(viewer)
    state, out, at = State(), [], 0
    before = view(state, SPECTATOR)
    for version, (command, count) in enumerate(steps, start=1):
        chunk = events[at : at + count]
        at += count
        for e in chunk:
            state = evolve(state, e)
        if state.status is Status.OVER:
            break
        after = view(state, who)
        log = tuple(entries_for(told(state, command, chunk), who)) or None
        out.append(codec.encode_msgpack(m.Delta("t", 1, version, diff(before, after), log)))
        before = after
    return out


@props(10)
@given(game_params)
def test_games_that_differ_only_in_unseen_secrets_send_identical_streams(
    params: tuple[Any, ...],
) -> None:
    """Non-interference over whole streams: every frame a viewer would be sent (views as
    deltas, and the log) is byte-identical in two games that differ only in what that viewer
    may not know."""
    game = play_game(*params)
    r = random.Random(game.choices)
    events = game.events
    steps = [(s.command, len(s.events)) for s in game.steps]
    last = [s.after for s in game.steps if s.after.status is not Status.OVER][-1]
    differs = 0
    for viewer in (None, *range(game.players)):
        other = relabel_game(events, viewer, last, r)
        differs += other != events
        assert stream(other, steps, viewer) == stream(events, steps, viewer), game.repro()
    assert differs > 0  # the relabelling changes the games, so the test can fail


@props(10)
@given(game_params)
def test_every_look_slot_is_revealed_after_the_game_and_matches_its_commitment(
    params: tuple[Any, ...],
) -> None:
    """SPEC.md §9.3: ``secrets.look_proofs`` opens every slot a picker was shown a commitment
    of (``you.decision.commitments``), and nothing else."""
    from echoridge_protocol.fairness import commit
    from echoridge_rules import EVERYONE
    from echoridge_rules.decisions import ChooseSlot

    game = play_game(*params)
    shown: dict[str, bytes] = {}
    for state in game.states():
        for d in state.pending:
            if isinstance(d, ChooseSlot):
                for i, c in enumerate(d.commitments, start=1):
                    shown[f"look/{d.deal}/{i}"] = c
    proofs = view(game.final, EVERYONE)["secrets"]["look_proofs"]
    opened = {p["label"]: commit(p["label"], p["value"], bytes.fromhex(p["salt"])) for p in proofs}
    assert {k: opened[k] for k in shown} == shown, game.repro()
    deals = {label.split("/")[1] for label in opened}  # every look of the game, opened
    assert deals == {str(k) for k in range(game.final.deals)}, game.repro()


@props(10)
@given(game_params)
def test_an_entry_names_a_proof_only_to_a_seat_that_holds_it(params: tuple[Any, ...]) -> None:
    """SPEC.md §6.3: while the game is on, a seat's entry has ``proof`` exactly when that
    proof is in the seat's ``you.proofs`` (a look's owner learns the card, not the proof)."""
    game = play_game(*params)
    named = 0
    for step in game.steps:
        if step.after.status is Status.OVER:
            break
        said = told(step.after, step.command, step.events)
        for seat in range(game.players):
            labels = {p["label"] for p in view(step.after, Seat(seat))["you"]["proofs"]}
            for entry in entries_for(said, Seat(seat)):
                if "proof" in entry:
                    named += 1
                    assert entry["proof"] in labels, (entry, seat, game.repro())
    if game.players > 1 and any(isinstance(e, ev.SuspectSeen) for e in game.events):
        assert named > 0  # (so the test can fail)
