"""protocol/schema/echoridge.v2.schema.json: current with messages.py, a valid JSON Schema
(draft 2020-12), met by every golden file and by every frame of simulated games, and strict
enough to refuse frames with a wrong type.

The simulated games build their frames the way the server does (tables/viewers.py): each
viewer's view through ``rules.view``, the delta through ``echoridge_protocol.diff``, the log
through ``rules.log.entries_for``, encoded by the reference codec in the JSON subprotocol.
"""

from __future__ import annotations

import copy
import functools
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from echoridge.simulate import play_random, table_seeds
from echoridge.tables.viewers import SPECTATORS, log_viewer, viewer_view
from echoridge.transcript import Recorder
from echoridge_protocol import codec, diff
from echoridge_protocol import messages as m
from echoridge_protocol import schema as gen
from echoridge_rules import SPECTATOR, State, Status, ViewCache, view
from echoridge_rules import events as ev
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import ClueKind
from tests.schemacheck import checker

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "protocol" / "schema" / "echoridge.v2.schema.json"
GOLDEN = ROOT / "tests" / "golden" / "messages"
SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def errors(frame: Any) -> list[str]:
    """What the schema finds wrong with ``frame`` (tests/schemacheck.py: fast, then in words)."""
    return checker().errors(frame)


def test_schema_file_is_current() -> None:
    """The message definitions are generated from messages.py: after changing a message, run
    ``python -m echoridge_protocol.schema protocol/schema/echoridge.v2.schema.json``."""
    assert SCHEMA_FILE.read_text(encoding="utf-8") == gen.update(SCHEMA_FILE)


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_message_type_has_a_definition_in_its_direction() -> None:
    client = {r["$ref"] for r in SCHEMA["$defs"]["ClientMessage"]["oneOf"]}
    server = {r["$ref"] for r in SCHEMA["$defs"]["ServerMessage"]["oneOf"]}
    assert len(client) == len(m.CLIENT_MESSAGES) and len(server) == len(m.SERVER_MESSAGES)
    tags = {
        SCHEMA["$defs"][ref.rsplit("/", 1)[1]]["properties"]["type"]["const"]
        for ref in client | server
    }
    assert tags == set(m.CLIENT_MESSAGES) | set(m.SERVER_MESSAGES)


GOLDEN_NAMES = sorted(p.stem for p in GOLDEN.glob("*.json"))


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_every_golden_json_file_validates(name: str) -> None:
    frame = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert errors(frame) == []
    assert checker().both(frame) == (True, True)  # jsonschema-rs and jsonschema agree
    # Each golden frame is a message of exactly one direction, as the codec decodes it.
    client = checker("ClientMessage").both(frame)
    server = checker("ServerMessage").both(frame)
    assert len(set(client)) == 1 and len(set(server)) == 1  # (they agree)
    assert client[0] != server[0]


# --- simulated games -----------------------------------------------------------------------------


def game_frames(players: int, game: int, mode: str = "competitive") -> Iterator[dict[str, Any]]:
    """Every frame the server would send in one random game to each seat and a spectator:
    the welcome before the start, a delta per version (with its log), a welcome with the
    whole log at some versions and after the game, and the transcript; each as JSON."""
    seeds = table_seeds(11, game, players)
    keys = [*range(players), SPECTATORS]
    caches = {k: ViewCache() for k in keys}
    state = State()
    views = {k: view(state, SPECTATOR) for k in keys}
    logs: dict[int, list[Any]] = {k: [] for k in keys}
    table = seeds.table
    recorder = Recorder(table, seeds.server_seed, seeds.client_seeds)
    said = []
    for k in keys:
        yield _frame(_welcome(table, k, 0, views[k], None))
    game = play_random(players, seeds.game_seed, table, mode)
    for version, (command, events, after) in enumerate(game, start=1):
        recorder.record(None, command, events, after)
        said.append(told(after, command, events))
        for k in keys:
            new = viewer_view(after, k, caches[k])
            log = tuple(entries_for(said[-1], log_viewer(after, k))) or None
            logs[k].extend(log or ())
            yield _frame(m.Delta(table, 1, version, diff(views[k], new), log))
            views[k] = new
            if version % 97 == 0 or after.status is Status.OVER:
                whole = (
                    [e for t in said for e in entries_for(t, log_viewer(after, k))]
                    if after.status is Status.OVER
                    else logs[k]
                )
                yield _frame(_welcome(table, k, version, new, tuple(whole) or None))
        state = after
    assert state.status is Status.OVER
    yield _frame(m.Transcript("r1", table, recorder.transcript(state)))


