// Clocks, absence and handover (SPEC.md §4.2, §6.6): the presets and their words, the create
// form's clock choice, the seats panel of the table page (each seat's running clocks from the
// `clocks` message as countdowns, its time bank, "away since …" from `presence`, "played by the
// server" with the reason from `players[i].auto`) and the seat's own controls (`you.controls`:
// More time, Play for me, Take my seat back, the handover votes). Everything is text nodes;
// a countdown is a span with data-at (ms since the epoch, the server's) that tick() rewrites
// every second from this browser's clock, so the panel itself is rebuilt only on news.

import { logWord } from "./data.js";
import { commandKey } from "./describe.js";
import { h } from "./dom.js";
import { bdi, formatDate, t, tx } from "./i18n.js";
import { seatName } from "/sdk/logtext.js";
import { seatBadge } from "./panels.js";

// SPEC.md §4.2; `decision: null` is the server's own (its --decision-timeout).
export const PRESETS = {
  casual: { turn: 0, bank: 0, decision: null, grace: 300, strikes: 0 },
  live: { turn: 90, bank: 600, decision: null, grace: 120, strikes: 2 },
  correspondence: { turn: 86400, bank: 259200, decision: 86400, grace: 172800, strikes: 2 },
};
const CUSTOM_FIELDS = ["turn", "bank", "decision", "grace", "strikes"];

// Why the server plays a seat (players[i].auto), in the log catalogue's words (its `reason`).
export function autoReason(auto) {
  return logWord("reason", auto);
}

