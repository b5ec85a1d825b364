"""What happened, per viewer: the game log (rules.md §15), beside ``view()``.

Every event the engine produces has an audience, decided here and nowhere else:

- **public**: every viewer gets the same entry (a drive, a declared risk and its die, a Mobster
  Roll, a Search token flipped, a Force card played, ...);
- **private** to some seats (``to``): those seats get the whole entry, every other viewer a
  redacted one, or nothing (a Stakeout peek: the peeker gets the value, the others who peeked
  where; a look: the looker and the owner get the card, the others who looked at whom);
- **hidden** until the end: nobody gets the whole entry while the game is on; the others get a
  redacted one or nothing (the Force deck's new order: its size), and ``Everyone`` (only after
  the game) gets it all;
- **internal**: bookkeeping that is no fact of the game (``Continued``): no entry for anybody.

An entry is data, never prose: a map with a stable ``kind`` (the event's wire tag, or
``timed_out`` for the server's default answer) and typed fields (``seat``, ``block``, ``risk``,
``dice``, ``value``, ``card``, ...), so each client words it in its own language.  A private or
hidden entry says who knows all of it in ``to`` (a list of seats, empty when hidden), in its
whole form and in its redacted one alike, so a client can mark what only it was told.  Proofs
stay where they are (the viewer's ``you.proofs``); a private entry names its proof in ``proof``.

``told(state, command, events)`` says, once per version, what every audience is told;
``entry_for(told, viewer)`` picks one viewer's entries.  A viewer's entries depend only on what
that viewer may know (tests/rules/test_log.py and the non-interference property test check it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from echoridge_rules import events as ev
from echoridge_rules.commands import ApplyDefault, Command
from echoridge_rules.data import SUSPECTS
from echoridge_rules.model import ClueKind, State
from echoridge_rules.proofs import token_label, trait_label
from echoridge_rules.queries import coop
from echoridge_rules.serial import tag_of, to_plain
from echoridge_rules.views import Everyone, Seat, Viewer

Entry = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Told:
    """One event as its audiences learn it.  ``to`` None: public, everyone gets ``whole``;
    otherwise the seats in ``to`` get ``whole`` and every other viewer ``others`` (None:
    nothing).  ``Everyone`` gets ``whole``.  ``prover``: when only one seat of ``to`` holds
    the proof ``whole`` names (a look: the looker, not the card's owner), the others of ``to``
    get ``whole`` without ``proof`` (``unproven``)."""

    whole: Entry
    others: Entry | None = None
    to: tuple[int, ...] | None = None
    prover: int | None = None
    unproven: Entry | None = None


def told(state: State, command: Command | None, events: Sequence[ev.Event]) -> tuple[Told, ...]:
    """What each audience is told of one version: ``command`` and the ``events`` it produced;
    ``state`` is the state after them (it holds the values some entries reveal)."""
    out: list[Told] = []
    if isinstance(command, ApplyDefault):
        out.append(Told({"kind": "timed_out", "seat": command.seat}))
    for event in events:
        t = _told(state, event)
        if t is not None:
            out.append(t)
    return tuple(out)


def entry_for(t: Told, viewer: Viewer) -> Entry | None:
    if t.to is None or isinstance(viewer, Everyone):
        return t.whole
    if isinstance(viewer, Seat) and viewer.seat in t.to:
        return t.whole if t.prover is None or viewer.seat == t.prover else t.unproven
    return t.others


def entries_for(told_: Iterable[Told], viewer: Viewer) -> list[Entry]:
    """One viewer's entries, in order."""
    return [e for t in told_ if (e := entry_for(t, viewer)) is not None]


# --- audiences -----------------------------------------------------------------------------------


def _plain(event: ev.Event, drop: tuple[str, ...] = ()) -> Entry:
    """The event as an entry: its tag as ``kind``, its fields but ``drop`` and bytes (salts
    belong to proofs, which travel in the view)."""
    out: Entry = {"kind": tag_of(event)}
    for name, value in to_plain(event).items():
        if name != "type" and name not in drop and not _has_bytes(value):
            out[name] = value
    return out


def _has_bytes(value: Any) -> bool:
    if isinstance(value, bytes):
        return True
    return isinstance(value, list) and any(_has_bytes(v) for v in value)


def _team(state: State, *seats: int) -> tuple[int, ...]:
    """Who learns what these seats learn privately: in co-op, the whole team (§14)."""
    return tuple(range(len(state.players))) if coop(state) else seats


def _private(whole: Entry, others: Entry | None, *seats: int) -> Told:
    to = tuple(sorted(set(seats)))
    whole = {**whole, "to": list(to)}
    return Told(whole, None if others is None else {**others, "to": list(to)}, to)


def _hidden(whole: Entry, others: Entry | None) -> Told:
    return Told({**whole, "to": []}, None if others is None else {**others, "to": []}, ())


def _token(state: State, block: tuple[int, int]) -> Any:
    return next(t for t in state.tokens if t.block == block)


def _told(state: State, e: ev.Event) -> Told | None:
    match e:
        case ev.Continued():
            return None  # the engine's own agenda: no fact of the game
        case ev.Drawn():
            return _hidden(_plain(e), None)  # the generator's draws: in the transcript
        case ev.GameStarted():
            public = {
                "kind": "game_started",
                "players": e.players,
                "order": list(e.order),
                "abilities": list(e.abilities),
                "names": list(e.names),
                "bots": list(e.bots),
                "mode": state.mode.value,
                "roles": list(e.roles),
                "lead": state.lead,
            }
            return _hidden({**public, "murderer": e.murderer}, public)
        case ev.TokenPeeked(seat=seat, block=block):
            token = _token(state, block)
            others = {"kind": "token_peeked", "seat": seat, "block": list(block),
                      "token": token.kind.value}  # fmt: skip
            whole = {**others, "value": token.value, "proof": token_label(block)}
            if token.kind is ClueKind.SEARCH:
                whole["success"] = token.value == 1  # a Search token's value is a result
            return _private(whole, others, *_team(state, seat))
        case ev.TraitLearned(seat=seat, evidence=evidence):
            others = _plain(e)
            trait = SUSPECTS[state.murderer].trait(evidence)
            whole = {**others, "trait": trait, "proof": trait_label(evidence)}
            return _private(whole, others, *_team(state, seat))
        case ev.SuspectDrawn(seat=seat):
            if coop(state):
                return Told(_plain(e))  # co-op: every draw is made face up (§14)
            return _private(_plain(e), _plain(e, ("card",)), seat)
        case ev.EvidenceSolved(evidence=evidence) if coop(state):
            # co-op: solved evidence is shown to everyone (§14)
            return Told({**_plain(e), "trait": SUSPECTS[state.murderer].trait(evidence),
                         "proof": trait_label(evidence)})
        case ev.SlotsDealt(seat=seat, target=target, slots=slots):
            # The order of the target's cards in the slots is known to nobody until the end.
            return _hidden(_plain(e), {**_plain(e, ("slots",)), "count": len(slots)})
        case ev.SuspectSeen(seat=seat, target=target, card=card):
            if card is None:
                return Told(_plain(e, ("label", "salt")))
            whole = {**_plain(e, ("label",)), "proof": e.label}
            told_ = _private(whole, _plain(e, ("card", "label")), seat, target)
            if target == seat:
                return told_
            unproven = {k: v for k, v in told_.whole.items() if k != "proof"}
            return replace(told_, prover=seat, unproven=unproven)  # the owner has no proof
        case ev.CityTokensRemoved(kind=kind):
            return Told({"kind": "city_tokens_removed", "token": kind.value})  # (not `kind`)
        case ev.SuspectRemoved():
            return _hidden(_plain(e), {"kind": "suspect_removed"})
        case ev.ForceDeckShuffled(cards=cards) | ev.EventDeckShuffled(cards=cards):
            return _hidden(_plain(e), {"kind": tag_of(e), "count": len(cards)})
        case ev.ForceGained(seat=seat, kept=True):
            return _private(_plain(e), _plain(e, ("card",)), *_team(state, seat))
        case ev.AutoPassSet(seat=seat):
            # whether a seat answers its empty windows itself is its own: who knew it was on
            # would read a long window as a card to play (ruling 47)
            return _private(_plain(e), None, seat)
        case ev.Accused(seat=seat):
            return _private(_plain(e), _plain(e, ("suspect",)), *_team(state, seat))
        case _:
            return Told(_plain(e))
