"""The log panel in Chromium: risks and their failures as every viewer is told them, and
players' names (someone else's input) shown as text only, never as markup.

A failed Call for Backup or Stakeout is made likely rather than fixed (the game seed comes from
the server's seed and every seat's, so no test chooses it): two seats take every risk at risk 1
(a die above 1, or a Stakeout token above 1, fails), drive to a mobster by day and to a face-down
Stakeout token by night, until both failures have happened.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client.logtext import block_names
from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.logwords import delta_logs, render, seat_name, wait_panel
from tests.web.pilot import ACTIONS, Person, choose
from tests.web.test_play import create_table, seat_of

GAME_SECONDS = 240


def _block(view: dict[str, Any], block: list[int]) -> dict[str, Any]:
    c, r = block
    return dict(view["city"]["blocks"][(r - 1) * 5 + c - 1])


def _near_mobster(view: dict[str, Any], block: list[int]) -> bool:
    c, r = block
    for dc, dr in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
        if 1 <= c + dc <= 5 and 1 <= r + dr <= 5 and _block(view, [c + dc, r + dr]).get("mobster"):
            return True
    return False


def _face_down_stakeout(view: dict[str, Any], block: list[int]) -> bool:
    clue = _block(view, block).get("clue") or {}
    return clue.get("kind") == "stakeout"


def risky(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Every risk at risk 1; drives to where a risk can be taken (a mobster by day, a Stakeout
    token by night); otherwise the hurried player of pilot.choose."""
    you = view["you"]
    if you.get("decision"):
        return choose(view, legal, True)
    for kind in ("call_for_backup", "stakeout"):
        options = [c for c in legal if c["type"] == kind]
        if options:
            return min(options, key=lambda c: (c["risk"], c.get("night_shift", False)))
    night = (view.get("turn") or {}).get("time") == "night"
    wanted = _face_down_stakeout if night else _near_mobster
    drives = [c for c in legal if c["type"] == "drive" and wanted(view, c["path"][-1])]
    if drives:
        return min(drives, key=lambda c: len(c["path"]))
    for kind in ("proceed", "coffee_break"):
        options = [c for c in legal if c["type"] == kind]
        if options:
            return options[0]
    return choose(view, legal, True)


def play_risky(person: Person) -> dict[str, Any] | None:
    if person.state not in ACTIONS or person.game_attr("busy") != "0":
        return None
    view = person.synced_mirror().view
    assert view is not None
    legal = list((view.get("you") or {}).get("legal") or [])
    if not legal:
        return None
    cmd = risky(view, legal)
    person.do(cmd, view)
    return cmd


def all_entries(person: Person) -> list[tuple[int, dict[str, Any]]]:
    frames = [f for s in person.table_sockets() for f in list(s.received)]
    return [(v, e) for v, entries in sorted(delta_logs(frames).items()) for e in entries]


