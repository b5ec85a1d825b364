"""Game data the terminal client shows (rules.md): names and one-line summaries.

The client package never imports the server, so the little it needs of the rules' tables is
copied here (suspect codes and traits come from ``gamedata``): suspect names (§7.4), Force cards
(§9), abilities (§10), the decisions a seat may owe (§4.5) and the co-op roles (§14).  Event
cards are worded by the shared catalogue (``logtext``: ``catalog().event``).
"""

from __future__ import annotations

from typing import Final

from echoridge_client.gamedata import CODE_ORDER as CODE_ORDER
from echoridge_client.gamedata import EVIDENCE_ORDER as EVIDENCE_ORDER
from echoridge_client.gamedata import SUSPECT_CODES, SUSPECT_NAMES
from echoridge_client.gamedata import TRAITS as TRAITS

#: §7.4: suspect id -> (name, code); code bits in the order Gang, Rank, Forensics, Getaway, Weapon.
SUSPECTS: Final[dict[str, tuple[str, str]]] = {
    sid: (name, SUSPECT_CODES[sid]) for sid, name in SUSPECT_NAMES.items()
}
EVIDENCE_CLUE: Final[dict[str, str]] = {
    "rank": "Informants",
    "gang": "Witnesses",
    "forensics": "Search successes",
    "getaway": "Stakeouts",
    "weapon": "Holding tokens",
}

#: §9: Force card id -> (name, when it is played and what it does; rules.md §4.8).
FORCE: Final[dict[str, tuple[str, str]]] = {
    "code_three": ("Code Three", "before you drive: the basic 1 h of up to 3 blocks is waived"),
    "radio_car": ("Radio Car", "before you drive: put your car on any block instead"),
    "judges_signature": ("Judge's Signature", "before your action: it ignores day and night"),
    "tip_line": ("Tip Line", "any time in your turn: look at a face-down Search or Stakeout "
                 "token"),
    "checkpoint": ("Checkpoint", "before the Mobster Roll: no Mobster Roll this turn"),
    "double_shift": ("Double Shift", "after your action: take one more action this turn"),
    "rubber_stamp": ("Rubber Stamp", "before your action: it costs 1 h less"),
    "telephoto": ("Telephoto", "before your action: +2 risk for the success test"),
    "squad_wagon": ("Squad Wagon", "before you drive or act: apprehend a mobster on your block "
                    "or next to it"),
    "jailhouse_deal": ("Jailhouse Deal", "any time in your turn: gain 1 Suspect"),
}  # fmt: skip

#: §14: the Force cards whose effect differs in a co-op game (no day/night limits there).
COOP_FORCE: Final[dict[str, tuple[str, str]]] = {
    "judges_signature": ("Judge's Signature",
                         "before your action: it may be one your role lacks"),
}  # fmt: skip

#: §10: ability id -> (name, effect).
ABILITIES: Final[dict[str, tuple[str, str]]] = {
    "wheelman": ("Wheelman", "once a turn, a Drive of 3+ blocks waives 1 h"),
    "night_shift": ("Night Shift", "twice a game, ignore day/night"),
    "sharp_eyes": ("Sharp Eyes", "Stakeout succeeds if V <= R+1"),
    "radio_ace": ("Radio Ace", "Call for Backup rolls 2 dice, uses the lower"),
    "street_contacts": ("Street Contacts", "Catch Informant/Witness cost 1 h"),
    "lab_partner": ("Lab Partner", "Search Scene costs 1 h"),
    "quartermaster": ("Quartermaster", "Force hand limit 3"),
    "good_cop": ("Good Cop", "looks pick only among cards you have not seen"),
}

ACTIONS: Final[dict[str, str]] = {
    "arrest": "Arrest",
    "coffee_break": "Coffee Break",
    "call_for_backup": "Call for Backup",
    "catch_informant": "Catch Informant",
    "catch_witness": "Catch Witness",
    "search_scene": "Search Scene",
    "stakeout": "Stakeout",
    "bring_in_1": "Bring in for Holding (step 1)",
    "bring_in_2": "Bring in for Holding (step 2)",
    "resolve_event": "Resolve Event",
}

#: What a seat is asked when it owes a decision of this kind.
DECISIONS: Final[dict[str, str]] = {
    "suspect_gain": "gain a Suspect: draw, or look at another officer's card",
    "interrogate": "Interrogate: choose an officer, or skip",
    "slot": "pick one of the face-down cards",
    "discard": "discard a Force card",
    "pool": "take a Force card from the pool",
    "trait": "learn the murderer's trait for a solved evidence",
    "peek": "peek at a face-down token",
    "rest": "rest your case (end your game) or keep playing",
    "accusation": "accuse the murderer",
}

#: §14: co-op role id -> (name, the clue actions it may take, in ``ACTIONS``' words).
ROLES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "detective": ("Detective", ("catch_witness", "search_scene")),
    "patrol_cop": ("Patrol Cop", ("catch_informant", "stakeout", "bring_in_1", "bring_in_2")),
    "analyst": ("Analyst", ("search_scene", "stakeout")),
    "forensic_tech": (
        "Forensic Tech",
        ("catch_informant", "catch_witness", "bring_in_1", "bring_in_2"),
    ),
}
CLUE_ACTIONS: Final = (
    "catch_informant", "catch_witness", "search_scene", "stakeout", "bring_in_1", "bring_in_2"
)  # fmt: skip

EVENT_LINES: Final = (8, 16, 24, 32, 40)
HOURS: Final = 48


def is_night(space: int) -> bool:
    """rules.md §2: day is 0-12 and 25-36; night is 13-24 and 37-48."""
    return 13 <= space <= 24 or space >= 37


def suspect_name(suspect: str) -> str:
    return SUSPECTS.get(suspect, (suspect, ""))[0]


def suspect_trait(suspect: str, evidence: str) -> str:
    code = SUSPECTS[suspect][1]
    return TRAITS[evidence][int(code[CODE_ORDER.index(evidence)])]


def candidates(innocent: set[str], traits: dict[str, str]) -> list[str]:
    """Suspects consistent with every known trait and not known to be innocent."""
    return [
        s
        for s in SUSPECTS
        if s not in innocent and all(suspect_trait(s, e) == v for e, v in traits.items())
    ]


def role_name(role: str | None) -> str:
    return ROLES.get(role or "", (role or "-", ()))[0]


def role_actions(role: str | None) -> str:
    """The clue actions of a role in words (Bring in for Holding once, for both steps)."""
    words = []
    for action in ROLES.get(role or "", ("", ()))[1]:
        word = ACTIONS[action].removesuffix(" (step 1)").removesuffix(" (step 2)")
        if word not in words:
            words.append(word)
    return ", ".join(words) or "-"


def force_name(card: str) -> str:
    return FORCE.get(card, (card, ""))[0]


def ability_name(ability: str | None) -> str:
    return ABILITIES.get(ability or "", (ability or "-", ""))[0]
