"""The codec: round trips of every message in both subprotocols, strict refusals with stable codes,
fuzzed input that never raises anything but DecodeError, and the size limits."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import fields
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echoridge_protocol import codec, commands
from echoridge_protocol import messages as m
from echoridge_protocol.codes import ALL_CODES
from echoridge_protocol.errors import DecodeError, ProtocolError
from echoridge_protocol.text import shown

MSGPACK = m.SUBPROTOCOL_MSGPACK
JSON = m.SUBPROTOCOL_JSON
BOTH = pytest.mark.parametrize("sub", [MSGPACK, JSON])

# --- strategies, derived from each field's declared wire kind ---------------------------------

PRINTABLE = st.characters(
    exclude_categories=["Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"], include_characters=" "
).filter(str.isprintable)
ANY_CHAR = st.characters(exclude_categories=["Cs"])
SCALARS = st.none() | st.booleans() | st.integers(-m.SAFE_INT, m.SAFE_INT) | st.text(ANY_CHAR)


def text_of(kind: m.Text) -> st.SearchStrategy[str]:
    if kind.pattern is not None:
        return st.from_regex(re.compile(kind.pattern), fullmatch=True).filter(
            lambda s: kind.min_len <= len(s) <= kind.max_len
        )
    alphabet = PRINTABLE if kind.printable else ANY_CHAR
    text = st.text(alphabet, min_size=kind.min_len, max_size=min(kind.max_len, 40))
    text = text.filter(lambda s: s.strip() == s) if kind.trimmed else text
    return text.filter(shown) if kind.visible else text


def plain(depth: int, max_size: int = 4) -> st.SearchStrategy[Any]:
    """JSON-like values (no bytes, no floats) nested at most ``depth`` containers deep."""
    if depth == 0:
        return SCALARS
    inner = plain(depth - 1, max_size)
    return SCALARS | st.lists(inner, max_size=max_size) | st.dictionaries(
        st.text(ANY_CHAR, max_size=8), inner, max_size=max_size
    )


BLOCKS = st.lists(st.integers(1, 5), min_size=2, max_size=2)


def command_field(kind: Any) -> st.SearchStrategy[Any]:
    """Values of a command field's kind (echoridge_protocol.commands)."""
    if isinstance(kind, commands.Nullable):
        return st.none() | command_field(kind.kind)
    if isinstance(kind, commands.Block):
        return BLOCKS
    if isinstance(kind, commands.Path):
        return st.lists(BLOCKS, min_size=1, max_size=6)
    return strategy_of(kind)


@st.composite
def command_maps(draw: st.DrawFn) -> dict[str, Any]:
    """Every command a client may send, with its optional fields present or not."""
    tag = draw(st.sampled_from(sorted(commands.CLIENT_COMMANDS)))
    out: dict[str, Any] = {"type": tag}
    for f in commands.CLIENT_COMMANDS[tag]:
        if f.required or draw(st.booleans()):
            out[f.name] = draw(command_field(f.kind))
    return out


COMMAND_MAPS = command_maps()
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.lists(st.text(max_size=5) | st.integers(0, 9)), plain(3)),
        st.tuples(st.just("del"), st.lists(st.text(max_size=5), min_size=1)),
        st.tuples(st.just("push"), st.lists(st.text(max_size=5)), st.lists(plain(2))),
        st.tuples(st.just("trim"), st.lists(st.text(max_size=5)), st.integers(0, 99)),
    ).map(list),
    max_size=6,
)


def strategy_of(kind: Any) -> st.SearchStrategy[Any]:
    if isinstance(kind, type):
        return record_of(kind)
    if isinstance(kind, m.Text):
        return text_of(kind)
    if isinstance(kind, m.Int):
        return st.integers(kind.lo, kind.hi)
    if isinstance(kind, m.Flag):
        return st.booleans()
    if isinstance(kind, m.Blob):
        return st.binary(min_size=kind.min_len, max_size=kind.max_len)
    if isinstance(kind, m.Choice):
        return st.sampled_from(kind.options)
    if isinstance(kind, m.Items):
        most = min(kind.max_items, 4)
        return st.lists(strategy_of(kind.item), min_size=kind.min_items, max_size=most).map(tuple)
    if isinstance(kind, m.AnyMap):
        return st.dictionaries(st.text(ANY_CHAR, max_size=8), plain(3), max_size=5)
    if isinstance(kind, m.CommandMap):
        return COMMAND_MAPS
    assert isinstance(kind, m.OpList)
    return OPS


