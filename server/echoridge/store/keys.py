"""Redis key names.  Every key of one table shares the hash tag ``{table}``, so a Redis Cluster
keeps a table on one shard and a Lua script may touch all of them."""

from __future__ import annotations

import re

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# The lobby's indexes (sorted sets er:lobby:STATUS:MODE, er:lobby:expiry): store/lobbyindex.py.
# A client's quota of tables (er:quota:{WHO}:made, er:quota:{WHO}:waiting): store/quota.py.


def log(table: str) -> str:
    """The table's event log: one stream, entry n has the id ``0-n``."""
    return f"er:{{{table}}}:log"


def command_ids(table: str) -> str:
    """Hash: client command id -> the version its command was appended as."""
    return f"er:{{{table}}}:cids"


def meta(table: str) -> str:
    """Hash: the table's public metadata (status, seats, settings)."""
    return f"er:{{{table}}}:meta"


def secrets(table: str) -> str:
    """Hash: the table's secrets (server seed, seat token hashes); never in the log."""
    return f"er:{{{table}}}:secret"


def transcript(table: str) -> str:
    """String: the finished game's public transcript, msgpack compressed with xz (zlib before
    the archive), written once (store/archive.py)."""
    return f"er:{{{table}}}:transcript"


def record(table: str) -> str:
    """String: the finished game's record, a msgpack map, written once (store/archive.py)."""
    return f"er:{{{table}}}:record"


def live(table: str) -> tuple[str, ...]:
    """The keys of a table that its archive makes useless once the game is over, released a
    grace period after the end (store/archive.py): the metadata (first), secrets, log, command
    ids, chat and presence."""
    return tuple(k for k in lasting(table) if k != transcript(table))


def lasting(table: str) -> tuple[str, ...]:
    """Every key a table may have that does not expire by itself (the log, metadata, secrets,
    command ids, chat (store/chat.py), the presence sets (store/presence.py), the transcript):
    a table closed before its start gives each of them a time to live.  (An archived game's
    record is written only after its end: store/archive.py.)"""
    return (
        meta(table),
        secrets(table),
        log(table),
        command_ids(table),
        f"er:{{{table}}}:chat:table",
        f"er:{{{table}}}:chat:spectators",
        nodes(table),
        f"er:{{{table}}}:away",
        transcript(table),
    )


def here(table: str, node: str) -> str:
    """One node's presence hash at a table (store/presence.py); it expires by itself."""
    return f"er:{{{table}}}:here:{node}"


def nodes(table: str) -> str:
    """The set of the nodes that have sessions at a table (store/presence.py)."""
    return f"er:{{{table}}}:nodes"


def table_of_log(key: str) -> str:
    """The table id of a log key."""
    return key[len("er:{") : -len("}:log")]


def valid_table_id(table: str) -> bool:
    return bool(TABLE_ID.fullmatch(table))
