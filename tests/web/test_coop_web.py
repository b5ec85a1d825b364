"""The cooperative game (rules.md §14, issue 16) in Chromium.

A person creates a 2-seat cooperative table in the lobby (the listing shows its mode), a greedy
bot takes the other seat, a spectator watches, and the person plays through the page to the
joint accusation. On the way the page must show what the server sent: each officer's role, its
clue actions and the lead on the mats, the Out-of-Time Marker and the hour cap on the time
track, the team panel (the mobsters out of the game, face-up Suspect cards, the solved traits,
the tokens and Force hands the team knows; the spectator's only the public part), the
teammates' choices in the accusation dialog, the team's result; and its log must word every
entry as the terminal client does (the shared catalog, with the team mark). A second test runs
logtext.js over every entry of simulated co-op games, for every viewer, against logtext.py.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge.simulate import game_seed, play_random
from echoridge_client import logtext
from echoridge_client.logtext import block_names
from echoridge_rules import EVERYONE, SPECTATOR
from echoridge_rules.coopdata import ROLES
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import Status
from echoridge_rules.views import Seat
from tests.e2e.conftest import ServerProcess
from tests.e2e.test_game import frames_before_the_end
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url
from tests.web.logwords import delta_logs, render
from tests.web.pilot import ACTIONS, JSON, Person, play_turn

GAME_SECONDS = 120
# The page's words for the clue actions: the log catalogue's (data.js roleActions), the two
# Bring-in steps as one.
LOG_WORDS = json.loads((Path(logtext.__file__).parent / "logtext.en.json").read_text())
CLUE_WORDS = {
    **LOG_WORDS["values"]["action"],
    "bring_in_1": "Bring in for Holding",
    "bring_in_2": "Bring in for Holding",
}


def create_coop_table(person: Person, name: str, seats: int = 2) -> str:
    page = person.page
    person.goto("/")
    page.fill("#name", name)
    page.select_option("#mode", "cooperative")
    # cooperative needs 2-4 seats: the solo seat count is not offered with it
    expect(page.locator('#seats option[value="1"]')).to_be_disabled()
    page.select_option("#seats", str(seats))
    page.select_option("#bots", "0")
    page.click("#create")
    page.wait_for_selector("#game")
    table = page.get_attribute("#game", "data-table")
    assert table
    return table


def assert_coop_shown(person: Person, view: dict[str, Any], seat: bool) -> None:
    """The mats, the time track and the team panel show the view's co-op facts."""
    page = person.page
    coop = view["coop"]
    assert view["mode"] == "cooperative" and coop is not None
    roles = [p["role"] for p in view["players"]]
    assert sorted(roles) == ["detective", "patrol_cop"], roles
    for p in view["players"]:
        mat = page.locator(f'.mat[data-seat="{p["seat"]}"]')
        expect(mat).to_have_attribute("data-officer-role", p["role"])
        expect(mat.locator(".pill.role")).to_have_text(ROLES[p["role"]].name)
        words = mat.locator("[data-role-actions]").get_attribute("data-role-actions") or ""
        assert set(words.split(", ")) == {CLUE_WORDS[a.value] for a in ROLES[p["role"]].actions}
        expect(mat.locator(".pill.lead")).to_have_count(1 if p["seat"] == coop["lead"] else 0)
        expect(mat.locator("[data-face-up]")).to_have_attribute(
            "data-face-up", ",".join(p["face_up"])
        )
    # the Detective leads, unless a bot plays it: then the person does (ruling 45)
    lead = view["players"][coop["lead"]]
    detective = next(p for p in view["players"] if p["role"] == "detective")
    assert not lead.get("bot") and (detective.get("bot") or lead is detective)
    track = page.locator(".track")
    expect(track.locator("[data-marker]")).to_have_attribute("data-marker", str(coop["marker"]))
    expect(track.locator('[data-space="49"]')).to_have_count(1)
    expect(track.locator(".space.out-of-time")).to_have_count(50 - coop["marker"])
    assert f"Out-of-Time Marker on space {coop['marker']}: the hour cap is {coop['cap']}." in (
        track.get_attribute("aria-label") or ""
    )
    team = page.locator("#team")
    expect(team).to_be_visible()
    facts = team.locator("[data-marker]")
    expect(facts).to_have_attribute("data-marker", str(coop["marker"]))
    expect(facts).to_have_attribute("data-cap", str(coop["cap"]))
    removed = ", ".join(f"{n} {c}" for c, n in coop["removed"].items() if n)
    expect(team.locator("[data-removed]")).to_have_attribute("data-removed", removed)
    expect(team.locator("[data-team-lead]")).to_have_attribute("data-team-lead", str(coop["lead"]))
    solved = sorted(e["evidence"] for e in view["evidence"] if e["trait"])
    shown = team.locator(".team-traits [data-trait]").evaluate_all(
        "els => els.map(e => e.dataset.trait)"
    )
    assert sorted(shown) == solved
    expect(team.locator("[data-team]")).to_have_attribute("data-team", "seat" if seat else "public")
    if seat:
        you = view["you"]
        blocks = view["city"]["blocks"]

        def face_down(t: dict[str, Any]) -> bool:  # a token won or removed since is not listed
            clue = blocks[(t["block"][1] - 1) * 5 + t["block"][0] - 1].get("clue")
            return bool(clue) and clue["kind"] == t["kind"]

        known = [",".join(map(str, t["block"])) for t in you["known_tokens"] if face_down(t)]
        tokens = team.locator(".team-tokens [data-token]")
        expect(tokens).to_have_count(len(known))  # (the page draws a moment after it reads)
        assert tokens.evaluate_all("els => els.map(e => e.dataset.token)") == known
        assert coop["shared_force"] is True  # two officers share one Force hand
        expect(team.locator(".shared-force")).to_have_attribute(
            "data-force", ",".join(you["force"])
        )
        assert all(hand == you["force"] for hand in you["team"]["force"])
    else:
        assert view["you"] is None
        expect(team.locator(".team-tokens, .shared-force, .team-choices")).to_have_count(0)