def record_of(cls: type) -> st.SearchStrategy[Any]:
    table = codec._FIELDS[cls]
    args = {
        f.name: strategy_of(f.kind) if f.required else st.none() | strategy_of(f.kind)
        for f in table
    }
    return st.builds(cls, **args)


CLIENT_CLASSES: list[type] = list(m.CLIENT_MESSAGES.values())
SERVER_CLASSES: list[type] = list(m.SERVER_MESSAGES.values())


def sender_of(cls: type) -> codec.Sender:
    return "client" if cls in CLIENT_CLASSES else "server"


# --- round trips --------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLIENT_CLASSES + SERVER_CLASSES, ids=lambda c: c.__name__)
@BOTH
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])  # x 2 encodings x 90
@given(data=st.data())
def test_every_message_round_trips(cls: type, sub: str, data: st.DataObject) -> None:
    message = data.draw(record_of(cls))
    frame = codec.encode(message, sub)
    assert isinstance(frame, bytes if sub == MSGPACK else str)
    back = codec.decode(frame, sub, sender=sender_of(cls))
    assert back == message
    assert type(back) is cls
    assert codec.encode(back, sub) == frame  # canonical: byte-identical


@BOTH
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(message=record_of(m.Transcript))
def test_a_field_encoded_once_gives_the_frame_encode_gives(sub: str, message: Any) -> None:
    """A transcript kept encoded is spliced into each reply (tables/transcripts.py): the frame
    must be the one ``encode`` makes, byte for byte, whatever the document and request id."""
    body = codec.encode_value(message.transcript, sub)
    spliced = m.Transcript(id=message.id, table=message.table, transcript={})
    assert codec.encode_with(spliced, sub, "transcript", body) == codec.encode(message, sub)
    if sub == JSON:  # (UTF-8 JSON text as bytes will do)
        assert codec.encode_with(spliced, sub, "transcript", str(body).encode()) == codec.encode(
            message, sub
        )
    with pytest.raises(ValueError):
        codec.encode_with(spliced, sub, "no_such_field", body)


@pytest.mark.parametrize("cls", CLIENT_CLASSES + SERVER_CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=10)
@given(data=st.data())
def test_wire_form_is_type_then_fields_in_order(cls: type, data: st.DataObject) -> None:
    message = data.draw(record_of(cls))
    wire = codec.to_plain(message)
    assert next(iter(wire)) == "type" and wire["type"] == cls.TYPE  # type: ignore[attr-defined]
    names = [f.name for f in fields(cls) if getattr(message, f.name) is not None]
    assert list(wire)[1:] == names


def test_message_types_are_lowercase_and_unique_per_direction() -> None:
    for registry in (m.CLIENT_MESSAGES, m.SERVER_MESSAGES):
        for tag, cls in registry.items():
            assert re.fullmatch(r"[a-z_]+", tag) and tag == cls.TYPE
    shared = {"bye", "rematch", "transcript", "replay", "leaderboard", "player"}
    assert set(m.CLIENT_MESSAGES) & set(m.SERVER_MESSAGES) == shared


def test_bytes_are_bin_in_msgpack_and_lowercase_hex_in_json() -> None:
    join = m.Join(id="r1", table="t-1", name="Ann", client_seed=bytes(range(16)))
    assert b"\xc4\x10" + bytes(range(16)) in codec.encode_msgpack(join)
    assert json.loads(codec.encode_json(join))["client_seed"] == bytes(range(16)).hex()


def test_optional_fields_are_left_out_not_null() -> None:
    assert codec.encode_json(m.ClientBye()) == '{"type":"bye"}'
    assert codec.encode_json(m.ListTables(id="1")) == '{"type":"list_tables","id":"1"}'


def test_non_ascii_text_is_sent_as_utf8_text() -> None:
    frame = codec.encode_json(m.ClientBye(reason="Zoë à bientôt"))
    assert "Zoë" in frame
    assert codec.decode(frame, JSON) == m.ClientBye(reason="Zoë à bientôt")


def test_unknown_subprotocol_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        codec.encode(m.ClientBye(), "echoridge.v1.json")
    with pytest.raises(ValueError):
        codec.decode("{}", "json")


# --- strictness: every refusal code from a crafted frame, in both encodings --------------------

HELLO = {"type": "hello", "protocol": "echoridge.v2", "client": "test"}
COMMAND = {"type": "command", "id": "c1", "expected": 3, "command": {"type": "arrest", "seat": 0}}
JOIN = {"type": "join", "id": "r1", "table": "t", "name": "Ann", "client_seed": bytes(16)}


