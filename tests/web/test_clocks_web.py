"""Clocks, absence and handover in Chromium (SPEC.md §4.2, §4.4, §6.6; clients/web/js/clocks.js)
on a real server with a short custom clock: the turn countdown shows and counts down, "More
time" extends it; a player whose page is closed shows as away, then with a handover countdown,
then as played by the server; reopening the page takes the seat back. The creator removes a
player in the waiting room and closes the table; the lobby lists each table's clock."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url
from tests.web.pilot import Person

OPTIONS = ("--clock-floor", "1", "--decision-timeout", "0", "--bot-delay", "0.1")
CLOCK = {"turn": 8, "bank": 30, "decision": 0, "grace": 6, "strikes": 0}


@pytest.fixture
def clock_server(servers: Callable[..., ServerProcess]) -> ServerProcess:
    return servers(*OPTIONS)


def create(person: Person, name: str, seats: int, clock: str | dict[str, int]) -> str:
    """Create a table through the lobby form with that clock (a preset, or custom values)."""
    page = person.page
    person.goto("/")
    page.fill("#name", name)
    page.select_option("#seats", str(seats))
    page.select_option("#bots", "0")
    if isinstance(clock, str):
        page.select_option("#clock", clock)
    else:
        page.select_option("#clock", "custom")
        expect(page.locator("#clock-custom")).to_be_visible()
        for field, value in clock.items():
            page.fill(f"#clock-{field}", str(value))
    page.click("#create")
    page.wait_for_selector("#game")
    table = page.get_attribute("#game", "data-table")
    assert table
    return table


def join(person: Person, table: str, name: str) -> None:
    person.goto(f"/#/table/{table}")
    person.page.fill("#join-name", name)
    person.page.click("#join-submit")
    expect(person.page.locator(".waiting-room")).to_contain_text("You sit in seat P")


def seconds(text: str | None) -> int:
    """A countdown's m:ss in seconds."""
    match = re.fullmatch(r"(\d+):(\d\d)", (text or "").strip())
    assert match, text
    return int(match[1]) * 60 + int(match[2])


def reopen(person: Person, path: str) -> None:
    """A new tab in the person's browser (the old one was closed), recorded like the first."""
    page = person.context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda exc: person.errors.append(f"uncaught: {exc}"))
    page.on("console", person._console)
    page.on("websocket", person._websocket)
    person.page = page
    person.sockets.clear()
    person.goto(path)


def seat_row(person: Person, seat: int) -> Any:
    return person.page.locator(f'#seat-clocks li[data-seat="{seat}"]')


