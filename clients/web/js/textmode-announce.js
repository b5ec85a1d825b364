// What the text mode says by itself (textmode.js), once and in order, in its live region: each
// new version's happenings from the game log (SPEC.md §6.3: other seats' moves, the dice, the
// risk results, the Mobster Roll, the events; in the log catalogue's words), then, when a move
// becomes the seat's, what it may do (textmode-menu.js offerWords), and at the end the result.
// A welcome (the first view, or a fresh one after a long absence) is no news: only its prompt
// is said. Sound cues: the seat's turn, its own risk results, the end (won or not).

import { mySeat } from "./describe.js";
import { logText } from "./i18n.js";
import { logLine } from "./logpanel.js";
import { offerWords } from "./textmode-menu.js";
import { resultWords } from "./textmode-words.js";
import { isHidden } from "/sdk/logtext.js";

// Log entries the text mode does not read out (the log panel still shows them): bookkeeping
// that the entries around them already say.
const QUIET = new Set(["tracker_advanced", "force_deck_shuffled", "event_deck_shuffled", "drawn", "phase_entered"]);
// The seat's own risk results: success (true) or failure (false).
const RESULTS = {
  backup_called: (e) => Boolean(e.success),
  search_token_flipped: (e) => Boolean(e.success),
  stakeout_succeeded: () => true,
  stakeout_failed: () => false,
};

export class Happenings {
  constructor(page) {
    this.page = page;
    this.pending = []; // log records of deltas not said yet: {v, e, w}
    this.prompt = null; // the move last said to be the seat's (its key)
    this.over = null; // whether the game was over at the last change (null: no view yet)
  }

  // The session's "log" event: new records to say (a reset is a welcome: nothing to say).
  log(detail) {
    if (detail.reset) this.pending = [];
    else this.pending.push(...detail.fresh);
  }

  // The session's "change" event: says what is new since the last one.
  change() {
    const page = this.page;
    const session = page.session;
    const view = session && session.view;
    if (!view) return;
    const text = logText();
    if (text) this.sayLog(view, text);
    const over = view.status === "over";
    if (over && this.over === false) this.sayEnd(view);
    this.over = over;
    this.sayPrompt(view);
  }

  sayLog(view, text) {
    const session = this.page.session;
    const me = mySeat(view);
    const records = this.pending;
    this.pending = [];
    let version = null;
    let lines = [];
    let cue = null;
    const flush = () => {
      if (lines.length) this.page.announce(lines, { version });
      lines = [];
    };
    for (const record of records) {
      const e = record.e;
      if (!e || typeof e !== "object") continue;
      if (record.v !== version) {
        flush();
        version = record.v;
      }
      if (isHidden(text, e) || QUIET.has(e.kind)) continue;
      const line = logLine(text, e, { view, seat: me, whole: session.logWhole || Boolean(record.w) });
      if (line) lines.push(line);
      if (me !== null && e.seat === me && RESULTS[e.kind]) cue = RESULTS[e.kind](e) ? "success" : "failure";
    }
    flush();
    if (cue) this.page.sounds.play(cue);
  }

  sayEnd(view) {
    this.page.announce(resultWords(view), { end: true });
    const me = mySeat(view);
    if (me !== null) this.page.sounds.play(((view.result || {}).winners || []).includes(me) ? "success" : "failure");
  }

  // When a move becomes the seat's (a turn, its next step, a decision): what it may do.
  sayPrompt(view) {
    const page = this.page;
    const state = page.state(view);
    const mine = !page.spectate && (state === "your-turn" || state === "decide");
    const you = view.you || {};
    const turn = view.turn || {};
    const decision = you.decision || null;
    const key = mine
      ? JSON.stringify([turn.number, turn.phase, decision && [decision.kind, decision.target, decision.deal],
        [...new Set((you.legal || []).map((c) => c.type))].sort()])
      : null;
    if (key && key !== this.prompt) {
      if (!this.prompt) page.sounds.play("turn");
      page.announce(offerWords(view), { prompt: true });
    }
    this.prompt = key;
  }
}
