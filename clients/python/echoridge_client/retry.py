"""When and how soon to try again: the codes a request may be retried on, and jittered backoff.

``server/unavailable`` is the server saying it cannot reach its store just now (a Redis restart
or failover): SPEC.md §11 makes it retryable.  Retrying a game command is safe because it is
sent again with the same command id (SPEC.md §5.3): if the first attempt was applied after
all, the answer is ``duplicate``.  Delays are jittered (random, between a quarter of and the
whole of a cap that doubles with each attempt), so that the clients of a server that comes back
do not all return at the same instant.

A websocket upgrade refused with HTTP 429 or 503 (``Busy``: the server's cap of connections per
client address, or in all, is reached; SPEC.md §2.1) is tried again too, after the server's
``Retry-After`` (never sooner), jittered up to half as long again (``busy_delay``).
"""

from __future__ import annotations

import random

from echoridge_client.errors import Busy

RETRYABLE = frozenset({"server/unavailable"})
FIRST = 0.1  # seconds: the cap of the first delay
CAP = 5.0  # seconds: no delay is longer
RETRY_SECONDS = 120.0  # how long a request is tried again before its refusal is given up to


def retryable(code: str | None) -> bool:
    return code in RETRYABLE


class Backoff:
    """Delays for attempts 1, 2, 3, ...: uniform in [c/4, c] with c = min(cap, first * 2**(n-1))."""

    def __init__(self, first: float = FIRST, cap: float = CAP, rng: random.Random | None = None):
        self.first = first
        self.cap = cap
        self.attempts = 0
        self._rng = rng or random.Random()

    def next(self) -> float:
        ceiling = min(self.cap, self.first * 2**self.attempts)
        self.attempts += 1
        return self._rng.uniform(ceiling / 4, ceiling)

    def reset(self) -> None:
        self.attempts = 0


def busy_delay(refusal: Busy, backoff: Backoff, rng: random.Random | None = None) -> float:
    """Seconds to wait before connecting again after ``refusal``: its ``Retry-After`` times a
    random 1 to 1.5, or the backoff's next delay when the server named none."""
    if refusal.retry_after is None:
        return backoff.next()
    return refusal.retry_after * (rng or random).uniform(1.0, 1.5)
