"""Every way a command can be refused (rules.md §§3-12, docs/rulings.md).

Each refusal is checked the same way (``refuse``): ``decide`` raises ``RuleViolation`` with the
exact stable code, before drawing anything or emitting anything (the state is unchanged); the
detail is a plain sentence for players that gives away nothing hidden (§15); and the refused
command is not among ``legal_actions`` for its seat.  A few "contrast" tests show the same
scene accepting the nearest legal command, so each refusal is pinned to the one requirement it
breaks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace

import pytest

from echoridge_protocol.codes import RULE_CODES
from echoridge_rules import RuleViolation, State, decide, legal_actions
from echoridge_rules import commands as c
from echoridge_rules.board import Block
from echoridge_rules.carddata import FORCE_CARDS
from echoridge_rules.data import EVENT_LINES, SUSPECTS, Color, Evidence
from echoridge_rules.decisions import (
    ChooseAccusation,
    ChooseDiscard,
    ChooseGain,
    ChooseInterrogate,
    ChoosePeek,
    ChoosePoolCard,
    ChooseRest,
    ChooseSlot,
    ChooseTrait,
)
from echoridge_rules.model import ClueKind, ClueToken, Phase, Place, Status
from echoridge_rules.serial import digest
from tests.rules.helpers import (
    CARD_WINDOWS,
    Scripted,
    die,
    given,
    player,
    turn_of,
    when,
    with_event,
)

HQ: Block = (3, 3)
DAY = 10  # a day space with no Event Line near
NIGHT = 20  # a night space
OTHER_SUSPECTS = ("S03", "S07")  # seat 1's secret hand
OTHER_FORCE = ("judges_signature",)  # seat 1's secret Force hand (one of two copies)
# Ten blocks from HQ, all adjacent in turn, ending on (3,5).
LONG_DRIVE: tuple[Block, ...] = (
    (3, 2), (3, 1), (2, 1), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 5), (3, 5),
)

# --- the refusal check ---------------------------------------------------------------------------

_JARGON = re.compile(
    r"rules/|_|\bNone\b|<|>|\b(?:Phase|Action|Color|Evidence|ClueKind|TimeOfDay|Place)\.|\bw[1-4]\b"
)
_ALWAYS_HIDDEN = ("murderer", "success", "failure")


def _secrets(state: State, cmd: c.Command) -> set[str]:
    """Hidden facts the sender may not learn (§15), minus what the command itself names."""
    seat = getattr(cmd, "seat", None)
    named = {str(getattr(cmd, f.name)) for f in fields(cmd)}
    named |= {FORCE_CARDS[n].name for n in named if n in FORCE_CARDS}
    own: set[str] = set()
    out: set[str] = set()

    def suspect(card: str) -> set[str]:
        return {card, SUSPECTS[card].name}

    out |= suspect(state.murderer) if state.murderer else set()
    for card in (*state.suspect_deck, *state.suspects_out):
        out |= suspect(card)
    for p in state.players:
        if p.seat == seat:
            own |= {FORCE_CARDS[f].name for f in p.force} | set(p.force)
            for card in p.suspects:
                own |= suspect(card)
            continue
        for card in p.suspects:
            out |= suspect(card)
        for f in p.force:
            out |= {f, FORCE_CARDS[f].name}
    return out - named - own


def assert_player_sentence(detail: str, state: State, cmd: c.Command) -> None:
    assert isinstance(detail, str)
    text = detail.strip()
    assert len(text.split()) >= 3, f"too short for a player: {detail!r}"
    assert text[0].isupper(), f"not a sentence: {detail!r}"
    assert text.endswith((".", "!")), f"not a sentence: {detail!r}"
    assert not _JARGON.search(text), f"engine jargon in {detail!r}"
    lowered = text.lower()
    for word in _ALWAYS_HIDDEN:
        assert word not in lowered, f"{word!r} in {detail!r}"
    public = text.replace("S01 to S16", "")  # the range of suspect ids is public
    for secret in _secrets(state, cmd):
        assert secret not in public, f"hidden {secret!r} in {detail!r}"


def refuse(state: State, cmd: c.Command, code: str) -> RuleViolation:
    """Assert ``cmd`` is refused with ``code``, cleanly, and is not offered as legal."""
    assert code in RULE_CODES
    before = digest(state)
    rng = Scripted()
    with pytest.raises(RuleViolation) as info:
        decide(state, cmd, rng)  # type: ignore[arg-type]
    err = info.value
    assert err.code == code, f"{cmd}: got {err.code} ({err.detail})"
    assert_player_sentence(err.detail, state, cmd)
    assert rng.used == [], "a refused command drew random values"
    assert digest(state) == before, "a refused command changed the state"
    seat = getattr(cmd, "seat", None)
    if isinstance(seat, int) and not isinstance(cmd, c.ApplyDefault):
        assert cmd not in legal_actions(state, seat), f"{cmd} refused but listed as legal"
    return err


def accept(state: State, cmd: c.Command, draws: Sequence[int] = ()) -> State:
    """The contrast: ``cmd`` is legal here (and listed, unless it is a non-canonical Drive)."""
    seat = getattr(cmd, "seat", None)
    if isinstance(seat, int) and not isinstance(cmd, c.Drive | c.ApplyDefault):
        assert cmd in legal_actions(state, seat), f"{cmd} not listed as legal"
    after, _ = when(state, cmd, draws)
    return after


def test_the_sentence_check_catches_jargon_and_leaks() -> None:
    state = scene(force=("tip_line",))
    cmd = c.Arrest(0)
    assert_player_sentence("There is no mobster on your block.", state, cmd)
    murderer = SUSPECTS[state.murderer].name
    bad = [
        "",
        "no",
        "there is no mobster on your block.",
        "There is no mobster on your block",
        "rules/no_mobster_here: nope.",
        "Phase.W1 is not the right phase.",
        "The turn is at w3 now.",
        "Action not allowed: None.",
        f"Try asking {SUSPECTS['S07'].name} instead.",  # seat 1's secret hand
        "Seat 1 could play Judge's Signature here.",  # seat 1's secret Force card
        f"It was {murderer} all along.",
        "The token here is a success.",
    ]
    for detail in bad:
        with pytest.raises(AssertionError):
            assert_player_sentence(detail, state, cmd)


# --- scenes --------------------------------------------------------------------------------------

EventSpec = tuple[str, Sequence[Block]]
Tweak = Callable[[State], State]


def scene(
    space: int = DAY,
    *,
    players: int = 2,
    car: Block = HQ,
    ability: str = "quartermaster",
    force: Sequence[str] = (),
    mobsters: Mapping[Block, str] | None = None,
    tokens: Sequence[tuple[Block, str, int]] = (),
    events: Sequence[EventSpec] = (),
    other_suspects: Mapping[int, Sequence[str]] | None = None,
    tweak: Tweak | None = None,
) -> State:
    """Seat 0's turn, just begun on ``space``: every tracker on that space, seat 0 on top.
    Seat 1 holds secret Suspects and a secret Force card; every Event Line is already crossed,
    so an advance never draws an event."""
    suspects: dict[int, Sequence[str]] = {1: OTHER_SUSPECTS} if players > 1 else {}
    if other_suspects is not None:
        suspects = dict(other_suspects)
    hands: dict[int, Sequence[str]] = {0: tuple(force)}
    if players > 1:
        hands[1] = OTHER_FORCE
    state = given(
        players=players,
        abilities=[ability] + ["quartermaster"] * (players - 1),
        spaces={s: space for s in range(players)},
        order=tuple(reversed(range(players))),
        cars={0: car},
        mobsters=mobsters or {},
        tokens=tokens,
        suspects=suspects or None,
        force=hands,
    )
    for slot, (card, blocks) in enumerate(events, start=1):
        state = with_event(state, slot, card, blocks)
    state = replace(state, lines=frozenset(EVENT_LINES))
    if tweak is not None:
        state = tweak(state)
    return turn_of(state, 0)


def go(state: State, *cmds: c.Command) -> State:
    for cmd in cmds:
        state, _ = when(state, cmd)
    return state


def mat_token(block: Block, kind: ClueKind, value: int, seat: int) -> Tweak:
    def add(state: State) -> State:
        token = ClueToken(block, kind, value, Place.MAT, seat)
        return replace(state, tokens=(*state.tokens, token))

    return add


def removed_token(block: Block, kind: ClueKind, value: int) -> Tweak:
    def add(state: State) -> State:
        token = ClueToken(block, kind, value, Place.REMOVED)
        return replace(state, tokens=(*state.tokens, token))

    return add


# ================================================================================================
# StartGame, before the start, after the end
# ================================================================================================


@pytest.mark.parametrize("players", [0, 5, -1, 100])
def test_start_game_with_a_bad_player_count(players: object) -> None:
    refuse(State(), c.StartGame(players), "rules/bad_player_count")  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [1, 4])
def test_start_game_accepts_one_to_four_players(players: int) -> None:
    state, _ = when(State(), c.StartGame(players))
    assert state.status is Status.PLAYING


@pytest.mark.parametrize("players", [1, 2, 4])
def test_start_game_twice(players: int) -> None:
    state = scene(players=players)
    refuse(state, c.StartGame(players), "rules/game_already_started")
    refuse(state, c.StartGame(2), "rules/game_already_started")


def _every_seat_command(seat: int) -> list[c.Command]:
    return [
        c.ApplyDefault(seat),
        c.Drive(seat, ((3, 2),)),
        c.PlayForce(seat, "tip_line", (1, 1)),
        c.Arrest(seat),
        c.CoffeeBreak(seat),
        c.CallForBackup(seat, 3),
        c.CatchInformant(seat),
        c.CatchWitness(seat),
        c.SearchScene(seat),
        c.Stakeout(seat, 2),
        c.HoldMobster(seat),
        c.BookMobster(seat),
        c.ResolveEvent(seat, 1),
        c.Proceed(seat),
        c.GainSuspect(seat, None),
        c.Interrogate(seat, None),
        c.PickSlot(seat, 1),
        c.DiscardForce(seat, "tip_line"),
        c.TakeFromPool(seat, "tip_line"),
        c.LearnTrait(seat, Evidence.RANK),
        c.PeekToken(seat, (1, 1)),
        c.RestCase(seat, False),
        c.Accuse(seat, "S01"),
    ]


@pytest.mark.parametrize("cmd", _every_seat_command(0), ids=lambda x: type(x).__name__)
def test_nothing_but_start_game_before_the_game_starts(cmd: c.Command) -> None:
    refuse(State(), cmd, "rules/game_not_started")


def test_no_legal_actions_before_the_start() -> None:
    assert legal_actions(State(), 0) == ()


def _accusing() -> State:
    """Two players: seat 1 has ended on 48; seat 0 ends on 48 with a Coffee Break."""

    def seat_1_ended(state: State) -> State:
        return player(state, 1, space=48, ended=True)

    state = scene(47, tweak=seat_1_ended)
    state, _ = when(state, c.CoffeeBreak(0), [die(6), die(6)])  # Mobster Roll: Reprieve
    assert state.status is Status.ACCUSING
    assert set(state.pending) == {ChooseAccusation(0), ChooseAccusation(1)}
    return state


def _over() -> State:
    state = _accusing()
    state = go(state, c.Accuse(0, "S01"), c.Accuse(1, "S02"))
    assert state.status is Status.OVER
    return state


TURN_COMMANDS: list[tuple[str, Callable[[int], c.Command]]] = [
    ("drive", lambda s: c.Drive(s, ((3, 2),))),
    ("play_force", lambda s: c.PlayForce(s, "tip_line", (1, 1))),
    ("arrest", c.Arrest),
    ("coffee_break", c.CoffeeBreak),
    ("call_for_backup", lambda s: c.CallForBackup(s, 6)),
    ("catch_informant", c.CatchInformant),
    ("catch_witness", c.CatchWitness),
    ("search_scene", c.SearchScene),
    ("stakeout", lambda s: c.Stakeout(s, 1)),
    ("hold_mobster", c.HoldMobster),
    ("book_mobster", c.BookMobster),
    ("resolve_event", lambda s: c.ResolveEvent(s, 1)),
    ("proceed", c.Proceed),
]
TURN_IDS = [name for name, _ in TURN_COMMANDS]
TURN_MAKERS = [make for _, make in TURN_COMMANDS]

ANSWER_COMMANDS: list[tuple[str, Callable[[int], c.Command]]] = [
    ("gain_suspect", lambda s: c.GainSuspect(s, None)),
    ("interrogate", lambda s: c.Interrogate(s, None)),
    ("pick_slot", lambda s: c.PickSlot(s, 1)),
    ("discard_force", lambda s: c.DiscardForce(s, "tip_line")),
    ("take_from_pool", lambda s: c.TakeFromPool(s, "tip_line")),
    ("learn_trait", lambda s: c.LearnTrait(s, Evidence.RANK)),
    ("peek_token", lambda s: c.PeekToken(s, (1, 1))),
    ("rest_case", lambda s: c.RestCase(s, False)),
    ("accuse", lambda s: c.Accuse(s, "S01")),
]
ANSWER_IDS = [name for name, _ in ANSWER_COMMANDS]
ANSWER_MAKERS = [make for _, make in ANSWER_COMMANDS]


@pytest.mark.parametrize("make", TURN_MAKERS, ids=TURN_IDS)
def test_no_turn_command_while_accusing(make: Callable[[int], c.Command]) -> None:
    state = _accusing()
    for seat in (0, 1):
        refuse(state, make(seat), "rules/game_over")


@pytest.mark.parametrize("make", ANSWER_MAKERS[:-1], ids=ANSWER_IDS[:-1])
def test_only_the_accusation_is_owed_while_accusing(make: Callable[[int], c.Command]) -> None:
    refuse(_accusing(), make(0), "rules/no_decision_owed")


@pytest.mark.parametrize(
    "make", [*TURN_MAKERS, *ANSWER_MAKERS], ids=[*TURN_IDS, *ANSWER_IDS]
)
def test_nothing_after_the_game_is_over(make: Callable[[int], c.Command]) -> None:
    state = _over()
    for seat in (0, 1):
        refuse(state, make(seat), "rules/game_over")
    assert legal_actions(state, 0) == ()


def test_start_game_after_the_game_is_over() -> None:
    refuse(_over(), c.StartGame(2), "rules/game_already_started")


def test_apply_default_after_the_game_is_over() -> None:
    # Nothing is owed after the end; rules.md does not say which of the two codes applies.
    state = _over()
    with pytest.raises(RuleViolation) as info:
        decide(state, c.ApplyDefault(0), Scripted())  # type: ignore[arg-type]
    assert info.value.code in ("rules/game_over", "rules/no_decision_owed")
    assert_player_sentence(info.value.detail, state, c.ApplyDefault(0))


# ================================================================================================
# Turn commands: wrong seat, unknown seat, decision owed
# ================================================================================================


@pytest.mark.parametrize("make", TURN_MAKERS, ids=TURN_IDS)
def test_turn_command_from_another_seat(make: Callable[[int], c.Command]) -> None:
    state = scene(players=3, force=("tip_line",), tokens=[((1, 1), "search", 1)])
    for seat in (1, 2):
        refuse(state, make(seat), "rules/not_your_turn")


@pytest.mark.parametrize("make", TURN_MAKERS, ids=TURN_IDS)
def test_turn_command_from_an_ended_player(make: Callable[[int], c.Command]) -> None:
    """§5.10: an ended player takes no more turns and plays no Force cards."""

    def seat_1_ended(state: State) -> State:
        state = player(state, 1, space=45, ended=True, force=("tip_line",))
        return replace(state, force_deck=tuple(f for f in state.force_deck if f != "tip_line"))

    state = scene(40, tweak=seat_1_ended)
    refuse(state, make(1), "rules/not_your_turn")


@pytest.mark.parametrize("make", TURN_MAKERS, ids=TURN_IDS)
@pytest.mark.parametrize("seat", [2, 4, -1, 99])
def test_turn_command_from_an_unknown_seat(make: Callable[[int], c.Command], seat: int) -> None:
    refuse(scene(players=2), make(seat), "rules/unknown_seat")


def _owing_a_gain() -> State:
    """Seat 0 played Jailhouse Deal at W1 and now owes a Suspect gain (§4.5.2)."""
    state = scene(
        force=("jailhouse_deal", "tip_line"),
        mobsters={HQ: "gray", (3, 2): "red"},
        tokens=[((1, 1), "search", 1)],
        events=[("E1", [(5, 5), (1, 5)])],
    )
    state = go(state, c.PlayForce(0, "jailhouse_deal"))
    assert state.pending == (ChooseGain(0),)
    assert state.turn is not None and state.turn.phase is Phase.W1
    return state


@pytest.mark.parametrize("make", TURN_MAKERS, ids=TURN_IDS)
def test_turn_command_while_the_active_player_owes_a_decision(
    make: Callable[[int], c.Command],
) -> None:
    refuse(_owing_a_gain(), make(0), "rules/decision_owed")


def _other_seat_owes_a_gain() -> State:
    """Seat 0's Search solves Forensics; seat 0 then seat 1 gain a Suspect (§7.2, Time Track
    order).  Once seat 0 has drawn, seat 1 owes its choice during seat 0's turn."""
    state = scene(
        car=(2, 2),
        force=("tip_line",),
        tokens=[((2, 2), "search", 1), ((1, 1), "stakeout", 2)],
        mobsters={(2, 2): "red"},
        other_suspects={1: OTHER_SUSPECTS, 2: ("S05",)},
        players=3,
        tweak=lambda s: mat_token((4, 5), ClueKind.SEARCH, 1, 1)(
            mat_token((5, 5), ClueKind.SEARCH, 1, 1)(s)
        ),
    )
    state = go(state, c.SearchScene(0))
    assert state.pending == (ChooseGain(0),)
    return state


