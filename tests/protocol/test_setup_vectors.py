"""SPEC.md §10.1: the setup made from the draws, with ``echoridge_protocol`` alone (the way a
third-party verifier would) and checked against the test vectors and the engine's GameStarted.

Every constant below is copied from SPEC.md §10.1, not imported from the engine: the reference
setup here must be writable from the specification alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from echoridge_protocol import fairness

SEED = bytes(range(32))
TABLE = "t-001"

BLOCK_NAMES = (
    "Harbor Docks", "Cannery Row", "Union Station", "Old Mill", "Chinatown Gate",
    "Riverside Park", "Ferris Wharf", "Saint Agnes", "Lamplight Club", "Foundry Yard",
    "Gaslight Alley", "Printers Lane", "City Hall", "Grand Hotel", "Fish Market",
    "Tenement Block", "Rail Yard", "Palace Theater", "Sawmill Flats", "Bishop Bridge",
    "Pawnbrokers", "Crown Casino", "Elm Street", "Cemetery Hill",
)  # fmt: skip
FORCE_CARDS = (
    "code_three", "radio_car", "judges_signature", "judges_signature", "tip_line", "tip_line",
    "checkpoint", "double_shift", "rubber_stamp", "telephoto", "squad_wagon", "jailhouse_deal",
)  # fmt: skip
ABILITIES = (
    "wheelman", "night_shift", "sharp_eyes", "radio_ace", "street_contacts", "lab_partner",
    "quartermaster", "good_cop",
)  # fmt: skip
SUSPECTS = tuple(f"S{i:02d}" for i in range(1, 17))
EVENTS = tuple(f"E{i}" for i in range(1, 19))
BLOCKS = tuple((c, r) for r in range(1, 6) for c in range(1, 6))  # canonical order
HQ = (3, 3)
NON_HQ = tuple(b for b in BLOCKS if b != HQ)
SEARCH = (1, 1, 1, 1, 0, 0)  # success x4, failure x2
STAKEOUT = (1, 2, 3, 3, 4, 5)
COLORS = ("red", "blue", "gray")
# The co-op game (R7 without these two, R14, the mobsters out of the game by player count).
COOP_LEFT_OUT = ("night_shift", "good_cop")
ROLES = ("detective", "patrol_cop", "analyst", "forensic_tech")
COOP_REMOVED = {2: (0, 0, 1), 3: (1, 1, 1), 4: (2, 2, 2)}


@dataclass
class Draws:
    """The generator of §10, counting draws from 0."""

    seed: bytes
    table: str
    used: list[tuple[int, int, int]] = field(default_factory=list)

    def draw(self, bound: int) -> int:
        value = fairness.draw_below(self.seed, self.table, len(self.used), bound)
        self.used.append((len(self.used), bound, value))
        return value

    def shuffle(self, items: Any) -> list[Any]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.draw(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def sample(self, items: Any, k: int) -> list[Any]:
        out = list(items)
        for i in range(k):
            j = i + self.draw(len(out) - i)
            out[i], out[j] = out[j], out[i]
        return out[:k]

    def pick(self, items: Any) -> Any:
        return items[self.draw(len(items))]


def reference_setup(seed: bytes, table: str, players: int, coop: bool = False) -> dict[str, Any]:
    """SPEC.md §10.1, step by step (``coop``: a co-op game's)."""
    d = Draws(seed, table)
    names = d.shuffle(BLOCK_NAMES)  # R1
    layout = [*names[:12], "Police HQ", *names[12:]]
    spots = d.sample(NON_HQ, 12)  # R2
    tokens = [(b, "search", v) for b, v in zip(spots[:6], SEARCH, strict=True)]
    tokens += [(b, "stakeout", v) for b, v in zip(spots[6:], STAKEOUT, strict=True)]
    tokens.sort(key=lambda t: BLOCKS.index(t[0]))
    murderer = d.pick(SUSPECTS)  # R3
    deck = d.shuffle([s for s in SUSPECTS if s != murderer])  # R4
    events = d.shuffle(EVENTS)  # R5
    force = d.shuffle(FORCE_CARDS)  # R6
    dealt = [a for a in ABILITIES if not (coop and a in COOP_LEFT_OUT)]
    abilities = d.sample(dealt, players)  # R7
    order = d.shuffle(range(players))  # R8
    roles = d.shuffle(ROLES[:players]) if coop else []  # R14
    bag = [5 - n for n in COOP_REMOVED[players]] if coop else [5, 5, 5]
    mobsters: dict[tuple[int, int], str] = {}
    placed = []
    for _ in range(3):
        value = d.draw(sum(bag))
        color = 0
        while value >= bag[color]:
            value -= bag[color]
            color += 1
        bag[color] -= 1
        block = d.pick([b for b in NON_HQ if b not in mobsters])
        mobsters[block] = COLORS[color]
        placed.append((block, COLORS[color]))
    return {
        "draws": d.used,
        "layout": layout,
        "tokens": tokens,
        "murderer": murderer,
        "suspect_deck": deck,
        "event_deck": events,
        "force_deck": force,
        "abilities": abilities,
        "order": order,
        "roles": roles,
        "mobsters": placed,
    }


VECTOR = {
    "first_draws": [
        (0, 24, 17),
        (1, 23, 8),
        (2, 22, 4),
        (3, 21, 14),
        (4, 20, 1),
        (5, 19, 10),
        (6, 18, 1),
        (7, 17, 14),
        (8, 16, 0),
        (9, 15, 13),
    ],
    "r2_draws": [(23, 24, 0), (24, 23, 4)],
    "count": 87,
    "layout": [
        "Union Station",
        "Crown Casino",
        "Sawmill Flats",
        "Ferris Wharf",
        "Foundry Yard",
        "Printers Lane",
        "Elm Street",
        "Rail Yard",
        "Old Mill",
        "City Hall",
        "Saint Agnes",
        "Riverside Park",
        "Police HQ",
        "Tenement Block",
        "Cemetery Hill",
        "Grand Hotel",
        "Harbor Docks",
        "Pawnbrokers",
        "Bishop Bridge",
        "Gaslight Alley",
        "Cannery Row",
        "Fish Market",
        "Chinatown Gate",
        "Lamplight Club",
        "Palace Theater",
    ],
    "tokens": [
        ((1, 1), "search", 1),
        ((3, 1), "stakeout", 3),
        ((5, 1), "search", 1),
        ((1, 2), "search", 1),
        ((5, 2), "stakeout", 5),
        ((4, 3), "stakeout", 2),
        ((5, 3), "search", 0),
        ((1, 4), "search", 0),
        ((3, 4), "stakeout", 1),
        ((4, 4), "stakeout", 3),
        ((5, 4), "stakeout", 4),
        ((2, 5), "search", 1),
    ],
    "murderer": "S02",
    "suspect_deck": [
        "S06",
        "S04",
        "S07",
        "S05",
        "S13",
        "S16",
        "S09",
        "S10",
        "S03",
        "S15",
        "S11",
        "S08",
        "S01",
        "S12",
        "S14",
    ],
    "event_deck": [
        "E16",
        "E2",
        "E9",
        "E7",
        "E15",
        "E5",
        "E14",
        "E8",
        "E18",
        "E3",
        "E17",
        "E4",
        "E10",
        "E1",
        "E6",
        "E11",
        "E12",
        "E13",
    ],
    "force_deck": [
        "judges_signature",
        "squad_wagon",
        "checkpoint",
        "rubber_stamp",
        "telephoto",
        "double_shift",
        "tip_line",
        "jailhouse_deal",
        "code_three",
        "judges_signature",
        "radio_car",
        "tip_line",
    ],
    "abilities": ["quartermaster", "radio_ace"],
    "order": [1, 0],
    "mobsters": [((5, 1), "blue"), ((3, 5), "red"), ((5, 3), "gray")],
    "murderer_salt": "407eda605258b815ee2392a32bd17f48",
    "murderer_commit": "8e8b3c24929f8e7c66f63b4986f5534984b02422767dbd250c8ae31d40b47914",
}


def test_the_reference_setup_gives_the_spec_vectors() -> None:
    setup = reference_setup(SEED, TABLE, 2)
    assert setup["draws"][:10] == VECTOR["first_draws"]
    assert setup["draws"][23:25] == VECTOR["r2_draws"]
    assert len(setup["draws"]) == VECTOR["count"]
    for key in ("layout", "tokens", "murderer", "suspect_deck", "event_deck", "force_deck",
                "abilities", "order", "mobsters"):  # fmt: skip
        assert setup[key] == VECTOR[key], key
    salt = fairness.salt(SEED, TABLE, "murderer")
    assert salt.hex() == VECTOR["murderer_salt"]
    assert fairness.commit("murderer", "S02", salt).hex() == VECTOR["murderer_commit"]


COOP_VECTOR = {  # the same seed and table, 3 players, co-op
    "count": 91,
    "abilities": ["radio_ace", "lab_partner", "sharp_eyes"],
    "order": [1, 0, 2],
    "roles": ["patrol_cop", "analyst", "detective"],
    "mobsters": [((3, 4), "blue"), ((1, 4), "red"), ((1, 1), "red")],
}


def test_the_reference_coop_setup_gives_the_spec_vector() -> None:
    setup = reference_setup(SEED, TABLE, 3, coop=True)
    assert len(setup["draws"]) == COOP_VECTOR["count"]
    for key in ("abilities", "order", "roles", "mobsters"):
        assert setup[key] == COOP_VECTOR[key], key
    plain = reference_setup(SEED, TABLE, 3)
    assert setup["murderer"] == plain["murderer"] and setup["layout"] == plain["layout"]


def test_the_game_seed_vector() -> None:
    seed = fairness.game_seed(SEED, TABLE, [bytes([0xAA]) * 16, bytes([0xBB]) * 16])
    assert seed.hex() == "c2cf09d14309d28986c89f1dcf8ae823d9f7f586a5c74738c3b851a9638ed014"


def _engine_start(
    seed: bytes, table: str, players: int, coop: bool = False
) -> tuple[Any, list[Any], list[Any]]:
    from echoridge_rules import Rng, State, decide
    from echoridge_rules.commands import StartGame
    from echoridge_rules.events import Drawn, GameStarted, MobsterPlaced

    start = StartGame(players, mode="cooperative" if coop else "")
    events = decide(State(), start, Rng(seed, table))
    (started,) = [e for e in events if isinstance(e, GameStarted)]
    draws = [(e.index, e.bound, e.value) for e in events if isinstance(e, Drawn)]
    placed = [(e.block, e.color.value) for e in events if isinstance(e, MobsterPlaced)]
    return started, draws, placed


@pytest.mark.parametrize(
    ("seed", "table", "players", "coop"),
    [(SEED, TABLE, 2, False), (SEED, TABLE, 3, True)]
    + [(bytes([i]) * 32, f"t-{i:03d}", 1 + i % 4, False) for i in range(1, 13)]
    + [(bytes([i]) * 32, f"t-{i:03d}", 2 + i % 3, True) for i in range(13, 19)],
)
def test_the_engine_sets_up_as_the_spec_says(
    seed: bytes, table: str, players: int, coop: bool
) -> None:
    setup = reference_setup(seed, table, players, coop)
    started, draws, placed = _engine_start(seed, table, players, coop)
    assert draws == setup["draws"]
    assert list(started.layout) == setup["layout"]
    assert [(t.block, t.kind.value, t.value) for t in started.tokens] == setup["tokens"]
    assert started.murderer == setup["murderer"]
    assert list(started.suspect_deck) == setup["suspect_deck"]
    assert list(started.event_deck) == setup["event_deck"]
    assert list(started.force_deck) == setup["force_deck"]
    assert list(started.abilities) == setup["abilities"]
    assert list(started.order) == setup["order"]
    assert list(started.roles) == setup["roles"]
    assert placed == setup["mobsters"]
    salts = dict(started.salts)
    for label, digest in started.commitments:
        assert salts[label] == fairness.salt(seed, table, label)
        assert digest == fairness.commit(label, _value(label, setup), salts[label])


def _value(label: str, setup: dict[str, Any]) -> str:
    """The committed value of a setup item (§9.2), from the reference setup."""
    kind, _, rest = label.partition("/")
    if kind == "murderer":
        return str(setup["murderer"])
    if kind == "deck":
        return str(setup["suspect_deck"][int(rest)])
    if kind == "token":
        c, r = (int(x) for x in rest.split(","))
        ((_, token, value),) = [t for t in setup["tokens"] if t[0] == (c, r)]
        if token == "search":
            return "success" if value == 1 else "failure"
        return str(value)
    assert kind == "trait"  # the traits come from the suspect cards (rules data), not draws
    from echoridge_rules.data import SUSPECTS, Evidence

    return str(SUSPECTS[setup["murderer"]].trait(Evidence(rest)))