def frames(data: Any) -> dict[str, bytes | str]:
    """``data`` in both encodings, without going through the codec (bytes as hex in JSON)."""

    def hexed(v: Any) -> Any:
        if isinstance(v, bytes):
            return v.hex()
        if isinstance(v, dict):
            return {k: hexed(x) for k, x in v.items()}
        if isinstance(v, list):
            return [hexed(x) for x in v]
        return v

    return {MSGPACK: msgpack.packb(data, use_bin_type=True), JSON: json.dumps(hexed(data))}


def refused(frame: bytes | str, sub: str, sender: codec.Sender = "client") -> DecodeError:
    with pytest.raises(DecodeError) as info:
        codec.decode(frame, sub, sender=sender)
    err = info.value
    assert isinstance(err, ProtocolError)
    assert err.code in ALL_CODES
    return err


def with_(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**base, **changes}


def without(base: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in base.items() if k != key}


DATA_CASES: list[tuple[str, str, Any]] = [
    # (expected code, description, message data)
    ("protocol/malformed", "not a map", [1, 2]),
    ("protocol/malformed", "a string", "hello"),
    ("protocol/unknown_type", "unknown type", {"type": "dance"}),
    ("protocol/unknown_type", "server type from a client", {"type": "welcome"}),
    ("protocol/missing_field", "no type", {"id": "x"}),
    ("protocol/missing_field", "no client", without(HELLO, "client")),
    ("protocol/missing_field", "nested", with_(HELLO, table="t", token="k", resume={"epoch": 1})),
    ("protocol/bad_field", "type not a string", {"type": 7}),
    ("protocol/bad_field", "int for str", with_(HELLO, client=5)),
    ("protocol/bad_field", "str for int", with_(COMMAND, expected="3")),
    ("protocol/bad_field", "bool for int", with_(COMMAND, expected=True)),
    ("protocol/bad_field", "negative version", with_(COMMAND, expected=-1)),
    ("protocol/bad_field", "float", with_(COMMAND, expected=3.0)),
    ("protocol/bad_field", "unsafe integer", with_(COMMAND, expected=2**53)),
    ("protocol/bad_field", "null for optional", with_(HELLO, table=None)),
    ("protocol/bad_field", "table id pattern", with_(HELLO, table="a b")),
    ("protocol/bad_field", "empty id", with_(COMMAND, id="")),
    ("protocol/bad_field", "id too long", with_(COMMAND, id="x" * 65)),
    ("protocol/bad_field", "name too long", with_(JOIN, name="n" * 33)),
    ("protocol/bad_field", "control character", with_(JOIN, name="a\x1bb")),
    ("protocol/bad_field", "blank Hangul name", with_(JOIN, name="\u3164")),
    ("protocol/bad_field", "blank Braille name", with_(JOIN, name="\u2800\u2800")),
    ("protocol/bad_field", "marks-only name", with_(JOIN, name="\u0301\u0302")),
    ("protocol/bad_field", "stacked marks name", with_(JOIN, name="Zed" + "\u0301" * 5)),
    ("protocol/bad_field", "blank spectator name",
     with_(HELLO, table="t", spectate=True, name="\u115f\u1160")),
    ("protocol/bad_field", "seed too short", with_(JOIN, client_seed=bytes(15))),
    ("protocol/bad_field", "seats out of range", {
        "type": "create_table", "id": "1", "seats": 5, "public": True, "spectators": True,
        "spectator_delay": 0,
    }),
    ("protocol/bad_field", "bot kind",
     {"type": "add_bot", "id": "1", "table": "t", "token": "k", "kind": "x"}),
    ("protocol/bad_field", "command not a map", with_(COMMAND, command=["arrest"])),
    ("protocol/missing_field", "command without type", with_(COMMAND, command={"seat": 0})),
    ("protocol/bad_field", "command type not lowercase", with_(COMMAND, command={"type": "Go"})),
    ("protocol/bad_field", "unknown command", with_(COMMAND, command={"type": "fly", "seat": 0})),
    ("protocol/bad_field", "a server's command", with_(COMMAND, command={
        "type": "time_out", "seat": 0})),
    ("protocol/bad_field", "start_game from a client", with_(COMMAND, command={
        "type": "start_game", "players": 2})),
    ("protocol/unknown_field", "extra field in a command", with_(COMMAND, command={
        "type": "arrest", "seat": 0, "bogus": 1})),
    ("protocol/missing_field", "command without seat", with_(COMMAND, command={
        "type": "coffee_break"})),
    ("protocol/missing_field", "backup without risk", with_(COMMAND, command={
        "type": "call_for_backup", "seat": 0})),
    ("protocol/bad_field", "seat a string", with_(COMMAND, command={
        "type": "arrest", "seat": "0"})),
    ("protocol/bad_field", "seat a boolean", with_(COMMAND, command={
        "type": "arrest", "seat": True})),
    ("protocol/bad_field", "seat out of range", with_(COMMAND, command={
        "type": "arrest", "seat": 4})),
    ("protocol/bad_field", "risk out of range", with_(COMMAND, command={
        "type": "stakeout", "seat": 0, "risk": 6})),
    ("protocol/bad_field", "map in a command", with_(COMMAND, command={
        "type": "arrest", "seat": {}})),
    ("protocol/bad_field", "block of three", with_(COMMAND, command={
        "type": "peek_token", "seat": 0, "block": [1, 2, 3]})),
    ("protocol/bad_field", "block off the city", with_(COMMAND, command={
        "type": "peek_token", "seat": 0, "block": [0, 6]})),
    ("protocol/bad_field", "empty path", with_(COMMAND, command={
        "type": "drive", "seat": 0, "path": []})),
    ("protocol/bad_field", "unknown card", with_(COMMAND, command={
        "type": "discard_force", "seat": 0, "card": "ace"})),
    ("protocol/bad_field", "unknown evidence", with_(COMMAND, command={
        "type": "learn_trait", "seat": 0, "evidence": "dna"})),
    ("protocol/bad_field", "unknown suspect", with_(COMMAND, command={
        "type": "accuse", "seat": 0, "suspect": "S17"})),
    ("protocol/bad_field", "null that may not be", with_(COMMAND, command={
        "type": "vote_handover", "seat": 0, "target": None})),
    ("protocol/missing_field", "nullable but required", with_(COMMAND, command={
        "type": "interrogate", "seat": 0})),
    ("protocol/bad_field", "resume not a map", with_(HELLO, table="t", resume=[1, 2])),
    ("protocol/unknown_field", "extra field", with_(HELLO, colour="blue")),
    ("protocol/unknown_field", "extra nested", with_(
        HELLO, table="t", token="k", resume={"epoch": 1, "version": 2, "x": 0})),
    ("protocol/too_large", "string over the limit", with_(COMMAND, command={
        "type": "arrest", "b": "x" * (codec.MAX_STRING_CHARS + 1)})),
    ("protocol/too_large", "list over the limit", with_(COMMAND, command={
        "type": "drive", "seat": 0, "path": [[1, 1]] * (codec.MAX_LIST_ITEMS + 1)})),
    ("protocol/too_large", "map over the limit", with_(COMMAND, command={
        "type": "arrest", **{f"k{i}": 0 for i in range(codec.MAX_MAP_ITEMS)}})),
    ("protocol/too_large", "nested too deep", with_(COMMAND, command={
        "type": "drive", "seat": 0, "path": [[[[[[[1]]]]]]]})),
    ("protocol/too_large", "key over the limit", {"x" * (codec.MAX_STRING_CHARS + 1): 1}),
]


