// The fairness protocol's primitives (SPEC.md §9, §10), mirroring
// protocol/echoridge_protocol/fairness.py, the setup made from the draws (§10.1), and the checks
// a client makes with them:
//   - Verifier: every reveal in a view (public `proofs`, the seat's `you.proofs`) must open the
//     commitment published at setup (a look's card: the commitment shown for its slot);
//   - verifyTranscript: after the game, the server seed, the game seed, every salt and
//     commitment, every recorded random draw, and the setup's layout and murderer made again
//     from the draws.
// SHA-256 and HMAC come from Web Crypto (crypto.subtle); on a page that is not a secure context
// (crypto.subtle is missing there) from sha256.js.

import { ABILITY_IDS, BLOCK_NAMES, EVENT_IDS, FORCE_CARDS, HQ_NAME, ROLE_IDS, SUSPECT_IDS } from "./names.js";
import { hmacSha256Sync, sha256Sync } from "./sha256.js";

const encoder = new TextEncoder();
const subtle = globalThis.crypto && globalThis.crypto.subtle ? globalThis.crypto.subtle : null;

export const usingWebCrypto = subtle !== null;

export function utf8(text) {
  return encoder.encode(text);
}

export function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) {
    throw new Error("not lowercase hex");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function uint(value, size) {
  const out = new Uint8Array(size);
  let v = BigInt(value);
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

// f(x): a field, the 2-byte big-endian length of x followed by x.
export function field(bytes) {
  if (bytes.length > 0xffff) throw new Error("field too long");
  return concat(uint(bytes.length, 2), bytes);
}

export async function sha256(bytes, { webCrypto = usingWebCrypto } = {}) {
  if (webCrypto && subtle) return new Uint8Array(await subtle.digest("SHA-256", bytes));
  return sha256Sync(bytes);
}

export async function hmacSha256(key, message, { webCrypto = usingWebCrypto } = {}) {
  if (webCrypto && subtle && key.length > 0) { // Web Crypto refuses an empty key
    const k = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await subtle.sign("HMAC", k, message));
  }
  return hmacSha256Sync(key, message);
}

const COMMIT_DOMAIN = utf8("echoridge.commit.v1");
const SEED_DOMAIN = utf8("echoridge.game-seed.v1");
const SALT_DOMAIN = utf8("echoridge.salt.v1");
const DRAW_DOMAIN = utf8("echoridge.draw.v1");

// commit(label, value, s) = SHA-256("echoridge.commit.v1" || f(label) || f(value) || s), as hex.
export async function commit(label, value, saltHex, options) {
  const data = concat(COMMIT_DOMAIN, field(utf8(label)), field(utf8(String(value))), fromHex(saltHex));
  return toHex(await sha256(data, options));
}

export async function serverSeedCommit(serverSeedHex) {
  return toHex(await sha256(fromHex(serverSeedHex)));
}

export async function gameSeed(serverSeedHex, table, clientSeedsHex) {
  const parts = [SEED_DOMAIN, field(utf8(table)), uint(clientSeedsHex.length, 1)];
  for (const seed of clientSeedsHex) parts.push(field(fromHex(seed)));
  return hmacSha256(fromHex(serverSeedHex), concat(...parts));
}

export async function salt(seed, table, label) {
  const msg = concat(SALT_DOMAIN, field(utf8(table)), field(utf8(label)));
  return toHex((await hmacSha256(seed, msg)).slice(0, 16));
}

const SPAN = 1n << 64n;

// Draw number `index` of the generator (SPEC.md §10): a uniform integer in 0 .. bound-1.
export async function drawBelow(seed, table, index, bound) {
  const name = utf8(table);
  const b = BigInt(bound);
  const limit = SPAN - (SPAN % b);
  for (let attempt = 0; ; attempt++) {
    const msg = concat(DRAW_DOMAIN, uint(name.length, 2), name, uint(index, 8), uint(attempt, 4));
    const block = await hmacSha256(seed, msg);
    let x = 0n;
    for (let i = 0; i < 8; i++) x = (x << 8n) | BigInt(block[i]);
    if (x < limit) return Number(x % b);
  }
}

// --- the setup from the draws (SPEC.md §10.1) ------------------------------------------------

// The generator's draws 0, 1, 2, ... in order, each kept as [index, bound, value].
export class Draws {
  constructor(seed, table) {
    this.seed = seed;
    this.table = table;
    this.used = [];
  }

  async draw(bound) {
    const value = await drawBelow(this.seed, this.table, this.used.length, bound);
    this.used.push([this.used.length, bound, value]);
    return value;
  }

  async shuffle(items) {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = await this.draw(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  async sample(items, k) {
    const out = [...items];
    for (let i = 0; i < k; i++) {
      const j = i + (await this.draw(out.length - i));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out.slice(0, k);
  }

  async pick(items) {
    return items[await this.draw(items.length)];
  }
}

const BLOCKS = Array.from({ length: 25 }, (_, i) => [(i % 5) + 1, Math.floor(i / 5) + 1]); // canonical
const NON_HQ = BLOCKS.filter(([c, r]) => !(c === 3 && r === 3));
const SEARCH = [1, 1, 1, 1, 0, 0];
const STAKEOUT = [1, 2, 3, 3, 4, 5];
const COLORS = ["red", "blue", "gray"];
const COOP_LEFT_OUT = new Set(["night_shift", "good_cop"]);
const COOP_REMOVED = { 2: [0, 0, 1], 3: [1, 1, 1], 4: [2, 2, 2] };
const blockIndex = ([c, r]) => (r - 1) * 5 + (c - 1);

// Every random choice of the start (steps R1-R8, R14 and the starting mobsters), made from the
// game seed (bytes) as the server makes it. `roles`: false when start_game gave the co-op roles.
export async function setupFromDraws(seed, table, players, { coop = false, roles = coop } = {}) {
  const d = new Draws(seed, table);
  const names = await d.shuffle(BLOCK_NAMES); // R1
  const layout = [...names.slice(0, 12), HQ_NAME, ...names.slice(12)];
  const spots = await d.sample(NON_HQ, 12); // R2
  const tokens = [
    ...spots.slice(0, 6).map((block, i) => ({ block, kind: "search", value: SEARCH[i] })),
    ...spots.slice(6).map((block, i) => ({ block, kind: "stakeout", value: STAKEOUT[i] })),
  ].sort((a, b) => blockIndex(a.block) - blockIndex(b.block));
  const murderer = await d.pick(SUSPECT_IDS); // R3
  const suspectDeck = await d.shuffle(SUSPECT_IDS.filter((s) => s !== murderer)); // R4
  const eventDeck = await d.shuffle(EVENT_IDS); // R5
  const forceDeck = await d.shuffle(FORCE_CARDS); // R6
  const abilities = await d.sample(ABILITY_IDS.filter((a) => !(coop && COOP_LEFT_OUT.has(a))), players); // R7
  const order = await d.shuffle(Array.from({ length: players }, (_, i) => i)); // R8
  const dealtRoles = coop && roles ? await d.shuffle(ROLE_IDS.slice(0, players)) : []; // R14
  const bag = coop ? COOP_REMOVED[players].map((n) => 5 - n) : [5, 5, 5];
  const taken = new Set();
  const mobsters = [];
  for (let n = 0; n < 3; n++) {
    let value = await d.draw(bag[0] + bag[1] + bag[2]);
    let color = 0;
    while (value >= bag[color]) {
      value -= bag[color];
      color++;
    }
    bag[color]--;
    const block = await d.pick(NON_HQ.filter((b) => !taken.has(blockIndex(b))));
    taken.add(blockIndex(block));
    mobsters.push({ block, color: COLORS[color] });
  }
  return { draws: d.used, layout, tokens, murderer, suspectDeck, eventDeck, forceDeck, abilities, order, roles: dealtRoles, mobsters };
}

// --- checking reveals during the game --------------------------------------------------------

// Remembers what it has checked (label -> value), so each view costs only what is new.
// `slotCommitments` ("look/K/S" -> commitment) may be given from storage: a look's slots are
// shown only while its decision is owed.
export class Verifier {
  constructor(slotCommitments = {}) {
    this.checked = new Map(); // label -> value, every proof that opened its commitment
    this.failed = null; // the first reveal that did not open its commitment
    this.slotCommitments = { ...slotCommitments };
    this.seen = new Set(); // label|value|salt of proofs already looked at
  }

  noteSlots(view) {
    const decision = view && view.you ? view.you.decision : null;
    if (decision && decision.kind === "slot" && Array.isArray(decision.commitments)) {
      decision.commitments.forEach((digest, i) => {
        const label = `look/${decision.deal}/${i + 1}`;
        if (!(label in this.slotCommitments)) this.slotCommitments[label] = digest;
      });
    }
  }

  // Checks every proof of the view not checked before; resolves to the number of new ones.
  // A proof that does not open its commitment sets `failed` and rejects.
  async check(view) {
    this.noteSlots(view);
    const commitments = (view && view.commitments) || {};
    const you = (view && view.you) || {};
    const proofs = [...((view && view.proofs) || []), ...(you.proofs || [])];
    let fresh = 0;
    for (const proof of proofs) {
      const key = `${proof.label}|${proof.value}|${proof.salt}`;
      if (this.seen.has(key)) continue;
      const label = String(proof.label);
      const expected = label.startsWith("look/") ? this.slotCommitments[label] : commitments[label];
      if (expected === undefined) {
        if (label.startsWith("look/")) {
          this.seen.add(key); // a one-card look is dealt and seen at once: nothing to match
          continue;
        }
        this.failed = `${label} was revealed but never committed`;
        throw new Error(this.failed);
      }
      const digest = await commit(label, proof.value, proof.salt);
      if (digest !== expected) {
        this.failed = `${label} = ${proof.value} does not open its commitment`;
        throw new Error(this.failed);
      }
      this.seen.add(key);
      this.checked.set(label, String(proof.value));
      fresh++;
    }
    return fresh;
  }

  token(block) {
    return this.checked.has(`token/${block[0]},${block[1]}`);
  }

  trait(evidence) {
    return this.checked.has(`trait/${evidence}`);
  }

  suspect(id) {
    for (const [label, value] of this.checked) {
      if (value === id && (label.startsWith("deck/") || label.startsWith("look/"))) return true;
    }
    return false;
  }
}

// --- checking a finished game's transcript ---------------------------------------------------

// Resolves to {ok, checks: [text...], steps: [{step, count?}...], problem}: `steps` are the
// checks passed as codes (server_seed, items, murderer, setup, draws; a count where the text
// says one), for a client to word in its language. Checks the server seed against its
// commitment, derives the game seed, checks every committed item's salt and commitment, the
// murderer, and every recorded draw against the generator. (`echo-ridge verify` also replays
// the commands.)
export async function verifyTranscript(t, onProgress = () => {}) {
  const checks = [];
  const steps = [];
  const passed = (text, step, count = undefined) => {
    checks.push(text);
    steps.push(count === undefined ? { step } : { step, count });
  };
  const fail = (problem) => ({ ok: false, checks, steps, problem });
  try {
    if (t.format !== "echoridge.transcript.v1") return fail("not an echoridge.transcript.v1 transcript");
    if ((await serverSeedCommit(t.server_seed)) !== t.server_seed_commit) {
      return fail("the server seed does not open its commitment");
    }
    passed("the server seed opens the commitment published when the table was created", "server_seed");
    const seed = await gameSeed(t.server_seed, t.table, t.client_seeds);
    const final = t.final || {};
    const commitments = final.commitments || {};
    const proofs = (final.secrets && final.secrets.proofs) || [];
    for (const proof of proofs) {
      if ((await salt(seed, t.table, proof.label)) !== proof.salt) return fail(`${proof.label}: not the salt the game seed gives`);
      if ((await commit(proof.label, proof.value, proof.salt)) !== commitments[proof.label]) {
        return fail(`${proof.label} = ${proof.value} does not open its commitment`);
      }
    }
    const labels = Object.keys(commitments);
    if (proofs.length !== labels.length) return fail("not every committed item is revealed");
    passed(`all ${labels.length} hidden items open their commitments, with salts from the game seed`, "items", labels.length);
    const murderer = proofs.find((p) => p.label === "murderer");
    if (!murderer || !final.result || final.result.murderer !== murderer.value) {
      return fail("the result names another murderer than the one revealed");
    }
    passed("the murderer in the result is the one committed at setup", "murderer");
    const setup = await setupFromDraws(seed, t.table, t.players);
    if (setup.murderer !== murderer.value) return fail("the murderer is not the one the setup's draws pick");
    const city = final.city && Array.isArray(final.city.blocks) ? final.city.blocks.map((b) => b && b.name) : null;
    if (city && city.length === 25 && city.join("|") !== setup.layout.join("|")) {
      return fail("the city's layout is not the one the setup's draws make");
    }
    passed("the setup's murderer and city layout are the ones the draws make", "setup");
    let expected = 0;
    const entries = t.entries || [];
    for (let i = 0; i < entries.length; i++) {
      for (const [index, bound, value] of entries[i].draws || []) {
        if (index !== expected) return fail(`draw ${expected} is missing`);
        if ((await drawBelow(seed, t.table, index, bound)) !== value) return fail(`draw ${index} is not the generator's`);
        expected++;
      }
      onProgress(i + 1, entries.length);
    }
    passed(`all ${expected} random draws are the generator's, keyed by the game seed`, "draws", expected);
    return { ok: true, checks, steps, problem: null };
  } catch (err) {
    return fail(`malformed transcript: ${err.message}`);
  }
}
