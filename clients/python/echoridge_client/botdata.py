"""What the bots know of the game (rules.md), and small helpers over views and commands: the
client package never imports the server, so the few tables a heuristic needs (the event rewards
of §11.5, Stakeout values, Search token counts, the co-op roles of §14) are copied here; the
suspect table is in ``gamedata``.

The knowledge helpers (``innocents``, ``known_traits``, ``candidates``) read what the seat's view
shows it, which in a co-op game (§14) is the team's knowledge: every officer's Suspect cards are
face up (``players[i].face_up``) and every solved evidence's trait is shown (``evidence[i].trait``);
outside co-op those are empty, so the helpers give a seat's own knowledge."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from echoridge_client.gamedata import CODE_ORDER, SUSPECT_CODES, TRAITS

Command = dict[str, Any]
View = dict[str, Any]
Block = tuple[int, int]

# --- game data (rules.md) -----------------------------------------------------------------------

HQ: Final[Block] = (3, 3)
HOURS: Final = 48
INTERROGATE_LEVELS: Final = frozenset({2, 4, 6, 8, 10})
STAKEOUT_VALUES: Final = (1, 2, 3, 3, 4, 5)
SEARCH_SUCCESSES, SEARCH_FAILURES = 4, 2
EVIDENCE_OF: Final[dict[str, str]] = {
    "catch_informant": "rank",
    "catch_witness": "gang",
    "search_scene": "forensics",
    "stakeout": "getaway",
    "hold_mobster": "weapon",
    "book_mobster": "weapon",
}

#: §11.5: card -> (resolver reward, contributor reward, hours of Resolve Event, night only).
EVENT_REWARDS: Final[dict[str, tuple[str, str | None, int, bool]]] = {
    "E1": ("F", "P", 1, False),
    "E2": ("B", None, 2, False),
    "E3": ("B", "S", 2, False),
    "E4": ("B", "S", 2, False),
    "E5": ("B", "B", 1, False),
    "E6": ("F", "S", 1, False),
    "E7": ("E", None, 1, False),
    "E8": ("B", None, 1, False),
    "E9": ("B", "F", 1, False),
    "E10": ("I", "S", 2, False),
    "E11": ("B", "S", 1, False),
    "E12": ("POOL", "POOL", 1, True),
    "E13": ("E", None, 3, False),
    "E14": ("F", None, 1, False),
    "E15": ("B", "S", 2, False),
    "E16": ("B", "S", 1, False),
    "E17": ("E", "E", 2, False),
    "E18": ("B", None, 2, False),
}
#: §14: the clue actions each co-op role may take, as command types (Bring in for Holding is
#: ``hold_mobster`` then ``book_mobster``); every role may take every other action.
ROLE_ACTIONS: Final[dict[str, frozenset[str]]] = {
    "detective": frozenset({"catch_witness", "search_scene"}),
    "patrol_cop": frozenset({"catch_informant", "stakeout", "hold_mobster", "book_mobster"}),
    "analyst": frozenset({"search_scene", "stakeout"}),
    "forensic_tech": frozenset(
        {"catch_informant", "catch_witness", "hold_mobster", "book_mobster"}
    ),
}
CLUE_ACTIONS: Final = frozenset(a for actions in ROLE_ACTIONS.values() for a in actions)
COOPERATIVE: Final = "cooperative"
NAB_EVENTS: Final = frozenset({"E8", "E11", "E16"})  # resolved by apprehending on a token
SURCHARGE_TOKEN_EVENTS: Final = frozenset({"E1"})
SURCHARGE_ROW_EVENTS: Final = frozenset({"E14"})

#: Force cards, most useful to this bot first (discard from the end, take from the front).
FORCE_PREFERENCE: Final = (
    "jailhouse_deal", "double_shift", "telephoto", "rubber_stamp", "code_three", "radio_car",
    "squad_wagon", "judges_signature", "tip_line", "checkpoint",
)  # fmt: skip

# Rough values, in "units" per action; the turn logic maximises value per hour.
CLUE = 2.0  # a clue towards an unsolved evidence (each contributor gains a Suspect on the solve)
SOLVE = 4.0  # collecting the final clue: the solver learns the murderer's trait
BADGE = 1.0  # +1 Badge (tie-breaks)
COOP_BADGE = 0.4  # co-op: a +1 Badge short of a level, as a share of the level's team draw
SUSPECT = 2.5  # one more Suspect card seen: one more innocent
MIN_SCORE = 0.05  # below this value per hour, an action is not worth its hours


def suspect_trait(suspect: str, evidence: str) -> str:
    """The trait a suspect shows for an evidence (rules.md §7.4)."""
    bit = int(SUSPECT_CODES[suspect][CODE_ORDER.index(evidence)])
    return TRAITS[evidence][bit]


def innocents(view: Mapping[str, Any]) -> set[str]:
    """Suspects the seat holds or has seen, and any officer's face-up cards: all innocent."""
    you = view.get("you") or {}
    out = {str(s) for s in you.get("suspects") or ()} | {str(s) for s in you.get("seen") or ()}
    for p in view.get("players") or ():
        if isinstance(p, Mapping):
            out.update(str(s) for s in p.get("face_up") or ())
    return out


def known_traits(view: Mapping[str, Any]) -> dict[str, str]:
    """The murderer's traits the seat knows: its own and those shown to everyone (co-op)."""
    traits = {str(e): str(v) for e, v in ((view.get("you") or {}).get("traits") or {}).items()}
    for e in view.get("evidence") or ():
        if isinstance(e, Mapping) and e.get("trait") is not None:
            traits.setdefault(str(e.get("evidence")), str(e["trait"]))
    return traits


def candidates(view: Mapping[str, Any]) -> list[str]:
    """Suspects consistent with every known trait and not known to be innocent, in id order."""
    traits = known_traits(view)
    out = innocents(view)
    return [
        s
        for s in SUSPECT_CODES
        if s not in out
        and all(e not in TRAITS or suspect_trait(s, e) == v for e, v in traits.items())
    ]


def of_kind(legal: Iterable[Command], kind: str) -> list[Command]:
    return [c for c in legal if c.get("type") == kind]


def as_block(value: Any) -> Block:
    return (int(value[0]), int(value[1]))


def distance(a: Block, b: Block) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])
