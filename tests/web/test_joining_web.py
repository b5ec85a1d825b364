"""Coming to a table in Chromium (issue 25): the waiting room's chat before the start, an
invite to a started game that says so at once and offers to watch, a confirmation before a
table is closed for everyone, the solo waiting room's words, and the lobby's "Try a game
against bots". One server for the module."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, Person
from tests.web.test_chat_web import lines, say
from tests.web.test_play import create_table


def try_bots(person: Person, name: str) -> str:
    """The lobby's "Try a game against bots": a table with the person and greedy bots,
    started at once; the table's id."""
    page = person.page
    person.goto("/")
    page.fill("#name", name)
    page.click("#try-bots")
    page.wait_for_selector("#game")
    person.wait_state(*ACTIONS, "waiting", timeout=20)
    table = page.get_attribute("#game", "data-table")
    assert table
    return table


def test_the_waiting_room_has_a_chat(module_server: ServerProcess, people: Any) -> None:
    base = base_url(module_server)
    ann, bob = people(base, "Ann"), people(base, "Bob")
    create_table(ann, "Ann", 2)
    bob.page.goto(ann.page.input_value("#invite-link"))
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-submit")
    expect(bob.page.locator(".waiting-room")).to_contain_text("You sit in seat P2 as Bob.")
    for person in (ann, bob):
        expect(person.page.locator(".waiting-room #chat-input")).to_be_visible()
    say(ann, "Ready when you are, Bob")
    say(bob, "Start it!")
    for person in (ann, bob):
        expect(lines(person)).to_have_text(["Ready when you are, Bob", "Start it!"])
        assert person.game_attr("status") == "new"
    # once the game is on, the same chat (with its lines) sits beside the board
    ann.page.click("#start-game")
    for person in (ann, bob):
        person.wait_version(1)
        expect(person.page.locator(".layout #chat")).to_have_count(1)
        expect(lines(person)).to_have_text(["Ready when you are, Bob", "Start it!"])


def test_an_invite_to_a_started_game_says_so_and_offers_to_watch(
    module_server: ServerProcess, people: Any
) -> None:
    base = base_url(module_server)
    ann, carl = people(base, "Ann"), people(base, "Carl")
    table = create_table(ann, "Ann", 2, bots="fill-greedy")
    ann.page.click("#start-game")
    ann.wait_version(1)
    carl.goto(f"/#/table/{table}")
    card = carl.page.locator("#cannot-join")
    expect(card).to_contain_text("already started")
    expect(carl.page.locator("#join-name")).to_have_count(0)  # no name asked for in vain
    expect(carl.page.locator("#watch-instead")).to_be_focused()
    carl.page.click("#watch-instead")
    expect(carl.page.locator("#game")).to_have_attribute("data-state", "spectating")


def test_closing_a_table_asks_first(module_server: ServerProcess, people: Any) -> None:
    base = base_url(module_server)
    ann = people(base, "Ann")
    create_table(ann, "Ann", 3)
    page = ann.page
    confirm = page.locator("#close-confirm")
    expect(confirm).to_be_hidden()
    page.click("#close-table")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("Everyone seated loses their seat")
    expect(page.locator("#close-table")).to_have_attribute("aria-expanded", "true")
    page.click("#close-table-no")  # changed her mind: nothing happens
    expect(confirm).to_be_hidden()
    page.wait_for_timeout(300)
    assert ann.game_attr("connection") == "live"
    expect(page.locator("#room-status")).not_to_contain_text("closed")
    page.click("#close-table")
    page.click("#close-table-yes")
    expect(page.locator("#room-status")).to_have_text("The table is closed.")


def test_the_solo_waiting_room_invites_nobody(module_server: ServerProcess, people: Any) -> None:
    ann = people(base_url(module_server), "Ann")
    create_table(ann, "Ann", 1)
    page = ann.page
    expect(page.locator("#room-solo")).to_be_visible()
    expect(page.locator("#room-solo")).to_contain_text("A solo game")
    expect(page.locator(".waiting-room")).not_to_contain_text("Invite friends", use_inner_text=True)
    expect(page.locator(".waiting-room #chat")).to_be_hidden()
    expect(page.locator("#add-bot")).to_be_hidden()


def test_try_a_game_against_bots(module_server: ServerProcess, people: Any) -> None:
    kim = people(base_url(module_server), "Kim")
    try_bots(kim, "Kim")
    state = kim.wait_state(*ACTIONS, "waiting", timeout=20)
    assert state in (*ACTIONS, "waiting")
    view = kim.synced_mirror().view
    assert view is not None and view["status"] == "playing"
    players = view["players"]
    assert players[view["you"]["seat"]]["name"] == "Kim"
    assert sorted(p["bot"] or "person" for p in players) == ["greedy", "greedy", "person"]
