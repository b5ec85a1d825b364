"""Tables that survive people, on real servers and a real Redis: a player who walks away mid-turn
under a live clock has the turn played, the seat handed to a bot after the grace period, and
takes it back by reconnecting; the game finishes and its transcript verifies and replays with
no clock.  Two nodes that fire the same timeout apply it once; a node with no session at the
table fires it too.  Clock settings in the lobby, "more time", "play for me", handover votes,
and the creator's remove and close."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from typing import Any

from echoridge.transcript import replay
from echoridge_protocol import messages as m
from echoridge_protocol.verify import verify_transcript
from tests.e2e.conftest import ServerProcess
from tests.net.wsclient import Client

FAST = ("--clock-floor", "1", "--bot-delay", "0.05", "--decision-timeout", "2")
LIVE = m.Clock("custom", turn=2, bank=4, decision=2, grace=3, strikes=0)


async def make_table(
    url: str, seats: int, clock: m.Clock | None, bots: int = 0, start: bool = True
) -> tuple[str, list[str], str]:
    """A table with ``seats - bots`` people (their tokens) and ``bots`` greedy server bots."""
    async with Client.connect(url) as lobby:
        await lobby.hello()
        created = await lobby.create_table(seats, clock=clock)
        tokens = [(await lobby.join(created.table, f"p{i}")).token for i in range(seats - bots)]
        for _ in range(bots):
            result = await lobby.request(
                m.AddBot(lobby.next_id(), created.table, tokens[0], "greedy")
            )
            assert isinstance(result, m.Result) and result.outcome == "accepted"
        if start:
            await lobby.start(created.table, tokens[0])
        assert created.owner is not None
        return created.table, tokens, created.owner


def log_of(client: Client) -> list[dict[str, Any]]:
    """Every log entry a connection was sent: its welcome's, then each delta's."""
    out: list[dict[str, Any]] = []
    for message in client.frames.plain():
        if message.get("type") == "welcome" and "view" in message:
            out = list(message.get("log", []))
        elif message.get("type") == "delta":
            out.extend(message.get("log", []))
    return out


async def until_logged(client: Client, test: Callable[[dict[str, Any]], bool], timeout: float):
    """Read until an entry of the connection's log passes ``test``; that entry."""
    async with asyncio.timeout(timeout):
        while True:
            found = next((e for e in log_of(client) if test(e)), None)
            if found is not None:
                return found
            with contextlib.suppress(TimeoutError):
                client._pending.append(await asyncio.wait_for(client._read(), 0.2))


async def play_until_over(client: Client, rng: random.Random, timeout: float = 90) -> None:
    """Play a seat's legal moves until the game is over (moves the server refuses because it
    plays the seat for now, or because the table moved on, are let go)."""
    mirror = client.mirror
    assert mirror is not None
    async with asyncio.timeout(timeout):
        while mirror.status != "over":
            if mirror.legal:
                result = await client.command(rng.choice(mirror.legal))
                if result.outcome == "accepted" and result.version is not None:
                    await client.until_version(result.version)
                    continue
                assert result.code in ("command/stale_version", "command/played_by_server"), result
            with contextlib.suppress(TimeoutError):
                client._pending.append(await asyncio.wait_for(client._read(), 0.5))


async def transcript_of(url: str, table: str) -> dict[str, Any]:
    async with Client.connect(url) as lobby:
        await lobby.hello()
        reply = await lobby.request(m.GetTranscript(lobby.next_id(), table))
        assert isinstance(reply, m.Transcript), reply
        return dict(reply.transcript)


