// The game log in words: each log entry (SPEC.md §6.3; data, never prose) rendered with the
// shared templates of a language's catalogue (`logtext.en.json`, `logtext.es.json`, which the
// server serves at /logtext.<language>.json and the terminal client reads too; the "about" field
// of logtext.en.json gives the rules followed here). Templates are ICU MessageFormat (i18n.js):
// {field}, and where a language's grammar needs them plural and select, chosen by the entry's own
// value of the field (as echoridge_client/logtext.py does). Names are the players' own input: a
// page must only ever make text nodes of them, never markup; a name with right-to-left letters
// is wrapped in Unicode bidi isolates (isolate) so it keeps its order inside any sentence.

import { formatMessage, messageArguments } from "./i18n.js";
import { HQ_NAME, SUSPECTS, suspectName } from "./names.js";

export const LOG_TEXT_URL = "/logtext.en.json";

// The catalogue's URL on a reference server for `language` ("en", "es").
export function logTextURL(language = "en") {
  return `/logtext.${language}.json`;
}

const loading = new Map(); // URL -> promise of the catalogue

// The catalogue, loaded once: from `source`, a URL (fetched; in a page, relative to it), a
// `file:` URL or a path in Node (read from disk), or the catalogue itself (an object, e.g. the
// server's /protocol/logtext.en.json fetched by the caller). With no source: /logtext.en.json
// of the page's server; a server's /logtext.<language>.json (logTextURL) is fetched once per
// page.
export function loadLogText(source = LOG_TEXT_URL) {
  if (source !== null && typeof source === "object" && !(source instanceof URL)) return Promise.resolve(source);
  if (typeof source !== "string" || !/^\/logtext\.[a-z]{2,3}\.json$/.test(source)) return readCatalogue(source);
  if (!loading.has(source)) {
    loading.set(source, readCatalogue(source).catch((err) => {
      loading.delete(source); // try again next time
      throw err;
    }));
  }
  return loading.get(source);
}

async function readCatalogue(source) {
  const text = String(source);
  const local = typeof window === "undefined" && !/^https?:/.test(text);
  if (local) { // Node: a path or a file: URL
    const { readFile } = await import("node:fs/promises");
    return JSON.parse(await readFile(text.startsWith("file:") ? new URL(text) : text, "utf8"));
  }
  const reply = await fetch(text, { cache: "no-cache" });
  if (!reply.ok) throw new Error(`${text}: HTTP ${reply.status}`);
  return reply.json();
}

export const FSI = "\u2068"; // first strong isolate
export const PDI = "\u2069"; // pop directional isolate
// Letters of the right-to-left scripts (Unicode's bidi classes R and AL: Hebrew, Arabic,
// Persian, Syriac, Thaana, N'Ko, ...; JavaScript has no Bidi_Class property).
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

// A player's own text (a name, a chat line) isolated from the words around it (Unicode bidi
// isolates) when it has right-to-left letters: an Arabic or Persian name keeps its order inside
// English or Spanish words, and the words around it keep theirs (echoridge_client's isolate).
export function isolate(text) {
  const s = String(text);
  return RTL.test(s) ? `${FSI}${s}${PDI}` : s;
}

// A seat's display name (view.players[seat].name, isolated), bots marked; `nobody`: the word
// for no seat.
export function seatName(players, seat, nobody = "nobody") {
  if (seat === null || seat === undefined) return nobody;
  const p = (players || [])[seat];
  const name = isolate(p && typeof p.name === "string" && p.name ? p.name : `P${seat + 1}`);
  return p && p.bot ? `${name} (bot)` : name;
}

// `nobody`, `yes`, `no` in the catalogue's language (its `words`; English when it has none).
function word(text, name) {
  return (text.words || {})[name] || name;
}

const SEAT_FIELDS = new Set(["seat", "target", "resolver", "lead"]);
const SEATS_FIELDS = new Set(["contributors", "winners"]);

// The city's block names in canonical order (view.city.blocks[i].name), to word blocks by;
// empty for a view without a city or before the layout is drawn.
export function blockNames(view) {
  const blocks = (view && view.city && view.city.blocks) || [];
  const names = blocks.map((b) => (b && typeof b.name === "string" ? b.name : ""));
  return names.length === 25 && names.every((n) => n) ? names : [];
}

// A block [col, row] in words: its name in the city (`names`), else (col,row).
export function blockText(block, names = []) {
  if (!Array.isArray(block)) return String(block);
  const ok = block.length === 2 && block.every((x) => Number.isInteger(x) && x >= 1 && x <= 5);
  if (names.length && ok) return names[(block[1] - 1) * 5 + block[0] - 1];
  return `(${block.join(",")})`;
}

