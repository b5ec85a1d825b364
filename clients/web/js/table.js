// The table page: a seat (join by link, the waiting room, play) or a spectator (watch). It draws
// the view of its TableSession and sends the controls' commands. After the game it fetches the
// transcript (lobby `transcript`), verifies it, shows everything that was hidden, and offers
// the transcript as a JSON download.

import { renderBoard } from "./board.js";
import { Refused } from "./connection.js";
import { turnControls, decisionBody } from "./controls.js";
import { commandKey, describe, mySeat, prompt } from "./describe.js";
import { h, replace, announce, copyText } from "./dom.js";
import { usingWebCrypto, toHex, verifyTranscript } from "./fairness.js";
import { changes } from "./journal.js";
import { caseFile, evidence, eventSlots, fullReveal, officers, resultPanel, seatBadge } from "./panels.js";
import { TableSession } from "./session.js";
import * as store from "./store.js";
import { renderTrack } from "./track.js";

const LOG_LINES = 400;

export function inviteLink(table) {
  return `${location.origin}/#/table/${table}`;
}

export function watchLink(table) {
  return `${location.origin}/#/watch/${table}`;
}

function randomSeedHex() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return toHex(bytes);
}

function errorText(err) {
  if (err instanceof Refused) {
    switch (err.code) {
      case "table/full": return "Every seat at this table is taken.";
      case "table/started": return "The game at this table has already started.";
      case "table/not_found": return "There is no such table.";
      case "table/not_full": return "Not every seat is taken yet: invite friends or add bots.";
      default: return `${err.message} (${err.code})`;
    }
  }
  return err && err.message ? err.message : String(err);
}

// Joins `table` with the name typed; resolves to the seat record kept for it.
export async function joinTable(lobby, table, name, extra = {}) {
  const clientSeed = randomSeedHex();
  const joined = await lobby.join(table, name, clientSeed);
  const record = { seat: joined.seat, token: joined.token, name, client_seed: clientSeed, ...extra };
  store.keepSeat(table, record);
  store.keepName(name);
  return record;
}

export class TablePage {
  constructor(root, { table, lobby, spectate, navigate }) {
    this.root = root;
    this.table = table;
    this.lobby = lobby;
    this.spectate = spectate;
    this.navigate = navigate;
    this.session = null;
    this.previous = null;
    this.target = null; // a Force card whose block is being chosen
    this.choice = null; // the accusation chosen, not yet sent
    this.busy = false;
    this.notice = null;
    this.decisionId = null; // the owed decision the dialog is for
    this.autoOpened = false; // whether the dialog was opened for it by itself
    this.transcript = null;
    this.transcriptState = null;
    this.verification = null;
    this.spectators = null;
    this.roomInfo = null;
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
    if (record) return this.askResume(record);
    return this.joinForm();
  }

