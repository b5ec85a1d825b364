"""Game data the terminal client shows (rules.md): names and one-line summaries.

The client package never imports the server, so the little it needs of the rules' tables is
copied here (suspect codes and traits come from ``gamedata``): suspect names (§7.4), Force cards
(§9), abilities (§10), the decisions a seat may owe (§4.5) and the co-op roles (§14).  Event
cards are worded by the shared catalogue (``logtext``: ``catalog().event``), Force cards and
roles by its ``values``; the rest in the terminal's ``locales`` (``i18n.t``).
"""

from __future__ import annotations

from typing import Final

from echoridge_client.gamedata import CODE_ORDER as CODE_ORDER
from echoridge_client.gamedata import EVIDENCE_ORDER as EVIDENCE_ORDER
from echoridge_client.gamedata import SUSPECT_CODES, SUSPECT_NAMES
from echoridge_client.gamedata import TRAITS as TRAITS
from echoridge_client.logtext import catalog
from echoridge_terminal.i18n import language, t

#: §7.4: suspect id -> (name, code); code bits in the order Gang, Rank, Forensics, Getaway, Weapon.
SUSPECTS: Final[dict[str, tuple[str, str]]] = {
    sid: (name, SUSPECT_CODES[sid]) for sid, name in SUSPECT_NAMES.items()
}
#: The evidence kinds (``evidence.clue.<kind>``: the clues that solve one, in words).
EVIDENCE_CLUE: Final = ("rank", "gang", "forensics", "getaway", "weapon")

#: §9: the Force cards (their names are the log catalogue's ``card`` words, one name per card in
#: each language; when each is played and what it does: ``force.<id>.effect``; rules.md §4.8).
FORCE: Final = (
    "code_three", "radio_car", "judges_signature", "tip_line", "checkpoint", "double_shift",
    "rubber_stamp", "telephoto", "squad_wagon", "jailhouse_deal",
)  # fmt: skip

#: §14: the Force cards whose effect differs in a co-op game (``force.<id>.effect.coop``).
COOP_FORCE: Final = frozenset({"judges_signature"})

#: §10: the abilities (``ability.<id>``: the name, ``ability.<id>.effect``).
ABILITIES: Final = (
    "wheelman", "night_shift", "sharp_eyes", "radio_ace", "street_contacts", "lab_partner",
    "quartermaster", "good_cop",
)  # fmt: skip

#: The actions (``action.<id>``).
ACTIONS: Final = (
    "arrest", "coffee_break", "call_for_backup", "catch_informant", "catch_witness",
    "search_scene", "stakeout", "bring_in_1", "bring_in_2", "resolve_event",
)  # fmt: skip

#: What a seat is asked when it owes a decision of this kind (``decision.<kind>``).
DECISIONS: Final = (
    "suspect_gain", "interrogate", "slot", "discard", "pool", "trait", "peek", "rest",
    "accusation",
)  # fmt: skip

#: §14: co-op role id -> the clue actions it may take (``ACTIONS``); its name is the log
#: catalogue's ``roles`` word.
ROLES: Final[dict[str, tuple[str, ...]]] = {
    "detective": ("catch_witness", "search_scene"),
    "patrol_cop": ("catch_informant", "stakeout", "bring_in_1", "bring_in_2"),
    "analyst": ("search_scene", "stakeout"),
    "forensic_tech": ("catch_informant", "catch_witness", "bring_in_1", "bring_in_2"),
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


def _catalogued(field: str, key: str | None) -> str:
    """A word of the log catalogue's ``values[field]`` in the current language, else ``key``."""
    words = catalog(language()).values.get(field) or {}
    return words.get(key or "") or (key or "-")


def role_name(role: str | None) -> str:
    return _catalogued("roles", role)


def role_actions(role: str | None) -> str:
    """The clue actions of a role in words (Bring in for Holding once, for both steps)."""
    words = []
    for action in ROLES.get(role or "", ()):
        word = t("action.bring_in") if action.startswith("bring_in") else t(f"action.{action}")
        if word not in words:
            words.append(word)
    return ", ".join(words) or "-"


def force_name(card: str) -> str:
    return _catalogued("card", card)


def force_effect(card: str, together: bool = False) -> str:
    """When a Force card is played and what it does (``together``: in a co-op game)."""
    if together and card in COOP_FORCE:
        return t(f"force.{card}.effect.coop")
    return t(f"force.{card}.effect") if card in FORCE else ""


def ability_name(ability: str | None) -> str:
    return t(f"ability.{ability}") if ability in ABILITIES else (ability or "-")


def ability_effect(ability: str | None) -> str:
    return t(f"ability.{ability}.effect") if ability in ABILITIES else ""


def action_name(action: str) -> str:
    return t(f"action.{action}") if action in ACTIONS else action.replace("_", " ").capitalize()


def decision_words(kind: str) -> str:
    return t(f"decision.{kind}") if kind in DECISIONS else kind


def evidence_clue(evidence: str) -> str:
    return t(f"evidence.clue.{evidence}") if evidence in EVIDENCE_CLUE else ""


def evidence_name(evidence: str) -> str:
    """An evidence kind's name (``Gang``; the log catalogue's ``evidence`` word)."""
    return _catalogued("evidence", evidence) if evidence else "-"


#: §7.4: the suspects' grammatical gender, for the words around their names (``f``: Dolores,
#: Ginger, Rita, Mae, Iris, Hattie, Lola, Cora; ``m``: the others).
FEMALE: Final = frozenset({"S02", "S04", "S06", "S08", "S10", "S12", "S14", "S16"})


def suspect_gender(suspect: str) -> str:
    return "f" if suspect in FEMALE else "m"
