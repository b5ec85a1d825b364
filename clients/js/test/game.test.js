// A whole game against a real server, with the package alone: a seat (MessagePack) plays random
// legal commands against a server bot while a spectator (JSON) watches; the seat's connection is
// dropped once mid-game and resumes; at the end both mirrors agree with the transcript, which
// verifies (SPEC.md §9.4), and every log entry reads in words (the shared catalogue).
//
// ECHORIDGE_URL names the server's websocket (ws://HOST:PORT/ws); without it the test skips
// (tests/js/test_js_package.py starts a server and sets it). Node 20: --experimental-websocket.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Refused, openSession } from "../src/connection.js";
import { verifyTranscript } from "../src/fairness.js";
import { entryText, isHidden, loadLogText } from "../src/logtext.js";
import { TableSession } from "../src/session.js";

const URL_ = process.env.ECHORIDGE_URL;
const CATALOGUE = fileURLToPath(new URL("../../python/echoridge_client/logtext.en.json", import.meta.url));
const skip = !URL_ ? "set ECHORIDGE_URL=ws://HOST:PORT/ws (tests/js/test_js_package.py does)" : !globalThis.WebSocket ? "no WebSocket: node --experimental-websocket" : false;

// A small seeded generator, so that a failing game can be played again.
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

async function lobbyRequest(connection, message) {
  const reply = await connection.request(message, 60);
  if (reply.type === "result" && reply.outcome === "rejected") throw new Refused(reply.code, reply.message);
  return reply;
}

test("a whole game: play, drop and resume, verify the transcript", { skip, timeout: 300_000 }, async () => {
  const [lobby] = await openSession(URL_, {}, { onMessage() {}, onClose() {} });
  try {
    const created = await lobbyRequest(lobby, { type: "create_table", seats: 2, public: true, spectators: true, spectator_delay: 0 });
    const { table } = created;
    const clientSeed = "5e".repeat(16);
    const { token } = await lobbyRequest(lobby, { type: "join", table, name: "node", client_seed: clientSeed });
    await lobbyRequest(lobby, { type: "add_bot", table, token, kind: "greedy" });

    const seat = new TableSession({ url: URL_, table, token, subprotocol: "echoridge.v2.msgpack" });
    const watcher = new TableSession({ url: URL_, table });
    await seat.start();
    await watcher.start();
    assert.equal(seat.status, "live");
    assert.equal(seat.seat, 0);
    await lobbyRequest(lobby, { type: "start", table, token });

    const pick = random(31);
    let moves = 0;
    let dropped = false;
    await seat.play((view, legal) => {
      moves += 1;
      if (moves === 5 && !dropped) { // a connection lost mid-game: resumed on its own
        dropped = true;
        seat.connection.loseNow("a test drops the connection");
      }
      return legal[Math.floor(pick() * legal.length)];
    }, { seconds: 240 });
    assert.ok(seat.over);
    assert.ok(seat.reconnects >= 1, "the seat reconnected");
    await watcher.until((w) => w.over && w.version === seat.version, 60);
    await seat.verified;
    assert.equal(seat.verifier.failed, null);
    assert.deepEqual(watcher.view.result, seat.view.result);

    const { transcript } = await lobbyRequest(lobby, { type: "transcript", table });
    assert.equal(transcript.entries.length, seat.version);
    assert.ok(transcript.client_seeds.includes(clientSeed));
    const report = await verifyTranscript(transcript);
    assert.ok(report.ok, report.problem);
    assert.equal(report.checks.length, 5);
    const tampered = structuredClone(transcript);
    const draw = tampered.entries.find((e) => e.draws.length > 0).draws[0];
    draw[2] = (draw[2] + 1) % Math.max(draw[1], 2);
    assert.equal((await verifyTranscript(tampered)).ok, false);

    const text = await loadLogText(CATALOGUE);
    const players = seat.view.players;
    for (const { e } of seat.log) {
      if (isHidden(text, e)) continue;
      const words = entryText(text, e, { players, seat: seat.seat, whole: true });
      assert.equal(typeof words, "string", JSON.stringify(e));
    }
    assert.ok(seat.log.length > 0);
    seat.close();
    watcher.close();
  } finally {
    lobby.close();
  }
});
