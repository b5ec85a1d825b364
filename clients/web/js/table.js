// The table page: a seat (join by link, the waiting room, play) or a spectator (watch). It draws
// the view of its TableSession and sends the controls' commands; its parts live beside it:
// entry.js (joining), room.js (the waiting room), logpanel.js (the game log), endgame.js (the
// result, the reveal and the transcript check), clocks.js (the seats' clocks, presence and
// handover, the seat's own controls), and the panels, board and controls modules.

import { renderBoard } from "./board.js";
import { ChatPanel } from "./chat.js";
import { playedByServer, seatControls, seatsPanel, seatsSignature, tick } from "./clocks.js";
import { mySeat, who } from "./describe.js";
import { h, replace, announce, copyText } from "./dom.js";
import { EndOfGame } from "./endgame.js";
import { askResume, joinForm, watchLink } from "./entry.js";
import { helpButton } from "./help.js";
import { LogPanel } from "./logpanel.js";
import { caseFile, evidence, eventSlots, officers, seatBadge } from "./panels.js";
import { WaitingRoom } from "./room.js";
import { TableSession } from "./session.js";
import { TurnMethods } from "./turn.js";
import * as store from "./store.js";
import { renderTrack } from "./track.js";

export { inviteLink, joinTable, watchLink } from "./entry.js";

export class TablePage {
  constructor(root, { table, lobby, spectate, navigate }) {
    this.root = root;
    this.table = table;
    this.lobby = lobby;
    this.spectate = spectate;
    this.navigate = navigate;
    this.session = null;
    this.target = null; // a Force card whose block is being chosen
    this.choice = null; // the accusation chosen, not yet sent
    this.busy = false;
    this.notice = null;
    this.decisionId = null; // the owed decision the dialog is for
    this.autoOpened = false; // whether the dialog was opened for it by itself
    this.spectators = null;
    this.wasMyMove = false;
    this.frame = 0;
    this.timers = [];
    this.signatures = new WeakMap(); // element -> what it last showed (see patch)
  }

  // --- entering -------------------------------------------------------------------------------

  open() {
    if (this.spectate) return this.startSession(null);
    const mine = store.claimedInTab(this.table);
    if (mine) return this.startSession(mine);
    const record = store.seatAt(this.table);
    if (record) return askResume(this, record);
    return joinForm(this);
  }

  startSession(record) {
    this.record = record;
    const session = new TableSession({ table: this.table, token: record ? record.token : null });
    this.session = session;
    session.addEventListener("change", (e) => this.onChange(e.detail.why));
    session.addEventListener("status", () => this.schedule());
    session.addEventListener("verified", () => this.schedule());
    session.addEventListener("reveal-failed", (e) => this.revealFailed(e.detail.message));
    session.addEventListener("log", (e) => this.logPanel && this.logPanel.update(e.detail.reset));
    session.addEventListener("presence", () => this.schedule());
    session.addEventListener("deadline", () => this.renderClock());
    session.addEventListener("clocks", () => this.schedule());
    this.room = new WaitingRoom(this);
    this.end = new EndOfGame(this);
    this.logPanel = new LogPanel(session);
    this.chatPanel = new ChatPanel(session, { table: this.table, spectate: this.spectate });
    this.buildLayout();
    session.start();
    this.every(5000, () => this.pollSpectators());
    this.every(1000, () => this.renderClock());
    this.pollSpectators();
    this.lookUpClock();
  }

  // The table's clock (tables[i].clock), looked up once: the seats show their time banks only
  // when the table has a turn clock.
  async lookUpClock() {
    try {
      const info = await this.lobby.table(this.table);
      this.clock = info.clock || null;
      this.schedule();
    } catch {
      // a nicety: without it a bank shows once it is not empty
    }
  }

  // The decision clock (SPEC.md §6.5): whom the server will answer for, and in how long; shown
  // while the view is at the deadline's version. Not a live region: it ticks every second.
  renderClock() {
    const session = this.session;
    const view = session && session.view;
    const d = session && session.deadline;
    const on = Boolean(view && d && d.version === session.version && view.status !== "over");
    let text = "";
    if (on) {
      const left = Math.max(0, Math.ceil((d.at - Date.now()) / 1000));
      const me = mySeat(view);
      const names = d.seats.map((seat) => who(seat, me, view.players)).join(", ");
      text = `${names}: ${left} s left to answer, then the server answers by default`;
    }
    if (this.el.clock.textContent !== text) this.el.clock.textContent = text;
    this.el.clock.hidden = !on;
    tick(this.el.seats);
  }

