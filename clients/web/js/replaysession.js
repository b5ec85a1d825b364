// A finished game's replay as a session (#/replay/ID, issue 27, SPEC.md §4.7): ReplaySession
// fetches the `replay` pages of one viewer, from version 0 on, applies each version's delta
// (delta.js), checks every reveal met on the way (fairness.js Verifier) and refuses a page that
// does not start from the view the one before it ended at, as the SDK's replay.py does. It
// looks like a TableSession to the table page (replay.js: ReplayPage draws it).

import { Refused } from "./connection.js";
import { apply } from "/sdk/delta.js";
import { errorText } from "./entry.js";
import { Verifier } from "/sdk/fairness.js";
import { t } from "./i18n.js";

// The codes a refused `replay` words in its own way (replaysession.refused.*).
const REFUSALS = new Set(["table/not_finished", "table/not_started", "protocol/bad_field"]);

// A refusal of `replay` in words (entry.js errorText for the codes it shares with the lobby).
function refusalText(err) {
  if (err instanceof Refused && REFUSALS.has(err.code)) return t(`replaysession.refused.${err.code}`);
  return t("replaysession.failed", { problem: errorText(err) });
}

// The entries that say a seat acted in a version (its own command's, SPEC.md §6.3), for "its
// moves": driving, a Force card, an action, a peek, a look, a card taken or discarded, resting,
// the accusation and the seat controls.
const ACTS = new Set([
  "car_driven", "force_played", "action_taken", "token_peeked", "suspect_seen", "pool_card_taken",
  "force_discarded", "accused", "time_extended", "handover_voted", "seat_taken_back",
]);
function isMap(x) {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

function same(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
  }
  return false;
}

