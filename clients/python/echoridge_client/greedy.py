"""The greedy bot's turn logic: one decision, from a seat's view and its legal commands
(answers to the decisions it owes, the accusation, and on its turns the action, or the drive
and the action, with the best value per hour; ``botvalues`` estimates the values).

In a co-op game (rules.md §14) it reasons with the team's knowledge, which the view shows every
officer (``botdata.candidates``), and the team accuses as one: every seat names the suspect the
lead named, or a teammate named, or else the first of the candidates, so the seats agree.  It
plans with the co-op rules: its role's clue actions only (the engine's ``legal`` has the last
word), no day or night limits, the hour cap under the Out-of-Time Marker, no arrest sets."""

from __future__ import annotations

import random
from typing import Any

from echoridge_client.botdata import (
    CLUE_ACTIONS,
    COOPERATIVE,
    FORCE_PREFERENCE,
    HOURS,
    HQ,
    MIN_SCORE,
    ROLE_ACTIONS,
    SURCHARGE_ROW_EVENTS,
    SURCHARGE_TOKEN_EVENTS,
    Block,
    Command,
    View,
    as_block,
    candidates,
    distance,
    innocents,
    known_traits,
    of_kind,
    suspect_trait,
)
from echoridge_client.botvalues import Values
from echoridge_client.gamedata import TRAITS


