// codec.js against the golden frames (tests/golden/messages): each message's JSON and
// MessagePack decode to the same value, and encoding that value gives both files byte for byte.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  CodecError, decode, decodeJson, decodeMsgpack, encode, encodeJson, encodeMsgpack, packMsgpack, unpackMsgpack,
} from "../src/codec.js";

const GOLDEN = fileURLToPath(new URL("../../../tests/golden/messages/", import.meta.url));
const names = readdirSync(GOLDEN).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();

test("the golden messages are there", () => assert.ok(names.length >= 50, `${names.length} golden messages`));

for (const name of names) {
  test(`golden ${name}: both encodings, byte for byte`, () => {
    const json = readFileSync(`${GOLDEN}${name}.json`, "utf8").trim();
    const msgpack = new Uint8Array(readFileSync(`${GOLDEN}${name}.msgpack`));
    const fromJson = decodeJson(json);
    const fromMsgpack = decodeMsgpack(msgpack);
    assert.deepEqual(fromMsgpack, fromJson);
    assert.deepEqual(Buffer.from(encodeMsgpack(fromJson)), Buffer.from(msgpack));
    assert.equal(encodeJson(fromMsgpack), json);
    assert.deepEqual(decode(encode(fromJson, "echoridge.v2.msgpack"), "echoridge.v2.msgpack"), fromJson);
  });
}

test("integers take their smallest formats, up to ±(2^53−1)", () => {
  const cases = [
    [0, "00"], [127, "7f"], [128, "cc80"], [256, "cd0100"], [65536, "ce00010000"],
    [2 ** 53 - 1, "cf001fffffffffffff"], [-1, "ff"], [-32, "e0"], [-33, "d0df"], [-129, "d1ff7f"],
    [-32769, "d2ffff7fff"], [-(2 ** 53 - 1), "d3ffe0000000000001"],
  ];
  for (const [n, hex] of cases) {
    assert.equal(Buffer.from(packMsgpack(n)).toString("hex"), hex, String(n));
    assert.equal(unpackMsgpack(Buffer.from(hex, "hex")), n);
  }
  assert.throws(() => packMsgpack(2 ** 53), CodecError);
  assert.throws(() => packMsgpack(1.5), CodecError);
  assert.equal(Buffer.from(packMsgpack("x".repeat(32))).toString("hex").slice(0, 4), "d920");
});

test("what SPEC.md §2.2 forbids is refused with its code", () => {
  const refused = (hex, code) => assert.throws(() => decodeMsgpack(Buffer.from(hex, "hex")), (e) => e.code === code, hex);
  refused("81a174cb3ff0000000000000", "protocol/bad_field"); // a float 64
  refused("81a174cf0020000000000000", "protocol/bad_field"); // 2^53
  refused("81a174d40100", "protocol/bad_field"); // an extension type
  refused("8101a178", "protocol/bad_field"); // an int key
  refused("81a174c1", "protocol/malformed"); // 0xc1
  refused("82a17401a17402", "protocol/malformed"); // a key twice
  refused("81a174a2c328", "protocol/malformed"); // not UTF-8
  refused("81a17401c0", "protocol/malformed"); // a byte after the value
  refused("81a174c40101", "protocol/bad_field"); // bin in a field not typed bytes
  refused("91a174", "protocol/malformed"); // not a map
  assert.throws(() => decodeJson("\ufeff{}"), (e) => e.code === "protocol/malformed");
  assert.throws(() => decodeJson("{\"a\":1.5}"), (e) => e.code === "protocol/bad_field");
  assert.throws(() => decode(new Uint8Array([0x80]), "echoridge.v2.json"), (e) => e.code === "protocol/wrong_frame");
  assert.throws(() => decode("{}", "echoridge.v2.msgpack"), (e) => e.code === "protocol/wrong_frame");
});

test("bytes fields: hex in and out, bin on the wire", () => {
  const seed = "00".repeat(15) + "ff";
  const frame = encodeMsgpack({ type: "join", id: "r1", table: "t", name: "A", client_seed: seed });
  assert.ok(Buffer.from(frame).includes(Buffer.from("c410" + seed, "hex")));
  assert.equal(decodeMsgpack(frame).client_seed, seed);
  const asBytes = { type: "join", id: "r1", table: "t", name: "A", client_seed: new Uint8Array(16).fill(7) };
  assert.equal(decodeJson(encodeJson(asBytes)).client_seed, "07".repeat(16));
});