def test_a_later_gain_cannot_be_answered_before_an_earlier_one() -> None:
    """§4.5.1 and §4.5.3: one at a time, in Time Track order."""
    refuse(_other_seat_owes_a_gain(), c.GainSuspect(1, None), "rules/no_decision_owed")


@pytest.mark.parametrize("make", TURN_MAKERS, ids=TURN_IDS)
def test_turn_command_while_another_seat_owes_a_decision(
    make: Callable[[int], c.Command],
) -> None:
    """§4.5.4: nothing goes on while any decision is owed, even another seat's."""
    state = go(_other_seat_owes_a_gain(), c.GainSuspect(0, None))
    assert state.pending == (ChooseGain(1),)
    refuse(state, make(0), "rules/decision_owed")


# ================================================================================================
# Drive
# ================================================================================================


def test_drive_twice() -> None:
    state = go(scene(), c.Drive(0, ((3, 2),)))
    refuse(state, c.Drive(0, ((3, 1),)), "rules/wrong_window")


def test_drive_after_the_action() -> None:
    state = go(scene(force=("tip_line",)), c.CoffeeBreak(0))
    assert state.turn is not None and state.turn.phase is Phase.W3
    refuse(state, c.Drive(0, ((3, 2),)), "rules/wrong_window")
    state = go(state, c.Proceed(0))
    assert state.turn is not None and state.turn.phase is Phase.W4
    refuse(state, c.Drive(0, ((3, 2),)), "rules/wrong_window")


def test_drive_after_radio_car() -> None:
    """Radio Car is played instead of driving (ruling 3)."""
    state = go(scene(force=("radio_car",)), c.PlayForce(0, "radio_car", (5, 5)))
    refuse(state, c.Drive(0, ((5, 4),)), "rules/wrong_window")


@pytest.mark.parametrize("card", ["judges_signature", "rubber_stamp", "telephoto"])
def test_drive_after_a_w2_card_played_at_w1(card: str) -> None:
    """Ruling 2: a W2-only card played at W1 closes the Drive."""
    state = go(scene(force=(card, "tip_line")), c.PlayForce(0, card))
    refuse(state, c.Drive(0, ((3, 2),)), "rules/wrong_window")


