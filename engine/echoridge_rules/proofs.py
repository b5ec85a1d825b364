"""Committed items and their proofs (protocol/SPEC.md, "Fairness").

Every hidden item gets a salted commitment at setup, published in the public view: each Search
and Stakeout token (``token/C,R``), the murderer (``murderer``), each Suspect deck position
(``deck/N``, N = 0 for the top card at setup) and each evidence trait (``trait/EVIDENCE``).  A
look at another player's hand commits each freshly shuffled slot (``look/K/S``: the K-th deal of
the game, slot S from 1).  A proof is (label, value, salt); anyone holding one checks it with
``echoridge_protocol.fairness.commit``.  The views carry them: ``public_proofs`` for every
viewer, ``private_proofs`` for one seat.
"""

from __future__ import annotations

from typing import Any

from echoridge_rules.board import Block
from echoridge_rules.data import EVIDENCE_ORDER, SUSPECTS, Evidence
from echoridge_rules.model import ClueKind, ClueToken, Place, State
from echoridge_rules.queries import coop, knows_trait, team_known_tokens

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


# --- the proofs a view carries ------------------------------------------------------------------


def proof(label: str, value: str, salt: bytes) -> dict[str, str]:
    return {"label": label, "value": value, "salt": salt.hex()}


def public_proofs(state: State) -> list[dict[str, str]]:
    """Items revealed to all: Search tokens flipped and Stakeout tokens won onto a mat; in
    co-op also the Suspect cards drawn face up and the traits of solved evidence (§14)."""
    salts = dict(state.salts)
    out = [
        proof(token_label(t.block), token_value(t), salts[token_label(t.block)])
        for t in state.tokens
        if t.place is Place.MAT and token_label(t.block) in salts
    ]
    if coop(state):
        out.extend(_drawn(state, [c for p in state.players for c in p.suspects], salts))
        out.extend(_traits(state, [e for e, _ in state.solved], salts))
    return out


def _drawn(state: State, cards: list[str], salts: dict[str, bytes]) -> list[dict[str, str]]:
    """The deck/N proofs of Suspect cards drawn from the deck."""
    out = []
    for card in cards:
        label = deck_label(state.deck_order.index(card)) if card in state.deck_order else None
        if label in salts:
            out.append(proof(label, card, salts[label]))
    return out


def _traits(state: State, known: list[Any], salts: dict[str, bytes]) -> list[dict[str, str]]:
    """The trait/E proofs of these evidence kinds, in §7.1 order."""
    murderer = SUSPECTS.get(state.murderer)
    return [
        proof(label, murderer.trait(e), salts[label])
        for e in EVIDENCE_ORDER
        if murderer is not None and e in known and (label := trait_label(e)) in salts
    ]


def private_proofs(state: State, seat: int) -> list[dict[str, str]]:
    """Proofs of what this seat alone may know (in co-op: its team): its drawn Suspects, the
    face-down tokens it looked at, the traits it knows and the cards it saw in other hands."""
    salts = dict(state.salts)
    p = state.players[seat]
    team = coop(state)  # co-op: the drawn cards and traits are public proofs; tokens the team's
    out = [] if team else _drawn(state, list(p.suspects), salts)
    tokens = {t.block: t for t in state.tokens}
    for block in sorted(team_known_tokens(state, seat)):
        label = token_label(block)
        if label in salts:
            out.append(proof(label, token_value(tokens[block]), salts[label]))
    if not team:
        known = [e for e in EVIDENCE_ORDER if knows_trait(state, seat, e)]
        out.extend(_traits(state, known, salts))
    out.extend(proof(label, card, salt) for label, card, salt in p.look_proofs)
    return out
