"""Attacks on seats and commands, on real servers: a seat given up but still held, resent
command ids, impersonation, forged and stolen tokens, bad resume coordinates, and the server's
log searched for every secret handed out.  Bounded in count and time; 127.0.0.1."""

from __future__ import annotations

import asyncio
import copy
import os
import random
from collections.abc import Callable

import pytest

from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.e2e.test_sessions import Table, new_table, seated
from tests.net.wsclient import Client, Mirror, Refused

LEFT = 4001  # SPEC.md §4.4: a seat session on a seat given up is closed with 4001


def never_saw_a_seat_view(client: Client) -> bool:
    """No frame the client got carried a seat's private part (``you``) or a game delta."""
    for frame in client.frames.plain():
        if frame.get("type") == "delta":
            return False
        if frame.get("type") == "welcome" and (frame.get("view") or {}).get("you") is not None:
            return False
    return True


# --- a seat given up ------------------------------------------------------------------------


async def test_leave_closes_the_seat_session_on_the_same_node(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=2, start=False)
    async with seated(server.url, t, 0) as ann:
        await ann.until_version(0)
        async with Client.connect(server.url) as lobby:
            await lobby.hello()
            left = await lobby.request(m.Leave(id="l", table=t.table, token=t.tokens[0]))
            assert isinstance(left, m.Result) and left.outcome == "accepted"
        assert await ann.closed() == LEFT
    # the token is dead
    async with Client.connect(server.url) as again:
        with pytest.raises(Refused, match="auth/bad_token"):
            await again.hello(table=t.table, token=t.tokens[0])


async def test_leave_on_the_seat_s_own_session_answers_then_closes(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=2, start=False)
    async with seated(server.url, t, 1) as bob:
        left = await bob.request(m.Leave(id="l", table=t.table, token=t.tokens[1]))
        assert isinstance(left, m.Result) and left.outcome == "accepted"
        assert await bob.closed() == LEFT
        byes = [f for f in bob.frames.plain() if f.get("type") == "bye"]
        assert byes and byes[-1]["code"] == LEFT


async def test_a_seat_given_up_on_another_node_is_closed_there_too(
    servers: Callable[..., ServerProcess],
) -> None:
    a, b = servers(), servers()
    t = await new_table(a.url, seats=2, start=False)
    async with seated(b.url, t, 0) as ann:
        await ann.until_version(0)
        async with Client.connect(a.url) as lobby:
            await lobby.hello()
            left = await lobby.request(m.Leave(id="l", table=t.table, token=t.tokens[0]))
            assert isinstance(left, m.Result) and left.outcome == "accepted"
        assert await ann.closed(timeout=10) == LEFT  # within the runner's seat check (2 s)


async def test_a_seat_given_up_and_taken_again_never_shows_the_new_player_s_view(
    servers: Callable[..., ServerProcess],
) -> None:
    """Ann's session on node b outlives her seat: on node a she leaves, Cleo takes the seat and
    the game starts at once, before b's seat check runs.  b must close Ann's session before
    the first view of the game, and never accept a command from it."""
    a, b = servers(), servers()
    t = await new_table(a.url, seats=2, start=False)
    async with seated(b.url, t, 0) as ann:
        await ann.until_version(0)
        async with Client.connect(a.url) as lobby:
            await lobby.hello()
            await lobby.request(m.Leave(id="l", table=t.table, token=t.tokens[0]))
            cleo = await lobby.join(t.table, "Cleo")
            assert cleo.seat == 0
            started = await lobby.start(t.table, cleo.token)
            assert started.outcome == "accepted"
        command = {"type": "coffee_break", "seat": 0}
        try:
            result = await ann.request(m.SendCommand(id="c-ann", expected=1, command=command))
        except Exception:  # closed before it could be answered
            result = None
        assert not (isinstance(result, m.Result) and result.outcome == "accepted")
        assert await ann.closed(timeout=10) == LEFT
        assert never_saw_a_seat_view(ann)
        async with seated(b.url, Table(t.table, [cleo.token, t.tokens[1]]), 0) as real:
            assert real.mirror is not None and real.mirror.you is not None
            assert real.mirror.version >= 1


# --- resent command ids -----------------------------------------------------------------------


async def test_a_resent_command_id_is_a_duplicate_whatever_it_says_now(
    servers: Callable[..., ServerProcess],
) -> None:
    """SPEC.md §5.2: an id already applied is answered duplicate with its original version,
    with the current expected version, with another command, on another node, after the
    game is over."""
    a, b = servers(), servers()
    t = await new_table(a.url, seats=1)
    rng = random.Random(11)
    async with seated(a.url, t, 0) as me:
        await me.until_version(1)
        assert me.mirror is not None
        first = await me.command(me.mirror.legal[0], id="c-first")
        assert (first.outcome, first.version) == ("accepted", 2)
        await me.until_version(2)
        for command in me.mirror.legal[:3]:  # the current version, other commands
            again = await me.command(command, id="c-first")
            assert (again.outcome, again.version) == ("duplicate", 2), again
        assert me.mirror.version == 2  # nothing was applied
        applied = {"c-first": 2}
        while me.mirror.status != "over":
            command_id = f"c-{me.mirror.version}"
            result = await me.command(rng.choice(me.mirror.legal), id=command_id)
            assert result.outcome == "accepted" and result.version is not None
            applied[command_id] = result.version
            await me.until_version(result.version)
    async with seated(b.url, t, 0) as other_node:
        assert other_node.mirror is not None and other_node.mirror.status == "over"
        for command_id, version in applied.items():
            again = await other_node.command({"type": "proceed", "seat": 0}, id=command_id)
            assert (again.outcome, again.version) == ("duplicate", version)
        fresh = await other_node.command({"type": "proceed", "seat": 0}, id="c-new")
        assert (fresh.outcome, fresh.code) == ("rejected", "rules/game_over")


