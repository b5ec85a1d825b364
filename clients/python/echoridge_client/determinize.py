"""Determinization: a full engine ``State`` sampled from what one seat's view shows it.

The search bot (``search.StrongPolicy``) plays sampled worlds forward with the engine; this
module makes them.  Its only input is the seat's view (SPEC.md §6.1): never the true state.

    sample(view, rng) -> State          one world consistent with everything the seat knows
    Determinizer(view).sample(rng)      the same, the view read once (for many samples)

Every item hidden from the seat (rules.md §15) is drawn uniformly among the assignments
consistent with its knowledge:

- the murderer: any suspect matching every trait the seat knows (its own solved evidence and
  ``E`` rewards, in co-op every solved trait) that is in no hand it knows of and that it never
  saw; the other Suspect cards are dealt at random to the other hands (cards the seat saw in a
  hand stay there), the Suspect deck and the penalty discards (``suspects_out``);
- the face-down clue token values, from the §2 mix less every value shown (mats, the tokens the
  seat or its team looked at); tokens removed after a solve likewise;
- the other seats' Force hands and the Force deck order, from the 12 cards less the discard
  pile, the pool and the hands the seat sees; the Event deck order from the 18 cards less those
  revealed.

Public facts are copied.  The salted commitments are copied from the view, and each salt the
seat holds a proof of (``proofs``, ``you.proofs``) is kept with its item, so the sample's view
for the seat is the given view, proofs included; items the seat cannot prove have no salt.

Supported positions: status ``playing``, a turn in phase w1-w4, no decision owed by anyone
(``decisions`` empty), any seat to play.  The engine's ``State.agenda`` is then always empty
(``engine.run`` runs the agenda until a decision is owed or nothing is left), and so is
``pending``.  Anything else (a decision owed, the accusation, a finished game, a view without
the setup commitments) raises ``Unsupported``.

Inferred, not shown by any view:

- ``Turn.extra_action``, ``skip_roll``, ``ignore_time``, ``cost_reduction``, ``risk_bonus``:
  exactly, from the cards played this turn (``turn.played`` is in play order; a W2 card played
  after Double Shift waits for the second action, one played before it was used or reset by
  the first) and the actions taken (a risk action resets Telephoto);
- ``Turn.landed`` (w4 only): start + hours of the turn, where step 2 put the tracker;
- ``Player.held_on_turn``: this turn for the active seat if it took Bring in step 1
  (``bring_in_1``) this turn, else 0 (an earlier turn: all the rules read);
- ``State.order``: within a space as the track shows it; across spaces (never read) by space;
- which mat holds a token when two mats hold tokens of one kind and value (views show each
  mat's values in token order, and the flipped tokens' blocks in the proofs: a holder for
  each is matched to them);
- the order of ``solved`` across holders, and of ``votes`` across targets (never read);
- the other seats' ``seen``/``shown``: the seat's cards they saw come from its ``shown``; a card
  one saw in a third hand is drawn from that hand as sampled (rules.md §15 hides which);
- approximate: the other seats' ``known_tokens`` (outside co-op) are empty (failed Stakeouts
  and peeks of others are not in the view); their ``auto_pass`` is True; ``look_proofs`` and
  ``dealt`` hold the seat's own looks only; ``handed_self`` is empty; ``draws`` is 0 (play on
  with a fresh ``Rng``); ``clock`` is ``()`` unless the view shows a time bank or
  "more time" (then ``(60, bank, 0)``: its turn seconds and strikes are not shown); the rules
  version is not shown by a seat's view: pass ``rules`` (default: ``RULES_VERSION``);
- the kind of each token removed after solving both Forensics and Getaway is dealt by count
  (the removed tokens are out of the game, so nothing reads it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from echoridge_rules.board import BLOCKS, Block, index
from echoridge_rules.carddata import (
    EVENT_IDS,
    FORCE_CARDS,
    FORCE_DECK,
    CostReduction,
    IgnoreTimeOfDay,
    RiskBonus,
    Window,
)
from echoridge_rules.coopdata import Mode
from echoridge_rules.data import (
    ACTIONS,
    HOURS,
    RULES_VERSION,
    SEARCH_TOKENS,
    STAKEOUT_VALUES,
    SUSPECT_IDS,
    SUSPECTS,
    Color,
    Evidence,
)
from echoridge_rules.model import (
    ActiveEvent,
    ClueKind,
    ClueToken,
    Phase,
    Place,
    Player,
    State,
    Status,
    Turn,
)

__all__ = ["Determinizer", "Unsupported", "sample"]

PHASES = {p.value: p for p in (Phase.W1, Phase.W2, Phase.W3, Phase.W4)}
_SEARCH = ClueKind.SEARCH
_STAKEOUT = ClueKind.STAKEOUT
_RISKY = frozenset(a.value for a, spec in ACTIONS.items() if spec.risk is not None)


class Unsupported(ValueError):
    """a position this module cannot rebuild"""


def sample(view: dict[str, Any], rng: random.Random, *, rules: int = RULES_VERSION) -> State:
    """A full engine ``State`` consistent with everything ``view``'s seat knows, every hidden
    item drawn with ``rng`` (see the module docstring).  Raises ``Unsupported``.

    The view is read once for the last few views passed (kept by identity, with a reference,
    so a view must not be changed in place after it was passed, as for the engine's own
    interned views); the sample depends on the view's content and ``rng`` only."""
    key = (id(view), rules)
    kept = _RECENT.get(key)
    if kept is None or kept[0] is not view:
        kept = (view, Determinizer(view, rules=rules))
        if len(_RECENT) >= RECENT:
            del _RECENT[next(iter(_RECENT))]  # the oldest
        _RECENT[key] = kept
    return kept[1].sample(rng)


