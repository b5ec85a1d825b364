"""Log entries: their byte form in the stream, and the hash chain over them.

A stream entry has three fields: ``c`` = msgpack ``[seat, command_id, command]``, ``e`` = msgpack
``[event, ...]`` (records in the compact form of ``echoridge_rules.compact``) and ``h``, the chain
hash ``h(n) = SHA-256(h(n-1) || c || e)`` with ``h(0) = SHA-256("echoridge.log.v1" || table)``;
and ``t``, when it was appended (the Redis server's clock, ms since the Unix epoch; absent in
entries written before clocks existed).  ``t`` is outside the chain: it is no part of the game,
only what the table's clocks count from (tables/clocks.py).
An entry whose hash does not chain from the one before it, or a log shorter than a version already
seen, means the history was edited or rolled back.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack

from echoridge_rules.commands import Command
from echoridge_rules.compact import pack, unpack
from echoridge_rules.events import Event

CHAIN_DOMAIN = b"echoridge.log.v1"


@dataclass(frozen=True, slots=True)
class Head:
    """The last entry of a log as one reader has verified it: its version and chain hash."""

    version: int
    hash: bytes


def genesis(table: str) -> Head:
    return Head(0, hashlib.sha256(CHAIN_DOMAIN + table.encode("utf-8")).digest())


def chain(previous: bytes, command_blob: bytes, events_blob: bytes) -> bytes:
    return hashlib.sha256(previous + command_blob + events_blob).digest()


@dataclass(frozen=True, slots=True)
class NewEntry:
    """What an appender hands the store: who sent which command, and the events it produced."""

    seat: int | None  # None for the server's own commands (setup, timeouts)
    command: Command
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a table's log, decoded and verified to chain from ``previous``."""

    version: int
    seat: int | None
    command_id: str
    command: Command
    events: tuple[Event, ...]
    hash: bytes
    previous: bytes
    time: int = 0  # ms since the Unix epoch, when it was appended (0: not recorded)

    @property
    def head(self) -> Head:
        return Head(self.version, self.hash)


def encode(command_id: str, entry: NewEntry) -> tuple[bytes, bytes]:
    """The ``c`` and ``e`` fields of a new entry."""
    command_blob = msgpack.packb([entry.seat, command_id, pack(entry.command)])
    events_blob = msgpack.packb([pack(e) for e in entry.events])
    return command_blob, events_blob


def decode(version: int, fields: dict[Any, Any], previous: bytes) -> Entry | None:
    """Decode a stream entry's fields; None if its hash does not chain from ``previous``."""
    command_blob = _field(fields, "c")
    events_blob = _field(fields, "e")
    stored = _field(fields, "h")
    if chain(previous, command_blob, events_blob) != stored:
        return None
    seat, command_id, command = msgpack.unpackb(command_blob)
    events = tuple(unpack(e) for e in msgpack.unpackb(events_blob))
    raw_time = fields.get(b"t", fields.get("t"))
    time = int(raw_time) if raw_time is not None else 0
    return Entry(version, seat, command_id, unpack(command), events, stored, previous, time)


def _field(fields: dict[Any, Any], name: str) -> bytes:
    value = fields.get(name.encode())
    if value is None:
        value = fields.get(name)
    if not isinstance(value, bytes):
        raise KeyError(name)
    return value


def version_of(stream_id: bytes | str) -> int:
    """n of an explicit stream id ``0-n``."""
    text = stream_id.decode() if isinstance(stream_id, bytes) else stream_id
    ms, _, seq = text.partition("-")
    if ms != "0":
        raise ValueError(f"not a log entry id: {text}")
    return int(seq)
