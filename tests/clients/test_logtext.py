"""``echoridge_client.logtext``: every kind of entry the engine can produce has a template, every
template names only fields its entries carry (for every viewer of random games), and a few
entries in words (a failed backup, a Stakeout peek for the peeker and for the others)."""

from __future__ import annotations

import ast
import json
import typing
from pathlib import Path
from typing import Any

import pytest

from echoridge.simulate import game_seed, play_random
from echoridge_client import logtext
from echoridge_client.logtext import catalog, render, seat_names
from echoridge_rules import EVERYONE, SPECTATOR
from echoridge_rules import events as ev
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import Status
from echoridge_rules.serial import tag_of
from echoridge_rules.views import Seat

CLIENT = Path(logtext.__file__).parent
NAMES = ["Ada", "Bo (bot)", "Cy", "Di"]


def engine_kinds() -> set[str]:
    """Every tag of the engine's Event union, as log entries name them (``continued`` is the
    engine's bookkeeping and never an entry), and the server's ``timed_out``."""
    kinds = set()
    for cls in typing.get_args(ev.Event):
        fields = {f: None for f in cls.__dataclass_fields__}
        kinds.add(tag_of(cls(**fields)))
    return (kinds - {"continued"}) | {"timed_out"}


def test_every_kind_the_engine_produces_has_a_template() -> None:
    text = catalog()
    kinds = engine_kinds()
    assert len(kinds) > 50
    missing = sorted(
        k
        for k in kinds
        if k not in text.entries and not {f"{k}.yes", f"{k}.no"} <= set(text.entries)
    )
    assert not missing, f"no template for {missing}"
    unknown = sorted(
        k for k in text.entries if k.split(".")[0] not in kinds
    )  # a template for no kind
    assert not unknown, unknown
    assert text.hidden <= kinds | {"continued"}


def test_every_template_names_only_fields_its_entries_carry() -> None:
    """Random games of 1-4 players through the engine's log for each seat, a spectator and
    everyone: each entry's template names only fields the entry has, and renders."""
    text = catalog()
    seen: set[str] = set()
    for players in (1, 2, 3, 4):
        for game in range(3):
            for command, events, state in play_random(players, game_seed(11 + players, game)):
                said = told(state, command, events)
                over = state.status is Status.OVER
                viewers: list[tuple[Any, int | None]] = [(Seat(s), s) for s in range(players)]
                viewers += [(SPECTATOR, None), (EVERYONE, None)]
                for viewer, seat in viewers:
                    whole = over or viewer is EVERYONE
                    for entry in entries_for(said, EVERYONE if over else viewer):
                        entry = json.loads(json.dumps(entry))
                        key = text.key(entry, seat, whole)
                        assert key is not None, entry
                        seen.add(key)
                        lacking = [f for f in text.fields(key) if f not in entry]
                        assert not lacking, (key, lacking, entry)
                        line = render(entry, NAMES[:players], seat, whole=whole)
                        assert "{" not in line and line.strip(), (key, line)
    assert {"token_peeked", "token_peeked.others", "car_driven", "turn_began"} <= seen


def test_a_failed_backup_in_words() -> None:
    entry = {"kind": "backup_called", "seat": 1, "risk": 4, "dice": [5], "success": False}
    assert render(entry, NAMES, seat=0) == "Bo (bot) called for backup: risk 4, die 5: failure"
    entry = {**entry, "success": True, "dice": [2, 6]}
    assert render(entry, NAMES) == "Bo (bot) called for backup: risk 4, die 2, 6: success"


def test_a_stakeout_peek_for_the_peeker_and_for_the_others() -> None:
    whole = {"kind": "token_peeked", "seat": 0, "block": [3, 2], "token": "stakeout",
             "value": 4, "proof": "token/3,2", "to": [0]}  # fmt: skip
    others = {k: v for k, v in whole.items() if k not in ("value", "proof")}
    assert render(whole, NAMES, seat=0) == (
        "Ada looked at the Stakeout token on (3,2): 4 (only you)"
    )
    for seat in (1, None):  # another seat, a spectator
        assert render(others, NAMES, seat=seat) == "Ada looked at the Stakeout token on (3,2)"
    # after the game the log is whole: nothing is marked as only the viewer's
    assert render(whole, NAMES, seat=1, whole=True) == (
        "Ada looked at the Stakeout token on (3,2): 4"
    )


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"kind": "car_driven", "seat": 2, "path": [[1, 1], [1, 2]], "hours": 2},
         "Cy drove (1,1) → (1,2) (2 h)"),
        ({"kind": "suspect_drawn", "seat": 0, "card": "S07", "to": [0]},
         "Ada drew the Suspect card Frankie Bellows (only you)"),
        ({"kind": "suspect_drawn", "seat": 3, "to": [3]}, "Di drew a Suspect card"),
        ({"kind": "turn_began", "seat": 0, "number": 3, "night": True}, "Turn 3 (night): Ada"),
        ({"kind": "event_resolved", "slot": 2, "resolver": 3, "contributors": []},
         "Di resolved the event in slot 2 (contributors: nobody)"),
        ({"kind": "game_ended", "winners": [0, 2]}, "The game is over. Winners: Ada, Cy"),
        ({"kind": "force_played", "seat": 1, "card": "tip_line", "block": None},
         "Bo (bot) played Tip Line"),
        ({"kind": "timed_out", "seat": 9}, "P10 ran out of time: the server answered for them"),
        ({"kind": "slots_dealt", "seat": 2, "target": 1, "count": 1, "to": [1, 2]},
         "Bo (bot)'s Suspect cards (1) were dealt face down for Cy to pick one"),  # not "1 cards"
        ({"kind": "who_knows"}, "who_knows"),
    ],
)  # fmt: skip
def test_entries_in_words(entry: dict[str, Any], words: str) -> None:
    assert render(entry, NAMES, seat=0) == words


