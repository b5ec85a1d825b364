// fairness.js against SPEC.md §9 and §10's test vectors: the generator, the game seed, the setup
// made from the draws (2 players, and 3 in a co-op game), and SHA-256 without Web Crypto.

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { test } from "node:test";

import { commit, drawBelow, fromHex, gameSeed, salt, setupFromDraws, sha256, toHex } from "../src/fairness.js";
import { hmacSha256Sync, sha256Sync } from "../src/sha256.js";

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const TABLE = "t-001";

test("the generator's test vector (§10)", async () => {
  const draws = [];
  for (let i = 0; i < 8; i++) draws.push(await drawBelow(SEED, TABLE, i, 6));
  assert.deepEqual(draws, [5, 2, 4, 2, 3, 4, 1, 0]);
});

test("the game seed's test vector (§10.1)", async () => {
  const seed = await gameSeed(toHex(SEED), TABLE, ["aa".repeat(16), "bb".repeat(16)]);
  assert.equal(toHex(seed), "c2cf09d14309d28986c89f1dcf8ae823d9f7f586a5c74738c3b851a9638ed014");
});

test("the setup from the draws: §10.1's 2-player vector", async () => {
  const s = await setupFromDraws(SEED, TABLE, 2);
  assert.equal(s.draws.length, 87);
  assert.deepEqual(s.draws.slice(0, 3), [[0, 24, 17], [1, 23, 8], [2, 22, 4]]);
  assert.deepEqual(s.draws.slice(23, 25), [[23, 24, 0], [24, 23, 4]]);
  assert.deepEqual(s.layout.slice(0, 4), ["Union Station", "Crown Casino", "Sawmill Flats", "Ferris Wharf"]);
  assert.equal(s.layout[12], "Police HQ");
  assert.equal(s.layout[24], "Palace Theater");
  assert.deepEqual(s.tokens.slice(0, 2), [{ block: [1, 1], kind: "search", value: 1 }, { block: [3, 1], kind: "stakeout", value: 3 }]);
  assert.equal(s.murderer, "S02");
  assert.deepEqual(s.suspectDeck.join(" "), "S06 S04 S07 S05 S13 S16 S09 S10 S03 S15 S11 S08 S01 S12 S14");
  assert.deepEqual(s.eventDeck.join(" "), "E16 E2 E9 E7 E15 E5 E14 E8 E18 E3 E17 E4 E10 E1 E6 E11 E12 E13");
  assert.equal(s.forceDeck.join(" "), "judges_signature squad_wagon checkpoint rubber_stamp telephoto double_shift tip_line jailhouse_deal code_three judges_signature radio_car tip_line");
  assert.deepEqual(s.abilities, ["quartermaster", "radio_ace"]);
  assert.deepEqual(s.order, [1, 0]);
  assert.deepEqual(s.mobsters, [{ block: [5, 1], color: "blue" }, { block: [3, 5], color: "red" }, { block: [5, 3], color: "gray" }]);
  const murderSalt = await salt(SEED, TABLE, "murderer");
  assert.equal(murderSalt, "407eda605258b815ee2392a32bd17f48");
  assert.equal(await commit("murderer", "S02", murderSalt), "8e8b3c24929f8e7c66f63b4986f5534984b02422767dbd250c8ae31d40b47914");
});

test("the setup from the draws: §10.1's 3-player co-op vector", async () => {
  const s = await setupFromDraws(SEED, TABLE, 3, { coop: true });
  assert.equal(s.draws.length, 91);
  assert.deepEqual(s.abilities, ["radio_ace", "lab_partner", "sharp_eyes"]);
  assert.deepEqual(s.order, [1, 0, 2]);
  assert.deepEqual(s.roles, ["patrol_cop", "analyst", "detective"]);
  assert.deepEqual(s.mobsters, [{ block: [3, 4], color: "blue" }, { block: [1, 4], color: "red" }, { block: [1, 1], color: "red" }]);
});

test("SHA-256 and HMAC in plain JavaScript agree with Web Crypto and node:crypto", async () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 200]) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff);
    const expected = createHash("sha256").update(data).digest("hex");
    assert.equal(toHex(sha256Sync(data)), expected);
    assert.equal(toHex(await sha256(data, { webCrypto: true })), expected);
    const key = data.slice(0, n % 80);
    assert.equal(toHex(hmacSha256Sync(key, data)), createHmac("sha256", key).update(data).digest("hex"));
  }
  assert.deepEqual(fromHex("00ff"), new Uint8Array([0, 255]));
});
