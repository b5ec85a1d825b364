"""Identities and ratings (issue 28) on real servers and a real redis-server, through the SDK.

Two players make identities (a handle is unique whatever its case), sit under their handles and
play two rated games; their ratings are openskill's own numbers for those results, game by
game, are listed on the leaderboard and next to their names in the lobby, and come out the same
from ``echo-ridge ratings rebuild``.  A player who hands the seat to the server and is away at
the end ranks last.  An identity moves to a second device once by a transfer code.  With two
servers and the one that ended a game killed as it ended, the other rates it, once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from echoridge.ratings import shown
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess
from tests.e2e.test_archive import until


def handle(prefix: str = "Ada") -> str:
    return prefix + uuid.uuid4().hex[:6]


async def once(url: str, ask: Callable[[Lobby], Awaitable[object]]) -> object:
    """Ask a fresh lobby connection one thing, and close it (a connection left open keeps the
    server's SIGTERM drain waiting at the test's end)."""
    lobby = await Lobby.connect(url)
    try:
        return await ask(lobby)
    finally:
        await lobby.close()


async def signed_in(url: str, name: str) -> Lobby:
    lobby = await Lobby.connect(url)
    await lobby.create_identity(name)
    return lobby


async def play_rated(url: str, lobbies: list[Lobby], absent: int | None = None) -> tuple[str, int]:
    """A competitive game between the signed-in players of ``lobbies`` (seat i: lobbies[i]),
    played by random policies to the end; ``absent``: that seat hands itself to the server
    at once and stays away.  The table and the version it ended at."""
    first = lobbies[0]
    table = (await first.create(len(lobbies), public=True)).table
    tokens = [(await lobby.join(table, "ignored")).token for lobby in lobbies]
    seats = [await Seat.sit(url, table, token) for token in tokens]
    try:
        await first.start(table, tokens[0])
        if absent is not None:
            await seats[absent].wait(lambda: seats[absent].status == "playing", 30)
            await seats[absent].play_for_me()
        await asyncio.gather(
            *(
                s.play(RandomPolicy(bytes([n]) * 8), timeout=180)
                for n, s in enumerate(seats)
                if n != absent
            )
        )
        return table, seats[0].version
    finally:
        for s in seats:
            await s.close()


def expected(
    history: list[tuple[list[str], list[int], set[int]]],
) -> dict[str, tuple[float, float]]:
    """openskill's own numbers for games (players by seat, winners, absent seats) in order."""
    model = PlackettLuce()
    now: dict[str, tuple[float, float]] = {}
    for who, winners, away in history:
        teams = [[model.rating(*now[w])] if w in now else [model.rating()] for w in who]
        ranks = [3.0 if i in away else 1.0 if i in winners else 2.0 for i in range(len(who))]
        for w, [r] in zip(who, model.rate(teams, ranks=ranks), strict=True):
            now[w] = (r.mu, r.sigma)
    return now


async def game_record(lobby: Lobby, table: str) -> m.GameRecord:
    [record] = (await lobby.games(tables=[table])).games
    return record


