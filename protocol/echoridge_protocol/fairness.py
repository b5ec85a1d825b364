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

Only hashlib and hmac are used, so any language can reproduce it.  The same module derives the
game seed from the server and client seeds, the salts of committed items, and commitments
(protocol/SPEC.md, "Fairness").
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


# --- seeds, salts and commitments ---------------------------------------------------------------

SEED_DOMAIN = b"echoridge.game-seed.v1"
SALT_DOMAIN = b"echoridge.salt.v1"
COMMIT_DOMAIN = b"echoridge.commit.v1"
SALT_BYTES = 16


def _field(data: bytes) -> bytes:
    """A length-prefixed field: u16 length, then the bytes."""
    if len(data) > 0xFFFF:
        raise ValueError("field too long")
    return len(data).to_bytes(2, "big") + data


def server_seed_commit(server_seed: bytes) -> bytes:
    """Published when a table is created: SHA-256 of the 32-byte server seed."""
    return hashlib.sha256(server_seed).digest()


def game_seed(server_seed: bytes, table: str, client_seeds: list[bytes]) -> bytes:
    """The game's seed, once every seat has given its client seed:
    HMAC-SHA256(key=server_seed, msg="echoridge.game-seed.v1" || f(table) || u8(n) || f(seed_0)
    || ... || f(seed_n-1)), client seeds in seat order, f = u16 length || bytes."""
    msg = SEED_DOMAIN + _field(table.encode("utf-8")) + bytes([len(client_seeds)])
    for seed in client_seeds:
        msg += _field(seed)
    return hmac.new(server_seed, msg, hashlib.sha256).digest()


def salt(seed: bytes, table: str, label: str) -> bytes:
    """The salt of one committed item: the first 16 bytes of
    HMAC-SHA256(key=game seed, msg="echoridge.salt.v1" || f(table) || f(label))."""
    msg = SALT_DOMAIN + _field(table.encode("utf-8")) + _field(label.encode("utf-8"))
    return hmac.new(seed, msg, hashlib.sha256).digest()[:SALT_BYTES]


def commit(label: str, value: str, salt: bytes) -> bytes:
    """SHA-256("echoridge.commit.v1" || f(label) || f(value) || salt), label and value UTF-8."""
    return hashlib.sha256(
        COMMIT_DOMAIN + _field(label.encode("utf-8")) + _field(value.encode("utf-8")) + salt
    ).digest()
