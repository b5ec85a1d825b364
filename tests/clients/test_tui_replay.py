"""``echo-ridge replay`` (issue 27, SPEC.md §4.7) driven headless with textual's pilot against a
real server: a 2-seat game played to its end by SDK seats, then its replay as seat 0 stepped
with the keys (versions, turns, the seat's own moves, Home/End, play), each version's view the
SDK's replay view of that version and its log entries worded as the live log words them; the
viewer switched (seat 1, a spectator, everyone); ``--version`` opens at a version; pages are
fetched as they are needed; refusals in words; a reveal that does not open its commitment
raises the alarm."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.replay import ReplayedVersion
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from echoridge_protocol.delta import apply, diff
from echoridge_terminal import EchoRidgeApp
from echoridge_terminal import replaydata as tui_replay
from echoridge_terminal.game import AlertScreen, log_texts
from echoridge_terminal.replaydata import SEAT_COMMANDS, Viewer
from echoridge_terminal.replayer import ReplayScreen
from tests.clients.test_tui import SIZE, text_of, until
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401


@pytest.fixture(scope="module")
def page() -> int:
    return 10  # small pages: a short game spans several


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


async def finished_game(url: str) -> str:
    """A 2-seat game of Ada and Ben played to its end by SDK seats: its table."""
    lobby = await Lobby.connect(url)
    try:
        table = (await lobby.create(2)).table
        tokens = [(await lobby.join(table, name)).token for name in ("Ada", "Ben")]
        seats = [await Seat.sit(url, table, t) for t in tokens]
        try:
            await lobby.start(table, tokens[0])
            await asyncio.gather(
                *(
                    s.play(RandomPolicy(bytes([i + 5]) * 8), timeout=120)
                    for i, s in enumerate(seats)
                )
            )
        finally:
            for s in seats:
                await s.close()
    finally:
        await lobby.close()
    return table


async def sdk_replay(url: str, table: str, viewer: Viewer) -> list[ReplayedVersion]:
    lobby = await Lobby.connect(url)
    try:
        return [v async for v in lobby.replay(table, viewer.seat, everyone=viewer.everyone)]
    finally:
        await lobby.close()


async def game_with_a_reveal(url: str) -> tuple[str, int, int]:
    """A finished game, a seat and the first version whose view shows that seat a proof of a
    committed label (a random game may show a seat none: another seat, or another game). A
    look's proof opens the slot commitments of its decision, not a committed label."""
    for _ in range(5):
        table = await finished_game(url)
        for seat in (0, 1):
            for v in await sdk_replay(url, table, Viewer(seat=seat)):
                you = v.view.get("you") or {}
                proofs = [*v.view.get("proofs", ()), *you.get("proofs", ())]
                if any(not p["label"].startswith("look/") for p in proofs):
                    return table, seat, v.version
    raise AssertionError("five games and no reveal to a seat")


def shown(screen: ReplayScreen, version: int) -> Callable[[], bool]:
    return lambda: screen.version == version and not screen.busy


