"""Player identities without passwords (issue 28, a first step: the store's contract).

An identity is an id, a unique handle and a random secret its client keeps; the server stores
only the secret's SHA-256 (a 256-bit random secret needs no slow hash), so a copy of Redis
signs nobody in.  Handles are unique after Unicode NFKC normalization and case folding
(``Ada``, ``ADA`` and a full-width ``Ａｄａ`` are one handle), claimed with ``SET NX`` in the
same script that writes the identity.  A one-time transfer code moves an identity to another
device: redeeming it (``GETDEL``: once) gives that device a secret of its own; the first keeps
its secret.  Codes are stored hashed too, and expire.

Every key carries the one hash tag ``{ids}``, so a handle's claim and its identity are written
by one script on one slot, also on a Redis Cluster (identities are few and small: one shard
holds them all).

An operator's login system may vouch for identities instead (``--auth-jwt-key``: a signed token
in ``hello``, net/jwtauth.py): the token's issuer and subject name the identity (``external``),
made on first sight with the token's name as its handle (or that name and a number, when the
name is another's); such an identity has no secret.

Keys: ``er:{ids}:id:<id>`` (hash: handle, created ms), ``er:{ids}:handle:<folded handle>`` (the
id), ``er:{ids}:secret:<sha256 hex>`` (the id), ``er:{ids}:code:<sha256 hex>`` (the id, with a
time to live), ``er:{ids}:ext:<sha256 hex of issuer and subject>`` (the id).
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

from echoridge.store.connection import Redis, redis_errors
from echoridge.store.connection import text as _text
from echoridge.store.errors import StoreError

PREFIX = "er:{ids}:"
CODE_SECONDS = 600  # a transfer code lives this long unless redeemed


class HandleTaken(StoreError):
    """The handle (as folded) belongs to another identity."""


@dataclass(frozen=True, slots=True)
class Identity:
    id: str
    handle: str
    created: int  # ms since the Unix epoch


def fold(handle: str) -> str:
    """A handle as compared: NFKC-normalized and case-folded."""
    return unicodedata.normalize("NFKC", handle).casefold()


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _identity_key(identity: str) -> str:
    return f"{PREFIX}id:{identity}"


def _handle_key(handle: str) -> str:
    return f"{PREFIX}handle:{fold(handle)}"


def _secret_key(secret: str) -> str:
    return f"{PREFIX}secret:{_digest(secret)}"


def _code_key(code: str) -> str:
    return f"{PREFIX}code:{_digest(code)}"


# KEYS: handle, identity, secret (or the external subject's key); ARGV: id, handle, created
# -> 1 | 0 (the handle is taken) | -1 (the external subject has an identity already)
CREATE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[2], 'handle', ARGV[2], 'created', ARGV[3])
redis.call('SET', KEYS[3], ARGV[1])
return 1
"""

# KEYS: identity, the new handle, the old handle; ARGV: id, the new handle, the old handle
# -> 'ok' | 'taken' | 'changed' (the identity's handle is not the old one any more) | 'gone'
RENAME = """
local current = redis.call('HGET', KEYS[1], 'handle')
if not current then return 'gone' end
if current ~= ARGV[3] then return 'changed' end
if KEYS[2] ~= KEYS[3] then
  if not redis.call('SET', KEYS[2], ARGV[1], 'NX') then return 'taken' end
  redis.call('DEL', KEYS[3])
end
redis.call('HSET', KEYS[1], 'handle', ARGV[2])
return 'ok'
"""

# KEYS: code, the new secret; ARGV: (none) -> the id, or false (no such code: used or expired)
REDEEM = """
local id = redis.call('GETDEL', KEYS[1])
if not id then return false end
redis.call('SET', KEYS[2], id)
return id
"""


