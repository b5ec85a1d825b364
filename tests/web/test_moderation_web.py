"""Tools against abuse in the browser (issue 28, SPEC.md 4.11 and 6.7; clients/web/js/
moderation.js, report.js, chat.js, lobby.js, players.js): a signed-in player blocks another
from the player's page, and the blocked player's chat lines are hidden at the table (with a
note of how many) and the tables they sit at are marked in the lobby; unblocking from the
table's list of players shows them again; a guest sees no Block nor Report. A player reports
another at a live table (a dialog: reason, optional text with a counter, Escape, the focus
back) once, then is told it was done already; and from a finished game's replay, at the
version shown. Every block and report is checked in the server's store. The other players are
the Python SDK's, on one server for the module."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge.store import Storage
from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess
from tests.e2e.test_identities import play_rated
from tests.e2e.test_moderation import handle
from tests.e2e.test_moderation import signed_in as signed_in_lobby
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url
from tests.web.pilot import Person
from tests.web.test_play import create_table
from tests.web.test_players_web import in_thread, signed_in

PHONE = {"width": 390, "height": 844}


def visible_lines(person: Person) -> Any:
    return person.page.locator("#chat-lines .chat-line:visible .chat-text")


def blocked_by(url: str, secret: str) -> list[str]:
    """The ids the identity of ``secret`` blocks, as the server keeps them."""

    async def read() -> list[str]:
        lobby = await Lobby.connect(url, identity=secret)
        try:
            return [p.id for p in await lobby.blocked()]
        finally:
            await lobby.close()

    return in_thread(read)


def reports_on(redis_url: str, target: str) -> list[Any]:
    async def read() -> list[Any]:
        storage = await Storage.open(redis_url)
        try:
            return list(await storage.moderation.reports(target=target))
        finally:
            await storage.close()

    return in_thread(read)


def chat_kept(redis_url: str, table: str) -> dict[str, list[Any]]:
    async def read() -> dict[str, list[Any]]:
        storage = await Storage.open(redis_url)
        try:
            return await storage.chat.recent(table)
        finally:
            await storage.close()

    return in_thread(read)


@pytest.fixture(scope="module")
def finished_game(module_server: ServerProcess) -> Iterator[dict[str, Any]]:
    """A public game played to its end through the SDK by two signed-in players (Ben seat 0,
    Cy seat 1), begun at once in a thread of its own so that it runs beside the other tests."""
    url = module_server.url
    found: dict[str, Any] = {}

    def run() -> None:
        async def play() -> None:
            lobbies = [
                await signed_in_lobby(url, handle("Ben")),
                await signed_in_lobby(url, handle("Cy")),
            ]
            try:
                found["ids"] = [lobby.identity.id for lobby in lobbies]  # type: ignore[union-attr]
                found["names"] = [lobby.identity.handle for lobby in lobbies]  # type: ignore[union-attr]
                found["table"], found["last"] = await play_rated(url, lobbies)
            finally:
                for lobby in lobbies:
                    await lobby.close()

        try:
            asyncio.run(play())
        except BaseException as err:  # (handed to the test)
            found["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    yield {"worker": worker, "found": found}
    worker.join(200)


def test_blocking_hides_chat_lines_and_marks_tables_and_unblocking_shows_them(
    module_server: ServerProcess,
    redis_server: RedisServer,
    people: Any,
    screenshots: Path,
    finished_game: Any,
) -> None:
    # (finished_game: asked for here so that its game is played meanwhile, for the last test)
    url, base = module_server.url, base_url(module_server)
    ada = people(base, "Ada")
    kept = signed_in(ada, handle("Ada"))
    ben_name = handle("Ben")

    async def a_table_where_ben_and_a_guest_talk() -> tuple[str, str]:
        ben, gil = await signed_in_lobby(url, ben_name), await Lobby.connect(url)
        seats: list[Seat] = []
        try:
            table = (await ben.create(2, public=True)).table
            tokens = [(await ben.join(table, "x")).token, (await gil.join(table, "Gil")).token]
            assert (await ben.start(table, tokens[0])).outcome == "accepted"
            seats += [await Seat.sit(url, table, token) for token in tokens]
            assert (await seats[0].say("hello from Ben")).outcome == "accepted"
            assert (await seats[1].say("hi from Gil")).outcome == "accepted"
            assert ben.identity is not None
            return table, ben.identity.id
        finally:
            for seat in seats:
                await seat.close()
            for lobby in (ben, gil):
                await lobby.close()

    table, ben_id = in_thread(a_table_where_ben_and_a_guest_talk)
    page = ada.page
    ada.goto(f"/#/watch/{table}")
    expect(visible_lines(ada)).to_have_text(["hello from Ben", "hi from Gil"])
    expect(page.locator("#chat-blocked")).to_be_hidden()
    players = page.locator("#seat-clocks")
    expect(players.locator("li[data-seat='0'] .block-button")).to_have_text("Block")
    expect(players.locator("li[data-seat='1'] .block-button")).to_have_count(0)  # a guest

    # Ada blocks Ben from his page: the server keeps it
    ada.goto(f"/#/player/{ben_name}")
    button = page.locator("#block-player")
    expect(button).to_have_text(f"Block {ben_name}")
    button.click()
    expect(page.locator("#player-block-status")).to_have_text(f"{ben_name} is blocked.")
    expect(page.locator("#player-block-words")).to_have_text(
        f"You block {ben_name}: their chat messages are hidden from you, and tables where they sit "
        "are marked in the lobby."
    )
    expect(button).to_have_text(f"Unblock {ben_name}")
    expect(button).to_be_focused()
    assert blocked_by(url, kept["secret"]) == [ben_id]
    assert_accessible(page, "a player's page with Block")
    page.locator("#player-page").screenshot(path=str(screenshots / "moderation-player-block.png"))

    # the lobby, after a reload (a new hello, a new list_blocked): Ben's table is marked
    ada.goto("/")
    page.reload()
    row = page.locator(f'#tables tr[data-table="{table}"]')
    expect(row.locator(".blocked-tag")).to_have_text("Blocked player at this table")
    expect(row).to_have_attribute("data-blocked", "1")
    assert_accessible(page, "the lobby with a blocked player's table")
    row.scroll_into_view_if_needed()
    page.locator(".tables-card").screenshot(path=str(screenshots / "moderation-lobby-tag.png"))

    # at the table Ben's line is hidden, and the chat says so
    ada.goto(f"/#/watch/{table}")
    expect(visible_lines(ada)).to_have_text(["hi from Gil"])
    expect(page.locator("#chat-blocked")).to_have_text("1 message from blocked players hidden")
    seat0 = players.locator("li[data-seat='0']")
    expect(seat0.locator(".blocked-mark")).to_have_text("blocked")
    assert_accessible(page, "a table with a blocked player's chat hidden")
    page.locator(".col-side").screenshot(path=str(screenshots / "moderation-chat-hidden.png"))

    # a guest watching sees every line and no Block nor Report
    guest = people(base, "Guest")
    guest.goto(f"/#/watch/{table}")
    expect(visible_lines(guest)).to_have_text(["hello from Ben", "hi from Gil"])
    expect(guest.page.locator("#seat-clocks li")).to_have_count(2)
    expect(
        guest.page.locator(".block-button, .report-button, #chat-blocked:visible")
    ).to_have_count(0)
    guest.goto(f"/#/player/{ben_name}")
    expect(guest.page.locator("#player-name")).to_have_text(ben_name)
    expect(guest.page.locator("#block-player")).to_have_count(0)

    # unblocking from the table's list of players shows Ben's line again
    unblock = seat0.locator(".block-button")
    expect(unblock).to_have_text("Unblock")
    unblock.click()
    expect(visible_lines(ada)).to_have_text(["hello from Ben", "hi from Gil"])
    expect(page.locator("#chat-blocked")).to_be_hidden()
    expect(seat0.locator(".block-button")).to_have_text("Block")
    expect(seat0.locator(".block-button")).to_be_focused()
    assert blocked_by(url, kept["secret"]) == []
    ada.goto("/")
    expect(page.locator(f'#tables tr[data-table="{table}"] .players')).to_contain_text(ben_name)
    expect(page.locator(f'#tables tr[data-table="{table}"] .blocked-tag')).to_have_count(0)

    # a signed-in spectator's own lines carry its identity (so that others can hide them)
    ada.goto(f"/#/watch/{table}")
    page.fill("#chat-input", "Ada watches")
    page.click("#chat-send")
    expect(page.locator("#chat-input")).to_have_value("")
    said = chat_kept(redis_server.url, table)["spectators"]
    assert [(line.text, line.identity) for line in said] == [("Ada watches", kept["id"])]


def test_a_report_at_a_live_table_is_sent_once(
    module_server: ServerProcess, redis_server: RedisServer, people: Any, screenshots: Path
) -> None:
    url, base = module_server.url, base_url(module_server)
    name = handle("Ann")
    ann = people(base, "Ann")
    kept = signed_in(ann, name)
    table = create_table(ann, name, 2)

    async def ben_sits() -> tuple[str, str]:
        ben = await signed_in_lobby(url, handle("Ben"))
        try:
            await ben.join(table, "x")
            assert ben.identity is not None
            return ben.identity.id, ben.identity.handle
        finally:
            await ben.close()

    ben_id, ben_name = in_thread(ben_sits)
    page = ann.page
    # the waiting room: Ben's seat has Block and Report, Ann's own none
    room = page.locator("#room-seat-list")
    expect(room.locator("li[data-seat='1'] .report-button")).to_have_text("Report")
    mine = room.locator("li[data-seat='0'] .report-button, li[data-seat='0'] .block-button")
    expect(mine).to_have_count(0)
    page.click("#start-game")
    ann.wait_version(1)
    report = page.locator("#seat-clocks li[data-seat='1'] .report-button")
    expect(report).to_have_attribute("aria-label", f"Report {ben_name}")
    expect(page.locator("#seat-clocks li[data-seat='0'] .report-button")).to_have_count(0)

    # by keyboard: Enter opens the dialog, its first reason has the focus, Escape closes it and
    # the focus is back on Report
    report.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#report-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#report-title")).to_have_text(f"Report {ben_name}")
    expect(page.locator("#report-reason-abuse")).to_be_focused()
    assert_accessible(page, "the report dialog")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(report).to_be_focused()

    # sent: the reason, the text and the version looked at are kept by the server
    version = int(ann.game_attr("version") or "-1")
    report.click()
    page.check("#report-reason-abuse")
    page.fill("#report-text", "Insults in the chat\nall game long")
    expect(page.locator("#report-count")).to_have_text("33 of 500 characters")
    page.screenshot(path=str(screenshots / "moderation-report-dialog.png"))
    page.click("#report-send")
    expect(page.locator("#report-done")).to_have_text("Report sent. Thank you.")
    expect(page.locator("#report-close")).to_be_focused()
    page.click("#report-close")
    expect(dialog).to_have_count(0)
    expect(report).to_be_focused()
    [kept_report] = reports_on(redis_server.url, ben_id)
    assert (kept_report.reporter, kept_report.table, kept_report.version) == (
        kept["id"],
        table,
        version,
    )
    assert (kept_report.reason, kept_report.text) == ("abuse", "Insults in the chat all game long")

    # a second report of Ben at this table: already done, and nothing more is kept
    report.click()
    page.check("#report-reason-spam")
    page.click("#report-send")
    expect(page.locator("#report-already")).to_have_text(
        "You have already reported this player for this game."
    )
    page.keyboard.press("Escape")
    expect(report).to_be_focused()
    assert len(reports_on(redis_server.url, ben_id)) == 1


def test_a_report_from_a_finished_game_s_replay_at_a_phone_s_width(
    module_server: ServerProcess,
    redis_server: RedisServer,
    people: Any,
    screenshots: Path,
    finished_game: Any,
) -> None:
    base = base_url(module_server)
    dee = people(base, "Dee", viewport=PHONE)
    kept = signed_in(dee, handle("Dee"))
    finished_game["worker"].join(200)
    found = finished_game["found"]
    assert "error" not in found and "table" in found, found
    table, ids, names = found["table"], found["ids"], found["names"]
    page = dee.page
    dee.goto(f"/#/replay/{table}?v=5")
    expect(page.locator("#replay-status")).to_contain_text("Move 5 of")
    people_row = page.locator("#replay-people")
    expect(people_row).to_contain_text(names[0])
    expect(people_row).to_contain_text(names[1])
    report = people_row.locator(".report-button[data-key='report-1']")
    expect(report).to_have_attribute("aria-label", f"Report {names[1]}")
    report.click()
    expect(page.locator("#report-about")).to_contain_text("(move 5)")
    page.check("#report-reason-cheating")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(screenshots / "moderation-report-dialog-phone.png"))
    page.click("#report-send")
    expect(page.locator("#report-done")).to_have_text("Report sent. Thank you.")
    page.click("#report-close")
    expect(report).to_be_focused()
    [kept_report] = reports_on(redis_server.url, ids[1])
    assert (kept_report.reporter, kept_report.table, kept_report.version) == (kept["id"], table, 5)
    assert (kept_report.reason, kept_report.text) == ("cheating", None)
    assert_accessible(page, "a replay with Block and Report")
    page.screenshot(path=str(screenshots / "moderation-replay-phone.png"))
