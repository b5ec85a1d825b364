// The table for screen readers (#/table/ID?mode=text, #/watch/ID?mode=text; issue 30), after
// lichess's blind mode: a page of headings (your turn, what happens, the city, the officers,
// the time track, the events and evidence, your case file, the players and clocks, the log, the
// chat), each a region a screen reader can jump to; the board as text, block by block by name;
// a live region that says each version's happenings once, in order (textmode-announce.js); a
// labelled command box with completion, help and a numbered menu of everything the seat may do
// now (textmode-commands.js, textmode-menu.js); short sound cues that can be turned off
// (textmode-sound.js). Its words are in textmode-words.js.
//
// It is the table page (table.js) drawn differently: the same session, store and seat (joining,
// the waiting room, the result, the log panel, the chat and the clocks are the table page's
// own); only the layout, the drawing and the sending are its own. A refused command is said
// from its code, in the page's language.

import { seatsPanel, seatsSignature, tick } from "./clocks.js";
import { blockName, mySeat } from "./describe.js";
import { h, replace } from "./dom.js";
import { codeText, t } from "./i18n.js";
import { TablePage } from "./table.js";
import * as tour from "./tour.js";
import { Happenings } from "./textmode-announce.js";
import { completions, runLine } from "./textmode-commands.js";
import { menuItems, turnPrompt } from "./textmode-menu.js";
import { SoundCues } from "./textmode-sound.js";
import { modeSwitch } from "./textmode-switch.js";
import {
  ALL_BLOCKS, caseWords, contents, eventsWords, evidenceWords, officerWords, suspectWords, trackWords,
} from "./textmode-words.js";

const KEEP = 600; // the lines the live region keeps
// The board's "what just happened" panel (lastmove.js) is not drawn here: the live region says it.
const NO_LAST_MOVES = { el: null, highlight: null, update() {}, render() {} };

export class TextTablePage extends TablePage {
  constructor(root, options) {
    super(root, options);
    this.sounds = new SoundCues();
    this.happenings = new Happenings(this);
  }

  startSession(record) {
    super.startSession(record);
    tour.detach(this); // the guided tour points at the board's parts: not here
    const session = this.session;
    session.addEventListener("log", (e) => this.happenings.log(e.detail));
    session.addEventListener("change", () => this.happenings.change());
  }

  close() {
    this.sounds.close();
    super.close();
  }

  // --- the layout -------------------------------------------------------------------------------

  buildLayout() {
    this.lastMoves = NO_LAST_MOVES;
    linkStyle();
    const section = (id, title, ...body) => h("section", { class: "text-part", id: `part-${id}`, "aria-labelledby": `part-${id}-title` },
      h("h2", { id: `part-${id}-title` }, title), body);
    const input = h("input", {
      id: "text-input", type: "text", list: "text-choices", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
      "aria-describedby": "text-input-hint", "data-key": "text-input",
    });
    const form = h("form", { id: "text-form", class: "text-form" },
      h("label", { for: "text-input" }, t("text.input.label")), " ", input, " ",
      h("button", { type: "submit", id: "text-do" }, t("text.input.submit")),
      h("p", { class: "hint", id: "text-input-hint" }, t("text.input.hint")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const line = input.value;
      input.value = "";
      this.command(line);
    });
    const sound = h("input", { type: "checkbox", id: "text-sound", checked: this.sounds.on, onchange: () => this.setSound(sound.checked) });
    const el = {
      title: h("h1", { tabindex: -1, "data-key": "page-title" }, t(this.spectate ? "text.h1.watch" : "text.h1", { table: this.table })),
      status: h("p", { id: "text-status" }),
      alarm: h("div", { class: "alarm", role: "alert", hidden: true }),
      prompt: h("p", { id: "prompt", class: "prompt", tabindex: -1 }),
      clock: h("p", { class: "clock", hidden: true }),
      input,
      sound,
      choices: h("datalist", { id: "text-choices" }),
      answer: h("div", { id: "text-answer", class: "text-answer", role: "status", "aria-live": "polite" }),
      menu: h("ul", { id: "text-menu", class: "plain text-menu", "aria-labelledby": "text-menu-title" }),
      happenings: h("div", { id: "text-happenings", class: "text-happenings", role: "log", "aria-live": "polite", "aria-label": t("text.h.happenings"), tabindex: 0 }),
      city: h("div", { id: "text-city-body" }),
      officers: h("ul", { class: "text-lines" }),
      track: h("ul", { class: "text-lines" }),
      events: h("ul", { class: "text-lines" }),
      caseFile: h("ul", { class: "text-lines" }),
      seats: h("div", { id: "seat-clocks" }),
      notice: null,
      chatHome: h("div", { class: "chat-home" }),
    };
    const game = h("div", { class: "game text-mode", id: "game", "data-table": this.table, "data-role": this.spectate ? "spectator" : "seat", "data-mode": "text" },
      modeSwitch(this, true),
      el.title, el.status, el.alarm, this.room.el, this.end.el,
      section("turn", t(this.spectate ? "text.h.game" : "text.h.turn"), el.prompt, el.clock, form, el.choices, el.answer,
        h("p", { class: "text-sound" }, sound, " ", h("label", { for: "text-sound" }, t("text.sound.label"))),
        this.spectate ? null : [h("h3", { id: "text-menu-title" }, t("text.h.menu")), el.menu]),
      section("happenings", t("text.h.happenings"), el.happenings),
      section("city", t("text.h.city"), el.city),
      section("officers", t("text.h.officers"), el.officers),
      section("track", t("text.h.track"), el.track),
      section("events", t("text.h.events"), el.events),
      this.spectate ? null : section("case", t("text.h.case"), el.caseFile),
      section("clocks", t("text.h.clocks"), el.seats),
      this.logPanel.el,
      el.chatHome);
    game.addEventListener("focusin", (event) => {
      this.focusKey = event.target && event.target.dataset ? event.target.dataset.key || event.target.id || null : null;
    });
    replace(this.root, game);
    this.el = el;
    this.game = game;
    this.logPanel.update(true);
    this.render();
    input.focus();
  }

