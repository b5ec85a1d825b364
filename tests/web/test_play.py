"""Whole games in Chromium, through the pages only: two friends and two bots at one table, a
spectator, a reload mid-game, a server killed mid-game, and a phone played with the keyboard.

Every page's view is compared with the view the server sent it (rebuilt in Python from the
frames the page received), the pages are read for what a person sees, and the spectator's
frames are checked against the secrets published after the game. One of the friends reads
Spanish (his browser's language): his table is read at its moments (his turn, a risk, a
decision, the last moves, the result) for Spanish words and no English ones.
"""

from __future__ import annotations

import json
import re
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client.logtext import block_names
from echoridge_protocol import codec
from tests.e2e.conftest import ServerProcess
from tests.e2e.test_game import frames_before_the_end, leaks
from tests.web.a11y import assert_accessible
from tests.web.conftest import SERVER_OPTIONS, base_url
from tests.web.logwords import action_words, render, results, seat_name, wait_panel
from tests.web.pilot import ACTIONS, JSON, Person, command_key, play_turn

GAME_SECONDS = 150
# The table page's Spanish words (the oracle for what a Spanish page shows).
SPANISH = json.loads(
    (Path(__file__).resolve().parents[2] / "clients/web/locales/es/table.json").read_text()
)
# Common English words that a Spanish table must not show, as whole words (block and suspect
# names are the game's own and have none of them).
ENGLISH = re.compile(
    r"\b(the|The|You|you|your|Your|Drive|Arrest|Turn|turn|Waiting|Search|Stakeout|Evidence"
    r"|Officer|Suspect|nobody|and|Force|Game|Players|day|night|space|risk|success|failure)\b"
)
# The log's words a sender's command shows in each language: the call for backup (risk, die,
# success or failure), the stakeout, the drive.
LOG_SNIPPETS = {
    "en": {"backup": "called for backup: risk {risk}, die ", "ok": ": success", "bad": ": failure",
           "stakeout": "stakeout on", "risk": "risk {risk}: ", "drove": "{name} drove "},
    "es": {"backup": "pidió refuerzos: riesgo {risk}, dado ", "ok": ": éxito", "bad": ": fracaso",
           "stakeout": "Vigilancia de", "risk": "riesgo {risk}: ", "drove": "{name} condujo "},
}  # fmt: skip


def create_table(
    person: Person,
    name: str,
    seats: int,
    bots: str = "0",
    delay: int = 0,
    handover: str = "",
    rate_bots: bool = False,
) -> str:
    page = person.page
    person.goto("/")
    page.fill("#name", name)
    page.select_option("#seats", str(seats))
    page.select_option("#bots", bots)
    if handover:  # the level of the bot that plays a seat handed over (else the form's Normal)
        page.select_option("#handover-bot", handover)
    page.fill("#delay", str(delay))
    if rate_bots:  # "Rated, with its bots as players" (create_table.rate_bots)
        page.check("#rate-bots")
    page.click("#create")
    page.wait_for_selector("#game")
    table = page.get_attribute("#game", "data-table")
    assert table and page.url.endswith(f"#/table/{table}")
    return table


def seat_of(person: Person) -> int:
    view = person.synced_mirror().view
    assert view is not None and view["you"] is not None
    return int(view["you"]["seat"])


def assert_page_shows(person: Person) -> dict[str, Any]:
    """The page's view is the server's view, and the board shows it: every mobster and car."""
    mirror = person.synced_mirror()
    view = mirror.view
    assert view is not None
    assert person.page_view() == view
    page = person.page
    for block in view["city"]["blocks"]:
        c, r = block["block"]
        cell = page.locator(f'.board [data-block="{c},{r}"]')
        assert cell.get_attribute("data-mobster") == (block["mobster"] or "")
        cars = sorted(int(x) for x in cell.locator("[data-car]").evaluate_all(
            "els => els.map(e => e.dataset.car)"))  # fmt: skip
        assert cars == sorted(block["cars"]), f"cars on {c},{r}"
    for stack in view["track"]["stacks"]:
        for seat in stack["seats"]:
            tracker = page.locator(f'.track [data-tracker="{seat}"]')
            assert tracker.get_attribute("data-at") == str(stack["space"])
    return view


def sent_and_results(person: Person) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every command the person's seat sessions sent, with its result."""
    sent = [f for s in person.table_sockets() for f in list(s.sent)]
    received = [f for s in person.table_sockets() for f in list(s.received)]
    return results(sent, received)


