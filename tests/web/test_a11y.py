"""Accessibility, measured with axe-core in Chromium: the lobby, the waiting room, a seat's
table in play (and its decision dialog), a spectator's table; the end of a game is checked by
test_play's whole game. Beside axe: the log is a focusable role="log", the keyboard focus stays
on the page's controls after a command, and the live regions speak only when their words
change ("your turn" assertively)."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")
pytest.importorskip("axe_playwright_python", reason="needs axe-playwright-python (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, play_turn
from tests.web.test_play import create_table


def test_axe_finds_nothing_serious_on_any_page(web_server: ServerProcess, people: Any) -> None:
    base = base_url(web_server)
    ann = people(base, "Ann")
    cleo = people(base, "Cleo")
    ann.goto("/")
    ann.page.wait_for_selector("#create-form")
    expect(ann.page.locator("#tables")).not_to_contain_text("Loading")
    assert_accessible(ann.page, "the lobby")

    table = create_table(ann, "Ann", 3)
    ann.page.click("#add-bot")
    expect(ann.page.locator("#room-seat-list li[data-taken='1']")).to_have_count(2)
    assert_accessible(ann.page, "the waiting room")
    cleo.goto("/")
    expect(cleo.page.locator(f'#tables tr[data-table="{table}"]')).to_have_count(1)
    assert_accessible(cleo.page, "the lobby with a table")
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    assert_accessible(cleo.page, "a spectator's waiting room")

    ann.page.click("#add-bot")
    ann.page.click("#start-game")
    ann.wait_state(*ACTIONS, timeout=20)
    assert_accessible(ann.page, "a seat's table, its turn")
    cleo.wait_version(1)
    assert_accessible(cleo.page, "a spectator's table")
    dialog_seen = False
    for _ in range(40):
        ann.wait_state(*ACTIONS, timeout=30)
        if ann.state == "decide" and not dialog_seen:
            dialog_seen = True
            assert_accessible(ann.page, "a decision dialog")
        assert play_turn(ann, drove=False) is not None
        if dialog_seen:
            break
    assert_accessible(ann.page, "a seat's table later on")
    assert_accessible(cleo.page, "a spectator's table later on")


OBSERVE = """(selectors) => {
    window.rewrites = Object.fromEntries(selectors.map((s) => [s, 0]));
    for (const s of selectors) {
        const el = document.querySelector(s);
        new MutationObserver((records) => { window.rewrites[s] += records.length; })
            .observe(el, {childList: true, characterData: true, subtree: true});
    }
}"""


def test_live_regions_speak_only_of_changes(web_server: ServerProcess, people: Any) -> None:
    base = base_url(web_server)
    ann = people(base, "Ann")
    bob = people(base, "Bob")
    table = create_table(ann, "Ann", 3)
    bob.goto("/")
    expect(bob.page.locator(f'#tables tr[data-table="{table}"]')).to_have_count(1)
    # nothing changes for 6 s: the lobby's list (refreshed every 5 s) and the waiting room's
    # seats and prompt (polled every 2 s) are not written again.  The lobby lists every open
    # table of the test session's Redis, which an earlier test's leftovers (the lobby's repair
    # of them) may change once: a list written again on every refresh fails all three windows.
    for _ in range(3):
        bob.page.evaluate(OBSERVE, ["#tables"])
        ann.page.evaluate(OBSERVE, ["#room-seats", "#room-seat-list", "#prompt"])
        ann.page.wait_for_timeout(6500)
        assert ann.page.evaluate("window.rewrites") == {
            "#room-seats": 0,
            "#room-seat-list": 0,
            "#prompt": 0,
        }
        if bob.page.evaluate("window.rewrites") == {"#tables": 0}:
            break
    else:
        raise AssertionError("the lobby's list was written again in every 6.5 s window")
    # a real change is written
    ann.page.click("#add-bot")
    expect(ann.page.locator("#room-seats")).to_have_text("2 of 3 seats taken.")
    ann.page.click("#add-bot")
    ann.page.click("#start-game")
    ann.wait_state(*ACTIONS, timeout=20)
    # "your turn" is said assertively, once
    alert = ann.page.locator("#turn-alert")
    assert alert.get_attribute("aria-live") == "assertive"
    expect(alert).to_have_text(re.compile(r"^Your (turn|decision)$"))


def test_the_keyboard_keeps_its_place(web_server: ServerProcess, people: Any) -> None:
    kim = people(base_url(web_server), "Kim")
    page = kim.page
    create_table(kim, "Kim", 2, bots="fill-normal")
    # a page change puts the focus on the new page's heading, not the body
    assert page.evaluate("document.activeElement.tagName") == "H1"
    page.focus("#start-game")
    page.keyboard.press("Enter")
    kim.wait_state(*ACTIONS, timeout=20)
    # the waiting room went away with the focused Start button: the focus is on the page (once
    # the page has settled: on a loaded machine that takes a moment)
    on_page = "() => !!document.activeElement.closest('#game, dialog')"
    page.wait_for_function(on_page, timeout=5000)
    # the log is a focusable role="log" that the keyboard scrolls
    log = page.locator("#log")
    assert log.get_attribute("role") == "log" and log.get_attribute("tabindex") == "0"
    for _ in range(3):
        kim.wait_state(*ACTIONS, timeout=30)
        view = kim.synced_mirror().view
        assert view is not None
        if view["you"]["decision"]:
            if not page.locator("dialog#decision").is_visible():
                page.click("#open-decision")
            page.focus("dialog#decision button.cmd")
        else:
            page.focus("#controls button.cmd")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('#game').dataset.busy === '0'")
        # the focus did not fall to the body: it stays on the page
        page.wait_for_function(on_page, timeout=5000)
    page.focus("#log")
    page.evaluate("document.querySelector('#log').scrollTop = 0")
    scrollable = page.evaluate(
        "(() => { const l = document.querySelector('#log'); "
        "return l.scrollHeight > l.clientHeight; })()"
    )
    if scrollable:
        page.keyboard.press("End")
        page.wait_for_function("() => document.querySelector('#log').scrollTop > 0", timeout=3000)


def test_how_to_play_opens_with_a_key_and_a_button(web_server: ServerProcess, people: Any) -> None:
    kim = people(base_url(web_server), "Kim")
    page = kim.page
    kim.goto("/")
    page.wait_for_selector("#create-form")
    page.click("#help-open")
    help = page.locator("dialog#help")
    expect(help).to_be_visible()
    for words in ("A turn", "Actions", "Call for Backup", "On the board"):
        expect(help).to_contain_text(words)
    # the full rules, in the reader's language, published by the server beside the protocol
    expect(help.get_by_role("link", name="the rules of Echo Ridge")).to_have_attribute(
        "href", "/protocol/rules.md"
    )
    assert_accessible(page, "the help dialog")
    page.keyboard.press("Escape")
    expect(help).to_be_hidden()
    expect(page.locator("#help-open")).to_be_focused()  # back where the reader was
    create_table(kim, "Kim", 2, bots="fill-normal")
    page.keyboard.press("?")
    expect(help).to_be_visible()
    help.get_by_role("button", name="Close").click()
    expect(help).to_be_hidden()  # (closing gives the focus back: only then move it)
    page.focus("#invite-link")
    expect(page.locator("#invite-link")).to_be_focused()
    page.keyboard.press("?")  # typing in a field is not a key for the help
    expect(help).to_be_hidden()
    # the board's blocks say what they hold, for the pointer too
    page.click("#start-game")
    kim.wait_state(*ACTIONS, timeout=20)
    title = page.locator('.board [data-block="3,3"] title').first.text_content() or ""
    assert title.startswith("Police HQ")  # the name the board shows, never coordinates
    assert "(3,3)" not in title