def test_drive_after_double_shift() -> None:
    """§9 Double Shift: no Drive between the two actions."""
    state = go(scene(force=("double_shift", "tip_line")), c.CoffeeBreak(0))
    state = go(state, c.PlayForce(0, "double_shift"))
    refuse(state, c.Drive(0, ((3, 2),)), "rules/wrong_window")


@pytest.mark.parametrize("card", ["tip_line", "squad_wagon", "code_three", "jailhouse_deal"])
def test_drive_still_open_after_a_w1_card(card: str) -> None:
    block = {"tip_line": (1, 1), "squad_wagon": (3, 2)}.get(card)
    state = scene(
        force=(card,), tokens=[((1, 1), "stakeout", 3)], mobsters={(3, 2): "blue"}
    )
    state = go(state, c.PlayForce(0, card, block))
    if state.pending:
        state = go(state, c.GainSuspect(0, None))
    accept(state, c.Drive(0, ((3, 4),)))


BAD_PATHS: list[tuple[str, Block, tuple[Block, ...]]] = [
    ("empty", HQ, ()),
    ("diagonal step", HQ, ((3, 2), (4, 1))),
    ("jump", HQ, ((3, 2), (3, 4))),
    ("same block twice in a row", HQ, ((3, 2), (3, 2))),
    ("first block not next to the car", HQ, ((1, 1), (1, 2))),
    ("first block is the car's own block", HQ, ((3, 3), (3, 2))),
    ("off the board left", (1, 1), ((0, 1),)),
    ("off the board top", (1, 1), ((1, 0),)),
    ("off the board right", (5, 5), ((6, 5),)),
    ("off the board bottom", (5, 5), ((5, 6),)),
    ("off the board after a good step", (1, 2), ((1, 1), (0, 1))),
    ("longer than 64 blocks", HQ, ((3, 2), (3, 3)) * 33),
]


@pytest.mark.parametrize(
    ("car", "path"), [(car, path) for _, car, path in BAD_PATHS], ids=[n for n, _, _ in BAD_PATHS]
)
def test_drive_with_a_bad_path(car: Block, path: tuple[Block, ...]) -> None:
    refuse(scene(car=car), c.Drive(0, path), "rules/bad_path")


@pytest.mark.parametrize(
    ("space", "path"),
    [
        (47, ((3, 2),)),
        (46, ((3, 2), (3, 1))),
        (45, ((3, 2), (3, 1), (2, 1))),
        (38, LONG_DRIVE),
    ],
    ids=["47+1", "46+2", "45+3", "38+10"],
)
def test_drive_that_leaves_less_than_one_hour(space: int, path: tuple[Block, ...]) -> None:
    """§4.4: a Drive must leave at least 1 h, so Coffee Break stays possible."""
    state = scene(space)
    refuse(state, c.Drive(0, path), "rules/over_hour_cap")
    if len(path) > 1:
        accept(state, c.Drive(0, path[:-1]))


def test_drive_surcharges_count_toward_the_hour_cap() -> None:
    """§4.3: +1 h for a SURCHARGE_TOKEN block; +1 h for each block in a SURCHARGE_ROW row."""
    state = scene(46, events=[("E1", [(3, 2), (5, 5)])])
    refuse(state, c.Drive(0, ((3, 2),)), "rules/over_hour_cap")
    accept(state, c.Drive(0, ((2, 3),)))
    state = scene(45, events=[("E14", [(5, 2)])])
    refuse(state, c.Drive(0, ((3, 2), (2, 2))), "rules/over_hour_cap")
    accept(state, c.Drive(0, ((3, 2),)))


def test_drive_waivers_count_toward_the_hour_cap() -> None:
    """Wheelman waives 1 h on a Drive of 3+ blocks; Code Three up to 3 (ruling 8)."""
    three = ((3, 2), (3, 1), (2, 1))
    state = scene(45, ability="wheelman")
    accept(state, c.Drive(0, three))  # 2 h: 45 -> 47
    refuse(state, c.Drive(0, (*three, (1, 1))), "rules/over_hour_cap")  # 3 h
    state = go(scene(47, force=("code_three",)), c.PlayForce(0, "code_three"))
    accept(state, c.Drive(0, three))  # 0 h
    refuse(state, c.Drive(0, (*three, (1, 1))), "rules/over_hour_cap")  # 1 h


# ================================================================================================
# Actions: the window
# ================================================================================================

ACTION_COMMANDS: list[tuple[str, Callable[[int], c.Command]]] = TURN_COMMANDS[2:-1]
ACTION_IDS = [name for name, _ in ACTION_COMMANDS]
ACTION_MAKERS = [make for _, make in ACTION_COMMANDS]


@pytest.mark.parametrize("make", ACTION_MAKERS, ids=ACTION_IDS)
def test_second_action_without_double_shift(make: Callable[[int], c.Command]) -> None:
    state = go(scene(force=("tip_line",), mobsters={HQ: "red"}), c.CoffeeBreak(0))
    assert state.turn is not None and state.turn.phase is Phase.W3
    refuse(state, make(0), "rules/wrong_window")
    state = go(state, c.Proceed(0))
    assert state.turn is not None and state.turn.phase is Phase.W4
    refuse(state, make(0), "rules/wrong_window")


@pytest.mark.parametrize("make", ACTION_MAKERS, ids=ACTION_IDS)
def test_third_action_after_double_shift(make: Callable[[int], c.Command]) -> None:
    state = scene(force=("double_shift", "tip_line"), mobsters={HQ: "red"})
    state = go(state, c.CoffeeBreak(0), c.PlayForce(0, "double_shift"), c.CoffeeBreak(0))
    assert state.turn is not None and state.turn.phase is Phase.W3
    refuse(state, make(0), "rules/wrong_window")


def test_second_action_allowed_after_double_shift() -> None:
    state = scene(force=("double_shift", "tip_line"), mobsters={HQ: "red"})
    state = go(state, c.CoffeeBreak(0), c.PlayForce(0, "double_shift"))
    accept(state, c.Arrest(0))


# ================================================================================================
# Actions: requirements (§5 table, §5.1-5.9)
# ================================================================================================


def _held(seat: int = 0, on_turn: int = 0) -> Tweak:
    def hold(state: State) -> State:
        state = player(state, seat, holding=Color.GRAY, held_on_turn=on_turn)
        return replace(state, bag=(state.bag[0], state.bag[1], state.bag[2] - 1))

    return hold


def _without(informant_rows: Sequence[int] = (), witness_cols: Sequence[int] = ()) -> Tweak:
    def take(state: State) -> State:
        return replace(
            state,
            informants=state.informants - set(informant_rows),
            witnesses=state.witnesses - set(witness_cols),
        )

    return take


Case = tuple[str, Callable[[], State], c.Command, str]

