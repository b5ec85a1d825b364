// The replay page's bar (replay.js): the buttons that step through the game, the slider, whose
// view, a turn to jump to, the speed, this seat's moves, the words of where the replay is and
// whether its reveals opened their commitments. Methods of ReplayPage (Object.assign onto its
// prototype), kept apart so that both modules stay short.

import { h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { seatName } from "/sdk/logtext.js";

const SPEEDS = [0.5, 1, 2, 4, 8]; // versions a second

export const ReplayBar = {

  buildBar() {
    const button = (id, label, symbol, words, onclick, extra = {}) =>
      h("button", { type: "button", id, "data-key": id, "aria-label": label, title: label, onclick, ...extra },
        symbol ? h("span", { class: "sym", "aria-hidden": "true" }, symbol) : null, words ? h("span", { class: "words" }, words) : null);
    const b = {};
    b.first = button("replay-first", t("replay.start"), "|◀", t("replay.start"), () => this.go(0));
    b.prevTurn = button("replay-prev-turn", t("replay.turn_back"), "◀◀", t("replay.turn"), () => this.go(this.prevTurn()));
    b.prev = button("replay-prev", t("replay.step_back"), "◀", t("replay.step"), () => this.go(this.session.version - 1));
    b.play = button("replay-play", t("replay.play"), "▶", t("replay.play"), () => this.togglePlay(), { class: "primary", "data-playing": "0" });
    b.next = button("replay-next", t("replay.step_forward"), "▶", t("replay.step"), () => this.go(this.session.version + 1), { class: "sym-after" });
    b.nextTurn = button("replay-next-turn", t("replay.turn_forward"), "▶▶", t("replay.turn"), () => this.go(this.nextTurn()), { class: "sym-after" });
    b.last = button("replay-last", t("replay.end"), "▶|", t("replay.end"), () => this.go(this.session.last), { class: "sym-after" });
    const mineButton = (id, onclick) => h("button", { type: "button", id, "data-key": id, onclick });
    b.prevMine = mineButton("replay-prev-mine", () => this.go(this.prevMine()));
    b.nextMine = mineButton("replay-next-mine", () => this.go(this.nextMine()));
    b.status = h("p", { class: "replay-status", id: "replay-status", role: "status", "aria-live": "polite", "aria-atomic": "true" }, t("replay.loading"));
    b.reveals = h("p", { class: "replay-reveals small", id: "replay-reveals", "data-reveals": "checking" }, t("replay.checking"));
    b.notice = h("p", { class: "notice small", role: "status" });
    b.slider = h("input", { type: "range", id: "replay-slider", min: 0, max: 0, value: 0, step: 1, "aria-label": t("replay.version"), disabled: true });
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
    b.mine = h("div", { class: "replay-mine", role: "group", "aria-label": t("replay.mine") }, b.prevMine, b.nextMine);
    // whose view, a turn, the speed, the seat's moves: folded on a phone, under the buttons
    b.more = h("details", { class: "replay-more", open: !this.narrow.matches },
      h("summary", {}, t("replay.more")),
      h("div", { class: "replay-options" },
        h("div", { class: "field" }, h("label", { for: "replay-seat" }, t("replay.seen_by")), b.viewer),
        h("div", { class: "field" }, h("label", { for: "replay-turn" }, t("replay.jump")), b.turn),
        h("div", { class: "field" }, h("label", { for: "replay-speed" }, t("replay.speed")), b.speed),
        b.mine),
      h("p", { class: "hint small", id: "replay-seat-hint" }, t("replay.hint")));
    this.bar = b;
    return h("section", { class: "replay-bar panel", id: "replay-bar", "aria-label": t("replay.controls") },
      h("div", { class: "replay-head" }, b.status),
      h("div", { class: "replay-buttons", role: "group", "aria-label": t("replay.step_through") },
        b.first, b.prevTurn, b.prev, b.play, b.next, b.nextTurn, b.last),
      h("div", { class: "replay-scrub" }, b.slider),
      b.more,
      this.people.el,
      b.reveals, b.notice);
  },

  // Words of where the replay is: the version, the turn, whose turn.
  statusWords() {
    const session = this.session;
    if (!session || session.version < 0) {
      if (session && session.problem) return session.problem.message;
      return session && session.loaded >= 0 ? t("replay.loading.moves", { loaded: session.loaded, last: session.last }) : t("replay.loading");
    }
    const v = session.version;
    const view = session.view || {};
    const where = { move: v, last: session.last };
    if (view.status === "new" || view.status === "over" || view.status === "accusing") return t("replay.where", { ...where, at: view.status });
    const start = session.turnAt(v);
    const info = start !== null ? session.turnInfo(start) : null;
    if (!info || !Number.isInteger(info.number)) return t("replay.where", { ...where, at: "deal" });
    return t("replay.where.turn", { ...where, turn: info.number, night: info.night ? "yes" : "no", name: seatName(session.players(), info.seat) });
  },

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
    const playWord = t(playing ? "replay.pause" : "replay.play");
    b.play.setAttribute("aria-label", playWord);
    b.play.title = playWord;
    b.play.querySelector(".sym").textContent = playing ? "❚❚" : "▶";
    b.play.querySelector(".words").textContent = playWord;
    // the seat's own moves: a seat's replay only
    b.mine.hidden = this.seat === null;
    set(b.prevMine, "disabled", !ready || this.prevMine() === null);
    set(b.nextMine, "disabled", !ready || this.nextMine() === null);
    if (this.seat !== null) {
      const name = seatName(session.players(), this.seat);
      if (b.prevMine.dataset.name !== name) {
        b.prevMine.dataset.name = name;
        replace(b.prevMine, h("span", { "aria-hidden": "true" }, "◀ "), t("replay.mine.previous", { name }));
        replace(b.nextMine, t("replay.mine.next", { name }), h("span", { "aria-hidden": "true" }, " ▶"));
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
      ? t("replay.reveals.failed", { move: session.revealProblem.version })
      : reveals === "ok"
        ? t("replay.reveals.ok", { n: checked })
        : t("replay.reveals.checking", { done: Math.max(0, session.checkedUpTo), last: session.last ?? "?" });
    b.reveals.hidden = !ready;
    if (b.reveals.textContent !== words) b.reveals.textContent = words;
    b.reveals.dataset.reveals = reveals;
    b.reveals.classList.toggle("error", reveals === "failed");
    b.reveals.classList.toggle("verified", reveals === "ok");
    if (session.problem && session.version >= 0) this.say(session.problem.message, "error");
  },

  fillViewers() {
    const b = this.bar;
    const players = this.session.players();
    const key = JSON.stringify([players.map((p) => [p.name, p.bot]), this.seat, this.everyone]);
    if (b.viewer.dataset.sig === key) return;
    b.viewer.dataset.sig = key;
    const chosen = this.everyone ? "everyone" : this.seat === null ? "spectator" : String(this.seat);
    const options = players.map((p, seat) => h("option", { value: String(seat), selected: chosen === String(seat) }, t("replay.seen_by.seat", { name: seatName(players, seat), seat: seat + 1 })));
    if (!players.length && this.seat !== null) options.push(h("option", { value: String(this.seat), selected: true }, `P${this.seat + 1}`));
    options.push(h("option", { value: "spectator", selected: chosen === "spectator" }, t("replay.seen_by.spectator")));
    options.push(h("option", { value: "everyone", selected: chosen === "everyone" }, t("replay.seen_by.everyone")));
    replace(b.viewer, options);
    b.viewer.value = chosen;
  },

  fillTurns() {
    const b = this.bar;
    const session = this.session;
    const starts = session.turnStarts;
    const current = session.version >= 0 ? session.turnAt(session.version) : null;
    const players = session.players();
    const key = JSON.stringify([starts.length, session.loaded, players.map((p) => [p.name, p.bot])]);
    if (b.turn.dataset.sig !== key) {
      b.turn.dataset.sig = key;
      const options = [h("option", { value: "0" }, t("replay.before"))];
      for (const start of starts) {
        const info = session.turnInfo(start);
        options.push(h("option", { value: String(start) },
          t("replay.turn_option", { turn: info.number, night: info.night ? "yes" : "no", name: seatName(players, info.seat) })));
      }
      const last = session.last;
      if (session.accusing !== null) options.push(h("option", { value: String(session.accusing) }, t("replay.accusations")));
      if (last !== null && session.loaded >= last) options.push(h("option", { value: String(last) }, t("replay.the_end")));
      replace(b.turn, options);
    }
    const view = session.view;
    let value = current === null ? "0" : String(current);
    if (view && view.status === "over") value = String(session.last);
    else if (view && view.status === "accusing") value = String(session.accusing);
    if ([...b.turn.options].some((o) => o.value === value) && b.turn.value !== value) b.turn.value = value;
  }
};