@pytest.mark.parametrize(("code", "what", "data"), DATA_CASES, ids=[c[1] for c in DATA_CASES])
@BOTH
def test_crafted_messages_are_refused_with_their_code(
    code: str, what: str, data: Any, sub: str
) -> None:
    assert refused(frames(data)[sub], sub).code == code


def test_server_bye_and_client_bye_are_told_apart_by_sender() -> None:
    frame = codec.encode_json(m.ServerBye(code=1001, reason="shutting down"))
    assert refused(frame, JSON, "client").code == "protocol/unknown_field"
    assert codec.decode(frame, JSON, sender="server") == m.ServerBye(1001, "shutting down")


MSGPACK_RAW: list[tuple[str, str, bytes]] = [
    ("protocol/malformed", "never-used byte", b"\xc1"),
    ("protocol/malformed", "truncated", b"\x82\xa4type"),
    ("protocol/malformed", "empty", b""),
    ("protocol/malformed", "trailing bytes", msgpack.packb(HELLO) + b"\x00"),
    ("protocol/malformed", "two messages", msgpack.packb(HELLO) * 2),
    ("protocol/malformed", "duplicate key", b"\x82\xa4type\xa3bye\xa4type\xa3bye"),
    ("protocol/malformed", "invalid utf-8", b"\x81\xa4type\xa2\xff\xfe"),
    ("protocol/malformed", "huge array header", b"\xdd\xff\xff\xff\xff"),
    ("protocol/bad_field", "int key", b"\x81\x01\x02"),
    ("protocol/bad_field", "bin key", b"\x81\xc4\x01a\x02"),
    ("protocol/bad_field", "ext type", b"\x81\xa4type\xd4\x05\x00"),
    ("protocol/bad_field", "timestamp", b"\x81\xa4type\xd6\xff\x00\x00\x00\x01"),
    ("protocol/bad_field", "float64", msgpack.packb(with_(COMMAND, expected=1.5))),
    ("protocol/bad_field", "uint64", msgpack.packb(with_(COMMAND, expected=2**64 - 1))),
    ("protocol/bad_field", "str for bin", msgpack.packb(with_(JOIN, client_seed="00" * 16))),
    ("protocol/bad_field", "bin for str", msgpack.packb(with_(HELLO, client=b"x"))),
    ("protocol/bad_field", "bin in a command", msgpack.packb(
        with_(COMMAND, command={"type": "arrest", "seat": b"x"}), use_bin_type=True)),
    ("protocol/too_large", "bin over the limit", msgpack.packb(
        with_(JOIN, client_seed=bytes(codec.MAX_BLOB_BYTES + 1)), use_bin_type=True)),
    ("protocol/too_large", "deeper than the unpacker's stack", b"\x91" * 5000 + b"\xc0"),
    ("protocol/too_large", "frame over the limit", b"\xc4" * (codec.MAX_FRAME_BYTES + 1)),
]

