"""Player identities (store/identities.py) on a real redis-server: a handle is unique after
NFKC and case folding; the secret signs in and is never stored as itself; a rename frees the
old handle; a transfer code moves the identity to another device once, and expires."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from echoridge.store import Storage
from echoridge.store.identities import HandleTaken


def handle() -> str:
    return "Ada" + uuid.uuid4().hex[:8]


async def test_a_handle_is_unique_whatever_its_case_or_width(storage: Storage) -> None:
    name = handle()
    ada, secret = await storage.identities.create(name, 1_000)
    assert ada.handle == name and ada.created == 1_000
    wide = "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in name)
    for other in (name.upper(), name.lower(), wide):
        with pytest.raises(HandleTaken):
            await storage.identities.create(other, 2_000)
    assert await storage.identities.by_handle(name.upper()) == ada
    assert await storage.identities.by_secret(secret) == ada
    assert await storage.identities.by_secret(secret + "x") is None


async def test_the_secret_is_stored_only_as_its_digest(storage: Storage) -> None:
    _, secret = await storage.identities.create(handle(), 1)
    async for key in storage.redis.scan_iter(match="er:{ids}:*", count=1000):
        assert secret.encode() not in key
        if await storage.redis.type(key) == b"string":
            assert secret.encode() not in (await storage.redis.get(key) or b"")


async def test_a_rename_frees_the_old_handle(storage: Storage) -> None:
    first, second, taken = handle(), handle(), handle()
    ada, secret = await storage.identities.create(first, 1)
    await storage.identities.create(taken, 1)
    with pytest.raises(HandleTaken):
        await storage.identities.rename(ada.id, taken.upper())
    renamed = await storage.identities.rename(ada.id, second)
    assert renamed.handle == second and await storage.identities.by_secret(secret) == renamed
    assert (await storage.identities.rename(ada.id, second.upper())).handle == second.upper()
    other, _ = await storage.identities.create(first, 2)  # the old handle is free again
    assert other.id != ada.id
    with pytest.raises(LookupError):
        await storage.identities.rename("p-nobody", handle())


async def test_a_transfer_code_moves_the_identity_once(storage: Storage) -> None:
    ada, secret = await storage.identities.create(handle(), 1)
    code = await storage.identities.transfer_code(ada.id)
    moved = await storage.identities.redeem(code)
    assert moved is not None
    identity, second_secret = moved
    assert identity == ada and second_secret != secret
    assert await storage.identities.by_secret(second_secret) == ada  # the new device
    assert await storage.identities.by_secret(secret) == ada  # and the first still
    assert await storage.identities.redeem(code) is None  # once
    short = await storage.identities.transfer_code(ada.id, seconds=1)
    await asyncio.sleep(1.2)
    assert await storage.identities.redeem(short) is None  # expired
    assert await storage.identities.redeem("never-made") is None