  // --- drawing ----------------------------------------------------------------------------------

  render() {
    const session = this.session;
    if (!session || !this.el) return;
    const view = session.view;
    const state = this.state(view);
    this.markGame(view, state);
    const mine = state === "your-turn" || state === "decide";
    document.title = t(mine ? "text.title.move" : "text.title", { table: this.table, watch: this.spectate ? "yes" : "no" });
    this.patch(this.el.status, [session.status, view && view.status], () =>
      t("text.status", { connection: session.status, status: view ? view.status : "none" }));
    if (session.status === "stopped" && session.problem) {
      this.el.alarm.hidden = false;
      this.patch(this.el.alarm, [session.problem.code], () => t("text.stopped", { code: session.problem.code || "" }));
    }
    if (!view) return;
    const me = mySeat(view);
    this.room.render(view);
    this.end.render(view);
    this.placeChat(view);
    const words = turnPrompt(view);
    const text = state === "served" ? t("text.prompt.served") : state === "stopped" ? t("text.prompt.stopped") : this.busy ? t("text.prompt.sending") : words;
    if (this.el.prompt.textContent !== text) this.el.prompt.textContent = text;
    const away = this.awaySeats();
    const items = this.spectate ? [] : menuItems(view, away);
    this.patch(this.el.menu, [items.map((i) => i.label), this.busy], () => (items.length
      ? items.map((item, i) => h("li", {}, h("button", {
        type: "button", class: "cmd", "data-key": `text-menu-${i + 1}`, "data-n": i + 1, disabled: this.busy,
        onclick: () => this.perform(item.cmd),
      }, t("text.menu.line", { n: i + 1, label: item.label }))))
      : h("li", { class: "muted" }, t("text.menu.empty"))));
    const choices = completions(view, this.spectate, away);
    this.patch(this.el.choices, choices, () => choices.map((c) => h("option", { value: c.value, label: c.label })));
    this.patch(this.el.city, [view.city, view.players, me], () => cityTable(view));
    this.patch(this.el.officers, [view.players, view.turn, view.status, view.coop], () => lines(view.players.map((p) => officerWords(view, p).join(" "))));
    this.patch(this.el.track, [view.track, view.players, view.turn, view.coop], () => lines(trackWords(view)));
    this.patch(this.el.events, [view.events, view.evidence, view.you && view.you.traits], () => lines([...eventsWords(view), ...evidenceWords(view)]));
    if (!this.spectate) {
      this.patch(this.el.caseFile, [view.you, view.players, view.coop], () => lines([...caseWords(view), ...suspectWords(view)]));
    }
    const playing = view.status === "playing" || view.status === "accusing";
    const turnClock = this.hasTurnClock();
    this.patch(this.el.seats, [seatsSignature(view, session, turnClock)], () =>
      (playing ? seatsPanel(view, session, { me, hasTurnClock: turnClock }) : h("p", { class: "muted" }, t("text.clocks.none"))));
    tick(this.el.seats);
  }

  placeChat(view) {
    const chat = this.chatPanel;
    const home = view.status === "new" ? this.room.chatHome : this.el.chatHome;
    if (home && chat.el.parentNode !== home) home.append(chat.el);
  }

  hasTurnClock() {
    const view = this.session && this.session.view;
    return this.clock ? this.clock.turn > 0 : Boolean(view && (view.players || []).some((p) => p.bank > 0));
  }

  awaySeats() {
    const presence = this.session && this.session.presence;
    return new Set(((presence && presence.seats) || []).filter((s) => !s.connected).map((s) => s.seat));
  }

