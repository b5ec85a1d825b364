"""Words both clients' Python side and the server's messages use for people."""

from __future__ import annotations

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def duration(ms: int) -> str:
    """A duration for a person, in its two largest units, rounded up to the second: 3 days 5
    hours, 1 hour 59 minutes, 40 seconds."""
    seconds = max(1, -(-ms // 1000))
    parts: list[str] = []
    started = False
    for unit, size in UNITS:
        n, seconds = divmod(seconds, size)
        if n or started:
            if n:
                parts.append(f"{n} {unit}{'s' if n != 1 else ''}")
            if started:
                break
            started = True
    return " ".join(parts)
