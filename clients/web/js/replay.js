// A finished game replayed (#/replay/ID, issue 27): the lobby request `replay` (SPEC.md §4.7)
// gives the game as one viewer saw it, a page of versions at a time: the viewer's whole view at
// the page's `start`, then each version's delta (delta.js) and log entries. The views are drawn
// by the live table page itself (TablePage: board, track, panels, log, what just happened):
// ReplaySession (replaysession.js) stands where a TableSession would, holding the view of the
// version shown, and ReplayPage is the table page with a bar of controls instead of the turn's
// controls.
//
// The link: #/replay/ID?seat=N (N the seat's number in the protocol, 0 for P1), ?everyone=1
// (every secret shown), neither for a spectator's view; &v=V the version shown. The page keeps
// `v` in the address as the version changes (history.replaceState), so the link names the
// moment. Every page is fetched from version 0 on, and every reveal met on the way is checked
// against its commitment (fairness.js Verifier) as during the game; a page that does not start
// from the view the one before it ended at is refused, as the SDK's replay.py does.

import { h, replace } from "./dom.js";
import { replayHash } from "./entry.js";
import { helpButton } from "./help.js";
import { LastMoves } from "./lastmove.js";
import { LogPanel } from "./logpanel.js";
import { seatName } from "/sdk/logtext.js";
import { seatBadge } from "./panels.js";
import { EndOfGame } from "./endgame.js";
import { ReplaySession } from "./replaysession.js";
import { ReplayPeople } from "./report.js";
import { TablePage } from "./table.js";

export { replayHash };

const SPEEDS = [0.5, 1, 2, 4, 8]; // versions a second
const STATUS_WORDS = { new: "before the start", playing: "being played", accusing: "accusations", over: "game over" };

