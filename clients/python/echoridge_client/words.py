"""Words both clients' Python side and the server's messages use for people."""

from __future__ import annotations

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def duration_parts(ms: int) -> list[tuple[str, int]]:
    """A duration's two largest units (one when the smaller is zero, or for seconds alone),
    rounded up to the second: ``[("day", 3), ("hour", 5)]``, ``[("second", 40)]``."""
    seconds = max(1, -(-ms // 1000))
    parts: list[tuple[str, int]] = []
    started = False
    for unit, size in UNITS:
        n, seconds = divmod(seconds, size)
        if n or started:
            if n:
                parts.append((unit, n))
            if started:
                break
            started = True
    return parts


def duration(ms: int) -> str:
    """A duration for a person, in its two largest units, rounded up to the second: 3 days 5
    hours, 1 hour 59 minutes, 40 seconds."""
    return " ".join(f"{n} {unit}{'s' if n != 1 else ''}" for unit, n in duration_parts(ms))
