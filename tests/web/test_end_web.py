"""The end of a game in Chromium (issue 25): who named whom, why the winners won (the
tie-break of ``result.decided_by`` in words, with the numbers), each officer's badge, tracker
and Evidence tokens at a glance, the fairness check folded to one line with its details on
demand, and "Rematch" where the server offers it (the feature ``rematch``).

The game is played to its end by the server: Ann sits with a greedy bot, and after her first
move lets the server play her seat ("Play for me", a seat command of ``you.controls``).
The words of every ``decided_by`` are then checked on that real final view, its accusations
and mats set as each case needs, through the page's own module (``panels.js``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, play_turn
from tests.web.test_play import create_table


def name_of(view: dict[str, Any], seat: int, me: int) -> str:
    p = view["players"][seat]
    return "you" if seat == me else f"{p['name']} (bot)" if p["bot"] else p["name"]


def expected_words(view: dict[str, Any], me: int) -> str | None:
    """rules.md §14 in words, from the view: who named the murderer, and the tie-break."""
    r = view["result"]
    players = view["players"]
    right = [s for s, a in enumerate(r["accusations"]) if a and a == r["murderer"]]
    # a server without decided_by: what the accusations alone say
    how = r.get("decided_by") or {0: "nobody", 1: "accusation"}.get(len(right))
    winners = r["winners"]
    order = winners + [s for s in right if s not in winners]
    names = [name_of(view, s, me) for s in right]
    who = "".join(names) if len(names) < 2 else ", ".join(names[:-1]) + " and " + names[-1]
    who = who[:1].upper() + who[1:]
    both = "both named the murderer" if len(right) == 2 else "named the murderer"
    winner = " and ".join(name_of(view, s, me) for s in winners)
    wins = "wins" if len(winners) == 1 and winners[0] != me else "win"

    def score(key: str) -> str:
        values = [
            len(players[s]["evidence"]) if key == "evidence" else players[s][key] for s in order
        ]
        return " to ".join(str(v) for v in values)

    if how == "nobody":
        return "Nobody named the murderer: everyone loses."
    if how == "accusation":
        return f"{winner[:1].upper() + winner[1:]} alone named the murderer, and {wins}."
    if how == "badge":
        return f"{who} {both}; {winner} {wins} on badges: {score('badge')}."
    if how == "tracker":
        return (f"{who} {both}, level on badges; {winner} {wins} with the tracker further back: "
                f"space {score('space')}.")  # fmt: skip
    if how == "evidence":
        return (f"{who} {both}, level on badges and trackers; {winner} {wins} with more "
                f"Evidence tokens: {score('evidence')}.")  # fmt: skip
    if how == "tie":
        return (f"{who} {both} and are level on badges, trackers and Evidence tokens: they "
                "share the win.")  # fmt: skip
    return None


def test_the_end_shows_who_named_whom_and_why_the_winner_won(
    module_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    ann = people(base_url(module_server), "Ann", viewport={"width": 1366, "height": 900})
    page = ann.page
    create_table(ann, "Ann", 2, bots="fill-normal")
    page.click("#start-game")
    ann.wait_state(*ACTIONS, timeout=20)
    assert play_turn(ann, drove=False) is not None
    page.locator('#seat-controls [data-cmd^="play_for_me"]').click()
    ann.wait_state("over", timeout=240)
    view = ann.synced_mirror().view
    assert view is not None and view["status"] == "over"
    me = view["you"]["seat"]
    result = view["result"]

    panel = page.locator(".result")
    expect(panel).to_have_attribute("data-murderer", result["murderer"])
    rows = panel.locator(".standings tbody tr")
    expect(rows).to_have_count(len(view["players"]))
    for p in view["players"]:
        row = panel.locator(f'.standings tr[data-seat="{p["seat"]}"]')
        accused = result["accusations"][p["seat"]]
        expect(row.locator("td.accused")).to_have_attribute("data-accused", accused or "")
        expect(row.locator("td.accused")).to_contain_text(
            "✔ right" if accused == result["murderer"] else "✘ wrong"
        )
        expect(row.locator("[data-badge]")).to_have_attribute("data-badge", str(p["badge"]))
        expect(row.locator("[data-space]")).to_have_text(f"space {p['space']}")
        expect(row.locator("[data-evidence]")).to_have_attribute(
            "data-evidence", str(len(p["evidence"]))
        )
        expect(row.locator(".pill.win")).to_have_count(1 if p["seat"] in result["winners"] else 0)
    want = expected_words(view, me)
    if want is not None and "alone" not in want and not want.startswith("Nobody"):
        expect(panel.locator("#decided-by")).to_have_text(want)
    elif want is not None:  # said by the headline itself, or beside it
        expect(panel).to_contain_text(want)

    # the fairness check: one line, its details on demand
    verify = page.locator(".verify")
    expect(verify).to_have_attribute("data-verified", "ok", timeout=30_000)
    expect(verify.locator("summary")).to_have_text(
        "✓ The deal was fair: every secret and die roll checked"
    )
    expect(verify.locator(".checks")).to_be_hidden()
    box = verify.bounding_box()
    assert box and box["height"] < 80, box  # folded: one line, not a third of the screen
    verify.locator("summary").click()
    expect(verify.locator(".checks")).to_be_visible()
    verify.locator("summary").click()

    # every way a game is decided, in words, on this game's final view
    for how in ("accusation", "badge", "tracker", "evidence", "tie", "nobody"):
        case = copy.deepcopy(view)
        r, players = case["result"], case["players"]
        r["decided_by"] = how
        other = 1 - me
        murderer = r["murderer"]
        innocent = next(s for s in ("S01", "S02", "S03") if s != murderer)
        r["accusations"] = {
            "accusation": [murderer if s == me else innocent for s in (0, 1)],
            "nobody": [innocent, innocent],
        }.get(how, [murderer, murderer])
        r["winners"] = {"nobody": [], "tie": [0, 1]}.get(how, [me])
        players[me].update(badge=6, space=44, evidence=["rank", "gang"])
        players[other].update(badge=4, space=46, evidence=["weapon"])
        if how in ("tracker", "evidence", "tie"):
            players[other]["badge"] = 6
        if how in ("evidence", "tie"):
            players[other]["space"] = 44
        if how == "tie":
            players[other]["evidence"] = ["weapon", "getaway"]
        words = page.evaluate("async (v) => (await import('/js/panels.js')).decidedWords(v)", case)
        assert words == expected_words(case, me), (how, words)

    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshots / "end-screen.png"))

    # the rematch (the server's feature `rematch`): a new table, Ann seated, the bot in its seat
    features = page.evaluate("window.echoridge.session.welcome.features") or []
    assert "rematch" in features
    expect(page.locator("#back-to-lobby")).to_be_visible()
    old = page.get_attribute("#game", "data-table")
    page.click("#rematch")
    page.wait_for_function(
        "(t) => { const g = document.querySelector('#game'); return g && g.dataset.table !== t; }",
        arg=old,
        timeout=15_000,
    )
    new = page.get_attribute("#game", "data-table")
    assert new and new != old
    expect(page.locator(".waiting-room")).to_contain_text("You sit in seat")
    expect(page.locator("#room-seat-list li[data-taken='1']")).to_have_count(2)
    expect(page.locator(".waiting-room")).to_contain_text(view["players"][1 - me]["name"])
    page.screenshot(path=str(screenshots / "rematch.png"))
    # Ann's old page learns of the rematch too: a second look at the old table offers to join it
    ann.goto(f"/#/table/{old}")
    expect(page.locator("#join-rematch")).to_be_visible(timeout=15_000)
    page.click("#join-rematch")
    page.wait_for_function(
        "(t) => { const g = document.querySelector('#game'); return g && g.dataset.table === t; }",
        arg=new,
        timeout=15_000,
    )
    # a spectator of the old table is offered to watch the rematch
    cy = people(base_url(module_server), "Cy")
    cy.goto(f"/#/watch/{old}")
    expect(cy.page.locator("#watch-rematch")).to_be_visible(timeout=15_000)
    expect(cy.page.locator("#watch-rematch")).to_have_attribute("href", f"#/watch/{new}")
