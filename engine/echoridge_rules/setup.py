"""Setup (rules.md §3, and §14 for co-op) and its draws (§16, R1-R9, R11 and R14), in this order:
R1 block layout, R2 clue tokens, R3 murderer, R4 Suspect deck, R5 Event deck, R6 Force deck,
R7 abilities, R8 starting stack, R14 co-op roles (unless given), then the 3 starting mobsters
(each a bag draw, then a block).  In co-op the §14 mobsters leave the bag before any draw, and
Good Cop and Night Shift are not dealt."""

from __future__ import annotations

from echoridge_protocol.fairness import commit
from echoridge_rules import tasks as t
from echoridge_rules.board import NON_HQ, index
from echoridge_rules.carddata import ABILITY_IDS, EVENT_IDS, FORCE_DECK
from echoridge_rules.context import Ctx
from echoridge_rules.coopdata import COOP_LEFT_OUT, COOP_PLAYERS, ROLES_BY_COUNT, Mode
from echoridge_rules.data import (
    BLOCK_NAMES,
    HQ,
    HQ_NAME,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RECORDED_RULES,
    RULES_VERSION,
    SEARCH_TOKENS,
    STAKEOUT_VALUES,
    STARTING_MOBSTERS,
    SUSPECT_IDS,
)
from echoridge_rules.errors import RuleViolation
from echoridge_rules.events import GameStarted
from echoridge_rules.model import ClueKind, ClueToken, State, Status
from echoridge_rules.proofs import setup_items
from echoridge_rules.seats import check_clock

MAX_NAME = 32  # characters of a display name (the lobby refuses longer ones)


def check_start(
    state: State,
    players: int,
    names: tuple[str, ...] = (),
    bots: tuple[str, ...] = (),
    clock: tuple[int, ...] = (),
    mode: str = "",
    roles: tuple[str, ...] = (),
    rules: int = RECORDED_RULES,
) -> None:
    if state.status is not Status.NEW:
        raise RuleViolation("rules/game_already_started", "The game has already started.")
    if (
        not isinstance(players, int)
        or isinstance(players, bool)
        or not MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise RuleViolation(
            "rules/bad_player_count", f"A game has {MIN_PLAYERS} to {MAX_PLAYERS} players."
        )
    for given in (names, bots):
        if (
            not isinstance(given, tuple)
            or len(given) not in (0, players)
            or not all(isinstance(x, str) and len(x) <= MAX_NAME for x in given)
        ):
            raise RuleViolation("rules/bad_names", "One display name and one bot kind per seat.")
    check_clock(clock)
    if mode not in ("", Mode.COMPETITIVE, Mode.COOPERATIVE) or (
        mode == Mode.COOPERATIVE and players not in COOP_PLAYERS
    ):
        raise RuleViolation(
            "rules/bad_mode", "A game is competitive (1 to 4 players) or cooperative (2 to 4)."
        )
    if roles and (
        mode != Mode.COOPERATIVE
        or not isinstance(roles, tuple)
        or sorted(roles) != sorted(ROLES_BY_COUNT[players])
    ):
        raise RuleViolation(
            "rules/bad_roles", "Give each seat one of the co-op roles for this player count."
        )
    if not RECORDED_RULES <= rules <= RULES_VERSION:
        raise RuleViolation("rules/unknown_rules", "This engine does not play that rules version.")


def exec_start(
    ctx: Ctx,
    players: int,
    names: tuple[str, ...] = (),
    bots: tuple[str, ...] = (),
    clock: tuple[int, ...] = (),
    mode: str = "",
    roles: tuple[str, ...] = (),
    rules: int = RECORDED_RULES,
) -> None:
    cooperative = mode == Mode.COOPERATIVE
    layout = list(ctx.shuffle(BLOCK_NAMES))  # R1
    layout.insert(index(HQ), HQ_NAME)
    spots = ctx.sample(NON_HQ, len(SEARCH_TOKENS) + len(STAKEOUT_VALUES))  # R2
    n = len(SEARCH_TOKENS)
    tokens = [
        ClueToken(b, ClueKind.SEARCH, int(ok))
        for b, ok in zip(spots[:n], SEARCH_TOKENS, strict=True)
    ] + [
        ClueToken(b, ClueKind.STAKEOUT, v)
        for b, v in zip(spots[n:], STAKEOUT_VALUES, strict=True)
    ]
    tokens.sort(key=lambda tok: index(tok.block))
    murderer = ctx.pick(SUSPECT_IDS)  # R3
    deck = ctx.shuffle([s for s in SUSPECT_IDS if s != murderer])  # R4
    events = ctx.shuffle(EVENT_IDS)  # R5
    force = ctx.shuffle(FORCE_DECK)  # R6
    dealt = tuple(a for a in ABILITY_IDS if not (cooperative and a in COOP_LEFT_OUT))
    abilities = ctx.sample(dealt, players)  # R7
    order = ctx.shuffle(range(players))  # R8: bottom of the stack first
    if cooperative and not roles:
        roles = ctx.shuffle(ROLES_BY_COUNT[players])  # R14
    items = setup_items(tuple(tokens), murderer, deck)
    salts = tuple((label, ctx.salt(label)) for label, _ in items)
    commitments = tuple(
        (label, commit(label, value, s))
        for (label, value), (_, s) in zip(items, salts, strict=True)
    )
    ctx.emit(
        GameStarted(
            players=players,
            layout=tuple(layout),
            tokens=tuple(tokens),
            murderer=murderer,
            suspect_deck=deck,
            event_deck=events,
            force_deck=force,
            abilities=abilities,
            order=order,
            commitments=commitments,
            salts=salts,
            names=names,
            bots=bots,
            clock=clock,
            mode=Mode.COOPERATIVE.value if cooperative else "",
            roles=tuple(roles),
            rules=rules,
        )
    )
    ctx.push(t.PlaceMobsters(STARTING_MOBSTERS), t.NextTurn())
