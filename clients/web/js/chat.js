// The chat panel (SPEC.md §6.7): the table's chat for the seats, the spectators' chat for the
// spectators (who read the table's chat too, as late as their view), and for a seat an opt-in
// to read the spectators' chat. Lines are plain text: every part of a line is a text node
// (dom.js builds with createTextNode, never from HTML), so markup in a message shows as typed.
// Mute is this browser's: the muted senders of each table are kept in localStorage and their
// lines are hidden, those shown and those to come; the server sends every line. The lines of
// the players this browser's identity blocks (moderation.js: by a line's `identity`) are hidden
// too, and a note says how many.

import { Refused } from "./connection.js";
import { h, replace, announce } from "./dom.js";
import { errorText } from "./entry.js";
import { bdi, t, tx } from "./i18n.js";
import { isolate } from "./say.js";

const MUTED = "echoridge.muted"; // localStorage: {table: [sender, ...]}
const MAX_CHARS = 500; // after trimming, as the server counts (code points)
const KEPT = 500; // lines kept on the page

// A refused line in words, from its code (never the server's English message).
const REFUSALS = new Set(["chat/empty", "chat/too_long", "chat/bad_text", "chat/rate_limited", "chat/not_allowed"]);
function refusal(code, message = "") {
  return REFUSALS.has(code) ? t(`chat.refused.${code}`, { max: MAX_CHARS }) : errorText(new Refused(code, message));
}

function readMuted(table) {
  try {
    const all = JSON.parse(localStorage.getItem(MUTED) || "{}");
    return new Set(Array.isArray(all[table]) ? all[table].filter((s) => typeof s === "string") : []);
  } catch {
    return new Set();
  }
}

function keepMuted(table, senders) {
  try {
    const all = JSON.parse(localStorage.getItem(MUTED) || "{}");
    if (senders.size) all[table] = [...senders];
    else delete all[table];
    localStorage.setItem(MUTED, JSON.stringify(all));
  } catch {
    // full or disabled storage: mute lasts as long as the page
  }
}