// 90 -> "90 s", 600 -> "10 min", 86400 -> "1 day", 5400 -> "1 h 30 min".
export function duration(seconds) {
  const s = Math.max(0, Math.round(Number(seconds) || 0));
  if (s < 120 && s % 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  if (s % 86400 === 0) return t("clocks.days", { n: s / 86400 });
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (s < 86400) return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
  return `${Math.floor(s / 86400)} d ${hours % 24} h`;
}

// Milliseconds left as m:ss (h:mm:ss past an hour, "N d h:mm:ss" past a day).
export function countdown(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  if (days) return `${days} d ${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
  if (hours) return `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
  return `${minutes}:${seconds}`;
}

// A clock map (create_table.clock, tables[i].clock) in words.
export function clockWords(clock) {
  if (!clock || typeof clock !== "object") return t("clocks.preset", { preset: "casual" });
  const base = PRESETS[clock.preset] || PRESETS.live;
  const value = (k) => (clock[k] !== undefined && clock[k] !== null ? clock[k] : base[k]);
  const time = (k) => (value(k) ? duration(value(k)) : "none");
  return t("clocks.words", {
    preset: String(clock.preset), turn: time("turn"), bank: time("bank"), decision: time("decision"), grace: time("grace"),
    strikes: Number(value("strikes")) || 0,
  });
}

// --- the create form ----------------------------------------------------------------------------

// The clock choice of the create form: a select of the presets (their values shown) and,
// for Custom, a field per value. `read()` gives the create_table.clock map.
export function clockChoice() {
  const select = h("select", { id: "clock", name: "clock" },
    ["casual", "live", "correspondence"].map((preset) =>
      h("option", { value: preset, selected: preset === "casual" }, clockWords({ preset }))),
    h("option", { value: "custom" }, t("clocks.custom_option")));
  const inputs = {};
  const custom = h("fieldset", { id: "clock-custom", class: "clock-custom", hidden: true },
    h("legend", {}, t("clocks.custom")),
    CUSTOM_FIELDS.map((k) => {
      inputs[k] = h("input", {
        type: "number", id: `clock-${k}`, min: 0, max: k === "strikes" ? 10 : 7776000, inputmode: "numeric",
        value: String(PRESETS.live[k] ?? 0),
      });
      return h("div", { class: "field" }, h("label", { for: `clock-${k}` }, t(`clocks.field.${k}`)), inputs[k]);
    }));
  select.addEventListener("change", () => {
    custom.hidden = select.value !== "custom";
  });
  const el = [h("div", { class: "field" }, h("label", { for: "clock" }, t("clocks.clock")), select), custom];
  const read = () => {
    if (select.value !== "custom") return { preset: select.value };
    const clock = { preset: "custom" };
    for (const k of CUSTOM_FIELDS) {
      const n = Math.floor(Number(inputs[k].value));
      if (Number.isFinite(n) && inputs[k].value !== "") clock[k] = Math.max(0, n);
    }
    return clock;
  };
  return { el, read };
}

// --- the table page: the seats panel ---------------------------------------------------------------

// Whether the server plays `seat` now: handed over, or the rest of a turn that timed out.
export function playedByServer(view, seat) {
  if (!view || seat === null || seat === undefined) return false;
  const p = (view.players || [])[seat];
  if (!p) return false;
  return Boolean(p.auto) || Boolean(view.turn && view.turn.seat === seat && view.turn.timed_out);
}

// The latest clocks message's clocks (the newest replaces the ones before: SPEC.md §6.6),
// none once the game is over.
export function runningClocks(session) {
  const view = session && session.view;
  const clocks = session && session.clocks;
  if (!view || !clocks || view.status === "over" || !Array.isArray(clocks.clocks)) return [];
  return clocks.clocks;
}

function timeOfDay(ms) {
  return formatDate(ms, { hour: "2-digit", minute: "2-digit" });
}

function countdownSpan(clock) {
  return h("span", { class: `countdown ${clock.kind}`, role: "timer", "data-clock-kind": clock.kind, "data-seat": clock.seat },
    tx("clocks.countdown", { kind: clock.kind, left: h("span", { class: "left", "data-at": clock.at }, countdown(clock.at - Date.now())) }));
}

// What the seats panel shows, as data: the rebuild happens only when this changes.
export function seatsSignature(view, session, hasTurnClock) {
  const presence = session.presence ? session.presence.seats : null;
  return [view.status, view.players && view.players.map((p) => [p.name, p.bot, p.auto, p.bank, p.strikes, p.votes]),
    view.turn && [view.turn.seat, view.turn.timed_out, view.turn.extended], presence, runningClocks(session), hasTurnClock];
}

// One line per seat: its name, its markers as words, its running clocks, its bank; `actions(seat)`
// adds a seat's buttons (Block and Report, table.js), if any.
export function seatsPanel(view, session, { me, hasTurnClock, actions = () => null }) {
  const presence = session.presence ? session.presence.seats || [] : [];
  const clocks = runningClocks(session);
  const players = view.players || [];
  return h("ul", { class: "plain seat-clocks", "aria-label": t("clocks.seats") }, players.map((p) => {
    const seat = p.seat;
    const here = presence.find((s) => s.seat === seat);
    const marks = [];
    if (p.bot) marks.push(h("span", { class: "mark bot" }, t("clocks.bot")));
    if (!p.bot && here && !here.connected) {
      marks.push(h("span", { class: "mark away", "data-away": "" },
        h("span", { "aria-hidden": "true" }, "○ "), t("clocks.away", { since: timeOfDay(here.since) })));
    }
    if (p.auto) {
      marks.push(h("span", { class: "mark auto", "data-auto": p.auto },
        t("clocks.served", { reason: autoReason(p.auto) })));
    } else if (view.turn && view.turn.seat === seat && view.turn.timed_out) {
      marks.push(h("span", { class: "mark auto", "data-auto": "timed_out" }, t("clocks.timed_out")));
    }
    const mine = clocks.filter((c) => c.seat === seat).map(countdownSpan);
    const facts = [];
    if (hasTurnClock && !p.bot) facts.push(h("span", { class: "bank", "data-bank": p.bank }, t("clocks.bank", { left: countdown(p.bank * 1000) })));
    if (p.strikes) facts.push(h("span", { class: "strikes" }, t("clocks.strikes", { n: p.strikes })));
    if ((p.votes || []).length) {
      const names = p.votes.flatMap((v, i) => (i ? [", ", bdi(seatName(players, v))] : [bdi(seatName(players, v))]));
      facts.push(h("span", { class: "votes" }, tx("clocks.votes", { names: h("span", {}, names) })));
    }
    return h("li", { "data-seat": seat, "data-auto": p.auto || "", "data-away": here && !here.connected && !p.bot ? "1" : "0" },
      seatBadge(seat, me, players), " ", join(marks), mine.length ? [" · ", join(mine)] : null, facts.length ? [" · ", join(facts)] : null,
      p.bot ? null : actions(seat));
  }));
}

function join(items) {
  return items.flatMap((item, i) => (i ? [" · ", item] : [item]));
}

// Rewrites every countdown under `root` from this browser's clock (every second).
export function tick(root) {
  if (!root) return;
  const now = Date.now();
  for (const el of root.querySelectorAll("[data-at]")) {
    const text = countdown(Number(el.dataset.at) - now);
    if (el.textContent !== text) el.textContent = text;
  }
}

// --- the seat's controls (you.controls) ----------------------------------------------------------

// The buttons of `you.controls`: a vote only for a seat whose player is away (presence), since
// the server refuses a vote over one who is here. ctx: {send, busy}.
export function seatControls(view, presence, ctx) {
  const you = view.you || {};
  const controls = you.controls || [];
  if (!controls.length) return [];
  const players = view.players || [];
  const away = new Set(((presence && presence.seats) || []).filter((s) => !s.connected).map((s) => s.seat));
  const me = you.seat;
  const bank = players[me] ? players[me].bank : 0;
  const buttons = [];
  for (const cmd of controls) {
    let label = null;
    let hint = null;
    if (cmd.type === "extend_time") {
      label = t("clocks.more_time");
      hint = t("clocks.more_time.hint", { left: countdown(bank * 1000) });
    } else if (cmd.type === "play_for_me") {
      label = t("clocks.play_for_me");
      hint = t("clocks.play_for_me.hint");
    } else if (cmd.type === "take_back") {
      label = t("clocks.take_back");
    } else if (cmd.type === "vote_handover" && away.has(cmd.target)) {
      label = tx("clocks.vote", { name: bdi(seatName(players, cmd.target)) });
    }
    if (!label) continue;
    const key = commandKey(cmd);
    buttons.push(h("div", { class: "seat-control" },
      h("button", { type: "button", class: cmd.type === "take_back" ? "cmd primary" : "cmd", "data-cmd": key, "data-key": `seat-${key}`, disabled: ctx.busy, onclick: () => ctx.send(cmd) }, label),
      hint ? h("small", {}, ` ${hint}`) : null));
  }
  if (!buttons.length) return [];
  return h("section", { class: "control-group seat-controls", "aria-label": t("clocks.your_seat") }, buttons);
}