_LIMITS = m.Limits(65536, 10, 10, 60)


def _welcome(
    table: str, k: int, version: int, view_: dict[str, Any], log: tuple[Any, ...] | None
) -> m.Welcome:
    """A seat's (or with ``SPECTATORS`` a spectator's) welcome at ``version``."""
    seat = None if k == SPECTATORS else k
    session: m.SessionKind = "spectator" if seat is None else "seat"
    return m.Welcome(
        m.PROTOCOL, "echo-ridge/test", m.FEATURES, _LIMITS, session, False,
        table, seat, 1, version, view_, log,
    )  # fmt: skip


def _frame(message: m.Message) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(codec.encode_json(message))
    return frame


@pytest.mark.parametrize(
    ("players", "game", "mode"),
    [
        (1, 0, "competitive"),
        (2, 1, "competitive"),
        (4, 3, "competitive"),
        (3, 2, "competitive"),  # has a city_tokens_removed
        (2, 4, "cooperative"),  # co-op: public suspect_drawn entries (no "to"), the team
        (4, 5, "cooperative"),
    ],
)
def test_every_frame_of_a_simulated_game_validates(players: int, game: int, mode: str) -> None:
    kinds: set[str] = set()
    for frame in game_frames(players, game, mode):
        found = errors(frame)
        assert found == [], (frame["type"], frame.get("version"), found[:5])
        for entry in frame.get("log", ()):
            kinds.add(entry["kind"])
    assert {"game_started", "turn_began", "game_ended", "accused"} <= kinds


@pytest.mark.parametrize(
    "event",
    [
        ev.CityTokensRemoved(ClueKind.STAKEOUT),
        ev.SuspectSeen(0, 1, None),  # nothing to pick (Good Cop): no salt, no label
        ev.SuspectSeen(0, 1, None, "look/0/1", bytes(16)),
        ev.TrackersPushed(),
    ],
)
def test_rare_log_entries_validate(event: ev.Event) -> None:
    state = State()
    for t in told(state, None, [event]):
        for entry in (t.whole, t.others):
            if entry is not None:
                assert errors(_frame(m.Delta("t", 1, 1, [], (entry,)))) == []


# --- strictness: a frame with a wrong type fails --------------------------------------------------


@functools.cache
def _final_seat_welcome() -> dict[str, Any]:
    """Seat 0's welcome after a game: a view with every part (``you``, ``result``,
    ``secrets``) and a log with one entry of each kind the game had (the whole log validates
    in ``test_every_frame_of_a_simulated_game_validates``; one of each keeps the two
    validators' agreement quick to check)."""
    *_, welcome = (
        f
        for f in game_frames(2, 1)
        if f["type"] == "welcome" and f.get("seat") == 0 and f["view"]["status"] == "over"
    )
    firsts: dict[str, Any] = {}
    for entry in welcome["log"]:
        firsts.setdefault(entry["kind"], entry)
    return welcome | {"log": list(firsts.values())}


