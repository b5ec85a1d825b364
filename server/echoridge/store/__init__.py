"""The event store: one Redis Stream per table, optimistic appends, followers, embedded Redis.

    Storage.open(url)            connect (checking Redis is safe to use) and load the scripts
    EventStore.append/load/rebuild   a table's log (store/log.py)
    Follower.follow(table, head)     every new entry, whoever appended it (store/follow.py)
    Directory                    tables' metadata, secrets and the lobby index
    EmbeddedRedis                the default Redis: a child redis-server on ./var/redis

Exceptions are in ``store.errors``; no Redis exception leaves this package.
"""

from echoridge.store.entries import Entry, Head, NewEntry, genesis
from echoridge.store.errors import (
    DataDirLocked,
    RedisMisconfigured,
    StoreError,
    StoreUnavailable,
    TableDamaged,
    TableExists,
    TableNotFound,
)
from echoridge.store.log import Appended, AppendResult, Conflict, Duplicate, EventStore, Rebuilt
from echoridge.store.storage import Storage

__all__ = [
    "AppendResult",
    "Appended",
    "Conflict",
    "DataDirLocked",
    "Duplicate",
    "Entry",
    "EventStore",
    "Head",
    "NewEntry",
    "Rebuilt",
    "RedisMisconfigured",
    "Storage",
    "StoreError",
    "StoreUnavailable",
    "TableDamaged",
    "TableExists",
    "TableNotFound",
    "genesis",
]
