"""Seat tokens: random, shown to their owner once, stored only as a hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh seat token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(b"echoridge.token.v1" + token.encode("utf-8")).hexdigest()


def seat_of(token: str, stored: dict[str, bytes]) -> int | None:
    """The seat whose stored hash matches ``token`` (``token:N`` entries of the secrets)."""
    digest = token_hash(token).encode()
    for key, value in stored.items():
        if key.startswith("token:") and hmac.compare_digest(value, digest):
            return int(key[len("token:") :])
    return None
