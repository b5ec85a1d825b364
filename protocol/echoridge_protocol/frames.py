"""Frames to plain values, for both subprotocols: the first three checks of decoding
(codec.py has the rest), and the limits they apply.

1. the frame kind (``protocol/wrong_frame``) and size (``protocol/too_large``);
2. the syntax: msgpack or JSON, one value, no trailing bytes, no duplicate keys, no NaN or
   Infinity, valid UTF-8 (``protocol/malformed``);
3. every value against the limits (``protocol/too_large``): nesting depth, string length, list
   and map sizes; and the value types: map keys are strings, numbers are integers within
   ±(2**53 - 1), no msgpack extension types (``protocol/bad_field``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from echoridge_protocol import messages as m
from echoridge_protocol.errors import DecodeError

Frame = bytes | bytearray | memoryview | str


@dataclass(frozen=True, slots=True)
class DecodeLimits:
    """Limits on one frame: bytes, characters per string (and map key), items per list and map,
    nesting depth (the message map is depth 1) and bytes per binary value."""

    frame_bytes: int
    string_chars: int
    list_items: int
    map_items: int
    depth: int
    blob_bytes: int


# Limits on frames from clients (what the server enforces).
MAX_FRAME_BYTES: Final = 64 * 1024
MAX_STRING_CHARS: Final = 2000  # = MAX_CHAT_CHARS: every chat text up to it reaches the chat
MAX_LIST_ITEMS: Final = 256
MAX_MAP_ITEMS: Final = 64
MAX_DEPTH: Final = 8
MAX_BLOB_BYTES: Final = 64

# Limits on frames from the server (what a client should enforce): views and transcripts are big.
MAX_SERVER_FRAME_BYTES: Final = 16 * 1024 * 1024
MAX_SERVER_STRING_CHARS: Final = 64 * 1024
MAX_SERVER_LIST_ITEMS: Final = 100_000
MAX_SERVER_MAP_ITEMS: Final = 10_000
MAX_SERVER_DEPTH: Final = 32
MAX_SERVER_BLOB_BYTES: Final = 1024

CLIENT_LIMITS: Final = DecodeLimits(
    MAX_FRAME_BYTES, MAX_STRING_CHARS, MAX_LIST_ITEMS, MAX_MAP_ITEMS, MAX_DEPTH, MAX_BLOB_BYTES
)
SERVER_LIMITS: Final = DecodeLimits(
    MAX_SERVER_FRAME_BYTES,
    MAX_SERVER_STRING_CHARS,
    MAX_SERVER_LIST_ITEMS,
    MAX_SERVER_MAP_ITEMS,
    MAX_SERVER_DEPTH,
    MAX_SERVER_BLOB_BYTES,
)

MALFORMED: Final = "protocol/malformed"
TOO_LARGE: Final = "protocol/too_large"
BAD_FIELD: Final = "protocol/bad_field"
MISSING_FIELD: Final = "protocol/missing_field"
UNKNOWN_FIELD: Final = "protocol/unknown_field"
UNKNOWN_TYPE: Final = "protocol/unknown_type"
WRONG_FRAME: Final = "protocol/wrong_frame"

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class Fail(Exception):
    """A refusal found below the top level; the path is filled in on the way up."""

    def __init__(self, code: str, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = list(path)


def parse_msgpack(frame: Frame, limits: DecodeLimits) -> Any:
    if isinstance(frame, str):
        raise DecodeError("a text frame on the msgpack subprotocol", WRONG_FRAME)
    if len(frame) > limits.frame_bytes:
        raise DecodeError(f"frame over {limits.frame_bytes} bytes", TOO_LARGE)
    try:
        return msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=False,
            use_list=True,
            object_pairs_hook=_pairs,
            timestamp=0,
        )
    except Fail as fail:
        raise DecodeError(fail.message, fail.code) from None
    except msgpack.ExtraData:
        raise DecodeError("trailing bytes after the message", MALFORMED) from None
    except (msgpack.StackError, RecursionError):
        raise DecodeError("nested too deeply", TOO_LARGE) from None
    except Exception as exc:  # the C unpacker's errors have no common base
        raise DecodeError(f"not msgpack: {exc}", MALFORMED) from None


class _Number:
    """A JSON number that is not a safe integer (a fraction, an exponent or too many digits)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _json_int(text: str) -> int | _Number:
    return int(text) if len(text) <= 17 else _Number(text)