MUTATIONS = {
    "mat search as booleans": lambda f: f["view"]["players"][0].__setitem__("search", [True]),
    "clue value as a string": lambda f: f["view"]["city"]["blocks"][1].__setitem__(
        "clue", {"kind": "search", "value": "1"}
    ),
    "status unknown": lambda f: f["view"].__setitem__("status", "paused"),
    "version as a string": lambda f: f.__setitem__("version", "7"),
    "unknown view key": lambda f: f["view"].__setitem__("colour", "red"),
    "missing view key": lambda f: f["view"].__delitem__("bag"),
    "player seat out of range": lambda f: f["view"]["players"][0].__setitem__("seat", 4),
    "block outside the city": lambda f: f["view"]["players"][0].__setitem__("car", [6, 1]),
    "proof salt not hex": lambda f: f["view"]["secrets"]["proofs"][0].__setitem__("salt", "zz"),
    "log entry of no kind": lambda f: f["log"].append({"kind": "teleported", "seat": 0}),
    "log entry missing a field": lambda f: f["log"].append({"kind": "mobster_rolled", "black": 2}),
    "log entry dice as strings": lambda f: f["log"].append(
        {"kind": "backup_called", "seat": 0, "risk": 2, "dice": ["3"], "success": True}
    ),
    "public log entry with to": lambda f: f["log"].append(
        {"kind": "turn_began", "seat": 0, "number": 1, "night": False, "to": [0]}
    ),
    "legal command of no type": lambda f: f["view"]["you"].__setitem__(
        "legal", [{"type": "fly", "seat": 0}]
    ),
    "legal command with a wrong field": lambda f: f["view"]["you"].__setitem__(
        "legal", [{"type": "stakeout", "seat": 0, "risk": "high"}]
    ),
    "a null optional field": lambda f: f.__setitem__("table", None),
    "an unknown message field": lambda f: f.__setitem__("colour", "red"),
}


def test_the_unmutated_frame_validates() -> None:
    assert errors(_final_seat_welcome()) == []
    assert checker().both(_final_seat_welcome()) == (True, True)


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_mutated_frame_fails(name: str) -> None:
    frame = copy.deepcopy(_final_seat_welcome())
    MUTATIONS[name](frame)
    assert checker().both(frame) == (False, False)  # jsonschema-rs and jsonschema agree


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "join", "id": "r3", "table": "t-1", "name": "Ada", "client_seed": "5BE1" * 8},
        {"type": "join", "id": "r3", "table": "t-1", "name": " Ada", "client_seed": "5be1" * 8},
        {"type": "join", "id": "r3", "table": "t 1", "name": "Ada", "client_seed": "5be1" * 8},
        {
            "type": "create_table",
            "id": "r",
            "seats": 5,
            "public": True,
            "spectators": True,
            "spectator_delay": 0,
        },
        {"type": "command", "id": "c", "expected": -1, "command": {"type": "arrest", "seat": 0}},
        {"type": "hello", "protocol": "echoridge.v2", "client": "x", "spectate": 1},
        {"type": "delta", "table": "t", "epoch": 1, "version": 2, "ops": [["move", [], 1]]},
        {"type": "delta", "table": "t", "epoch": 1, "version": 2, "ops": [["set", [-1], 1]]},
    ],
)
def test_wrong_messages_fail(frame: dict[str, Any]) -> None:
    assert errors(frame) != []
    assert checker().both(frame) == (False, False)


# --- the log kinds: the engine's events, the schema and SPEC.md §6.3 agree ------------------------


def _schema_kinds() -> set[str]:
    return {
        SCHEMA["$defs"][r["$ref"].rsplit("/", 1)[1]]["properties"]["kind"]["const"]
        for r in SCHEMA["$defs"]["LogEntry"]["oneOf"]
    }


def test_every_event_of_the_engine_has_a_log_kind() -> None:
    import typing

    from echoridge_rules.serial import tag_of

    tags = {tag_of(cls.__new__(cls)) for cls in typing.get_args(ev.Event)}
    assert _schema_kinds() == (tags - {"continued"}) | {"timed_out"}


def test_the_spec_log_table_lists_every_kind() -> None:
    import re

    spec = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    section = spec[spec.index("### 6.3 The game log") : spec.index("### 6.4 ")]
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", section, re.M))
    assert listed - {"kind"} == _schema_kinds()  # "kind": the header row


def test_the_spec_describes_every_key_of_the_view() -> None:
    spec = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    section = spec[spec.index("### 6.1 Views") : spec.index("### 6.2 ")]
    parts = ("View", "Turn", "City", "CityBlock", "EventSlot", "PlayerView", "You", "Secrets")
    missing = [
        f"{part}.{key}"
        for part in parts
        for key in SCHEMA["$defs"][part]["properties"]
        if f"`{key}`" not in section
    ]
    assert missing == []
