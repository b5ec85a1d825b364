"""The replay of a finished game in Chromium (issue 27, SPEC 4.7; clients/web/js/replay.js).

A 2-seat game is played to its end by the SDK (RandomPolicy seats and a spectator that record
the view they were sent at every version, and each version's log entries). The browser then
opens its replay as each seat, as a spectator and as everyone, at sampled versions (the link's
``v``) and by the keyboard, and the view the page holds (``window.echoridge.session.view``, as
the live table exposes its session) must be the one that seat or spectator was sent live at
that version; everyone's views must agree with the transcript (the SDK's SPEC 4.7 check). The
log panel words the version's entries as the live page does (the terminal client's renderer is
the oracle, logwords.py). Every reveal is checked (a tampered proof raises the alarm), the
controls and keys move where they say, the address follows the version, refusals are said in
the client's own words, and the end-of-game screen and the lobby link to the replay.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client import logtext as words
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.replay import check_against_transcript
from echoridge_client.session import Seat, Spectator
from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url
from tests.web.logwords import render

# The entries that say a seat acted in its version (replay.js ACTS): "its moves".
ACTS = {
    "car_driven", "force_played", "action_taken", "token_peeked", "suspect_seen",
    "pool_card_taken", "force_discarded", "accused", "time_extended", "handover_voted",
    "seat_taken_back",
}  # fmt: skip


class Recording:
    """Keeps the view at every version the session reached, and each version's log entries."""

    views: dict[int, dict[str, Any]]
    logs: dict[int, list[dict[str, Any]]]

    async def _notify(self) -> None:
        session: Any = self
        if not hasattr(self, "views"):
            self.views, self.logs, self.seen = {}, {}, 0
        if session.version >= 0:
            self.views[session.version] = copy.deepcopy(session.view)
            fresh = session.log[self.seen :]
            if fresh:
                self.logs.setdefault(session.version, []).extend(copy.deepcopy(fresh))
            self.seen = len(session.log)
        await super()._notify()  # type: ignore[misc]


class RecordingSeat(Recording, Seat):
    pass


class RecordingSpectator(Recording, Spectator):
    pass


class Game:
    table: str
    last: int
    tokens: list[str]
    sessions: dict[int | None, Any]  # seat (None: the spectator) -> its recording session
    transcript: dict[str, Any]
    unstarted: str  # a table whose game has not started


def in_thread(make: Any) -> None:
    """Runs a coroutine in a thread of its own (sync Playwright keeps a loop in this one)."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(make())
        except BaseException as err:  # (handed to the test)
            failure.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(240)
    assert not worker.is_alive(), "the game did not end in time"
    if failure:
        raise failure[0]


def play_game(url: str) -> Game:
    game = Game()

    async def play() -> None:
        lobby = await Lobby.connect(url)
        sessions: list[Any] = []
        try:
            table = (await lobby.create(2, public=True, spectators=True)).table
            game.table = table
            game.tokens = [(await lobby.join(table, name)).token for name in ("Ada", "Ben")]
            seats = [await RecordingSeat.sit(url, table, t) for t in game.tokens]
            watcher = await RecordingSpectator.watch(url, table)
            sessions = [*seats, watcher]
            await lobby.start(table, game.tokens[0])
            policies = [RandomPolicy(bytes([7 + i]) * 8) for i in range(2)]
            await asyncio.gather(
                *(s.play(p, timeout=180) for s, p in zip(seats, policies, strict=True))
            )
            game.last = seats[0].version
            await watcher.until_version(game.last)
            game.sessions = {0: seats[0], 1: seats[1], None: watcher}
            game.transcript = await lobby.transcript(table)
            game.unstarted = (await lobby.create(2, public=True)).table
        finally:
            for session in sessions:
                await session.close()
            await lobby.close()

    in_thread(play)
    return game


@pytest.fixture(scope="module")
def game(module_server: ServerProcess) -> Game:
    return play_game(module_server.url)


def link(game: Game, query: str = "") -> str:
    return f"/#/replay/{game.table}{query}"


def wait_at(page: Any, version: int) -> None:
    page.wait_for_function(
        f"() => document.querySelector('#game')?.dataset.version === '{version}'", timeout=20_000
    )


def page_view(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("() => window.echoridge.session.view"))


def hash_version(page: Any) -> int | None:
    match = re.search(r"[?&]v=(\d+)", page.evaluate("() => location.hash"))
    return int(match.group(1)) if match else None


def assert_log_lines(page: Any, game: Game, seat: int | None, version: int) -> None:
    """The log panel shows the version's entries, as that viewer was sent them, in words."""
    session = game.sessions[seat]
    view = session.views[version]
    entries = session.logs.get(version, [])
    whole = any(e["kind"] == "game_ended" for e in entries)
    blocks = words.block_names(view)
    want = [render(e, view.get("players") or [], seat, whole, False, blocks) for e in entries]
    want = [line for line in want if line is not None]
    lines = page.locator(f'#log li[data-version="{version}"]')
    got = [" ".join(t.split()) for t in lines.all_inner_texts()]
    assert got == want, (seat, version)
    if want:  # the version's lines are marked as the moment shown
        expect(page.locator(f'#log li.current[data-version="{version}"]')).to_have_count(len(want))