def assert_dialog_shows_the_team(person: Person, view: dict[str, Any]) -> None:
    """The accusation dialog of a co-op game: each officer's choice so far, the lead's rule."""
    dialog = person.page.locator("dialog#decision")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("The team makes one joint accusation")
    # whose choice stands, in one sentence, with no nested "(bot) (Detective, lead)"
    rule = dialog.locator(".lead-rule")
    expect(rule).to_contain_text("If the choices differ, ")
    mine = view["coop"]["lead"] == view["you"]["seat"]
    expect(rule).to_contain_text("you are the lead (" if mine else " is the lead (")
    assert ") (" not in (rule.text_content() or "")
    items = dialog.locator(".team-choices li")
    expect(items).to_have_count(len(view["players"]))
    # The bots choose while we look: compare the page with the mirror at one and the same version.
    deadline = time.monotonic() + 10
    while True:
        version = person.version
        shown = items.evaluate_all("els => els.map(e => e.dataset.choice)")
        view = person.synced_mirror().view
        choices = view["you"]["team"]["accusations"]
        if person.version == version and shown == [c or "" for c in choices]:
            break
        assert time.monotonic() < deadline, f"the dialog shows {shown}, the view has {choices}"
        person.page.wait_for_timeout(30)
    for seat, choice in enumerate(choices):
        if choice:
            button = dialog.locator(f'.suspect-choice[data-suspect="{choice}"]')
            if seat != view["you"]["seat"]:
                expect(button.locator("[data-team-choice]")).to_have_count(1)


def log_lines_shown(person: Person) -> dict[int, list[str]]:
    rows = person.page.locator("#log li").evaluate_all(
        "els => els.map(e => [e.dataset.version, e.innerText])"
    )
    out: dict[int, list[str]] = defaultdict(list)
    for version, text in rows:
        out[int(version)].append(" ".join(text.split()))
    return out


def assert_log_worded(person: Person) -> set[str]:
    """Every version's lines in the person's log panel are its entries in the shared words
    (logtext.py as the oracle); the kinds of the entries, for the caller."""
    frames = [f for s in person.table_sockets() for f in list(s.received)]
    view = person.synced_mirror().view or {}
    you = view.get("you") or {}
    seat = you.get("seat") if isinstance(you, dict) else None
    coop = view.get("mode") == "cooperative"
    kinds = set()
    want: dict[int, list[str]] = {}
    for version, entries in delta_logs(frames).items():
        whole = any(e["kind"] == "game_ended" for e in entries)
        kinds |= {e["kind"] for e in entries}
        blocks = block_names(view)
        lines = [render(e, view["players"], seat, whole, coop, blocks) for e in entries]
        want[version] = [line for line in lines if line is not None]
    deadline = time.monotonic() + 10
    while True:
        shown = log_lines_shown(person)
        wrong = [v for v in want if shown.get(v, []) != want[v]]
        if not wrong:
            return kinds
        if time.monotonic() > deadline:
            v = wrong[0]
            raise AssertionError(f"{person.name}'s log at {v}: {shown.get(v)} != {want[v]}")
        person.page.wait_for_timeout(100)


