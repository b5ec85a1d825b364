"""The greedy bot's estimates: what an action is worth to this seat now (clues, solves, badges,
Suspects, event rewards) and the odds of a Stakeout or a Search; mixed into ``greedy.Turn``.

In co-op (rules.md §14) a badge counts only for the team's Suspect draws at its levels (there is
no tie-break), an arrest fills no set, a night-only resolve loses its limit and a Suspect gain is
a draw that needs a card in the deck."""

from __future__ import annotations

from typing import Any

from echoridge_client.botdata import (
    BADGE,
    CLUE,
    COOP_BADGE,
    EVENT_REWARDS,
    EVIDENCE_OF,
    INTERROGATE_LEVELS,
    NAB_EVENTS,
    SEARCH_FAILURES,
    SEARCH_SUCCESSES,
    SOLVE,
    STAKEOUT_VALUES,
    SUSPECT,
    Block,
    Command,
    View,
    as_block,
)


class Values:
    """Value estimates over the digested view that ``greedy.Turn`` holds."""

    view: View
    you: dict[str, Any]
    seat: int
    players: list[dict[str, Any]]
    me: dict[str, Any]
    info: float
    night: bool
    by_block: dict[Block, dict[str, Any]]
    slots: list[Any]
    evidence: dict[str, dict[str, Any]]
    coop: dict[str, Any] | None
    _memo: dict[Any, Any]  # (greedy.Turn's) the estimates below that are constant in a decision

    def can_book_after_hold(self, block: Block) -> bool:  # greedy.Turn's
        raise NotImplementedError

    def badge(self) -> float:
        known = self._memo.get("badge")
        if known is None:
            known = self._memo["badge"] = self._badge()
        return float(known)

    def _badge(self) -> float:
        level = int(self.me.get("badge", 0))
        if level >= 10:
            return 0.0
        if self.coop is not None:  # the levels give the team a draw; no tie-break in co-op
            draw = SUSPECT * self.info if self._deck() > 0 else 0.0
            return draw if level + 1 in INTERROGATE_LEVELS else COOP_BADGE * draw
        bonus = 0.0
        if level + 1 in INTERROGATE_LEVELS:
            others = any(
                int(p.get("suspects", 0)) > 0 for p in self.players if p.get("seat") != self.seat
            )
            bonus = SUSPECT * self.info if others or self._deck() > 0 else 0.0
        return BADGE + bonus

    def _deck(self) -> int:
        return int((self.view.get("suspects") or {}).get("deck", 0))

    def clue(self, evidence: str) -> float:
        """A clue of that evidence, collected by this seat."""
        key = ("clue", evidence)
        known = self._memo.get(key)
        if known is None:
            known = self._memo[key] = self._clue(evidence)
        return float(known)

    def _clue(self, evidence: str) -> float:
        e = self.evidence.get(evidence)
        if e is None or e.get("holder") is not None:
            return 0.0
        clues, needed = int(e.get("clues", 0)), int(e.get("needed", 1))
        mine = self._my_clues(evidence)
        value = (CLUE if mine == 0 else 0.5) * self.info  # a first clue earns the solve's Suspect
        if clues + 1 >= needed:
            value += (SOLVE + (SUSPECT if mine == 0 else 0.0)) * self.info
        return value

    def _my_clues(self, evidence: str) -> int:
        me = self.me
        return {
            "rank": len(me.get("informants") or ()),
            "gang": len(me.get("witnesses") or ()),
            "forensics": sum(1 for s in me.get("search") or () if s),
            "getaway": len(me.get("stakeout") or ()),
            "weapon": len(me.get("holding_tokens") or ()),
        }.get(evidence, 0)

    def ability(self) -> str:
        return str(self.me.get("ability") or "")

    def reward(self, code: str | None) -> float:
        if code is None:
            return 0.0
        if code == "B":
            return self.badge()
        if code == "S":
            return SUSPECT * self.info if self.coop is None or self._deck() > 0 else 0.0
        if code == "I":
            others = any(
                int(p.get("suspects", 0)) > 0 for p in self.players if p.get("seat") != self.seat
            )
            return SUSPECT * self.info if others or self._deck() > 0 else 0.0
        if code == "E":
            known = self.you.get("traits") or {}
            solved = [e for e, v in self.evidence.items() if v.get("holder") is not None]
            if any(e not in known for e in solved):
                return (SOLVE + 1.0) * self.info
            return SUSPECT * self.info
        if code in ("F", "POOL"):
            return 0.6
        if code == "P":
            return 0.4
        return 0.0

    def event_bonus(self, block: Block, apprehend: bool) -> float:
        """Rewards for removing event tokens on ``block`` by apprehending its mobster (NAB)."""
        if not apprehend:
            return 0.0
        info = self.by_block.get(block) or {}
        total = 0.0
        for slot in info.get("events") or ():
            total += self.resolve_value(int(slot), nab_only=True)
        return total

    def resolve_value(self, slot: int, nab_only: bool = False) -> float:
        if not 1 <= slot <= len(self.slots):
            return 0.0
        active = self.slots[slot - 1]
        if not active:
            return 0.0
        card = str(active.get("card"))
        if nab_only and card not in NAB_EVENTS:
            return 0.0
        resolver, contributor, _, _ = EVENT_REWARDS.get(card, (None, None, 1, False))
        tokens = len(active.get("tokens") or ())
        value = 0.3  # an active event hurts everyone; a Timed one may cost a Suspect card
        if tokens <= 1:
            value += self.reward(resolver)
        else:
            value += 0.6 * self.reward(contributor)
        return value

    def stakeout_odds(self, block: Block, risk: int) -> float:
        margin = 1 if self.ability() == "sharp_eyes" else 0
        known = {
            as_block(t["block"]): t.get("value")
            for t in self.you.get("known_tokens") or ()
            if t.get("kind") == "stakeout"
        }
        if isinstance(known.get(block), int):
            return 1.0 if int(known[block]) <= risk + margin else 0.0
        pool = list(STAKEOUT_VALUES)
        gone = [v for p in self.players for v in p.get("stakeout") or ()]
        for b, v in known.items():
            info = self.by_block.get(b) or {}
            if b != block and isinstance(v, int) and (info.get("clue") or {}).get("kind"):
                gone.append(v)
        for v in gone:
            if v in pool:
                pool.remove(v)
        if not pool:
            return 0.5
        return sum(1 for v in pool if v <= risk + margin) / len(pool)

    def search_odds(self) -> float:
        revealed = [s for p in self.players for s in p.get("search") or ()]
        good = SEARCH_SUCCESSES - sum(1 for s in revealed if s)
        bad = SEARCH_FAILURES - sum(1 for s in revealed if not s)
        good, bad = max(good, 0), max(bad, 0)
        return good / (good + bad) if good + bad else 0.5

    def value(self, c: Command, block: Block) -> tuple[float, int]:
        """Estimated (value, hours) of an action command taken on ``block``."""
        kind = c.get("type")
        info = self.by_block.get(block) or {}
        mob = info.get("mobster")
        ability = self.ability()
        quick = 1 if ability == "street_contacts" else 2
        if kind in ("catch_informant", "catch_witness"):
            ev = EVIDENCE_OF[str(kind)]
            return self.badge() + self.clue(ev) + self.event_bonus(block, True), quick
        if kind == "search_scene":
            hours = 1 if ability == "lab_partner" else 2
            return self.badge() + self.search_odds() * self.clue("forensics"), hours
        if kind == "stakeout":
            risk = int(c.get("risk", 1))
            p = self.stakeout_odds(block, risk)
            return p * (self.badge() + self.clue("getaway")) + (1 - p) * 0.2, risk
        if kind == "hold_mobster":
            holding = self.view.get("city", {}).get("holding_tokens") or ()
            worth = 0.1
            if mob in holding and self.can_book_after_hold(block):
                worth = 0.5 * (self.badge() + self.clue("weapon"))
            return worth + self.event_bonus(block, True), 2
        if kind == "book_mobster":
            holding = self.view.get("city", {}).get("holding_tokens") or ()
            if self.me.get("holding") in holding:
                return 0.5 * (self.badge() + self.clue("weapon")) + 0.5, 2
            return 0.6, 2
        if kind == "arrest":
            arrests = set(self.me.get("arrests") or ())
            if self.coop is not None:  # no arrest spots: only the event tokens it removes
                value = 0.02
            elif mob and mob not in arrests:
                value = self.badge() if len(arrests) == 2 else 0.45 * self.badge()
            else:
                value = 0.02
            return value + self.event_bonus(block, True), 1
        if kind == "resolve_event":
            slot = int(c.get("slot", 0))
            active = self.slots[slot - 1] if 1 <= slot <= len(self.slots) else None
            if not active:
                return 0.0, 1
            _, _, hours, night_only = EVENT_REWARDS.get(
                str(active.get("card")), (None, None, 1, False)
            )
            if night_only and not self.night and self.coop is None:
                return 0.0, hours
            return self.resolve_value(slot), hours
        if kind == "call_for_backup":
            return 0.0, int(c.get("risk", 1))
        return 0.0, 1