def samples(game: Game) -> list[int]:
    last = game.last
    return sorted({1, 2, last // 3, last // 2, (2 * last) // 3, last - 1, last})


def test_every_viewer_replays_what_it_was_sent(
    module_server: ServerProcess, game: Game, people: Any, screenshots: Path
) -> None:
    base = base_url(module_server)
    viewer = people(base, "Viewer", viewport={"width": 1280, "height": 900})
    page = viewer.page
    assert game.last > 6
    for seat, query in ((0, "?seat=0"), (1, "?seat=1"), (None, "")):
        recorded = game.sessions[seat].views
        shown = []
        for version in samples(game):
            viewer.goto(link(game, f"{query}{'&' if query else '?'}v={version}"))
            wait_at(page, version)
            view = page_view(page)
            assert view == recorded[version], (seat, version)
            shown.append((version, view))
            assert hash_version(page) == version
            assert_log_lines(page, game, seat, version)
        check_against_transcript(shown, game.transcript, seat)
        expect(page.locator("#replay-reveals")).to_have_attribute("data-reveals", "ok")
        assert page.locator(".alarm").is_hidden()
    # a seat's view holds its own secrets, and says whose it is
    viewer.goto(link(game, f"?seat=1&v={game.last // 2}"))
    wait_at(page, game.last // 2)
    assert page_view(page)["you"]["seat"] == 1
    expect(page.locator("#replay-viewer")).to_contain_text("Ben")
    expect(page.locator("#replay-seat")).to_have_value("1")

    # everyone: every secret, and the transcript's views (SPEC 4.7's check)
    shown = []
    for version in samples(game):
        viewer.goto(link(game, f"?everyone=1&v={version}"))
        wait_at(page, version)
        view = page_view(page)
        shown.append((version, view))
        if version < game.last:
            assert view["secrets"] is not None
    assert shown[-1][1] == game.transcript["final"]
    check_against_transcript(shown, game.transcript, everyone=True)
    reveals = page.locator("#replay-reveals")
    expect(reveals).to_have_attribute("data-reveals", "ok")
    checked = page.evaluate("() => window.echoridge.session.verifier.checked.size")
    assert checked == len(game.transcript["final"]["commitments"])  # every hidden item opened
    # the end: the result, and the board with everything revealed
    expect(page.locator(".result")).to_be_visible()
    expect(page.locator("#replay-status")).to_contain_text("the end of the game")
    assert_accessible(page, "everyone's replay at the end")
    page.screenshot(path=str(screenshots / "replay-everyone-end.png"), full_page=True)


def test_the_controls_and_the_keyboard_move_through_the_game(
    module_server: ServerProcess, game: Game, people: Any, screenshots: Path
) -> None:
    base = base_url(module_server)
    ada = people(base, "Ada", viewport={"width": 1280, "height": 900})
    page = ada.page
    views = game.sessions[0].views
    middle = game.last // 2
    ada.goto(link(game, f"?seat=0&v={middle}"))
    wait_at(page, middle)

    # the keys: Left and Right step, Home and End, Space plays and pauses; the address follows
    page.keyboard.press("ArrowRight")
    wait_at(page, middle + 1)
    assert page_view(page) == views[middle + 1]
    assert hash_version(page) == middle + 1
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_at(page, middle - 1)
    assert page_view(page) == views[middle - 1]
    assert hash_version(page) == middle - 1
    assert_log_lines(page, game, 0, middle - 1)
    page.keyboard.press("End")
    wait_at(page, game.last)
    assert page_view(page) == views[game.last]
    page.keyboard.press("Home")
    wait_at(page, 0)
    assert page_view(page) == views[0]
    expect(page.locator("#replay-status")).to_have_text(f"Move 0 of {game.last}, before the start")
    play = page.locator("#replay-play")
    page.select_option("#replay-speed", "8")
    page.locator("h1").click()  # (the focus off the select: Space on the page)
    page.keyboard.press(" ")
    expect(play).to_have_attribute("data-playing", "1")
    expect(play).to_have_accessible_name("Pause")
    page.wait_for_function("() => +document.querySelector('#game').dataset.version >= 3")
    page.keyboard.press(" ")
    expect(play).to_have_attribute("data-playing", "0")
    expect(play).to_have_accessible_name("Play")
    stopped = int(ada.game_attr("version") or -1)
    page.wait_for_timeout(400)
    assert int(ada.game_attr("version") or -1) == stopped  # paused
    assert page_view(page) == views[stopped]
    assert hash_version(page) == stopped

    # the buttons: a turn at a time, the seat's own moves, a turn chosen from the list
    turns = [
        v
        for v in range(1, game.last + 1)
        if any(e["kind"] == "turn_began" for e in game.sessions[None].logs.get(v, []))
    ]
    page.locator("#replay-first").click()
    wait_at(page, 0)
    for start in turns[:3]:
        page.locator("#replay-next-turn").click()
        wait_at(page, start)
    page.locator("#replay-prev-turn").click()
    wait_at(page, turns[1])
    expect(page.locator("#replay-status")).to_have_attribute("aria-live", "polite")
    began = next(e for e in game.sessions[0].logs[turns[1]] if e["kind"] == "turn_began")
    expect(page.locator("#replay-status")).to_contain_text(f"turn {began['number']} ")
    mine = [
        v
        for v in range(1, game.last + 1)
        if any(e.get("seat") == 0 and e["kind"] in ACTS for e in game.sessions[0].logs.get(v, []))
    ]
    assert len(mine) >= 2
    page.locator("#replay-first").click()
    wait_at(page, 0)
    expect(page.locator("#replay-next-mine")).to_have_text("Ada's next move ▶")
    page.locator("#replay-next-mine").click()
    wait_at(page, mine[0])
    page.locator("#replay-next-mine").click()
    wait_at(page, mine[1])
    page.locator("#replay-prev-mine").click()
    wait_at(page, mine[0])
    page.select_option("#replay-turn", str(turns[-1]))
    wait_at(page, turns[-1])
    assert page_view(page) == views[turns[-1]]

    # the seat chosen: everyone's view of the same moment, the link names it
    page.select_option("#replay-seat", "everyone")
    page.wait_for_function("() => location.hash.includes('everyone=1')")
    wait_at(page, turns[-1])
    assert f"v={turns[-1]}" in page.evaluate("() => location.hash")
    assert page_view(page)["secrets"] is not None

    # the screenshots: a moment in the middle, on a desktop and on a phone
    ada.goto(link(game, f"?seat=0&v={middle}"))
    wait_at(page, middle)
    expect(page.locator("#replay-reveals")).to_have_attribute("data-reveals", "ok")
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshots / "replay-seat-desktop.png"), full_page=True)
    assert_accessible(page, "a seat's replay")
    phone = people(base, "Phone", viewport={"width": 390, "height": 844})
    phone.goto(link(game, f"?seat=1&v={middle}"))
    wait_at(phone.page, middle)
    assert page_view(phone.page) == game.sessions[1].views[middle]
    expect(phone.page.locator("#replay-reveals")).to_have_attribute("data-reveals", "ok")
    width = phone.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width  # nothing wider than the phone
    phone.page.wait_for_timeout(300)
    phone.page.screenshot(path=str(screenshots / "replay-seat-phone.png"))
    phone.page.screenshot(path=str(screenshots / "replay-seat-phone-full.png"), full_page=True)
    assert_accessible(phone.page, "a seat's replay on a phone")
    more = phone.page.locator(".replay-more")
    assert more.get_attribute("open") is None  # folded on a phone, and opens
    more.locator("summary").click()
    expect(phone.page.locator("#replay-seat")).to_be_visible()


def test_a_reveal_that_does_not_open_its_commitment_raises_the_alarm(
    module_server: ServerProcess, game: Game, people: Any
) -> None:
    """The server's reply is changed on its way to the page: one proof's salt."""
    eve = people(base_url(module_server), "Eve")
    page = eve.page
    tampered: list[str] = []

    def spoil(node: Any) -> bool:
        if isinstance(node, dict):
            if {"label", "value", "salt"} <= node.keys() and not tampered:
                salt = str(node["salt"])
                node["salt"] = salt[:-1] + ("0" if salt[-1] != "0" else "1")
                tampered.append(str(node["label"]))
                return True
            return any(spoil(v) for v in node.values())
        if isinstance(node, list):
            return any(spoil(v) for v in node)
        return False

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "replay" and data.get("start") == 0:
                spoil(data)
                message = json.dumps(data)
            ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r".*/ws.*"), route)
    eve.goto(link(game, "?everyone=1&v=2"))
    alarm = page.locator(".alarm")
    expect(alarm).to_be_visible(timeout=20_000)
    assert tampered
    expect(alarm).to_have_attribute("role", "alert")
    expect(alarm).to_contain_text("REVEAL CHECK FAILED")
    expect(alarm).to_contain_text(tampered[0])
    expect(page.locator("#replay-reveals")).to_have_attribute("data-reveals", "failed")
    expect(page.locator("#replay-reveals")).to_contain_text("do not trust this game")