def test_failed_risks_in_every_viewers_log(web_server: ServerProcess, people: Any) -> None:
    base = base_url(web_server)
    ann = people(base, "Ann")
    bob = people(base, "Bob")
    cleo = people(base, "Cleo")
    table = create_table(ann, "Ann", 2)
    bob.goto(f"/#/table/{table}")
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-submit")
    expect(ann.page.locator("#room-seats")).to_have_text("Every seat is taken: start the game!")
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    ann.page.click("#start-game")
    for person in (ann, bob, cleo):
        person.wait_version(1)
    seats = {seat_of(ann): ann, seat_of(bob): bob}

    backup = stakeout = None  # (version, entry) of the first failure of each
    deadline = time.monotonic() + GAME_SECONDS
    while backup is None or stakeout is None:
        assert time.monotonic() < deadline, "no failed risks in time"
        assert ann.state != "over", "the game ended before both risks failed"
        acted = False
        for person in (ann, bob):
            if play_risky(person) is not None:
                acted = True
        for version, entry in all_entries(cleo):
            if entry["kind"] == "backup_called" and not entry["success"] and backup is None:
                backup = (version, entry)
            if entry["kind"] == "stakeout_failed" and stakeout is None:
                stakeout = (version, entry)
        if not acted:
            ann.page.wait_for_timeout(30)

    # A failed Call for Backup: the seat, the risk, the die and the failure, for everyone.
    version, entry = backup
    for viewer in (ann, bob, cleo):
        lines = wait_panel(viewer, version)
        players = (viewer.synced_mirror().view or {})["players"]
        name = seat_name(players, entry["seat"])
        die = ", ".join(str(d) for d in entry["dice"])
        want = f"{name} called for backup: risk {entry['risk']}, die {die}: failure"
        assert want in lines, (viewer.name, lines)
        item = viewer.page.locator(f'#log li[data-version="{version}"][data-kind="backup_called"]')
        expect(item).to_have_text(want)
        expect(item).to_have_attribute("data-seat", str(entry["seat"]))

    # A failed Stakeout: everyone sees the risk and the failure; only the peeker the value.
    version, failed = stakeout
    peeker = seats[failed["seat"]]
    for viewer in (ann, bob, cleo):
        wait_panel(viewer, version)
        page = viewer.page
        players = (viewer.synced_mirror().view or {})["players"]
        name = seat_name(players, failed["seat"])
        c, r = failed["block"]  # the block by the name the board shows
        block = block_names(viewer.synced_mirror().view)[(r - 1) * 5 + c - 1]
        item = page.locator(f'#log li[data-version="{version}"][data-kind="stakeout_failed"]')
        expect(item).to_have_text(f"{name}'s stakeout on {block}, risk {failed['risk']}: failure")
        peek = page.locator(f'#log li[data-version="{version}"][data-kind="token_peeked"]')
        expect(peek).to_have_count(1)
        text = peek.inner_text()
        peeks = [e for v, e in all_entries(viewer) if e["kind"] == "token_peeked"]
        if viewer is peeker:
            told = next(e for v, e in all_entries(viewer) if v == version and e in peeks)
            assert "value" in told
            value = told["value"]
            assert text == f"{name} looked at the Stakeout token on {block}: {value} (only you)"
            expect(peek.locator(".private-mark")).to_have_text("(only you)")
            expect(peek).to_have_class(re.compile(r"\bprivate\b"))
        else:
            assert text == f"{name} looked at the Stakeout token on {block}", (viewer.name, text)
            mine = seat_of(viewer) if viewer is not cleo else None
            assert all("value" not in e for e in peeks if e["seat"] != mine)
        # each line of that version is the shared wording of what this viewer was told
        seat = (viewer.synced_mirror().view or {}).get("you")
        seat = seat["seat"] if isinstance(seat, dict) else None
        entries = [e for v, e in all_entries(viewer) if v == version]
        blocks = block_names(viewer.synced_mirror().view)
        want = [
            line for e in entries if (line := render(e, players, seat, blocks=blocks)) is not None
        ]
        shown = page.locator(f'#log li[data-version="{version}"]').all_inner_texts()
        assert [" ".join(t.split()) for t in shown] == want


HOSTILE = ["<img src=x onerror=alert(1)>", "<script>window.pwned=1</script>"]


def assert_inert(person: Person, dialogs: list[str]) -> None:
    page = person.page
    assert not dialogs, dialogs
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    assert page.evaluate("document.querySelectorAll('script').length") == 1  # the page's module
    assert page.evaluate("document.querySelectorAll('[onerror], [onload]').length") == 0


def test_names_made_of_markup_stay_text(web_server: ServerProcess, people: Any) -> None:
    base = base_url(web_server)
    mal = people(base, "Mal")
    eve = people(base, "Eve")
    zed = people(base, "Zed")
    dialogs: list[str] = []
    for person in (mal, eve, zed):
        person.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    table = create_table(mal, HOSTILE[0], 3)
    # the lobby lists the table with its players' names, as text
    zed.goto("/")
    row = zed.page.locator(f'#tables tr[data-table="{table}"]')
    expect(row.locator(".players")).to_have_text(HOSTILE[0])
    assert_inert(zed, dialogs)

    eve.goto(f"/#/table/{table}")
    eve.page.fill("#join-name", HOSTILE[1])
    eve.page.click("#join-submit")
    expect(eve.page.locator("#room-seat-list li[data-seat='1']")).to_contain_text(HOSTILE[1])
    expect(eve.page.locator("#room-seat-list li[data-seat='0']")).to_contain_text(HOSTILE[0])
    expect(zed.page.locator(f'#tables tr[data-table="{table}"] .players')).to_have_text(
        f"{HOSTILE[0]}, {HOSTILE[1]}", timeout=10_000
    )
    mal.page.click("#add-bot")
    expect(mal.page.locator("#room-seat-list li[data-seat='2']")).to_contain_text("(bot, normal)")
    for person in (mal, eve, zed):
        assert_inert(person, dialogs)

    zed.goto(f"/#/watch/{table}")
    mal.page.click("#start-game")
    for person in (mal, eve, zed):
        person.wait_version(1)
    # a few moves, so that names are in the log, on the mats and in the turn line
    deadline = time.monotonic() + 60
    moves = 0
    while moves < 6:
        assert time.monotonic() < deadline
        for person in (mal, eve):
            if play_risky(person) is not None:
                moves += 1
        mal.page.wait_for_timeout(30)
    for person in (mal, eve, zed):
        page = person.page
        for seat, name in enumerate(HOSTILE):
            expect(page.locator(f'.mat[data-seat="{seat}"] header')).to_contain_text(name)
            expect(page.locator(f'#log li[data-seat="{seat}"]').first).to_contain_text(name)
        assert_inert(person, dialogs)