// Why `action` (a command type) may not be taken now (you.unavailable): the catalog's words for
// "ACTION CODE", else for "CODE", else `fallback`.
export function reasonText(text, action, code, fallback = "") {
  const reasons = text.reasons || {};
  return reasons[`${action} ${code}`] || reasons[code] || fallback;
}

// An Event card in words: {name, asks, reward, while?, timed?}.
export function eventWords(text, card) {
  return { ...((text.events || {})[card] || { name: String(card) }) };
}

// A block in words; HQ (named "Police HQ" on the wire, SPEC.md §10.1) in the catalogue's language
// (words.hq).
function placeText(text, block, blocks) {
  const name = blockText(block, blocks);
  return name === HQ_NAME && Object.hasOwn(text.words || {}, "hq") ? text.words.hq : name;
}

function fieldText(text, name, value, players, blocks = []) {
  if (value === undefined || value === null) return "";
  if (SEAT_FIELDS.has(name)) return seatName(players, value, word(text, "nobody"));
  if (SEATS_FIELDS.has(name)) {
    const names = (Array.isArray(value) ? value : [value]).map((s) => seatName(players, s));
    return names.length ? names.join(", ") : word(text, "nobody");
  }
  if (name === "block") return placeText(text, value, blocks);
  if (name === "path") return (Array.isArray(value) ? value : []).map((b) => placeText(text, b, blocks)).join(" → ");
  const words = (text.values || {})[name];
  if (words) {
    const key = typeof value === "boolean" ? String(value) : value;
    if (typeof key === "string" && Object.hasOwn(words, key)) return words[key];
  }
  if (typeof value === "string" && Object.hasOwn(SUSPECTS, value)) return suspectName(value);
  if (Array.isArray(value)) return value.map((v) => fieldText(text, name, v, players, blocks) || String(v)).join(", ");
  if (typeof value === "boolean") return word(text, value ? "yes" : "no");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// Whether the viewer was told the whole entry while others got less (a private result).
// `team`: the seat count of a co-op game (0: not co-op), whose entries told to every seat are
// the team's (isTeam), not private.
export function isPrivate(entry, seat, team = 0) {
  const told = Array.isArray(entry.to) && entry.to.length > 0 && seat !== null && seat !== undefined && entry.to.includes(seat);
  return told && !isTeam(entry, seat, team);
}

// Whether every seat of a co-op game of `team` seats, the viewer among them, was told the whole
// entry while spectators got less (the team's shared knowledge: the catalog's team_mark).
export function isTeam(entry, seat, team = 0) {
  if (team < 1 || seat === null || seat === undefined || !Array.isArray(entry.to) || !entry.to.includes(seat)) return false;
  for (let s = 0; s < team; s++) if (!entry.to.includes(s)) return false;
  return true;
}

// The template key used for `entry` as `seat` (null: a spectator) sees it. `whole`: the log is
// the whole one (after the game), so no entry is a redacted form.
export function templateKey(text, entry, seat, whole = false) {
  const entries = text.entries || {};
  const kind = String(entry.kind);
  const others = Array.isArray(entry.to) && !whole && !(seat !== null && seat !== undefined && entry.to.includes(seat));
  if (others && Object.hasOwn(entries, `${kind}.others`)) return `${kind}.others`;
  for (const field of text.variants || []) {
    const value = entry[field];
    if (value !== undefined && value !== null && Object.hasOwn(entries, `${kind}.${field}`)) return `${kind}.${field}`;
  }
  if (Object.hasOwn(entry, "card") && entry.card === null && Object.hasOwn(entries, `${kind}.none`)) return `${kind}.none`;
  if (typeof entry.success === "boolean") {
    const yn = `${kind}.${entry.success ? "yes" : "no"}`;
    if (Object.hasOwn(entries, yn)) return yn;
  }
  return Object.hasOwn(entries, kind) ? kind : null;
}

// One entry in words, or null for a kind the templates do not know. `blocks`: the city's block
// names (blockNames(view)), so blocks read as names.
export function entryText(text, entry, { players = [], seat = null, whole = false, blocks = [] } = {}) {
  const key = templateKey(text, entry, seat, whole);
  if (key === null) return null;
  const template = text.entries[key];
  const args = {};
  const raw = {}; // plural and select choose by the entry's own value (a count, a kind)
  for (const [name, kind] of Object.entries(messageArguments(template))) {
    args[name] = fieldText(text, name, entry[name], players, blocks);
    if (kind !== "arg") raw[name] = entry[name] === undefined || entry[name] === null ? "" : entry[name];
  }
  return formatMessage(template, args, text.language || "en", raw);
}

export function isHidden(text, entry) {
  return (text.hidden || []).includes(entry.kind);
}