REQUIREMENT_CASES: list[Case] = [
    # Arrest (§5.1)
    ("arrest: mobster only adjacent",
     lambda: scene(mobsters={(3, 2): "red"}), c.Arrest(0), "rules/no_mobster_here"),
    ("arrest: empty city", lambda: scene(), c.Arrest(0), "rules/no_mobster_here"),
    # Call for Backup (§5.3)
    ("backup: mobster only diagonal",
     lambda: scene(mobsters={(4, 4): "red", (2, 2): "blue"}), c.CallForBackup(0, 3),
     "rules/no_mobster_nearby"),
    ("backup: at night",
     lambda: scene(NIGHT, mobsters={HQ: "red"}), c.CallForBackup(0, 3),
     "rules/wrong_time_of_day"),
    # Catch Informant (§5.4)
    ("informant: no mobster here",
     lambda: scene(mobsters={(3, 2): "red"}), c.CatchInformant(0), "rules/no_mobster_here"),
    ("informant: row token taken",
     lambda: scene(mobsters={HQ: "red"}, tweak=_without(informant_rows=[3])),
     c.CatchInformant(0), "rules/no_informant"),
    ("informant: at night",
     lambda: scene(NIGHT, mobsters={HQ: "red"}), c.CatchInformant(0),
     "rules/wrong_time_of_day"),
    # Catch Witness (§5.5)
    ("witness: no mobster here",
     lambda: scene(NIGHT, mobsters={(3, 2): "red"}), c.CatchWitness(0),
     "rules/no_mobster_here"),
    ("witness: column token taken",
     lambda: scene(NIGHT, mobsters={HQ: "red"}, tweak=_without(witness_cols=[3])),
     c.CatchWitness(0), "rules/no_witness"),
    ("witness: its column's token taken, away from HQ",
     lambda: scene(NIGHT, car=(2, 4), mobsters={(2, 4): "red"},
                   tweak=_without(informant_rows=[4], witness_cols=[2])),
     c.CatchWitness(0), "rules/no_witness"),
    ("witness: by day",
     lambda: scene(mobsters={HQ: "red"}), c.CatchWitness(0), "rules/wrong_time_of_day"),
    # Search Scene (§5.6)
    ("search: no token", lambda: scene(car=(2, 2)), c.SearchScene(0), "rules/no_search_token"),
    ("search: a Stakeout token",
     lambda: scene(car=(2, 2), tokens=[((2, 2), "stakeout", 3)]), c.SearchScene(0),
     "rules/no_search_token"),
    ("search: token already flipped onto a mat",
     lambda: scene(car=(2, 2), tweak=mat_token((2, 2), ClueKind.SEARCH, 0, 1)),
     c.SearchScene(0), "rules/no_search_token"),
    ("search: token removed after a solve",
     lambda: scene(car=(2, 2), tweak=removed_token((2, 2), ClueKind.SEARCH, 1)),
     c.SearchScene(0), "rules/no_search_token"),
    ("search: at night",
     lambda: scene(NIGHT, car=(2, 2), tokens=[((2, 2), "search", 1)]), c.SearchScene(0),
     "rules/wrong_time_of_day"),
    # Stakeout (§5.7)
    ("stakeout: no token",
     lambda: scene(NIGHT, car=(2, 2)), c.Stakeout(0, 3), "rules/no_stakeout_token"),
    ("stakeout: a Search token",
     lambda: scene(NIGHT, car=(2, 2), tokens=[((2, 2), "search", 1)]), c.Stakeout(0, 3),
     "rules/no_stakeout_token"),
    ("stakeout: token already on a mat",
     lambda: scene(NIGHT, car=(2, 2), tweak=mat_token((2, 2), ClueKind.STAKEOUT, 2, 1)),
     c.Stakeout(0, 3), "rules/no_stakeout_token"),
    ("stakeout: token removed after a solve",
     lambda: scene(NIGHT, car=(2, 2), tweak=removed_token((2, 2), ClueKind.STAKEOUT, 1)),
     c.Stakeout(0, 3), "rules/no_stakeout_token"),
    ("stakeout: by day",
     lambda: scene(car=(2, 2), tokens=[((2, 2), "stakeout", 3)]), c.Stakeout(0, 3),
     "rules/wrong_time_of_day"),
    # Bring in for Holding, step 1 (§5.8)
    ("hold: no mobster here",
     lambda: scene(NIGHT, car=(2, 2), mobsters={(2, 3): "red"}), c.HoldMobster(0),
     "rules/no_mobster_here"),
    ("hold: Holding spot full",
     lambda: scene(NIGHT, car=(2, 2), mobsters={(2, 2): "red"}, tweak=_held()),
     c.HoldMobster(0), "rules/holding_full"),
    ("hold: by day",
     lambda: scene(car=(2, 2), mobsters={(2, 2): "red"}), c.HoldMobster(0),
     "rules/wrong_time_of_day"),
    ("hold: Jailhouse Riot (E18) blocks it",
     lambda: scene(NIGHT, car=(2, 2), mobsters={(2, 2): "red"}, events=[("E18", [HQ])]),
     c.HoldMobster(0), "rules/action_blocked"),
    # Bring in for Holding, step 2 (§5.8)
    ("book: nothing held", lambda: scene(NIGHT), c.BookMobster(0), "rules/nothing_held"),
    ("book: mobster put on the Holding spot this very turn",
     lambda: scene(NIGHT, tweak=_held(on_turn=1)), c.BookMobster(0), "rules/held_this_turn"),
    ("book: not at HQ",
     lambda: scene(NIGHT, car=(3, 2), tweak=_held()), c.BookMobster(0), "rules/not_at_hq"),
    ("book: by day", lambda: scene(tweak=_held()), c.BookMobster(0), "rules/wrong_time_of_day"),
    # Resolve Event (§5.9, §11.2)
    ("resolve: empty slot", lambda: scene(), c.ResolveEvent(0, 1), "rules/no_such_event"),
    ("resolve: empty slot 3 with 1 and 2 active",
     lambda: scene(car=(2, 2), events=[("E2", [(2, 2)]), ("E3", [(2, 2)])]),
     c.ResolveEvent(0, 3), "rules/no_such_event"),
    ("resolve: slot 0",
     lambda: scene(car=(2, 2), events=[("E2", [(2, 2)])]), c.ResolveEvent(0, 0),
     "rules/no_such_event"),
    ("resolve: slot 4",
     lambda: scene(car=(2, 2), events=[("E2", [(2, 2)])]), c.ResolveEvent(0, 4),
     "rules/no_such_event"),
    ("resolve: car not on the token",
     lambda: scene(car=(2, 2), events=[("E2", [(2, 3)])]), c.ResolveEvent(0, 1),
     "rules/not_on_event_token"),
    ("resolve: car on another event's token",
     lambda: scene(car=(2, 2), events=[("E2", [(4, 4)]), ("E3", [(2, 2)])]),
     c.ResolveEvent(0, 1), "rules/not_on_event_token"),
    ("resolve: MEET with the car on neither token",
     lambda: scene(car=(2, 2), events=[("E17", [(4, 4), (5, 5)])]), c.ResolveEvent(0, 1),
     "rules/not_on_event_token"),
    ("resolve: NAB token with a mobster on it (E8)",
     lambda: scene(car=(2, 2), mobsters={(2, 2): "red"}, events=[("E8", [(2, 2)])]),
     c.ResolveEvent(0, 1), "rules/mobster_on_token"),
    ("resolve: NAB token with a mobster on it (E11)",
     lambda: scene(car=(2, 2), mobsters={(2, 2): "red", (4, 4): "blue"},
                   events=[("E11", [(2, 2), (4, 4)])]),
     c.ResolveEvent(0, 1), "rules/mobster_on_token"),
    ("resolve: NAB token with a mobster on it (E16)",
     lambda: scene(NIGHT, car=(2, 2), mobsters={(2, 2): "gray"}, events=[("E16", [(2, 2)])]),
     c.ResolveEvent(0, 1), "rules/mobster_on_token"),
    ("resolve: E12 is night-only, and this is a day turn",
     lambda: scene(car=(2, 2), events=[("E12", [(2, 2), (4, 4), (5, 1)])]),
     c.ResolveEvent(0, 1), "rules/wrong_time_of_day"),
]


@pytest.mark.parametrize(
    ("build", "cmd", "code"),
    [(b, cmd, code) for _, b, cmd, code in REQUIREMENT_CASES],
    ids=[name for name, _, _, _ in REQUIREMENT_CASES],
)
def test_action_requirement(build: Callable[[], State], cmd: c.Command, code: str) -> None:
    refuse(build(), cmd, code)


CONTRAST_CASES: list[tuple[str, Callable[[], State], c.Command]] = [
    ("arrest", lambda: scene(mobsters={HQ: "red"}), c.Arrest(0)),
    ("backup with an adjacent mobster", lambda: scene(mobsters={(3, 2): "red"}),
     c.CallForBackup(0, 3)),
    ("informant", lambda: scene(mobsters={HQ: "red"}, tweak=_without(informant_rows=[1, 2])),
     c.CatchInformant(0)),
    ("witness", lambda: scene(NIGHT, mobsters={HQ: "red"}, tweak=_without(witness_cols=[2])),
     c.CatchWitness(0)),
    ("search", lambda: scene(car=(2, 2), tokens=[((2, 2), "search", 0)]), c.SearchScene(0)),
    ("stakeout a token already known",
     lambda: scene(NIGHT, car=(2, 2), tokens=[((2, 2), "stakeout", 5)],
                   tweak=lambda s: player(s, 0, known_tokens=frozenset({(2, 2)}))),
     c.Stakeout(0, 1)),
    ("hold", lambda: scene(NIGHT, car=(2, 2), mobsters={(2, 2): "red"}), c.HoldMobster(0)),
    ("book with E18 active (only step 1 is blocked)",
     lambda: scene(NIGHT, tweak=_held(), events=[("E18", [HQ])]), c.BookMobster(0)),
    ("book after the Weapon is solved",
     lambda: scene(NIGHT, tweak=lambda s: replace(_held()(s), hq_holding=())),
     c.BookMobster(0)),
    ("resolve NAB with no mobster on the token",
     lambda: scene(car=(2, 2), events=[("E8", [(2, 2)])]), c.ResolveEvent(0, 1)),
    ("resolve E12 at night", lambda: scene(NIGHT, car=(2, 2),
                                           events=[("E12", [(2, 2), (4, 4), (5, 1)])]),
     c.ResolveEvent(0, 1)),
    ("resolve E12 on a day space under ALL_NIGHT",
     lambda: scene(car=(2, 2), events=[("E12", [(2, 2), (4, 4), (5, 1)]),
                                       ("E5", [(5, 5), (1, 5)])]),
     c.ResolveEvent(0, 1)),
]


@pytest.mark.parametrize(
    ("build", "cmd"), [(b, cmd) for _, b, cmd in CONTRAST_CASES],
    ids=[name for name, _, _ in CONTRAST_CASES],
)
def test_action_contrast_is_legal(build: Callable[[], State], cmd: c.Command) -> None:
    accept(build(), cmd, [die(1)] if isinstance(cmd, c.CallForBackup) else [])


def test_step_2_held_this_same_turn_via_double_shift() -> None:
    """§5.8 and §9 Double Shift: step 2 needs a mobster held on an earlier turn.  (A mobster on
    HQ keeps every other requirement met.)"""
    state = scene(NIGHT, force=("double_shift", "tip_line"), mobsters={HQ: "gray"})
    state = go(state, c.HoldMobster(0))
    state = go(state, c.PlayForce(0, "double_shift"))
    assert state.turn is not None and state.turn.phase is Phase.W2
    refuse(state, c.BookMobster(0), "rules/held_this_turn")


def test_step_2_held_earlier_is_legal() -> None:
    state = scene(NIGHT, tweak=_held(on_turn=0))
    assert state.turn is not None and state.turn.number == 1
    accept(state, c.BookMobster(0))


def test_judges_signature_lifts_an_event_resolve_limit() -> None:
    """Ruling 7: both IGNORE_TOD sources lift an event's day/night resolve limit."""
    state = scene(car=(2, 2), force=("judges_signature",),
                  events=[("E12", [(2, 2), (4, 4), (5, 1)])])
    state = go(state, c.PlayForce(0, "judges_signature"))
    accept(state, c.ResolveEvent(0, 1))


@pytest.mark.parametrize("card", ["judges_signature"])
def test_judges_signature_never_helps_bring_in(card: str) -> None:
    """§9: Judge's Signature is not for either step of Bring in for Holding."""
    state = scene(car=(2, 2), force=(card,), mobsters={(2, 2): "red"})
    state = go(state, c.PlayForce(0, card))
    refuse(state, c.HoldMobster(0), "rules/wrong_time_of_day")
    state = scene(force=(card,), tweak=_held())
    state = go(state, c.PlayForce(0, card))
    refuse(state, c.BookMobster(0), "rules/wrong_time_of_day")


# --- risk -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("risk", [0, 7, -1, 100])
def test_call_for_backup_risk_out_of_range(risk: int) -> None:
    refuse(scene(mobsters={HQ: "red"}), c.CallForBackup(0, risk), "rules/risk_out_of_range")


