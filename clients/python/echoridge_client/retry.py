"""When and how soon to try again: the codes a request may be retried on, and jittered backoff.

``server/unavailable`` is the server saying it cannot reach its store just now (a Redis restart
or failover): SPEC.md §11 makes it retryable.  Retrying a game command is safe because it is
sent again with the same command id (SPEC.md §5.3): if the first attempt was applied after
all, the answer is ``duplicate``.  Delays are jittered (random, between a quarter of and the
whole of a cap that doubles with each attempt), so that the clients of a server that comes back
do not all return at the same instant.
"""

from __future__ import annotations

import random

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
