"""Against abuse (issue 28) on a real server and redis-server, through the wire: a signed-in
player reports another once per table (kept outside the game's log, with the table and
version), blocks and unblocks them; a banned identity and a banned address are refused at
``hello`` and ``create_table`` with ``auth/banned``, and come back once the ban ends."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from echoridge.store import Storage, keys
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_protocol import messages as m
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess


def handle(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:6]


async def signed_in(url: str, name: str) -> Lobby:
    lobby = await Lobby.connect(url)
    await lobby.create_identity(name)
    return lobby


async def test_report_once_per_table_and_block(
    server: ServerProcess, redis_server: RedisServer
) -> None:
    ada, ben = (
        await signed_in(server.url, handle("Ada")),
        await signed_in(server.url, handle("Ben")),
    )
    guest = await Lobby.connect(server.url)
    storage = await Storage.open(redis_server.url)
    try:
        assert ada.identity is not None and ben.identity is not None
        table = (await ada.create(3, public=True)).table
        await ada.join(table, "x")
        await ben.join(table, "x")
        await guest.join(table, "Guest")
        log_before = await storage.redis.exists(keys.log(table))

        async def report(lobby: Lobby, seat: int, **extra: object) -> m.Result:
            message = m.Report(lobby._id(), table, seat, 3, "abuse", **extra)  # type: ignore[arg-type]
            reply = await lobby.connection.request(message)
            assert isinstance(reply, m.Result)
            return reply

        first = await report(ada, 1, text="Insults in the chat")
        assert first.outcome == "accepted"
        assert (await report(ada, 1)).code == "identity/already_reported"
        assert (await report(ada, 0)).code == "protocol/bad_field"  # one's own seat
        assert (await report(ada, 2)).code == "identity/not_found"  # a guest's seat
        assert (await report(guest, 1)).code == "identity/required"
        [kept] = await storage.moderation.reports(target=ben.identity.id)
        assert (kept.reporter, kept.table, kept.version, kept.reason, kept.text) == (
            ada.identity.id, table, 3, "abuse", "Insults in the chat",
        )  # fmt: skip
        assert await storage.redis.exists(keys.log(table)) == log_before  # not in the game

        async def ask(lobby: Lobby, message: m.ClientMessage) -> m.ServerMessage:
            return await lobby.connection.request(message)

        blocked = await ask(ada, m.BlockPlayer(ada._id(), ben.identity.id))
        assert isinstance(blocked, m.Result) and blocked.outcome == "accepted"
        listed = await ask(ada, m.ListBlocked(ada._id()))
        assert isinstance(listed, m.Blocked) and listed.players == (ben.identity,)
        self_block = await ask(ada, m.BlockPlayer(ada._id(), ada.identity.id))
        assert isinstance(self_block, m.Result) and self_block.code == "protocol/bad_field"
        await ask(ada, m.UnblockPlayer(ada._id(), ben.identity.id))
        listed = await ask(ada, m.ListBlocked(ada._id()))
        assert isinstance(listed, m.Blocked) and listed.players == ()
    finally:
        await storage.close()
        for lobby in (ada, ben, guest):
            await lobby.close()


async def test_a_banned_identity_or_address_is_refused_until_the_ban_ends(
    server: ServerProcess, redis_server: RedisServer
) -> None:
    cy = await signed_in(server.url, handle("Cy"))
    assert cy.identity is not None and cy.secret is not None
    storage = await Storage.open(redis_server.url)
    now = int(time.time() * 1000)
    try:
        ban = await storage.moderation.ban(
            "identity", cy.identity.id, now + 1500, "abuse", "test-admin", now
        )
        with pytest.raises(Refused) as at_create:  # a session open before the ban
            await cy.create(2, public=True)
        assert at_create.value.code == "auth/banned"
        with pytest.raises(Refused) as at_hello:
            await Lobby.connect(server.url, identity=cy.secret)
        assert at_hello.value.code == "auth/banned"
        assert "second" in at_hello.value.message  # for how long
        await asyncio.sleep(1.6)
        back = await Lobby.connect(server.url, identity=cy.secret)  # the ban ended
        await back.close()

        network = await storage.moderation.ban(
            "network", "127.0.0.0/8", None, "flood", "test-admin", now
        )
        try:
            with pytest.raises(Refused) as by_address:
                await Lobby.connect(server.url)
            assert by_address.value.code == "auth/banned"
        finally:
            assert await storage.moderation.lift(network.id, "test-admin", now)
        guest = await Lobby.connect(server.url)  # lifted
        await guest.close()
        assert ban.id
    finally:
        await storage.close()
        await cy.close()