@pytest.mark.parametrize("risk", [0, 6, -1])
def test_stakeout_risk_out_of_range(risk: int) -> None:
    state = scene(NIGHT, car=(2, 2), tokens=[((2, 2), "stakeout", 3)])
    refuse(state, c.Stakeout(0, risk), "rules/risk_out_of_range")


@pytest.mark.parametrize("risk", [5, 6])
def test_call_for_backup_risk_over_the_dead_phone_lines_cap(risk: int) -> None:
    """E2 RISK_CAP(Backup,4)."""
    state = scene(mobsters={HQ: "red"}, events=[("E2", [(5, 5)])])
    refuse(state, c.CallForBackup(0, risk), "rules/risk_out_of_range")
    accept(state, c.CallForBackup(0, 4), [die(6)])


def test_telephoto_does_not_widen_the_risk_range() -> None:
    """Telephoto adds to the success test only, never to the declared range."""
    state = scene(mobsters={HQ: "red"}, force=("telephoto",), events=[("E2", [(5, 5)])])
    state = go(state, c.PlayForce(0, "telephoto"))
    refuse(state, c.CallForBackup(0, 5), "rules/risk_out_of_range")
    state = scene(NIGHT, car=(2, 2), tokens=[((2, 2), "stakeout", 3)], force=("telephoto",))
    state = go(state, c.PlayForce(0, "telephoto"))
    refuse(state, c.Stakeout(0, 6), "rules/risk_out_of_range")


# --- hour cap (§4.4) ------------------------------------------------------------------------------

HOUR_CAP_CASES: list[Case] = [
    ("47: Catch Witness (2 h)",
     lambda: scene(47, mobsters={HQ: "red"}), c.CatchWitness(0), "rules/over_hour_cap"),
    ("47: Bring in step 1 (2 h)",
     lambda: scene(47, mobsters={HQ: "red"}), c.HoldMobster(0), "rules/over_hour_cap"),
    ("47: Bring in step 2 (2 h)",
     lambda: scene(47, tweak=_held()), c.BookMobster(0), "rules/over_hour_cap"),
    ("47: Stakeout risk 2",
     lambda: scene(47, car=(2, 2), tokens=[((2, 2), "stakeout", 1)]), c.Stakeout(0, 2),
     "rules/over_hour_cap"),
    ("47: Stakeout risk 5",
     lambda: scene(47, car=(2, 2), tokens=[((2, 2), "stakeout", 1)]), c.Stakeout(0, 5),
     "rules/over_hour_cap"),
    ("47: Stakeout risk 1 under Harbor Fog (E6, +1 h)",
     lambda: scene(47, car=(2, 2), tokens=[((2, 2), "stakeout", 1)],
                   events=[("E6", [(5, 5), (1, 5)])]),
     c.Stakeout(0, 1), "rules/over_hour_cap"),
    ("47: Arrest under Gang Summit (E11, +1 h)",
     lambda: scene(47, mobsters={HQ: "red", (5, 5): "blue", (1, 5): "gray"},
                   events=[("E11", [(5, 5), (1, 5)])]),
     c.Arrest(0), "rules/over_hour_cap"),
    ("47: Resolve Event VISIT 2 (E2)",
     lambda: scene(47, car=(2, 2), events=[("E2", [(2, 2)])]), c.ResolveEvent(0, 1),
     "rules/over_hour_cap"),
    ("46: Resolve Event VISIT 3 (E13)",
     lambda: scene(46, car=(2, 2), events=[("E13", [(2, 2)])]), c.ResolveEvent(0, 1),
     "rules/over_hour_cap"),
    ("46: Catch Witness under Scared Silent (E3, +1 h)",
     lambda: scene(46, mobsters={HQ: "red"}, events=[("E3", [(5, 5)])]), c.CatchWitness(0),
     "rules/over_hour_cap"),
    ("46: step 2 under Evidence Locker Leak (E7, +1 h)",
     lambda: scene(46, tweak=_held(), events=[("E7", [HQ])]), c.BookMobster(0),
     "rules/over_hour_cap"),
    ("47 with Night Shift: Call for Backup risk 2",
     lambda: scene(47, ability="night_shift", mobsters={HQ: "red"}),
     c.CallForBackup(0, 2, night_shift=True), "rules/over_hour_cap"),
]


@pytest.mark.parametrize(
    ("build", "cmd", "code"),
    [(b, cmd, code) for _, b, cmd, code in HOUR_CAP_CASES],
    ids=[name for name, _, _, _ in HOUR_CAP_CASES],
)
def test_action_over_the_hour_cap(build: Callable[[], State], cmd: c.Command, code: str) -> None:
    refuse(build(), cmd, code)


def test_at_47_only_one_hour_actions_are_legal() -> None:
    """Worked example 9."""
    state = scene(47, car=(2, 2), mobsters={(2, 2): "red"}, tokens=[((2, 2), "stakeout", 1)])
    legal: list[c.Command] = [c.CoffeeBreak(0), c.Arrest(0), c.Stakeout(0, 1)]
    for cmd in legal:
        accept(state, cmd, [die(6), die(6)])
    illegal: list[c.Command] = [
        c.CatchWitness(0), c.HoldMobster(0), *(c.Stakeout(0, r) for r in range(2, 6))
    ]
    for cmd in illegal:
        refuse(state, cmd, "rules/over_hour_cap")
    refuse(state, c.Drive(0, ((2, 3),)), "rules/over_hour_cap")


def test_ability_and_card_reductions_count_toward_the_hour_cap() -> None:
    state = scene(47, ability="street_contacts", mobsters={HQ: "red"})
    accept(state, c.CatchWitness(0), [die(6), die(6)])
    state = go(scene(47, force=("rubber_stamp",), mobsters={HQ: "red"}),
               c.PlayForce(0, "rubber_stamp"))
    accept(state, c.CatchWitness(0))


@pytest.mark.parametrize(
    ("build", "cmd", "ok"),
    [
        (lambda: scene(36, mobsters={(3, 5): "red"}), c.CallForBackup(0, 3), c.CallForBackup(0, 2)),
        (lambda: scene(36, mobsters={(3, 5): "red"}, events=[("E4", [(5, 1)])]),
         c.CatchInformant(0), None),
        (lambda: scene(36, tokens=[((3, 5), "search", 1)], events=[("E15", [(5, 1)])]),
         c.SearchScene(0), None),
    ],
    ids=["backup risk 3 after a 10 h drive from 36",
         "Catch Informant +1 (E4) after a 10 h drive from 36",
         "Search Scene +1 (E15) after a 10 h drive from 36"],
)
def test_drive_hours_count_toward_the_action_hour_cap(
    build: Callable[[], State], cmd: c.Command, ok: c.Command | None
) -> None:
    """§4.4: start + Drive hours + action hours <= 48; a day turn begun on 36 stays a day
    turn (§4.2), so the hour cap is what limits the action."""
    state = go(build(), c.Drive(0, LONG_DRIVE))
    refuse(state, cmd, "rules/over_hour_cap")
    if ok is not None:
        accept(state, ok, [die(1)])


def test_hour_cap_counts_both_actions_of_a_double_shift() -> None:
    state = scene(46, force=("double_shift", "tip_line"), mobsters={HQ: "red"})
    state = go(state, c.CoffeeBreak(0), c.PlayForce(0, "double_shift"))
    refuse(state, c.CatchWitness(0), "rules/over_hour_cap")
    accept(state, c.Arrest(0))


# --- time of day (§4.2) ---------------------------------------------------------------------------


def test_time_of_day_is_fixed_when_the_turn_begins() -> None:
    """Worked example 17, turned round: a turn begun on 12 stays a day turn after a Drive."""
    state = scene(12, car=(2, 2), mobsters={(5, 2): "red"}, tokens=[((5, 2), "stakeout", 1)])
    state = go(state, c.Drive(0, ((3, 2), (4, 2), (5, 2))))  # 12 + 3 = 15, a night space
    refuse(state, c.CatchWitness(0), "rules/wrong_time_of_day")
    refuse(state, c.Stakeout(0, 1), "rules/wrong_time_of_day")
    refuse(state, c.HoldMobster(0), "rules/wrong_time_of_day")
    state = scene(24, car=(2, 2), mobsters={(5, 2): "red"}, tokens=[((5, 2), "search", 1)])
    state = go(state, c.Drive(0, ((3, 2), (4, 2), (5, 2))))  # 24 + 3 = 27, a day space
    refuse(state, c.SearchScene(0), "rules/wrong_time_of_day")
    refuse(state, c.CatchInformant(0), "rules/wrong_time_of_day")
    refuse(state, c.CallForBackup(0, 2), "rules/wrong_time_of_day")


def test_double_shift_keeps_the_time_of_day() -> None:
    """§9 Double Shift: the second action has the same time of day as the turn."""
    state = scene(11, car=(2, 2), force=("double_shift", "tip_line"),
                  mobsters={(2, 2): "red"}, tokens=[((2, 2), "search", 0)])
    state = go(state, c.SearchScene(0), c.PlayForce(0, "double_shift"))  # 11 + 2 = 13
    refuse(state, c.CatchWitness(0), "rules/wrong_time_of_day")
    refuse(state, c.HoldMobster(0), "rules/wrong_time_of_day")


def test_judges_signature_covers_only_the_action_it_was_played_for() -> None:
    """§9: a "your action" card applies only to the action it was played for (ruling 5)."""
    state = scene(car=(2, 2), force=("judges_signature", "double_shift", "tip_line"),
                  mobsters={(2, 2): "red"}, tokens=[((2, 2), "stakeout", 1)])
    state = go(state, c.PlayForce(0, "judges_signature"), c.Stakeout(0, 1))
    state = go(state, c.PlayForce(0, "double_shift"))
    refuse(state, c.CatchWitness(0), "rules/wrong_time_of_day")


@pytest.mark.parametrize(
    "cmd",
    [c.SearchScene(0), c.CatchInformant(0), c.CallForBackup(0, 3)],
    ids=["search", "informant", "backup"],
)
def test_all_night_makes_day_actions_illegal(cmd: c.Command) -> None:
    """E5 ALL_NIGHT: every turn counts as a night turn."""
    state = scene(DAY, mobsters={HQ: "red"}, tokens=[(HQ, "search", 1)],
                  events=[("E5", [(5, 5), (1, 5)])])
    assert state.turn is not None and state.turn.night
    refuse(state, cmd, "rules/wrong_time_of_day")
    accept(state, c.CatchWitness(0))