# --- impersonation and tokens ------------------------------------------------------------------


async def test_commands_only_from_the_seat_s_own_session(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=2)
    other = await new_table(server.url, seats=1)
    async with Client.connect(server.url) as thief:
        with pytest.raises(Refused, match="auth/bad_token"):  # another table's token
            await thief.hello(table=t.table, token=other.tokens[0])
    async with Client.connect(server.url) as watcher:
        await watcher.hello(table=t.table, spectate=True)
        command = m.SendCommand(id="c", expected=1, command={"type": "coffee_break", "seat": 0})
        error = await watcher.request(command)
        assert isinstance(error, m.ErrorMessage) and error.code == "protocol/wrong_session"
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        command = m.SendCommand(id="c", expected=1, command={"type": "coffee_break", "seat": 0})
        error = await lobby.request(command)
        assert isinstance(error, m.ErrorMessage) and error.code == "protocol/wrong_session"
        # (a command map that is no command is refused first, at decoding: SPEC.md §5.1)
        error = await lobby.request(m.SendCommand(id="d", expected=1, command={"type": "x"}))
        assert isinstance(error, m.ErrorMessage) and error.code == "protocol/bad_field"
        # lobby requests with a seat's token work only at that seat's table
        refused = await lobby.request(m.Start(id="s", table=t.table, token=other.tokens[0]))
        assert isinstance(refused, m.Result) and refused.code == "auth/bad_token"
    async with seated(server.url, t, 1) as bob:
        assert bob.mirror is not None
        forged = await bob.command({"type": "coffee_break", "seat": 0}, expected=1)
        assert (forged.outcome, forged.code) == ("rejected", "command/wrong_seat")


async def test_forged_tokens_are_refused_and_close_the_connection(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=2)
    real = t.tokens[0]
    forged = [
        real[:-1] + ("A" if real[-1] != "A" else "B"),  # one character off
        real[:20],
        real + "x",
        real.upper(),
        "x" * 128,
        *(os.urandom(24).hex() for _ in range(10)),
    ]
    for token in forged:
        async with Client.connect(server.url) as c:
            with pytest.raises(Refused) as refused:
                await c.hello(table=t.table, token=token)
            assert refused.value.code == "auth/bad_token"
            assert await c.closed() == 4001
    for token in ("", "has space", "é" * 10, "x" * 129):  # not a token at all
        async with Client.connect(server.url) as c:
            await c.send(m.Hello(protocol=m.PROTOCOL, client="t", table=t.table))
            await c.send_raw(
                f'{{"type":"hello","protocol":"echoridge.v2","client":"t",'
                f'"table":"{t.table}","token":"{token}"}}'.encode()
            )
            await c.closed()
    log = server.output()
    for token in [*t.tokens, *forged]:
        assert token not in log


# --- bad resume coordinates ---------------------------------------------------------------------


async def test_bad_resume_coordinates_get_a_fresh_view(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1)
    async with seated(server.url, t, 0) as me:
        await me.until_version(1)
        assert me.mirror is not None
        at_one = copy.deepcopy(me.mirror.view)
        await me.command(me.mirror.legal[0])
        await me.until_version(2)
        view, epoch = me.mirror.view, me.mirror.epoch
    for resume in (
        m.Resume(epoch + 1, 1),  # another epoch
        m.Resume(epoch, 99),  # ahead of the table
        m.Resume(epoch, 2**53 - 1),
        m.Resume(0, 0),
    ):
        async with Client.connect(server.url) as c:
            welcome = await c.hello(table=t.table, token=t.tokens[0], resume=resume)
            assert welcome.resumed is False and welcome.view == view, resume
            assert welcome.version == 2
    # good coordinates: exactly the missing deltas
    kept = Mirror.from_welcome(
        m.Welcome(
            protocol=m.PROTOCOL, server="x", features=(), limits=m.Limits(1, 1, 1, 1),
            session="seat", resumed=False, table=t.table, seat=0, epoch=epoch, version=1,
            view=at_one,
        )
    )  # fmt: skip
    async with Client.connect(server.url, mirror=kept) as c:
        welcome = await c.hello(table=t.table, token=t.tokens[0], resume=True)
        assert welcome.resumed and welcome.version == 1
        await c.until_version(2)
        assert kept.view == view and kept.applied == 1


# --- secrets never logged --------------------------------------------------------------------


async def test_no_secret_handed_out_in_a_game_reaches_the_server_log(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers("--move-log-level", "info")  # every line a game makes, commands too
    lobby = await Lobby.connect(server.url)
    seeds = [os.urandom(32) for _ in range(2)]
    try:
        table = (await lobby.create(2)).table
        tokens = [(await lobby.join(table, f"p{i}", seeds[i])).token for i in range(2)]
        seats = [await Seat.sit(server.url, table, token) for token in tokens]
        await lobby.start(table, tokens[0])
        await asyncio.gather(
            *(s.play(RandomPolicy(bytes([i])), timeout=60) for i, s in enumerate(seats))
        )
        transcript = await lobby.transcript(table)
        for s in seats:
            await s.close()
    finally:
        await lobby.close()
    salts = [p["salt"] for p in transcript["final"]["secrets"]["proofs"]]
    log = server.output()
    assert '"event": "command"' in log
    for secret in [*tokens, transcript["server_seed"], *(s.hex() for s in seeds), *salts]:
        assert secret not in log
