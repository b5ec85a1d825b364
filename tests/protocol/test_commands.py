"""The commands a client sends (echoridge_protocol.commands) are one definition seen three
ways: the codec's table, the JSON Schema's ``ClientCommand``, and the engine's records.  A map
the codec accepts is one the schema accepts and the engine loads, and the other way round."""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echoridge_protocol.commands import CLIENT_COMMANDS, SERVER_COMMANDS, Refusal, check_command
from echoridge_rules import commands as engine_commands
from echoridge_rules.serial import load, record_class, tag_of, to_plain
from tests.protocol.test_codec import COMMAND_MAPS

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "protocol/schema/echoridge.v2.schema.json").read_text("utf-8"))
CLIENT_COMMAND = jsonschema.Draft202012Validator(
    SCHEMA["$defs"]["ClientCommand"] | {"$defs": SCHEMA["$defs"]}
)


def test_every_engine_command_is_a_client_or_a_server_command() -> None:
    tags = {
        tag_of(cls.__new__(cls))
        for cls in vars(engine_commands).values()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
        and cls.__module__ == engine_commands.__name__
    }
    assert tags == set(CLIENT_COMMANDS) | set(SERVER_COMMANDS)
    assert not set(CLIENT_COMMANDS) & set(SERVER_COMMANDS)


def test_the_codec_s_fields_are_the_engine_s() -> None:
    for tag, table in CLIENT_COMMANDS.items():
        cls = record_class(tag)
        engine = {
            f.name: f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            for f in dataclasses.fields(cls)
        }
        assert engine == {f.name: f.required for f in table}, tag


def test_the_schema_lists_the_same_commands() -> None:
    alternatives = SCHEMA["$defs"]["ClientCommand"]["oneOf"]
    tags = {a["properties"]["type"]["const"] for a in alternatives}
    assert tags == set(CLIENT_COMMANDS)
    for a in alternatives:
        fields = CLIENT_COMMANDS[a["properties"]["type"]["const"]]
        assert set(a["properties"]) == {"type"} | {f.name for f in fields}
        assert set(a["required"]) == {"type"} | {f.name for f in fields if f.required}


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(COMMAND_MAPS)
def test_what_the_codec_accepts_the_schema_accepts_and_the_engine_loads(
    command: dict[str, Any],
) -> None:
    check_command(command)
    assert list(CLIENT_COMMAND.iter_errors(command)) == []
    loaded = load(command)
    plain = to_plain(loaded)
    assert {k: v for k, v in plain.items() if k in command} == command


ODD_VALUES = st.none() | st.booleans() | st.integers(-3, 70) | st.sampled_from(
    ["", "S01", "rank", "tip_line", "x"]
) | st.lists(st.integers(-1, 6), max_size=3) | st.lists(
    st.lists(st.integers(0, 6), max_size=3), max_size=3
)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(COMMAND_MAPS, st.data())
def test_the_codec_and_the_schema_agree_on_near_misses(
    command: dict[str, Any], data: st.DataObject
) -> None:
    """Change, add or remove one field: the codec refuses exactly what the schema refuses."""
    mutated = dict(command)
    how = data.draw(st.sampled_from(["change", "add", "remove"]))
    if how == "change":
        key = data.draw(st.sampled_from(sorted(mutated)))
        mutated[key] = data.draw(
            ODD_VALUES | st.sampled_from([*CLIENT_COMMANDS, *SERVER_COMMANDS])
            if key == "type" else ODD_VALUES
        )
    elif how == "add":
        mutated[data.draw(st.sampled_from(["bogus", "seat", "risk", "path", "night_shift"]))] = (
            data.draw(ODD_VALUES)
        )
    else:
        mutated.pop(data.draw(st.sampled_from(sorted(mutated))))
    try:
        check_command(mutated)
        codec_accepts = True
    except Refusal as refusal:
        codec_accepts = False
        assert refusal.code in (
            "protocol/bad_field", "protocol/missing_field", "protocol/unknown_field"
        )
    assert codec_accepts == (list(CLIENT_COMMAND.iter_errors(mutated)) == []), mutated


def test_the_legal_commands_of_real_games_pass_the_codec() -> None:
    from echoridge.simulate import play_random, table_seeds
    from echoridge_rules import legal_actions
    from echoridge_rules.legal import seat_controls

    seen: set[str] = set()
    for players, game, mode in ((2, 1, "competitive"), (3, 2, "cooperative"), (1, 3, "solo")):
        seeds = table_seeds(7, game, players)
        mode_ = "competitive" if mode == "solo" else mode
        for _, _, state in play_random(players, seeds.game_seed, seeds.table, mode_):
            for seat in range(len(state.players)):
                for cmd in (*legal_actions(state, seat), *seat_controls(state, seat)):
                    plain = to_plain(cmd)
                    check_command(plain)
                    seen.add(plain["type"])
    assert len(seen) >= 15, seen
