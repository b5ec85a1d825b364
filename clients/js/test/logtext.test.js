// logtext.js says what the Python renderer (echoridge_client.logtext) says, in English and in
// Spanish (ICU plural and select by the entry's own values), names with right-to-left letters
// isolated: the lines of tests/golden/logtext.json, which tests/clients/test_logtext_vectors.py
// checks against the Python renderer.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { FSI, PDI, entryText, isolate, loadLogText } from "../src/logtext.js";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const GOLDEN = JSON.parse(readFileSync(here("../../../tests/golden/logtext.json"), "utf8"));
const catalogue = (lang) => loadLogText(here(`../../python/echoridge_client/logtext.${lang}.json`));

for (const lang of ["en", "es"]) {
  test(`every golden line in ${lang}`, async () => {
    const text = await catalogue(lang);
    assert.ok(GOLDEN.cases.length > 100);
    const wrong = [];
    for (const c of GOLDEN.cases) {
      const game = GOLDEN.games[c.game];
      const blocks = c.city ? game.city : [];
      const got = entryText(text, c.entry, { players: game.players, seat: c.seat, whole: c.whole, blocks });
      if (got !== c[lang]) wrong.push([c.entry, got, c[lang]]);
    }
    assert.deepEqual(wrong.slice(0, 3), []);
  });
}

test("Spanish plurals and a name inside a sentence", async () => {
  const es = await catalogue("es");
  const players = [{ name: "سارا" }, { name: "Bo" }];
  assert.equal(entryText(es, { kind: "force_deck_shuffled", count: 1 }), "Se barajó el mazo de Fuerza (1 carta)");
  assert.equal(entryText(es, { kind: "force_deck_shuffled", count: 7 }), "Se barajó el mazo de Fuerza (7 cartas)");
  assert.equal(entryText(es, { kind: "game_ended", winners: [0, 1] }, { players }), `La partida ha terminado. Ganan: ${FSI}سارا${PDI}, Bo`);
  assert.equal(entryText(es, { kind: "game_ended", winners: [] }, { players }), "La partida ha terminado. Nadie gana");
  assert.equal(isolate("Ada"), "Ada");
  assert.equal(isolate("مریم"), `${FSI}مریم${PDI}`);
});