  every(ms, fn) {
    this.timers.push(setInterval(fn, ms));
  }

  close() {
    this.timers.forEach(clearInterval);
    this.timers = [];
    if (this.session) this.session.stop();
    this.session = null;
  }

  // --- layout ---------------------------------------------------------------------------------

  buildLayout() {
    this.el = {
      top: h("div", { class: "topbar" }),
      alarm: h("div", { class: "alarm", role: "alert", hidden: true }),
      room: this.room.el,
      result: this.end.el,
      board: h("div", { class: "board-wrap" }),
      track: h("div", { class: "track-wrap", "aria-label": "Time track" }),
      prompt: h("p", { class: "prompt", id: "prompt", role: "status", "aria-live": "polite", tabindex: -1 }),
      turnAlert: h("div", { class: "visually-hidden", id: "turn-alert", "aria-live": "assertive", "aria-atomic": "true" }),
      controls: h("div", { class: "controls", id: "controls" }),
      seatControls: h("div", { class: "controls", id: "seat-controls" }),
      seats: h("div", { id: "seat-clocks" }),
      notice: h("p", { class: "notice", role: "status" }),
      clock: h("p", { class: "clock", "data-clock": "", hidden: true }),
      caseFile: h("div", {}),
      officers: h("div", {}),
      events: h("div", {}),
      evidence: h("div", {}),
      dialog: h("dialog", { id: "decision", "aria-labelledby": "decision-title" }),
    };
    const e = this.el;
    this.game = h("div", { class: "game", id: "game", "data-table": this.table, "data-role": this.spectate ? "spectator" : "seat" },
      e.top, e.alarm, e.room, e.result,
      h("div", { class: "layout" },
        h("div", { class: "col-board" },
          h("section", { class: "panel board-panel", "aria-label": "The city" }, e.board),
          h("section", { class: "panel track-panel" }, h("h2", {}, "Time track"), e.track,
            h("p", { class: "legend small" },
              h("span", { class: "swatch day" }), " day ", h("span", { class: "swatch night" }), " night ",
              h("span", { class: "swatch line" }), " event line (faded once crossed) ",
              h("span", { class: "swatch end" }), " end zone 43–48 · the top of a stack plays first")),
          h("section", { class: "panel officers-panel" }, h("h2", {}, "Officers"), e.officers),
          this.logPanel.el),
        h("div", { class: "col-side" },
          h("section", { class: "panel action-panel", "aria-labelledby": "prompt" }, e.prompt, e.clock, e.notice, e.controls, e.seatControls),
          h("section", { class: "panel seats-panel", "aria-labelledby": "seats-title" }, h("h2", { id: "seats-title" }, "Players and clocks"), e.seats),
          this.spectate ? null : h("section", { class: "panel case-panel" }, h("h2", {}, "Your case file"), e.caseFile),
          h("section", { class: "panel events-panel" }, h("h2", {}, "Event slots"), e.events),
          h("section", { class: "panel evidence-panel" }, h("h2", {}, "Evidence"), e.evidence),
          this.chatPanel.el)),
      h("p", { class: "legend small" }, "Mobsters: ", h("span", { class: "mob-chip mobster-red" }, "R"), " red (striped) ",
        h("span", { class: "mob-chip mobster-blue" }, "B"), " blue (dotted) ",
        h("span", { class: "mob-chip mobster-gray" }, "G"), " gray (grid) · tokens: S Search, K Stakeout (? face down), I Informant, W Witness, ◆ event token of slot n, P1–P4 cars"),
      e.dialog, e.turnAlert);
    e.dialog.addEventListener("close", () => this.schedule());
    this.game.addEventListener("focusin", (event) => {
      this.focusKey = event.target && event.target.dataset ? event.target.dataset.key || event.target.id || null : null;
    });
    replace(this.root, this.game);
    this.logPanel.update(true);
    this.render();
  }

  // --- following the session ------------------------------------------------------------------

