"""A whole game over websockets: four seats and two spectators on a real server and Redis; then
every frame each connection received is checked against rules.md §15."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from echoridge.transcript import replay
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_protocol.delta import apply
from tests.e2e.conftest import ServerProcess
from tests.e2e.players import play_seat
from tests.net.wsclient import Client

SUSPECT = re.compile(r"^S(0[1-9]|1[0-6])$")
TRAITS = {
    "Boss",
    "Underboss",
    "Red Rhinos",
    "Blue Bees",
    "Fingerprints",
    "Shoeprints",
    "Car",
    "Motorcycle",
    "Gun",
    "Knife",
}


def walk(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, (*path, i))


def frames_before_the_end(frames: list[bytes | str], subprotocol: str) -> list[Any]:
    """The decoded messages a connection received while the game was not over (after it ends,
    everything is published)."""
    out = []
    view: Any = None
    for frame in frames:
        message = codec.decode_server(frame, subprotocol)
        if isinstance(message, m.Welcome) and message.view is not None:
            view = message.view
        elif isinstance(message, m.Delta) and view is not None:
            view = apply(view, message.ops)
        if isinstance(view, dict) and view.get("status") == "over":
            break
        out.append(codec.decode(frame, subprotocol, sender="server"))
    return out


def plain(message: Any) -> Any:
    from echoridge_protocol.codec import to_plain

    return to_plain(message)


def leaks(messages: list[Any], allowed: set[str], spectator: bool) -> list[str]:
    """Values a viewer may not see: suspect ids outside ``allowed`` (anywhere but the list of
    legal accusations, which names all 16), and for a spectator any trait or private proof."""
    found = []
    for message in messages:
        data = plain(message)
        for path, value in walk(data):
            in_legal = "legal" in path or any(
                isinstance(p, list) and "legal" in p for p in _op_paths(data, path)
            )
            if isinstance(value, str) and SUSPECT.match(value) and value not in allowed:
                op_path = _op_paths(data, path)
                own_accusation = op_path == [["you", "accusation"]]
                if not in_legal and not own_accusation:
                    found.append(f"{value} at {path} (op path {op_path})")
            if spectator and isinstance(value, str) and value in TRAITS:
                found.append(f"trait {value} at {path}")
            private = isinstance(value, dict) and "salt" in value
            if spectator and private and not str(value.get("label", "")).startswith("token/"):
                found.append(f"private proof {value} at {path}")
    return found


def _op_paths(data: Any, path: tuple[Any, ...]) -> list[Any]:
    """The op path of a delta op enclosing ``path`` (ops are [name, path, value])."""
    if isinstance(data, dict) and data.get("type") == "delta" and len(path) >= 2:
        op = data["ops"][path[1]] if path[0] == "ops" else None
        if isinstance(op, list) and len(op) >= 2:
            return [op[1]]
    return []


async def test_four_seats_and_two_spectators_play_to_the_end(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers("--move-log-level", "info")  # (its command lines are read below)
    url = server.url
    subs = [m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON] * 3
    async with Client.connect(url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(4, public=True, spectators=True)).table
        listed = await lobby.list_tables()
        assert table in [t.table for t in listed.tables]
        joins = [await lobby.join(table, f"player {i}") for i in range(4)]
        assert [j.seat for j in joins] == [0, 1, 2, 3]
        async with (
            Client.connect(url, subs[0]) as s0,
            Client.connect(url, subs[1]) as s1,
            Client.connect(url, subs[2]) as s2,
            Client.connect(url, subs[3]) as s3,
            Client.connect(url, subs[4]) as watcher1,
            Client.connect(url, subs[5]) as watcher2,
        ):
            seats = [s0, s1, s2, s3]
            for client, joined in zip(seats, joins, strict=True):
                welcome = await client.hello(table=table, token=joined.token)
                assert (welcome.session, welcome.seat, welcome.version) == ("seat", joined.seat, 0)
            for watcher in (watcher1, watcher2):
                welcome = await watcher.hello(table=table, spectate=True)
                assert welcome.session == "spectator" and welcome.view is not None
            started = await lobby.start(table, joins[2].token)
            assert started.outcome == "accepted" and started.version == 1
            for client in seats:
                await client.until_version(1)
            counts = await asyncio.gather(
                *(play_seat(c, random.Random(i), timeout=120) for i, c in enumerate(seats))
            )
            assert all(c["rejected"] == 0 for c in counts)
            final = seats[0].mirror.version  # type: ignore[union-attr]
            for client in (*seats, watcher1, watcher2):
                await client.until_version(final)
                assert client.mirror is not None and client.mirror.status == "over"
            views = [c.mirror.view for c in seats]  # type: ignore[union-attr]
            assert all(v["result"] == views[0]["result"] for v in views)
            assert watcher1.mirror.view == watcher2.mirror.view  # type: ignore[union-attr]

        reply = await lobby.request(m.GetTranscript(id="tr", table=table))
        assert isinstance(reply, m.Transcript)
        report = replay(dict(reply.transcript))
        assert report.ok, report.problem
        secrets = reply.transcript["final"]["secrets"]

    murderer = reply.transcript["final"]["result"]["murderer"]
    for seat, client in enumerate(seats):
        allowed = set(secrets["hands"][seat]) | set(secrets["seen"][seat])
        assert murderer not in allowed
        own = reply.transcript["final"]["result"]["accusations"][seat]
        allowed |= {own} if own else set()  # its own accusation, in its log
        found = leaks(
            frames_before_the_end(list(client.frames), client.subprotocol), allowed, False
        )
        assert not found, f"seat {seat} saw {found[:5]}"
    for watcher in (watcher1, watcher2):
        found = leaks(frames_before_the_end(list(watcher.frames), watcher.subprotocol), set(), True)
        assert not found, f"a spectator saw {found[:5]}"

    # the server logged one line per command, and no secret at all
    log = server.output()
    assert log.count('"event": "command"') >= final - 1
    secret_values = [j.token for j in joins] + [reply.transcript["server_seed"]]
    secret_values += [p["salt"] for p in secrets["proofs"]]
    assert not [v for v in secret_values if v in log]


def test_the_leak_check_catches_what_it_must() -> None:
    delta = m.Delta("t-1", 1, 5, [["set", ["players", 1, "suspects"], ["S03"]]])
    assert leaks([delta], {"S01"}, False)  # a suspect the seat does not know
    assert not leaks([delta], {"S03"}, False)
    legal = m.Delta(
        "t-1", 1, 5, [["set", ["you", "legal", 0], {"type": "accuse", "suspect": "S03"}]]
    )
    assert not leaks([legal], set(), False)  # the accusation options name every suspect
    trait = m.Delta("t-1", 1, 5, [["set", ["you", "traits", "rank"], "Boss"]])
    assert leaks([trait], set(), True) and not leaks([trait], set(), False)
    proof = {"label": "deck/3", "value": "x", "salt": "00"}
    assert leaks([m.Delta("t-1", 1, 5, [["push", ["proofs"], [proof]]])], set(), True)
