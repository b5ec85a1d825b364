"""Play by notification on a real server: a webhook on 127.0.0.1 gets a signed "to move" notice
for a seat whose player is away, and a reminder an hour before its deadline; a connected seat
gets none, and each notice comes once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable

from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.e2e.test_clocks import make_table
from tests.net.wsclient import Client
from tests.tables.test_notify import SECRET, Receiver


async def test_an_away_seat_is_notified_and_reminded_a_connected_one_is_not(
    servers: Callable[..., ServerProcess],
) -> None:
    hook = Receiver([200])
    await hook.start()
    try:
        server = servers(
            "--clock-floor", "1", "--bot-delay", "0.05",
            "--notify-url", hook.url(), "--notify-secret", SECRET.decode(),
        )  # fmt: skip
        # a turn of an hour and 5 s: the reminder ("1 h left") is due 5 s into the turn
        clock = m.Clock("custom", turn=3605, bank=0, decision=3605, grace=0, strikes=0)
        table, tokens, _ = await make_table(server.url, 2, clock)
        rng = random.Random(4)
        async with Client.connect(server.url) as ana:  # seat 0 is here; seat 1 never comes
            await ana.hello(table=table, token=tokens[0])
            mirror = ana.mirror
            assert mirror is not None
            async with asyncio.timeout(40):
                while not any(
                    (n := json.loads(r.body))["type"] == "reminder" and n["table"] == table
                    for r in hook.requests
                ):
                    if mirror.legal:  # Ana plays her turns at once: the game goes on to seat 1
                        result = await ana.command(rng.choice(mirror.legal))
                        if result.version is not None:
                            await ana.until_version(result.version)
                        continue
                    with contextlib.suppress(TimeoutError):
                        ana._pending.append(await asyncio.wait_for(ana._read(), 0.2))
        assert all(r.signed() for r in hook.requests)
        for request in hook.requests:
            assert request.headers["x-echoridge-delivery"] == json.loads(request.body)["id"]
        # (the tests share one Redis: this server may also play out other tests' tables whose
        # clocks ran out, and notify for them)
        notices = [n for r in hook.requests if (n := json.loads(r.body))["table"] == table]
        assert {n["seat"] for n in notices} == {1}, notices  # never the connected seat
        to_move = [n for n in notices if n["type"] == "to_move"]
        reminder = [n for n in notices if n["type"] == "reminder"]
        assert to_move and reminder
        assert to_move[0]["table"] == table and to_move[0]["name"] == "p1"
        assert reminder[0]["deadline"] == to_move[0]["deadline"]
        assert len({n["id"] for n in notices}) == len(notices)  # each once
    finally:
        await hook.stop()