function clock(at) {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

export class ChatPanel {
  constructor(session, { table, spectate, blocks = null }) {
    this.session = session;
    this.table = table;
    this.spectate = spectate;
    this.channel = spectate ? "spectators" : "table";
    this.lines = []; // every line kept, in order
    this.seen = new Set(); // "channel:seq"
    this.names = new Map(); // sender -> the last name seen
    this.muted = readMuted(table);
    this.blocks = blocks; // the players blocked (moderation.js Blocks), or null
    this.onBlocks = () => this.showBlocked();
    if (blocks) blocks.addEventListener("change", this.onBlocks);
    this.readSpectators = false; // a seat's opt-in (sent again after each reconnect)
    this.sending = false;
    this.list = h("ol", { class: "chat-lines", id: "chat-lines" });
    this.box = h("div", { class: "chat-log", role: "log", tabindex: 0, "aria-label": t("chat.messages") }, this.list);
    this.input = h("input", {
      type: "text", id: "chat-input", class: "chat-input", maxlength: MAX_CHARS, autocomplete: "off",
      "aria-describedby": "chat-status",
    });
    this.send = h("button", { type: "submit", id: "chat-send" }, t("chat.send"));
    this.status = h("p", { class: "chat-status small", id: "chat-status", role: "status" });
    this.mutedList = h("div", { class: "chat-muted small", id: "chat-muted" });
    this.blockedNote = h("p", { class: "chat-blocked small", id: "chat-blocked", hidden: true });
    const form = h("form", { class: "chat-form", id: "chat-form", onsubmit: (e) => this.submit(e) },
      h("label", { for: "chat-input" }, t("chat.label", { channel: spectate ? "spectators" : "table" })),
      h("div", { class: "chat-row" }, this.input, this.send));
    this.optIn = spectate ? null : h("input", { type: "checkbox", id: "chat-spectators", onchange: () => this.toggleSpectators() });
    // Folded on a phone (fold()): the summary says how many lines came since it was folded.
    this.unread = h("span", { class: "chat-unread" });
    this.details = h("details", { class: "chat-fold", open: true },
      h("summary", {}, h("h2", { id: "chat-title" }, t("chat.title")), this.unread),
      this.optIn ? h("p", { class: "chat-option small" },
        h("label", { for: "chat-spectators" }, this.optIn, " ", t("chat.show_spectators"))) : null,
      this.box, this.blockedNote, this.mutedList, form, this.status);
    this.details.addEventListener("toggle", () => this.countUnread());
    this.folded = null;
    this.readCount = 0;
    this.el = h("section", { class: "panel chat-panel", id: "chat", "aria-labelledby": "chat-title" }, this.details);
    session.addEventListener("chat", (e) => this.take(e.detail.lines));
    session.addEventListener("change", (e) => {
      const why = e.detail && e.detail.why;
      if (why !== "welcome" && why !== "resumed") return;
      this.take((session.welcome && session.welcome.chat) || []);
      if (this.readSpectators) this.options(true);
    });
    this.renderMuted();
  }

  close() {
    if (this.blocks) this.blocks.removeEventListener("change", this.onBlocks);
  }

  // Folds the chat (a phone, during the game) or opens it; a reader's own choice stands until
  // the page's layout changes again.
  fold(on) {
    if (this.folded === on) return;
    this.folded = on;
    this.details.open = !on;
    this.countUnread();
  }

  countUnread() {
    if (this.details.open) this.readCount = this.lines.length;
    const fresh = this.lines.length - this.readCount;
    const text = !this.details.open && fresh > 0 ? ` ${t("chat.unread", { n: fresh })}` : "";
    if (this.unread.textContent !== text) this.unread.textContent = text;
  }

  me() {
    return this.spectate || !Number.isInteger(this.session.seat) ? null : `seat:${this.session.seat}`;
  }

  // --- lines ----------------------------------------------------------------------------------

  take(lines) {
    if (!Array.isArray(lines)) return;
    const fresh = [];
    for (const line of lines) {
      if (!line || typeof line.text !== "string" || typeof line.sender !== "string") continue;
      const key = `${line.channel}:${line.seq}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.names.set(line.sender, String(line.name));
      fresh.push(line);
    }
    if (!fresh.length) return;
    this.lines.push(...fresh);
    this.lines.sort((a, b) => a.at - b.at || (a.channel === b.channel ? a.seq - b.seq : a.channel === "table" ? -1 : 1));
    const drop = this.lines.length - KEPT;
    if (drop > 0) this.lines.splice(0, drop).forEach((l) => this.seen.delete(`${l.channel}:${l.seq}`));
    const stick = this.box.scrollTop + this.box.clientHeight >= this.box.scrollHeight - 4;
    replace(this.list, this.lines.map((line) => this.lineEl(line)));
    if (stick) this.box.scrollTop = this.box.scrollHeight;
    this.el.dataset.lines = String(this.lines.length);
    this.countUnread();
    if (this.muted.size) this.renderMuted(); // (names learnt from the lines)
    this.countBlocked();
  }

  blocked(line) {
    return Boolean(this.blocks && line.identity && this.blocks.has(line.identity));
  }

  // The blocked players' lines hidden (or shown again after an unblock), and the note.
  showBlocked() {
    const byKey = new Map(this.lines.map((line) => [`${line.channel}:${line.seq}`, line]));
    for (const li of this.list.children) {
      const line = byKey.get(`${li.dataset.channel}:${li.dataset.seq}`);
      if (line) li.hidden = this.muted.has(line.sender) || this.blocked(line);
    }
    this.countBlocked();
  }

  countBlocked() {
    const n = this.lines.filter((line) => this.blocked(line)).length;
    const text = n ? t("chat.blocked", { n }) : "";
    if (this.blockedNote.textContent !== text) this.blockedNote.textContent = text;
    this.blockedNote.hidden = !n;
  }

  lineEl(line) {
    const mine = line.sender === this.me();
    const other = line.channel !== this.channel; // spectators reading the table; seats the stands
    const muted = this.muted.has(line.sender) || this.blocked(line);
    const name = String(line.name);
    return h("li", {
      class: `chat-line${other ? " other-channel" : ""}`,
      dataset: { sender: line.sender, channel: line.channel, seq: String(line.seq), ...(line.identity ? { identity: line.identity } : {}) },
      hidden: muted,
    },
      h("span", { class: "chat-meta" },
        h("time", { datetime: new Date(line.at).toISOString() }, clock(line.at)), " ",
        other ? h("span", { class: "chat-channel" }, t("chat.channel", { channel: line.channel === "table" ? "table" : "spectators" }), " ") : null,
        tx("chat.sender", { name: h("bdi", { class: "chat-name" }, name), you: mine }), " "),
      // the player's own words: a text node, its direction its own (an Arabic line reads right)
      h("span", { class: "chat-text", dir: "auto" }, line.text),
      mine ? null : h("button", {
        type: "button", class: "small chat-mute", "data-key": `mute-${line.sender}-${line.seq}`,
        "aria-label": t("chat.mute_name", { name: isolate(name) }),
        onclick: () => this.setMuted(line.sender, true),
      }, t("chat.mute")));
  }

  setMuted(sender, on) {
    if (on) this.muted.add(sender);
    else this.muted.delete(sender);
    keepMuted(this.table, this.muted);
    for (const li of this.list.children) {
      if (li.dataset.sender === sender) li.hidden = on || this.blocks?.has(li.dataset.identity) || false;
    }
    this.renderMuted();
    const name = this.names.get(sender) || sender;
    announce(t("chat.muted_said", { name: isolate(name), on }));
  }

  renderMuted() {
    if (!this.muted.size) {
      replace(this.mutedList);
      return;
    }
    replace(this.mutedList, t("chat.muted"), " ", [...this.muted].map((sender) => {
      const name = this.names.get(sender) || sender;
      return h("button", {
        type: "button", class: "small chat-unmute", "data-sender": sender,
        onclick: () => this.setMuted(sender, false),
      }, tx("chat.unmute", { name: bdi(name) }));
    }));
  }

  // --- requests -------------------------------------------------------------------------------

  async submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text) return this.tell(refusal("chat/empty"));
    if ([...text].length > MAX_CHARS) return this.tell(refusal("chat/too_long"));
    if (this.sending) return undefined;
    this.sending = true;
    try {
      const result = await this.request({ type: "say", channel: this.channel, text });
      if (result.outcome === "accepted") {
        this.input.value = "";
        this.tell("");
      } else {
        this.tell(refusal(result.code, result.message));
      }
    } catch {
      this.tell(t("chat.not_sent"));
    } finally {
      this.sending = false;
    }
    return undefined;
  }

  async toggleSpectators() {
    const on = this.optIn.checked;
    this.readSpectators = on;
    try {
      await this.options(on);
    } catch {
      // not connected: sent after the reconnect
    }
    for (const line of this.lines) {
      if (line.channel === "spectators" && !on) this.seen.delete(`${line.channel}:${line.seq}`);
    }
    if (!on) {
      this.lines = this.lines.filter((line) => line.channel !== "spectators");
      replace(this.list, this.lines.map((line) => this.lineEl(line)));
      this.countBlocked();
    }
  }

  options(spectators) {
    return this.request({ type: "chat_options", spectators });
  }

  request(message) {
    const connection = this.session.connection;
    if (!connection || this.session.status !== "live") return Promise.reject(new Error("not connected"));
    return connection.request(message);
  }

  tell(text) {
    if (this.status.textContent !== text) this.status.textContent = text;
  }
}