def test_countdowns_more_time_away_handover_and_taking_the_seat_back(
    clock_server: ServerProcess, people: Any
) -> None:
    base = base_url(clock_server)
    ann, bob = people(base, "Ann"), people(base, "Bob")
    table = create(ann, "Ann", 2, CLOCK)
    join(bob, table, "Bob")
    expect(ann.page.locator("#room-clock")).to_contain_text("Custom: 8 s a turn")
    ann.page.click("#start-game")
    for person in (ann, bob):
        person.wait_version(1)
        expect(person.page.locator("#seat-clocks li")).to_have_count(2)
        expect(person.page.locator("#seat-clocks .bank")).to_have_count(2)  # a turn clock: banks

    # The turn clock of the active seat counts down, on both pages.
    turn = ann.page.locator('#seat-clocks [data-clock-kind="turn"] .left')
    expect(turn).to_be_visible(timeout=10_000)
    first = turn.text_content()
    expect(turn).not_to_have_text(first or "", timeout=5_000)

    # "More time" on the mover's page moves time from the bank to the turn.
    more = '#seat-controls [data-cmd="extend_time"]'
    deadline = time.monotonic() + 30
    mover = None
    while mover is None:
        assert time.monotonic() < deadline, "nobody was offered More time"
        for person in (ann, bob):
            mine = person.page.locator(more)
            left = person.page.locator('#seat-clocks [data-clock-kind="turn"] .left')
            if mine.is_visible() and left.count() and seconds(left.text_content()) >= 4:
                mover = person
                break
        else:
            ann.page.wait_for_timeout(100)
    left = mover.page.locator('#seat-clocks [data-clock-kind="turn"] .left')
    before = seconds(left.text_content())
    mover.page.click(more)
    mover.page.wait_for_function(
        """(before) => {
            const el = document.querySelector('#seat-clocks [data-clock-kind="turn"] .left');
            if (!el) return false;
            const [m, s] = el.textContent.split(':').map(Number);
            return m * 60 + s > before + 3;
        }""",
        arg=before,
        timeout=5_000,
    )
    assert "Refused" not in mover.notice()
    expect(mover.page.locator(more)).to_be_hidden()  # once a turn

    # Bob closes his page: Ann sees him away, a handover countdown (and a vote), then the
    # server plays his seat.
    mirror = bob.synced_mirror()
    bob_seat = int(mirror.view["you"]["seat"])  # type: ignore[index]
    bob.page.close()
    row = seat_row(ann, bob_seat)
    expect(row).to_have_attribute("data-away", "1", timeout=10_000)
    expect(row.locator(".mark.away")).to_contain_text("away since")
    handover = row.locator('[data-clock-kind="handover"]')
    expect(handover).to_be_visible(timeout=5_000)
    expect(handover).to_contain_text("handover in")
    expect(ann.page.locator("#seat-controls")).to_contain_text(
        "Vote: let the server play for Bob", timeout=5_000
    )
    assert_accessible(ann.page, "a table with clocks, an away player and a vote")
    expect(row).to_have_attribute("data-auto", "away", timeout=15_000)
    expect(row.locator(".mark.auto")).to_have_text("played by the server (away too long)")
    expect(ann.page.locator("#log")).to_contain_text(
        "The server plays for Bob until they take the seat back (away too long)"
    )

    # Bob comes back: the seat is his again, and the marker goes.
    reopen(bob, f"/#/table/{table}")
    bob.page.click("#resume-seat")
    handed = ann.page.locator("#log li", has_text="(away too long)")
    taken = ann.page.locator("#log li", has_text="Bob is back and plays again")
    expect(taken).to_have_count(1, timeout=15_000)
    ann.page.wait_for_timeout(1_500)  # the seat stays his: it is not handed over again
    expect(handed).to_have_count(1)
    expect(row).to_have_attribute("data-auto", "", timeout=10_000)
    # (a turn of his that timed out meanwhile is still the server's to finish)
    expect(row.locator('.mark.auto[data-auto="away"]')).to_have_count(0)
    expect(row).to_have_attribute("data-away", "0", timeout=10_000)
    expect(ann.page.locator("#log")).to_contain_text("more from their time bank")
    mine = seat_row(bob, bob_seat)
    expect(mine.locator('.mark.auto[data-auto="away"]')).to_have_count(0, timeout=10_000)
    expect(mine).to_contain_text("P2 Bob (you)" if bob_seat == 1 else "P1 Bob (you)")


def test_the_creator_removes_a_player_and_closes_the_table(
    clock_server: ServerProcess, people: Any
) -> None:
    base = base_url(clock_server)
    ann, bob, cleo = people(base, "Ann"), people(base, "Bob"), people(base, "Cleo")
    table = create(ann, "Ann", 3, "live")
    join(bob, table, "Bob")
    cleo.goto("/")
    listed = cleo.page.locator(f'#tables tr[data-table="{table}"] .clock-words')
    expect(listed).to_contain_text("Live: 90 s a turn, 10 min bank")

    remove = ann.page.locator('#room-seat-list [data-remove-seat="1"]')
    expect(remove).to_have_text("Remove Bob")
    expect(ann.page.locator('#room-seat-list [data-remove-seat="0"]')).to_have_count(0)
    expect(bob.page.locator("#close-table")).to_have_count(0)  # Bob did not create it
    assert_accessible(ann.page, "the creator's waiting room")
    remove.click()
    expect(ann.page.locator("#room-status")).to_have_text("The player of P2 was removed.")
    expect(ann.page.locator('#room-seat-list li[data-seat="1"]')).to_have_attribute(
        "data-taken", "0", timeout=10_000
    )
    expect(bob.page.locator(".alarm")).to_contain_text("not yours any more", timeout=10_000)

    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    ann.page.click("#close-table")
    ann.page.click("#close-table-yes")  # it asks first
    for person in (ann, cleo):
        expect(person.page.locator(".alarm")).to_contain_text(
            "This table was closed: by its creator, or because its game", timeout=10_000
        )
    cleo.goto("/")
    expect(cleo.page.locator("#tables")).not_to_contain_text("Loading")
    expect(cleo.page.locator(f'#tables tr[data-table="{table}"]')).to_have_count(0)
    ann.goto("/")
    expect(ann.page.locator(f'[data-table="{table}"]')).to_have_count(0)  # forgotten
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator(".alarm")).to_contain_text("closed: by its creator")
