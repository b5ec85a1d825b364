"""Rules versions (docs/rulings.md 42): a game is played under the rules its ``StartGame``
names, and a game recorded before the field existed (in a transcript, or in a table's stored
log) is played and replayed under rules v2."""

from __future__ import annotations

import msgpack

from echoridge.store.entries import NewEntry, chain, decode, encode, genesis
from echoridge_rules import Rng, State, decide, fold
from echoridge_rules import commands as c
from echoridge_rules.compact import pack, unpack
from echoridge_rules.data import RECORDED_RULES, RULES_VERSION
from echoridge_rules.events import GameStarted
from echoridge_rules.serial import load, to_plain

RNG = Rng(b"\x0b" * 32, "versions")


def test_the_current_rules_are_v3_and_old_games_are_v2() -> None:
    assert (RULES_VERSION, RECORDED_RULES) == (3, 2)
    assert c.StartGame(2).rules == RECORDED_RULES
    assert fold(decide(State(), c.StartGame(2), RNG)).rules == RECORDED_RULES
    state = fold(decide(State(), c.StartGame(2, rules=RULES_VERSION), RNG))
    assert state.rules == RULES_VERSION


def test_a_transcript_command_without_rules_is_a_v2_game() -> None:
    """A transcript's ``start_game`` (SPEC §5.4) recorded before the field: rules v2."""
    plain = to_plain(c.StartGame(3, rules=RULES_VERSION))
    assert plain["rules"] == RULES_VERSION
    del plain["rules"]
    assert load(plain) == c.StartGame(3)


def test_a_stored_entry_packed_before_the_field_unpacks_as_rules_v2() -> None:
    """A table's log written before ``rules`` existed holds shorter records: they decode
    (their hash chain intact) and fold to the same game as before."""
    start = c.StartGame(3, names=("a", "b", "c"))
    events = decide(State(), start, RNG)
    assert sum(isinstance(e, GameStarted) for e in events) == 1
    old_command = pack(start)[:-1]  # as written before the field existed
    old_events = [pack(e)[:-1] if isinstance(e, GameStarted) else pack(e) for e in events]
    assert unpack(old_command) == start and [unpack(e) for e in old_events] == events
    head = genesis("versions")
    command_blob = msgpack.packb([None, "start", old_command])
    events_blob = msgpack.packb(old_events)
    stored = {b"c": command_blob, b"e": events_blob, b"h": chain(head.hash, command_blob,
                                                                  events_blob)}
    entry = decode(1, stored, head.hash)
    assert entry is not None and entry.command == start
    assert fold(entry.events).rules == RECORDED_RULES
    assert fold(entry.events) == fold(events)
    # and a new entry carries the version
    new_blob, _ = encode("start", NewEntry(None, c.StartGame(3, rules=RULES_VERSION), ()))
    assert msgpack.unpackb(new_blob)[2][-1] == RULES_VERSION