class Turn(Values):
    """One decision: the view digested into what the heuristic needs."""

    def __init__(self, view: View, legal: list[Command], rng: random.Random) -> None:
        self.view = view
        self.legal = legal
        self.rng = rng
        you = view["you"]
        self.you: dict[str, Any] = you
        self.seat: int = int(you["seat"])
        self.players: list[dict[str, Any]] = list(view.get("players") or [])
        self.me: dict[str, Any] = self.players[self.seat] if self.players else {}
        self.candidates = candidates(view)
        # Co-op (§14): the team's game; the hour cap is the space under the Out-of-Time Marker.
        coop = view.get("coop") if view.get("mode") == COOPERATIVE else None
        self.coop: dict[str, Any] | None = coop if isinstance(coop, dict) else None
        self.cap = int(self.coop.get("cap", HOURS)) if self.coop else HOURS
        role = self.me.get("role")
        self.role_actions = ROLE_ACTIONS.get(str(role), CLUE_ACTIONS) if self.coop else None
        # Information is worth little once the murderer is known.
        self.info = 1.0 if len(self.candidates) > 1 else 0.1
        turn = view.get("turn") or {}
        self.night = turn.get("time") == "night"
        self.space = int(turn.get("start", self.me.get("space", 0)))
        self.spent = int(turn.get("drive_hours", 0)) + int(turn.get("action_hours", 0))
        self.by_block = {as_block(b["block"]): b for b in self._blocks()}
        self.slots: list[Any] = list((view.get("events") or {}).get("slots") or [])
        self.evidence = {
            str(e.get("evidence")): e for e in view.get("evidence") or () if isinstance(e, dict)
        }
        # memos of this decision's constant estimates (see ``Values``): the same results, once
        self._memo: dict[Any, Any] = {}
        self._at: dict[tuple[Block, bool], list[tuple[float, int]]] = {}
        self._surcharges: tuple[dict[Block, int], dict[int, int]] | None = None

    # --- dispatch -------------------------------------------------------------------------------

    def choose(self) -> Command | None:
        kinds = {c.get("type") for c in self.legal}
        if "accuse" in kinds:
            return self.accuse()
        answers = {
            "gain_suspect": self.gain_suspect,
            "interrogate": self.interrogate,
            "pick_slot": self.pick_slot,
            "discard_force": self.discard_force,
            "take_from_pool": self.take_from_pool,
            "learn_trait": self.learn_trait,
            "peek_token": self.peek_token,
            "rest_case": self.rest_case,
        }
        for kind, answer in answers.items():
            if kind in kinds:
                return answer()
        return self.play()

    # --- decisions ------------------------------------------------------------------------------

    def accuse(self) -> Command | None:
        options = {str(c.get("suspect")): c for c in of_kind(self.legal, "accuse")}
        pool = [s for s in self.candidates if s in options]
        if not pool:  # cannot happen with a truthful view; still never name a known innocent
            known = innocents(self.view)
            pool = sorted(s for s in options if s not in known) or sorted(options)
        if self.coop is not None:
            return options[self.team_choice(pool)]
        return options[self.rng.choice(pool)]

    def team_choice(self, pool: list[str]) -> str:
        """The team's one accusation: the lead's choice if it is already in and still possible,
        else a teammate's, else the first candidate (every seat of the team knows the same, so
        every seat that gets here names the same suspect)."""
        accusations = list((self.you.get("team") or {}).get("accusations") or ())
        lead = (self.coop or {}).get("lead")
        if isinstance(lead, int) and 0 <= lead < len(accusations):
            accusations.insert(0, accusations[lead])
        for s in accusations:
            if s is not None and str(s) in pool:
                return str(s)
        return pool[0]

    def _unseen_estimate(self, seat: int) -> tuple[int, int]:
        """How promising a look at ``seat`` is: cards it holds minus my looks at it."""
        held = int(self.players[seat].get("suspects", 0)) if seat < len(self.players) else 0
        looks = sum(1 for pair in self.view.get("looks") or () if list(pair) == [self.seat, seat])
        return (held - looks, held)

    def _best_target(self, legal: list[Command], key: str) -> Command | None:
        targets = [c for c in legal if c.get(key) is not None]
        if not targets:
            return None
        return max(targets, key=lambda c: self._unseen_estimate(int(c[key])))

    def gain_suspect(self) -> Command | None:
        options = of_kind(self.legal, "gain_suspect")
        draw = [c for c in options if c.get("look_at") is None]
        if draw:  # a drawn card is always one not seen before
            return draw[0]
        return self._best_target(options, "look_at")

    def interrogate(self) -> Command | None:
        options = of_kind(self.legal, "interrogate")
        return self._best_target(options, "target") or options[0]

    def pick_slot(self) -> Command | None:
        return self.rng.choice(of_kind(self.legal, "pick_slot"))

    def _force_rank(self, card: str) -> int:
        if card in FORCE_PREFERENCE:
            return FORCE_PREFERENCE.index(card)
        return len(FORCE_PREFERENCE)

    def discard_force(self) -> Command | None:
        options = of_kind(self.legal, "discard_force")
        return max(options, key=lambda c: self._force_rank(str(c.get("card"))))

    def take_from_pool(self) -> Command | None:
        options = of_kind(self.legal, "take_from_pool")
        return min(options, key=lambda c: self._force_rank(str(c.get("card"))))

    def learn_trait(self) -> Command | None:
        """Learn the trait that splits the remaining candidates most evenly."""
        options = of_kind(self.legal, "learn_trait")
        known = known_traits(self.view)
        fresh = [c for c in options if c.get("evidence") not in known] or options

        def balance(c: Command) -> int:
            e = str(c.get("evidence"))
            if e not in TRAITS:
                return 0
            ones = sum(1 for s in self.candidates if suspect_trait(s, e) == TRAITS[e][1])
            return min(ones, len(self.candidates) - ones)

        return max(fresh, key=balance)

    def peek_token(self) -> Command | None:
        """Peek at a Stakeout token near the car (its value makes a sure, cheap Stakeout)."""
        options = of_kind(self.legal, "peek_token")
        kinds = {as_block(b["block"]): (b.get("clue") or {}).get("kind") for b in self._blocks()}
        car = self._car()

        def key(c: Command) -> tuple[int, int]:
            b = as_block(c["block"])
            return (0 if kinds.get(b) == "stakeout" else 1, distance(car, b))

        return min(options, key=key)

    def rest_case(self) -> Command | None:
        space = int(self.me.get("space", 0))
        rest = space >= self.cap - 3 or len(self.candidates) <= 1
        for c in of_kind(self.legal, "rest_case"):
            if bool(c.get("rest")) is rest:
                return c
        return None

    # --- the turn -------------------------------------------------------------------------------

    def _blocks(self) -> list[dict[str, Any]]:
        return list((self.view.get("city") or {}).get("blocks") or [])

    def _car(self) -> Block:
        return as_block(self.me.get("car") or HQ)

    def play(self) -> Command | None:
        deal = [c for c in of_kind(self.legal, "play_force") if c.get("card") == "jailhouse_deal"]
        if deal and self.info >= 1.0:
            return deal[0]
        proceed = of_kind(self.legal, "proceed")
        if proceed:
            return proceed[0]
        best: tuple[float, Command] | None = None  # (value per hour, command); first best wins
        for score, c in self.scored():
            if best is None or score > best[0]:
                best = (score, c)
        if best is not None and best[0] >= MIN_SCORE:
            return best[1]
        return self.wait()

    def scored(self) -> list[tuple[float, Command]]:
        """Each action here and each drive, with its estimated value per hour (a drive: that of
        the best action predicted at its end), in the order of ``legal``, actions first."""
        out: list[tuple[float, Command]] = []
        car = self._car()
        for c in self.legal:
            kind = c.get("type")
            if kind in ("drive", "play_force", "coffee_break"):
                continue
            value, hours = self.value(c, car)
            if c.get("night_shift"):
                value *= 0.9  # a scarce waiver: keep it for when it is the only way
            out.append((value / max(hours, 1), c))
        for c in of_kind(self.legal, "drive"):
            path = [as_block(b) for b in c.get("path") or ()]
            if not path:
                continue
            drive = self.drive_hours(path)
            value, hours = self.best_at(path[-1], self.night, drive)
            out.append((value / max(drive + hours, 1), c))
        return out

    def wait(self) -> Command | None:
        """Nothing worth its hours now: drive to where the other time of day will have work,
        then (or else) take a Coffee Break."""
        drives = of_kind(self.legal, "drive") if self.coop is None else []  # co-op: no night
        if drives:
            here = self.best_at(self._car(), not self.night, 0, ignore_cap=True)[0]
            best: tuple[float, Command] | None = None
            for c in drives:
                path = [as_block(b) for b in c.get("path") or ()]
                # the drive, a Coffee Break, then at least a 2 h action must still fit
                if not path or self.space + self.spent + self.drive_hours(path) + 3 > self.cap:
                    continue
                value, _ = self.best_at(path[-1], not self.night, 0, ignore_cap=True)
                score = value / (len(path) + 2)
                if value > here and (best is None or score > best[0]):
                    best = (score, c)
            if best is not None:
                return best[1]
        for kind in ("coffee_break", "arrest"):
            found = of_kind(self.legal, kind)
            if found:
                return found[0]
        return None

    def drive_hours(self, path: list[Block]) -> int:
        """Base hours plus event surcharges (rules.md §4.3)."""
        if self._surcharges is None:
            token_blocks: dict[Block, int] = {}
            rows: dict[int, int] = {}
            for slot in self.slots:
                if not slot:
                    continue
                card = slot.get("card")
                for t in slot.get("tokens") or ():
                    b = as_block(t)
                    if card in SURCHARGE_TOKEN_EVENTS:
                        token_blocks[b] = token_blocks.get(b, 0) + 1
                    if card in SURCHARGE_ROW_EVENTS:
                        rows[b[1]] = rows.get(b[1], 0) + 1
            self._surcharges = (token_blocks, rows)
        token_blocks, rows = self._surcharges
        if not token_blocks and not rows:
            return len(path)
        return sum(1 + token_blocks.get(b, 0) + rows.get(b[1], 0) for b in path)

    def best_at(
        self, block: Block, night: bool, drive: int, ignore_cap: bool = False
    ) -> tuple[float, int]:
        """The best (value, hours) of an action predicted possible on ``block``."""
        left = self.cap - self.space - self.spent - drive
        best = (0.0, 1)
        at = self._at.get((block, night))
        if at is None:  # the values do not depend on the drive: once per block and time
            at = self._at[(block, night)] = [
                self.value(c, block) for c in self.predicted(block, night)
            ]
        for value, hours in at:
            if not ignore_cap and hours > left:
                continue
            if value / max(hours, 1) > best[0] / max(best[1], 1):
                best = (value, hours)
        return best

    def may(self, kind: str, at_night: bool, night: bool) -> bool:
        """Whether this seat may take a clue action of ``kind`` (``at_night``: a night action,
        else a day one) at that time of day: in co-op, if its role has it, day or night."""
        if self.role_actions is not None:
            return kind in self.role_actions
        return at_night == night

    def predicted(self, block: Block, night: bool) -> list[Command]:
        """The actions this seat could take on ``block`` at that time of day (a guess: the
        engine decides; what is wrong here only costs a detour)."""
        info = self.by_block.get(block) or {}
        city = self.view.get("city") or {}
        out: list[Command] = []
        mob = info.get("mobster")
        clue = info.get("clue") or {}
        if mob:
            out.append({"type": "arrest"})
            if self.may("catch_informant", False, night) and block[1] in (
                city.get("informants") or ()
            ):
                out.append({"type": "catch_informant"})
            if self.may("catch_witness", True, night) and block[0] in (
                city.get("witnesses") or ()
            ):
                out.append({"type": "catch_witness"})
            if self.may("hold_mobster", True, night) and not self.me.get("holding"):
                out.append({"type": "hold_mobster"})
        if clue.get("kind") == "search" and self.may("search_scene", False, night):
            out.append({"type": "search_scene"})
        if clue.get("kind") == "stakeout" and self.may("stakeout", True, night):
            out.extend({"type": "stakeout", "risk": r} for r in range(1, 6))
        if block == HQ and self.may("book_mobster", True, night) and self.me.get("holding"):
            out.append({"type": "book_mobster"})
        for slot in info.get("events") or ():
            out.append({"type": "resolve_event", "slot": slot})
        return out

    def can_book_after_hold(self, block: Block) -> bool:
        """Whether a mobster held on ``block`` now could still be booked at HQ in time: step 2
        needs a later turn that begins at night (any turn in co-op), then the drive to HQ and
        2 h."""
        after = self.space + self.spent + distance(self._car(), block) + 2
        if self.coop is None and after <= 12:
            after = 13
        elif self.coop is None and 25 <= after <= 36:
            after = 37
        return after + distance(block, HQ) + 2 <= self.cap
