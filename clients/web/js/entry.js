// Coming to a table: the invite and spectator links, joining with a name (a new seat; a first
// visit's name becomes this browser's identity, identity.js; a signed-in player sits under the
// handle) or taking back the seat this browser holds, and the words for refusals.

import { Refused } from "./connection.js";
import { h, replace } from "./dom.js";
import { toHex } from "/sdk/fairness.js";
import { bdi, errorText as anyErrorText, t, tx } from "./i18n.js";
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

// The codes a table's page words in its own way (entry.refused.*); any other code has the
// sentence of the code registry (i18n.js codeText), in the page's language.
const TABLE_REFUSALS = new Set([
  "table/full", "table/started", "table/not_found", "table/not_full", "table/closed", "table/archived",
  "table/seat_free", "table/bad_clock", "table/not_started", "table/not_finished", "table/already_seated",
  "server/unavailable",
]);

// A refusal (or a lost connection, or any failure) in words: from its code, never from the
// server's English message.
export function errorText(err) {
  if (err instanceof Refused && TABLE_REFUSALS.has(err.code)) return t(`entry.refused.${err.code}`);
  return anyErrorText(err);
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
    h("h1", {}, t("entry.table", { table: page.table })),
    h("p", {}, tx("entry.holds", { seat: seatBadge(record.seat, null), name: bdi(record.name) })),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "primary", id: "resume-seat", autofocus: true, onclick: () => {
        store.claimInTab(page.table, record);
        page.startSession(record);
      } }, t("entry.continue", { seat: record.seat + 1 })),
      h("button", { type: "button", id: "join-another", onclick: () => joinForm(page, true) }, t("entry.another")),
      h("button", { type: "button", onclick: () => page.navigate(`#/watch/${page.table}`) }, t("entry.watch_instead")))));
  page.root.querySelector("#resume-seat").focus();
}

// Opening an invite: the table is looked up first, so that a started, full, closed or unknown
// table says so at once (and offers to watch) instead of asking for a name in vain.
export async function joinForm(page, another = false) {
  replace(page.root, h("section", { class: "card narrow" }, h("h1", {}, t("entry.table", { table: page.table })), h("p", { role: "status" }, t("entry.looking_up"))));
  let info = null;
  try {
    info = await page.lobby.table(page.table);
  } catch (err) {
    if (err instanceof Refused && err.code === "table/not_found") return cannotJoin(page, t("entry.no_table"), false);
    // the server cannot be asked now: the form, and the join says why if it must
  }
  if (page.session || page.closed) return undefined; // the page moved on meanwhile
  // a private table, or one without spectators, cannot be watched (table/no_spectators)
  const watchable = Boolean(info && info.spectators !== false && info.public !== false);
  if (info && info.status === "playing") {
    return cannotJoin(page, t("entry.started", { watchable: watchable ? "yes" : "no" }), watchable);
  }
  if (info && info.status === "over") return cannotJoin(page, t("entry.over"), watchable);
  if (info && info.taken >= info.seats) return cannotJoin(page, t("entry.refused.table/full"), watchable);
  return nameForm(page, another);
}

function cannotJoin(page, words, watchable) {
  replace(page.root, h("section", { class: "card narrow", id: "cannot-join" },
    h("h1", {}, t("entry.table", { table: page.table })),
    h("p", { class: "status", role: "status" }, words),
    h("div", { class: "buttons" },
      watchable ? h("button", { type: "button", class: "primary", id: "watch-instead", onclick: () => page.navigate(`#/watch/${page.table}`) }, t("entry.watch_game")) : null,
      h("a", { href: "#/", class: "button-link", id: "back-to-lobby" }, t("entry.back")))));
  const first = page.root.querySelector("#watch-instead, #back-to-lobby");
  if (first) first.focus();
  return undefined;
}

function nameForm(page, another) {
  const signed = store.identity(); // signed in: the name is the handle, unless changed
  const nameInput = h("input", { id: "join-name", name: "name", required: true, maxlength: 32, autocomplete: "nickname", value: signed ? signed.handle : store.name() || "", "aria-describedby": signed ? "join-name-hint" : null });
  const status = h("p", { class: "status", role: "status" });
  const form = h("form", { class: "card narrow", id: "join-form" },
    h("h1", {}, t("entry.join_table", { table: page.table })),
    h("p", {}, t(another ? "entry.take_another" : "entry.invited")),
    h("label", { for: "join-name" }, t("entry.your_name")), nameInput,
    signed ? h("p", { class: "hint", id: "join-name-hint" }, signedHint(signed.handle)) : null,
    h("div", { class: "buttons" },
      h("button", { type: "submit", class: "primary", id: "join-submit" }, t("entry.join")),
      h("button", { type: "button", onclick: () => page.navigate(`#/watch/${page.table}`) }, t("entry.watch_instead")),
      h("a", { href: "#/", class: "button-link" }, t("entry.back"))),
    status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) return;
    status.textContent = t("entry.joining");
    try {
      const sitter = await sitterFor(page.lobby, name);
      const record = await joinTable(page.lobby, page.table, sitter.name, {}, sitter);
      page.startSession(record);
    } catch (err) {
      status.textContent = errorText(err);
      if (err instanceof Refused && (err.code === "table/full" || err.code === "table/started")) {
        status.append(" ", h("a", { href: `#/watch/${page.table}` }, t("entry.watch_it")));
      }
    }
  });
  replace(page.root, form);
  nameInput.focus();
}
