"""Against abuse (issue 28) on a real server and redis-server, through the wire: a signed-in
player reports another once per table (kept outside the game's log, with the table and
version), blocks and unblocks them, and the SDK hides a blocked player's chat (at a seat or
spectating, by the identity chat lines carry); a banned identity and a banned address are refused at
``hello`` and ``create_table`` with ``auth/banned``, and come back once the ban ends."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

import pytest

from echoridge.store import Storage, keys
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat, Spectator
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

        async def report(lobby: Lobby, seat: int, text: str | None = None) -> m.Result:
            return await lobby.report(table, seat, 3, "abuse", text)

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

        assert (await ada.block(ben.identity.id)).outcome == "accepted"
        assert await ada.blocked() == (ben.identity,)
        assert (await ada.block(ada.identity.id)).code == "protocol/bad_field"  # oneself
        assert (await ada.unblock(ben.identity.id)).outcome == "accepted"
        assert await ada.blocked() == ()
    finally:
        await storage.close()
        for lobby in (ada, ben, guest):
            await lobby.close()


async def test_chat_lines_carry_the_sender_s_identity_and_blocked_players_are_hidden(
    server: ServerProcess,
) -> None:
    ada, ben = (
        await signed_in(server.url, handle("Ada")),
        await signed_in(server.url, handle("Ben")),
    )
    guest = await Lobby.connect(server.url)
    sessions: list[Seat | Spectator] = []
    try:
        assert ada.identity is not None and ben.identity is not None and ben.secret is not None
        table = (await ada.create(2, public=True)).table
        seat_ada = await Seat.sit(server.url, table, (await ada.join(table, "x")).token)
        seat_guest = await Seat.sit(server.url, table, (await guest.join(table, "Gil")).token)
        fan_ben = await Spectator.watch(server.url, table, name="Ben", identity=ben.secret)
        fan_ben.block([ada.identity.id])  # Ben blocks Ada
        sessions += [seat_ada, seat_guest, fan_ben]
        assert (await seat_ada.say("hello from Ada")).outcome == "accepted"
        assert (await seat_guest.say("hello from Gil")).outcome == "accepted"
        assert (await fan_ben.say("Ben watches", "spectators")).outcome == "accepted"
        await seat_guest.wait(lambda: len(seat_guest.chat) == 2, timeout=10)
        by_text = {line.text: line for line in seat_guest.chat}
        assert by_text["hello from Ada"].identity == ada.identity.id
        assert by_text["hello from Gil"].identity is None
        await fan_ben.wait(lambda: len(fan_ben._chat_lines) == 3, timeout=10)
        assert [line.text for line in fan_ben.chat] == ["hello from Gil", "Ben watches"]
        assert fan_ben._chat_lines[-1].identity == ben.identity.id  # signed in as a spectator
        fan_ben.block([])
        assert len(fan_ben.chat) == 3
    finally:
        for session in sessions:
            await session.close()
        for lobby in (ada, ben, guest):
            await lobby.close()


async def test_a_ban_closes_the_sessions_open_before_it_on_every_node(
    servers: Callable[..., ServerProcess], redis_server: RedisServer
) -> None:
    """Signed in on two nodes, then banned: both sessions get ``auth/banned`` and close 4001
    within a sweep (net/bansweep.py); another player's session stays open."""
    a, b = servers(), servers()
    dee = await signed_in(a.url, handle("Dee"))
    assert dee.identity is not None and dee.secret is not None
    elsewhere = await Lobby.connect(b.url, identity=dee.secret)
    other = await signed_in(b.url, handle("Eve"))
    storage = await Storage.open(redis_server.url)
    now = int(time.time() * 1000)
    try:
        await storage.moderation.ban("identity", dee.identity.id, None, "abuse", "admin", now)
        for lobby in (dee, elsewhere):
            async with asyncio.timeout(sweep_seconds() + 5):
                await lobby.connection.closed.wait()
            assert lobby.connection.close_code == 4001
            assert lobby.connection.ws.close_reason == "auth/banned"
        assert (await other.leaderboard()).mode == "competitive"  # still served
    finally:
        await storage.close()
        for lobby in (dee, elsewhere, other):
            await lobby.close()


def sweep_seconds() -> float:
    from echoridge.net.bansweep import SWEEP_SECONDS

    return SWEEP_SECONDS


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
        assert 0 < (at_hello.value.retry_in or 0) <= 1500  # for how long, typed
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