async def test_two_rated_games_match_openskill_and_a_rebuild(
    server: ServerProcess, redis_server: RedisServer
) -> None:
    url = server.url
    ada_name, ben_name = handle("Ada"), handle("Ben")
    ada, ben = await signed_in(url, ada_name), await signed_in(url, ben_name)
    try:
        assert ada.identity is not None and ben.identity is not None and ada.secret
        with pytest.raises(Refused) as taken:
            await once(url, lambda lobby: lobby.create_identity(ada_name.upper()))
        assert taken.value.code == "identity/handle_taken"
        with pytest.raises(Refused) as again:
            await ada.create_identity(handle())
        assert again.value.code == "identity/signed_in"

        history: list[tuple[list[str], list[int], set[int]]] = []
        ids = [ada.identity.id, ben.identity.id]
        for n in range(2):
            table, _ = await play_rated(url, [ada, ben] if n == 0 else [ben, ada])
            who = ids if n == 0 else ids[::-1]
            await until(
                lambda t=table: _rated(ada, t),
                30,
                "the game is rated",  # type: ignore[misc]
            )
            record = await game_record(ada, table)
            assert [p.name for p in record.players] == (
                [ada_name, ben_name] if n == 0 else [ben_name, ada_name]
            )
            assert [p.identity for p in record.players] == who
            history.append((who, list(record.winners), set()))
            numbers = expected(history)
            for p in record.players:
                assert p.identity is not None
                assert p.rating == shown(*numbers[p.identity])
                assert p.rating_change is not None

        page = await ada.player(handle=ada_name.lower())
        assert page.identity == ada.identity and len(page.games) == 2
        [rating] = page.ratings
        assert rating.games == 2 and rating.rating == shown(*expected(history)[ids[0]])
        board = await ada.leaderboard(limit=100)
        ranked = {r.identity: r for r in board.players}
        while board.next is not None and not set(ids) <= set(ranked):
            board = await ada.leaderboard(limit=100, cursor=board.next)
            ranked |= {r.identity: r for r in board.players}
        assert ranked[ids[1]].handle == ben_name and ranked[ids[1]].games == 2

        # the lobby shows each signed-in seat's rating next to the name
        table = (await ada.create(2, public=True)).table
        await ada.join(table, "ignored")
        info = await ada.table(table)
        assert info is not None and info.players[0].identity == ids[0]
        assert info.players[0].rating == rating
        with pytest.raises(Refused) as twice:
            await ada.join(table, "again")
        assert twice.value.code == "table/already_seated"

        # a rebuild from the archive gives the same numbers
        before = {(await ada.player(identity=i)).ratings for i in ids}
        rebuilt = subprocess.run(
            [sys.executable, "-m", "echoridge.cli", "ratings", "rebuild"],
            env={**os.environ, "REDIS_URL": redis_server.url},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert "ratings rebuilt" in rebuilt.stdout
        assert {(await ada.player(identity=i)).ratings for i in ids} == before
    finally:
        await ada.close()
        await ben.close()


async def _rated(lobby: Lobby, table: str) -> bool:
    games = (await lobby.games(tables=[table])).games
    return bool(games) and all(p.rating is not None for p in games[0].players if p.identity)


async def test_a_seat_handed_to_the_server_and_away_at_the_end_ranks_last(
    server: ServerProcess,
) -> None:
    url = server.url
    lobbies = [await signed_in(url, handle(p)) for p in ("Cy", "Di", "Ed")]
    try:
        table, _ = await play_rated(url, lobbies, absent=2)
        await until(lambda: _rated(lobbies[0], table), 30, "the game is rated")
        record = await game_record(lobbies[0], table)
        assert [bool(p.absent) for p in record.players] == [False, False, True]
        who = [p.identity for p in record.players]
        numbers = expected([(who, list(record.winners), {2})])  # type: ignore[list-item]
        for p in record.players:
            assert p.rating == shown(*numbers[p.identity])  # type: ignore[index]
    finally:
        for lobby in lobbies:
            await lobby.close()


async def test_an_identity_moves_to_another_device_once(server: ServerProcess) -> None:
    url = server.url
    first = await signed_in(url, handle("Fay"))
    try:
        code = await first.transfer_code()
        second = await Lobby.connect(url)
        moved = await second.redeem_code(code.transfer_code)
        assert moved.identity == first.identity and moved.secret not in (None, first.secret)
        await second.close()
        with pytest.raises(Refused) as used:
            await once(url, lambda lobby: lobby.redeem_code(code.transfer_code))
        assert used.value.code == "identity/bad_code"
        # each device signs in with its own secret
        for secret in (first.secret, moved.secret):
            again = await Lobby.connect(url, identity=secret)
            assert again.identity == first.identity
            await again.close()
        with pytest.raises(Refused) as bad:
            await Lobby.connect(url, identity="not-a-secret-of-anyone")
        assert bad.value.code == "auth/bad_identity"
        with pytest.raises(Refused) as unsigned:  # (this server takes no signed tokens)
            await Lobby.connect(url, jwt="eyJhbGciOiJIUzI1NiJ9.e30.c2ln")
        assert unsigned.value.code == "auth/jwt_not_accepted"
        with pytest.raises(Refused) as guest:
            await once(url, lambda lobby: lobby.transfer_code())
        assert guest.value.code == "identity/required"
    finally:
        await first.close()


async def test_a_game_is_rated_once_when_the_node_that_ended_it_dies(
    redis_server: RedisServer, tmp_path: Path, servers: Callable[..., ServerProcess]
) -> None:
    ending, other = servers(), servers()
    lobbies = [await signed_in(ending.url, handle(p)) for p in ("Gil", "Hal")]
    try:
        table = (await lobbies[0].create(2, public=True)).table
        tokens = [(await lobby.join(table, "x")).token for lobby in lobbies]
        seats = [await Seat.sit(ending.url, table, t) for t in tokens]
        watcher = await Seat.sit(other.url, table, tokens[1])  # the other node runs the table too
        await lobbies[0].start(table, tokens[0])

        async def play_then_kill() -> None:
            await asyncio.gather(
                *(
                    s.play(RandomPolicy(bytes([n + 7]) * 8), timeout=180)
                    for n, s in enumerate(seats)
                )
            )
            os.kill(ending.process.pid, signal.SIGKILL)  # as it ended the game

        await play_then_kill()
        for s in (*seats, watcher):
            await s.close()
        check = await Lobby.connect(other.url)
        try:
            await until(lambda: _rated(check, table), 30, "the other node rated the game")
            pages = [await check.player(identity=lobby.identity.id) for lobby in lobbies]  # type: ignore[union-attr]
            assert [p.ratings[0].games for p in pages] == [1, 1]
        finally:
            await check.close()
    finally:
        for lobby in lobbies:
            await lobby.close()


async def test_signed_tokens_of_the_operators_login_system(
    servers: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    import time

    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key, forger = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    public = tmp_path / "login.pem"
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    server = servers("--auth-jwt-key", str(public), "--auth-jwt-audience", "echo-test")
    subject = "user-" + uuid.uuid4().hex[:8]

    def token(signer: ec.EllipticCurvePrivateKey = key, **claims: object) -> str:
        now = int(time.time())
        body = {"sub": subject, "aud": "echo-test", "exp": now + 300, "name": "Iris"} | claims
        return jwt.encode(body, signer, algorithm="ES256")

    first = await Lobby.connect(server.url, jwt=token())
    again = await Lobby.connect(server.url, jwt=token(name="Someone else"))
    try:
        assert first.identity is not None and first.identity.id.startswith("j-")
        assert first.identity.handle.startswith("Iris")
        assert again.identity == first.identity  # one identity per issuer and subject
    finally:
        await first.close()
        await again.close()
    refusals = {
        "auth/jwt_expired": token(exp=int(time.time()) - 3600),
        "auth/jwt_invalid": token(forger),
        "auth/jwt_audience": token(aud="another-server"),
    }
    for code, bad in refusals.items():
        with pytest.raises(Refused) as refused:
            await Lobby.connect(server.url, jwt=bad)
        assert refused.value.code == code
        assert bad not in server.output()  # a token never reaches the logs


async def test_a_table_that_rates_bots_rates_a_person_against_them(server: ServerProcess) -> None:
    url = server.url
    ada = await signed_in(url, handle("Ada"))
    try:
        assert ada.identity is not None
        table = (await ada.create(2, public=True, rate_bots=True)).table
        token = (await ada.join(table, "ignored")).token
        await ada.add_bot(table, token, "random")
        info = await ada.table(table)
        assert info is not None and info.rate_bots is True
        seat = await Seat.sit(url, table, token)
        try:
            await ada.start(table, token)
            await seat.play(RandomPolicy(b"\x05" * 8), timeout=180)
        finally:
            await seat.close()
        await until(lambda: _rated(ada, table), 30, "the game is rated")
        record = await game_record(ada, table)
        mine = record.players[0]
        assert mine.identity == ada.identity.id and record.players[1].bot == "random"
        model = PlackettLuce()
        ranks = [1.0 if seat in record.winners else 2.0 for seat in (0, 1)]
        [[after], _] = model.rate([[model.rating()], [model.rating()]], ranks=ranks)
        assert mine.rating == shown(after.mu, after.sigma)
        assert record.players[1].rating is None  # (a bot level's rating is not shown)
        # a rematch keeps the setting; a table made without it lists none
        new = (await ada.rematch(table, token)).table
        assert (await ada.table(new)).rate_bots is True  # type: ignore[union-attr]
        plain = (await ada.create(2, public=True)).table
        assert (await ada.table(plain)).rate_bots is None  # type: ignore[union-attr]
    finally:
        await ada.close()