RECENT = 8  # views whose reading ``sample`` keeps
_RECENT: dict[tuple[int, int], tuple[dict[str, Any], Determinizer]] = {}


def _block(pair: Sequence[int]) -> Block:
    return (int(pair[0]), int(pair[1]))


def _token_block(label: str) -> Block:
    col, row = label[len("token/") :].split(",")
    return (int(col), int(row))


def _token_value(kind: ClueKind, value: str) -> int:
    if kind is _SEARCH:
        return 1 if value == "success" else 0
    return int(value)


class Determinizer:
    """The view read once; ``sample(rng)`` deals its hidden items (cheap, repeatable)."""

    def __init__(self, view: dict[str, Any], *, rules: int = RULES_VERSION) -> None:
        self._read(view, rules)

    # --- reading the view (once) -----------------------------------------------------------

    def _read(self, v: dict[str, Any], rules: int) -> None:
        if v.get("status") != "playing":
            raise Unsupported(f"status {v.get('status')!r}: only a game being played")
        you = v.get("you")
        if not you:
            raise Unsupported("not a seat's view")
        if v["decisions"] or you.get("decision") is not None:
            raise Unsupported("a decision is owed")
        tv = v["turn"]
        if tv is None or tv["phase"] not in PHASES:
            raise Unsupported("no turn at a Force window (w1-w4)")
        me = int(you["seat"])
        self.me = me
        mode = Mode(v["mode"])
        coop = mode is Mode.COOPERATIVE
        pv = v["players"]
        n = len(pv)
        self.n = n
        shared = coop and n == 2

        # proofs the seat holds: salts of items whose value it knows
        salts: dict[str, bytes] = {}
        public_proofs = list(v["proofs"])
        private_proofs = list(you["proofs"])
        for pr in (*public_proofs, *private_proofs):
            salts[pr["label"]] = bytes.fromhex(pr["salt"])
        commitments = tuple((label, bytes.fromhex(d)) for label, d in v["commitments"].items())

        # --- the city ------------------------------------------------------------------
        blocks = v["city"]["blocks"]
        if len(blocks) != len(BLOCKS):
            raise Unsupported("the city has the wrong number of blocks")
        self.layout = tuple(b["name"] for b in blocks)
        self.mobsters = tuple(Color(b["mobster"]) if b["mobster"] else None for b in blocks)
        known_values: dict[Block, tuple[ClueKind, int]] = {
            _block(k["block"]): (ClueKind(k["kind"]), int(k["value"])) for k in you["known_tokens"]
        }
        city: dict[Block, ClueKind] = {}
        for b in blocks:
            clue = b["clue"]
            if clue is not None:
                city[_block(b["block"])] = ClueKind(clue["kind"])
        all_tokens = [
            _token_block(label) for label in v["commitments"] if label.startswith("token/")
        ]
        if len(all_tokens) != len(SEARCH_TOKENS) + len(STAKEOUT_VALUES) or not set(city) <= set(
            all_tokens
        ):
            raise Unsupported("the view lacks the setup commitments of the clue tokens")
        mat: dict[Block, tuple[ClueKind, int]] = {}
        for pr in public_proofs:
            label = pr["label"]
            if label.startswith("token/"):
                value = pr["value"]
                kind = _SEARCH if value in ("success", "failure") else _STAKEOUT
                mat[_token_block(label)] = (kind, _token_value(kind, value))
        on_mats = sum(len(p["search"]) + len(p["stakeout"]) for p in pv)
        if len(mat) != on_mats or set(mat) & set(city):
            raise Unsupported("the tokens on the mats are not all proven")
        holders = self._mat_holders(mat, pv)
        removed = [b for b in all_tokens if b not in city and b not in mat]
        # what is left of the §2 mix once every known value is taken out
        left = {
            _SEARCH: Counter(int(ok) for ok in SEARCH_TOKENS),
            _STAKEOUT: Counter(STAKEOUT_VALUES),
        }
        for kind, value in mat.values():
            left[kind][value] -= 1
        fixed: dict[Block, tuple[ClueKind, int]] = dict(mat)
        for b, kind in city.items():
            if b in known_values:
                fixed[b] = known_values[b]
                left[kind][known_values[b][1]] -= 1
        removed_unknown = []
        for b in removed:
            if b in known_values:
                fixed[b] = known_values[b]
                left[known_values[b][0]][known_values[b][1]] -= 1
            else:
                removed_unknown.append(b)
        if any(c < 0 for counts in left.values() for c in counts.values()):
            raise Unsupported("the token values shown exceed the §2 mix")
        hidden_city = {k: [b for b, kk in city.items() if kk is k and b not in fixed] for k in left}
        spare_search = left[_SEARCH].total() - len(hidden_city[_SEARCH])
        spare_stake = left[_STAKEOUT].total() - len(hidden_city[_STAKEOUT])
        if (
            spare_search < 0
            or spare_stake < 0
            or spare_search + spare_stake != len(removed_unknown)
        ):
            raise Unsupported("the token kinds do not add up")
        hidden_kind = dict.fromkeys(hidden_city[_SEARCH], _SEARCH)
        hidden_kind.update(dict.fromkeys(hidden_city[_STAKEOUT], _STAKEOUT))
        for i, b in enumerate(removed_unknown):
            hidden_kind[b] = _SEARCH if i < spare_search else _STAKEOUT
        self.token_order = tuple(sorted(all_tokens, key=index))
        self.token_place = {
            b: (Place.CITY if b in city else Place.MAT if b in mat else Place.REMOVED)
            for b in self.token_order
        }
        self.token_holder = holders
        self.fixed_tokens = fixed
        self.hidden_search = tuple(b for b in self.token_order if hidden_kind.get(b) is _SEARCH)
        self.hidden_stake = tuple(b for b in self.token_order if hidden_kind.get(b) is _STAKEOUT)
        self.search_pool = tuple(sorted(left[_SEARCH].elements()))
        self.stake_pool = tuple(sorted(left[_STAKEOUT].elements()))
        # every token whose value is fixed is built once
        self.fixed_token_objs = {
            b: ClueToken(b, kind, value, self.token_place[b], holders.get(b))
            for b, (kind, value) in fixed.items()
        }

        # --- Suspects ----------------------------------------------------------------------
        sv = v["suspects"]
        deck_size, out_size = int(sv["deck"]), int(sv["out_of_game"])
        my_hand = tuple(you["suspects"])
        hands_known: list[tuple[str, ...] | None] = [None] * n
        hands_known[me] = my_hand
        if coop:
            for i, p in enumerate(pv):
                hands_known[i] = tuple(p["face_up"])
        sizes = [int(p["suspects"]) for p in pv]
        seen_in = self._seen_targets(v, you, me)  # card -> hand it is in
        known_cards: set[str] = set(my_hand) | set(you["seen"])
        for h in hands_known:
            if h is not None:
                known_cards |= set(h)
        partial: list[list[str]] = [[] for _ in range(n)]
        for card, target in seen_in.items():
            if hands_known[target] is None:
                partial[target].append(card)
        traits = dict(you["traits"])
        for e in v["evidence"]:
            if e.get("trait"):
                traits[e["evidence"]] = e["trait"]
        wanted = [(Evidence(e), t) for e, t in traits.items()]
        self.candidates = tuple(
            s
            for s in SUSPECT_IDS
            if s not in known_cards and all(SUSPECTS[s].trait(e) == t for e, t in wanted)
        )
        if not self.candidates:
            raise Unsupported("no suspect fits what the seat knows")
        self.unknown_cards = tuple(s for s in SUSPECT_IDS if s not in known_cards)
        self.hand_fill: list[tuple[int, tuple[str, ...], int]] = []  # (seat, known, missing)
        need = 0
        for i in range(n):
            if hands_known[i] is not None:
                if len(hands_known[i] or ()) != sizes[i]:
                    raise Unsupported("a known hand's size differs from its count")
                continue
            missing = sizes[i] - len(partial[i])
            if missing < 0:
                raise Unsupported("more cards seen in a hand than it holds")
            self.hand_fill.append((i, tuple(partial[i]), missing))
            need += missing
        if need + deck_size + out_size != len(self.unknown_cards) - 1:
            raise Unsupported("the Suspect cards do not add up")
        self.hands_known = hands_known
        self.deck_size, self.out_size = deck_size, out_size
        drawn = len(SUSPECT_IDS) - 1 - deck_size  # setup deck positions already dealt
        if sum(sizes) + out_size != drawn:
            raise Unsupported("the Suspect deck does not add up")
        self.drawn = drawn
        positions: dict[int, str] = {}
        for pr in (*public_proofs, *private_proofs):
            if pr["label"].startswith("deck/"):
                positions[int(pr["label"][len("deck/") :])] = pr["value"]
        if any(pos >= drawn for pos in positions):
            raise Unsupported("a proven deck position is still in the deck")
        self.deck_positions = positions

        # --- Force and Event cards ------------------------------------------------------
        fv = v["force"]
        force_left = Counter(FORCE_DECK)
        force_left.subtract(fv["discard"])
        force_left.subtract(fv["pool"])
        team = you.get("team")
        force_known: list[tuple[str, ...] | None] = [None] * n
        force_known[me] = tuple(you["force"])
        if team is not None:
            for i, h in enumerate(team["force"]):
                force_known[i] = tuple(h)
        if shared:
            force_left.subtract(force_known[me] or ())
        else:
            for h in force_known:
                force_left.subtract(h or ())
        if any(c < 0 for c in force_left.values()):
            raise Unsupported("more Force cards shown than the deck has")
        self.force_pool = tuple(sorted(force_left.elements()))
        self.force_fill = [(i, int(p["force"])) for i, p in enumerate(pv) if force_known[i] is None]
        self.force_deck_size = int(fv["deck"])
        if sum(k for _, k in self.force_fill) + self.force_deck_size != len(self.force_pool):
            raise Unsupported("the Force cards do not add up")
        self.force_known = force_known
        self.shared = shared
        ev = v["events"]
        slots = tuple(
            None
            if a is None
            else ActiveEvent(
                a["card"],
                tuple(_block(b) for b in a["tokens"]),
                tuple(a["removed_by"]),
                tuple(Color(c) for c in a["card_mobsters"]),
                a["deadline"],
            )
            for a in ev["slots"]
        )
        shown_events = {a.card for a in slots if a is not None} | set(ev["discard"])
        self.event_pool = tuple(c for c in EVENT_IDS if c not in shown_events)
        if len(self.event_pool) != int(ev["deck"]):
            raise Unsupported("the Event cards do not add up")

        # --- the turn --------------------------------------------------------------------
        self.turn = _turn(tv)
        self.looks = tuple((int(a), int(b)) for a, b in v["looks"])
        self.my_shown = tuple((int(a), str(c)) for a, c in you["shown"])

        # --- players ------------------------------------------------------------------------
        my_proofs = tuple(
            (pr["label"], pr["value"], bytes.fromhex(pr["salt"]))
            for pr in private_proofs
            if pr["label"].startswith("look/")
        )
        votes = tuple((int(voter), i) for i, p in enumerate(pv) for voter in p["votes"])
        team_known = frozenset(known_values)
        clocked = any(p["bank"] for p in pv) or any(
            c.get("type") == "extend_time" for c in you.get("controls", ())
        )
        held_now = "bring_in_1" in self.turn.actions
        players = []
        for i, p in enumerate(pv):
            mine = i == me
            players.append(
                Player(
                    seat=i,
                    ability=p["ability"],
                    car=_block(p["car"]),
                    space=int(p["space"]),
                    ended=bool(p["ended"]),
                    badge=int(p["badge"]),
                    arrests=tuple(Color(c) for c in p["arrests"]),
                    holding=Color(p["holding"]) if p["holding"] else None,
                    held_on_turn=(
                        self.turn.number if i == self.turn.seat and held_now and p["holding"] else 0
                    ),
                    informants=tuple(p["informants"]),
                    witnesses=tuple(p["witnesses"]),
                    holding_tokens=tuple(Color(c) for c in p["holding_tokens"]),
                    suspects=hands_known[i] or (),
                    seen=tuple(you["seen"]) if mine else (),
                    shown=self.my_shown if mine else (),
                    known_tokens=team_known if mine else frozenset(),
                    learned=tuple(Evidence(e) for e in p["learned"]),
                    look_proofs=my_proofs if mine else (),
                    force=() if shared else (force_known[i] or ()),
                    time_waivers=int(p["night_shift_left"]),
                    accused=bool(p["accused"]),
                    accusation=you["accusation"] if mine else None,
                    name=p["name"],
                    bot=p["bot"] or "",
                    auto=p["auto"] or "",
                    bank=int(p["bank"]),
                    strikes=int(p["strikes"]),
                    role=p["role"] or "",
                    auto_pass=bool(you["auto_pass"]) if mine else True,
                )
            )
        self.players = tuple(players)
        order: list[int] = []
        for stack in v["track"]["stacks"]:
            order.extend(int(s) for s in stack["seats"])
        solved = _solved(v, pv)
        cv = v["city"]
        deals = len({label.split("/")[1] for label, _, _ in my_proofs})
        self.base = State(
            status=Status.PLAYING,
            layout=self.layout,
            mobsters=self.mobsters,
            bag=(int(v["bag"]["red"]), int(v["bag"]["blue"]), int(v["bag"]["gray"])),
            informants=frozenset(cv["informants"]),
            witnesses=frozenset(cv["witnesses"]),
            hq_holding=tuple(Color(c) for c in cv["holding_tokens"]),
            event_discard=tuple(ev["discard"]),
            slots=slots,
            force_discard=tuple(fv["discard"]),
            pool=tuple(fv["pool"]),
            solved=solved,
            order=tuple(order),
            lines=frozenset(v["track"]["crossed"]),
            turn=self.turn,
            turns=self.turn.number,
            looks=self.looks,
            commitments=commitments,
            salts=tuple(salts.items()),
            deals=max(deals, sum(1 for a, _ in self.looks if a == me)),
            dealt=my_proofs,
            clock=(60, max(p["bank"] for p in pv), 0) if clocked else (),
            votes=votes,
            mode=mode,
            marker=v["coop"]["marker"] if v["coop"] else None,
            team_force=(force_known[me] or ()) if shared else (),
            rules=rules,
        )

    @staticmethod
    def _mat_holders(
        mat: dict[Block, tuple[ClueKind, int]], pv: list[dict[str, Any]]
    ) -> dict[Block, int]:
        """A holder for each mat token so that every mat lists its values in token order."""
        out: dict[Block, int] = {}
        for kind, key in ((_SEARCH, "search"), (_STAKEOUT, "stakeout")):
            toks = sorted((b for b, (k, _) in mat.items() if k is kind), key=index)
            lists = [list(p[key]) for p in pv]
            pos = [0] * len(pv)
            chosen: list[int] = []

            def fit(i: int, toks: list[Block] = toks, lists: list[list[int]] = lists,
                    pos: list[int] = pos, chosen: list[int] = chosen) -> bool:  # fmt: skip
                if i == len(toks):
                    return all(pos[s] == len(lists[s]) for s in range(len(lists)))
                value = mat[toks[i]][1]
                for s, values in enumerate(lists):
                    if pos[s] < len(values) and values[pos[s]] == value:
                        pos[s] += 1
                        chosen.append(s)
                        if fit(i + 1):
                            return True
                        chosen.pop()
                        pos[s] -= 1
                return False

            if not fit(0):
                raise Unsupported("the proven mat tokens do not match the mats")
            out.update(zip(toks, chosen, strict=True))
        return out

    @staticmethod
    def _seen_targets(v: dict[str, Any], you: dict[str, Any], me: int) -> dict[str, int]:
        """The hand each card the seat saw is in (a Suspect card never leaves a hand): its
        looks in order, matched with the deals of its look proofs (``look/K/S``)."""
        seen = list(you["seen"])
        if not seen:
            return {}
        deals: dict[int, str] = {}
        for pr in you["proofs"]:
            label = pr["label"]
            if label.startswith("look/"):
                deals[int(label.split("/")[1])] = pr["value"]
        mine = [target for looker, target in v["looks"] if looker == me]
        out: dict[str, int] = {}
        ks = sorted(deals)
        ability = v["players"][me]["ability"]
        if len(ks) == len(mine):
            pairs = zip(mine, ks, strict=True)
            out = {deals[k]: int(t) for t, k in pairs}
        elif ability == "good_cop":
            # only this seat may look at no card (LookUnseen): every other look was dealt
            k = 0
            for looker, target in v["looks"]:
                if looker != me:
                    k += 1
                elif k in deals:
                    out[deals[k]] = int(target)
                    k += 1
        if set(out) != set(seen):
            raise Unsupported("cannot tell which hand each seen card is in")
        return out

    # --- sampling (each call) --------------------------------------------------------------

    def sample(self, rng: random.Random) -> State:
        shuffle = rng.shuffle
        me, n = self.me, self.n
        # Suspects
        murderer = self.candidates[rng.randrange(len(self.candidates))]
        rest = [c for c in self.unknown_cards if c != murderer]
        shuffle(rest)
        hands: list[tuple[str, ...]] = [h or () for h in self.hands_known]
        at = 0
        for seat, known, missing in self.hand_fill:
            cards = [*known, *rest[at : at + missing]]
            at += missing
            shuffle(cards)
            hands[seat] = tuple(cards)
        deck = tuple(rest[at : at + self.deck_size])
        at += self.deck_size
        out = tuple(rest[at : at + self.out_size])
        positions = self.deck_positions
        placed = set(positions.values())
        gone = [c for h in hands for c in h if c not in placed]
        gone.extend(out)
        shuffle(gone)
        it = iter(gone)
        order = tuple(positions[i] if i in positions else next(it) for i in range(self.drawn))
        # Force cards
        fpool = list(self.force_pool)
        shuffle(fpool)
        force: list[tuple[str, ...]] = [h or () for h in self.force_known]
        at = 0
        for seat, size in self.force_fill:
            force[seat] = tuple(fpool[at : at + size])
            at += size
        force_deck = tuple(fpool[at:])
        events = list(self.event_pool)
        shuffle(events)
        # clue tokens
        svals = list(self.search_pool)
        shuffle(svals)
        kvals = list(self.stake_pool)
        shuffle(kvals)
        values = dict(zip(self.hidden_search, svals, strict=True))
        values.update(zip(self.hidden_stake, kvals, strict=True))
        fixed = self.fixed_token_objs
        place = self.token_place
        tokens = tuple(
            fixed[b]
            if b in fixed
            else ClueToken(
                b, _SEARCH if b in self.hidden_search else _STAKEOUT, values[b], place[b]
            )
            for b in self.token_order
        )
        # what the others saw: the seat's cards from its ``shown``, others' at random
        seen: list[list[str]] = [[] for _ in range(n)]
        shown: list[list[tuple[int, str]]] = [[] for _ in range(n)]
        mine = list(self.my_shown)
        for looker, target in self.looks:
            if looker == me:
                continue
            if target == me:
                card = next((c for s, c in mine if s == looker), None)
                if card is None:
                    continue
                mine.remove((looker, card))
            else:
                hand = hands[target]
                if not hand:
                    continue
                card = hand[rng.randrange(len(hand))]
                shown[target].append((looker, card))
            if card not in seen[looker]:
                seen[looker].append(card)
        players = list(self.players)
        for i, p in enumerate(players):
            if i == me:
                if self.hands_known[i] is None:
                    players[i] = p.but(suspects=hands[i])
                continue
            changes: dict[str, Any] = {}
            if self.hands_known[i] is None:
                changes["suspects"] = hands[i]
            if self.force_known[i] is None and not self.shared:
                changes["force"] = force[i]
            if seen[i]:
                changes["seen"] = tuple(seen[i])
            if shown[i]:
                changes["shown"] = tuple(shown[i])
            if changes:
                players[i] = p.but(**changes)
        return self.base.but(
            players=tuple(players),
            tokens=tokens,
            murderer=murderer,
            suspect_deck=deck,
            suspects_out=out,
            deck_order=order + deck,
            event_deck=tuple(events),
            force_deck=force_deck,
        )