  // The decision clock (SPEC.md §6.5), every second: not a live region (the `c` command says it).
  renderClock() {
    const session = this.session;
    if (!session || !this.el) return;
    const view = session.view;
    const d = session.deadline;
    const on = Boolean(view && d && d.version === session.version && view.status !== "over");
    const text = on ? t("text.clock.decision", { seconds: Math.max(0, Math.ceil((d.at - Date.now()) / 1000)), mine: d.seats.includes(mySeat(view)) ? "yes" : "no" }) : "";
    if (this.el.clock.textContent !== text) this.el.clock.textContent = text;
    this.el.clock.hidden = !on;
    tick(this.el.seats);
  }

  // --- saying -----------------------------------------------------------------------------------

  // Adds `sentences` to the live region (one paragraph each, said once, in order).
  announce(sentences, { version = null, prompt = false, end = false } = {}) {
    const box = this.el && this.el.happenings;
    if (!box || !sentences.length) return;
    const cls = prompt ? "said prompt" : end ? "said end" : "said";
    box.append(...sentences.map((s) => h("p", { class: cls, "data-version": version === null ? null : version }, s)));
    while (box.childElementCount > KEEP) box.firstElementChild.remove();
    box.scrollTop = box.scrollHeight;
  }

  // The answer to a typed command (or a notice of the table page): replaces the last one.
  answer(sentences, bad = false) {
    const box = this.el && this.el.answer;
    if (!box) return;
    box.classList.toggle("error", Boolean(bad));
    replace(box, sentences.map((s) => h("p", {}, s)));
    if (bad) this.sounds.play("failure");
  }

  say(text, cls = "") {
    if (text) this.answer([text], cls === "error");
  }

  setSound(on) {
    this.sounds.set(on);
    if (on) this.sounds.wake();
    if (this.el && this.el.sound.checked !== on) this.el.sound.checked = on;
  }

  // --- commands ---------------------------------------------------------------------------------

  command(line) {
    const session = this.session;
    runLine({
      view: session ? session.view : null,
      session,
      spectate: this.spectate,
      sounds: this.sounds,
      away: this.awaySeats(),
      hasTurnClock: () => this.hasTurnClock(),
      answer: (sentences, bad) => this.answer(sentences, bad),
      perform: (cmd) => this.perform(cmd),
      setSound: (on) => this.setSound(on),
    }, line);
  }

  // Sends one of the server's commands (you.legal or you.controls) as it is; says a refusal.
  async perform(cmd) {
    const session = this.session;
    if (!session || this.spectate) return;
    if (this.busy) {
      this.answer([t("text.reply.busy")], true);
      return;
    }
    const item = menuItems(session.view, this.awaySeats()).find((i) => i.cmd === cmd);
    this.busy = true;
    this.answer([t("text.reply.doing", { label: item ? item.label : cmd.type })]);
    this.render();
    try {
      const result = await session.command(cmd);
      if (result.outcome === "rejected") this.answer([refusal(result.code)], true);
      else this.answer([]); // what it did is said in the live region
    } catch {
      this.answer([t("text.reply.not_sent")], true);
    } finally {
      this.busy = false;
      this.render();
    }
  }
}

// A refusal in words, from its code (never the server's English message).
export function refusal(code) {
  if (code === "command/stale_version") return t("text.reply.stale");
  return t("text.reply.refused", { reason: codeText(code) });
}

function lines(sentences) {
  return sentences.map((s) => h("li", {}, s));
}

// The city as a table of its blocks, row by row, each cell a block's name and what is on it; the
// row and column headers say whether that row's Informant and that column's Witness are still
// there. A screen reader's table keys move from a block to the ones beside it.
function cityTable(view) {
  const city = view.city || {};
  const informants = new Set(city.informants || []);
  const witnesses = new Set(city.witnesses || []);
  const rows = [1, 2, 3, 4, 5];
  return h("table", { class: "text-city" },
    h("caption", {}, t("text.city.caption")),
    h("thead", {}, h("tr", {}, h("td", {}),
      rows.map((col) => h("th", { scope: "col" }, t("text.city.col", { col, witness: witnesses.has(col) ? "yes" : "no" }))))),
    h("tbody", {}, rows.map((row) => h("tr", {},
      h("th", { scope: "row" }, t("text.city.row", { row, informant: informants.has(row) ? "yes" : "no" })),
      ALL_BLOCKS.filter((b) => b[1] === row).map((b) => {
        const what = contents(view, b);
        return h("td", { "data-block": b.join(",") }, h("strong", {}, blockName(view, b)), what ? h("span", { class: "what" }, what) : null);
      })))));
}

// textmode.css, once.
function linkStyle() {
  if (document.getElementById("textmode-style")) return;
  document.head.append(h("link", { rel: "stylesheet", href: "/textmode.css", id: "textmode-style" }));
}
