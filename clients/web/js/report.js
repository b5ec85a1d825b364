// Reporting a player (SPEC.md §4.11 `report`, issue 28): a modal <dialog> with the reason as
// radio buttons in plain words, an optional text (at most 500 characters, counted as typed),
// Send and Cancel. It goes to the server's moderators with the table, the seat and the version
// the player is looking at (the live view's, or the replay's), and the reported player is not
// told. The dialog keeps the keyboard inside it (showModal), Escape closes it, and the focus
// goes back to the button that opened it. Also here: the Block and Report buttons of another
// signed-in seat (the table's players, the waiting room, the replay).

import { announce, h, replace } from "./dom.js";
import { bdi, t, tx } from "./i18n.js";
import { blocksOf, moderationError, otherPeople, toggleBlock } from "./moderation.js";

const MAX = 500; // characters of text, as the server counts them (code points)
const REASONS = ["abuse", "cheating", "spam", "name", "other"]; // report.reason.CODE(.hint)

// The text as it is sent: runs of spaces and line breaks as one space, trimmed (the server takes
// printable text on one line).
export function reportText(raw) {
  return String(raw || "").replace(/\s+/g, " ").trim();
}

function length(text) {
  return [...text].length;
}

// Opens the dialog for the player of `seat` at `table`, called `name`, as of `version`.
// `opener`: the control the focus goes back to.
export function openReport({ lobby, table, seat, name, version, opener = null }) {
  document.getElementById("report-dialog")?.remove();
  const back = opener || document.activeElement;
  const backKey = back && back.dataset ? back.dataset.key || null : null;
  const moment = Number.isInteger(version) && version >= 0 ? version : 0;
  const text = h("textarea", { id: "report-text", name: "report-text", rows: 3, maxlength: MAX, "aria-describedby": "report-count" });
  const count = h("p", { class: "hint", id: "report-count" }, t("report.count", { n: 0, max: MAX }));
  const status = h("p", { class: "status", id: "report-status", role: "status" });
  const send = h("button", { type: "submit", class: "primary", id: "report-send" }, t("report.send"));
  const cancel = h("button", { type: "button", id: "report-cancel", onclick: () => dialog.close() }, t("identity.cancel"));
  const reasons = h("fieldset", { class: "report-reasons", id: "report-reasons" },
    h("legend", {}, t("report.what")),
    REASONS.map((code) => h("div", { class: "field check" },
      h("input", { type: "radio", name: "report-reason", id: `report-reason-${code}`, value: code }),
      h("label", { for: `report-reason-${code}` }, tx("report.reason", { label: h("strong", {}, t(`report.reason.${code}`)), hint: t(`report.reason.${code}.hint`) })))));
  const form = h("form", { id: "report-form", novalidate: true },
    reasons,
    h("div", { class: "field" },
      h("label", { for: "report-text" }, t("report.text")),
      text, count),
    status,
    h("div", { class: "buttons dialog-foot" }, cancel, send));
  const body = h("div", { id: "report-body" }, form);
  const dialog = h("dialog", { id: "report-dialog", class: "report-dialog", "aria-labelledby": "report-title", "aria-describedby": "report-about" },
    h("h2", { id: "report-title" }, tx("report.title", { name: bdi(name) })),
    h("p", { id: "report-about" }, tx("report.about", { move: moment, name: bdi(name) })),
    body);

  text.addEventListener("input", () => {
    const n = length(text.value);
    count.textContent = t("report.count", { n, max: MAX });
    count.classList.toggle("over", n > MAX);
  });
  let sending = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (sending) return;
    const chosen = form.querySelector('input[name="report-reason"]:checked');
    if (!chosen) {
      say(t("report.choose"), true);
      form.querySelector('input[name="report-reason"]').focus();
      return;
    }
    const words = reportText(text.value);
    if (length(words) > MAX) {
      say(t("report.too_long", { max: MAX }), true);
      text.focus();
      return;
    }
    const message = { type: "report", table, seat, version: moment, reason: chosen.value };
    if (words) message.text = words;
    sending = true;
    send.disabled = true;
    say(t("report.sending"), false);
    try {
      await lobby.result(message);
      done(t("report.sent"), "report-done");
    } catch (err) {
      if (err && err.code === "identity/already_reported") done(moderationError(err), "report-already");
      else say(moderationError(err), true);
    } finally {
      sending = false;
      send.disabled = false;
    }
  });

  function say(words, bad) {
    status.textContent = words;
    status.classList.toggle("error", bad);
  }

  // The answer, in place of the form (said aloud too: the focus goes to Close).
  function done(words, id) {
    const close = h("button", { type: "button", class: "primary", id: "report-close", onclick: () => dialog.close() }, t("report.close"));
    replace(body,
      h("p", { class: id === "report-done" ? "done" : "warn", id }, words),
      h("div", { class: "buttons dialog-foot" }, close));
    announce(words);
    close.focus();
  }

  dialog.addEventListener("close", () => {
    dialog.remove();
    const now = document.activeElement;
    if (now && now !== document.body && now.isConnected) return;
    // the button, or the one drawn in its place meanwhile (a hidden part may keep an old one)
    const shown = (el) => !el.checkVisibility || el.checkVisibility();
    const again = back && back.isConnected && shown(back) ? back
      : backKey ? [...document.querySelectorAll(`[data-key="${CSS.escape(backKey)}"]`)].find(shown) : null;
    if (again && typeof again.focus === "function") again.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  form.querySelector('input[name="report-reason"]').focus();
  return dialog;
}

// The Block (Unblock) and Report buttons of another signed-in seat. `where`: {lobby, table,
// version() (the version looked at), say(text, bad)}; `report: false` leaves Report out.
export function seatActions(where, person, { report = true } = {}) {
  const blocked = blocksOf(where.lobby).has(person.identity);
  const name = person.name;
  return h("span", { class: "seat-actions", "data-identity": person.identity },
    blocked ? h("span", { class: "blocked-mark" }, t("report.blocked_mark")) : null,
    h("button", {
      type: "button", class: "small block-button", "data-key": `block-${person.seat}`, "data-blocked": blocked ? "1" : "0",
      "aria-label": t("players.block_button", { name, blocked: blocked ? "yes" : "no" }),
      onclick: () => toggleBlock(where.lobby, person, where.say),
    }, t(blocked ? "report.unblock" : "report.block")),
    report ? h("button", {
      type: "button", class: "small report-button", "data-key": `report-${person.seat}`, "aria-haspopup": "dialog",
      "aria-label": t("report.title", { name }),
      onclick: (event) => openReport({ lobby: where.lobby, table: where.table, seat: person.seat, name, version: where.version(), opener: event.currentTarget }),
    }, t("report.report")) : null);
}

// A replay's line of the other signed-in players (replay.js), each with Block and Report as of
// the version shown; their identities come from the game's record (`list_games` by table).
export class ReplayPeople {
  constructor(page) {
    this.page = page;
    this.people = [];
    this.list = h("span", { class: "replay-people-list" });
    this.el = h("div", { class: "replay-people small", id: "replay-people", role: "group", "aria-labelledby": "replay-people-title", hidden: true },
      h("span", { id: "replay-people-title" }, t("report.others")), " ", this.list);
    this.onBlocks = () => this.render();
    blocksOf(page.lobby).addEventListener("change", this.onBlocks);
  }

  async load() {
    const page = this.page;
    let games;
    try {
      games = (await page.lobby.games({ tables: [page.table] })).games;
    } catch {
      return; // without the record, no buttons
    }
    const game = games.find((g) => g.table === page.table);
    this.people = otherPeople(page.lobby, game ? game.players : [], null);
    this.render();
  }

  render() {
    const page = this.page;
    const where = {
      lobby: page.lobby, table: page.table, say: (text, bad) => page.say(text, bad ? "error" : ""),
      version: () => (page.session && page.session.version >= 0 ? page.session.version : 0),
    };
    replace(this.list, this.people.map((p) => h("span", { class: "replay-person", "data-seat": p.seat },
      h("strong", {}, bdi(p.name)), seatActions(where, p))));
    this.el.hidden = !this.people.length;
  }

  close() {
    blocksOf(this.page.lobby).removeEventListener("change", this.onBlocks);
  }
}