def _turn(tv: dict[str, Any]) -> Turn:
    """The turn, with the fields no view shows worked out from the cards played (in order) and
    the actions taken (module docstring)."""
    played = tuple(tv["played"])
    actions = tuple(tv["actions"])
    phase = PHASES[tv["phase"]]
    extra = "double_shift" in played
    cut = played.index("double_shift") if extra else len(played)
    before, after = played[:cut], played[cut + 1 :]  # W2 cards of the first / second action

    def mods(cards: Sequence[str]) -> tuple[bool, int, int]:
        ignore, cost, bonus = False, 0, 0
        for card in cards:
            spec = FORCE_CARDS[card]
            if Window.W2 not in spec.windows:
                continue
            eff = spec.effect
            if isinstance(eff, IgnoreTimeOfDay):
                ignore = True
            elif isinstance(eff, CostReduction):
                cost += eff.hours
            elif isinstance(eff, RiskBonus):
                bonus += eff.bonus
        return ignore, cost, bonus

    ignore, cost, bonus = mods(before)
    if actions:
        ignore, cost = False, 0
        if actions[0] in _RISKY:
            bonus = 0
        a_ignore, a_cost, a_bonus = mods(after)
        ignore, cost, bonus = a_ignore, a_cost, bonus + a_bonus
        if len(actions) > 1:
            ignore, cost = False, 0
            if actions[1] in _RISKY:
                bonus = 0
    seat = int(tv["seat"])
    start = int(tv["start"])
    hours = int(tv["drive_hours"]) + int(tv["action_hours"])
    return Turn(
        seat=seat,
        number=int(tv["number"]),
        start=start,
        night=tv["time"] == "night",
        phase=phase,
        path=tuple(_block(b) for b in tv["path"]),
        drive_hours=int(tv["drive_hours"]),
        actions=actions,
        action_hours=int(tv["action_hours"]),
        played=played,
        extra_action=extra,
        ignore_time=ignore,
        cost_reduction=cost,
        risk_bonus=bonus,
        skip_roll="checkpoint" in played,
        landed=min(start + hours, HOURS) if phase is Phase.W4 else None,
        timed_out=bool(tv["timed_out"]),
        extended=int(tv["extended"]),
    )


def _solved(v: dict[str, Any], pv: list[dict[str, Any]]) -> tuple[tuple[Evidence, int], ...]:
    """Solved evidence in an order consistent with each mat's (their order across mats is not
    shown and never read)."""
    out: list[tuple[Evidence, int]] = []
    for seat, p in enumerate(pv):
        out.extend((Evidence(e), seat) for e in p["evidence"])
    holders = {e["evidence"]: e["holder"] for e in v["evidence"] if e["holder"] is not None}
    if {e.value: s for e, s in out} != holders:
        raise Unsupported("the solved evidence does not match its holders")
    return tuple(out)