def test_names_come_from_the_view_with_bots_marked() -> None:
    players = [{"seat": 0, "name": "Ada"}, {"seat": 1, "name": "x", "bot": "greedy"}, {}]
    assert seat_names(players) == ["Ada", "x (bot)", "P3"]


def test_the_sdk_never_imports_the_server_package() -> None:
    for path in CLIENT.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:  # not even inside a function
                assert name.split(".")[0] != "echoridge", f"{path.name} imports {name}"


def test_a_search_token_peek_reads_as_a_result_and_an_empty_look_as_nothing_seen() -> None:
    whole = {"kind": "token_peeked", "seat": 0, "block": [1, 4], "token": "search",
             "value": 0, "success": False, "proof": "token/1,4", "to": [0]}  # fmt: skip
    assert render(whole, NAMES, seat=0) == (
        "Ada looked at the Search token on (1,4): failure (only you)"
    )
    others = {"kind": "token_peeked", "seat": 0, "block": [1, 4], "token": "search", "to": [0]}
    assert render(others, NAMES, seat=1) == "Ada looked at the Search token on (1,4)"
    empty = {"kind": "suspect_seen", "seat": 1, "target": 0, "card": None}
    assert render(empty, NAMES, seat=0) == "Bo (bot) looked at Ada's cards: none left to see"


# --- block names, reasons and events (issue 25: words players know) ------------------------------

CITY = [f"Block {i}" for i in range(25)]


def test_blocks_read_as_their_names_in_the_city() -> None:
    from echoridge_client.logtext import block_names, block_text

    placed = {"kind": "mobster_placed", "block": [4, 3], "color": "red"}
    assert render(placed, NAMES, 0, blocks=CITY) == "A red mobster appeared on Block 13"
    assert render(placed, NAMES, 0) == "A red mobster appeared on (4,3)"  # (no city known)
    drive = {"kind": "car_driven", "seat": 1, "path": [[3, 3], [4, 3]], "hours": 2}
    assert render(drive, NAMES, 0, blocks=CITY) == "Bo (bot) drove Block 12 → Block 13 (2 h)"
    assert block_text([9, 9], CITY) == "(9,9)"
    view = {"city": {"blocks": [{"name": n} for n in CITY]}}
    assert block_names(view) == CITY
    assert block_names({"city": {"blocks": [{"name": ""}] * 25}}) == []  # (before the layout)


def test_no_coordinates_in_any_entry_of_a_game_once_the_city_is_known() -> None:
    from echoridge_client.logtext import block_names
    from echoridge_rules import view

    seen = 0
    for command, events, state in play_random(3, game_seed(25, 1)):
        blocks = block_names(view(state, SPECTATOR))
        for entry in entries_for(told(state, command, events), EVERYONE):
            words = render(json.loads(json.dumps(entry)), NAMES, None, whole=True, blocks=blocks)
            if "block" in entry or "path" in entry:
                seen += 1
                assert not any(f"({c},{r})" in words for c in range(1, 6) for r in range(1, 6))
    assert seen > 20


def test_every_unavailable_reason_and_event_has_words() -> None:
    from echoridge_protocol.codes import ALL_CODES
    from echoridge_rules.carddata import EVENTS

    text = catalog()
    assert text.reason("stakeout", "rules/wrong_time_of_day") == "Stakeout is a night action"
    assert text.reason("arrest", "rules/no_mobster_here") == "no mobster on your block"
    assert text.reason("arrest", "rules/unknown_x", "fallback") == "fallback"
    for key in text.reasons or {}:
        assert key.split(" ")[-1] in ALL_CODES, key
    assert set(text.events or {}) == set(EVENTS)
    for card, spec in EVENTS.items():
        words = text.event(card)
        assert words["name"] == spec.name and words["asks"] and words["reward"], card
        assert ("timed" in words) == (spec.timed is not None), card
        assert "VISIT" not in words["asks"] and "MEET" not in words["asks"], card


def test_the_log_says_what_the_buttons_say() -> None:
    text = catalog()
    assert text.values["action"]["bring_in_2"] == "Bring in for Holding, step 2"
    assert "window" not in " ".join(text.values["phase"].values())  # spelled out, no "window 3"


def test_each_action_s_time_of_day_is_worded_as_the_rules_say() -> None:
    from echoridge_rules.data import ACTIONS, Action

    types = {Action.CALL_FOR_BACKUP: "call_for_backup", Action.CATCH_INFORMANT: "catch_informant",
             Action.CATCH_WITNESS: "catch_witness", Action.SEARCH_SCENE: "search_scene",
             Action.STAKEOUT: "stakeout", Action.BRING_IN_1: "hold_mobster",
             Action.BRING_IN_2: "book_mobster"}  # fmt: skip
    text = catalog()
    for action, kind in types.items():
        time = ACTIONS[action].time
        assert time is not None
        words = text.reason(kind, "rules/wrong_time_of_day")
        assert words.endswith(f"a {time.value} action"), (kind, words)
