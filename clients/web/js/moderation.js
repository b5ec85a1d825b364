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
import { t } from "./i18n.js";
import { isolate } from "/sdk/logtext.js";

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

// The codes a block or a report words in its own way (moderation.refused.*).
const REFUSALS = new Set([
  "identity/already_reported", "identity/required", "identity/not_found", "identity/too_many_blocks",
  "protocol/bad_field", "protocol/rate_limited",
]);
// Codes the lobby's catalogue (entry.js errorText) has words for.
const SHARED = new Set(["table/not_found", "table/closed", "table/archived", "table/damaged", "server/unavailable"]);

// A refused block or report in words (from its code).
export function moderationError(err) {
  if (err instanceof Refused) {
    if (REFUSALS.has(err.code)) return t(`moderation.refused.${err.code}`);
    if (SHARED.has(err.code)) return errorText(err);
    return t("moderation.failed.code", { code: err.code });
  }
  if (err instanceof Lost) return t("error.lost");
  return t("moderation.failed");
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

// Blocks or unblocks `person`; `say(text, bad)` tells the result (shown, and said aloud; the
// name in Unicode bidi isolates, as text).
export async function toggleBlock(lobby, person, say) {
  const blocks = blocksOf(lobby);
  const on = !blocks.has(person.identity);
  try {
    await blocks.set(person.identity, on);
  } catch (err) {
    say(moderationError(err), true);
    return;
  }
  say(t(on ? "moderation.blocked" : "moderation.unblocked", { name: isolate(person.name) }), false);
}
