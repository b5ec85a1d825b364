"""Committed items and their proofs (protocol/SPEC.md, "Fairness").

Every hidden item gets a salted commitment at setup, published in the public view: each Search
and Stakeout token (``token/C,R``), the murderer (``murderer``), each Suspect deck position
(``deck/N``, N = 0 for the top card at setup) and each evidence trait (``trait/EVIDENCE``).  A
look at another player's hand commits each freshly shuffled slot (``look/K/S``: the K-th deal of
the game, slot S from 1).  A proof is (label, value, salt); anyone holding one checks it with
``echoridge_protocol.fairness.commit``.
"""

from __future__ import annotations

from echoridge.rules.board import Block
from echoridge.rules.data import SUSPECTS, Evidence
from echoridge.rules.model import ClueKind, ClueToken

MURDERER = "murderer"


def token_label(block: Block) -> str:
    return f"token/{block[0]},{block[1]}"


def deck_label(position: int) -> str:
    return f"deck/{position}"


def trait_label(evidence: Evidence) -> str:
    return f"trait/{evidence.value}"


def look_label(deal: int, slot: int) -> str:
    return f"look/{deal}/{slot}"


def token_value(token: ClueToken) -> str:
    if token.kind is ClueKind.SEARCH:
        return "success" if token.value == 1 else "failure"
    return str(token.value)


def setup_items(
    tokens: tuple[ClueToken, ...], murderer: str, deck: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(label, value) of every item committed at setup, in a fixed order."""
    items = [(token_label(t.block), token_value(t)) for t in tokens]
    items.append((MURDERER, murderer))
    items += [(deck_label(i), card) for i, card in enumerate(deck)]
    items += [(trait_label(e), SUSPECTS[murderer].trait(e)) for e in Evidence]
    return items
