"""The log's words in both languages as the Python renderer (echoridge_client.logtext) says
them, kept in tests/golden/logtext.json so that the JavaScript SDK's renderer
(clients/js/test/logtext.test.js) is checked against the same lines: entries of a competitive
and a co-op game as a seat, a spectator and the whole log sees them, one or two per template,
with an Arabic, a Persian and a bot's name.  After changing a catalogue, the engine's entries or
the renderer, regenerate the file with ``python tests/clients/test_logtext_vectors.py`` and
review the diff."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from echoridge.simulate import COMPETITIVE, COOPERATIVE, game_seed, play_random
from echoridge_client.logtext import block_names, catalog, render, seat_names
from echoridge_rules import EVERYONE, SPECTATOR, view
from echoridge_rules.log import entries_for, told
from echoridge_rules.views import Seat

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "logtext.json"
PLAYERS = [{"name": "سارا"}, {"name": "Bo", "bot": "greedy"}, {"name": "مریم"}, {"name": "Ana"}]
GAMES = [(COMPETITIVE, 2, 40), (COMPETITIVE, 3, 41), (COMPETITIVE, 4, 42), (COOPERATIVE, 3, 43),
         (COOPERATIVE, 4, 44), (COMPETITIVE, 3, 45), (COOPERATIVE, 2, 46)]  # fmt: skip
PER_TEMPLATE = 2


def cases() -> tuple[list[list[str]], list[dict[str, Any]]]:
    """The games' cities (block names) and the cases: an entry as a seat (or None: a
    spectator, or the whole log) sees it, in game ``game``'s city once drawn (``city``)."""
    out: list[dict[str, Any]] = []
    cities: list[list[str]] = []
    seen: Counter[tuple[str, str | None]] = Counter()
    for game, (mode, players, seed) in enumerate(GAMES):
        coop = mode == COOPERATIVE
        names = seat_names(PLAYERS[:players])
        cities.append([])
        for command, events, state in play_random(players, game_seed(seed, players), mode=mode):
            blocks = block_names(view(state, SPECTATOR))
            cities[game] = cities[game] or blocks
            said = told(state, command, events)
            for viewer, seat, whole in ((Seat(0), 0, False), (SPECTATOR, None, False),
                                        (EVERYONE, None, True)):  # fmt: skip
                for entry in entries_for(said, viewer):
                    entry = json.loads(json.dumps(entry))
                    key = catalog("es").key(entry, seat, whole)
                    if seen[(key or "", str(seat))] >= PER_TEMPLATE:
                        continue
                    seen[(key or "", str(seat))] += 1
                    said_as = {"whole": whole, "coop": coop, "blocks": blocks, "mark": False}
                    lines = {lang: render(entry, names, seat, language=lang, **said_as)
                             for lang in ("en", "es")}  # fmt: skip
                    out.append({"game": game, "city": bool(blocks), "entry": entry,
                                "seat": seat, "whole": whole, **lines})  # fmt: skip
    # Words the random games seldom reach: HQ (named "Police HQ" in the view) on a path, and the
    # murderer's traits (English names on the wire), in the first game's city.
    names, blocks = seat_names(PLAYERS[:2]), cities[0]
    hq = blocks.index("Police HQ")
    at_hq = [hq % 5 + 1, hq // 5 + 1]
    made = [
        {"kind": "car_driven", "seat": 1, "path": [[at_hq[0], at_hq[1] - 1], at_hq], "hours": 2},
        {"kind": "trait_learned", "seat": 0, "evidence": "gang", "trait": "Red Rhinos", "to": [0]},
        {"kind": "evidence_solved", "seat": 1, "evidence": "weapon", "trait": "Knife"},
    ]
    for entry in made:
        said_as = {"whole": False, "coop": False, "blocks": blocks, "mark": False}
        lines = {lang: render(entry, names, 0, language=lang, **said_as) for lang in ("en", "es")}
        out.append({"game": 0, "city": True, "entry": entry, "seat": 0, "whole": False, **lines})
    return cities, out


def document() -> dict[str, Any]:
    cities, found = cases()
    games = [{"mode": mode, "players": PLAYERS[:n], "city": city}
             for (mode, n, _), city in zip(GAMES, cities, strict=True)]  # fmt: skip
    return {"_about": " ".join(__doc__.split()), "games": games, "cases": found}


def test_the_golden_lines_are_the_python_renderers() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    fresh = document()
    assert golden["games"] == fresh["games"], "regenerate: python " + __file__
    assert len(golden["cases"]) == len(fresh["cases"]), "regenerate: python " + __file__
    for old, new in zip(golden["cases"], fresh["cases"], strict=True):
        assert old == new, "regenerate: python " + __file__


def test_the_cases_cover_the_spanish_plurals_selects_and_isolated_names() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]
    es = catalog("es")
    keys = {es.key(c["entry"], c["seat"], c["whole"]) for c in golden}
    icu = {k for k in keys if k and ("plural," in es.entries[k] or "select," in es.entries[k])}
    assert len(keys) > 50 and len(icu) >= 15, (len(keys), len(icu))
    assert any("\u2068سارا\u2069" in c["es"] for c in golden)
    assert any("\u2068مریم\u2069" in c["en"] for c in golden)
    # HQ and the traits in Spanish words, never the English names the view and the log carry
    assert any("Comisaría" in c["es"] for c in golden)
    assert any("Rinocerontes Rojos" in c["es"] for c in golden)
    english = ("Police HQ", "Red Rhinos", "Blue Bees", "Fingerprints", "Shoeprints", "Knife")
    assert not [c["es"] for c in golden if any(word in c["es"] for word in english)]


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(document(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    sys.exit(0)
