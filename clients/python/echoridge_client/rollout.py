"""The strong bot's rollouts: the rest of a sampled game played by greedy policies for every
seat, on engine states, cheaper than projecting each seat's full view and enumerating all of its
legal commands at every step (``search.simulate`` did both; most of a step's time went there).

The decisions are exactly the greedy bot's (``GreedyPolicy`` given the seat's view and legal
commands; tests/clients/test_rollout.py plays the same rollouts both ways and compares the ends):

* **A light view** (``light_view``): only the sections ``greedy.Turn`` reads, made by the
  engine's own view functions (so they equal the full view's), memoised across the steps of a
  rollout as ``ViewCache`` does; ``you`` holds the seat's hand, seen cards, known tokens and
  traits and the co-op team's accusations, not its proofs, Force hand or legal commands.
* **Legality for the pick only.**  On the seat's own turn before its action (W1, W2) greedy
  scores every action and drive and plays the first best.  Here the same commands are scored
  unchecked, in the order the engine lists them, and checked from the best down: the first
  that the engine accepts is the first best of the legal ones, which is greedy's pick.  If the
  best legal score is below greedy's threshold (then it waits or takes a break), a Jailhouse
  Deal may be played, or anything unexpected happens, the step is played the full way (the
  engine's legal list).  In W3/W4 greedy always proceeds (but for a Jailhouse Deal).  Answers
  to decisions (about a third of the steps) use the engine's legal list, which is short there.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from echoridge_client.botdata import MIN_SCORE, candidates
from echoridge_client.greedy import Turn
from echoridge_client.policies import GreedyPolicy
from echoridge_rules import Rng, State, Status, decide, evolve
from echoridge_rules import commands as c
from echoridge_rules import views as v
from echoridge_rules.data import EVIDENCE_ORDER, SUSPECTS
from echoridge_rules.engine import check
from echoridge_rules.errors import RuleViolation
from echoridge_rules.legal import _actions, cheapest_paths, legal_actions
from echoridge_rules.model import Phase
from echoridge_rules.queries import coop, hand, knows_trait, team_known_tokens
from echoridge_rules.serial import load, to_plain
from echoridge_rules.viewcache import ViewCache

__all__ = ["greedy_command", "light_view", "rollout"]

MAX_STEPS = 400  # commands simulated after a candidate, at most (a whole game is ~170)
_TURN = (Phase.W1, Phase.W2)
_WINDOWS = (Phase.W3, Phase.W4)


def _public(state: State, cache: ViewCache) -> dict[str, Any]:
    """The public sections greedy reads, each made again only when what it reads changed (the
    keys are those of views._public_sections)."""
    players = state.players
    mats = tuple((p.informants, p.witnesses, p.holding_tokens) for p in players)
    co = coop(state)
    memo = cache.memo
    return {
        "status": state.status.value,
        "mode": state.mode.value,
        "coop": memo("coop", (state.mode, state.marker, state.rules, players if co else None),
                     lambda: v._coop(state)),
        "turn": memo("turn", state.turn, lambda: v._turn(state)),
        "city": memo(
            "city",
            (state.tokens, state.slots, tuple(p.car for p in players), state.mobsters,
             state.layout, state.informants, state.witnesses, state.hq_holding),
            lambda: v._city(state, frozenset(), False,
                            functools.partial(v._intern_block, cache, None)),
        ),
        "events": memo("events", (state.slots, len(state.event_deck), state.event_discard),
                       lambda: v._events(state)),
        "suspects": memo(
            "suspects", (len(state.suspect_deck), len(state.suspects_out)),
            lambda: {"deck": len(state.suspect_deck), "out_of_game": len(state.suspects_out)},
        ),
        "evidence": memo("evidence", (state.tokens, mats, state.solved, state.mode,
                                      state.murderer), lambda: v._evidence(state)),
        "players": [
            memo(("player", p.seat),
                 (p, state.tokens, state.solved, state.votes, state.team_force, state.mode),
                 lambda seat=p.seat: v._player(state, seat))
            for p in players
        ],
        "looks": memo("looks", state.looks, lambda: [list(pair) for pair in state.looks]),
        "decisions": memo("decisions", state.pending,
                          lambda: [v._public_decision(d) for d in state.pending]),
    }  # fmt: skip


def light_view(state: State, seat: int, cache: ViewCache) -> dict[str, Any]:
    """The parts of ``view(state, Seat(seat))`` the greedy bot reads (module docstring)."""
    out = _public(state, cache)
    p = state.players[seat]
    tokens = {t.block: t for t in state.tokens}
    murderer = SUSPECTS.get(state.murderer)
    out["you"] = {
        "seat": seat,
        "suspects": list(p.suspects),
        "seen": list(p.seen),
        "known_tokens": [
            {"block": list(b), "kind": tokens[b].kind.value, "value": tokens[b].value}
            for b in sorted(team_known_tokens(state, seat))
        ],
        "traits": {
            e.value: murderer.trait(e)
            for e in EVIDENCE_ORDER
            if murderer is not None and knows_trait(state, seat, e)
        },
        "team": v._team(state) if coop(state) else None,
    }
    return out


def _legal(state: State, command: c.Command) -> bool:
    try:
        check(state, command)
    except RuleViolation:
        return False
    return True


_ACTIONS: dict[Any, list[tuple[dict[str, Any], c.Command]]] = {}


def _turn_commands(state: State, seat: int) -> list[tuple[dict[str, Any], c.Command]]:
    """The drives and actions the engine would check for ``seat`` now (legal._candidates, in its
    order, less the Force cards), unchecked, each with the plain form greedy reads."""
    assert state.turn is not None
    out: list[tuple[dict[str, Any], c.Command]] = []
    if state.turn.phase is Phase.W1:
        for path in cheapest_paths(state, seat):
            out.append(({"type": "drive", "seat": seat, "path": path}, c.Drive(seat, path)))
    p = state.players[seat]
    key = (seat, p.ability, p.time_waivers, len(state.slots))  # all legal._actions reads
    acts = _ACTIONS.get(key)
    if acts is None:
        acts = _ACTIONS[key] = [(to_plain(cmd), cmd) for cmd in _actions(state, seat)]
    out.extend(acts)
    return out


def _turn_choice(state: State, seat: int, view: dict[str, Any]) -> c.Command | None:
    """Greedy's command on its turn from W1 to W4 without a decision owed, or None: play the
    step the full way (module docstring)."""
    turn = state.turn
    if state.pending or turn is None or turn.seat != seat:
        return None
    if turn.phase not in _TURN and turn.phase not in _WINDOWS:
        return None
    deal = "jailhouse_deal" in hand(state, seat) and len(candidates(view)) > 1
    if deal and _legal(state, c.PlayForce(seat, "jailhouse_deal")):
        return None  # greedy plays it: the full way
    if turn.phase in _WINDOWS:
        return c.Proceed(seat)
    pairs = _turn_commands(state, seat)
    command_of = {id(plain): cmd for plain, cmd in pairs}
    scored = Turn(view, [plain for plain, _ in pairs], random.Random(0)).scored()
    for i in sorted(range(len(scored)), key=lambda i: -scored[i][0]):  # stable: first best
        score, plain = scored[i]
        if score < MIN_SCORE:
            return None
        cmd = command_of[id(plain)]
        if _legal(state, cmd):
            return cmd
    return None


_PLAIN: dict[c.Command, dict[str, Any]] = {}


def greedy_command(state: State, seat: int, seed: int, cache: ViewCache) -> c.Command | None:
    """The command ``GreedyPolicy(seed)`` chooses for ``seat``'s view of ``state`` (None: it has
    no legal command)."""
    view = light_view(state, seat, cache)
    try:
        fast = _turn_choice(state, seat, view)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        fast = None  # (the full way decides, and falls back as greedy does)
    if fast is not None:
        return fast
    legal = legal_actions(state, seat)
    if not legal:
        return None
    if len(_PLAIN) > 4096:
        _PLAIN.clear()
    plain = [_PLAIN.get(cmd) or _PLAIN.setdefault(cmd, to_plain(cmd)) for cmd in legal]
    return load(GreedyPolicy(seed).choose(view, plain))


def rollout(state: State, command: c.Command, luck: bytes) -> State | None:
    """Play ``command`` on ``state``, then the rest of the game with greedy policies for every
    seat (dice, draws and the policies' seeds from ``luck``); the end (None: ``command`` is
    illegal).  Stops after ``MAX_STEPS`` commands or when no seat can play."""
    rng = Rng(luck, "search")
    chooser = random.Random(luck)
    cache = ViewCache()
    try:
        for event in decide(state, command, rng):
            state = evolve(state, event)
    except RuleViolation:
        return None
    for _ in range(MAX_STEPS):
        if state.status is not Status.PLAYING:
            break  # the game's end: every officer accuses now
        actor = state.pending[0].seat if state.pending else state.turn.seat  # type: ignore[union-attr]
        pick = greedy_command(state, actor, chooser.getrandbits(32), cache)
        if pick is None:
            break
        try:
            for event in decide(state, pick, rng):
                state = evolve(state, event)
        except RuleViolation:
            break
    return state