// #/replay/ID?… -> {table, seat, everyone, version} (null: not a replay link).
export function parseReplay(hash) {
  const match = String(hash || "").match(/^#\/replay\/([A-Za-z0-9_-]{1,64})(?:\?(.*))?$/);
  if (!match) return null;
  const params = new URLSearchParams(match[2] || "");
  const seat = /^[0-3]$/.test(params.get("seat") || "") ? Number(params.get("seat")) : null;
  const everyone = seat === null && ["1", "true", "yes"].includes(params.get("everyone") || "");
  const v = params.get("v");
  const version = v !== null && /^\d{1,7}$/.test(v) ? Number(v) : null;
  return { table: match[1], seat, everyone, version };
}

class ReplayRoom {
  constructor() {
    this.el = h("section", { class: "card waiting-room", hidden: true, "aria-label": "Before the start" },
      h("h2", {}, "Before the start"),
      h("p", {}, "The players sat down; the game had not started yet. Step forward to see the deal."));
    this.chatHome = null;
  }

  render(view) {
    this.el.hidden = view.status !== "new";
  }
}

// A finished game replayed on the table page. `seat`: whose view (null: a spectator's, or with
// `everyone` every secret); `version`: the version to open at.
export class ReplayPage extends TablePage {
  constructor(root, { table, lobby, navigate, seat = null, everyone = false, version = null }) {
    super(root, { table, lobby, spectate: !Number.isInteger(seat), navigate });
    this.replay = true;
    this.seat = Number.isInteger(seat) ? seat : null;
    this.everyone = Boolean(everyone) && this.seat === null;
    this.wanted = version;
    this.playing = null; // the play timer
    this.speed = 2;
    this.onKey = (event) => this.key(event);
  }

  open() {
    const session = new ReplaySession({ table: this.table, lobby: this.lobby, seat: this.seat, everyone: this.everyone });
    this.session = session;
    session.addEventListener("change", () => this.moved());
    session.addEventListener("log", (e) => {
      if (this.logPanel) this.logPanel.update(e.detail.reset);
      if (this.lastMoves) this.lastMoves.update(false);
    });
    session.addEventListener("loaded", () => this.loaded());
    session.addEventListener("verified", () => this.updateBar());
    session.addEventListener("reveal-failed", (e) => {
      this.revealFailed(e.detail.message);
      this.updateBar();
    });
    session.addEventListener("failed", () => {
      this.stopPlaying();
      this.updateBar();
      this.schedule();
    });
    this.room = new ReplayRoom();
    this.end = new EndOfGame(this);
    this.logPanel = new LogPanel(session);
    this.lastMoves = new LastMoves(this);
    this.tourOffer = null;
    this.chatPanel = null;
    this.loadLogWords();
    this.narrow.addEventListener("change", this.onNarrow);
    this.people = new ReplayPeople(this); // the other signed-in players: Block, Report
    this.replayBar = this.buildBar();
    this.caseTitle = "Case file";
    this.buildLayout();
    document.addEventListener("keydown", this.onKey);
    this.updateBar();
    this.lookUpClock();
    this.people.load();
    session.load();
  }

  close() {
    this.stopPlaying();
    document.removeEventListener("keydown", this.onKey);
    this.people.close();
    super.close();
  }

  // --- the table page's parts a replay draws otherwise -------------------------------------

  state(view) {
    if (this.session.status === "stopped") return "stopped";
    return view ? "replay" : "connecting";
  }

  targets() {
    return new Map(); // nothing on the board is picked in a replay
  }

  placeChat() {}

  renderControls(view) {
    // the action panel is hidden in a replay (style.css): the bar says where the replay is
    const text = this.statusWords();
    if (this.el.prompt.textContent !== text) this.el.prompt.textContent = text;
  }

  send() {}

  renderTop(view) {
    const players = this.session.players();
    const viewer = this.everyone ? h("span", { class: "pill", id: "replay-viewer" }, "every secret shown")
      : this.seat === null ? h("span", { class: "pill", id: "replay-viewer" }, "as a spectator saw it")
        : h("span", { class: "pill", id: "replay-viewer" }, "as ", seatBadge(this.seat, null, players), " saw it");
    this.patch(this.el.top, [this.seat, this.everyone, players.map((p) => [p.name, p.bot]), view && view.status], () => [
      h("h1", { tabindex: -1, "data-key": "page-title" }, `Replay of table ${this.table}`),
      viewer,
      view ? h("span", { class: "pill", "data-status": view.status }, STATUS_WORDS[view.status] || view.status) : null,
      h("button", { type: "button", class: "small", "data-key": "copy-moment", id: "copy-moment", onclick: () => this.copy(location.href, "Link to this moment copied") }, "Copy the link to this moment"),
      helpButton("help-open")]);
  }

  say(text, cls = "") {
    const notice = this.bar && this.bar.notice;
    if (!notice) return;
    notice.textContent = text;
    notice.className = `notice small ${cls}`.trim();
  }

  // --- the bar ----------------------------------------------------------------------------

  buildBar() {
    const button = (id, label, symbol, words, onclick, extra = {}) =>
      h("button", { type: "button", id, "data-key": id, "aria-label": label, title: label, onclick, ...extra },
        symbol ? h("span", { class: "sym", "aria-hidden": "true" }, symbol) : null, words ? h("span", { class: "words" }, words) : null);
    const b = {};
    b.first = button("replay-first", "Start", "|◀", "Start", () => this.go(0));
    b.prevTurn = button("replay-prev-turn", "Turn back", "◀◀", "Turn", () => this.go(this.prevTurn()));
    b.prev = button("replay-prev", "Step back", "◀", "Step", () => this.go(this.session.version - 1));
    b.play = button("replay-play", "Play", "▶", "Play", () => this.togglePlay(), { class: "primary", "data-playing": "0" });
    b.next = button("replay-next", "Step forward", "▶", "Step", () => this.go(this.session.version + 1), { class: "sym-after" });
    b.nextTurn = button("replay-next-turn", "Turn forward", "▶▶", "Turn", () => this.go(this.nextTurn()), { class: "sym-after" });
    b.last = button("replay-last", "End", "▶|", "End", () => this.go(this.session.last), { class: "sym-after" });
    const mineButton = (id, onclick) => h("button", { type: "button", id, "data-key": id, onclick });
    b.prevMine = mineButton("replay-prev-mine", () => this.go(this.prevMine()));
    b.nextMine = mineButton("replay-next-mine", () => this.go(this.nextMine()));
    b.status = h("p", { class: "replay-status", id: "replay-status", role: "status", "aria-live": "polite", "aria-atomic": "true" }, "Loading the replay…");
    b.reveals = h("p", { class: "replay-reveals small", id: "replay-reveals", "data-reveals": "checking" }, "Checking the reveals…");
    b.notice = h("p", { class: "notice small", role: "status" });
    b.slider = h("input", { type: "range", id: "replay-slider", min: 0, max: 0, value: 0, step: 1, "aria-label": "Version", disabled: true });
    b.slider.addEventListener("input", () => this.go(Number(b.slider.value), { keepPlaying: false }));
    b.viewer = h("select", { id: "replay-seat", "aria-describedby": "replay-seat-hint" });
    b.viewer.addEventListener("change", () => this.switchViewer(b.viewer.value));
    b.turn = h("select", { id: "replay-turn" });
    b.turn.addEventListener("change", () => {
      if (b.turn.value !== "") this.go(Number(b.turn.value));
    });
    b.speed = h("select", { id: "replay-speed" }, SPEEDS.map((s) =>
      h("option", { value: String(s), selected: s === this.speed }, s === 0.5 ? "½" : String(s))));
    b.speed.addEventListener("change", () => {
      this.speed = Number(b.speed.value) || 2;
      if (this.playing) this.startPlaying();
    });
    b.mine = h("div", { class: "replay-mine", role: "group", "aria-label": "This seat's moves" }, b.prevMine, b.nextMine);
    // whose view, a turn, the speed, the seat's moves: folded on a phone, under the buttons
    b.more = h("details", { class: "replay-more", open: !this.narrow.matches },
      h("summary", {}, "Seen by, jump to a turn, speed"),
      h("div", { class: "replay-options" },
        h("div", { class: "field" }, h("label", { for: "replay-seat" }, "Seen by"), b.viewer),
        h("div", { class: "field" }, h("label", { for: "replay-turn" }, "Jump to"), b.turn),
        h("div", { class: "field" }, h("label", { for: "replay-speed" }, "Steps a second"), b.speed),
        b.mine),
      h("p", { class: "hint small", id: "replay-seat-hint" },
        "A seat's view shows what that player knew; Everyone shows every secret. Keys: ← → step, Home and End, Space plays or pauses."));
    this.bar = b;
    return h("section", { class: "replay-bar panel", id: "replay-bar", "aria-label": "Replay controls" },
      h("div", { class: "replay-head" }, b.status),
      h("div", { class: "replay-buttons", role: "group", "aria-label": "Step through the game" },
        b.first, b.prevTurn, b.prev, b.play, b.next, b.nextTurn, b.last),
      h("div", { class: "replay-scrub" }, b.slider),
      b.more,
      this.people.el,
      b.reveals, b.notice);
  }

  // Words of where the replay is: the version, the turn, whose turn.
  statusWords() {
    const session = this.session;
    if (!session || session.version < 0) {
      if (session && session.problem) return session.problem.message;
      return session && session.loaded >= 0 ? `Loading the replay… (${session.loaded} of ${session.last} moves)` : "Loading the replay…";
    }
    const v = session.version;
    const view = session.view || {};
    let where;
    if (view.status === "new") where = "before the start";
    else if (view.status === "over") where = "the end of the game";
    else if (view.status === "accusing") where = "the accusations";
    else {
      const start = session.turnAt(v);
      const info = start !== null ? session.turnInfo(start) : null;
      where = info && Number.isInteger(info.number)
        ? `turn ${info.number} (${info.night ? "night" : "day"}), ${seatName(session.players(), info.seat)} to play`
        : "the deal";
    }
    return `Move ${v} of ${session.last}, ${where}`;
  }

  // Rewrites the bar's parts from the session (only what changed).
  updateBar() {
    const b = this.bar;
    const session = this.session;
    if (!b || !session) return;
    const v = session.version;
    const ready = v >= 0;
    const set = (el, prop, value) => {
      if (el[prop] !== value) el[prop] = value;
    };
    // a replay that could not be fetched: the alarm says why (tabledraw.js), nothing to step through
    const failed = Boolean(session.problem && !ready);
    if (this.replayBar && this.replayBar.hidden !== failed) this.replayBar.hidden = failed;
    const text = this.statusWords();
    if (b.status.textContent !== text) b.status.textContent = text;
    b.status.setAttribute("aria-live", this.playing ? "off" : "polite");
    set(b.first, "disabled", !ready || v <= 0);
    set(b.prev, "disabled", !ready || v <= 0);
    set(b.prevTurn, "disabled", !ready || this.prevTurn() === null);
    set(b.next, "disabled", !ready || v >= session.loaded);
    set(b.nextTurn, "disabled", !ready || this.nextTurn() === null);
    set(b.last, "disabled", !ready || session.last === null || v >= session.last || session.loaded < session.last);
    set(b.play, "disabled", !ready || (v >= session.last && !this.playing));
    const playing = Boolean(this.playing);
    b.play.dataset.playing = playing ? "1" : "0"; // its name says what it does: Play or Pause
    b.play.setAttribute("aria-label", playing ? "Pause" : "Play");
    b.play.title = playing ? "Pause" : "Play";
    b.play.querySelector(".sym").textContent = playing ? "❚❚" : "▶";
    b.play.querySelector(".words").textContent = playing ? "Pause" : "Play";
    // the seat's own moves: a seat's replay only
    b.mine.hidden = this.seat === null;
    set(b.prevMine, "disabled", !ready || this.prevMine() === null);
    set(b.nextMine, "disabled", !ready || this.nextMine() === null);
    if (this.seat !== null) {
      const name = seatName(session.players(), this.seat);
      if (b.prevMine.dataset.name !== name) {
        b.prevMine.dataset.name = name;
        replace(b.prevMine, h("span", { "aria-hidden": "true" }, "◀ "), `${name}'s previous move`);
        replace(b.nextMine, `${name}'s next move`, h("span", { "aria-hidden": "true" }, " ▶"));
      }
    }
    // the slider
    const max = session.last === null ? 0 : session.last;
    set(b.slider, "max", String(max));
    set(b.slider, "disabled", !ready);
    if (ready) set(b.slider, "value", String(v));
    b.slider.setAttribute("aria-valuetext", text);
    this.fillViewers();
    this.fillTurns();
    const reveals = session.revealProblem ? "failed" : session.checkedUpTo >= 0 && session.complete && session.checkedUpTo >= session.loaded ? "ok" : "checking";
    const checked = session.verifier.checked.size;
    const words = reveals === "failed"
      ? `✘ A reveal did not match its commitment (${session.revealProblem.message}, at move ${session.revealProblem.version}): do not trust this game.`
      : reveals === "ok"
        ? `✓ Every reveal in this replay opened its commitment from the start of the game (${checked} checked).`
        : `Checking the reveals… (${Math.max(0, session.checkedUpTo)} of ${session.last ?? "?"} moves)`;
    b.reveals.hidden = !ready;
    if (b.reveals.textContent !== words) b.reveals.textContent = words;
    b.reveals.dataset.reveals = reveals;
    b.reveals.classList.toggle("error", reveals === "failed");
    b.reveals.classList.toggle("verified", reveals === "ok");
    if (session.problem && session.version >= 0) this.say(session.problem.message, "error");
  }

  fillViewers() {
    const b = this.bar;
    const players = this.session.players();
    const key = JSON.stringify([players.map((p) => [p.name, p.bot]), this.seat, this.everyone]);
    if (b.viewer.dataset.sig === key) return;
    b.viewer.dataset.sig = key;
    const chosen = this.everyone ? "everyone" : this.seat === null ? "spectator" : String(this.seat);
    const options = players.map((p, seat) => h("option", { value: String(seat), selected: chosen === String(seat) }, `${seatName(players, seat)} (P${seat + 1})`));
    if (!players.length && this.seat !== null) options.push(h("option", { value: String(this.seat), selected: true }, `P${this.seat + 1}`));
    options.push(h("option", { value: "spectator", selected: chosen === "spectator" }, "Spectator"));
    options.push(h("option", { value: "everyone", selected: chosen === "everyone" }, "Everyone (every secret)"));
    replace(b.viewer, options);
    b.viewer.value = chosen;
  }

  fillTurns() {
    const b = this.bar;
    const session = this.session;
    const starts = session.turnStarts;
    const current = session.version >= 0 ? session.turnAt(session.version) : null;
    const players = session.players();
    const key = JSON.stringify([starts.length, session.loaded, players.map((p) => [p.name, p.bot])]);
    if (b.turn.dataset.sig !== key) {
      b.turn.dataset.sig = key;
      const options = [h("option", { value: "0" }, "Before the start")];
      for (const start of starts) {
        const info = session.turnInfo(start);
        options.push(h("option", { value: String(start) },
          `Turn ${info.number} (${info.night ? "night" : "day"}): ${seatName(players, info.seat)}`));
      }
      const last = session.last;
      if (session.accusing !== null) options.push(h("option", { value: String(session.accusing) }, "The accusations"));
      if (last !== null && session.loaded >= last) options.push(h("option", { value: String(last) }, "The end"));
      replace(b.turn, options);
    }
    const view = session.view;
    let value = current === null ? "0" : String(current);
    if (view && view.status === "over") value = String(session.last);
    else if (view && view.status === "accusing") value = String(session.accusing);
    if ([...b.turn.options].some((o) => o.value === value) && b.turn.value !== value) b.turn.value = value;
  }

  // --- moving -------------------------------------------------------------------------------

  prevTurn() {
    const v = this.session.version;
    let found = null;
    for (const t of this.session.turnStarts) {
      if (t >= v) break;
      found = t;
    }
    if (found === null && v > 0) return 0;
    return found;
  }

  nextTurn() {
    const v = this.session.version;
    const found = this.session.turnStarts.find((t) => t > v);
    if (found !== undefined) return found;
    const last = this.session.last;
    return this.session.complete && v < last ? last : null;
  }

  prevMine() {
    const v = this.session.version;
    let found = null;
    for (const t of this.session.acted) {
      if (t >= v) break;
      found = t;
    }
    return found;
  }

  nextMine() {
    const found = this.session.acted.find((t) => t > this.session.version);
    return found === undefined ? null : found;
  }

  go(v, { keepPlaying = false } = {}) {
    const session = this.session;
    if (!session || v === null || v === undefined || !Number.isInteger(v)) return;
    if (!keepPlaying) this.stopPlaying();
    const target = Math.max(0, Math.min(v, session.loaded));
    if (target === session.version) {
      this.updateBar();
      return;
    }
    session.show(target);
  }

  // The version shown changed: the address, the bar, the table.
  moved() {
    const session = this.session;
    if (!session || this.closed) return;
    const hash = replayHash(this.table, { seat: this.seat, everyone: this.everyone, version: session.version });
    if (location.hash !== hash) history.replaceState(history.state, "", hash);
    this.updateBar();
    this.schedule();
  }

  render() {
    super.render();
    const more = this.bar && this.bar.more;
    if (more && !more.open && !this.narrow.matches) more.open = true; // (its fold is a phone's)
    // the log's lines of the version shown, once the log is drawn (and visible: it scrolls)
    const list = this.logPanel && this.logPanel.list;
    const sig = `${this.session && this.session.version}|${list ? list.childElementCount : 0}`;
    if (this.el && sig !== this.markedSig) {
      this.markedSig = sig;
      this.markCurrent();
    }
  }

  // The log lines of the version shown, marked (and brought into the log's view).
  markCurrent() {
    const list = this.logPanel && this.logPanel.list;
    if (!list) return;
    const v = String(this.session.version);
    for (const li of list.querySelectorAll("li.current")) li.classList.remove("current");
    const mine = list.querySelectorAll(`li[data-version="${v}"]`);
    mine.forEach((li) => li.classList.add("current"));
    const box = this.logPanel.box;
    if (mine.length && box) {
      const frame = box.getBoundingClientRect();
      const first = mine[0].getBoundingClientRect();
      const last = mine[mine.length - 1].getBoundingClientRect();
      if (last.bottom > frame.bottom) box.scrollTop += Math.min(last.bottom - frame.bottom + 8, first.top - frame.top);
      else if (first.top < frame.top) box.scrollTop -= frame.top - first.top + 8;
    } else if (box && this.session.version >= this.session.loaded) {
      box.scrollTop = box.scrollHeight;
    }
  }

  loaded() {
    const session = this.session;
    if (session.version < 0) {
      const last = session.last;
      const wanted = this.wanted === null ? Math.min(1, last) : Math.min(this.wanted, last);
      if (session.loaded >= wanted) session.show(wanted);
    }
    this.updateBar();
    this.schedule();
  }

  togglePlay() {
    if (this.playing) this.stopPlaying();
    else {
      if (this.session.version >= this.session.last) return;
      this.startPlaying();
    }
    this.updateBar();
  }

  startPlaying() {
    clearInterval(this.playing);
    this.playing = setInterval(() => {
      const session = this.session;
      if (!session || session.version >= session.last) {
        this.stopPlaying();
        this.updateBar();
        return;
      }
      if (session.version < session.loaded) this.go(session.version + 1, { keepPlaying: true });
    }, 1000 / this.speed);
  }

  stopPlaying() {
    if (!this.playing) return;
    clearInterval(this.playing);
    this.playing = null;
    if (this.bar) this.bar.status.setAttribute("aria-live", "polite");
  }

  switchViewer(value) {
    const version = this.session && this.session.version >= 0 ? this.session.version : this.wanted;
    const seat = /^[0-3]$/.test(value) ? Number(value) : null;
    const hash = replayHash(this.table, { seat, everyone: value === "everyone", version });
    this.navigate(hash, true);
  }

  // Left and Right step, Home and End, Space plays or pauses; not while typing or choosing in a
  // field, nor over a dialog (the help). Space on a button or link presses it, as usual.
  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "select" || tag === "textarea" || (target && target.isContentEditable)) return;
    if (document.querySelector("dialog[open]")) return;
    const session = this.session;
    if (!session || session.version < 0) return;
    let handled = true;
    switch (event.key) {
      case "ArrowLeft":
        this.go(session.version - 1);
        break;
      case "ArrowRight":
        this.go(session.version + 1);
        break;
      case "Home":
        this.go(0);
        break;
      case "End":
        this.go(session.last);
        break;
      case " ":
      case "Spacebar":
        if (tag === "button" || tag === "a" || tag === "summary") {
          handled = false;
        } else {
          this.togglePlay();
        }
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  }
}