def assert_logs_show(players: list[Person], viewers: list[Person], checked: set[int]) -> None:
    """Every viewer's log panel shows, for the version of each command a player sent, that
    version's entries in the shared wording of its language; the sender's shows the command's
    result: who, the action, and for a risk the risk, the die and success or failure."""
    for player in players:
        for cmd, result in sent_and_results(player):
            if result["outcome"] != "accepted" or result["version"] in checked:
                continue
            version = result["version"]
            checked.add(version)
            for viewer in viewers:
                words, said = action_words(viewer.language), LOG_SNIPPETS[viewer.language]
                lines = wait_panel(viewer, version)
                view = viewer.synced_mirror().view or {}
                seat = (player.synced_mirror().view or {})["you"]["seat"]
                name = seat_name(view["players"], seat)
                kind = cmd["type"]
                text = " | ".join(lines)
                if kind in words or kind in ("drive", "rest_case", "accuse", "learn_trait"):
                    assert any(line.startswith(name) for line in lines), (kind, text)
                if kind == "call_for_backup":
                    assert said["backup"].format(risk=cmd["risk"]) in text, text
                    assert said["ok"] in text or said["bad"] in text, text
                elif kind == "stakeout":
                    assert said["stakeout"] in text, text
                    assert said["risk"].format(risk=cmd["risk"]) in text, text
                elif kind == "drive":
                    assert said["drove"].format(name=name) in text, text
                elif kind in words:
                    assert f"{name}: {words[kind]}, " in text, text


def assert_no_english(person: Person, moment: str) -> str:
    """The table as its (Spanish) player sees it has none of the common English words; its
    visible text."""
    text = str(person.page.evaluate("() => document.querySelector('#game').innerText"))
    found = sorted(set(ENGLISH.findall(text)))
    assert not found, f"English on the Spanish table ({moment}): {found}\n{text}"
    return text


def spanish_moments(person: Person, done: set[str], screenshots: Path) -> None:
    """At each moment of the game seen once on the Spanish player's table: his turn, a risk to
    choose, a decision, the last moves; its Spanish words, no English, and screenshots."""
    page = person.page
    state = person.state
    if person.game_attr("busy") != "0":
        return
    if state == "your-turn" and "turn" not in done:
        done.add("turn")
        expect(page.locator("#prompt")).to_contain_text("Tu turno (")
        assert_no_english(person, "turn")
        assert_accessible(page, "a Spanish seat's turn")
        page.screenshot(path=str(screenshots / "es-table-turn.png"), full_page=True)
    elif state == "your-turn" and "risk" not in done and page.locator("fieldset.risk").count():
        done.add("risk")
        legend = page.locator("fieldset.risk legend").first
        expect(legend).to_contain_text(": elige el riesgo")
        assert ("Pedir refuerzos" in legend.inner_text()) or ("Vigilancia" in legend.inner_text())
        assert_no_english(person, "risk")
    elif state == "decide" and "decision" not in done:
        done.add("decision")
        view = person.synced_mirror().view or {}
        kind = view["you"]["decision"]["kind"]
        expect(page.locator("dialog#decision")).to_be_visible()
        expect(page.locator("#decision-title")).to_have_text(SPANISH[f"data.decision.{kind}"])
        assert_no_english(person, f"decision {kind}")
        assert_accessible(page, f"a Spanish seat's decision ({kind})")
        page.screenshot(path=str(screenshots / "es-table-decision.png"))
    if "last" not in done and page.locator("#last-moves .move-group h3").count() >= 2:
        done.add("last")
        expect(page.locator("#last-moves-title")).to_have_text(SPANISH["lastmove.title"])
        titles = page.locator("#last-moves .move-group h3").all_inner_texts()
        assert re.match(r"Turno \d+ \((día|noche)\): ", titles[0]), titles
        assert all(re.match(r"Antes: (Turno \d+ \((día|noche)\): |la preparación)", t)
                   for t in titles[1:]), titles  # fmt: skip
        assert_no_english(person, "last moves")


def game_frames(person: Person, kind: str) -> list[str]:
    return [f for s in person.sockets if s.kind == kind for f in s.received]