// A finished game's versions as one viewer saw them, fetched page after page; it looks like a
// TableSession to the table page (view, version, log, seat, verifier, status).
export class ReplaySession extends EventTarget {
  constructor({ table, lobby, seat = null, everyone = false }) {
    super();
    this.table = table;
    this.lobby = lobby;
    this.seat = Number.isInteger(seat) ? seat : null;
    this.everyone = Boolean(everyone) && this.seat === null;
    this.who = this.everyone ? "everyone" : this.seat === null ? "spectator" : "seat";
    this.views = []; // version -> the viewer's view
    this.logs = []; // version -> its log entries, as the viewer knew them
    this.last = null; // the game's last version, once the first page came
    this.loaded = -1; // the last version fetched
    this.complete = false;
    // what the table page reads of a session
    this.view = null;
    this.version = -1;
    this.log = []; // {v, e, w} up to the version shown (as session.js keeps it)
    this.logWhole = this.everyone; // everyone's log is unredacted
    this.status = "live"; // never "reconnecting": nothing is sent from a replay
    this.problem = null;
    this.presence = null;
    this.deadline = null;
    this.clocks = null;
    this.welcome = null;
    this.verifier = new Verifier();
    this.checkedUpTo = -1; // every reveal of versions 0..checkedUpTo opened its commitment
    this.revealProblem = null; // {version, message}
    this.turnStarts = []; // versions where a turn begins, ascending
    this.acted = []; // versions where this.seat acted, ascending
    this.accusing = null; // the first version of the accusations
    this.stopped = false;
    this.checking = Promise.resolve();
  }

  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }

  save() {} // (nothing to keep: the page's pagehide asks every session)

  stop() {
    this.stopped = true;
  }

  command() {
    return Promise.reject(new Error("a replay sends no commands"));
  }

  // Fetches every page from version 0 on; `loaded` after each.
  async load() {
    let start = 0;
    while (start !== null && !this.stopped) {
      const message = { type: "replay", table: this.table, start };
      if (this.seat !== null) message.seat = this.seat;
      if (this.everyone) message.everyone = true;
      let page;
      try {
        page = await this.lobby.request(message, 60, { retry: true });
      } catch (err) {
        this.fail(err instanceof Refused ? err.code : "replay/unavailable", refusalText(err));
        return;
      }
      if (this.stopped) return;
      if (!this.take(page, start)) return;
      start = Number.isInteger(page.next) ? page.next : null;
      this.emit("loaded", { loaded: this.loaded, last: this.last });
    }
    this.complete = !this.stopped;
    if (this.complete) this.emit("loaded", { loaded: this.loaded, last: this.last, complete: true });
  }

  // One page: its view must be the one the page before ended at (section 4.7).
  take(page, start) {
    if (!page || page.type !== "replay" || page.start !== start || !isMap(page.view) || !Array.isArray(page.steps) || !Number.isInteger(page.last)) {
      this.fail("replay/bad_page", t("replaysession.bad_page"));
      return false;
    }
    this.last = page.last;
    let view = page.view;
    if (start === 0) {
      this.views[0] = view;
      this.logs[0] = Array.isArray(page.log) ? page.log : [];
      this.index(0);
    } else if (!same(this.views[start], view)) {
      this.fail("replay/pages_disagree", t("replaysession.pages_disagree", { version: start }));
      return false;
    }
    for (const step of page.steps) {
      const version = step.version;
      if (version !== this.loaded + 1) {
        this.fail("replay/bad_page", t("replaysession.skips", { version }));
        return false;
      }
      try {
        view = apply(view, step.ops);
      } catch (err) {
        this.fail("replay/bad_delta", t("replaysession.bad_delta", { version }));
        return false;
      }
      this.views[version] = view;
      this.logs[version] = Array.isArray(step.log) ? step.log : [];
      this.index(version);
    }
    this.check();
    return true;
  }

  // Notes version v: where turns begin, where this seat acted.
  index(v) {
    this.loaded = Math.max(this.loaded, v);
    const log = this.logs[v] || [];
    const view = this.views[v];
    const before = v > 0 ? this.views[v - 1] : null;
    const number = (x) => (x && x.turn ? x.turn.number : null);
    if (v > 0 && (log.some((e) => e && e.kind === "turn_began") || (number(view) !== null && number(view) !== number(before)))) {
      this.turnStarts.push(v);
    }
    if (this.seat !== null && log.some((e) => e && ACTS.has(e.kind) && e.seat === this.seat)) this.acted.push(v);
    if (this.accusing === null && view && view.status === "accusing") this.accusing = v;
  }

  // Every reveal of every version fetched, in order (a look's slots are noted from the decision
  // they came with); `verified` as they pass, `reveal-failed` at the first that does not open
  // its commitment.
  check() {
    this.checking = this.checking.then(async () => {
      while (this.checkedUpTo < this.loaded && !this.revealProblem && !this.stopped) {
        const v = this.checkedUpTo + 1;
        const view = this.views[v];
        try {
          await this.verifier.check(view);
          const secrets = view && view.secrets;
          if (this.everyone && secrets && Array.isArray(secrets.proofs)) {
            // everyone's view: every hidden item's proof, against the setup's commitments
            await this.verifier.check({ commitments: view.commitments, proofs: secrets.proofs });
          }
        } catch (err) {
          this.revealProblem = { version: v, message: err.message };
          this.emit("reveal-failed", { message: `at version ${v}: ${err.message}` });
          return;
        }
        this.checkedUpTo = v;
      }
      this.emit("verified", { upTo: this.checkedUpTo });
    });
  }

  // `message`: the page's own words for it (in the page's language), also as `words`, which
  // the table page's alarm shows (session.js problemWords) rather than the code's sentence.
  fail(code, message) {
    this.problem = { code, message, words: message };
    if (this.version < 0) this.status = "stopped";
    this.emit("failed", this.problem);
  }

  // Shows version v (fetched): the view, and the log up to it.
  show(v) {
    if (!(v >= 0 && v <= this.loaded) || !this.views[v]) return false;
    const from = this.version;
    this.version = v;
    this.view = this.views[v];
    const records = (version) => {
      const view = this.views[version];
      // the entries of the version that ends the game come whole, as in a live session
      const whole = Boolean(view && view.status === "over");
      return (this.logs[version] || []).map((e) => (whole ? { v: version, e, w: true } : { v: version, e }));
    };
    if (from >= 0 && v === from + 1) {
      const fresh = records(v);
      this.log.push(...fresh);
      this.emit("log", { reset: false, fresh });
    } else if (v !== from) {
      this.log = [];
      for (let version = 0; version <= v; version++) this.log.push(...records(version));
      this.emit("log", { reset: true, fresh: this.log });
    }
    this.emit("change", { why: "replay" });
    return true;
  }

  // The turn that version v is in: its first version and its turn_began entry (or the view's turn).
  turnAt(v) {
    let start = null;
    for (const at of this.turnStarts) {
      if (at > v) break;
      start = at;
    }
    return start;
  }

  turnInfo(start) {
    const began = (this.logs[start] || []).find((e) => e && e.kind === "turn_began");
    const view = this.views[start] || {};
    if (began) return { number: began.number, seat: began.seat, night: Boolean(began.night) };
    const turn = view.turn || {};
    return { number: turn.number, seat: turn.seat, night: turn.time === "night" };
  }

  // The players (names, bots) as the last version fetched has them: every version's are the same
  // but for the table before the start, which has none.
  players() {
    const view = this.views[this.loaded] || this.view || {};
    return view.players || [];
  }
}

// The waiting room's place in a replay at version 0 (before the start): a few words, no seats.
