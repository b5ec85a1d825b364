"""The table service: the lobby, live tables (runners) with their viewers, and fan-out.

Node        one process's service: lobby calls, sessions, commands (node.py)
TableRunner one live table on this node (runner.py)
Lobby       creating, listing, joining, leaving (lobby.py)
"""

from echoridge.tables.errors import TableError
from echoridge.tables.lobby import Lobby, Settings
from echoridge.tables.node import Node
from echoridge.tables.runner import SPECTATORS, Outcome, Sink, TableRunner

__all__ = [
    "SPECTATORS",
    "Lobby",
    "Node",
    "Outcome",
    "Settings",
    "Sink",
    "TableError",
    "TableRunner",
]