JSON_RAW: list[tuple[str, str, str]] = [
    ("protocol/malformed", "not json", "{"),
    ("protocol/malformed", "empty", ""),
    ("protocol/malformed", "trailing data", json.dumps(HELLO) + " 1"),
    ("protocol/malformed", "two messages", json.dumps(HELLO) * 2),
    ("protocol/malformed", "duplicate key", '{"type":"bye","type":"bye"}'),
    ("protocol/malformed", "NaN", '{"type":"command","id":"a","expected":NaN}'),
    ("protocol/malformed", "Infinity", '{"type":"command","id":"a","expected":-Infinity}'),
    ("protocol/malformed", "lone surrogate", '{"type":"bye","reason":"\\ud800"}'),
    ("protocol/malformed", "lone surrogate id", '{"type":"list_tables","id":"\\ud800"}'),
    ("protocol/malformed", "lone surrogate key", '{"type":"list_tables","id":"r","\\udfff":1}'),
    ("protocol/malformed", "single quotes", "{'type':'bye'}"),
    ("protocol/malformed", "byte order mark", "\ufeff" + json.dumps(HELLO)),
    ("protocol/bad_field", "fraction", '{"type":"command","id":"a","expected":1.0}'),
    ("protocol/bad_field", "exponent", '{"type":"command","id":"a","expected":1e3}'),
    ("protocol/bad_field", "huge integer", '{"type":"bye","reason":' + "9" * 5000 + "}"),
    ("protocol/bad_field", "uppercase hex", json.dumps(with_(JOIN, client_seed="AB" * 16))),
    ("protocol/bad_field", "odd hex", json.dumps(with_(JOIN, client_seed="0" * 33))),
    ("protocol/bad_field", "hex prefix", json.dumps(with_(JOIN, client_seed="0x" + "00" * 16))),
    ("protocol/too_large", "deeper than the parser's stack", "[" * 50_000),
    ("protocol/too_large", "frame over the limit", " " * (codec.MAX_FRAME_BYTES + 1)),
    ("protocol/too_large", "multibyte frame too big", "é" * (codec.MAX_FRAME_BYTES // 2 + 1)),
]


@pytest.mark.parametrize(("code", "what", "frame"), MSGPACK_RAW, ids=[c[1] for c in MSGPACK_RAW])
def test_crafted_msgpack_frames_are_refused(code: str, what: str, frame: bytes) -> None:
    assert refused(frame, MSGPACK).code == code


@pytest.mark.parametrize(("code", "what", "frame"), JSON_RAW, ids=[c[1] for c in JSON_RAW])
def test_crafted_json_frames_are_refused(code: str, what: str, frame: str) -> None:
    assert refused(frame, JSON).code == code


def test_wrong_frame_kind_is_refused() -> None:
    assert refused(json.dumps(HELLO), MSGPACK).code == "protocol/wrong_frame"
    assert refused(msgpack.packb(HELLO), JSON).code == "protocol/wrong_frame"
    assert refused(json.dumps(HELLO).encode(), JSON).code == "protocol/wrong_frame"


def test_every_protocol_code_the_codec_promises_is_exercised() -> None:
    seen = {c[0] for c in DATA_CASES} | {c[0] for c in MSGPACK_RAW} | {c[0] for c in JSON_RAW}
    seen.add("protocol/wrong_frame")
    decode_codes = {
        "protocol/malformed", "protocol/too_large", "protocol/unknown_type",
        "protocol/missing_field", "protocol/bad_field", "protocol/unknown_field",
        "protocol/wrong_frame",
    }
    assert decode_codes <= set(ALL_CODES)
    assert seen == decode_codes
    for _, _, data in DATA_CASES:  # each data case also tried in both encodings above
        assert set(frames(data)) == {MSGPACK, JSON}


@BOTH
def test_refusals_say_where_and_keep_the_request_id(sub: str) -> None:
    err = refused(frames(with_(JOIN, name="n" * 33))[sub], sub)
    assert err.message.startswith("join.name:")
    assert err.request_id == "r1"
    drive = {"type": "drive", "seat": 0, "path": [1, {}]}
    err = refused(frames(with_(COMMAND, command=drive))[sub], sub)
    assert err.message.startswith("command.command.path:")
    assert err.request_id == "c1"
    assert refused(frames({"type": "x", "id": 5})[sub], sub).request_id is None


def test_opaque_payloads_may_not_carry_binary_values() -> None:
    delta = {"type": "delta", "table": "t", "epoch": 0, "version": 1, "ops": [["set", ["a"], b"x"]]}
    err = refused(msgpack.packb(delta, use_bin_type=True), MSGPACK, "server")
    assert err.code == "protocol/bad_field" and "delta.ops[0][2]" in err.message


@BOTH
def test_ops_must_be_lists_that_start_with_a_name(sub: str) -> None:
    base = {"type": "delta", "table": "t", "epoch": 0, "version": 1}
    bad: list[Any] = [[["set", [], 1], "del"], [[]], [[1, []]], {"set": 1}]
    for ops in bad:
        err = refused(frames(with_(base, ops=ops))[sub], sub, "server")
        assert err.code == "protocol/bad_field"


# --- fuzzing: nothing but DecodeError, whatever arrives ------------------------------------------


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_raise_only_decode_errors(frame: bytes) -> None:
    for sender in ("client", "server"):
        try:
            codec.decode(frame, MSGPACK, sender=sender)
        except DecodeError as err:
            assert err.code in ALL_CODES


@settings(max_examples=500)
@given(st.text(max_size=200))
def test_arbitrary_text_raises_only_decode_errors(frame: str) -> None:
    for sender in ("client", "server"):
        try:
            codec.decode(frame, JSON, sender=sender)
        except DecodeError as err:
            assert err.code in ALL_CODES


WIRE_TYPES = st.sampled_from(sorted({*m.CLIENT_MESSAGES, *m.SERVER_MESSAGES, "nope"}))
FIELD_NAMES = st.sampled_from(
    sorted({f.name for t in codec._FIELDS.values() for f in t} | {"type", "zz"})
)
ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(FIELD_NAMES | st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(WIRE_TYPES, st.dictionaries(FIELD_NAMES, ANY_VALUE, max_size=8))
def test_near_miss_messages_raise_only_decode_errors(tag: str, body: dict[str, Any]) -> None:
    data = {"type": tag, **body}
    for sub in (MSGPACK, JSON):
        try:
            frame: bytes | str = msgpack.packb(data, use_bin_type=True)
            if sub == JSON:
                frame = json.dumps(data, default=lambda b: b.hex())
        except (ValueError, OverflowError, TypeError):
            continue  # not representable in this encoding
        for sender in ("client", "server"):
            try:
                message = codec.decode(frame, sub, sender=sender)
            except DecodeError as err:
                assert err.code in ALL_CODES
            else:
                assert codec.decode(codec.encode(message, sub), sub, sender=sender) == message


SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
NASTY_TEXT = st.text(st.characters() | SURROGATES, max_size=8)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    WIRE_TYPES,
    st.dictionaries(FIELD_NAMES | NASTY_TEXT, ANY_VALUE | NASTY_TEXT, max_size=6),
    NASTY_TEXT,
)
def test_every_refusal_can_be_sent_back(tag: str, body: dict[str, Any], rid: str) -> None:
    """The error a refused frame gets names its id and path without breaking the encoder:
    a lone surrogate (which JSON can carry and UTF-8 cannot) in an id or a key included."""
    frame = json.dumps({"type": tag, "id": rid, **body}, default=lambda b: b.hex())
    try:
        codec.decode(frame, JSON)
    except DecodeError as err:
        reply = m.ErrorMessage(code=err.code, message=err.message[:1024], id=err.request_id)
        for sub in (MSGPACK, JSON):
            sent = codec.encode(reply, sub)
            if isinstance(sent, str):
                sent.encode("utf-8")  # what the websocket layer does with a text frame
            assert codec.decode(sent, sub, sender="server") == reply


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CLIENT_CLASSES).flatmap(record_of), st.data())
def test_mutated_frames_raise_only_decode_errors(message: Any, data: st.DataObject) -> None:
    frame = bytearray(codec.encode_msgpack(message))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(frame) - 1))
        frame[i] = data.draw(st.integers(0, 255))
    text = list(codec.encode_json(message))
    i = data.draw(st.integers(0, len(text) - 1))
    text[i] = data.draw(st.sampled_from('{}[]":,0\\ae'))
    for frame_, sub in ((bytes(frame), MSGPACK), ("".join(text), JSON)):
        try:
            codec.decode(frame_, sub)
        except DecodeError as err:
            assert err.code in ALL_CODES