  askResume(record) {
    replace(this.root, h("section", { class: "card narrow" },
      h("h1", {}, `Table ${this.table}`),
      h("p", {}, "This browser holds seat ", seatBadge(record.seat, null), ` (${record.name}) at this table.`),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "resume-seat", autofocus: true, onclick: () => {
          store.claimInTab(this.table, record);
          this.startSession(record);
        } }, `Continue as P${record.seat + 1}`),
        h("button", { type: "button", id: "join-another", onclick: () => this.joinForm(true) }, "Take another seat"),
        h("button", { type: "button", onclick: () => this.navigate(`#/watch/${this.table}`) }, "Watch instead"))));
    this.root.querySelector("#resume-seat").focus();
  }

  joinForm(another = false) {
    const nameInput = h("input", { id: "join-name", name: "name", required: true, maxlength: 32, autocomplete: "nickname", value: store.name() || "" });
    const status = h("p", { class: "status", role: "status" });
    const form = h("form", { class: "card narrow", id: "join-form" },
      h("h1", {}, `Join table ${this.table}`),
      h("p", {}, another ? "Take another free seat at this table." : "A friend invited you to this table. Choose a name and take a free seat."),
      h("label", { for: "join-name" }, "Your name"), nameInput,
      h("div", { class: "buttons" },
        h("button", { type: "submit", class: "primary", id: "join-submit" }, "Join the table"),
        h("button", { type: "button", onclick: () => this.navigate(`#/watch/${this.table}`) }, "Watch instead"),
        h("a", { href: "#/", class: "button-link" }, "Back to the lobby")),
      status);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = nameInput.value.trim();
      if (!name) return;
      status.textContent = "Joining…";
      try {
        const record = await joinTable(this.lobby, this.table, name);
        this.startSession(record);
      } catch (err) {
        status.textContent = errorText(err);
        if (err instanceof Refused && (err.code === "table/full" || err.code === "table/started")) {
          status.append(" ", h("a", { href: `#/watch/${this.table}` }, "Watch it instead."));
        }
      }
    });
    replace(this.root, form);
    nameInput.focus();
  }

  startSession(record) {
    this.record = record;
    const session = new TableSession({ table: this.table, token: record ? record.token : null });
    this.session = session;
    session.addEventListener("change", (e) => this.onChange(e.detail.why));
    session.addEventListener("status", () => this.schedule());
    session.addEventListener("verified", () => this.schedule());
    session.addEventListener("reveal-failed", (e) => this.revealFailed(e.detail.message));
    this.buildLayout();
    session.start();
    this.every(5000, () => this.pollSpectators());
    this.pollSpectators();
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
      room: h("section", { class: "card waiting-room", hidden: true, "aria-label": "Waiting room" }),
      result: h("div", { class: "end" }),
      board: h("div", { class: "board-wrap" }),
      track: h("div", { class: "track-wrap", "aria-label": "Time track" }),
      prompt: h("p", { class: "prompt", id: "prompt", role: "status", "aria-live": "polite" }),
      controls: h("div", { class: "controls", id: "controls" }),
      notice: h("p", { class: "notice", role: "status" }),
      caseFile: h("div", {}),
      officers: h("div", {}),
      events: h("div", {}),
      evidence: h("div", {}),
      log: h("ul", { class: "log", id: "log", "aria-live": "polite", "aria-label": "Game log" }),
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
          h("section", { class: "panel log-panel" }, h("h2", {}, "Log"), e.log)),
        h("div", { class: "col-side" },
          h("section", { class: "panel action-panel", "aria-labelledby": "prompt" }, e.prompt, e.notice, e.controls),
          this.spectate ? null : h("section", { class: "panel case-panel" }, h("h2", {}, "Your case file"), e.caseFile),
          h("section", { class: "panel events-panel" }, h("h2", {}, "Event slots"), e.events),
          h("section", { class: "panel evidence-panel" }, h("h2", {}, "Evidence"), e.evidence))),
      h("p", { class: "legend small" }, "Mobsters: ", h("span", { class: "mob-chip mobster-red" }, "R"), " red (striped) ",
        h("span", { class: "mob-chip mobster-blue" }, "B"), " blue (dotted) ",
        h("span", { class: "mob-chip mobster-gray" }, "G"), " gray (grid) · tokens: S Search, K Stakeout (? face down), I Informant, W Witness, ◆ event token of slot n, P1–P4 cars"),
      e.dialog);
    e.dialog.addEventListener("close", () => this.schedule());
    replace(this.root, this.game);
    for (const line of this.session.log) e.log.append(h("li", {}, line));
    this.render();
  }

  // --- following the session ------------------------------------------------------------------

  onChange(why) {
    const session = this.session;
    if (!session) return;
    const view = session.view;
    if (view && view !== this.previous && why !== "stopped") {
      const lines = changes(this.previous, view);
      if (this.previous === null && why === "resumed") lines.length = 0;
      this.previous = view;
      if (lines.length) {
        session.log.push(...lines);
        if (session.log.length > LOG_LINES) session.log.splice(0, session.log.length - LOG_LINES);
        for (const line of lines) this.el.log.append(h("li", { class: line.startsWith("—") ? "turn-line" : "" }, line));
        while (this.el.log.childElementCount > LOG_LINES) this.el.log.firstElementChild.remove();
        this.el.log.scrollTop = this.el.log.scrollHeight;
      }
    }
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
      this.el.prompt.textContent = session.status === "reconnecting" ? "Reconnecting…" : "Connecting…";
      return;
    }
    const me = mySeat(view);
    this.el.room.hidden = view.status !== "new";
    if (view.status === "new") this.renderRoom();
    this.renderControls(view, state);
    const city = this.transcript ? this.transcript.final.city : view.city;
    const targets = this.targets(view, state);
    const checked = session.verifier.checked.size;
    const targetSig = [...targets].map(([key, t]) => [key, t.label, t.cmd]);
    this.patch(this.el.board, [city, view.players, view.turn && view.turn.time, me, targetSig, checked],
      () => renderBoard({ ...view, city }, { me, targets, verifier: session.verifier }));
    this.patch(this.el.track, [view.track, view.players, me], () => renderTrack(view, { me }));
    if (!this.spectate) {
      this.patch(this.el.caseFile, [view.you, view.players, checked], () => caseFile(view, session.verifier));
    }
    this.patch(this.el.officers, [view.players, view.turn, view.status], () => officers(view));
    this.patch(this.el.events, [view.events, me], () => eventSlots(view));
    this.patch(this.el.evidence, [view.evidence, view.bag, view.suspects, view.force, view.proofs, view.you && view.you.traits, checked],
      () => evidence(view, session.verifier));
    this.renderEnd(view);
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
      : me !== null ? seatBadge(me, me) : this.record ? seatBadge(this.record.seat, this.record.seat) : null;
    const turn = view && view.turn && view.status === "playing" ? view.turn : null;
    this.patch(this.el.top, [me, this.record && this.record.seat, view && view.status, session.status, this.spectators, turn && [turn.number, turn.time]], () => [
      h("h1", {}, `Table ${this.table}`),
      role,
      view ? h("span", { class: "pill", "data-status": view.status }, view.status) : null,
      h("span", { class: `pill conn ${session.status}`, id: "connection" }, connection),
      h("span", { class: "pill muted", id: "version" }),
      this.spectators !== null ? h("span", { class: "pill muted", id: "spectator-count" }, `${this.spectators} watching`) : null,
      turn ? h("span", { class: `pill time ${turn.time}` }, `turn ${turn.number}, ${turn.time}`) : null,
      h("button", { type: "button", class: "small", "data-key": "copy-watch", onclick: () => this.copy(watchLink(this.table), "Spectator link copied") }, "Copy spectator link")]);
    this.el.top.querySelector("#version").textContent = `version ${Math.max(session.version, 0)}`;
  }

  copy(text, done) {
    copyText(text).then(() => this.say(done), () => this.say(text));
  }

  say(text, cls = "") {
    this.el.notice.textContent = text;
    this.el.notice.className = `notice ${cls}`;
    announce(text);
  }

  targets(view, state) {
    const map = new Map();
    if (this.busy || this.spectate) return map;
    const you = view.you || {};
    const legal = you.legal || [];
    const add = (cmd, label) => {
      const key = cmd.block ? cmd.block.join(",") : cmd.path[cmd.path.length - 1].join(",");
      if (!map.has(key)) map.set(key, { label, cmd, pick: () => this.send(cmd) });
    };
    if (state === "decide" && you.decision.kind === "peek") {
      legal.filter((c) => c.type === "peek_token").forEach((c) => add(c, describe(c, view)));
    } else if (state === "your-turn") {
      if (this.target) {
        this.target.cmds.filter((c) => legal.some((l) => commandKey(l) === commandKey(c)))
          .forEach((c) => add(c, this.target.label(c)));
      } else {
        legal.filter((c) => c.type === "drive").forEach((c) => add(c, describe(c, view)));
      }
    }
    return map;
  }

  renderControls(view, state) {
    const session = this.session;
    const you = view.you || {};
    const legal = you.legal || [];
    let text = prompt(view);
    if (state === "stopped") text = "Disconnected";
    else if (session.status === "reconnecting") text = `Reconnecting… (${text})`;
    if (this.busy) text = "Sending…";
    this.el.prompt.textContent = text;
    const ctx = {
      busy: this.busy || session.status !== "live",
      send: (cmd) => this.send(cmd),
      target: this.target,
      setTarget: (target) => {
        this.target = target;
        this.render();
      },
      choice: this.choice,
      setChoice: (cmd) => {
        this.choice = cmd;
        this.render();
      },
    };
    if (this.target && !legal.some((c) => c.type === "play_force" && c.card === this.target.card)) this.target = null;
    const dialog = this.el.dialog;
    if (state === "decide") {
      const id = `${you.decision.kind}|${legal.map(commandKey).join(" ")}`;
      if (this.decisionId !== id) {
        this.decisionId = id;
        this.autoOpened = false;
      }
      const labels = legal.map((c) => describe(c, view));
      this.patch(dialog, [state, legal, you.decision, labels, ctx.busy, this.choice, view.you.traits], () => [
        decisionBody(view, legal, ctx),
        h("div", { class: "buttons dialog-foot" },
          h("button", { type: "button", class: "small", "data-key": "dialog-hide", onclick: () => dialog.close() }, "Look at the board first"))]);
      this.patch(this.el.controls, [state], () =>
        h("button", { type: "button", class: "primary", id: "open-decision", "data-key": "open-decision", onclick: () => this.showDialog() }, "Decide…"));
      if (!this.autoOpened) {
        this.autoOpened = true;
        this.showDialog();
      }
      return;
    }
    this.decisionId = null;
    this.choice = null;
    if (dialog.open) dialog.close();
    const controls = this.el.controls;
    if (state === "your-turn") {
      const labels = legal.map((c) => describe(c, view));
      const here = view.you && view.you.known_tokens;
      this.patch(controls, [state, legal, labels, ctx.busy, this.target && this.target.card, here], () => turnControls(view, legal, ctx));
    } else if (state === "over") {
      this.patch(controls, [state], () => h("p", {}, "The game is over. ", h("a", { href: "#/" }, "Back to the lobby")));
    } else if (state === "spectating") {
      this.patch(controls, [state], () => h("p", { class: "muted" }, "You are watching: the public view, without anyone's secrets."));
    } else if (state === "waiting-room") {
      this.patch(controls, [state], () => h("p", { class: "muted" }, "The game has not started yet."));
    } else {
      this.patch(controls, [state], () => []);
    }
  }

  showDialog() {
    const dialog = this.el.dialog;
    if (!dialog.open) dialog.showModal();
    const first = dialog.querySelector("button.cmd:not([disabled]), .suspect-choice:not([disabled])");
    if (first) first.focus();
  }

  async send(cmd) {
    if (this.busy || !this.session) return;
    this.busy = true;
    this.target = null;
    this.say("");
    this.render();
    try {
      const result = await this.session.command(cmd);
      if (result.outcome === "rejected") {
        if (result.code === "command/stale_version") this.say("Someone moved first: look again and choose.", "warn");
        else this.say(`Refused: ${result.message || result.code}`, "error");
      } else {
        this.choice = null;
        this.decisionId = null; // the next decision opens its dialog by itself
      }
    } catch (err) {
      this.say(`Could not send: ${errorText(err)}`, "error");
    } finally {
      this.busy = false;
      if (this.el.dialog.open && this.state(this.session.view) !== "decide") this.el.dialog.close();
      this.render();
    }
  }

  // --- the waiting room -------------------------------------------------------------------------

  renderRoom() {
    const room = this.el.room;
    if (this.spectate) {
      replace(room, h("h2", {}, "Waiting for the game to start"), h("p", {}, "The board appears when the players start the game."));
      return;
    }
    if (!this.roomBuilt) this.buildRoom();
    const info = this.roomInfo;
    const seats = this.record.seats;
    let text;
    if (info && info.listed) text = `${info.taken} of ${info.seats} seats taken.`;
    else if (info && info.isPublic === true) text = "Every seat is taken: start the game!";
    else text = seats ? `${seats} seats.` : "A private table: its seats are not listed.";
    this.el.roomSeats.textContent = text;
  }

  buildRoom() {
    this.roomBuilt = true;
    const room = this.el.room;
    const link = inviteLink(this.table);
    const kind = h("select", { id: "bot-kind", "aria-label": "Bot kind" },
      h("option", { value: "greedy" }, "greedy bot (plays to win)"),
      h("option", { value: "random" }, "random bot"));
    this.el.roomSeats = h("p", { id: "room-seats", role: "status" });
    this.el.roomStatus = h("p", { class: "status", role: "status", id: "room-status" });
    replace(room,
      h("h2", {}, "Waiting room"),
      h("p", {}, "You are ", seatBadge(this.record.seat, this.record.seat), ` (${this.record.name}).`),
      h("label", { for: "invite-link" }, "Invite friends: send them this link. Opening it takes a free seat."),
      h("div", { class: "row" },
        h("input", { id: "invite-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
        h("button", { type: "button", id: "copy-invite", onclick: () => this.copy(link, "Invite link copied") }, "Copy")),
      this.el.roomSeats,
      h("div", { class: "row" }, kind,
        h("button", { type: "button", id: "add-bot", onclick: () => this.roomAction(() => this.lobby.addBot(this.table, this.record.token, kind.value), "A bot took a seat.") }, "Add a bot")),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "start-game", onclick: () => this.roomAction(() => this.lobby.start(this.table, this.record.token), "The game starts!") }, "Start the game"),
        h("button", { type: "button", id: "leave-seat", onclick: () => this.leave() }, "Give up my seat")),
      this.el.roomStatus);
    this.pollRoom();
    this.every(2000, () => this.pollRoom());
  }

  async roomAction(action, done) {
    this.el.roomStatus.textContent = "…";
    try {
      await action();
      this.el.roomStatus.textContent = done;
      this.pollRoom();
    } catch (err) {
      this.el.roomStatus.textContent = errorText(err);
    }
  }

  async pollRoom() {
    const view = this.session && this.session.view;
    if (!view || view.status !== "new" || document.hidden) return;
    try {
      const tables = await this.lobby.tables();
      const row = tables.find((t) => t.table === this.table);
      const isPublic = this.record.public ?? (row ? true : this.roomInfo ? this.roomInfo.isPublic : null);
      this.roomInfo = row ? { listed: true, taken: row.taken, seats: row.seats, isPublic: true } : { listed: false, isPublic };
      this.renderRoom();
    } catch {
      // the lobby is away: try again on the next tick
    }
  }

  async leave() {
    try {
      await this.lobby.leave(this.table, this.record.token);
    } catch (err) {
      this.el.roomStatus.textContent = errorText(err);
      return;
    }
    store.forgetSeat(this.table);
    this.navigate("#/");
  }

  // --- the end ----------------------------------------------------------------------------------

  renderEnd(view) {
    const end = this.el.result;
    if (view.status !== "over") {
      this.patch(end, null, () => []);
      return;
    }
    if (!this.transcriptState) this.fetchTranscript();
    const what = [view.result, this.transcriptState, this.transcriptError, Boolean(this.transcript), this.verification, this.progress, this.seedCheck];
    this.patch(end, what, () => this.endParts(view));
  }

  endParts(view) {
    const parts = [resultPanel(view)];
    if (this.transcript) {
      parts.push(fullReveal(this.transcript));
    }
    const v = this.verification;
    const verify = h("section", { class: "verify", "aria-label": "Fairness check", "data-verified": v ? (v.ok ? "ok" : "failed") : "pending" },
      h("h2", {}, "Was the deal fair?"),
      this.transcriptState === "loading" ? h("p", {}, "Fetching the transcript…") : null,
      this.transcriptState === "error" ? h("p", { class: "error" }, this.transcriptError) : null,
      v === null && this.transcript ? h("p", {}, `Checking the transcript… ${this.progress || ""}`) : null,
      v ? h("ul", { class: "plain checks" }, v.checks.map((c) => h("li", {}, h("span", { class: "verified" }, "✓ "), c)),
        v.ok ? null : h("li", { class: "error" }, `✘ ${v.problem}`)) : null,
      v && this.seedCheck ? h("p", {}, this.seedCheck) : null,
      this.transcript ? h("p", {},
        h("a", { href: this.downloadUrl, download: `echoridge-${this.table}.json`, id: "transcript-link", class: "button-link" }, "Download the verifiable transcript (JSON)"),
        h("small", {}, ` Check it fully with: echo-ridge verify echoridge-${this.table}.json`)) : null,
      h("p", { class: "small muted" }, usingWebCrypto ? "Checked in this page with Web Crypto (SHA-256, HMAC)." : "Checked in this page (this is not a secure context, so a built-in SHA-256 stands in for Web Crypto)."));
    parts.push(verify);
    return parts;
  }

  async fetchTranscript() {
    this.transcriptState = "loading";
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        this.transcript = await this.lobby.transcript(this.table);
        break;
      } catch (err) {
        if (!(err instanceof Refused && err.code === "table/not_finished") || attempt === 19) {
          this.transcriptState = "error";
          this.transcriptError = `The transcript could not be fetched: ${errorText(err)}`;
          this.schedule();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    this.transcriptState = "loaded";
    const text = JSON.stringify(this.transcript, null, 1);
    this.downloadUrl = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    this.schedule();
    const report = await verifyTranscript(this.transcript, (done, total) => {
      this.progress = `${done}/${total}`;
      if (done % 25 === 0) this.schedule();
    });
    if (this.record && this.record.client_seed && Number.isInteger(this.record.seat)) {
      const mine = (this.transcript.client_seeds || [])[this.record.seat];
      this.seedCheck = mine === this.record.client_seed
        ? "✓ Your client seed went into the game seed."
        : "✘ Your client seed is not the one in the transcript!";
    }
    this.verification = report;
    this.schedule();
  }
}
