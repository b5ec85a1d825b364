// What just happened, at the board: the last turns' moves of every seat (bots' too), from the
// game log (SPEC.md §6.3; never by diffing views), in the shared catalogue's words with a die,
// the risk and success or failure drawn beside them, and what the board draws over the city
// for the newest of them (the path driven, the mobsters taken away, the tokens turned up, the
// mobsters that appeared, the die: board.js). The panel sits right under the board; the newest
// move's words are said once, politely, in the page's announcer (the log panel beside it is
// not a live region, so nothing is said twice). It never takes the focus.

import { s, h, replace, announce } from "./dom.js";
import { dieFace } from "./board.js";
import { bdi, t, tx } from "./i18n.js";
import { logLine } from "./logpanel.js";
import { mobsterChip } from "./panels.js";

// The entries that make a move worth showing, in the order of a turn; the rest of the log
// (phases, draws, the trackers' moves, the event tokens' placing) stays in the log panel.
const SHOWN = new Set([
  "car_driven", "car_moved", "force_played", "action_taken", "backup_called",
  "mobster_arrested", "mobster_apprehended", "mobster_held", "arrest_set_completed",
  "informant_taken", "witness_taken", "search_token_flipped", "token_peeked",
  "stakeout_succeeded", "stakeout_failed", "holding_token_taken", "evidence_solved",
  "trait_learned", "badge_raised", "mobster_placed", "event_placed", "event_resolved",
  "event_expired", "trackers_pushed", "marker_moved", "player_ended", "suspect_drawn",
  "suspect_seen", "force_gained", "timed_out", "turn_timed_out", "seat_handed_over",
  "accusation_opened", "accused", "game_ended", "game_stopped",
]);
const TURNS = [2, 5]; // turns shown, newest first: at least, and at most (see recentTurns)

// The turns that have something to show, newest first: {turn, records}, `turn` the turn_began
// entry (null: before the first turn). A seat sees every turn back to its own last one (what
// happened since it moved), at least `least` and at most `most` of them; a spectator `least`+1.
export function recentTurns(log, me = null, [least, most] = TURNS) {
  const out = [];
  let records = [];
  const done = () => out.length >= most || (out.length >= least &&
    (me === null ? out.length > least : out[out.length - 1].turn && out[out.length - 1].turn.seat === me));
  for (let i = log.length - 1; i >= 0 && !done(); i--) {
    const record = log[i];
    const e = record && record.e;
    if (!e || typeof e !== "object") continue;
    if (e.kind === "turn_began") {
      if (records.length) out.push({ turn: e, records: records.reverse() });
      records = [];
    } else if (SHOWN.has(e.kind)) {
      records.push(record);
    }
  }
  if (records.length && !done()) out.push({ turn: null, records: records.reverse() });
  return out;
}

// What the board draws for a turn's records (board.js `highlight`).
export function highlightOf(view, records) {
  const hl = { seat: null, path: [], rings: [], fresh: [], gone: [], die: null };
  for (const { e } of records) {
    if (Number.isInteger(e.seat) && hl.seat === null) hl.seat = e.seat;
    switch (e.kind) {
      case "car_driven":
        hl.seat = e.seat;
        hl.path = Array.isArray(e.path) ? e.path : [];
        break;
      case "car_moved":
        hl.rings.push(e.block);
        break;
      case "mobster_arrested":
      case "mobster_apprehended":
      case "mobster_held":
        hl.gone.push({ block: e.block, color: e.color });
        break;
      case "search_token_flipped":
      case "stakeout_succeeded":
      case "stakeout_failed":
        hl.rings.push(e.block);
        hl.fresh.push(e.block);
        break;
      case "mobster_placed":
        hl.rings.push(e.block);
        break;
      case "backup_called": {
        const p = (view.players || [])[e.seat];
        if (p && Array.isArray(p.car)) hl.die = { block: p.car, dice: e.dice || [], success: Boolean(e.success) };
        break;
      }
      default:
        break;
    }
  }
  hl.rings = hl.rings.filter((b) => Array.isArray(b));
  return hl;
}

// A die, small, for the panel's words: its pips, its value in its name.
function dieIcon(value, success) {
  return s("svg", { class: `die-icon ${success ? "ok" : "bad"}`, viewBox: "0 0 28 28", role: "img", "aria-label": t("lastmove.die", { value }), "data-die": value },
    dieFace(value, 1, 1, 26));
}

function outcome(success) {
  return h("span", { class: `outcome ${success ? "ok" : "bad"}`, "data-outcome": success ? "success" : "failure" }, t("panels.token.search", { success: Boolean(success) }));
}

