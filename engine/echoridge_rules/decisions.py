"""Decisions a seat owes (rules.md §4.5).  The game waits until each is answered.

Each decision's ``kind`` is public (everyone sees who owes what); its options are the owing
seat's own business and are listed only in that seat's view.
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_rules.serial import tagged


@tagged("choose_gain")
@dataclass(frozen=True, slots=True)
class ChooseGain:
    """§7.3: draw the top Suspect, or look at another player's card."""

    seat: int
    kind = "suspect_gain"


@tagged("choose_interrogate")
@dataclass(frozen=True, slots=True)
class ChooseInterrogate:
    """§6: pick a player to interrogate, or skip."""

    seat: int
    kind = "interrogate"


@tagged("choose_slot")
@dataclass(frozen=True, slots=True)
class ChooseSlot:
    """Pick one of the target's freshly shuffled face-down cards."""

    seat: int
    target: int
    slots: tuple[str, ...]  # secret: the card in each slot
    deal: int = 0  # K of the slots' look/K/S labels
    salts: tuple[bytes, ...] = ()  # secret: the salt of each slot
    commitments: tuple[bytes, ...] = ()  # public to the picker: each slot's commitment
    kind = "slot"


@tagged("choose_discard")
@dataclass(frozen=True, slots=True)
class ChooseDiscard:
    """Discard a Force card: over the hand limit, or for DISCARD_F."""

    seat: int
    reason: str  # "hand_limit" or "expiry"
    kind = "discard"


@tagged("choose_pool_card")
@dataclass(frozen=True, slots=True)
class ChoosePoolCard:
    seat: int
    kind = "pool"


@tagged("choose_trait")
@dataclass(frozen=True, slots=True)
class ChooseTrait:
    """`E` reward: which solved evidence to learn."""

    seat: int
    kind = "trait"


@tagged("choose_peek")
@dataclass(frozen=True, slots=True)
class ChoosePeek:
    """`P` reward: which face-down token to look at."""

    seat: int
    kind = "peek"


@tagged("choose_rest")
@dataclass(frozen=True, slots=True)
class ChooseRest:
    seat: int
    kind = "rest"


@tagged("choose_accusation")
@dataclass(frozen=True, slots=True)
class ChooseAccusation:
    seat: int
    kind = "accusation"


Decision = (
    ChooseGain | ChooseInterrogate | ChooseSlot | ChooseDiscard | ChoosePoolCard | ChooseTrait
    | ChoosePeek | ChooseRest | ChooseAccusation
)
