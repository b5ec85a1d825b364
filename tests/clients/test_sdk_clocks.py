"""The SDK's side of clocks, absence and handover (SPEC.md §4.2, §4.4, §5.4, §6.6) against real
server processes: a table created with a clock lists it; the creator's owner token removes a
player and closes the table; "more time", "play for me", "take back" and votes through the seat
session; a bot that the server plays for a while keeps waiting and never sends a control."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from echoridge_client.errors import ClientError, Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat, Spectator
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

FAST = ("--clock-floor", "1", "--bot-delay", "0.05", "--decision-timeout", "0")
CONTROLS = {"extend_time", "play_for_me", "take_back", "vote_handover", "auto_pass"}


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers(*FAST)


async def seated(url: str, seats: int, clock: m.Clock | None) -> tuple[Lobby, str, list[Seat]]:
    lobby = await Lobby.connect(url)
    table = (await lobby.create(seats, clock=clock)).table
    tokens = [(await lobby.join(table, f"p{i}")).token for i in range(seats)]
    sessions = [await Seat.sit(url, table, t) for t in tokens]
    return lobby, table, sessions


async def test_a_clock_is_chosen_at_creation_and_the_creator_removes_and_closes(
    server: ServerProcess,
) -> None:
    lobby = await Lobby.connect(server.url)
    live = await lobby.create(2, clock=m.Clock("live"))
    assert live.owner and lobby.owners[live.table] == live.owner
    info = await lobby.table(live.table)
    assert info is not None and info.clock is not None
    assert (info.clock.preset, info.clock.turn, info.clock.bank) == ("live", 90, 600)
    casual = await lobby.table((await lobby.create(2)).table)
    assert casual is not None and casual.clock is not None and casual.clock.turn == 0
    with pytest.raises(Refused) as refused:
        await lobby.create(2, clock=m.Clock("custom", turn=8 * 86400))
    assert refused.value.code == "table/bad_clock"

    table, owner = live.table, live.owner
    tokens = [(await lobby.join(table, name)).token for name in ("Ana", "Ben")]
    ben = await Seat.sit(server.url, table, tokens[1])
    wrong = await lobby.remove_player(table, tokens[0], 1)  # a seat token is not the owner's
    assert wrong.outcome == "rejected" and wrong.code == "auth/bad_token"
    removed = await lobby.remove_player(table, owner, 1)
    assert removed.outcome == "accepted", removed
    with pytest.raises(ClientError):
        await ben.wait(lambda: False, 10)  # his session is closed (4001): it says so
    info = await lobby.table(table)
    assert info is not None and [p.seat for p in info.players] == [0]
    again = await lobby.remove_player(table, owner, 1)
    assert again.code == "table/seat_free"

    ana = await Seat.sit(server.url, table, tokens[0])
    closed = await lobby.close_table(table, owner)
    assert closed.outcome == "accepted", closed
    assert table not in lobby.owners
    with pytest.raises(ClientError):
        await ana.wait(lambda: False, 10)  # closed with 4004: no reconnecting
    assert await lobby.table(table) is None  # table/closed
    with pytest.raises(Refused) as refused:
        await Spectator.watch(server.url, table)
    assert refused.value.code == "table/closed"
    for session in (ana, ben):
        await session.close()
    await lobby.close()


async def test_more_time_play_for_me_take_back_and_votes(server: ServerProcess) -> None:
    clock = m.Clock("custom", turn=30, bank=50, decision=0, grace=600, strikes=0)
    lobby, table, seats = await seated(server.url, 3, clock)
    await lobby.start(table, seats[0].token)  # type: ignore[arg-type]
    for s in seats:
        await s.until_version(1)
    mover = seats[0].view["turn"]["seat"]
    me = seats[mover]
    assert {"type": "extend_time", "seat": mover} in me.controls
    assert not any(c["type"] in CONTROLS for c in me.legal)  # controls are not moves
    await me.wait(lambda: bool(me.running("turn", mover)), 10)
    before = me.running("turn", mover)[0].at

    result = await me.extend_time()
    assert result.outcome == "accepted", result
    assert me.view["turn"]["extended"] == 30 and me.view["players"][mover]["bank"] == 20
    await me.wait(lambda: bool(me.running("turn")) and me.running("turn")[0].at != before, 10)
    assert me.running("turn", mover)[0].at - before == 30_000
    again = await me.extend_time()  # once a turn: the server says why
    assert again.outcome == "rejected" and again.code == "rules/already_extended"

    other = (mover + 1) % 3
    voter = seats[(mover + 2) % 3]
    await voter.until_version(me.version)
    present = await voter.vote_handover(other)
    assert present.outcome == "rejected" and present.code == "command/player_present"

    result = await me.play_for_me()
    assert result.outcome == "accepted", result
    assert me.view["players"][mover]["auto"] == "self" and me.played_by_server()
    assert {"type": "take_back", "seat": mover} in me.controls
    await me.wait(lambda: me.view["turn"]["seat"] != mover, 10)  # its bot moved for it
    result = await me.take_back()
    assert result.outcome == "accepted", result
    assert me.view["players"][mover]["auto"] is None and not me.played_by_server()
    for s in seats:
        await s.close()
    await lobby.close()


class Recording:
    """A random policy that remembers every list of commands it was offered."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomPolicy(seed)
        self.offered: list[list[dict[str, Any]]] = []

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        self.offered.append(legal)
        return self.inner.choose(view, legal)


async def test_a_bot_waits_while_the_server_plays_its_seat(server: ServerProcess) -> None:
    clock = m.Clock("custom", turn=0, bank=0, decision=0, grace=600, strikes=0)
    lobby, table, seats = await seated(server.url, 2, clock)
    await lobby.start(table, seats[0].token)  # type: ignore[arg-type]
    for s in seats:
        await s.until_version(1)
    handed = await seats[0].play_for_me()  # the server plays seat 0 from now on
    assert handed.outcome == "accepted", handed
    policies = [Recording(1), Recording(2)]
    await asyncio.gather(
        *(s.play(p, timeout=120) for s, p in zip(seats, policies, strict=True))
    )
    assert seats[0].over and seats[1].over
    assert not policies[0].offered  # it never moved: the server played it to the end
    assert policies[1].offered
    offered = {c["type"] for legal in policies[1].offered for c in legal}
    assert not offered & CONTROLS
    handovers = [e for e in seats[1].log if e["kind"] == "seat_handed_over"]
    assert handovers == [{"kind": "seat_handed_over", "seat": 0, "reason": "self"}]
    for s in seats:
        await s.close()
    await lobby.close()
