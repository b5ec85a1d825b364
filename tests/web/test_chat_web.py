"""The chat panel in Chromium (SPEC.md §6.7, clients/web/js/chat.js): two players and a
spectator chat on a real server; hostile markup is shown as the literal text it is and never
becomes an element or runs; muting a sender hides their lines, and stays muted after a reload;
the spectator reads the table's chat and a player who opts in reads the spectators'."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url
from tests.web.pilot import Person
from tests.web.test_play import create_table

HOSTILE = '<img src=x onerror="window.__pwned=1"> <script>window.__pwned=1</script> <b>bold</b>'


def say(person: Person, text: str) -> None:
    page = person.page
    page.fill("#chat-input", text)
    page.click("#chat-send")
    expect(page.locator("#chat-input")).to_have_value("")  # accepted: the input is cleared


def lines(person: Person) -> Any:
    return person.page.locator("#chat-lines .chat-line:visible .chat-text")


def test_players_and_a_spectator_chat_and_markup_stays_text(
    web_server: ServerProcess, people: Any
) -> None:
    base = base_url(web_server)
    ann, bob, cleo = people(base, "Ann"), people(base, "Bob"), people(base, "Cleo")
    table = create_table(ann, "Ann", 2)
    bob.page.goto(ann.page.input_value("#invite-link"))
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-submit")
    expect(bob.page.locator(".waiting-room")).to_contain_text("You sit in seat P2")
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    ann.page.click("#start-game")  # (the panels, the chat's too, show once the game is on)
    for person in (ann, bob, cleo):
        person.wait_version(1)

    say(ann, "Hello Bob")
    for person in (ann, bob, cleo):
        expect(lines(person)).to_have_text(["Hello Bob"])
    expect(bob.page.locator('#chat-lines [data-sender="seat:0"] .chat-name')).to_have_text("Ann")

    say(bob, HOSTILE)
    for person in (ann, bob, cleo):
        expect(lines(person).last).to_have_text(HOSTILE)  # the literal text, as typed
        found = person.page.evaluate(
            """() => ({
                pwned: window.__pwned,
                elements: document.querySelectorAll('#chat img, #chat script, #chat b').length,
                text: [...document.querySelectorAll('#chat-lines .chat-text')].pop().textContent,
            })"""
        )
        assert found["elements"] == 0 and found["text"] == HOSTILE, found
        assert person.page.evaluate("() => typeof window.__pwned") == "undefined"

    # The spectators' chat: Cleo's line reaches Ann only once she opts in.
    say(cleo, "Go Ann!")
    expect(lines(cleo).last).to_have_text("Go Ann!")
    expect(lines(ann)).to_have_count(2)
    ann.page.check("#chat-spectators")
    expect(lines(ann).last).to_have_text("Go Ann!")
    expect(ann.page.locator('#chat-lines [data-channel="spectators"] .chat-name')).to_have_text(
        "Spectator"
    )
    assert_accessible(ann.page, "a player's page with the chat")
    assert_accessible(cleo.page, "a spectator's page with the chat")

    # Ann mutes Bob: his lines go, those to come too, and a reload keeps him muted.
    ann.page.click('#chat-lines [data-sender="seat:1"] .chat-mute')
    expect(lines(ann)).to_have_text(["Hello Bob", "Go Ann!"])
    say(bob, "can you hear me?")
    expect(lines(cleo).last).to_have_text("can you hear me?")
    expect(ann.page.locator('#chat-lines [data-sender="seat:1"]')).to_have_count(2)  # hidden
    expect(lines(ann)).to_have_text(["Hello Bob", "Go Ann!"])
    ann.page.reload()
    expect(ann.page.locator("#chat-lines .chat-line")).to_have_count(3)  # the welcome's history
    expect(lines(ann)).to_have_text(["Hello Bob"])  # (the opt-in was the old page's)
    expect(ann.page.locator("#chat-muted")).to_contain_text("Unmute Bob")
    ann.page.click("#chat-muted .chat-unmute")
    expect(lines(ann)).to_have_text(["Hello Bob", HOSTILE, "can you hear me?"])
    assert ann.page.evaluate("() => localStorage.getItem('echoridge.muted')") == "{}"
