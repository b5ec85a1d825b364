"""The store's exceptions.  Redis errors are converted into these at this edge; nothing above the
store knows redis.

Exception tree::

    StoreError                 base of everything the store raises
      StoreUnavailable         Redis cannot be reached, or failed a command
      RedisMisconfigured       Redis could evict our keys or lose acknowledged writes
      DataDirLocked            another live server owns the embedded Redis's data directory
      TableNotFound            no table with that id
      TableExists              a table with that id already exists
      TableDamaged             the table's history was rolled back or edited
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of the store's exceptions."""


class StoreUnavailable(StoreError):
    """Redis cannot be reached or failed a command."""


class RedisMisconfigured(StoreError):
    """Redis is set up so that it could evict our keys or lose acknowledged writes."""


class DataDirLocked(StoreError):
    """Another live server owns the data directory of the embedded Redis."""


class TableNotFound(StoreError):
    """No table with that id."""


class TableExists(StoreError):
    """A table with that id already exists."""


class TableDamaged(StoreError):
    """The table's history no longer chains: it was rolled back or edited.  The store refuses to
    replay or extend it."""

    def __init__(self, table: str, version: int, reason: str) -> None:
        super().__init__(f"table {table} is damaged at version {version}: {reason}")
        self.table = table
        self.version = version
        self.reason = reason