// The pictures before a line's words: the die and the risk, success or failure, a mobster.
function pictures(e) {
  switch (e.kind) {
    case "backup_called":
      return [(e.dice || []).map((d) => dieIcon(d, e.success)), h("span", { class: "risk-chip" }, t("lastmove.risk", { risk: e.risk })), outcome(e.success)];
    case "stakeout_succeeded":
    case "stakeout_failed":
      return [h("span", { class: "risk-chip" }, t("lastmove.risk", { risk: e.risk })), outcome(e.kind === "stakeout_succeeded")];
    case "search_token_flipped":
      return outcome(Boolean(e.success));
    case "mobster_arrested":
    case "mobster_apprehended":
    case "mobster_held":
    case "mobster_placed":
      return mobsterChip(e.color, "small");
    default:
      return null;
  }
}

export class LastMoves {
  constructor(page) {
    this.page = page;
    this.list = h("div", { class: "moves", id: "last-moves-list" });
    this.el = h("section", { class: "panel lastmove-panel", id: "last-moves", "aria-labelledby": "last-moves-title" },
      h("h2", { id: "last-moves-title" }, t("lastmove.title")), this.list);
    this.turns = [];
    this.highlight = null;
    this.said = null; // the newest records already said
    this.signature = null;
  }

  // Follows the session's log: `fresh` entries came in a delta (said once), or the log was
  // drawn again (a welcome, a reload: nothing is said).
  update(fresh) {
    const session = this.page.session;
    if (!session) return;
    const view = session.view || {};
    this.turns = recentTurns(session.log, Number.isInteger(session.seat) ? session.seat : null);
    const newest = this.turns[0];
    this.highlight = newest && view.status !== "over" ? highlightOf(view, newest.records) : null;
    if (fresh) this.say(newest);
    else this.said = newest ? newest.records[newest.records.length - 1] : null;
    this.page.schedule();
  }

  // Says the newest turn's lines that came since the last time, in one sentence.
  say(newest) {
    const text = this.page.logText;
    if (!newest || !text) return;
    const records = newest.records;
    const from = this.said ? records.indexOf(this.said) + 1 : 0;
    const lines = records.slice(from).map(({ e, w }) => this.words(text, e, w)).filter(Boolean);
    this.said = records[records.length - 1];
    if (lines.length) announce(lines.join(". "));
  }

  words(text, e, w) {
    const session = this.page.session;
    const view = session.view || {};
    return logLine(text, e, { view, seat: session.seat, whole: session.logWhole || Boolean(w) });
  }

  render() {
    const page = this.page;
    const session = page.session;
    const text = page.logText;
    const view = (session && session.view) || {};
    const show = Boolean(view.status && view.status !== "new");
    this.el.hidden = !show;
    if (!show) return;
    const sig = JSON.stringify([Boolean(text), this.turns.map((g) => [g.turn, g.records.map((r) => r.v)]), (view.players || []).map((p) => p.name)]);
    if (sig === this.signature) return;
    this.signature = sig;
    if (!text) {
      replace(this.list, h("p", { class: "muted" }, t("lastmove.loading")));
      return;
    }
    if (!this.turns.length) {
      replace(this.list, h("p", { class: "muted" }, t("lastmove.nothing")));
      return;
    }
    const me = session.seat;
    replace(this.list, this.turns.map((group, i) => {
      const turn = group.turn;
      const title = turn
        ? tx("lastmove.turn", { before: i > 0, number: turn.number, night: Boolean(turn.night), you: turn.seat === me, name: nameOf(view, turn.seat) })
        : t("lastmove.setup", { before: i > 0 });
      return h("div", { class: `move-group${i === 0 ? " newest" : ""}`, "data-turn": turn ? turn.number : 0, "data-seat": turn ? turn.seat : null },
        h("h3", {}, title),
        h("ul", { class: "plain move-lines" }, group.records.map(({ e, w, v }) => {
          const words = this.words(text, e, w);
          if (!words) return null;
          return h("li", { "data-kind": e.kind, "data-version": v === null || v === undefined ? null : v }, pictures(e), " ", words);
        })));
    }));
  }
}

// A seat's name for the turn's heading: a text node in a <bdi>, bots marked.
function nameOf(view, seat) {
  const p = (view.players || [])[seat];
  if (!p) return `P${seat + 1}`;
  const name = bdi(p.name || `P${seat + 1}`);
  return p.bot ? h("span", {}, name, " (bot)") : name;
}
