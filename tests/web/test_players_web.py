"""Players who come back, in the browser (issue 28, SPEC 4.9 and 4.10; clients/web/js/
identity.js, ratings.js, players.js): a first visit's name becomes the browser's identity (a
name someone has, in any case, is refused and another one chosen; given at a table, the player
sits down as a guest and is asked for another); every lobby hello carries the secret, and a
secret the server does not know is forgotten; "Change name"; "Use on another device" moves the
identity to a second browser by its #/claim link, once; after two rated games played through
the SDK as two browsers' identities, the leaderboard, the player page (signed rating changes, a
replay from the player's seat) and the lobby (ratings after names) show the server's numbers.
A server on a Redis of its own, so the handles and ratings are this test's alone."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client.lobby import Lobby
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.e2e.test_identities import play_rated
from tests.web.a11y import assert_accessible
from tests.web.conftest import SERVER_OPTIONS, base_url
from tests.web.pilot import Person
from tests.web.test_play import create_table

T = TypeVar("T")
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def lone_server(start_redis: Callable[..., RedisServer], tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(start_redis().url, tmp_path / "server.log", *SERVER_OPTIONS)
    yield server
    server.stop()


def in_thread(work: Callable[[], Awaitable[T]], seconds: float = 300) -> T:
    """Runs SDK code in a thread of its own (sync Playwright holds this thread's event loop)."""
    done: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            done.append(asyncio.run(work()))  # type: ignore[arg-type]
        except BaseException as err:  # (handed to the test)
            failure.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive() and not failure, failure
    return done[0]


def stored(person: Person) -> dict[str, str] | None:
    """The identity the person's browser keeps (store.js)."""
    text = person.page.evaluate("() => localStorage.getItem('echoridge.identity')")
    return json.loads(text) if text else None


def keep_name(person: Person, name: str) -> None:
    """The lobby's "Your player name" card: choose a name."""
    person.page.fill("#identity-name", name)
    person.page.click("#identity-keep")


def signed_in(person: Person, name: str) -> dict[str, str]:
    """A first visit to the lobby that keeps ``name``; the identity kept."""
    person.goto("/")
    keep_name(person, name)
    expect(person.page.locator("#signed-in")).to_have_text(f"Signed in as {name}")
    kept = stored(person)
    assert kept is not None
    return kept


def lobby_messages(person: Person) -> list[tuple[dict[str, Any] | None, list[dict[str, Any]]]]:
    """Each lobby connection's hello and what it received."""
    return [
        (s.hello(), [json.loads(f) for f in s.received])
        for s in person.sockets
        if s.kind == "lobby"
    ]


def test_a_first_visit_keeps_its_name_and_a_taken_name_asks_for_another(
    lone_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    base = base_url(lone_server)
    ada = people(base, "Ada")
    ada.goto("/")
    expect(ada.page.locator("#identity-form")).to_be_visible()
    expect(ada.page.locator("#tables")).not_to_contain_text("Loading")
    assert_accessible(ada.page, "the lobby of a first visit")
    keep_name(ada, "Ada")
    expect(ada.page.locator("#signed-in")).to_have_text("Signed in as Ada")
    expect(ada.page.locator("#player-status")).to_have_text("You are signed in as Ada.")
    expect(ada.page.locator("#player-title")).to_be_focused()
    kept = stored(ada)
    assert kept is not None and kept["handle"] == "Ada"
    assert re.fullmatch(r"p-[0-9a-f]{16}", kept["id"]) and len(kept["secret"]) >= 16
    expect(ada.page.locator("#name")).to_have_value("Ada")
    expect(ada.page.locator("#name-hint")).to_contain_text("Signed in as Ada.")
    assert_accessible(ada.page, "the lobby signed in")
    ada.page.screenshot(path=str(screenshots / "lobby-signed-in.png"))
    # every lobby connection from now on signs in with the secret, and the server names Ada
    ada.page.reload()
    expect(ada.page.locator("#signed-in")).to_have_text("Signed in as Ada")
    hello, received = lobby_messages(ada)[-1]
    assert hello is not None and hello["identity"] == kept["secret"]
    welcome = next(m for m in received if m["type"] == "welcome")
    assert welcome["identity"] == {"id": kept["id"], "handle": "Ada"}

    # Bea asks for the same name in capitals: it is taken, she chooses another
    bea = people(base, "Bea")
    bea.goto("/")
    keep_name(bea, "ADA")
    status = bea.page.locator("#player-status")
    expect(status).to_have_text("Someone else already plays as “ADA”. Choose another name.")
    expect(bea.page.locator("#identity-name")).to_be_focused()
    assert stored(bea) is None
    bea.page.screenshot(path=str(screenshots / "lobby-name-taken.png"))
    keep_name(bea, "Bea")
    expect(bea.page.locator("#signed-in")).to_have_text("Signed in as Bea")

    # Cleo's first visit creates a table with her name: it becomes her identity
    cleo = people(base, "Cleo")
    first = create_table(cleo, "Cleo", 2)
    expect(cleo.page.locator(".waiting-room")).to_contain_text("You sit in seat P1 as Cleo.")
    assert (stored(cleo) or {}).get("handle") == "Cleo"
    # Dan gives Cleo's name at a table: he sits down as a guest, and the lobby asks again
    dan = people(base, "Dan")
    create_table(dan, "cleo", 2)
    expect(dan.page.locator(".waiting-room")).to_contain_text("You sit in seat P1 as cleo.")
    assert stored(dan) is None
    dan.page.click("header .brand")
    expect(dan.page.locator("#identity-taken")).to_contain_text(
        "Someone else already plays as “cleo”, so you sat down as a guest."
    )

    # signed in, Cleo may still sit down under another name: as a guest, her identity kept
    create_table(cleo, "Cleo's cousin", 2)
    expect(cleo.page.locator(".waiting-room")).to_contain_text("as Cleo's cousin.")
    assert (stored(cleo) or {}).get("handle") == "Cleo"
    guest = cleo.page.get_attribute("#game", "data-table")
    assert guest

    async def seated() -> list[Any]:
        lobby = await Lobby.connect(lone_server.url)
        try:
            return [(await lobby.table(t)).players[0] for t in (first, guest)]  # type: ignore[union-attr]
        finally:
            await lobby.close()

    as_cleo, as_guest = in_thread(seated)
    assert (as_cleo.name, as_cleo.identity) == ("Cleo", (stored(cleo) or {}).get("id"))
    assert (as_guest.name, as_guest.identity) == ("Cleo's cousin", None)

    # Bea changes her name: not to one that is taken
    bea.page.click("#rename")
    expect(bea.page.locator("#rename-name")).to_be_focused()
    bea.page.fill("#rename-name", "CLEO")
    bea.page.click("#rename-save")
    expect(status).to_have_text("Someone else already plays as “CLEO”. Choose another name.")
    bea.page.fill("#rename-name", "Bea Two")
    bea.page.click("#rename-save")
    expect(bea.page.locator("#signed-in")).to_have_text("Signed in as Bea Two")
    expect(bea.page.locator("#player-status")).to_have_text("Your player name is now Bea Two.")
    assert (stored(bea) or {}).get("handle") == "Bea Two"

    # a secret the server does not know (a server whose store was wiped) is forgotten: Eve
    # plays as a guest, and the next name she gives is a new identity
    eve = people(base, "Eve")
    # kept before the page's scripts run, on its first load only (a write just before a reload
    # was once not there after it, on a busy machine)
    eve.page.add_init_script(
        """if (!sessionStorage.getItem('planted')) {
            sessionStorage.setItem('planted', '1');
            localStorage.setItem('echoridge.identity', JSON.stringify(
                {secret: 'A'.repeat(43), id: 'p-0000000000000000', handle: 'Eve'}));
        }"""
    )
    eve.goto("/")
    expect(eve.page.locator("#identity-forgotten")).to_contain_text(
        "This server no longer knows your player name “Eve”"
    )
    assert stored(eve) is None
    keep_name(eve, "Eve")
    expect(eve.page.locator("#signed-in")).to_have_text("Signed in as Eve")


def test_an_identity_moves_to_another_browser_by_its_link_once(
    lone_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    base = base_url(lone_server)
    ada = people(base, "Ada")
    kept = signed_in(ada, "Ada")
    ada.page.click("#transfer")
    code = ada.page.inner_text("#transfer-code")
    link = ada.page.input_value("#transfer-link")
    assert re.fullmatch(r"[A-Za-z0-9_-]{8,64}", code) and link == f"{base}/#/claim/{code}"
    expect(ada.page.locator("#transfer-minutes")).to_have_text("10 minutes")
    assert_accessible(ada.page, "the lobby with a transfer code")
    ada.page.locator("#player-card").screenshot(path=str(screenshots / "lobby-transfer-code.png"))

    bea = people(base, "Bea")
    bea.page.goto(link)
    done = bea.page.locator("#claim-done")
    expect(done).to_have_text("You are now signed in as Ada on this device.")
    expect(bea.page).to_have_url(re.compile(r"#/claim$"))  # a reload does not spend it again
    moved = stored(bea)
    assert moved is not None and (moved["id"], moved["handle"]) == (kept["id"], "Ada")
    assert moved["secret"] != kept["secret"]  # this device's own
    assert_accessible(bea.page, "the claim page")
    bea.page.screenshot(path=str(screenshots / "claim-done.png"))
    bea.page.click("#claim-lobby")
    expect(bea.page.locator("#signed-in")).to_have_text("Signed in as Ada")

    # the link again, in a third browser: the code is used
    cy = people(base, "Cy")
    cy.page.goto(link)
    expect(cy.page.locator("#claim-error")).to_contain_text(
        "That code is unknown, used already or expired."
    )
    assert stored(cy) is None
    # a browser signed in as someone else asks before it changes who it is
    signed_in(cy, "Cy")
    ada.page.click("#transfer")
    expect(ada.page.locator("#transfer-code")).not_to_have_text(code)
    cy.page.goto(ada.page.input_value("#transfer-link"))
    expect(cy.page.locator("#claim-status")).to_have_text("This device is signed in as Cy.")
    expect(cy.page.locator("#claim-keep")).to_have_text("Stay Cy")
    cy.page.click("#claim-confirm")
    expect(cy.page.locator("#claim-done")).to_have_text(
        "You are now signed in as Ada on this device."
    )
    assert (stored(cy) or {}).get("id") == kept["id"]


def test_the_leaderboard_the_player_page_and_ratings_beside_names(
    lone_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    url, base = lone_server.url, base_url(lone_server)
    ada, ben = people(base, "Ada"), people(base, "Ben")
    who = [signed_in(ada, "Ada"), signed_in(ben, "Ben")]

    async def play_two() -> list[str]:
        lobbies = [await Lobby.connect(url, identity=w["secret"]) for w in who]
        try:
            return [(await play_rated(url, order))[0] for order in (lobbies, lobbies[::-1])]
        finally:
            for lobby in lobbies:
                await lobby.close()

    tables = in_thread(play_two)

    # Ada's page, by her handle in any case, once both games are rated (moments after the end)
    page = ada.page
    ada.goto("/#/player/ada")
    rows = page.locator("#player-game-table tbody tr")
    deadline = time.monotonic() + 30
    while rows.count() != 2 or "" in [rows.nth(i).get_attribute("data-change") for i in (0, 1)]:
        assert time.monotonic() < deadline, "the games were not rated within 30 s"
        page.wait_for_timeout(500)
        page.reload()
        expect(page.locator("#player-name")).to_have_text("Ada")

    async def read() -> tuple[Any, Any]:
        lobby = await Lobby.connect(url)
        try:
            return await lobby.player(handle="Ada"), await lobby.leaderboard(limit=100)
        finally:
            await lobby.close()

    mine, board = in_thread(read)
    [rating] = mine.ratings
    expect(page.locator("#player-ratings dd[data-mode='competitive']")).to_contain_text(
        f"{rating.games} rated games"
    )
    shown = page.locator("#player-ratings .rating")
    assert shown.get_attribute("data-rating") == str(rating.rating)
    assert shown.get_attribute("data-provisional") == ("1" if rating.provisional else "0")
    assert [rows.nth(i).get_attribute("data-table") for i in (0, 1)] == tables[::-1]  # newest
    for i, game in enumerate(mine.games):
        row = rows.nth(i)
        [me] = [p for p in game.players if p.identity == who[0]["id"]]
        change = me.rating_change
        assert change is not None and row.get_attribute("data-change") == str(change)
        sign = "+" if change > 0 else "\u2212" if change < 0 else "±"
        expect(row.locator(".change .delta")).to_have_text(f"{sign}{abs(change)}")
        won = me.seat in game.winners
        expect(row.locator("td.result")).to_have_text("Won" if won else "Did not win")
        expect(row.locator("td.with")).to_contain_text("Ben")
        replay = row.locator("a", has_text="Replay")
        assert replay.get_attribute("href") == f"#/replay/{game.table}?seat={me.seat}"
    assert_accessible(page, "a player's page")
    page.screenshot(path=str(screenshots / "player-page.png"), full_page=True)
    # Ben's name links to his page
    rows.first.locator("td.with a", has_text="Ben").click()
    expect(page.locator("#player-name")).to_have_text("Ben")
    expect(page.locator("#player-game-table tbody tr")).to_have_count(2)
    page.go_back()
    expect(page.locator("#player-game-table tbody tr")).to_have_count(2)
    rows.nth(1).locator("a", has_text="Replay").click()
    expect(page).to_have_url(re.compile(rf"#/replay/{tables[0]}\?seat=0$"))
    expect(page.locator("#replay-reveals")).to_have_attribute("data-reveals", "ok", timeout=20_000)

    # the leaderboard: the server's ranks, handles, ratings and games
    page.click("header nav a[href='#/leaderboard']")
    lines = page.locator("#leaderboard tbody tr")
    expect(lines).to_have_count(len(board.players))
    assert {p.handle for p in board.players} == {"Ada", "Ben"}
    for n, line in enumerate(board.players):
        row = lines.nth(n)
        assert row.get_attribute("data-identity") == line.identity
        expect(row.locator("td.rank")).to_have_text(str(line.rank))
        expect(row.locator("th a")).to_have_text(line.handle)
        badge = row.locator(".rating")
        assert badge.get_attribute("data-rating") == str(line.rating)
        assert badge.get_attribute("data-provisional") == ("1" if line.provisional else "0")
        assert badge.inner_text().endswith("?" if line.provisional else str(line.rating))
        if line.provisional:
            assert badge.get_attribute("title") == "provisional rating"
        expect(row.locator("td.games")).to_have_text(str(line.games))
    expect(page.locator("#leaderboard tr.you th")).to_contain_text("Ada (you)")
    assert_accessible(page, "the leaderboard")
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)

    # the lobby and the waiting room: a signed-in seat's rating after its name
    ada.goto("/")
    page.select_option("#seats", "2")
    page.select_option("#bots", "0")
    page.click("#create")
    seat = page.locator("#room-seat-list li[data-seat='0'] .rating")
    expect(seat).to_have_attribute("data-rating", str(rating.rating))
    table = page.get_attribute("#game", "data-table")
    ben.goto("/")
    players = ben.page.locator(f'#tables tr[data-table="{table}"] .players')
    expect(players.locator(".rating")).to_have_attribute("data-rating", str(rating.rating))
    link = players.locator("a", has_text="Ada")
    assert link.get_attribute("href") == f"#/player/Ada?id={who[0]['id']}"
    assert_accessible(ben.page, "the lobby with ratings")
    ben.page.screenshot(path=str(screenshots / "lobby-ratings.png"), full_page=True)

    phone = people(base, "Phone", viewport=PHONE)
    phone.goto("/")
    row = phone.page.locator(f'#tables tr[data-table="{table}"]')
    expect(row.locator(".rating")).to_have_count(1)
    row.scroll_into_view_if_needed()
    phone.page.screenshot(path=str(screenshots / "lobby-ratings-phone.png"))
    phone.goto("/#/player/Ada")
    expect(phone.page.locator("#player-game-table tbody tr")).to_have_count(2)
    assert phone.page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    phone.page.screenshot(path=str(screenshots / "player-page-phone.png"), full_page=True)
    phone.page.click("header nav a[href='#/leaderboard']")
    expect(phone.page.locator("#leaderboard tbody tr")).to_have_count(2)
    assert phone.page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    phone.page.screenshot(path=str(screenshots / "leaderboard-phone.png"))


def test_an_unknown_player_has_no_page(lone_server: ServerProcess, people: Any) -> None:
    kim = people(base_url(lone_server), "Kim")
    kim.goto("/#/player/" + "Nobody%20at%20all")
    expect(kim.page.locator("h1")).to_have_text("There is no such player")
    expect(kim.page.locator("#player-unknown")).to_have_text(
        "Nobody plays as “Nobody at all” on this server."
    )
    kim.goto("/#/leaderboard")
    expect(kim.page.locator("#leaderboard-status")).to_contain_text("Nobody has a rating yet")