# --- limits -----------------------------------------------------------------------------------


def test_limits_are_what_the_spec_says() -> None:
    assert codec.MAX_FRAME_BYTES == 65536
    assert codec.DecodeLimits(65536, 2000, 256, 64, 8, 64) == codec.CLIENT_LIMITS
    assert codec.SERVER_LIMITS.frame_bytes == 16 * 1024 * 1024
    # every chat text the codec's say.text admits passes the string limit (SPEC.md §2.3, §6.7)
    assert m.MAX_CHAT_CHARS <= codec.MAX_STRING_CHARS


@BOTH
def test_frame_size_limit_is_inclusive(sub: str) -> None:
    frame = frames(HELLO)[sub]
    size = len(frame if isinstance(frame, bytes) else frame.encode())
    exact = codec.DecodeLimits(size, 1024, 256, 64, 8, 64)
    assert isinstance(codec.decode(frame, sub, limits=exact), m.Hello)
    smaller = codec.DecodeLimits(size - 1, 1024, 256, 64, 8, 64)
    with pytest.raises(DecodeError) as info:
        codec.decode(frame, sub, limits=smaller)
    assert info.value.code == "protocol/too_large"


@BOTH
def test_collections_and_depth_at_their_limits_are_accepted(sub: str) -> None:
    """Values at the limits pass the limits (and are then judged as fields: not too large)."""
    command = {
        "type": "drive",
        "s": "x" * codec.MAX_STRING_CHARS,
        "l": [0] * codec.MAX_LIST_ITEMS,
        "deep": [[[[[[0]]]]]],  # message 1, command 2, lists 3..8
        **{f"k{i}": 0 for i in range(codec.MAX_MAP_ITEMS - 4)},
    }
    assert refused(frames(with_(COMMAND, command=command))[sub], sub).code == (
        "protocol/unknown_field"
    )
    longest = {"type": "drive", "seat": 0, "path": [[1, 1]] * codec.MAX_LIST_ITEMS}
    decoded = codec.decode(frames(with_(COMMAND, command=longest))[sub], sub)
    assert isinstance(decoded, m.SendCommand) and decoded.command == longest