class Identities:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(CREATE)
        self._rename = redis.register_script(RENAME)
        self._redeem = redis.register_script(REDEEM)

    async def create(self, handle: str, now_ms: int) -> tuple[Identity, str]:
        """A new identity with ``handle``, and its secret (the only time the secret is seen:
        the client keeps it).  HandleTaken when the handle, as folded, is another's."""
        identity = "p-" + secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        async with redis_errors("creating an identity"):
            made = await self._create(
                keys=[_handle_key(handle), _identity_key(identity), _secret_key(secret)],
                args=[identity, handle, now_ms],
            )
        if int(made) != 1:
            raise HandleTaken(f"the handle {handle!r} is taken")
        return Identity(identity, handle, now_ms), secret

    async def external(self, issuer: str, subject: str, name: str, now_ms: int) -> Identity:
        """The identity an operator's login system vouches for (issuer, subject), made now if
        it is new: ``j-`` and hex, its handle ``name`` (or ``name`` and a number if taken)."""
        digest = hashlib.sha256(f"{issuer}\x00{subject}".encode()).hexdigest()
        key = f"{PREFIX}ext:{digest}"
        identity = "j-" + digest[:16]
        for attempt in range(20):
            async with redis_errors("reading an identity"):
                found: Any = await self.redis.get(key)
            if found is not None:
                known = await self.get(_text(found))
                if known is not None:
                    return known
            handle = name if attempt == 0 else f"{name[:26]}-{secrets.randbelow(10**5):05d}"
            async with redis_errors("creating an identity"):
                made = int(
                    await self._create(
                        keys=[_handle_key(handle), _identity_key(identity), key],
                        args=[identity, handle, now_ms],
                    )
                )
            if made == 1:
                return Identity(identity, handle, now_ms)
        raise StoreError("no free handle for an identity")

    async def get(self, identity: str) -> Identity | None:
        async with redis_errors("reading an identity"):
            fields: Any = await self.redis.hgetall(_identity_key(identity))
        if not fields:
            return None
        plain = {_text(k): _text(v) for k, v in fields.items()}
        return Identity(identity, plain["handle"], int(plain.get("created", "0")))

    async def by_secret(self, secret: str) -> Identity | None:
        """The identity whose client holds ``secret``, or None."""
        async with redis_errors("reading an identity"):
            found: Any = await self.redis.get(_secret_key(secret))
        return await self.get(_text(found)) if found is not None else None

    async def handles(self, identities: list[str]) -> dict[str, str]:
        """The handles of those of ``identities`` that exist (one round trip)."""
        async with redis_errors("reading identities"):
            pipe = self.redis.pipeline(transaction=False)
            for identity in identities:
                pipe.hget(_identity_key(identity), "handle")
            values: list[Any] = await pipe.execute() if identities else []
        return {i: _text(v) for i, v in zip(identities, values, strict=True) if v is not None}

    async def by_handle(self, handle: str) -> Identity | None:
        async with redis_errors("reading an identity"):
            found: Any = await self.redis.get(_handle_key(handle))
        return await self.get(_text(found)) if found is not None else None

    async def rename(self, identity: str, handle: str) -> Identity:
        """Give ``identity`` the handle ``handle`` (its old handle is free again).  HandleTaken;
        LookupError for no such identity."""
        for _ in range(3):  # (renamed meanwhile: read it again)
            current = await self.get(identity)
            if current is None:
                raise LookupError(identity)
            async with redis_errors("renaming an identity"):
                outcome = _text(
                    await self._rename(
                        keys=[
                            _identity_key(identity),
                            _handle_key(handle),
                            _handle_key(current.handle),
                        ],
                        args=[identity, handle, current.handle],
                    )
                )
            if outcome == "ok":
                return Identity(identity, handle, current.created)
            if outcome == "taken":
                raise HandleTaken(f"the handle {handle!r} is taken")
            if outcome == "gone":
                raise LookupError(identity)
        raise StoreError("the identity kept changing")

    async def transfer_code(self, identity: str, seconds: int = CODE_SECONDS) -> str:
        """A one-time code that moves ``identity`` to another device within ``seconds``."""
        code = secrets.token_urlsafe(16)
        async with redis_errors("making a transfer code"):
            await self.redis.set(_code_key(code), identity, ex=seconds)
        return code

    async def redeem(self, code: str) -> tuple[Identity, str] | None:
        """The identity a transfer code moves, and a new secret for the device that redeemed
        it; None for a code used before, expired or never made."""
        secret = secrets.token_urlsafe(32)
        async with redis_errors("redeeming a transfer code"):
            found: Any = await self._redeem(keys=[_code_key(code), _secret_key(secret)], args=[])
        if not found:
            return None
        identity = await self.get(_text(found))
        return (identity, secret) if identity is not None else None
