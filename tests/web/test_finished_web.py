"""The record of games in the browser's lobby (issue 27, SPEC 4.8; clients/web/js/finished.js):
two public games played to their end by the SDK are listed newest first with their players,
winners and murderer; "Find a player" lists one player's games (any case); the Replay link
opens the game's replay with every secret; the page is accessible and fits a phone.  A server
on a Redis of its own, so the record holds only this test's games."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.web.a11y import assert_accessible
from tests.web.conftest import SERVER_OPTIONS, base_url


@pytest.fixture
def lone_server(start_redis: Callable[..., RedisServer], tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(start_redis().url, tmp_path / "server.log", *SERVER_OPTIONS)
    yield server
    server.stop()


def play_games(url: str, line_ups: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """One finished public 2-seat game per line-up, in order; each one's table and result."""
    played: list[dict[str, Any]] = []

    async def play() -> None:
        lobby = await Lobby.connect(url)
        try:
            for n, names in enumerate(line_ups):
                table = (await lobby.create(2, public=True)).table
                tokens = [(await lobby.join(table, name)).token for name in names]
                seats = [await Seat.sit(url, table, t) for t in tokens]
                try:
                    await lobby.start(table, tokens[0])
                    await asyncio.gather(*(
                        s.play(RandomPolicy(bytes([n, i]) * 4), timeout=120)
                        for i, s in enumerate(seats)
                    ))  # fmt: skip
                    played.append({"table": table, "result": seats[0].view["result"]})
                finally:
                    for seat in seats:
                        await seat.close()
                await asyncio.sleep(0.01)  # (two games never end in the same millisecond)
        finally:
            await lobby.close()

    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(play())
        except BaseException as err:  # (handed to the test)
            failure.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(240)
    assert not worker.is_alive() and not failure, failure
    return played


def test_the_lobby_lists_finished_games_finds_a_player_and_opens_a_replay(
    lone_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    first, second = play_games(lone_server.url, [("Ada", "Ben"), ("Cleo", "Dan")])
    ann = people(base_url(lone_server), "Ann")
    ann.goto("/")
    page = ann.page
    rows = page.locator("#finished-games li[data-table]")
    expect(rows).to_have_count(2)
    assert [rows.nth(i).get_attribute("data-table") for i in range(2)] == [
        second["table"], first["table"],
    ]  # newest first  # fmt: skip
    for row, game in zip((rows.nth(1), rows.nth(0)), (first, second), strict=True):
        text = row.inner_text()
        assert "The murderer was " in text and re.search(r"· [1-9][0-9]* turns ·", text), text
        winners = row.locator(".winner")
        expect(winners).to_have_count(len(game["result"]["winners"]))
        if not game["result"]["winners"]:
            assert "Nobody named the murderer" in text
    page.screenshot(path=str(screenshots / "lobby-finished-games.png"), full_page=True)
    assert_accessible(page, "the lobby with finished games")

    page.fill("#finished-player", "CLEO")
    page.click("#finished-find-button")
    expect(rows).to_have_count(1)
    assert rows.first.get_attribute("data-table") == second["table"]
    page.fill("#finished-player", "nobody here")
    page.click("#finished-find-button")
    expect(page.locator("#finished-games")).to_contain_text(
        "No finished public game with a player named nobody here"
    )
    page.click("#finished-all")
    expect(rows).to_have_count(2)
    # a browser that played as Ada is offered her games
    page.evaluate("() => localStorage.setItem('echoridge.name', JSON.stringify('ada'))")
    ann.goto("/")
    page.click("#finished-mine")
    expect(rows).to_have_count(1)
    assert rows.first.get_attribute("data-table") == first["table"]
    page.click("#finished-all")
    expect(rows).to_have_count(2)

    rows.nth(1).locator("a", has_text="Replay").click()
    expect(page).to_have_url(re.compile(rf"#/replay/{first['table']}\?everyone=1"))
    expect(page.locator("#replay-reveals")).to_have_attribute("data-reveals", "ok", timeout=20_000)

    phone = people(base_url(lone_server), "Phone", viewport={"width": 390, "height": 844})
    phone.goto("/")
    expect(phone.page.locator("#finished-games li[data-table]")).to_have_count(2)
    phone.page.locator("#finished-title").scroll_into_view_if_needed()
    width = phone.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    phone.page.screenshot(path=str(screenshots / "lobby-finished-games-phone.png"))
