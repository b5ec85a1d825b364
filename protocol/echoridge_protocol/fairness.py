"""The deterministic random generator every game draws from.

Draw number ``n`` of a game with seed ``seed`` (32 bytes) and table id ``table`` is

    block(n, a) = HMAC-SHA256(
        key=seed,
        msg=b"echoridge.draw.v1" || u16(len(table)) || table || u64(n) || u32(a))

for attempt ``a = 0, 1, ...`` (big-endian unsigned integers, ``table`` in UTF-8).  A uniform
value in ``range(bound)`` takes the first 8 bytes of ``block(n, a)`` as a big-endian integer
``x`` and accepts the first attempt with ``x < 2**64 - (2**64 % bound)``; the value is then
``x % bound``.  Every draw
index yields exactly one value however many attempts it needs, so a recorded draw (index, bound,
value) can be checked on its own.

Only hashlib and hmac are used, so any language can reproduce it.
"""

from __future__ import annotations

import hashlib
import hmac

GENERATOR_VERSION = "echoridge.draw.v1"
_PREFIX = GENERATOR_VERSION.encode("ascii")
_SPAN = 1 << 64


def draw_bytes(seed: bytes, table: str, index: int, attempt: int = 0) -> bytes:
    """The 32-byte block for draw ``index``, attempt ``attempt``."""
    name = table.encode("utf-8")
    msg = (
        _PREFIX
        + len(name).to_bytes(2, "big")
        + name
        + index.to_bytes(8, "big")
        + attempt.to_bytes(4, "big")
    )
    return hmac.new(seed, msg, hashlib.sha256).digest()


def draw_below(seed: bytes, table: str, index: int, bound: int) -> int:
    """Draw ``index``: a uniform integer in ``range(bound)``, by rejection sampling."""
    if not 1 <= bound <= _SPAN:
        raise ValueError("bound out of range")
    limit = _SPAN - (_SPAN % bound)
    attempt = 0
    while True:
        x = int.from_bytes(draw_bytes(seed, table, index, attempt)[:8], "big")
        if x < limit:
            return x % bound
        attempt += 1