def _json_constant(text: str) -> Any:
    raise Fail(MALFORMED, f"{text} is not JSON")


def parse_json(frame: Frame, limits: DecodeLimits) -> Any:
    if not isinstance(frame, str):
        raise DecodeError("a binary frame on the JSON subprotocol", WRONG_FRAME)
    if len(frame) > limits.frame_bytes or (
        4 * len(frame) > limits.frame_bytes
        and len(frame.encode("utf-8", "surrogatepass")) > limits.frame_bytes
    ):
        raise DecodeError(f"frame over {limits.frame_bytes} bytes", TOO_LARGE)
    try:
        return json.loads(
            frame,
            object_pairs_hook=_pairs,
            parse_float=_Number,
            parse_int=_json_int,
            parse_constant=_json_constant,
        )
    except Fail as fail:
        raise DecodeError(fail.message, fail.code) from None
    except RecursionError:
        raise DecodeError("nested too deeply", TOO_LARGE) from None
    except ValueError as exc:
        raise DecodeError(f"not JSON: {exc}", MALFORMED) from None


def _pairs(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, value in pairs:
        if type(key) is not str:
            raise Fail(BAD_FIELD, "map keys must be strings")
        if key in out:
            raise Fail(MALFORMED, f"duplicate key {key!r}")
        out[key] = value
    return out


# --- limits and value types ------------------------------------------------------------------


def scan(value: Any, level: int, limits: DecodeLimits) -> int:
    """Check a parsed value against the limits and the allowed types; return how many binary
    values it holds.  ``level``: the depth ``value`` has if it is a map or list."""
    t = type(value)
    if t is str:
        _check_string(value, limits)
        return 0
    if t is int:
        if not -m.SAFE_INT <= value <= m.SAFE_INT:
            raise Fail(BAD_FIELD, "integer out of range ±(2**53 - 1)")
        return 0
    if t is bool or value is None:
        return 0
    if t is dict or t is list:
        if level > limits.depth:
            raise Fail(TOO_LARGE, f"nested deeper than {limits.depth}")
        if t is dict:
            if len(value) > limits.map_items:
                raise Fail(TOO_LARGE, f"map of over {limits.map_items} entries")
            blobs = 0
            for key, item in value.items():
                try:
                    _check_string(key, limits)
                    blobs += scan(item, level + 1, limits)
                except Fail as fail:
                    fail.path.insert(0, key)
                    raise
            return blobs
        if len(value) > limits.list_items:
            raise Fail(TOO_LARGE, f"list of over {limits.list_items} items")
        blobs = 0
        for i, item in enumerate(value):
            try:
                blobs += scan(item, level + 1, limits)
            except Fail as fail:
                fail.path.insert(0, i)
                raise
        return blobs
    if t is bytes:
        if len(value) > limits.blob_bytes:
            raise Fail(TOO_LARGE, f"binary value over {limits.blob_bytes} bytes")
        return 1
    if t is float or t is _Number:
        raise Fail(BAD_FIELD, "numbers must be integers within ±(2**53 - 1)")
    raise Fail(BAD_FIELD, f"unsupported value ({t.__name__})")


def _check_string(text: str, limits: DecodeLimits) -> None:
    if len(text) > limits.string_chars:
        raise Fail(TOO_LARGE, f"string over {limits.string_chars} characters")
    if has_surrogate(text):
        raise Fail(MALFORMED, "string with a lone surrogate")


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (JSON can carry one; UTF-8 cannot)."""
    return not text.isascii() and _SURROGATE.search(text) is not None