async def test_an_absent_player_is_played_for_handed_over_and_takes_the_seat_back(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers(*FAST, "--bot-delay", "0.15")
    table, tokens, _ = await make_table(server.url, 2, LIVE, bots=1)
    async with Client.connect(server.url, m.SUBPROTOCOL_JSON) as watcher:
        watcher.record_frames()
        await watcher.hello(table=table, spectate=True)
        async with Client.connect(server.url) as ana:
            await ana.hello(table=table, token=tokens[0])
            mirror = ana.mirror
            assert mirror is not None
            async with asyncio.timeout(30):  # wait for Ana's turn, then walk away mid-turn
                while not (mirror.view["turn"] and mirror.view["turn"]["seat"] == 0):
                    ana._pending.append(await ana._read())
            left = time.time()
        # her turn clock runs out: the server plays the rest of that turn
        await until_logged(watcher, lambda e: e["kind"] == "turn_timed_out", 10)
        assert time.time() - left < 2 + 2  # (2 s turn, and some slack)
        clocks = [c for msg in watcher.clocks for c in msg.clocks]
        assert any(c.kind == "turn" and c.seat == 0 for c in clocks)
        # after the grace period (3 s away) the server plays her seat
        handed = await until_logged(watcher, lambda e: e["kind"] == "seat_handed_over", 15)
        assert handed == {"kind": "seat_handed_over", "seat": 0, "reason": "away"}
        seen = [c for msg in watcher.clocks for c in msg.clocks]
        assert any(c.kind == "handover" and c.seat == 0 for c in seen)
        away = watcher.presence
        assert away is not None and not away.seats[0].connected
        # the bot's seat never has a session (SPEC.md §6.4), and no clock ever runs for it (§6.6)
        assert (away.seats[1].connected, away.seats[1].since) == (False, 0)
        assert all(c.seat != 1 for c in seen) and all(1 not in d.seats for d in watcher.deadlines)
        # she comes back: the seat is hers again, and she plays to the end
        async with Client.connect(server.url) as ana:
            await ana.hello(table=table, token=tokens[0])
            await until_logged(watcher, lambda e: e["kind"] == "seat_taken_back", 10)
            await play_until_over(ana, random.Random(3))
        await watcher.until_version(ana.mirror.version)  # type: ignore[union-attr]
        # once back, her seat was never handed over again (presence lags behind her return)
        assert sum(e["kind"] == "seat_handed_over" for e in log_of(watcher)) == 1
    transcript = await transcript_of(server.url, table)
    kinds = [e["command"]["type"] for e in transcript["entries"]]
    assert {"time_out", "hand_over", "take_back"} <= set(kinds)
    # SPEC.md §9.4: null only for the server's own commands; its moves for a seat (the bot's,
    # those of Ana's seat while handed over, the take_back when she came back) name the seat
    own = {"start_game", "apply_default", "time_out", "hand_over"}
    for e in transcript["entries"]:
        assert e["seat"] == (None if e["command"]["type"] in own else e["command"]["seat"]), e
    assert [e["seat"] for e in transcript["entries"] if e["command"]["type"] == "take_back"] == [0]
    assert verify_transcript(transcript).ok
    replayed = replay(transcript)  # through the engine, from the commands alone: no clock
    assert replayed.ok, replayed
    assert "turn timed out" in server.output() and "seat handed over" in server.output()


async def test_two_nodes_firing_the_same_timeout_apply_it_once(
    servers: Callable[..., ServerProcess],
) -> None:
    a, b = servers(*FAST), servers(*FAST)
    clock = m.Clock("custom", turn=1, bank=0, decision=1, grace=0, strikes=0)
    table, tokens, _ = await make_table(a.url, 1, clock)
    async with (
        Client.connect(a.url) as solo,  # connected and idle: every turn times out
        Client.connect(b.url) as watcher,  # node b runs the table (and its clocks) too
    ):
        await solo.hello(table=table, token=tokens[0])
        watcher.record_frames()
        await watcher.hello(table=table, spectate=True)
        async with asyncio.timeout(30):
            while sum(e["kind"] == "turn_timed_out" for e in log_of(watcher)) < 3:
                with contextlib.suppress(TimeoutError):
                    watcher._pending.append(await asyncio.wait_for(watcher._read(), 0.2))
    turns: dict[int, int] = {}
    number = 0
    for entry in log_of(watcher):
        if entry["kind"] == "turn_began":
            number = entry["number"]
        elif entry["kind"] == "turn_timed_out":
            turns[number] = turns.get(number, 0) + 1
    assert len(turns) >= 3 and set(turns.values()) == {1}, turns  # once per turn
    accepted = sum(
        line.count('"outcome": "accepted"')
        for line in (a.output() + b.output()).splitlines()
        if '"turn timed out"' in line and f'"table": "{table}"' in line
    )
    assert accepted >= 3  # each applied by one of the two nodes


async def test_a_node_with_nobody_at_the_table_fires_its_clock(
    servers: Callable[..., ServerProcess],
) -> None:
    a = servers(*FAST)
    clock = m.Clock("custom", turn=2, bank=0, decision=2, grace=0, strikes=0)
    table, tokens, _ = await make_table(a.url, 1, clock)
    async with Client.connect(a.url) as solo:
        await solo.hello(table=table, token=tokens[0])
        await solo.until_version(1)
        await asyncio.sleep(0.5)  # (the node writes its clock index in batches: let it)
    a.kill()  # no node runs the table now
    b = servers(*FAST)
    def fired() -> bool:
        # This table's, accepted: node b also fires the clocks of earlier tests' tables in the
        # same Redis, and a timeout refused as stale is tried again.
        return any(
            '"turn timed out"' in line
            and f'"table": "{table}"' in line
            and '"outcome": "accepted"' in line
            for line in b.output().splitlines()
        )

    async with asyncio.timeout(20):
        while not fired():
            await asyncio.sleep(0.2)
    async with Client.connect(b.url) as watcher:
        watcher.record_frames()
        await watcher.hello(table=table, spectate=True)
        assert any(e["kind"] == "turn_timed_out" for e in log_of(watcher)), b.output()[-4000:]


async def test_the_clock_is_chosen_at_creation_and_listed(server: ServerProcess) -> None:
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        for preset, turn, bank in (("live", 90, 600), ("correspondence", 86400, 3 * 86400)):
            created = await lobby.create_table(2, clock=m.Clock(preset))  # type: ignore[arg-type]
            listed = await lobby.request(m.ListTables(lobby.next_id(), created.table))
            assert isinstance(listed, m.Tables)
            clock = listed.tables[0].clock
            assert clock is not None and (clock.preset, clock.turn, clock.bank) == (
                preset, turn, bank,
            )  # fmt: skip
        casual = await lobby.create_table(2)
        listed = await lobby.request(m.ListTables(lobby.next_id(), casual.table))
        assert isinstance(listed, m.Tables) and listed.tables[0].clock is not None
        assert listed.tables[0].clock.preset == "casual" and listed.tables[0].clock.turn == 0
        for bad in (m.Clock("custom", turn=3), m.Clock("live", grace=31 * 86400)):
            reply = await lobby.request(m.CreateTable(lobby.next_id(), 2, True, True, 0, bad))
            assert isinstance(reply, m.ErrorMessage) and reply.code == "table/bad_clock"


async def test_more_time_play_for_me_take_back_and_votes(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers(*FAST)
    clock = m.Clock("custom", turn=30, bank=50, decision=30, grace=600, strikes=0)
    table, tokens, _ = await make_table(server.url, 3, clock)
    async with (
        Client.connect(server.url) as p0,
        Client.connect(server.url) as p1,
        Client.connect(server.url) as p2,
    ):
        seats = [p0, p1, p2]
        for client, token in zip(seats, tokens, strict=True):
            await client.hello(table=table, token=token)
            await client.until_version(1)
        view = p0.mirror.view  # type: ignore[union-attr]
        mover = view["turn"]["seat"]
        me = seats[mover]
        assert {"type": "extend_time", "seat": mover} in me.mirror.you["controls"]  # type: ignore[union-attr]
        await me.drain(0.3)
        before = [c for msg in me.clocks for c in msg.clocks if c.kind == "turn"][-1].at
        result = await me.command({"type": "extend_time", "seat": mover})
        assert result.outcome == "accepted"
        await me.until_version(result.version)  # type: ignore[arg-type]
        await me.drain(0.3)
        after = [c for msg in me.clocks for c in msg.clocks if c.kind == "turn"][-1].at
        assert after - before == 30_000  # one turn's time from the bank
        assert me.mirror.view["players"][mover]["bank"] == 20  # type: ignore[union-attr]
        again = await me.command({"type": "extend_time", "seat": mover})
        assert again.code == "rules/already_extended"

        # a seat that is here cannot be voted over
        other = (mover + 1) % 3
        voter = seats[(mover + 2) % 3]
        await voter.until_version(me.mirror.version)  # type: ignore[union-attr]
        ballot = {"type": "vote_handover", "seat": (mover + 2) % 3, "target": other}
        vote = await voter.command(ballot)
        assert vote.outcome == "rejected" and vote.code == "command/player_present"

        # "play for me": the server plays the seat; its player's moves are refused until they
        # take it back
        result = await me.command({"type": "play_for_me", "seat": mover})
        assert result.outcome == "accepted"
        await me.until_version(result.version)  # type: ignore[arg-type]
        assert me.mirror.view["players"][mover]["auto"] == "self"  # type: ignore[union-attr]
        async with asyncio.timeout(10):  # its bot moves
            while me.mirror.view["turn"]["seat"] == mover:  # type: ignore[union-attr]
                me._pending.append(await me._read())
        result = await me.command({"type": "take_back", "seat": mover})
        assert result.outcome == "accepted"
        await me.until_version(result.version)  # type: ignore[arg-type]
        assert me.mirror.view["players"][mover]["auto"] is None  # type: ignore[union-attr]

        # an away player can be voted over by every other person
        target = seats[other]
        await target.close()
        await asyncio.sleep(2.5)  # presence settles (SPEC.md §6.4)
        voters = [s for s in range(3) if s != other]
        for seat in voters:
            client = seats[seat]
            await client.drain(0.2)
            ballot = {"type": "vote_handover", "seat": seat, "target": other}
            result = await client.command(ballot)
            if result.code == "command/stale_version":
                await client.until_version(result.version)  # type: ignore[arg-type]
                result = await client.command(ballot)
            assert result.outcome == "accepted", result
            await client.until_version(result.version)  # type: ignore[arg-type]
        watcher = seats[voters[0]]
        await watcher.drain(0.3)
        assert watcher.mirror.view["players"][other]["auto"] == "vote"  # type: ignore[union-attr]
        assert {"kind": "seat_handed_over", "seat": other, "reason": "vote"} in log_of(watcher)


async def test_seat_commands_toggled_are_limited_and_say_why_through_the_sdk(
    servers: Callable[..., ServerProcess],
) -> None:
    """Issue 24 (items 4, 5, 14): toggling play_for_me/take_back 20 times makes two log entries
    in a turn, the rest refused with a code; a seat the server plays has an empty ``you.legal``
    and ``take_back`` in its controls; handover votes for oneself, a seat the table has not and
    a bot's seat get the rules' codes, one for a person who is here ``command/player_present``."""
    from echoridge_client.lobby import Lobby
    from echoridge_client.session import Seat

    server = servers(*FAST, "--commands-per-second", "50")  # 20 toggles in well under 1 s
    sdk = await Lobby.connect(server.url)
    try:
        table = (await sdk.create(3)).table
        tokens = [(await sdk.join(table, name)).token for name in ("Ana", "Ben")]
        assert (await sdk.add_bot(table, tokens[0], "greedy")).outcome == "accepted"
        assert (await sdk.start(table, tokens[0])).outcome == "accepted"
    finally:
        await sdk.close()
    seats = [await Seat.sit(server.url, table, token) for token in tokens]
    try:
        ana = seats[0]
        # the bot (seat 2) plays until a person's turn; then nothing moves until that person does
        await ana.wait(lambda: bool(ana.view.get("turn")) and ana.view["turn"]["seat"] != 2, 30)
        mover = ana.view["turn"]["seat"]
        idle = seats[1 - mover]
        await idle.until_version(ana.version)  # (a view behind would send a stale version)
        me = 1 - mover
        number = idle.view["turn"]["number"]
        start = len(idle.log)
        outcomes = []
        for i in range(20):
            result = await (idle.play_for_me() if i % 2 == 0 else idle.take_back())
            outcomes.append(result.code if result.outcome == "rejected" else result.outcome)
            if i == 0:  # handed over: nothing to send but the seat commands
                assert idle.you["legal"] == []
                assert {"type": "take_back", "seat": me} in idle.controls
        assert outcomes[:2] == ["accepted", "accepted"]
        assert set(outcomes[2::2]) == {"rules/handover_used"}
        assert set(outcomes[3::2]) == {"rules/not_handed_over"}
        assert idle.view["turn"]["number"] == number  # all in one turn
        kinds = [e["kind"] for e in idle.log[start:]]
        assert kinds == ["seat_handed_over", "seat_taken_back"]
        assert all(c["type"] != "play_for_me" for c in idle.controls)

        # the seat on turn, handed over: no legal commands while the server plays it
        active = seats[mover]
        assert active.legal
        result = await active.play_for_me()
        assert result.outcome == "accepted"
        assert active.you["legal"] == [] and any(c["type"] == "take_back" for c in active.controls)
        await active.wait(lambda: active.view["turn"]["seat"] != mover, 20)  # its bot plays
        assert (await active.take_back()).outcome == "accepted"

        # handover votes: the rules look first, presence last
        voter = seats[0]
        await voter.until_version(active.version)
        codes = [(await voter.vote_handover(target)).code for target in (0, 3, 2, 1, 9)]
        assert codes == [
            "rules/bad_vote", "rules/unknown_seat", "rules/bot_seat", "command/player_present",
            "protocol/bad_field",  # no seat 9 at any table: the command map is malformed
        ]
    finally:
        for seat in seats:
            await seat.close()


async def test_the_creator_removes_a_player_and_closes_the_table(server: ServerProcess) -> None:
    table, tokens, owner = await make_table(server.url, 3, None, start=False)
    async with Client.connect(server.url) as lobby, Client.connect(server.url) as p1:
        await lobby.hello()
        await p1.hello(table=table, token=tokens[1])
        wrong = await lobby.request(m.RemovePlayer(lobby.next_id(), table, tokens[0], 1))
        assert isinstance(wrong, m.Result) and wrong.code == "auth/bad_token"
        result = await lobby.request(m.RemovePlayer(lobby.next_id(), table, owner, 1))
        assert isinstance(result, m.Result) and result.outcome == "accepted", result
        assert await p1.closed() == 4001
        listed = await lobby.request(m.ListTables(lobby.next_id(), table))
        assert isinstance(listed, m.Tables) and [p.seat for p in listed.tables[0].players] == [0, 2]
        free = await lobby.request(m.RemovePlayer(lobby.next_id(), table, owner, 1))
        assert isinstance(free, m.Result) and free.code == "table/seat_free"
    async with Client.connect(server.url) as lobby, Client.connect(server.url) as p0:
        await lobby.hello()
        await p0.hello(table=table, token=tokens[0])
        result = await lobby.request(m.CloseTable(lobby.next_id(), table, owner))
        assert isinstance(result, m.Result) and result.outcome == "accepted", result
        assert await p0.closed() == 4004
        listed = await lobby.request(m.ListTables(lobby.next_id(), table))
        assert isinstance(listed, m.ErrorMessage) and listed.code == "table/closed"
        joined = await lobby.request(m.Join(lobby.next_id(), table, "late", b"\x01" * 16))
        assert isinstance(joined, m.ErrorMessage) and joined.code == "table/closed"
        tables = await lobby.list_tables()
        assert table not in {t.table for t in tables.tables}
    started, tokens, owner = await make_table(server.url, 1, None)
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        late = await lobby.request(m.CloseTable(lobby.next_id(), started, owner))
        assert isinstance(late, m.Result) and late.code == "table/started"