# --- Night Shift (§10, ruling 7) ------------------------------------------------------------------

NIGHT_SHIFT_CASES: list[Case] = [
    ("not needed: Search Scene by day",
     lambda: scene(ability="night_shift", car=(2, 2), tokens=[((2, 2), "search", 1)]),
     c.SearchScene(0, night_shift=True), "rules/night_shift_unavailable"),
    ("not needed: Catch Witness by night",
     lambda: scene(NIGHT, ability="night_shift", mobsters={HQ: "red"}),
     c.CatchWitness(0, night_shift=True), "rules/night_shift_unavailable"),
    ("not needed: Catch Witness on a day space under ALL_NIGHT",
     lambda: scene(ability="night_shift", mobsters={HQ: "red"},
                   events=[("E5", [(5, 5), (1, 5)])]),
     c.CatchWitness(0, night_shift=True), "rules/night_shift_unavailable"),
    ("not needed: Resolve Event with no day/night limit",
     lambda: scene(NIGHT, ability="night_shift", car=(2, 2), events=[("E1", [(2, 2), (4, 4)])]),
     c.ResolveEvent(0, 1, night_shift=True), "rules/night_shift_unavailable"),
    ("not needed: E12 at night",
     lambda: scene(NIGHT, ability="night_shift", car=(2, 2),
                   events=[("E12", [(2, 2), (4, 4), (5, 1)])]),
     c.ResolveEvent(0, 1, night_shift=True), "rules/night_shift_unavailable"),
    ("without the ability: Stakeout by day",
     lambda: scene(ability="sharp_eyes", car=(2, 2), tokens=[((2, 2), "stakeout", 1)]),
     c.Stakeout(0, 1, night_shift=True), "rules/night_shift_unavailable"),
    ("without the ability: Catch Witness by day",
     lambda: scene(ability="good_cop", mobsters={HQ: "red"}),
     c.CatchWitness(0, night_shift=True), "rules/night_shift_unavailable"),
    ("no uses left",
     lambda: scene(ability="night_shift", mobsters={HQ: "red"},
                   tweak=lambda s: player(s, 0, time_waivers=0)),
     c.CatchWitness(0, night_shift=True), "rules/night_shift_unavailable"),
    ("no uses left: Call for Backup by night",
     lambda: scene(NIGHT, ability="night_shift", mobsters={HQ: "red"},
                   tweak=lambda s: player(s, 0, time_waivers=0)),
     c.CallForBackup(0, 3, night_shift=True), "rules/night_shift_unavailable"),
]


@pytest.mark.parametrize(
    ("build", "cmd", "code"),
    [(b, cmd, code) for _, b, cmd, code in NIGHT_SHIFT_CASES],
    ids=[name for name, _, _, _ in NIGHT_SHIFT_CASES],
)
def test_night_shift_refused(build: Callable[[], State], cmd: c.Command, code: str) -> None:
    refuse(build(), cmd, code)


def test_night_shift_not_needed_after_judges_signature() -> None:
    state = scene(ability="night_shift", force=("judges_signature", "tip_line"),
                  mobsters={HQ: "red"})
    state = go(state, c.PlayForce(0, "judges_signature"))
    refuse(state, c.CatchWitness(0, night_shift=True), "rules/night_shift_unavailable")


def test_night_shift_contrast_is_legal() -> None:
    state = scene(ability="night_shift", mobsters={HQ: "red"})
    after = accept(state, c.CatchWitness(0, night_shift=True))
    assert after.players[0].time_waivers == 1
    state = scene(ability="night_shift", car=(2, 2), events=[("E12", [(2, 2), (4, 4), (5, 1)])])
    accept(state, c.ResolveEvent(0, 1, night_shift=True))


def test_night_shift_cannot_be_declared_for_bring_in() -> None:
    """§10: not for either step of Bring in.  The step commands have no night_shift field, and a
    Night Shift player with both uses left still cannot take either step by day."""
    assert "night_shift" not in {f.name for f in fields(c.HoldMobster)}
    assert "night_shift" not in {f.name for f in fields(c.BookMobster)}
    state = scene(ability="night_shift", car=(2, 2), mobsters={(2, 2): "red"})
    refuse(state, c.HoldMobster(0), "rules/wrong_time_of_day")
    state = scene(ability="night_shift", tweak=_held())
    refuse(state, c.BookMobster(0), "rules/wrong_time_of_day")


# ================================================================================================
# PlayForce (§9)
# ================================================================================================


@pytest.mark.parametrize("card", ["ace_of_spades", "", "Tip Line", "TIP_LINE"])
def test_play_an_unknown_card(card: str) -> None:
    refuse(scene(force=("tip_line",)), c.PlayForce(0, card), "rules/unknown_card")


@pytest.mark.parametrize(
    ("card", "block"),
    [("tip_line", (1, 1)), ("checkpoint", None), ("judges_signature", None),
     ("code_three", None)],
)
def test_play_a_card_not_in_hand(card: str, block: Block | None) -> None:
    state = scene(force=("jailhouse_deal",), tokens=[((1, 1), "search", 1)])
    err = refuse(state, c.PlayForce(0, card, block), "rules/card_not_in_hand")
    if card == "judges_signature":  # seat 1 holds the other copy: the detail must not tell
        alone = scene(players=1, force=("jailhouse_deal",), tokens=[((1, 1), "search", 1)])
        assert refuse(alone, c.PlayForce(0, card, block), "rules/card_not_in_hand").detail == (
            err.detail
        )


@pytest.mark.parametrize(
    ("card", "block"),
    [("tip_line", (1, 1)), ("jailhouse_deal", None), ("code_three", None),
     ("judges_signature", None), ("squad_wagon", (3, 2)), ("radio_car", (5, 5))],
)
def test_play_a_card_while_no_force_is_active(card: str, block: Block | None) -> None:
    """E10 NO_FORCE."""
    state = scene(force=(card,), tokens=[((1, 1), "search", 1)], mobsters={(3, 2): "red"},
                  events=[("E10", [(5, 5), (1, 5)])])
    refuse(state, c.PlayForce(0, card, block), "rules/force_blocked")


CARD_BLOCK: dict[str, Block] = {"radio_car": (5, 5), "tip_line": (1, 1), "squad_wagon": (2, 3)}


def at_window(window: str, card: str) -> State:
    """Seat 0 at the given window, holding ``card`` and a spare card that keeps W3/W4 open.  The
    car ends on (2,3), where a mobster stands, and a face-down token lies on (1,1)."""
    spare = "jailhouse_deal" if card == "tip_line" else "tip_line"
    state = scene(car=(2, 2), force=(card, spare), mobsters={(2, 3): "red"},
                  tokens=[((1, 1), "stakeout", 4)])
    if window == "w1":
        return state
    state = go(state, c.Drive(0, ((2, 3),)))
    if window == "w2":
        return state
    state = go(state, c.CoffeeBreak(0))
    if window == "w3":
        return state
    return go(state, c.Proceed(0))


OUT_OF_WINDOW = [
    (card, w) for card, ws in CARD_WINDOWS.items() for w in ("w1", "w2", "w3", "w4") if w not in ws
]
IN_WINDOW = [(card, w) for card, ws in CARD_WINDOWS.items() for w in sorted(ws)]


@pytest.mark.parametrize(
    ("card", "window"), OUT_OF_WINDOW, ids=[f"{card}@{w}" for card, w in OUT_OF_WINDOW]
)
def test_play_a_card_outside_its_window(card: str, window: str) -> None:
    state = at_window(window, card)
    assert state.turn is not None and state.turn.phase.value == window
    refuse(state, c.PlayForce(0, card, CARD_BLOCK.get(card)), "rules/wrong_window")


@pytest.mark.parametrize(
    ("card", "window"), IN_WINDOW, ids=[f"{card}@{w}" for card, w in IN_WINDOW]
)
def test_play_a_card_inside_its_window(card: str, window: str) -> None:
    state = at_window(window, card)
    accept(state, c.PlayForce(0, card, CARD_BLOCK.get(card)))


def test_no_card_in_step_5() -> None:
    """§9: no card is played in Step 5 (Rest Your Case is owed then)."""
    state = _owing_rest()
    refuse(state, c.PlayForce(0, "tip_line", (1, 1)), "rules/decision_owed")
    refuse(state, c.PlayForce(0, "jailhouse_deal"), "rules/decision_owed")


BAD_BLOCK_CASES: list[tuple[str, str, Block | None]] = [
    ("tip line without a block", "tip_line", None),
    ("tip line on a block with no token", "tip_line", (4, 4)),
    ("tip line on a token flipped onto a mat", "tip_line", (1, 5)),
    ("tip line on a removed token", "tip_line", (2, 5)),
    ("tip line off the board", "tip_line", (0, 0)),
    ("radio car without a block", "radio_car", None),
    ("radio car off the board", "radio_car", (6, 3)),
    ("squad wagon without a block", "squad_wagon", None),
    ("squad wagon on a diagonal mobster", "squad_wagon", (4, 4)),
    ("squad wagon two blocks away", "squad_wagon", (3, 1)),
    ("squad wagon on an empty adjacent block", "squad_wagon", (2, 3)),
    ("squad wagon on its own empty block", "squad_wagon", HQ),
    ("squad wagon off the board", "squad_wagon", (3, 0)),
    ("jailhouse deal with a block", "jailhouse_deal", (1, 1)),
    ("code three with a block", "code_three", (3, 2)),
    ("judge's signature with a block", "judges_signature", HQ),
]