def test_a_coop_game_with_a_bot_to_the_joint_accusation(
    web_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    base = base_url(web_server)
    ann = people(base, "Ann")
    cleo = people(base, "Cleo")

    # Ann creates a cooperative table for two; the lobby lists it as cooperative.
    table = create_coop_table(ann, "Ann")
    expect(ann.page.locator("#room-clock")).to_contain_text("Cooperative game")
    cleo.goto("/")
    row = cleo.page.locator(f'#tables tr[data-table="{table}"]')
    expect(row.locator("td.mode")).to_have_attribute("data-mode", "cooperative")
    expect(row.locator("td.mode")).to_have_text("cooperative")
    # a normal bot takes the other seat; Cleo watches from the start
    ann.page.click("#add-bot")
    expect(ann.page.locator("#room-seats")).to_have_text("Every seat is taken: start the game!")
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    ann.page.click("#start-game")
    ann.wait_version(1)
    cleo.wait_version(1)
    ann.wait_state(*ACTIONS, "waiting", timeout=20)

    deadline = time.monotonic() + GAME_SECONDS
    drove = checked = dialog_checked = False
    commands = 0
    while ann.state != "over":
        assert time.monotonic() < deadline, "the co-op game took too long"
        if ann.state not in ACTIONS or ann.game_attr("busy") != "0":
            ann.page.wait_for_timeout(30)
            continue
        view = ann.synced_mirror().view
        assert view is not None
        decision = view["you"]["decision"]
        if not checked and commands >= 4 and not decision:
            checked = True  # Ann's turn: nothing moves until she does
            assert_coop_shown(ann, view, seat=True)
            if find_spec("axe_playwright_python"):
                assert_accessible(ann.page, "a seat's co-op table")
            ann.page.screenshot(path=str(screenshots / "coop-mid-game.png"), full_page=True)
        if decision and decision["kind"] == "accusation" and not dialog_checked:
            dialog_checked = True
            assert_dialog_shows_the_team(ann, view)
            ann.page.screenshot(path=str(screenshots / "coop-accusation.png"))
            if find_spec("axe_playwright_python"):
                assert_accessible(ann.page, "the joint accusation dialog")
        cmd = play_turn(ann, drove)
        if cmd is not None:
            commands += 1
            drove = drove or cmd["type"] == "drive"
    assert checked and dialog_checked, (checked, dialog_checked)
    assert "accusation" in ann.decisions

    # The end: the team's one accusation and its outcome, for the seat and the spectator.
    final = ann.synced_mirror()
    view = final.view
    assert view is not None and view["status"] == "over"
    result = view["result"]
    murderer, joint, choices = result["murderer"], result["team_accusation"], result["accusations"]
    assert joint is not None and all(choices), result
    lead = view["coop"]["lead"]
    assert joint == choices[lead] or len(set(choices)) == 1  # the lead's choice stands
    won = joint == murderer
    assert result["winners"] == ([0, 1] if won else [])
    cleo.wait_version(final.version)
    for person in (ann, cleo):
        panel = person.page.locator(".result")
        expect(panel).to_have_attribute("data-mode", "cooperative")
        expect(panel.locator("[data-team-accusation]")).to_have_attribute(
            "data-team-accusation", joint
        )
        expect(panel.locator("[data-team-result]")).to_have_attribute(
            "data-team-result", "won" if won else "lost"
        )
        expect(panel.locator(".accusations li")).to_have_count(2)
    # the page checks the co-op game's transcript (commitments, salts, seeds, every draw)
    verify = ann.page.locator(".verify")
    expect(verify).to_have_attribute("data-verified", "ok", timeout=30_000)
    ann.page.screenshot(path=str(screenshots / "coop-game-over.png"), full_page=True)

    # Both logs word every entry as the terminal client does; the co-op entries are there.
    kinds = assert_log_worded(ann)
    assert {"game_started", "accused", "game_ended"} <= kinds
    assert_log_worded(cleo)
    start = ann.page.locator('#log li[data-kind="game_started"]')
    expect(start).to_contain_text("The cooperative game begins with 2 officers")
    expect(ann.page.locator('#log li[data-kind="game_ended"]')).to_contain_text("the team accused")
    # the team's accusations were told to the team and marked so (but the last one, in the
    # version that ended the game: that version's entries are whole, for everyone)
    ending = {v for v, e in _entries(ann) if e["kind"] == "game_ended"}
    early = sum(1 for v, e in _entries(ann) if e["kind"] == "accused" and v not in ending)
    assert early >= 1
    expect(ann.page.locator('#log li[data-kind="accused"] .team-mark')).to_have_count(early)
    expect(ann.page.locator("#log .private-mark")).to_have_count(0)
    marker_moves = sum(1 for v, e in _entries(ann) if e["kind"] == "marker_moved")
    expect(ann.page.locator('#log li[data-kind="marker_moved"]')).to_have_count(marker_moves)

    # The spectator saw the public side only: no team secrets before the end (the frames before
    # the one that ended the game: its entries, and everything after, are published).
    frames = _frames(cleo, "spectator")
    before = frames[: len(frames_before_the_end(frames, JSON))]
    redacted = 0
    for frame in before:
        message = json.loads(frame)
        assert '"team"' not in frame  # no you.team, in a view or a delta's path
        for entry in message.get("log") or []:
            if entry.get("kind") in ("token_peeked", "force_gained", "accused"):
                assert not {"value", "card", "suspect", "proof"} & set(entry), entry
                redacted += 1
    assert redacted >= 1


def _frames(person: Person, kind: str) -> list[str]:
    return [f for s in person.sockets if s.kind == kind for f in s.received]


def _entries(person: Person) -> list[tuple[int, dict[str, Any]]]:
    frames = [f for s in person.table_sockets() for f in list(s.received)]
    return [(v, e) for v, entries in sorted(delta_logs(frames).items()) for e in entries]


# --- the log's words, logtext.js against logtext.py ----------------------------------------------

NAMES = [{"name": "Ada"}, {"name": "Bo", "bot": "greedy"}, {"name": "Cy"}, {"name": "Di"}]
WORDS_JS = """async ([cases, players]) => {
    const t = await import('/sdk/logtext.js');
    const text = await t.loadLogText();
    return cases.map(([entry, seat, whole, n, coop]) => {
        const ps = players.slice(0, n);
        const team = coop ? n : 0;
        let line = t.entryText(text, entry, { players: ps, seat, whole });
        if (line === null) return null;
        if (!whole && t.isTeam(entry, seat, team)) line += ' ' + text.team_mark;
        else if (!whole && t.isPrivate(entry, seat, team)) line += ' ' + text.private_mark;
        return line;
    });
}"""


def coop_cases() -> list[tuple[dict[str, Any], int | None, bool, int, bool]]:
    """Every entry of two simulated co-op games (2 and 3 officers) as each seat, a spectator
    and everyone were told it; a solved evidence (random play rarely solves one); a
    competitive entry told to both seats of two (the private mark, not the team's)."""
    cases = []
    for players, game in ((2, 1), (3, 2)):
        for command, events, state in play_random(players, game_seed(16, game), mode="cooperative"):
            said = told(state, command, events)
            over = state.status is Status.OVER
            viewers: list[tuple[Any, int | None]] = [(Seat(s), s) for s in range(players)]
            viewers += [(SPECTATOR, None), (EVERYONE, None)]
            for viewer, seat in viewers:
                whole = over or viewer is EVERYONE
                for entry in entries_for(said, EVERYONE if over else viewer):
                    cases.append((json.loads(json.dumps(entry)), seat, whole, players, True))
    solved = {"kind": "evidence_solved", "seat": 1, "evidence": "gang", "trait": "Blue Bees",
              "proof": "trait/gang"}  # fmt: skip
    cases += [(solved, 0, False, 2, True), (solved, None, False, 2, True)]
    seen = {"kind": "suspect_seen", "seat": 0, "target": 1, "card": "S07", "to": [0, 1]}
    cases += [(seen, 0, False, 2, False), (seen, 1, False, 2, False)]
    return cases


def test_logtext_js_words_coop_entries_as_logtext_py(
    web_server: ServerProcess, people: Any
) -> None:
    ada = people(base_url(web_server), "Ada")
    ada.goto("/")
    ada.page.wait_for_selector("#create-form")
    cases = coop_cases()
    kinds = {c[0]["kind"] for c in cases}
    assert {"game_started", "marker_moved", "evidence_solved", "game_ended", "token_peeked",
            "accused"} <= kinds  # fmt: skip
    got = ada.page.evaluate(WORDS_JS, [cases, NAMES])
    lines = set()
    wrong = []
    for case, line in zip(cases, got, strict=True):
        entry, seat, whole, n, coop = case
        want = render(entry, NAMES[:n], seat, whole, coop)
        if want is None:  # a kind a short log hides (logwords leaves it out, as the panel does)
            continue
        lines.add(want)
        if line is None or " ".join(line.split()) != want:
            wrong.append((case, line, want))
    assert not wrong, wrong[:3]
    assert any(line.endswith("(the team only)") for line in lines)
    assert "Ada saw Bo (bot)'s card Frankie Bellows (only you)" in lines
    assert (
        "Bo (bot) solved the Gang evidence, shown to everyone: the murderer's Gang is Blue Bees"
    ) in lines
    assert any(line.startswith("Penalty: the Out-of-Time Marker moves back to space ")
               for line in lines)  # fmt: skip
    assert any(line.startswith("The cooperative game begins with 3 officers (roles in seat order: ")
               for line in lines)  # fmt: skip