async def test_replay_steps_with_the_keys_and_switches_seats(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch, page: int
) -> None:
    monkeypatch.setattr(tui_replay, "PAGE", page)
    table = await finished_game(server.url)
    viewers = [Viewer(0), Viewer(1), Viewer(), Viewer(everyone=True)]
    sdk = {v: await sdk_replay(server.url, table, v) for v in viewers}
    mine = sdk[Viewer(0)]
    last = mine[-1].version
    assert last > 3 * page  # (several pages)
    lobby = await Lobby.connect(server.url)
    transcript = await lobby.transcript(table)
    await lobby.close()
    moves = [
        e["version"]
        for e in transcript["entries"]
        if e["seat"] == 0 and e["command"]["type"] not in SEAT_COMMANDS
    ]
    turns = [v.version for v in mine if any(e["kind"] == "turn_began" for e in v.log)]

    app = EchoRidgeApp(server.url, replay=table, seat=0)
    async with asyncio.timeout(90), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await until(pilot, shown(screen, 0), "version 0")
        data = screen.replay
        assert data.starts == {0}  # one page fetched, no more
        assert screen.view == mine[0].view
        assert screen.status_text.startswith(
            f"Version 0 of {last} · Before the start · Seat 0 (Ada, P1 on the board) · paused"
        )

        def check(version: int, viewer: Viewer = Viewer(0)) -> None:  # noqa: B008
            """The screen shows ``viewer``'s view of ``version`` and its log entries."""
            expected = sdk[viewer][version]
            assert screen.viewer == viewer and screen.version == version
            assert screen.view == expected.view
            whole = viewer.everyone or version == last
            words = [t.plain for t in log_texts(list(expected.log), expected.view, whole)]
            assert screen.step_lines == words
            assert screen.status_text.startswith(f"Version {version} of {last} · ")
            assert screen.replay.error is None  # every reveal opened its commitment

        await pilot.press("right")
        await until(pilot, shown(screen, 1), "version 1")
        check(1)
        assert "  The game begins with 2 officers" in screen.step_lines
        assert screen.log_lines[: len(screen.step_lines)] == screen.step_lines
        turn = mine[1].view["turn"]
        who = "Ada" if turn["seat"] == 0 else "Ben"
        assert f" · Turn 1 ({turn['time']}), {who} to play · " in screen.status_text

        for _ in range(3):  # the start of each next turn
            at = screen.version
            await pilot.press("down")
            after = next(v for v in turns if v > at)
            await until(pilot, shown(screen, after), f"the turn at {after}")
            check(after)
            number = mine[after].view["turn"]["number"]
            assert f" · Turn {number} (" in screen.status_text
        await pilot.press("left_square_bracket")  # [ : back a turn
        await until(pilot, shown(screen, turns[2]), "a turn back")
        await pilot.press("up")
        await until(pilot, shown(screen, turns[1]), "another turn back")
        check(turns[1])

        for _ in range(3):  # Ada's own moves, forward then back
            at = screen.version
            await pilot.press("n")
            after = next(v for v in moves if v > at)
            await until(pilot, shown(screen, after), f"Ada's move at {after}")
            check(after)
        await pilot.press("p")
        before = max(v for v in moves if v < after)
        await until(pilot, shown(screen, before), "Ada's move before")
        check(before)

        await pilot.press("end")
        await until(pilot, shown(screen, last), "the end")
        check(last)
        assert screen.status_text.startswith(f"Version {last} of {last} · The game is over · ")
        assert "GAME OVER" in text_of(screen, "#you")
        assert "The game is over. Winners:" in " ".join(screen.step_lines)
        await pilot.press("right")
        await pilot.pause(0.1)
        assert screen.version == last and "This is the end." in text_of(screen, "#replay-note")
        for _ in range(page + 2):  # back across a page
            await pilot.press("left")
        await until(pilot, shown(screen, last - page - 2), "back across a page")
        check(last - page - 2)
        logged = [t.plain for v in mine[: last - page - 1] for t in
                  log_texts(list(v.log), v.view, v.version == last)]  # fmt: skip
        # the whole log so far, as the live log words it (the pages between come meanwhile)
        await until(pilot, lambda: screen.log_lines == logged, "the whole log")

        middle = last - page - 2
        for viewer, words in [
            (Viewer(1), "Seat 1 (Ben, P2 on the board)"),
            (Viewer(), "A spectator's view"),
            (Viewer(everyone=True), "Everyone (every secret shown)"),
            (Viewer(0), "Seat 0 (Ada, P1 on the board)"),
        ]:
            await pilot.press("s")
            await until(pilot, lambda: screen.viewer == viewer and not screen.busy, str(viewer))  # noqa: B023
            await until(pilot, shown(screen, middle), "the same version")
            check(middle, viewer)
            assert f" · {words} · " in screen.status_text
            if viewer.everyone:
                assert "The murderer: " in text_of(screen, "#you")
            if viewer.seat is None and not viewer.everyone:
                assert "n and p follow" not in text_of(screen, "#replay-note")
                await pilot.press("n")
                await until(pilot, lambda: "n and p follow" in text_of(screen, "#replay-note"), "n")

        await pilot.press("home")
        await until(pilot, shown(screen, 0), "the start")
        check(0)
        await pilot.press("plus", "plus", "plus")  # 16 versions a second
        await pilot.press("space")
        await until(pilot, lambda: (screen.version or 0) >= 5, "playing")
        assert "playing, 16 versions a second" in screen.status_text
        await pilot.press("space")
        await pilot.pause(0.2)
        stopped = screen.version
        assert stopped is not None and "paused" in screen.status_text
        await pilot.pause(0.3)
        assert screen.version == stopped
        check(stopped)
        assert app.ctx.lobby is not None


