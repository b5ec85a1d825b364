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

import { h } from "./dom.js";
import { replayHash } from "./entry.js";
import { helpButton } from "./help.js";
import { t, tx } from "./i18n.js";
import { LastMoves } from "./lastmove.js";
import { LogPanel } from "./logpanel.js";
import { seatBadge } from "./panels.js";
import { EndOfGame } from "./endgame.js";
import { ReplaySession } from "./replaysession.js";
import { ReplayBar } from "./replaybar.js";
import { ReplayPeople } from "./report.js";
import { TablePage } from "./table.js";

export { replayHash };


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
    this.el = h("section", { class: "card waiting-room", hidden: true, "aria-label": t("replay.before") },
      h("h2", {}, t("replay.before")),
      h("p", {}, t("replay.before.words")));
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
    this.caseTitle = t("replay.case_file");
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
    const viewer = this.everyone ? h("span", { class: "pill", id: "replay-viewer" }, t("replay.viewer.everyone"))
      : this.seat === null ? h("span", { class: "pill", id: "replay-viewer" }, t("replay.viewer.spectator"))
        : h("span", { class: "pill", id: "replay-viewer" }, tx("replay.viewer.seat", { seat: seatBadge(this.seat, null, players) }));
    this.patch(this.el.top, [this.seat, this.everyone, players.map((p) => [p.name, p.bot]), view && view.status], () => [
      h("h1", { tabindex: -1, "data-key": "page-title" }, t("replay.title", { table: this.table })),
      viewer,
      view ? h("span", { class: "pill", "data-status": view.status }, t("replay.status", { status: view.status })) : null,
      h("button", { type: "button", class: "small", "data-key": "copy-moment", id: "copy-moment", onclick: () => this.copy(location.href, t("replay.moment.copied")) }, t("replay.moment.copy")),
      helpButton("help-open")]);
  }

  say(text, cls = "") {
    const notice = this.bar && this.bar.notice;
    if (!notice) return;
    notice.textContent = text;
    notice.className = `notice small ${cls}`.trim();
  }

  // --- moving -------------------------------------------------------------------------------

  prevTurn() {
    const v = this.session.version;
    let found = null;
    for (const at of this.session.turnStarts) {
      if (at >= v) break;
      found = at;
    }
    if (found === null && v > 0) return 0;
    return found;
  }

  nextTurn() {
    const v = this.session.version;
    const found = this.session.turnStarts.find((at) => at > v);
    if (found !== undefined) return found;
    const last = this.session.last;
    return this.session.complete && v < last ? last : null;
  }

  prevMine() {
    const v = this.session.version;
    let found = null;
    for (const at of this.session.acted) {
      if (at >= v) break;
      found = at;
    }
    return found;
  }

  nextMine() {
    const found = this.session.acted.find((at) => at > this.session.version);
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

Object.assign(ReplayPage.prototype, ReplayBar);
