// Against abuse (SPEC.md §4.11, issue 28): a signed-in player blocks and unblocks other
// signed-in players, and reports one who sat at a table (report.js: the dialog, and the seats'
// Block and Report buttons). The players blocked are the server's (kept for every device of the
// player): Blocks holds them, fetched with `list_blocked` after each lobby hello that is signed
// in and after each change; chat.js hides their chat lines, lobby.js marks the tables they sit
// at. Guests, and a server without the
// feature `moderation`, get none of it. Refusals are worded from their codes, never from the
// server's English.

import { Lost, Refused } from "./connection.js";
import { errorText } from "./entry.js";

// The players this browser's identity blocks: id -> handle. Says "change" when that changes.
export class Blocks extends EventTarget {
  constructor(lobby) {
    super();
    this.lobby = lobby;
    this.players = new Map();
    this.asked = 0; // only the newest list_blocked counts
    lobby.addEventListener("identity", () => this.refresh());
    if (lobby.identity) this.refresh();
  }

  has(id) {
    return typeof id === "string" && this.players.has(id);
  }

  // The ids, sorted: what a page's signature needs.
  ids() {
    return [...this.players.keys()].sort();
  }

  async refresh() {
    const asked = ++this.asked;
    if (!canModerate(this.lobby)) {
      this.keep([]);
      return;
    }
    let reply;
    try {
      reply = await this.lobby.request({ type: "list_blocked" }, undefined, { retry: true });
    } catch {
      return; // the list stays as it was; the next hello asks again
    }
    if (asked === this.asked) this.keep(Array.isArray(reply.players) ? reply.players : []);
  }

  keep(players) {
    const before = JSON.stringify(this.ids());
    this.players = new Map(players.filter((p) => p && typeof p.id === "string").map((p) => [p.id, String(p.handle)]));
    if (JSON.stringify(this.ids()) !== before) this.dispatchEvent(new Event("change"));
  }

  // Blocks (`on`) or unblocks a player, then fetches the list again. A refusal throws Refused.
  async set(id, on) {
    await this.lobby.result({ type: on ? "block_player" : "unblock_player", identity: id });
    await this.refresh();
  }
}

// The players blocked, made on first use (app.js makes it at once, to hear the first hello).
export function blocksOf(lobby) {
  if (!lobby.blocks) lobby.blocks = new Blocks(lobby);
  return lobby.blocks;
}

// Whether this browser may block and report now: signed in, on a server that offers it.
export function canModerate(lobby) {
  return Boolean(lobby && lobby.identity && lobby.features && lobby.features.has("moderation"));
}

const REFUSALS = {
  "identity/already_reported": "You have already reported this player for this game.",
  "identity/required": "Only a signed-in player can do that: choose your player name in the lobby first.",
  "identity/not_found": "That player is not signed in (or no longer known), so this cannot be done.",
  "identity/too_many_blocks": "You already block as many players as one may (500): unblock someone first.",
  "protocol/bad_field": "That cannot be sent: you cannot report or block yourself, and a report's text is plain text of at most 500 characters.",
  "protocol/rate_limited": "Too many requests at once: wait a moment and try again.",
};
// Codes the lobby's catalogue (entry.js errorText) has words for.
const SHARED = new Set(["table/not_found", "table/closed", "table/archived", "table/damaged", "server/unavailable"]);

// A refused block or report in words (from its code).
export function moderationError(err) {
  if (err instanceof Refused) {
    if (REFUSALS[err.code]) return REFUSALS[err.code];
    if (SHARED.has(err.code)) return errorText(err);
    return `That did not work (${err.code}). Try again in a moment.`;
  }
  if (err instanceof Lost) return "The server cannot be reached just now: try again in a moment.";
  return "That did not work. Try again in a moment.";
}

// The signed-in people sitting at a table other than this browser's own identity and seat:
// [{seat, name, identity}] from a listing's or a record's `players`.
export function otherPeople(lobby, players, mySeat = null) {
  if (!canModerate(lobby) || !Array.isArray(players)) return [];
  const me = lobby.identity.id;
  return players.filter((p) => p && p.identity && !p.bot && p.identity !== me && p.seat !== mySeat)
    .map((p) => ({ seat: p.seat, name: String(p.name), identity: p.identity }));
}

// What the buttons of `people` show, for a page's signature (redrawn only when it changes).
export function actionsSignature(lobby, people) {
  const blocks = blocksOf(lobby);
  return people.map((p) => [p.seat, p.identity, p.name, blocks.has(p.identity)]);
}

// Blocks or unblocks `person`; `say(text, bad)` tells the result (shown, and said aloud).
export async function toggleBlock(lobby, person, say) {
  const blocks = blocksOf(lobby);
  const on = !blocks.has(person.identity);
  try {
    await blocks.set(person.identity, on);
  } catch (err) {
    say(moderationError(err), true);
    return;
  }
  const words = on
    ? `You blocked ${person.name}: their chat messages are hidden, and tables where they sit are marked in the lobby.`
    : `You unblocked ${person.name}: their chat messages show again.`;
  say(words, false);
}