@BOTH
def test_server_frames_get_the_larger_server_limits(sub: str) -> None:
    view = {"log": [f"line {i}" for i in range(5000)], "text": "y" * 20_000}
    welcome = m.Welcome(
        protocol="echoridge.v2", server="s", features=(), session="spectator", resumed=False,
        limits=m.Limits(65536, 10, 10, 60), table="t", epoch=0, version=9, view=view,
    )
    frame = codec.encode(welcome, sub)
    assert codec.decode_server(frame, sub) == welcome
    assert refused(frame, sub, "client").code == "protocol/too_large"


def test_typed_helpers_pick_the_direction() -> None:
    assert isinstance(codec.decode_client(json.dumps(HELLO), JSON), m.Hello)
    bye = codec.encode_json(m.ServerBye(1000, "bye"))
    assert isinstance(codec.decode_server(bye, JSON), m.ServerBye)


# --- hello: which session it asks for ----------------------------------------------------------


def test_hello_session_kinds() -> None:
    base = m.Hello(protocol="echoridge.v2", client="c")
    assert base.session_kind() == "lobby"
    assert m.Hello("echoridge.v2", "c", table="t", token="k").session_kind() == "seat"
    assert m.Hello("echoridge.v2", "c", table="t", spectate=True).session_kind() == "spectator"
    # SPEC.md §3.1: spectate false is absent; name is only a spectator's, and changes nothing
    for hello, kind in (
        (m.Hello("echoridge.v2", "c", spectate=False, name="Ada"), "lobby"),
        (m.Hello("echoridge.v2", "c", table="t", token="k", spectate=False, name="Ada"), "seat"),
        (m.Hello("echoridge.v2", "c", table="t", spectate=True, name="Ada"), "spectator"),
    ):
        assert hello.session_kind() == kind
    cases = [
        (m.Hello("echoridge.v2", "c", token="k", spectate=True), "auth/seat_and_spectate"),
        (m.Hello("echoridge.v2", "c", spectate=True), "protocol/bad_field"),
        (m.Hello("echoridge.v2", "c", resume=m.Resume(0, 1), spectate=False), "protocol/bad_field"),
        (
            m.Hello("echoridge.v2", "c", table="t", token="k", spectate=True),
            "auth/seat_and_spectate",
        ),
        (m.Hello("echoridge.v2", "c", token="k"), "protocol/bad_field"),
        (m.Hello("echoridge.v2", "c", resume=m.Resume(0, 1)), "protocol/bad_field"),
        (m.Hello("echoridge.v2", "c", table="t"), "protocol/bad_field"),
        (m.Hello("echoridge.v2", "c", table="t", spectate=False), "protocol/bad_field"),
    ]
    for hello, code in cases:
        with pytest.raises(ProtocolError) as info:
            hello.session_kind()
        assert info.value.code == code and code in ALL_CODES


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(CLIENT_CLASSES + SERVER_CLASSES).flatmap(record_of),
    FIELD_NAMES,
    st.none() | ANY_VALUE,
)
def test_valid_messages_with_one_field_changed_raise_only_decode_errors(
    message: Any, name: str, value: Any
) -> None:
    data = codec.to_plain(message)
    if value is None:
        data.pop(name, None)
    else:
        data[name] = value
    sender = sender_of(type(message))
    try:
        frame = msgpack.packb(data, use_bin_type=True)
    except (ValueError, OverflowError, TypeError):
        return
    try:
        decoded = codec.decode(frame, MSGPACK, sender=sender)
    except DecodeError as err:
        assert err.code in ALL_CODES
    else:
        assert codec.decode(codec.encode_msgpack(decoded), MSGPACK, sender=sender) == decoded


