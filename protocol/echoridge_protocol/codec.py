"""Encode and decode protocol v2 messages for both subprotocols.

``echoridge.v2.msgpack`` carries each message in one binary frame (bytes as msgpack bin);
``echoridge.v2.json`` in one text frame (bytes as lowercase hex strings).  Decoding is strict and
raises ``DecodeError`` with a stable ``protocol/...`` code; it checks, in this order:

1.-3. the frame kind and size, the syntax, every value against the limits and the value
   types (frames.py); that the value is a map (``protocol/malformed``);
4. ``type`` (``protocol/missing_field``, ``protocol/unknown_type``), then the fields: no unknown
   field (``protocol/unknown_field``; in what the server sends unknown fields are ignored, so a
   client built now reads a later server), every required one (``protocol/missing_field``), each of
   the right type and in range (``protocol/bad_field``).

Encoding trusts its input: ``decode(encode(m, s), s) == m`` for every valid message ``m``.
The encoding is canonical (fields in declaration order, optional ``None`` fields left out,
compact JSON), so decoding and re-encoding a canonical frame gives the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, dataclass, fields
from types import MappingProxyType, UnionType
from typing import Annotated, Any, Final, Literal, Union, cast, get_args, get_origin, get_type_hints

import msgpack

from echoridge_protocol import messages as m
from echoridge_protocol.commands import Refusal, check_command
from echoridge_protocol.errors import DecodeError
from echoridge_protocol.frames import (
    BAD_FIELD,
    CLIENT_LIMITS,
    MALFORMED,
    MAX_BLOB_BYTES,
    MAX_DEPTH,
    MAX_FRAME_BYTES,
    MAX_LIST_ITEMS,
    MAX_MAP_ITEMS,
    MAX_SERVER_FRAME_BYTES,
    MAX_STRING_CHARS,
    MISSING_FIELD,
    SERVER_LIMITS,
    UNKNOWN_FIELD,
    UNKNOWN_TYPE,
    DecodeLimits,
    Fail,
    Frame,
    has_surrogate,
    parse_json,
    parse_msgpack,
    scan,
)
from echoridge_protocol.text import MAX_MARKS, shown

__all__ = [
    "CLIENT_LIMITS",
    "MAX_BLOB_BYTES",
    "MAX_DEPTH",
    "MAX_FRAME_BYTES",
    "MAX_LIST_ITEMS",
    "MAX_MAP_ITEMS",
    "MAX_SERVER_FRAME_BYTES",
    "MAX_STRING_CHARS",
    "SERVER_LIMITS",
    "DecodeLimits",
    "Frame",
    "decode",
    "decode_client",
    "decode_server",
    "encode",
    "encode_json",
    "encode_msgpack",
    "encode_value",
    "encode_with",
    "to_plain",
]

Sender = Literal["client", "server"]

_HEX: Final = re.compile(r"(?:[0-9a-f]{2})*")
_PATTERNS: Final = MappingProxyType(
    {p: re.compile(p) for p in (
        m.TABLE_ID_PATTERN, m.CODE_PATTERN, m.SENDER_PATTERN, m.CURSOR_PATTERN, r"[!-~]+",
        r"[a-z0-9_.-]+", m.SUSPECT_PATTERN, m.ROLE_PATTERN, m.IDENTITY_PATTERN, m.JWT_PATTERN,
        m.TRANSFER_CODE_PATTERN,
    )}
)


# --- field tables, built once from the message classes ---------------------------------------

FieldKind = m.Kind | type


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    kind: FieldKind
    required: bool


def _kind_of(hint: Any) -> FieldKind:
    if get_origin(hint) in (Union, UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"unsupported union {hint!r}")
        hint = options[0]
    if get_origin(hint) is Annotated:
        kind = hint.__metadata__[0]
        if isinstance(kind, type) or not isinstance(kind, m.Kind):
            raise TypeError(f"unsupported annotation {hint!r}")
        return kind
    if isinstance(hint, type) and hint in m.RECORDS:
        return hint
    raise TypeError(f"field type {hint!r} has no wire kind")


def _table(cls: type) -> tuple[_Field, ...]:
    hints = get_type_hints(cls, include_extras=True)
    out = []
    for f in fields(cls):
        required = f.default is MISSING and f.default_factory is MISSING
        if not required and f.default is not None:
            raise TypeError(f"{cls.__name__}.{f.name}: an optional field defaults to None")
        out.append(_Field(f.name, _kind_of(hints[f.name]), required))
    return tuple(out)


_FIELDS: Final[MappingProxyType[type, tuple[_Field, ...]]] = MappingProxyType(
    {
        cls: _table(cls)
        for cls in (*m.CLIENT_MESSAGES.values(), *m.SERVER_MESSAGES.values(), *m.RECORDS)
    }
)
_HAS_OPAQUE: Final = frozenset(
    cls
    for cls, table in _FIELDS.items()
    if any(isinstance(f.kind, m.AnyMap | m.CommandMap | m.OpList) for f in table)
)


# --- encoding ---------------------------------------------------------------------------------


def to_plain(message: m.Message, *, hex_bytes: bool = False) -> dict[str, Any]:
    """The message as the map sent on the wire (bytes as hex strings with ``hex_bytes``)."""
    out: dict[str, Any] = {"type": message.TYPE}
    out.update(_plain_record(message, hex_bytes))
    return out


def _plain_record(record: Any, hex_bytes: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in _FIELDS[type(record)]:
        value = getattr(record, f.name)
        if value is None and not f.required:
            continue
        out[f.name] = _plain_value(f.kind, value, hex_bytes)
    return out


def _plain_value(kind: FieldKind, value: Any, hex_bytes: bool) -> Any:
    if isinstance(kind, type):
        return _plain_record(value, hex_bytes)
    if isinstance(kind, m.Blob):
        return value.hex() if hex_bytes else bytes(value)
    if isinstance(kind, m.Items):
        return [_plain_value(kind.item, v, hex_bytes) for v in value]
    return value


def encode_msgpack(message: m.Message) -> bytes:
    """One binary frame of ``echoridge.v2.msgpack``."""
    return cast(bytes, msgpack.packb(to_plain(message), use_bin_type=True))


def encode_json(message: m.Message) -> str:
    """One text frame of ``echoridge.v2.json``: compact, UTF-8 text, no NaN or Infinity."""
    return _json(to_plain(message, hex_bytes=True))


def encode(message: m.Message, subprotocol: str) -> bytes | str:
    """One frame for ``subprotocol``: bytes for msgpack, str for JSON."""
    if subprotocol == m.SUBPROTOCOL_MSGPACK:
        return encode_msgpack(message)
    if subprotocol == m.SUBPROTOCOL_JSON:
        return encode_json(message)
    raise ValueError(f"unknown subprotocol {subprotocol!r}")


def encode_value(value: Any, subprotocol: str) -> bytes | str:
    """A field's plain value (no bytes in it) encoded as it is inside a frame of ``subprotocol``:
    for ``encode_with``, to encode a large value once and send it in many frames."""
    if subprotocol == m.SUBPROTOCOL_MSGPACK:
        return cast(bytes, msgpack.packb(value, use_bin_type=True))
    if subprotocol == m.SUBPROTOCOL_JSON:
        return _json(value)
    raise ValueError(f"unknown subprotocol {subprotocol!r}")


def encode_with(message: m.Message, subprotocol: str, name: str, value: bytes | str) -> Frame:
    """``encode(message, subprotocol)`` but with field ``name`` given already encoded
    (``encode_value``; the message's own value of it is not used): the same bytes, as a msgpack
    map and a JSON object are their keys and values encoded one after the other."""
    plain = to_plain(message, hex_bytes=subprotocol == m.SUBPROTOCOL_JSON)
    if name not in plain:
        raise ValueError(f"{message.TYPE} has no field {name!r} to encode")
    if subprotocol == m.SUBPROTOCOL_MSGPACK:
        parts = [msgpack.Packer().pack_map_header(len(plain))]
        for k, v in plain.items():
            parts += [msgpack.packb(k), value if k == name else msgpack.packb(v, use_bin_type=True)]
        return b"".join(cast(list[bytes], parts))
    if subprotocol == m.SUBPROTOCOL_JSON:
        text = value if isinstance(value, str) else value.decode()  # (UTF-8 JSON text)
        items = (f"{_json(k)}:{text if k == name else _json(v)}" for k, v in plain.items())
        return "{" + ",".join(items) + "}"
    raise ValueError(f"unknown subprotocol {subprotocol!r}")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# --- decoding: frames and syntax ---------------------------------------------------------------


def decode(
    frame: Frame,
    subprotocol: str,
    *,
    sender: Sender = "client",
    limits: DecodeLimits | None = None,
) -> m.Message:
    """Decode one frame sent by ``sender`` (``"client"``: the server reading its clients, with
    ``CLIENT_LIMITS``; ``"server"``: a client reading the server, with ``SERVER_LIMITS``)."""
    if subprotocol not in m.SUBPROTOCOLS:
        raise ValueError(f"unknown subprotocol {subprotocol!r}")
    if limits is None:
        limits = CLIENT_LIMITS if sender == "client" else SERVER_LIMITS
    registry: Any = m.CLIENT_MESSAGES if sender == "client" else m.SERVER_MESSAGES
    is_json = subprotocol == m.SUBPROTOCOL_JSON
    data = parse_json(frame, limits) if is_json else parse_msgpack(frame, limits)
    try:
        if type(data) is not dict:
            raise Fail(MALFORMED, "a message must be a map")
        blobs = scan(data, 1, limits)
        return cast(m.Message, _message(data, registry, is_json, blobs > 0, sender == "server"))
    except Fail as fail:
        where = ".".join(_path_part(p) for p in fail.path).replace(".[", "[")
        text = f"{where}: {fail.message}" if where else fail.message
        raise DecodeError(text, fail.code, _request_id(data)) from None


def decode_client(
    frame: Frame, subprotocol: str, *, limits: DecodeLimits = CLIENT_LIMITS
) -> m.ClientMessage:
    """Decode a frame from a client (the server side)."""
    return cast(m.ClientMessage, decode(frame, subprotocol, sender="client", limits=limits))


def decode_server(
    frame: Frame, subprotocol: str, *, limits: DecodeLimits = SERVER_LIMITS
) -> m.ServerMessage:
    """Decode a frame from the server (the client side)."""
    return cast(m.ServerMessage, decode(frame, subprotocol, sender="server", limits=limits))


def _path_part(part: str | int) -> str:
    if isinstance(part, int):
        return f"[{part}]"
    # A key is echoed in the error: one that cannot be encoded (a lone surrogate) is escaped.
    return part.encode("utf-8", "backslashreplace").decode("utf-8")


def _request_id(data: Any) -> str | None:
    """The frame's ``id`` if it is a valid request id (SPEC.md §2.2), to name in the error."""
    if type(data) is dict:
        rid = data.get("id")
        if type(rid) is str and 1 <= len(rid) <= 64 and not has_surrogate(rid):
            return rid
    return None


# --- decoding: messages and fields -------------------------------------------------------------


def _message(
    data: dict[str, Any], registry: Any, is_json: bool, has_blobs: bool, lenient: bool
) -> Any:
    if "type" not in data:
        raise Fail(MISSING_FIELD, "a message needs a type", ("type",))
    tag = data["type"]
    if type(tag) is not str:
        raise Fail(BAD_FIELD, "must be a string", ("type",))
    cls = registry.get(tag)
    if cls is None:
        raise Fail(UNKNOWN_TYPE, f"unknown message type {tag!r}")
    try:
        message = _record(cls, data, is_json, lenient, skip_type=True)
        if has_blobs and cls in _HAS_OPAQUE:
            _refuse_bytes(data)
    except Fail as fail:
        fail.path.insert(0, tag)
        raise
    return message


def _record(
    cls: type, data: dict[str, Any], is_json: bool, lenient: bool, *, skip_type: bool = False
) -> Any:
    """A message or nested record.  ``lenient`` (what the server sends): unknown fields are
    ignored, so a later server may add fields (SPEC.md §8); what clients send is strict."""
    table = _FIELDS[cls]
    if not lenient:
        names = {f.name for f in table}
        for key in data:
            if key not in names and not (skip_type and key == "type"):
                raise Fail(UNKNOWN_FIELD, "unknown field", (key,))
    kwargs: dict[str, Any] = {}
    for f in table:
        if f.name not in data:
            if f.required:
                raise Fail(MISSING_FIELD, "missing", (f.name,))
            continue
        value = data[f.name]
        try:
            if value is None:
                raise Fail(BAD_FIELD, "must not be null (leave an absent field out)")
            kwargs[f.name] = _field(f.kind, value, is_json, lenient)
        except Fail as fail:
            fail.path.insert(0, f.name)
            raise
    return cls(**kwargs)


def _field(kind: FieldKind, value: Any, is_json: bool, lenient: bool) -> Any:
    if isinstance(kind, type):
        if type(value) is not dict:
            raise Fail(BAD_FIELD, "must be a map")
        return _record(kind, value, is_json, lenient)
    if isinstance(kind, m.Text):
        return _text(kind, value)
    if isinstance(kind, m.Int):
        if type(value) is not int:
            raise Fail(BAD_FIELD, "must be an integer")
        if not kind.lo <= value <= kind.hi:
            raise Fail(BAD_FIELD, f"must be in {kind.lo}..{kind.hi}")
        return value
    if isinstance(kind, m.Flag):
        if type(value) is not bool:
            raise Fail(BAD_FIELD, "must be a boolean")
        return value
    if isinstance(kind, m.Blob):
        return _blob(kind, value, is_json)
    if isinstance(kind, m.Choice):
        if type(value) is not str or value not in kind.options:
            raise Fail(BAD_FIELD, "must be one of " + ", ".join(kind.options))
        return value
    if isinstance(kind, m.Items):
        if type(value) is not list:
            raise Fail(BAD_FIELD, "must be a list")
        if len(value) > kind.max_items:
            raise Fail(BAD_FIELD, f"at most {kind.max_items} items")
        if len(value) < kind.min_items and not lenient:  # (a client reads an empty one)
            raise Fail(BAD_FIELD, f"at least {kind.min_items} items (or left out)")
        items = []
        for i, item in enumerate(value):
            try:
                items.append(_field(kind.item, item, is_json, lenient))
            except Fail as fail:
                fail.path.insert(0, i)
                raise
        return tuple(items)
    if isinstance(kind, m.AnyMap):
        if type(value) is not dict:
            raise Fail(BAD_FIELD, "must be a map")
        return value
    if isinstance(kind, m.CommandMap):
        return _command(value)
    return _ops(value)


def _text(kind: m.Text, value: Any) -> str:
    if type(value) is not str:
        raise Fail(BAD_FIELD, "must be a string")
    if not kind.min_len <= len(value) <= kind.max_len:
        raise Fail(BAD_FIELD, f"must have {kind.min_len}..{kind.max_len} characters")
    if kind.printable and not value.isprintable():
        raise Fail(BAD_FIELD, "must hold printable characters only")
    if kind.trimmed and value.strip() != value:
        raise Fail(BAD_FIELD, "must not start or end with whitespace")
    if kind.visible and not shown(value):
        raise Fail(BAD_FIELD, f"must show a visible character, at most {MAX_MARKS} marks on one")
    if kind.pattern is not None and not _PATTERNS[kind.pattern].fullmatch(value):
        raise Fail(BAD_FIELD, f"must match {kind.pattern}")
    return value


def _blob(kind: m.Blob, value: Any, is_json: bool) -> bytes:
    if is_json:
        if type(value) is not str or not _HEX.fullmatch(value):
            raise Fail(BAD_FIELD, "must be lowercase hex with an even number of digits")
        value = bytes.fromhex(value)
    elif type(value) is not bytes:
        raise Fail(BAD_FIELD, "must be binary (msgpack bin)")
    if not kind.min_len <= len(value) <= kind.max_len:
        raise Fail(BAD_FIELD, f"must be {kind.min_len}..{kind.max_len} bytes")
    return cast(bytes, value)


def _command(value: Any) -> dict[str, Any]:
    try:
        check_command(value)
    except Refusal as refusal:
        raise Fail(refusal.code, refusal.message, refusal.path) from None
    return cast(dict[str, Any], value)


def _ops(value: Any) -> list[Any]:
    if type(value) is not list:
        raise Fail(BAD_FIELD, "must be a list")
    for i, op in enumerate(value):
        if type(op) is not list or not op or type(op[0]) is not str:
            raise Fail(BAD_FIELD, "an op is a list starting with its name", (i,))
    return value


def _refuse_bytes(value: Any) -> None:
    """Find a binary value inside an opaque field (only msgpack can carry one there)."""
    if type(value) is bytes:
        raise Fail(BAD_FIELD, "binary values are not allowed here")
    items: Any = ()
    if type(value) is dict:
        items = value.items()
    elif type(value) is list:
        items = enumerate(value)
    for key, item in items:
        try:
            _refuse_bytes(item)
        except Fail as fail:
            fail.path.insert(0, key)
            raise
