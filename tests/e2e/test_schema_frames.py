"""Every frame a real server sends validates against protocol/schema/echoridge.v2.schema.json.

A whole game on a real server and Redis over the JSON subprotocol: two seats played by clients,
one by a server bot, a spectator from the start, a lobby connection; then a spectator and a seat
that connect after the game (a welcome with the whole log unredacted), a resumed seat, a ping,
a refused request and the transcript.  Every text frame each connection received is checked
against the schema's ``ServerMessage``.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import random
from typing import Any

import jsonschema

from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.e2e.players import play_seat
from tests.net.wsclient import Client
from tests.schemacheck import checker

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "protocol/schema/echoridge.v2.schema.json").read_text("utf-8"))
JSON = m.SUBPROTOCOL_JSON


def _validator(name: str) -> jsonschema.Validator:
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})


def invalid(frames: Any) -> list[str]:
    """What is wrong with each frame."""
    out = []
    for i, frame in enumerate(frames):
        assert isinstance(frame, str), "the JSON subprotocol sends text frames"
        data = json.loads(frame)
        if checker("ServerMessage").errors(data):
            out.append(f"frame {i} ({data.get('type')}): {_why(data)}")
    return out


def _why(data: dict[str, Any]) -> str:
    """The first error, in the definition of the frame's own type (and of its log entries)."""
    for entry in data.get("log", ()) if isinstance(data.get("log"), list) else ():
        name = f"Log_{entry.get('kind')}"
        if name not in SCHEMA["$defs"]:
            return f"log entry of no known kind: {entry}"
        for error in _validator(name).iter_errors(entry):
            return f"log entry {entry}: {error.message[:200]}"
    for name, d in SCHEMA["$defs"].items():
        if d.get("properties", {}).get("type", {}).get("const") == data.get("type"):
            for error in _validator(name).iter_errors(data):
                return f"{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}"
    return "no definition matches"


async def test_every_frame_of_a_whole_game_validates(server: ServerProcess) -> None:
    url = server.url
    connections: list[Client] = []
    async with Client.connect(url, JSON) as lobby:
        connections.append(lobby)
        await lobby.hello()
        table = (await lobby.create_table(3, public=True, spectators=True)).table
        joins = [await lobby.join(table, name) for name in ("Ada", "Ben")]
        await lobby.list_tables()
        bot = await lobby.request(m.AddBot(id="bot", table=table, token=joins[0].token,
                                           kind="greedy"))  # fmt: skip
        assert isinstance(bot, m.Result) and bot.outcome == "accepted"
        await lobby.request(m.ListTables(id="one", table=table))
        refused = await lobby.request(m.Join(id="full", table=table, name="Cy",
                                             client_seed=bytes(16)))  # fmt: skip
        assert isinstance(refused, m.ErrorMessage)
        assert isinstance(await lobby.request(m.Ping(id="p1")), m.Pong)
        async with (
            Client.connect(url, JSON) as s0,
            Client.connect(url, JSON) as s1,
            Client.connect(url, JSON) as watcher,
        ):
            seats = [s0, s1]
            connections += [s0, s1, watcher]
            for client, joined in zip(seats, joins, strict=True):
                await client.hello(table=table, token=joined.token)
            await watcher.hello(table=table, spectate=True)
            started = await lobby.start(table, joins[1].token)
            assert started.outcome == "accepted"
            for client in seats:
                await client.until_version(1)
            await asyncio.gather(
                *(play_seat(c, random.Random(i), timeout=180) for i, c in enumerate(seats))
            )
            final = s0.mirror.version  # type: ignore[union-attr]
            for client in (*seats, watcher):
                await client.until_version(final)
                assert client.mirror is not None and client.mirror.status == "over"
            mirror = s1.mirror

        # After the game: fresh welcomes (whole log), a resumed one, and the transcript.
        async with (
            Client.connect(url, JSON) as late_watcher,
            Client.connect(url, JSON) as late_seat,
            Client.connect(url, JSON, mirror=mirror) as resumed,
        ):
            connections += [late_watcher, late_seat, resumed]
            welcome = await late_watcher.hello(table=table, spectate=True)
            assert welcome.view is not None and welcome.view["secrets"] is not None
            assert welcome.log and any(e["kind"] == "game_started" and "murderer" in e
                                       for e in welcome.log)  # fmt: skip
            await late_seat.hello(table=table, token=joins[0].token)
            again = await resumed.hello(table=table, token=joins[1].token, resume=True)
            assert again.resumed
            transcript = await lobby.request(m.GetTranscript(id="tr", table=table))
            assert isinstance(transcript, m.Transcript)
            for rid, seat, everyone in (("rp0", 0, None), ("rpe", None, True)):
                page = await lobby.request(m.GetReplay(rid, table, seat, everyone, 3, 40))
                assert isinstance(page, m.Replay) and len(page.steps) == 40
            for rid, asked in (("g1", {}), ("g2", {"player": "ada"}), ("g3", {"tables": (table,)})):
                games = await lobby.request(m.ListGames(rid, **asked))  # type: ignore[arg-type]
                assert isinstance(games, m.Games) and table in [g.table for g in games.games]

    kinds = {
        e["kind"]
        for c in connections
        for f in c.frames
        for e in json.loads(f).get("log", ())  # type: ignore[arg-type]
    }
    assert {"game_started", "turn_began", "accused", "game_ended"} <= kinds
    types = {json.loads(f)["type"] for c in connections for f in c.frames}  # type: ignore[arg-type]
    assert {"welcome", "delta", "result", "tables", "created", "joined", "error", "pong",
            "presence", "transcript", "replay", "games"} <= types  # fmt: skip
    for client in connections:
        found = invalid(client.frames)
        assert not found, found[:5]


def test_the_check_fails_on_a_wrong_frame() -> None:
    good = json.dumps({"type": "pong", "id": "p1"})
    assert invalid([good]) == []
    bad = json.dumps({"type": "delta", "table": "t", "epoch": 1, "version": 2, "ops": [],
                      "log": [{"kind": "mobster_rolled", "black": "6", "white": 1}]})  # fmt: skip
    assert invalid([bad]) != []