def test_the_protocol_package_never_imports_the_server() -> None:
    code = (
        "import sys, echoridge_protocol, echoridge_protocol.codec, echoridge_protocol.messages\n"
        "bad = sorted(n for n in sys.modules if n == 'echoridge' or n.startswith('echoridge.'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_real_views_and_deltas_of_a_game_pass_the_codec() -> None:
    """Every view and delta of a random 4-seat game, for a seat and a spectator, in both
    encodings, is within the server-frame limits and comes back unchanged."""
    from echoridge.simulate import game_seed, play_random
    from echoridge_protocol import diff
    from echoridge_rules import SPECTATOR, Seat, view

    limits = m.Limits(65536, 10, 10, 60)
    previous: dict[str, Any] = {}
    viewers: list[tuple[m.SessionKind, Seat | Any]] = [("seat", Seat(0)), ("spectator", SPECTATOR)]
    version = 0
    for version, (_, _, state) in enumerate(play_random(4, game_seed(3, 0), "t-codec"), start=1):
        for who, viewer in viewers:
            now = view(state, viewer)
            messages: list[m.ServerMessage] = [
                m.Welcome(
                    protocol=m.PROTOCOL, server="test", features=m.FEATURES, limits=limits,
                    session=who, resumed=False, table="t-codec", epoch=0, version=version,
                    view=now, seat=0 if who == "seat" else None,
                )
            ]
            if who in previous:
                ops = diff(previous[who], now)
                messages.append(m.Delta(table="t-codec", epoch=0, version=version, ops=ops))
            previous[who] = now
            for message in messages:
                for sub in (MSGPACK, JSON):
                    assert codec.decode_server(codec.encode(message, sub), sub) == message
    assert version > 50 and previous["seat"]["status"] == "over"


@pytest.mark.parametrize(
    "name",
    ["Ann", "Ngô Bảo Châu", "नमस्ते", "สมชาย", "בְּרֵאשִׁית", "👍🏽 Ann", "❤️ 1️⃣",
     "ㅤAnn"],
)
@BOTH
def test_names_that_show_something_are_decoded(name: str, sub: str) -> None:
    """Join and hello names must show a visible character, with at most 4 marks on one
    (text.py); real names in any script pass, emoji with modifiers and selectors too."""
    join = codec.decode_client(frames(with_(JOIN, name=name))[sub], sub)
    assert isinstance(join, m.Join) and join.name == name
    hello = codec.decode_client(
        frames(with_(HELLO, table="t", spectate=True, name=name))[sub], sub
    )
    assert isinstance(hello, m.Hello) and hello.name == name
