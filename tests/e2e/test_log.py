"""The game log over the wire: two seats that prefer risky actions at the lowest risk, and a
spectator, play a whole game on a real server.  A failed Call for Backup reaches every viewer
with the seat, the risk, the die and the failure; a failed Stakeout shows the others the risk
and the failure, and only the peeker the value.  A late spectator's welcome log equals what the
live one was sent, and so does a seat's after a reconnect."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.e2e.players import play_seat
from tests.net.wsclient import Client, FrameLog

RISKY = ("call_for_backup", "stakeout")


class Risky:
    """Chooses like ``random.Random.choice``, but takes a Call for Backup or a Stakeout at the
    lowest risk whenever one is legal (so both fail now and then)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choice(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        risky = [c for c in legal if c["type"] in RISKY and not c.get("night_shift")]
        if risky:
            return min(risky, key=lambda c: (c["risk"], c["type"]))
        return self.rng.choice(legal)


def entries(frames: FrameLog) -> list[dict[str, Any]]:
    """The log a connection was sent: its welcome's, then each delta's, in order."""
    out: list[dict[str, Any]] = []
    for message in frames.plain():
        if message.get("type") == "welcome" and "view" in message:
            out = list(message.get("log", []))
        elif message.get("type") == "delta":
            out.extend(message.get("log", []))
    return out


async def play_risky_game(url: str) -> tuple[str, list[Any], dict[int | None, list[Any]]]:
    """One whole game of two risky seats and a spectator: the table, the joins and each
    viewer's log (None: the spectator's)."""
    async with Client.connect(url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(2, public=True, spectators=True)).table
        joins = [await lobby.join(table, name) for name in ("Ana", "Ben")]
        async with (
            Client.connect(url) as ana,
            Client.connect(url, m.SUBPROTOCOL_JSON) as ben,
            Client.connect(url) as watcher,
        ):
            for client, joined in zip((ana, ben), joins, strict=True):
                await client.hello(table=table, token=joined.token)
            await watcher.hello(table=table, spectate=True)
            await lobby.start(table, joins[0].token)
            for client in (ana, ben):
                await client.until_version(1)
            await asyncio.gather(
                play_seat(ana, Risky(1), 120),  # type: ignore[arg-type]
                play_seat(ben, Risky(2), 120),  # type: ignore[arg-type]
            )
            final = ana.mirror.version  # type: ignore[union-attr]
            await watcher.until_version(final)
            await ben.until_version(final)
        logs = {0: entries(ana.frames), 1: entries(ben.frames), None: entries(watcher.frames)}
    return table, joins, logs


def failures(logs: dict[int | None, list[Any]]) -> tuple[list[Any], list[Any]]:
    public = logs[None]
    backups = [e for e in public if e["kind"] == "backup_called" and not e["success"]]
    return backups, [e for e in public if e["kind"] == "stakeout_failed"]


async def test_failed_backup_and_stakeout_in_every_viewers_log(server: ServerProcess) -> None:
    # A game may have no failed Call for Backup or no failed Stakeout (the dice are the game
    # seed's): play games until one has both (each has both with a chance of about 0.6).
    for _ in range(12):
        table, joins, logs = await play_risky_game(server.url)
        if all(failures(logs)):
            break
    backups, failed = failures(logs)

    # names reach the log and the view
    started = next(e for e in logs[None] if e["kind"] == "game_started")
    assert started["names"] == ["Ana", "Ben"] and "murderer" not in started

    assert backups, "no failed Call for Backup in 12 games"
    for e in backups:
        assert set(e) == {"kind", "seat", "risk", "dice", "success"}
        assert all(d > e["risk"] for d in e["dice"])  # the die beat the risk
        for viewer in (0, 1):
            assert e in logs[viewer]

    assert failed, "no failed Stakeout in 12 games"
    for e in failed:
        for viewer in (0, 1):
            assert e in logs[viewer]  # the risk and the failure: everyone
        peeker, other = e["seat"], 1 - e["seat"]
        mine, theirs, watched = (
            [
                p
                for p in logs[v]
                if p["kind"] == "token_peeked" and p["block"] == e["block"] and p["seat"] == peeker
            ]
            for v in (peeker, other, None)
        )
        assert mine and all(p["value"] > e["risk"] and p["to"] == [peeker] for p in mine)
        assert theirs and all("value" not in p for p in theirs)
        assert watched == theirs

    # before the last version, nobody was told another seat's private values
    for seat in (0, 1):
        before_end = [e for e in logs[seat] if e["kind"] != "accused"]
        for e in before_end:
            if "to" in e and seat not in e["to"]:
                assert not {"value", "card", "trait", "slots", "suspect"} & set(e), e

    # a welcome's log is what the live connections were sent (over: the whole log, for all)
    async with Client.connect(server.url) as late, Client.connect(server.url) as back:
        late_welcome = await late.hello(table=table, spectate=True)
        back_welcome = await back.hello(table=table, token=joins[1].token)
        everything = list(late_welcome.log or ())
        assert everything == list(back_welcome.log or ())
        assert {e["kind"] for e in everything} >= {"drawn", "game_ended"}  # hidden ones, now
        public = [e for e in everything if "to" not in e]
        assert public == [e for e in logs[None] if "to" not in e]


async def test_spectators_get_the_public_log_delayed_with_their_view(
    server: ServerProcess,
) -> None:
    delay = 3
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(1, spectators=True, spectator_delay=delay)).table
        joined = await lobby.join(table, "Solo")
        async with Client.connect(server.url) as seat, Client.connect(server.url) as watcher:
            await seat.hello(table=table, token=joined.token)
            await watcher.hello(table=table, spectate=True)
            await lobby.start(table, joined.token)
            await seat.until_version(1)
            mirror = seat.mirror
            assert mirror is not None
            rng = random.Random(5)
            while mirror.version < 12 and mirror.status != "over":
                result = await seat.command(rng.choice(mirror.legal))
                assert result.outcome == "accepted"
                await seat.until_version(result.version or mirror.version)
            top = mirror.version
            await watcher.until_version(top - delay)
            await watcher.drain(0.3)
            by_version = {
                f["version"]: f.get("log", []) for f in seat.frames.plain() if f["type"] == "delta"
            }
            watched = [f for f in watcher.frames.plain() if f["type"] == "delta"]
    assert watched and max(f["version"] for f in watched) == top - delay  # delayed
    for f in watched:  # the seat's entries of that version, but what was told the seat alone
        public = [e for e in by_version[f["version"]] if not e.get("to")]
        assert [e for e in f.get("log", []) if not e.get("to")] == public, f["version"]
        assert len(f.get("log", [])) == len(by_version[f["version"]])  # redacted, not left out