async def test_version_opens_there_and_refusals_are_words(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch, page: int
) -> None:
    monkeypatch.setattr(tui_replay, "PAGE", page)
    table = await finished_game(server.url)
    mine = await sdk_replay(server.url, table, Viewer(1))
    last = mine[-1].version
    at = last // 2 + 3
    app = EchoRidgeApp(server.url, replay=table, seat=1, version=at)
    async with asyncio.timeout(60), app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await until(pilot, shown(screen, at), f"version {at}")
        assert screen.view == mine[at].view
        assert screen.status_text.startswith(f"Version {at} of {last} · ")
        # the pages before it come in the background: the log goes back to the start
        await until(pilot, lambda: 0 in screen.replay.starts, "the pages before")
        await until(pilot, lambda: "  The game begins with 2 officers" in screen.log_lines, "log")
        assert at + page not in screen.replay.starts  # the pages after it: when needed
        await pilot.press("left")
        await until(pilot, shown(screen, at - 1), "a version back")
        assert screen.view == mine[at - 1].view

    past = EchoRidgeApp(server.url, replay=table, seat=1, version=last + 50)
    async with asyncio.timeout(30), past.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(past.screen, ReplayScreen), "the replay screen")
        screen = past.screen
        assert isinstance(screen, ReplayScreen)
        await until(pilot, shown(screen, last), "the end")
        assert f"The game's last version is {last}" in text_of(screen, "#replay-note")

    lobby = await Lobby.connect(server.url)
    playing = (await lobby.create(2)).table
    token = (await lobby.join(playing, "Ada")).token
    await lobby.add_bot(playing, token, "random")
    await lobby.start(playing, token)
    await lobby.close()
    for where, seat, words in [
        (playing, 0, f"The game at table {playing} is still being played"),
        ("t-0000000000", 0, "There is no table t-0000000000 on this server."),
        (table, 3, f"Table {table} has no seat 3: its seats are 0 to 1."),
    ]:
        refused = EchoRidgeApp(server.url, replay=where, seat=seat)
        async with asyncio.timeout(30), refused.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(refused.screen, ReplayScreen), "the screen")  # noqa: B023
            screen = refused.screen
            assert isinstance(screen, ReplayScreen)
            await until(pilot, lambda: screen.failed is not None, "the refusal")  # noqa: B023
            alert = text_of(screen, "#alert")
            assert words in alert, alert
            assert "Traceback" not in alert and "/" not in alert.replace(where, "").split(":")[0]
            assert "No replay to show" in screen.status_text
            await pilot.press("right", "s", "space")  # nothing to move: no harm
            assert screen.version is None


async def test_a_reveal_that_does_not_open_its_commitment_raises_the_alarm(
    server: ServerProcess,
) -> None:
    """The server's pages, every commitment changed (its steps' ops made again from the
    changed views, so the pages agree with each other): the first reveal fails its check."""
    table, seat, first = await game_with_a_reveal(server.url)
    app = EchoRidgeApp(server.url, replay=table, seat=seat, version=first)
    lobby = await Lobby.connect(server.url)
    honest = lobby.replay_page

    def forged(view: dict[str, Any]) -> dict[str, Any]:
        view = copy.deepcopy(view)
        commitments = view.get("commitments") or {}
        for label in commitments:
            commitments[label] = "00" * 32
        return view

    async def tampered(*args: Any, **kwargs: Any) -> m.Replay:
        page = await honest(*args, **kwargs)
        view, before = dict(page.view), forged(page.view)
        steps = []
        for step in page.steps:
            view = apply(view, step.ops)
            after = forged(view)
            steps.append(dataclasses.replace(step, ops=diff(before, after)))
            before = after
        return dataclasses.replace(page, view=forged(page.view), steps=tuple(steps))

    lobby.replay_page = tampered  # type: ignore[method-assign]
    app.ctx.lobby = lobby
    async with asyncio.timeout(60), app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, AlertScreen) and bool(app.screen.query("#alarm")),
            "the alarm",
        )
        assert "REVEAL CHECK FAILED" in text_of(app.screen, "#alarm")
        assert "does not open its commitment" in text_of(app.screen, "#alarm")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "dismissed")
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert "REVEAL CHECK FAILED" in text_of(screen, "#alert")
        assert "do not trust this game" in text_of(screen, "#alert")
