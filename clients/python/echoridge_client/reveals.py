"""Checking the server's reveals against its commitments, on the spot (SPEC.md §9).

Every proof in a view — the public ``proofs`` and the seat's ``you.proofs`` — must open the
commitment published for its label at setup; a look's card (label ``look/K/S``) must open the
commitment the picker was shown for slot S when the slots were dealt.  ``Verifier`` remembers
what it has checked, so a view is checked in time proportional to what is new.
"""

from __future__ import annotations

from typing import Any

from echoridge_client.errors import RevealError
from echoridge_protocol.fairness import commit


class Verifier:
    def __init__(self) -> None:
        self.checked: set[tuple[str, str, str]] = set()
        self.slot_commitments: dict[str, str] = {}  # "look/K/S" -> the commitment shown

    def check(self, view: dict[str, Any]) -> int:
        """Check every proof of the view not checked before; the number of new proofs.
        Raises RevealError on the first that does not open its commitment."""
        commitments = view.get("commitments") or {}
        you = view.get("you") or {}
        decision = you.get("decision")
        if isinstance(decision, dict) and decision.get("kind") == "slot":
            for slot, digest in enumerate(decision.get("commitments") or [], start=1):
                self.slot_commitments.setdefault(f"look/{decision['deal']}/{slot}", digest)
        new = 0
        for proof in [*(view.get("proofs") or []), *(you.get("proofs") or [])]:
            key = (proof["label"], proof["value"], proof["salt"])
            if key in self.checked:
                continue
            label = proof["label"]
            expected = (
                self.slot_commitments.get(label)
                if label.startswith("look/")
                else commitments.get(label)
            )
            if expected is None:
                if label.startswith("look/"):
                    continue  # a single-slot look is dealt and seen at once: nothing to match
                raise RevealError(f"{label} was revealed but never committed")
            digest = commit(label, proof["value"], bytes.fromhex(proof["salt"])).hex()
            if digest != expected:
                raise RevealError(f"{label} = {proof['value']} does not open its commitment")
            self.checked.add(key)
            new += 1
        return new