@pytest.mark.parametrize(
    ("card", "block"), [(card, b) for _, card, b in BAD_BLOCK_CASES],
    ids=[n for n, _, _ in BAD_BLOCK_CASES],
)
def test_play_a_card_with_a_bad_block(card: str, block: Block | None) -> None:
    def flipped(state: State) -> State:
        return replace(state, tokens=(
            *state.tokens,
            ClueToken((1, 5), ClueKind.SEARCH, 1, Place.MAT, 1),
            ClueToken((2, 5), ClueKind.STAKEOUT, 3, Place.REMOVED),
        ))

    state = scene(force=(card,), tokens=[((1, 1), "search", 1)],
                  mobsters={(3, 2): "red", (4, 4): "blue", (3, 1): "gray"}, tweak=flipped)
    refuse(state, c.PlayForce(0, card, block), "rules/bad_block")


def test_checkpoint_with_a_block() -> None:
    state = at_window("w4", "checkpoint")
    refuse(state, c.PlayForce(0, "checkpoint", (1, 1)), "rules/bad_block")


def test_double_shift_with_a_block() -> None:
    state = at_window("w3", "double_shift")
    refuse(state, c.PlayForce(0, "double_shift", (1, 1)), "rules/bad_block")


DOUBLE_SHIFT_HOURS: list[tuple[str, int, tuple[Block, ...], c.Command, bool]] = [
    ("46 + 2 h action = 48", 46, (), c.CatchWitness(0), False),
    ("47 + 1 h action = 48", 47, (), c.CoffeeBreak(0), False),
    ("44 + 2 h drive + 2 h action = 48", 44, ((3, 2), (3, 1)), c.CatchWitness(0), False),
    ("45 + 1 h drive + 1 h action = 47", 45, ((3, 2),), c.Arrest(0), True),
    ("46 + 1 h action = 47", 46, (), c.CoffeeBreak(0), True),
]


@pytest.mark.parametrize(
    ("space", "drive", "action", "playable"),
    [case[1:] for case in DOUBLE_SHIFT_HOURS],
    ids=[case[0] for case in DOUBLE_SHIFT_HOURS],
)
def test_double_shift_with_under_one_hour_left(
    space: int, drive: tuple[Block, ...], action: c.Command, playable: bool
) -> None:
    """§9 Double Shift: at least 1 h must remain under the cap after the Drive and action."""
    car = drive[-1] if drive else HQ
    state = scene(space, force=("double_shift", "tip_line"), mobsters={car: "red"})
    if drive:
        state = go(state, c.Drive(0, drive))
    state = go(state, action)
    assert state.turn is not None and state.turn.phase is Phase.W3
    if playable:
        accept(state, c.PlayForce(0, "double_shift"))
    else:
        refuse(state, c.PlayForce(0, "double_shift"), "rules/card_not_playable")


@pytest.mark.parametrize("window", ["w1", "w2"])
def test_double_shift_before_the_action(window: str) -> None:
    refuse(at_window(window, "double_shift"), c.PlayForce(0, "double_shift"), "rules/wrong_window")


# ================================================================================================
# Proceed
# ================================================================================================


@pytest.mark.parametrize("window", ["w1", "w2"])
def test_proceed_with_no_open_window(window: str) -> None:
    refuse(at_window(window, "tip_line"), c.Proceed(0), "rules/wrong_window")


def test_proceed_with_no_hand_has_no_window() -> None:
    """Ruling 4: W3/W4 open only while the active player holds a Force card."""
    refuse(scene(), c.Proceed(0), "rules/wrong_window")


def test_proceed_while_the_action_owes_a_decision() -> None:
    refuse(_owing_interrogate(), c.Proceed(0), "rules/decision_owed")


@pytest.mark.parametrize("window", ["w3", "w4"])
def test_proceed_from_another_seat(window: str) -> None:
    state = at_window(window, "tip_line")
    refuse(state, c.Proceed(1), "rules/not_your_turn")
    refuse(state, c.Proceed(2), "rules/unknown_seat")


# ================================================================================================
# Answers (§4.5)
# ================================================================================================


@pytest.mark.parametrize("make", ANSWER_MAKERS, ids=ANSWER_IDS)
@pytest.mark.parametrize("window", ["w1", "w2", "w3", "w4"])
def test_answer_when_nothing_is_owed(make: Callable[[int], c.Command], window: str) -> None:
    state = at_window(window, "tip_line")
    for seat in (0, 1):
        refuse(state, make(seat), "rules/no_decision_owed")


@pytest.mark.parametrize("make", ANSWER_MAKERS, ids=ANSWER_IDS)
def test_answer_from_an_unknown_seat(make: Callable[[int], c.Command]) -> None:
    for seat in (2, -1):
        refuse(_owing_a_gain(), make(seat), "rules/unknown_seat")
        refuse(_accusing(), make(seat), "rules/unknown_seat")


def _owing_interrogate() -> State:
    """Seat 0's Search raises the badge 1 -> 2: an Interrogate (§6)."""
    state = scene(
        players=3, car=(2, 2), force=("tip_line",), tokens=[((2, 2), "search", 1)],
        tweak=lambda s: player(s, 0, badge=1, suspects=("S16",)),
    )
    state = go(state, c.SearchScene(0))
    assert state.pending == (ChooseInterrogate(0),)
    return state


def _owing_slot() -> State:
    state = go(_owing_interrogate(), c.Interrogate(0, 1))
    assert len(state.pending) == 1 and isinstance(state.pending[0], ChooseSlot)
    assert len(state.pending[0].slots) == 2
    return state


def _owing_gain_with_empty_deck() -> State:
    state = scene(players=3, force=("jailhouse_deal",),
                  other_suspects={1: OTHER_SUSPECTS, 2: ("S09",)},
                  tweak=lambda s: replace(s, suspect_deck=()))
    state = go(state, c.PlayForce(0, "jailhouse_deal"))
    assert state.pending == (ChooseGain(0),)
    return state


def _owing_discard() -> State:
    """Seat 0 (hand limit 2) gains a third card from a successful Call for Backup."""
    state = scene(ability="sharp_eyes", force=("tip_line", "jailhouse_deal"),
                  mobsters={HQ: "red"})
    state, _ = when(state, c.CallForBackup(0, 6), [die(6)])
    assert state.pending == (ChooseDiscard(0, "hand_limit"),)
    return state


def _owing_pool_pick() -> State:
    """E12 resolved by seat 0 at night; seat 1 contributed earlier.  POOL(2) of two different
    cards: seat 0 picks first (§11.2, example 14)."""

    def racket(state: State) -> State:
        state = with_event(state, 1, "E12", [(2, 2)], removed_by=[1],
                           card_mobsters=["red", "blue", "gray"])
        deck = [f for f in state.force_deck if f not in ("checkpoint", "telephoto")]
        return replace(state, force_deck=("checkpoint", "telephoto", *deck))

    state = scene(NIGHT, car=(2, 2), tweak=racket)
    state = go(state, c.ResolveEvent(0, 1))
    assert state.pending == (ChoosePoolCard(0),)
    assert set(state.pool) == {"checkpoint", "telephoto"}
    return state


def _owing_trait() -> State:
    """E7 resolved at HQ: the `E` reward, with Rank and Gang unknown and Weapon known."""
    solved = ((Evidence.RANK, 1), (Evidence.GANG, 1), (Evidence.WEAPON, 0))
    state = scene(events=[("E7", [HQ])], tweak=lambda s: replace(s, solved=solved))
    state = go(state, c.ResolveEvent(0, 1))
    assert state.pending == (ChooseTrait(0),)
    return state


def _owing_peek() -> State:
    """E1 resolved by seat 0; seat 1 removed its other token earlier and gets the `P` reward."""

    def water(state: State) -> State:
        state = with_event(state, 1, "E1", [(2, 2)], removed_by=[1])
        return replace(state, tokens=(
            *state.tokens,
            ClueToken((1, 5), ClueKind.SEARCH, 1, Place.MAT, 1),
            ClueToken((2, 5), ClueKind.STAKEOUT, 3, Place.REMOVED),
        ))

    state = scene(car=(2, 2), tokens=[((4, 4), "search", 0), ((5, 1), "stakeout", 5)],
                  tweak=water)
    state = go(state, c.ResolveEvent(0, 1))
    assert state.pending == (ChoosePeek(1),)
    return state


def _owing_rest() -> State:
    """Seat 0 ends its turn on 43 (the end zone) and may Rest Its Case (§5.10)."""
    state = scene(42, force=("tip_line", "jailhouse_deal"), tokens=[((1, 1), "search", 1)])
    state = go(state, c.CoffeeBreak(0), c.Proceed(0))
    state, _ = when(state, c.Proceed(0), [die(6), die(6)])
    assert state.pending == (ChooseRest(0),)
    return state


BAD_ANSWER_CASES: list[tuple[str, Callable[[], State], c.Command]] = [
    ("gain: look at yourself", _owing_a_gain, c.GainSuspect(0, 0)),
    ("gain: look at a player with no cards",
     lambda: go(scene(players=3, force=("jailhouse_deal",)), c.PlayForce(0, "jailhouse_deal")),
     c.GainSuspect(0, 2)),
    ("gain: look at a seat that does not exist", _owing_a_gain, c.GainSuspect(0, 5)),
    ("gain: look at a negative seat", _owing_a_gain, c.GainSuspect(0, -1)),
    ("gain: draw from an empty deck", _owing_gain_with_empty_deck, c.GainSuspect(0, None)),
    ("interrogate: yourself", _owing_interrogate, c.Interrogate(0, 0)),
    ("interrogate: a player with no cards", _owing_interrogate, c.Interrogate(0, 2)),
    ("interrogate: a seat that does not exist", _owing_interrogate, c.Interrogate(0, 7)),
    ("slot: 0", _owing_slot, c.PickSlot(0, 0)),
    ("slot: one past the last", _owing_slot, c.PickSlot(0, 3)),
    ("slot: negative", _owing_slot, c.PickSlot(0, -1)),
    ("discard: a card not in hand", _owing_discard, c.DiscardForce(0, "radio_car")),
    ("discard: another player's card", _owing_discard, c.DiscardForce(0, "judges_signature")),
    ("discard: no such card", _owing_discard, c.DiscardForce(0, "joker")),
    ("pool: a card not in the pool", _owing_pool_pick, c.TakeFromPool(0, "tip_line")),
    ("pool: no such card", _owing_pool_pick, c.TakeFromPool(0, "joker")),
    ("trait: an unsolved evidence", _owing_trait, c.LearnTrait(0, Evidence.FORENSICS)),
    ("trait: an evidence already known", _owing_trait, c.LearnTrait(0, Evidence.WEAPON)),
    ("peek: a block with no token", _owing_peek, c.PeekToken(1, (3, 3))),
    ("peek: a token flipped onto a mat", _owing_peek, c.PeekToken(1, (1, 5))),
    ("peek: a token removed after a solve", _owing_peek, c.PeekToken(1, (2, 5))),
    ("peek: off the board", _owing_peek, c.PeekToken(1, (0, 0))),
]


