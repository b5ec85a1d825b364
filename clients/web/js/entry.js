// Coming to a table: the invite and spectator links, joining with a name (a new seat; a first
// visit's name becomes this browser's identity, identity.js; a signed-in player sits under the
// handle) or taking back the seat this browser holds, and the words for refusals.

import { Refused } from "./connection.js";
import { h, replace } from "./dom.js";
import { toHex } from "/sdk/fairness.js";
import { signedHint, sitterFor } from "./identity.js";
import { seatBadge } from "./panels.js";
import * as store from "./store.js";

export function inviteLink(table) {
  return `${location.origin}/#/table/${table}`;
}

export function watchLink(table) {
  return `${location.origin}/#/watch/${table}`;
}

// A finished game's replay (replay.js): a seat's view (its protocol number, 0 for P1), every
// secret (`everyone`), or else a spectator's; at version `version` if given.
export function replayHash(table, { seat = null, everyone = false, version = null } = {}) {
  const params = [];
  if (Number.isInteger(seat)) params.push(`seat=${seat}`);
  else if (everyone) params.push("everyone=1");
  if (Number.isInteger(version)) params.push(`v=${version}`);
  return `#/replay/${table}${params.length ? `?${params.join("&")}` : ""}`;
}

function randomSeedHex() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return toHex(bytes);
}

export function errorText(err) {
  if (err instanceof Refused) {
    switch (err.code) {
      case "table/full": return "Every seat at this table is taken.";
      case "table/started": return "The game at this table has already started.";
      case "table/not_found": return "There is no such table.";
      case "table/not_full": return "Not every seat is taken yet: invite friends or add bots.";
      case "table/closed": return "This table was closed: by its creator, or because its game did not start in time.";
      case "table/archived": return "This game is over and archived: the table is closed, its transcript remains.";
      case "table/seat_free": return "Nobody holds that seat now.";
      case "table/bad_clock": return `That clock is outside this server's limits: ${err.message}`;
      case "table/not_started": return "The game at this table has not started yet.";
      case "table/not_finished": return "The game at this table is not over yet.";
      case "table/already_seated": return "You already sit at this table under your player name (in another tab or on another device). To take one more seat, give another name: you sit down as a guest.";
      case "server/unavailable": return "The server cannot reach its store just now: try again in a moment.";
      default: return `${err.message} (${err.code})`;
    }
  }
  return err && err.message ? err.message : String(err);
}

// Joins `table` with the name typed; resolves to the seat record kept for it. A signed-in
// session sits under its handle, whatever the name (SPEC.md §4.3), unless it joins as a `guest`
// (identity.js sitterFor).
export async function joinTable(lobby, table, name, extra = {}, { guest = false } = {}) {
  const clientSeed = randomSeedHex();
  const joined = await lobby.join(table, name, clientSeed, { guest });
  const who = lobby.identity && !guest ? lobby.identity.handle : name;
  const record = { seat: joined.seat, token: joined.token, name: who, client_seed: clientSeed, ...extra };
  store.keepSeat(table, record);
  store.keepName(who);
  return record;
}

// This browser holds a seat at the table (kept by another tab or an earlier visit): ask first.
export function askResume(page, record) {
  replace(page.root, h("section", { class: "card narrow" },
    h("h1", {}, `Table ${page.table}`),
    h("p", {}, "This browser holds seat ", seatBadge(record.seat, null), " (", record.name, ") at this table."),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "primary", id: "resume-seat", autofocus: true, onclick: () => {
        store.claimInTab(page.table, record);
        page.startSession(record);
      } }, `Continue as P${record.seat + 1}`),
      h("button", { type: "button", id: "join-another", onclick: () => joinForm(page, true) }, "Take another seat"),
      h("button", { type: "button", onclick: () => page.navigate(`#/watch/${page.table}`) }, "Watch instead"))));
  page.root.querySelector("#resume-seat").focus();
}

// Opening an invite: the table is looked up first, so that a started, full, closed or unknown
// table says so at once (and offers to watch) instead of asking for a name in vain.
export async function joinForm(page, another = false) {
  replace(page.root, h("section", { class: "card narrow" }, h("h1", {}, `Table ${page.table}`), h("p", { role: "status" }, "Looking the table up…")));
  let info = null;
  try {
    info = await page.lobby.table(page.table);
  } catch (err) {
    if (err instanceof Refused && err.code === "table/not_found") return cannotJoin(page, "There is no such table: the link may be old, or the table was closed.", false);
    // the server cannot be asked now: the form, and the join says why if it must
  }
  if (page.session || page.closed) return undefined; // the page moved on meanwhile
  // a private table, or one without spectators, cannot be watched (table/no_spectators)
  const watchable = Boolean(info && info.spectators !== false && info.public !== false);
  if (info && info.status === "playing") {
    return cannotJoin(page, `The game at this table has already started, so its seats are taken${watchable ? "" : ", and it cannot be watched"}.`, watchable);
  }
  if (info && info.status === "over") return cannotJoin(page, "The game at this table is over.", watchable);
  if (info && info.taken >= info.seats) return cannotJoin(page, "Every seat at this table is taken.", watchable);
  return nameForm(page, another);
}

function cannotJoin(page, words, watchable) {
  replace(page.root, h("section", { class: "card narrow", id: "cannot-join" },
    h("h1", {}, `Table ${page.table}`),
    h("p", { class: "status", role: "status" }, words),
    h("div", { class: "buttons" },
      watchable ? h("button", { type: "button", class: "primary", id: "watch-instead", onclick: () => page.navigate(`#/watch/${page.table}`) }, "Watch the game") : null,
      h("a", { href: "#/", class: "button-link", id: "back-to-lobby" }, "Back to the lobby"))));
  const first = page.root.querySelector("#watch-instead, #back-to-lobby");
  if (first) first.focus();
  return undefined;
}

function nameForm(page, another) {
  const signed = store.identity(); // signed in: the name is the handle, unless changed
  const nameInput = h("input", { id: "join-name", name: "name", required: true, maxlength: 32, autocomplete: "nickname", value: signed ? signed.handle : store.name() || "", "aria-describedby": signed ? "join-name-hint" : null });
  const status = h("p", { class: "status", role: "status" });
  const form = h("form", { class: "card narrow", id: "join-form" },
    h("h1", {}, `Join table ${page.table}`),
    h("p", {}, another ? "Take another free seat at this table." : "A friend invited you to this table. Choose a name and take a free seat."),
    h("label", { for: "join-name" }, "Your name"), nameInput,
    signed ? h("p", { class: "hint", id: "join-name-hint" }, signedHint(signed.handle)) : null,
    h("div", { class: "buttons" },
      h("button", { type: "submit", class: "primary", id: "join-submit" }, "Join the table"),
      h("button", { type: "button", onclick: () => page.navigate(`#/watch/${page.table}`) }, "Watch instead"),
      h("a", { href: "#/", class: "button-link" }, "Back to the lobby")),
    status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) return;
    status.textContent = "Joining…";
    try {
      const sitter = await sitterFor(page.lobby, name);
      const record = await joinTable(page.lobby, page.table, sitter.name, {}, sitter);
      page.startSession(record);
    } catch (err) {
      status.textContent = errorText(err);
      if (err instanceof Refused && (err.code === "table/full" || err.code === "table/started")) {
        status.append(" ", h("a", { href: `#/watch/${page.table}` }, "Watch it instead."));
      }
    }
  });
  replace(page.root, form);
  nameInput.focus();
}
