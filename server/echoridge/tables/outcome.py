"""What became of a command (``TableRunner.submit``'s answer), in a module of its own so that
the runner's parts (servermoves, botmoves) and its callers share it without importing the
runner."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """What became of a command: accepted, rejected, duplicate or stale."""

    outcome: str
    version: int | None = None
    code: str | None = None
    message: str | None = None
