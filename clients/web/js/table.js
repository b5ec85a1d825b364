// The table page: a seat (join by link, the waiting room, play) or a spectator (watch). It draws
// the view of its TableSession and sends the controls' commands; its parts live beside it:
// entry.js (joining), room.js (the waiting room), logpanel.js (the game log), endgame.js (the
// result, the reveal and the transcript check), clocks.js (the seats' clocks, presence and
// handover, the seat's own controls), tablelayout.js (the page's parts), tabledraw.js (drawing
// the view into them), turn.js (the turn's controls and sending), coop.js (the co-op game), and
// the panels, board and controls modules; tour.js walks a new player through a turn. A signed-in
// player may block or report the other signed-in seats (moderation.js, report.js), known from
// the table's listing (`list_tables` by id: players[j].identity).

import { ChatPanel } from "./chat.js";
import { h, replace, announce, copyText } from "./dom.js";
import { EndOfGame } from "./endgame.js";
import { askResume, joinForm } from "./entry.js";
import { LastMoves } from "./lastmove.js";
import { LogPanel } from "./logpanel.js";
import { logText, t } from "./i18n.js";
import { blocksOf, otherPeople } from "./moderation.js";
import { seatActions } from "./report.js";
import { WaitingRoom } from "./room.js";
import { TableSession } from "./session.js";
import * as tour from "./tour.js";
import { DrawMethods } from "./tabledraw.js";
import { buildLayout } from "./tablelayout.js";
import { TurnMethods } from "./turn.js";
import { modeSwitch } from "./textmode-switch.js";
import * as store from "./store.js";

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
    this.logText = null; // the log's catalogue in the page's language (i18n.js logText): its words, the reasons
    // a phone's screen: the compact board (block names large enough to read), the chat folded
    this.narrow = window.matchMedia("(max-width: 600px)");
    this.onNarrow = () => this.schedule();
    this.tableInfo = null; // the table's listing (list_tables by id): its seats' identities
    this.onBlocks = () => this.schedule();
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
    session.addEventListener("log", (e) => {
      if (this.logPanel) this.logPanel.update(e.detail.reset);
      if (this.lastMoves) this.lastMoves.update(!e.detail.reset);
    });
    session.addEventListener("presence", () => this.schedule());
    session.addEventListener("deadline", () => this.renderClock());
    session.addEventListener("clocks", () => this.schedule());
    session.addEventListener("rematch", (e) => this.end && this.end.offered(e.detail.next));
    this.room = new WaitingRoom(this);
    this.end = new EndOfGame(this);
    this.logPanel = new LogPanel(session);
    this.lastMoves = new LastMoves(this);
    this.tourOffer = new tour.TourOffer(this);
    tour.attach(this);
    this.loadLogWords();
    this.narrow.addEventListener("change", this.onNarrow);
    this.chatPanel = new ChatPanel(session, { table: this.table, spectate: this.spectate, blocks: blocksOf(this.lobby) });
    blocksOf(this.lobby).addEventListener("change", this.onBlocks);
    this.buildLayout();
    session.start();
    this.every(5000, () => this.pollSpectators());
    this.every(1000, () => this.renderClock());
    this.pollSpectators();
    this.lookUpClock();
  }

  // The log catalogue's words (loaded with the page's language by i18n.js): the last moves and
  // the page drawn with them. (Without it, the log panel says so.)
  loadLogWords() {
    this.logText = logText();
    // once the session has taken up the log it kept (a reload resumes with it)
    queueMicrotask(() => {
      this.lastMoves.update(false);
      this.schedule();
    });
  }

  // The table's clock (tables[i].clock), looked up once: the seats show their time banks only
  // when the table has a turn clock. Its seats' identities too (once more when the game starts:
  // the waiting room's last look may be older than the last seat taken).
  async lookUpClock() {
    try {
      const info = await this.lobby.table(this.table);
      this.clock = info.clock || null;
      this.tableInfo = info;
      this.schedule();
    } catch {
      // a nicety: without it a bank shows once it is not empty
    }
  }

  every(ms, fn) {
    this.timers.push(setInterval(fn, ms));
  }

  close() {
    this.closed = true;
    blocksOf(this.lobby).removeEventListener("change", this.onBlocks);
    if (this.chatPanel) this.chatPanel.close();
    tour.detach(this);
    this.narrow.removeEventListener("change", this.onNarrow);
    this.timers.forEach(clearInterval);
    this.timers = [];
    if (this.session) this.session.stop();
    this.session = null;
  }

  // --- following the session ------------------------------------------------------------------

  onChange(why) {
    if (!this.session) return;
    const view = this.session.view;
    if (view && view.status !== "new" && this.tableInfo && this.tableInfo.status === "waiting" && !this.lookedAgain) {
      this.lookedAgain = true;
      this.lookUpClock();
    }
    this.schedule();
  }

  // --- blocking and reporting (moderation.js) -------------------------------------------------

  // The other signed-in seats: [{seat, name, identity}] (none for a guest).
  seatPeople() {
    if (this.replay) return []; // a replay has its own line of them (report.js ReplayPeople)
    const me = this.record && !this.spectate ? this.record.seat : null;
    return otherPeople(this.lobby, this.tableInfo ? this.tableInfo.players : null, me);
  }

  // The Block and Report buttons of `seat` (null: not another signed-in seat), acting at the
  // version shown; `say` tells their result (the page's notice by default).
  seatActionsFor(seat, people = this.seatPeople(), say = (text, bad) => this.say(text, bad ? "error" : "")) {
    const person = people.find((p) => p.seat === seat);
    if (!person) return null;
    const where = { lobby: this.lobby, table: this.table, say, version: () => (this.session ? this.session.version : 0) };
    return seatActions(where, person);
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
    replace(alarm, h("strong", {}, t("table.reveal_failed", { problem: message })));
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

  // --- layout ---------------------------------------------------------------------------------

  buildLayout() {
    const { el, game } = buildLayout(this);
    if (!this.replay) game.prepend(modeSwitch(this, false)); // the text mode for screen readers
    this.el = el;
    this.game = game;
    this.logPanel.update(true);
    this.lastMoves.update(false);
    this.render();
  }

  // --- notices --------------------------------------------------------------------------------

  copy(text, done) {
    copyText(text).then(() => this.say(done), () => this.say(text));
  }

  say(text, cls = "") {
    if (this.el.notice.textContent !== text) this.el.notice.textContent = text;
    this.el.notice.className = `notice ${cls}`;
    if (text) announce(text);
  }
}

// Drawing the view (tabledraw.js); the turn's controls, the board's targets, the decision
// dialog and sending (turn.js).
Object.assign(TablePage.prototype, DrawMethods, TurnMethods);
