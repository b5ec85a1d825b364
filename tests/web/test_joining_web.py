"""Coming to a table in Chromium (issue 25): the waiting room's chat before the start, an
invite to a started game that says so at once and offers to watch, a confirmation before a
table is closed for everyone, the solo waiting room's words, bots of each level (Easy, Normal,
Strong) and the level of the bot that plays a seat handed over, and the lobby's "Try a game
against bots". One server for the module."""

from __future__ import annotations

import json
from pathlib import Path
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
    """The lobby's "Try a game against bots": a table with the person and normal bots,
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
    table = create_table(ann, "Ann", 2, bots="fill-normal")
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
    assert sorted(p["bot"] or "person" for p in players) == ["normal", "normal", "person"]


def sent(person: Person, kind: str) -> list[dict[str, Any]]:
    """The messages of this type the person's page sent, on every socket."""
    out = [json.loads(frame) for socket in person.sockets for frame in socket.sent]
    return [message for message in out if message.get("type") == kind]


def listed_bots(person: Person, table: str) -> dict[int, Any]:
    """players[].bot by seat, as the server's latest lobby listing of the table has them."""
    rows = [
        row
        for socket in person.sockets
        for frame in socket.received
        for row in json.loads(frame).get("tables") or []
        if row.get("table") == table
    ]
    return {p["seat"]: p.get("bot") for p in rows[-1]["players"]} if rows else {}


def test_bots_of_each_level_and_the_handover_level(
    module_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    ann = people(base_url(module_server), "Ann")
    page = ann.page
    ann.goto("/")
    # the create form: the bots' level, and the level of the bot that plays a seat handed over
    fill = page.locator("#bots option")
    levels = ("easy", "normal", "strong")
    offered = [f"fill the other seats with {kind} bots" for kind in levels]
    expect(fill).to_have_text(["no bots (invite friends)", *offered])
    expect(page.locator("#bots-hint")).to_contain_text("strong bots think ahead")
    assert page.input_value("#bots") == "fill-normal"
    handover = page.get_by_label("If a player leaves, a bot plays their seat at")
    assert handover.input_value() == "normal"
    expect(handover.locator("option")).to_have_text(["Easy", "Normal", "Strong"])
    table = create_table(ann, "Ann", 4, handover="strong")
    created = sent(ann, "create_table")
    assert created and created[-1]["handover_bot"] == "strong"

    # the waiting room: a level to choose, Normal unless chosen otherwise
    level = page.get_by_label("Bot level")
    words = ["Easy bot — plays loosely", "Normal bot — plays to win"]
    expect(level.locator("option")).to_have_text([*words, "Strong bot — thinks ahead (slower)"])
    assert level.input_value() == "normal"
    seats = page.locator("#room-seat-list li")
    cleo = people(base_url(module_server), "Cleo")
    for seat, kind in enumerate(("easy", "strong", "normal"), start=1):
        level.select_option(kind)
        page.click("#add-bot")
        expect(page.locator("#room-status")).to_have_text(
            f"{'An' if kind == 'easy' else 'A'} {kind} bot took a seat.")  # fmt: skip
        expect(seats.nth(seat)).to_contain_text(f"(bot, {kind})")  # the level beside the bot
        if seat == 2:  # the lobby lists the table (not yet full): each bot with its level
            cleo.goto("/")
            row = cleo.page.locator(f'#tables tr[data-table="{table}"] .players')
            for shown in ("Ann", "(bot, easy)", "(bot, strong)"):
                expect(row).to_contain_text(shown)
    assert [m["kind"] for m in sent(ann, "add_bot")] == ["easy", "strong", "normal"]
    expect(page.locator("#room-seats")).to_have_text("Every seat is taken: start the game!")
    assert listed_bots(ann, table) == {0: None, 1: "easy", 2: "strong", 3: "normal"}
    level.select_option("strong")  # a choice made, for the picture
    page.locator(".waiting-room").screenshot(path=str(screenshots / "bot-levels-room.png"))
    cleo.page.locator("#create-form").screenshot(path=str(screenshots / "bot-levels-create.png"))
