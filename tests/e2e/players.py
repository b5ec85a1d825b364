"""Seats that play over the wire: each picks a random command from its ``you.legal`` and sends
it with the version its view is at, until the game is over."""

from __future__ import annotations

import asyncio
import random

from websockets.exceptions import ConnectionClosed

from echoridge_protocol import messages as m
from tests.net.wsclient import Client


async def play_seat(client: Client, rng: random.Random, timeout: float = 60.0) -> dict[str, int]:
    """Play this seat to the end of the game; counts of what happened."""
    mirror = client.mirror
    assert mirror is not None
    counts = {"accepted": 0, "rejected": 0, "duplicate": 0, "stale": 0}
    async with asyncio.timeout(timeout):
        while mirror.status != "over":
            legal = mirror.legal
            if legal:
                command = rng.choice(legal)
                result = await client.command(command)
                if result.outcome == "rejected" and result.code == "command/stale_version":
                    counts["stale"] += 1
                    await client.until_version(result.version or mirror.version)
                else:
                    counts[result.outcome] += 1
                    if result.outcome == "rejected":
                        raise AssertionError(f"{command} rejected: {result.code} {result.message}")
                    if result.version is not None:
                        await client.until_version(result.version)
                continue
            message = await client.recv(timeout)
            if isinstance(message, m.ServerBye):
                raise ConnectionClosed(None, None)
    return counts
