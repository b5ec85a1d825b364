"""Bot policies: given a seat's view and its legal commands, choose one command to send.

A policy sees only what its seat may see: the view map of SPEC.md §6.1 (``view["you"]`` holds
its hand, what it has seen, its known traits and tokens, the decision it owes and ``legal``, the
exact command maps it may send now).  ``choose`` always returns one member of ``legal``, the very
map it was given, unchanged.

* ``RandomPolicy``: uniform among the legal commands.
* ``GreedyPolicy``: a simple heuristic.  It reasons over known innocents (its hand and the cards
  it has seen) and known traits, accuses a suspect consistent with all of them, answers
  decisions sensibly, and on its turns takes the action, or the drive to a block and the action
  there, with the best estimated value per hour: clue actions first, then useful arrests and
  event rewards; a Coffee Break only when nothing useful can be done.

This module depends on nothing but the standard library (the client package must not import the
server): the suspect table of rules.md §7.4 is in ``gamedata``, the event rewards of §11.5 are
copied below.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any, Final, Protocol

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
SUSPECT = 2.5  # one more Suspect card seen: one more innocent
MIN_SCORE = 0.05  # below this value per hour, an action is not worth its hours


def suspect_trait(suspect: str, evidence: str) -> str:
    """The trait a suspect shows for an evidence (rules.md §7.4)."""
    bit = int(SUSPECT_CODES[suspect][CODE_ORDER.index(evidence)])
    return TRAITS[evidence][bit]


def innocents(view: Mapping[str, Any]) -> set[str]:
    """Suspects the seat holds or has seen: all innocent."""
    you = view.get("you") or {}
    return {str(s) for s in you.get("suspects") or ()} | {str(s) for s in you.get("seen") or ()}


def candidates(view: Mapping[str, Any]) -> list[str]:
    """Suspects consistent with every known trait and not known to be innocent, in id order."""
    you = view.get("you") or {}
    traits: Mapping[str, Any] = you.get("traits") or {}
    out = innocents(view)
    return [
        s
        for s in SUSPECT_CODES
        if s not in out
        and all(e not in TRAITS or suspect_trait(s, e) == v for e, v in traits.items())
    ]


# --- the policies -------------------------------------------------------------------------------


class Policy(Protocol):
    def choose(self, view: View, legal: list[Command]) -> Command:
        """Return one member of ``legal`` (the map itself, unchanged)."""
        ...


class RandomPolicy:
    """Uniform among the legal commands; the same seed gives the same choices."""

    def __init__(self, seed: int | bytes | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        return self._rng.choice(legal)


class GreedyPolicy:
    """A simple heuristic player (see the module docstring); deterministic for a seed.

    Should the view lack something the heuristic expects (a server newer than this client), it
    falls back to a safe legal command and counts the miss in ``fallbacks``.
    """

    def __init__(self, seed: int | bytes | None = None) -> None:
        self._rng = random.Random(seed)
        self.fallbacks = 0

    def choose(self, view: View, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        if len(legal) == 1:
            return legal[0]
        try:
            pick = _Turn(view, legal, self._rng).choose()
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            pick = None
        if pick is None or not any(pick is c for c in legal):
            self.fallbacks += 1
            return _fallback(legal, self._rng)
        return pick


def _fallback(legal: list[Command], rng: random.Random) -> Command:
    for kind in ("coffee_break", "proceed"):
        for c in legal:
            if c.get("type") == kind:
                return c
    return rng.choice(legal)


def _of(legal: Iterable[Command], kind: str) -> list[Command]:
    return [c for c in legal if c.get("type") == kind]


def _block(value: Any) -> Block:
    return (int(value[0]), int(value[1]))


class _Turn:
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
        # Information is worth little once the murderer is known.
        self.info = 1.0 if len(self.candidates) > 1 else 0.1
        turn = view.get("turn") or {}
        self.night = turn.get("time") == "night"
        self.space = int(turn.get("start", self.me.get("space", 0)))
        self.spent = int(turn.get("drive_hours", 0)) + int(turn.get("action_hours", 0))
        self.by_block = {_block(b["block"]): b for b in self._blocks()}
        self.slots: list[Any] = list((view.get("events") or {}).get("slots") or [])
        self.evidence = {
            str(e.get("evidence")): e for e in view.get("evidence") or () if isinstance(e, dict)
        }

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
        options = {str(c.get("suspect")): c for c in _of(self.legal, "accuse")}
        pool = [s for s in self.candidates if s in options]
        if not pool:  # cannot happen with a truthful view; still never name a known innocent
            known = innocents(self.view)
            pool = sorted(s for s in options if s not in known) or sorted(options)
        return options[self.rng.choice(pool)]

    def _unseen_estimate(self, seat: int) -> tuple[int, int]:
        """How promising a look at ``seat`` is: cards it holds minus my looks at it."""
        held = int(self.players[seat].get("suspects", 0)) if seat < len(self.players) else 0
        looks = sum(
            1 for pair in self.view.get("looks") or () if list(pair) == [self.seat, seat]
        )
        return (held - looks, held)

    def _best_target(self, legal: list[Command], key: str) -> Command | None:
        targets = [c for c in legal if c.get(key) is not None]
        if not targets:
            return None
        return max(targets, key=lambda c: self._unseen_estimate(int(c[key])))

    def gain_suspect(self) -> Command | None:
        options = _of(self.legal, "gain_suspect")
        draw = [c for c in options if c.get("look_at") is None]
        if draw:  # a drawn card is always one not seen before
            return draw[0]
        return self._best_target(options, "look_at")

    def interrogate(self) -> Command | None:
        options = _of(self.legal, "interrogate")
        return self._best_target(options, "target") or options[0]

    def pick_slot(self) -> Command | None:
        return self.rng.choice(_of(self.legal, "pick_slot"))

    def _force_rank(self, card: str) -> int:
        if card in FORCE_PREFERENCE:
            return FORCE_PREFERENCE.index(card)
        return len(FORCE_PREFERENCE)

    def discard_force(self) -> Command | None:
        options = _of(self.legal, "discard_force")
        return max(options, key=lambda c: self._force_rank(str(c.get("card"))))

    def take_from_pool(self) -> Command | None:
        options = _of(self.legal, "take_from_pool")
        return min(options, key=lambda c: self._force_rank(str(c.get("card"))))

    def learn_trait(self) -> Command | None:
        """Learn the trait that splits the remaining candidates most evenly."""
        options = _of(self.legal, "learn_trait")
        known = self.you.get("traits") or {}
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
        options = _of(self.legal, "peek_token")
        kinds = {_block(b["block"]): (b.get("clue") or {}).get("kind") for b in self._blocks()}
        car = self._car()

        def key(c: Command) -> tuple[int, int]:
            b = _block(c["block"])
            return (0 if kinds.get(b) == "stakeout" else 1, _distance(car, b))

        return min(options, key=key)

    def rest_case(self) -> Command | None:
        space = int(self.me.get("space", 0))
        rest = space >= 45 or len(self.candidates) <= 1
        for c in _of(self.legal, "rest_case"):
            if bool(c.get("rest")) is rest:
                return c
        return None

    # --- the turn -------------------------------------------------------------------------------

    def _blocks(self) -> list[dict[str, Any]]:
        return list((self.view.get("city") or {}).get("blocks") or [])

    def _car(self) -> Block:
        return _block(self.me.get("car") or HQ)

    def play(self) -> Command | None:
        deal = [c for c in _of(self.legal, "play_force") if c.get("card") == "jailhouse_deal"]
        if deal and self.info >= 1.0:
            return deal[0]
        proceed = _of(self.legal, "proceed")
        if proceed:
            return proceed[0]
        best: tuple[float, Command] | None = None  # (value per hour, command); first best wins
        car = self._car()
        for c in self.legal:
            kind = c.get("type")
            if kind in ("drive", "play_force", "coffee_break"):
                continue
            value, hours = self.value(c, car)
            if c.get("night_shift"):
                value *= 0.9  # a scarce waiver: keep it for when it is the only way
            score = value / max(hours, 1)
            if best is None or score > best[0]:
                best = (score, c)
        for c in _of(self.legal, "drive"):
            path = [_block(b) for b in c.get("path") or ()]
            if not path:
                continue
            drive = self.drive_hours(path)
            value, hours = self.best_at(path[-1], self.night, drive)
            score = value / max(drive + hours, 1)
            if best is None or score > best[0]:
                best = (score, c)
        if best is not None and best[0] >= MIN_SCORE:
            return best[1]
        return self.wait()

    def wait(self) -> Command | None:
        """Nothing worth its hours now: drive to where the other time of day will have work,
        then (or else) take a Coffee Break."""
        drives = _of(self.legal, "drive")
        if drives:
            here = self.best_at(self._car(), not self.night, 0, ignore_cap=True)[0]
            best: tuple[float, Command] | None = None
            for c in drives:
                path = [_block(b) for b in c.get("path") or ()]
                # the drive, a Coffee Break, then at least a 2 h action must still fit
                if not path or self.space + self.spent + self.drive_hours(path) + 3 > HOURS:
                    continue
                value, _ = self.best_at(path[-1], not self.night, 0, ignore_cap=True)
                score = value / (len(path) + 2)
                if value > here and (best is None or score > best[0]):
                    best = (score, c)
            if best is not None:
                return best[1]
        for kind in ("coffee_break", "arrest"):
            found = _of(self.legal, kind)
            if found:
                return found[0]
        return None

    def drive_hours(self, path: list[Block]) -> int:
        """Base hours plus event surcharges (rules.md §4.3)."""
        token_blocks: dict[Block, int] = {}
        rows: dict[int, int] = {}
        for slot in self.slots:
            if not slot:
                continue
            card = slot.get("card")
            for t in slot.get("tokens") or ():
                b = _block(t)
                if card in SURCHARGE_TOKEN_EVENTS:
                    token_blocks[b] = token_blocks.get(b, 0) + 1
                if card in SURCHARGE_ROW_EVENTS:
                    rows[b[1]] = rows.get(b[1], 0) + 1
        return sum(1 + token_blocks.get(b, 0) + rows.get(b[1], 0) for b in path)

    def best_at(
        self, block: Block, night: bool, drive: int, ignore_cap: bool = False
    ) -> tuple[float, int]:
        """The best (value, hours) of an action predicted possible on ``block``."""
        left = HOURS - self.space - self.spent - drive
        best = (0.0, 1)
        for c in self.predicted(block, night):
            value, hours = self.value(c, block)
            if not ignore_cap and hours > left:
                continue
            if value / max(hours, 1) > best[0] / max(best[1], 1):
                best = (value, hours)
        return best

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
            if not night and block[1] in (city.get("informants") or ()):
                out.append({"type": "catch_informant"})
            if night and block[0] in (city.get("witnesses") or ()):
                out.append({"type": "catch_witness"})
            if night and not self.me.get("holding"):
                out.append({"type": "hold_mobster"})
        if clue.get("kind") == "search" and not night:
            out.append({"type": "search_scene"})
        if clue.get("kind") == "stakeout" and night:
            out.extend({"type": "stakeout", "risk": r} for r in range(1, 6))
        if block == HQ and night and self.me.get("holding"):
            out.append({"type": "book_mobster"})
        for slot in info.get("events") or ():
            out.append({"type": "resolve_event", "slot": slot})
        return out

    def can_book_after_hold(self, block: Block) -> bool:
        """Whether a mobster held on ``block`` now could still be booked at HQ in time: step 2
        needs a later turn that begins at night, then the drive to HQ and 2 h."""
        after = self.space + self.spent + _distance(self._car(), block) + 2
        if after <= 12:
            after = 13
        elif 25 <= after <= 36:
            after = 37
        return after + _distance(block, HQ) + 2 <= HOURS

    # --- values ---------------------------------------------------------------------------------

    def badge(self) -> float:
        level = int(self.me.get("badge", 0))
        if level >= 10:
            return 0.0
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
            return SUSPECT * self.info
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
            _block(t["block"]): t.get("value")
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
            if mob and mob not in arrests:
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
            if night_only and not self.night:
                return 0.0, hours
            return self.resolve_value(slot), hours
        if kind == "call_for_backup":
            return 0.0, int(c.get("risk", 1))
        return 0.0, 1


def _distance(a: Block, b: Block) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])