@pytest.mark.parametrize(
    ("build", "cmd"), [(b, cmd) for _, b, cmd in BAD_ANSWER_CASES],
    ids=[n for n, _, _ in BAD_ANSWER_CASES],
)
def test_answer_that_is_not_an_option(build: Callable[[], State], cmd: c.Command) -> None:
    refuse(build(), cmd, "rules/not_an_option")


# Fields of the wrong type are refused before any rule is looked at, with one code: a command
# built in code (not decoded from the wire, whose decoder checks types) can carry them.  (A bool
# where an int belongs is refused too, but compares equal to the int, so the legal-list check of
# `refuse` cannot tell them apart; test_properties covers those.)
ILL_TYPED_CASES: list[tuple[str, Callable[[], State], c.Command]] = [
    ("player count as text", State, c.StartGame("2")),  # type: ignore[arg-type]
    ("player count as a float", State, c.StartGame(2.0)),  # type: ignore[arg-type]
    ("player count as a bool", State, c.StartGame(True)),
    ("player count missing", State, c.StartGame(None)),  # type: ignore[arg-type]
    ("path step not a block", lambda: scene(), c.Drive(0, ((3,),))),  # type: ignore[arg-type]
    ("risk as text", lambda: scene(mobsters={HQ: "red"}), c.CallForBackup(0, "3")),  # type: ignore[arg-type]
    ("risk as a float", lambda: scene(mobsters={HQ: "red"}), c.CallForBackup(0, 2.5)),  # type: ignore[arg-type]
    ("risk missing", lambda: scene(mobsters={HQ: "red"}), c.CallForBackup(0, None)),  # type: ignore[arg-type]
    ("seat as a float", lambda: scene(), c.CoffeeBreak(0.0)),  # type: ignore[arg-type]
    ("card block not a block", lambda: scene(force=("radio_car",)),
     c.PlayForce(0, "radio_car", (3,))),  # type: ignore[arg-type]
    ("slot as text", _owing_slot, c.PickSlot(0, "1")),  # type: ignore[arg-type]
    ("rest as text", _owing_rest, c.RestCase(0, "yes")),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(
    ("build", "cmd"), [(b, cmd) for _, b, cmd in ILL_TYPED_CASES],
    ids=[n for n, _, _ in ILL_TYPED_CASES],
)
def test_fields_of_the_wrong_type_are_refused(build: Callable[[], State], cmd: c.Command) -> None:
    refuse(build(), cmd, "rules/bad_command")


OWED_SCENES: list[tuple[str, Callable[[], State], int]] = [
    ("gain", _owing_a_gain, 0),
    ("interrogate", _owing_interrogate, 0),
    ("slot", _owing_slot, 0),
    ("discard", _owing_discard, 0),
    ("pool", _owing_pool_pick, 0),
    ("trait", _owing_trait, 0),
    ("peek", _owing_peek, 1),
    ("rest", _owing_rest, 0),
    ("accusation", _accusing, 0),
]
_ANSWER_OF = {
    "gain": "gain_suspect", "interrogate": "interrogate", "slot": "pick_slot",
    "discard": "discard_force", "pool": "take_from_pool", "trait": "learn_trait",
    "peek": "peek_token", "rest": "rest_case", "accusation": "accuse",
}


@pytest.mark.parametrize(
    ("kind", "build", "seat"), OWED_SCENES, ids=[k for k, _, _ in OWED_SCENES]
)
def test_answer_of_the_wrong_kind(kind: str, build: Callable[[], State], seat: int) -> None:
    state = build()
    for name, make in ANSWER_COMMANDS:
        if name != _ANSWER_OF[kind]:
            refuse(state, make(seat), "rules/no_decision_owed")


@pytest.mark.parametrize(
    ("kind", "build", "seat"), [s for s in OWED_SCENES if s[0] != "accusation"],
    ids=[k for k, _, _ in OWED_SCENES if k != "accusation"],
)
def test_answer_from_a_seat_that_owes_nothing(
    kind: str, build: Callable[[], State], seat: int
) -> None:
    state = build()
    other = 1 - seat
    refuse(state, ANSWER_MAKERS[ANSWER_IDS.index(_ANSWER_OF[kind])](other),
           "rules/no_decision_owed")
    refuse(state, c.ApplyDefault(other), "rules/no_decision_owed")


@pytest.mark.parametrize(
    ("kind", "build", "seat"), OWED_SCENES, ids=[k for k, _, _ in OWED_SCENES]
)
def test_every_owed_decision_has_a_legal_answer(
    kind: str, build: Callable[[], State], seat: int
) -> None:
    """The scenes above are real decisions: the seat has answers, and nothing else."""
    legal = legal_actions(build(), seat)
    assert legal
    assert all(type(cmd).__name__ != "Proceed" for cmd in legal)


@pytest.mark.parametrize("suspect", ["S17", "S00", "", "Hattie Crowe", "s12"])
def test_accuse_an_unknown_suspect(suspect: str) -> None:
    """§12: each player names one of the 16 suspects.  The registry has a dedicated code."""
    refuse(_accusing(), c.Accuse(0, suspect), "rules/unknown_suspect")


def test_ended_players_may_be_interrogated_and_looked_at() -> None:
    """§6 and §5.10: an ended player holding cards is still a valid target."""
    state = _owing_interrogate()
    state = player(state, 1, ended=True)
    accept(state, c.Interrogate(0, 1))
    refuse(state, c.Interrogate(0, 2), "rules/not_an_option")


def test_pool_pick_out_of_turn_order() -> None:
    """§11.2: limited rewards are chosen in Time Track order; seat 1 waits for seat 0."""
    refuse(_owing_pool_pick(), c.TakeFromPool(1, "checkpoint"), "rules/no_decision_owed")


def test_accuse_twice() -> None:
    state = go(_accusing(), c.Accuse(0, "S05"))
    refuse(state, c.Accuse(0, "S06"), "rules/no_decision_owed")
    refuse(state, c.ApplyDefault(0), "rules/no_decision_owed")


def test_rest_your_case_only_at_the_end_of_a_turn_in_the_end_zone() -> None:
    state = go(scene(41, force=("tip_line",)), c.CoffeeBreak(0), c.Proceed(0))
    refuse(state, c.RestCase(0, True), "rules/no_decision_owed")
    state, _ = when(state, c.Proceed(0), [die(6), die(6)])  # 42: not in the end zone
    assert not state.pending
    refuse(state, c.RestCase(0, True), "rules/no_decision_owed")


# ================================================================================================
# ApplyDefault
# ================================================================================================


@pytest.mark.parametrize("window", ["w1", "w2"])
def test_apply_default_for_a_seat_owing_nothing(window: str) -> None:
    state = at_window(window, "tip_line")
    refuse(state, c.ApplyDefault(0), "rules/no_decision_owed")
    refuse(state, c.ApplyDefault(1), "rules/no_decision_owed")


@pytest.mark.parametrize("window", ["w3", "w4"])
def test_apply_default_at_an_open_window_only_for_the_active_seat(window: str) -> None:
    """Ruling 11: an open W3/W4 defaults to proceed; nobody else owes anything."""
    state = at_window(window, "tip_line")
    refuse(state, c.ApplyDefault(1), "rules/no_decision_owed")
    when(state, c.ApplyDefault(0), [die(6), die(6)] if window == "w4" else [])


@pytest.mark.parametrize("seat", [2, -1])
def test_apply_default_for_an_unknown_seat(seat: int) -> None:
    # Every other command answers an unknown seat with rules/unknown_seat; for this server-only
    # command the specification does not settle between that and rules/no_decision_owed.
    for state in (_owing_a_gain(), _accusing()):
        with pytest.raises(RuleViolation) as info:
            decide(state, c.ApplyDefault(seat), Scripted())  # type: ignore[arg-type]
        assert info.value.code in ("rules/unknown_seat", "rules/no_decision_owed")
        assert_player_sentence(info.value.detail, state, c.ApplyDefault(seat))


def test_apply_default_for_a_seat_while_another_owes() -> None:
    state = go(_other_seat_owes_a_gain(), c.GainSuspect(0, None))
    refuse(state, c.ApplyDefault(0), "rules/no_decision_owed")
    refuse(state, c.ApplyDefault(2), "rules/no_decision_owed")


# ================================================================================================
# A refused command changes nothing
# ================================================================================================


def test_refused_command_leaves_the_state_untouched() -> None:
    """decide raises before anything happens: no events, no draws, the same state; and the
    same game then goes on exactly as if the refused command had never been sent."""
    state = scene(mobsters={HQ: "red", (3, 2): "blue"}, force=("tip_line",),
                  events=[("E2", [(5, 5)])])
    before = digest(state)
    for bad in (c.CallForBackup(0, 5), c.CatchWitness(0), c.Drive(0, ((5, 5),)),
                c.PlayForce(0, "tip_line", (4, 4)), c.Proceed(0), c.Interrogate(0, 1)):
        rng = Scripted()
        with pytest.raises(RuleViolation):
            decide(state, bad, rng)  # type: ignore[arg-type]
        assert rng.used == []
        assert digest(state) == before
    direct, events = when(state, c.CallForBackup(0, 4), [die(2)])
    assert digest(direct) == digest(when(state, c.CallForBackup(0, 4), [die(2)])[0])
    assert events
