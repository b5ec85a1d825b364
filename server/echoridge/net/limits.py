"""A connection's limits (SPEC.md §2.3, §2.4; docs/server.md, "Limits and caps") and the token
bucket that enforces its message rate."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from echoridge_protocol import messages as m

REFUSALS_ALLOWED = 20  # refused frames per minute before the connection is closed


@dataclass(frozen=True)
class Limits:
    max_frame_bytes: int = 65_536
    commands_per_second: int = 10
    handshake_seconds: int = 10
    idle_seconds: int = 60
    ping_seconds: float = 20.0
    outbox: int = 512  # frames queued for one connection before it must resync
    close_seconds: float = 5.0  # a close not done this long after it began: abort the socket

    def wire(self) -> m.Limits:
        return m.Limits(
            self.max_frame_bytes,
            self.commands_per_second,
            self.handshake_seconds,
            self.idle_seconds,
        )


class Bucket:
    """The token bucket of SPEC.md §2.3."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.capacity = 2 * rate
        self.tokens = self.capacity
        self.last = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait_ms(self) -> int:
        """Milliseconds until the bucket holds a token again (after a refused ``take``)."""
        return max(1, math.ceil((1 - self.tokens) / self.rate * 1000))
