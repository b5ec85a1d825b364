"""The browser's log catalogue reader (clients/web/js/logtext.js) says what the terminal's
(echoridge_client.logtext) says: blocks by their names in the city, the reasons of
``you.unavailable`` and the Event cards in words (issue 25: one catalogue for both clients), in
English and in Spanish (/logtext.es.json: plural and select)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from echoridge.simulate import game_seed, play_random
from echoridge_client.logtext import block_names, catalog, render
from echoridge_rules import EVERYONE, SPECTATOR, view
from echoridge_rules.carddata import EVENTS
from echoridge_rules.log import entries_for, told
from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url

NAMES = [{"name": "Ada"}, {"name": "Bo", "bot": "greedy"}, {"name": "Cy"}]
SAID = ["Ada", "Bo (bot)", "Cy"]
WORDS_JS = """async ([cases, players, reasons, cards, lang]) => {
    const t = await import('/sdk/logtext.js');
    const text = await t.loadLogText(t.logTextURL(lang));
    return {
        lines: cases.map(([entry, blocks]) =>
            t.entryText(text, entry, { players, whole: true, blocks })),
        reasons: reasons.map(([action, code]) => t.reasonText(text, action, code, "?")),
        events: cards.map((card) => t.eventWords(text, card)),
    };
}"""


def cases() -> list[tuple[dict[str, Any], list[str]]]:
    """Every entry naming a block or a path in a 3-seat game, whole, with the city's names."""
    out = []
    for command, events, state in play_random(3, game_seed(25, 2)):
        blocks = block_names(view(state, SPECTATOR))
        for entry in entries_for(told(state, command, events), EVERYONE):
            if "block" in entry or "path" in entry:
                out.append((json.loads(json.dumps(entry)), blocks))
    return out


@pytest.mark.parametrize("lang", ["en", "es"])
def test_logtext_js_words_blocks_reasons_and_events_as_logtext_py(
    module_server: ServerProcess, people: Any, lang: str
) -> None:
    ada = people(base_url(module_server), "Ada")
    ada.goto("/")
    ada.page.wait_for_selector("#create-form")
    entries = cases()
    reasons = [("stakeout", "rules/wrong_time_of_day"), ("arrest", "rules/no_mobster_here"),
               ("arrest", "rules/nothing_like_it")]  # fmt: skip
    got = ada.page.evaluate(WORDS_JS, [entries, NAMES, reasons, sorted(EVENTS), lang])
    text = catalog(lang)
    wrong = [
        (entry, line)
        for (entry, blocks), line in zip(entries, got["lines"], strict=True)
        if line != render(entry, SAID, None, whole=True, mark=False, blocks=blocks, language=lang)
    ]
    assert len(entries) > 20 and not wrong, wrong[:3]
    assert not any(re.search(r"\(\d,\d\)", line) for line in got["lines"])  # no coordinates
    assert got["reasons"] == [text.reason(a, c, "?") for a, c in reasons]
    assert got["events"] == [text.event(card) for card in sorted(EVENTS)]
