// The log panel: the game log as this viewer may know it (welcome.log, then each delta's log),
// one line per entry in the words of logtext.js. Results only this seat was told carry the
// private mark; in a co-op game, what the whole team was told carries the team mark. The list
// is a keyboard-scrollable role="log" box that does not speak (aria-live off): the newest moves
// are said once, by the panel at the board (lastmove.js); lines are text nodes only.

import { h, replace } from "./dom.js";
import { logText, t } from "./i18n.js";
import { blockNames, entryText, isHidden, isPrivate, isTeam } from "/sdk/logtext.js";

// One entry in the catalogue's words, as `seat` (null: a spectator) sees it in `view`'s game, with
// the city's block names for blocks; null for a kind the catalogue does not know.
export function logLine(text, entry, { view = {}, seat = null, whole = false } = {}) {
  return entryText(text, entry, { players: view.players || [], seat, whole, blocks: blockNames(view) });
}

export class LogPanel {
  constructor(session) {
    this.session = session;
    this.text = null;
    this.problem = null;
    // role="log" (a polite live region) on a scrollable box the keyboard can reach; the
    // lines are a list inside it.
    this.list = h("ol", { class: "log-lines" });
    this.box = h("div", { class: "log", id: "log", role: "log", "aria-live": "off", tabindex: 0, "aria-label": t("logpanel.label") }, this.list);
    this.shown = 0; // records of session.log already drawn
    this.players = null; // the players' names the lines were drawn with
    this.el = h("section", { class: "panel log-panel", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, t("logpanel.title")), this.box);
    // the log's catalogue in the page's language, loaded with it (i18n.js)
    this.text = logText();
    if (this.text) {
      // drawn once the session has taken up the log it kept (a reload resumes with it)
      queueMicrotask(() => this.redraw());
    } else {
      this.problem = t("logpanel.failed");
      replace(this.list, h("li", { class: "error" }, this.problem));
    }
  }

  seat() {
    const view = this.session.view;
    const you = view && view.you;
    return you && typeof you === "object" && Number.isInteger(you.seat) ? you.seat : null;
  }

  playersKey() {
    const view = this.session.view;
    return JSON.stringify([view && view.mode, ((view && view.players) || []).map((p) => [p.name, p.bot]), blockNames(view)]);
  }

  // Draws everything again (a new log, or the names it was drawn with changed).
  redraw() {
    if (!this.text) return;
    this.shown = 0;
    this.players = this.playersKey();
    // a whole log drawn again is no news: screen readers are told to wait for the end of it
    this.box.setAttribute("aria-busy", "true");
    replace(this.list);
    this.append();
    setTimeout(() => this.box.removeAttribute("aria-busy"), 500);
  }

  // Follows the session: new entries are appended, a log that started again is redrawn.
  update(reset = false) {
    if (!this.text) return;
    if (reset || this.shown > this.session.log.length || this.players !== this.playersKey()) {
      this.redraw();
      return;
    }
    this.append();
  }

  append() {
    const session = this.session;
    const records = session.log.slice(this.shown);
    this.shown = session.log.length;
    if (!records.length) return;
    const view = session.view || {};
    const players = view.players || [];
    const seat = this.seat();
    const team = view.mode === "cooperative" ? players.length : 0;
    const blocks = blockNames(view);
    const box = this.box;
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    const items = [];
    for (const { v, e, w } of records) {
      if (!e || typeof e !== "object" || isHidden(this.text, e)) continue;
      const whole = session.logWhole || Boolean(w);
      const line = entryText(this.text, e, { players, seat, whole, blocks });
      if (line === null) continue;
      const mine = !whole && isPrivate(e, seat, team);
      const ours = !whole && isTeam(e, seat, team);
      const item = h("li", {
        class: `${e.kind === "turn_began" ? "turn-line" : ""}${mine ? " private" : ""}${ours ? " team" : ""}`.trim() || null,
        "data-kind": e.kind,
        "data-seat": Number.isInteger(e.seat) ? e.seat : null,
        "data-version": v === null || v === undefined ? null : v,
      }, line);
      if (mine) item.append(" ", h("span", { class: "private-mark" }, this.text.private_mark || "(only you)"));
      if (ours) item.append(" ", h("span", { class: "team-mark" }, this.text.team_mark || "(the team only)"));
      items.push(item);
    }
    this.list.append(...items);
    if (atBottom || this.shown === records.length) box.scrollTop = box.scrollHeight;
  }
}