def test_refusals_are_said_in_the_clients_words(
    module_server: ServerProcess, game: Game, people: Any
) -> None:
    eve = people(base_url(module_server), "Eve")
    page = eve.page
    cases = [
        ("/#/replay/t-0000000000", "no such table"),
        (f"/#/replay/{game.unstarted}", "has not started yet"),
        (link(game, "?seat=3"), "a seat nobody sat in"),
    ]
    for path, words_shown in cases:
        eve.goto(path)
        alarm = page.locator(".alarm")
        expect(alarm).to_contain_text(words_shown, timeout=15_000)
        expect(page.locator("#replay-bar")).to_be_hidden()
        text = alarm.inner_text()
        assert "replay.seat" not in text and "must be" not in text  # not the server's detail


def test_the_end_of_the_game_and_the_lobby_link_to_the_replay(
    module_server: ServerProcess, game: Game, people: Any
) -> None:
    base = base_url(module_server)
    # a spectator at the end of the game: the spectator's replay
    cy = people(base, "Cy")
    cy.goto(f"/#/watch/{game.table}")
    link_ = cy.page.locator("#replay-link")
    expect(link_).to_have_attribute("href", f"#/replay/{game.table}")
    link_.click()
    wait_at(cy.page, 1)
    assert page_view(cy.page) == game.sessions[None].views[1]

    # Ben's browser, which holds his seat: the lobby and the end of the game link to his replay
    ben = people(base, "Ben")
    ben.goto("/")
    record = {"seat": 1, "token": game.tokens[1], "name": "Ben", "client_seed": "00" * 32}
    ben.page.evaluate(
        "(r) => localStorage.setItem('echoridge.seats', JSON.stringify({[r.table]: r.record}))",
        {"table": game.table, "record": record},
    )
    ben.goto("/")
    mine = ben.page.locator(f'[data-key="replay-{game.table}"]')
    expect(mine).to_have_attribute("href", f"#/replay/{game.table}?seat=1")
    expect(mine).to_have_accessible_name(f"Watch the replay of {game.table}")
    ben.goto(f"/#/table/{game.table}")
    ben.page.locator("#resume-seat").click()
    end_link = ben.page.locator("#replay-link")
    expect(end_link).to_have_attribute("href", f"#/replay/{game.table}?seat=1")
    end_link.click()
    wait_at(ben.page, 1)
    assert page_view(ben.page) == game.sessions[1].views[1]
    expect(ben.page.locator("#replay-seat")).to_have_value("1")