  onChange(why) {
    if (!this.session) return;
    this.schedule();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  revealFailed(message) {
    const alarm = this.el.alarm;
    alarm.hidden = false;
    replace(alarm, h("strong", {}, "REVEAL CHECK FAILED: "), message,
      ". The server showed a card or token that does not match what it committed to at the start of the game. Do not trust this game.");
    alarm.dataset.failed = "1";
  }

  async pollSpectators() {
    if (document.hidden || !this.session) return;
    try {
      const reply = await fetch(`/api/spectators/${encodeURIComponent(this.table)}`, { cache: "no-store" });
      if (reply.ok) {
        this.spectators = (await reply.json()).spectators;
        this.schedule();
      }
    } catch {
      // the count is a nicety: never an error
    }
  }

  // --- drawing --------------------------------------------------------------------------------

  state(view) {
    const session = this.session;
    if (session.status === "stopped") return "stopped";
    if (!view) return "connecting";
    if (view.status === "over") return "over";
    if (view.status === "new") return this.spectate ? "spectating" : "waiting-room";
    if (this.spectate) return "spectating";
    const you = view.you || {};
    if (playedByServer(view, you.seat)) return "served";
    if (you.decision) return "decide";
    if ((you.legal || []).length) return "your-turn";
    return "waiting";
  }

  render() {
    const session = this.session;
    if (!session || !this.el) return;
    const view = session.view;
    const state = this.state(view);
    const g = this.game;
    g.dataset.state = state;
    g.dataset.status = view ? view.status : "";
    g.dataset.version = String(session.version);
    g.dataset.connection = session.status;
    g.dataset.busy = this.busy ? "1" : "0";
    const title = `Echo Ridge — ${this.spectate ? "watching" : "table"} ${this.table}`;
    document.title = state === "your-turn" || state === "decide" ? `● Your move — ${title}` : title;
    this.renderTop(view);
    if (session.status === "stopped" && session.problem) {
      this.el.alarm.hidden = false;
      replace(this.el.alarm, session.problem.message, " ",
        session.problem.code === "close/4009" && this.record
          ? h("button", { type: "button", onclick: () => this.navigate(`#/table/${this.table}`, true) }, "Take the seat back here")
          : h("a", { href: "#/" }, "Back to the lobby"));
    }
    if (!view) {
      const text = session.status === "reconnecting" ? "Reconnecting…" : "Connecting…";
      if (this.el.prompt.textContent !== text) this.el.prompt.textContent = text;
      return;
    }
    const me = mySeat(view);
    this.room.render(view);
    this.renderControls(view, state);
    const city = this.end.transcript ? this.end.transcript.final.city : view.city;
    const targets = this.targets(view, state);
    const checked = session.verifier.checked.size;
    const targetSig = [...targets].map(([key, t]) => [key, t.label, t.cmd]);
    this.patch(this.el.board, [city, view.players, view.turn && view.turn.time, me, targetSig, checked],
      () => renderBoard({ ...view, city }, { me, targets, verifier: session.verifier }));
    this.patch(this.el.track, [view.track, view.players, me], () => renderTrack(view, { me }));
    if (!this.spectate) {
      this.patch(this.el.caseFile, [view.you, view.players, checked], () => caseFile(view, session.verifier));
    }
    const presence = session.presence ? session.presence.seats : null;
    this.patch(this.el.officers, [view.players, view.turn, view.status, presence], () => officers(view, session.presence));
    this.patch(this.el.events, [view.events, me], () => eventSlots(view));
    this.patch(this.el.evidence, [view.evidence, view.bag, view.suspects, view.force, view.proofs, view.you && view.you.traits, checked],
      () => evidence(view, session.verifier));
    this.renderSeats(view, me);
    this.end.render(view);
    this.keepFocus();
    this.announceTurn(state);
  }

  // The seats' presence, handover and clocks (clocks.js), and the seat's own controls.
  renderSeats(view, me) {
    const session = this.session;
    const playing = view.status === "playing" || view.status === "accusing";
    this.el.seats.closest("section").hidden = !playing;
    const turnClock = this.clock ? this.clock.turn > 0 : (view.players || []).some((p) => p.bank > 0);
    this.patch(this.el.seats, seatsSignature(view, session, turnClock), () =>
      playing ? seatsPanel(view, session, { me, hasTurnClock: turnClock }) : []);
    tick(this.el.seats);
    const busy = this.busy || session.status !== "live";
    const presence = session.presence ? session.presence.seats : null;
    const names = (view.players || []).map((p) => p.name);
    this.patch(this.el.seatControls, [view.you && view.you.controls, presence, names, busy, view.players && me !== null && view.players[me].bank],
      () => (this.spectate || !playing ? [] : seatControls(view, session.presence, { busy, send: (cmd) => this.send(cmd) })));
    const auto = me !== null && view.players && view.players[me] ? view.players[me].auto || null : null;
    if (this.wasAuto !== undefined && auto !== this.wasAuto) {
      announce(auto ? "The server plays your seat now." : "You play your seat again.");
    }
    this.wasAuto = auto;
  }

  // A rebuilt part of the page can take the focused control away (a command's buttons after
  // it was sent): the focus then goes to the control that took its place, or the prompt,
  // never to the body.
  keepFocus() {
    const active = document.activeElement;
    if (active && active !== document.body && this.game.contains(active)) return;
    if (active && active !== document.body) return; // focus is elsewhere (a dialog, the header)
    if (!this.focusKey) return;
    const key = this.focusKey;
    const again = this.game.querySelector(`[data-key="${CSS.escape(key)}"]`) || document.getElementById(key);
    const dialog = this.el.dialog;
    const fallback = dialog.open
      ? dialog.querySelector("button:not([disabled])")
      : this.el.controls.querySelector("button:not([disabled]), select:not([disabled])") || this.el.prompt;
    const shown = (el) => el && el.isConnected && !el.disabled && (!el.checkVisibility || el.checkVisibility());
    const target = shown(again) ? again : fallback;
    if (target) target.focus({ preventScroll: true });
  }

  // "Your turn" once, assertively, when a move becomes this seat's to make.
  announceTurn(state) {
    const mine = state === "your-turn" || state === "decide";
    if (mine && !this.wasMyMove) this.el.turnAlert.textContent = state === "decide" ? "Your decision" : "Your turn";
    else if (!mine && this.wasMyMove) this.el.turnAlert.textContent = "";
    this.wasMyMove = mine;
  }

  // Rebuilds `el` only when what it shows has changed: a rebuild under the pointer would swallow
  // a click (its mousedown and mouseup would land on different elements).
  patch(el, what, build) {
    const signature = JSON.stringify(what);
    if (this.signatures.get(el) === signature) return;
    this.signatures.set(el, signature);
    replace(el, build());
  }

  renderTop(view) {
    const session = this.session;
    const me = view ? mySeat(view) : null;
    const connection = {
      live: "connected", connecting: "connecting…", reconnecting: "reconnecting…", stopped: "disconnected",
    }[session.status];
    const role = this.spectate
      ? h("span", { class: "pill" }, "spectating")
      : me !== null ? seatBadge(me, me, view.players) : this.record ? seatBadge(this.record.seat, this.record.seat) : null;
    const watching = session.presence && Number.isInteger(session.presence.spectators) ? session.presence.spectators : this.spectators;
    const turn = view && view.turn && view.status === "playing" ? view.turn : null;
    this.patch(this.el.top, [me, this.record && this.record.seat, view && view.status, session.status, watching, turn && [turn.number, turn.time, turn.seat], view && view.players], () => [
      h("h1", { tabindex: -1, "data-key": "page-title" }, `Table ${this.table}`),
      role,
      view ? h("span", { class: "pill", "data-status": view.status }, view.status) : null,
      h("span", { class: `pill conn ${session.status}`, id: "connection" }, connection),
      h("span", { class: "pill muted", id: "version" }),
      watching !== null && watching !== undefined ? h("span", { class: "pill muted", id: "spectator-count" }, `${watching} watching`) : null,
      turn ? h("span", { class: `pill time ${turn.time}`, id: "turn-pill" }, `turn ${turn.number}, ${turn.time}: `, who(turn.seat, me, view.players)) : null,
      h("button", { type: "button", class: "small", "data-key": "copy-watch", onclick: () => this.copy(watchLink(this.table), "Spectator link copied") }, "Copy spectator link"),
      helpButton("help-open")]);
    this.el.top.querySelector("#version").textContent = `version ${Math.max(session.version, 0)}`;
  }

  copy(text, done) {
    copyText(text).then(() => this.say(done), () => this.say(text));
  }

  say(text, cls = "") {
    if (this.el.notice.textContent !== text) this.el.notice.textContent = text;
    this.el.notice.className = `notice ${cls}`;
    if (text) announce(text);
  }
}

// The turn's controls, the board's targets, the decision dialog and sending (turn.js).
Object.assign(TablePage.prototype, TurnMethods);