def test_two_friends_two_bots_and_a_spectator_play_a_whole_game(
    web_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    base = base_url(web_server)
    ann = people(base, "Ann")
    bob = people(base, "Bob", locale="es-ES")  # reads Spanish
    cleo = people(base, "Cleo", viewport={"width": 1100, "height": 900})

    # Ann creates a table for four, with nobody else yet; her page is the waiting room.
    table = create_table(ann, "Ann", 4)
    invite = ann.page.input_value("#invite-link")
    assert invite == f"{base}/#/table/{table}"
    expect(ann.page.locator("#room-seats")).to_have_text("1 of 4 seats taken.")

    # Bob sees it in the lobby, and opens the link Ann sent him.
    bob.goto("/")
    row = bob.page.locator(f'#tables tr[data-table="{table}"]')
    expect(row).to_contain_text("1 de 4")  # (his lobby speaks Spanish)
    bob.page.screenshot(path=str(screenshots / "lobby.png"), full_page=True)
    bob.page.goto(invite)
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-submit")
    expect(bob.page.locator(".waiting-room")).to_contain_text("P2")
    assert bob.page.evaluate("document.documentElement.lang") == "es"

    # Ann fills the two other seats with bots and starts; Cleo watches from the start.
    expect(ann.page.locator("#room-seats")).to_have_text("2 of 4 seats taken.")
    for _ in range(2):  # bots of the default level, Normal
        ann.page.click("#add-bot")
        expect(ann.page.locator("#room-status")).to_have_text("A normal bot took a seat.")
    expect(ann.page.locator("#room-seats")).to_have_text("Every seat is taken: start the game!")
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    ann.page.click("#start-game")
    for person in (ann, bob, cleo):
        person.wait_version(1)
    assert (seat_of(ann), seat_of(bob)) == (0, 1)
    assert cleo.synced_mirror().view["you"] is None  # type: ignore[index]
    expect(ann.page.locator("#spectator-count")).to_have_text("1 watching", timeout=10_000)

    # They play through their pages until the game is over.
    drove = {ann.name: False, bob.name: False}
    parked: dict[int, list[int]] = {}
    deadline = time.monotonic() + GAME_SECONDS
    reloaded = shot = False
    commands = 0
    logged: set[int] = set()
    spanish: set[str] = set()  # the moments of Bob's Spanish table looked at
    while not all(p.state == "over" for p in (ann, bob)):
        assert time.monotonic() < deadline, "the game took too long"
        acted = False
        ready = ann.state == "your-turn" and ann.game_attr("busy") == "0"
        if commands >= 12 and not shot and ready:
            shot = True
            assert_page_shows(ann)
            ann.page.screenshot(path=str(screenshots / "table-mid-game.png"), full_page=True)
        for person in (ann, bob):
            if person is bob:
                spanish_moments(bob, spanish, screenshots)
            cmd = play_turn(person, drove[person.name])
            if cmd is None:
                continue
            acted = True
            commands += 1
            assert_logs_show([ann, bob], [ann, bob, cleo], logged)
            if cmd["type"] == "drive":
                drove[person.name] = True
                end = cmd["path"][-1]
                me = seat_of(person)
                block = person.page.locator(f'.board [data-block="{end[0]},{end[1]}"]')
                expect(block.locator(f'[data-car="{me}"]')).to_have_count(1)
                parked[me] = end  # these players drive once: the car stays there
            if commands == 16 and not reloaded:
                # Bob reloads his page: it resumes from the version it held.
                reloaded = True
                before = bob.synced_mirror().version
                bob.page.reload()
                bob.page.wait_for_selector("#game")
                bob.wait_version(before)
                # resumed where the page was (mirror() checks it is the version it held)
                welcome = bob.mirror().welcomes[-1]
                assert welcome["resumed"] is True and welcome["version"] >= before
                assert_page_shows(bob)
                for version in sorted(logged):  # the log came back with the page
                    wait_panel(bob, version)
        if not acted:
            ann.page.wait_for_timeout(30)
    assert reloaded and shot
    assert spanish >= {"turn", "risk", "decision", "last"}, spanish

    # Each friend drove, took a risk and answered decisions, all through the page.
    for person in (ann, bob):
        keys = person.sent
        assert any(k.startswith("drive:") for k in keys), keys
        assert any(k.startswith(("call_for_backup:", "stakeout:")) for k in keys), keys
        assert "accusation" in person.decisions and len(person.decisions) >= 2, person.decisions
        # every card seen in a face-down pick was checked against the slot's commitment
        mirror = person.synced_mirror()
        picked = {
            p["value"]
            for p in mirror.view["you"]["proofs"]  # type: ignore[index]
            if p["label"].startswith("look/") and int(p["label"].split("/")[1]) in mirror.deals
        }
        assert bool(picked) == ("slot" in person.decisions)
        for card in picked:
            row = person.page.locator(f'.notebook tr[data-suspect="{card}"]')
            expect(row.locator(".verified")).to_have_count(1)
    final = ann.synced_mirror().version
    for person in (ann, bob, cleo):
        person.wait_version(final)
        expect(person.page.locator(".result")).to_be_visible()
        verify = person.page.locator(".verify")
        expect(verify).to_have_attribute("data-verified", "ok", timeout=30_000)
    view = assert_page_shows(ann)
    assert view["status"] == "over"
    murderer = view["result"]["murderer"]
    expect(cleo.page.locator(".result")).to_have_attribute("data-murderer", murderer)
    expect(cleo.page.locator(".reveal")).to_contain_text("Everything revealed")
    assert cleo.page_view() == cleo.synced_mirror().view
    assert_page_shows(cleo)
    for seat, (c, r) in parked.items():  # the spectator saw the friends' drives
        car = cleo.page.locator(f'.board [data-block="{c},{r}"] [data-car="{seat}"]')
        expect(car).to_have_count(1)
    # Bob's result in Spanish: the headline, the murderer, the standings' words
    result = bob.page.locator(".result")
    expect(result.locator("h2")).to_have_text(SPANISH["result.game_over"])
    expect(result.locator(".murderer")).to_contain_text(
        re.compile(r"^(El asesino era|La asesina era) S\d\d ")
    )
    winners = re.compile(r"^(¡.+!|Nadie nombró al asesino)")
    expect(result.locator(".winners")).to_contain_text(winners)
    expect(result.locator("th").first).to_have_text(SPANISH["result.column.officer"])
    assert_no_english(bob, "result")
    if find_spec("axe_playwright_python"):  # the dev extra; test_a11y says when it is missing
        assert_accessible(ann.page, "a seat's end of the game")
        assert_accessible(cleo.page, "a spectator's end of the game")
        assert_accessible(bob.page, "a Spanish seat's end of the game")
    bob.page.screenshot(path=str(screenshots / "es-table-result.png"), full_page=True)
    ann.page.screenshot(path=str(screenshots / "game-over-seat.png"), full_page=True)
    cleo.page.screenshot(path=str(screenshots / "game-over-reveal.png"), full_page=True)

    # Someone who comes to watch after the game gets the whole log: every entry whole, in
    # its whole words (no "others" form, no private mark), the names of the seats.
    dora = people(base, "Dora")
    dora.goto(f"/#/watch/{table}")
    dora.wait_version(final)
    welcome = next(
        json.loads(f)
        for s in dora.table_sockets()
        for f in s.received
        if json.loads(f).get("type") == "welcome"
    )
    players = welcome["view"]["players"]
    blocks = block_names(welcome["view"])
    whole = [render(e, players, None, True, blocks=blocks) for e in welcome["log"]]
    whole = [line for line in whole if line is not None]
    expect(dora.page.locator("#log li")).to_have_count(len(whole))
    assert [" ".join(t.split()) for t in dora.page.locator("#log li").all_inner_texts()] == whole
    assert dora.page.locator("#log .private-mark").count() == 0
    peeks = [e for e in welcome["log"] if e["kind"] == "token_peeked"]
    assert all("value" in e for e in peeks)

    # The spectator's page offers the transcript; it is the server's, with every secret.
    cleo.page.click(".verify summary")  # the fairness check's details, folded to one line
    with cleo.page.expect_download() as download:
        cleo.page.click("#transcript-link")
    transcript = json.loads(Path(download.value.path()).read_text())
    assert transcript["format"] == "echoridge.transcript.v1" and transcript["table"] == table
    secrets = transcript["final"]["secrets"]
    assert transcript["final"]["result"]["murderer"] == murderer
    for seat, hand in enumerate(secrets["hands"]):
        cell = cleo.page.locator(f'.reveal tr[data-seat="{seat}"] td[data-hand]')
        assert cell.get_attribute("data-hand") == ",".join(hand)

    # The spectator saw every move (its view is the public one) and never a secret.
    spectator = frames_before_the_end(game_frames(cleo, "spectator"), JSON)
    assert len(spectator) >= final
    assert not leaks(spectator, set(), True)
    for socket in cleo.sockets:
        if socket.kind == "lobby":
            before = []
            for frame in socket.received:
                if json.loads(frame).get("type") == "transcript":
                    break
                before.append(codec.decode(frame, JSON, sender="server"))
            assert not leaks(before, set(), True)
    # and each friend's page saw its own secrets only
    for person, seat in ((ann, 0), (bob, 1)):
        allowed = set(secrets["hands"][seat]) | set(secrets["seen"][seat])
        allowed.add(view["result"]["accusations"][seat])  # its own accusation, in its log
        messages = frames_before_the_end(game_frames(person, "seat"), JSON)
        assert not leaks(messages, allowed, False), person.name


def test_a_server_killed_mid_game_the_page_reconnects_and_resumes(
    servers: Any, people: Any
) -> None:
    first = servers(*SERVER_OPTIONS)
    base = base_url(first)
    dan = people(base, "Dan", allow_network_errors=True)
    create_table(dan, "Dan", 2, bots="fill-normal")
    dan.page.click("#start-game")
    for _ in range(4):
        dan.wait_state(*ACTIONS, timeout=20)
        assert play_turn(dan, drove=False) is not None
    before = dan.synced_mirror().version

    first.kill()  # no close frame at all: a dropped connection (1006)
    expect(dan.page.locator("#game")).to_have_attribute("data-connection", "reconnecting")
    expect(dan.page.locator("#connection")).to_have_text("reconnecting…")
    servers(*SERVER_OPTIONS, "--port", str(first.port))  # the same address, a new process
    expect(dan.page.locator("#game")).to_have_attribute("data-connection", "live", timeout=20_000)
    seat_sockets = [s for s in dan.sockets if s.kind == "seat"]
    assert len(seat_sockets) >= 2
    resumed = json.loads(seat_sockets[-1].sent[0])
    assert resumed["resume"]["version"] >= before  # it asked for what it was missing
    assert dan.mirror().welcomes[-1]["resumed"] is True
    # and plays on
    dan.wait_state(*ACTIONS, timeout=20)
    assert play_turn(dan, drove=True) is not None
    assert dan.synced_mirror().version > before
    assert_page_shows(dan)


def test_a_phone_and_a_keyboard_are_enough(
    web_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    kim = people(base_url(web_server), "Kim", viewport={"width": 390, "height": 844})
    page = kim.page
    kim.goto("/")
    page.focus("#name")
    page.keyboard.type("Kim")
    page.keyboard.press("Enter")  # creates a table for four, the other seats with normal bots
    page.wait_for_selector("#start-game")
    tab_to(page, "#start-game")
    page.keyboard.press("Enter")
    kim.wait_state(*ACTIONS, timeout=20)
    for turn in range(3):
        view = kim.synced_mirror().view
        assert view is not None
        legal = view["you"]["legal"]
        if view["you"]["decision"]:
            tab_to(page, "dialog#decision button.cmd")
            page.keyboard.press("Enter")
        elif any(c["type"] == "drive" for c in legal):
            target = tab_to(page, ".board .target")
            assert target.startswith("block-")
            page.keyboard.press("ArrowDown")  # the arrow keys move between the targets
            moved = str(page.evaluate("document.activeElement.dataset.key"))
            assert moved.startswith("block-") and (moved != target or turn > 0)
            focus = page.evaluate(
                "getComputedStyle(document.activeElement.querySelector('.cell')).strokeWidth"
            )
            assert focus == "6px"  # the focused block is drawn with a thick outline
            page.keyboard.press("Enter")
        else:
            # (a Force card that names a block opens a choice of blocks: not one command)
            key = tab_to(page, "#controls button.cmd:not([data-cmd^='play_force'])")
            assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
            sent = page.evaluate("document.activeElement.dataset.cmd")
            assert sent in {command_key(c) for c in legal}, key
            page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('#game').dataset.busy === '0'")
        if turn == 0:
            page.screenshot(path=str(screenshots / "phone-keyboard.png"), full_page=False)
        kim.wait_state(*ACTIONS, timeout=30)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert_page_shows(kim)


def tab_to(page: Any, selector: str, limit: int = 200) -> str:
    """Presses Tab until the focus is on an element matching ``selector``; its data-key."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement?.matches(s)", selector):
            return str(page.evaluate("document.activeElement.dataset.key || ''"))
    raise AssertionError(f"Tab never reached {selector}")
