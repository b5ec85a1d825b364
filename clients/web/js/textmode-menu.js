// What the seat may do now, for the text mode (textmode.js): the numbered menu (every command of
// `you.legal`, then the seat commands of `you.controls`; typing a number does that line), the
// typed form of each (the datalist's completions: "d Elm Street", "b 3", "f Tip Line"), and the
// sentence that says, when a move becomes the seat's, what it may do. Everything comes from the
// server's view (SPEC.md §6.1): the commands as listed, their hours from `you.hours`.

import { actionName, decisionWords, forceName } from "./data.js";
import { accusationOrder, blockName, describe, hoursOf, prompt } from "./describe.js";
import { andList, language, t } from "./i18n.js";
import { isolate } from "./say.js";
import { countdown } from "./clocks.js";
import { seatName } from "/sdk/logtext.js";

// The typed commands: an id, its letter (the same in both languages) and its words in each
// language (every one is understood whatever the page's language; the first is shown).
export const VERBS = [
  { id: "help", letter: "h", en: ["help"], es: ["ayuda"] },
  { id: "menu", letter: "m", en: ["menu", "list"], es: ["menú", "lista", "opciones"] },
  { id: "where", letter: "w", en: ["where"], es: ["dónde", "donde"] },
  { id: "view", letter: "v", en: ["view", "city"], es: ["ver", "ciudad"] },
  { id: "last", letter: "l", en: ["last"], es: ["últimas", "último"] },
  { id: "time", letter: "t", en: ["time", "track"], es: ["tiempo", "marcador"] },
  { id: "officers", letter: "o", en: ["officers"], es: ["agentes", "oficiales"] },
  { id: "suspects", letter: "s", en: ["suspects"], es: ["sospechosos"] },
  { id: "events", letter: "e", en: ["events", "evidence"], es: ["eventos", "pruebas"] },
  { id: "clocks", letter: "c", en: ["clocks", "clock"], es: ["relojes", "reloj"] },
  { id: "sound", letter: null, en: ["sound"], es: ["sonido"] },
  { id: "force", letter: "f", en: ["force"], es: ["fuerza"], types: ["play_force"] },
  { id: "drive", letter: "d", en: ["drive"], es: ["conducir", "ir"], types: ["drive"] },
  { id: "arrest", letter: "a", en: ["arrest"], es: ["arrestar"], types: ["arrest"] },
  { id: "backup", letter: "b", en: ["backup"], es: ["refuerzos"], types: ["call_for_backup"], risk: true },
  { id: "stakeout", letter: "k", en: ["stakeout"], es: ["vigilancia", "vigilar"], types: ["stakeout"], risk: true },
  { id: "informant", letter: "i", en: ["informant"], es: ["informante"], types: ["catch_informant"] },
  { id: "witness", letter: null, en: ["witness"], es: ["testigo"], types: ["catch_witness"] },
  { id: "search", letter: null, en: ["search"], es: ["registrar"], types: ["search_scene"] },
  { id: "coffee", letter: null, en: ["coffee"], es: ["café"], types: ["coffee_break"] },
  { id: "hold", letter: null, en: ["hold"], es: ["custodia"], types: ["hold_mobster"] },
  { id: "book", letter: null, en: ["book"], es: ["fichar"], types: ["book_mobster"] },
  { id: "resolve", letter: "r", en: ["resolve"], es: ["resolver"], types: ["resolve_event"], slot: true },
  { id: "proceed", letter: "p", en: ["proceed"], es: ["pasar", "seguir"], types: ["proceed"] },
  { id: "accuse", letter: null, en: ["accuse"], es: ["acusar"], types: ["accuse"] },
  { id: "rest", letter: null, en: ["rest"], es: ["cerrar"], types: ["rest_case"], rest: true },
  { id: "keep", letter: null, en: ["keep"], es: ["continuar"], types: ["rest_case"], rest: false },
];
export const NIGHT_WORDS = ["n", "night", "noche"];

// Lower case, without accents or punctuation, single spaces: "Dónde" and "donde" are one word.
export function normalize(text) {
  return String(text).normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

const BY_WORD = new Map();
for (const verb of VERBS) {
  for (const word of [verb.letter, ...verb.en, ...verb.es]) if (word) BY_WORD.set(normalize(word), verb);
}

export function verbOf(word) {
  return BY_WORD.get(normalize(word)) || null;
}

export function verbById(id) {
  return VERBS.find((v) => v.id === id);
}

// The word a verb is typed with, as help and the completions show it: its letter, else its
// first word in the page's language.
export function verbWord(verb) {
  return verb.letter || verb[language()][0] || verb.en[0];
}

export function verbFor(type) {
  return VERBS.find((v) => v.types && v.types.includes(type)) || null;
}

// --- the menu -----------------------------------------------------------------------------------

const ORDER = [
  "drive", "arrest", "call_for_backup", "stakeout", "catch_informant", "catch_witness", "search_scene",
  "hold_mobster", "book_mobster", "resolve_event", "coffee_break", "play_force", "proceed",
];

// The lines of the menu: [{cmd, label, control}] (`control`: a seat command of you.controls).
// `away`: the seats whose player is away now (presence), the only ones a handover vote may name.
export function menuItems(view, away = new Set()) {
  const you = (view && view.you) || {};
  const legal = Array.isArray(you.legal) ? you.legal : [];
  let ordered;
  if (you.decision && you.decision.kind === "accusation") {
    ordered = accusationOrder(view, legal);
  } else {
    const rank = (c) => (ORDER.includes(c.type) ? ORDER.indexOf(c.type) : ORDER.length);
    ordered = legal.map((cmd, i) => [cmd, i]).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([cmd]) => cmd);
  }
  const items = ordered.map((cmd) => ({ cmd, label: describe(cmd, view), control: false }));
  const me = you.seat;
  const players = (view && view.players) || [];
  for (const cmd of you.controls || []) {
    let label = null;
    if (cmd.type === "extend_time") label = t("text.control.extend_time", { left: countdown(((players[me] || {}).bank || 0) * 1000) });
    else if (cmd.type === "play_for_me") label = t("text.control.play_for_me");
    else if (cmd.type === "take_back") label = t("text.control.take_back");
    else if (cmd.type === "vote_handover" && away.has(cmd.target)) label = t("text.control.vote", { name: isolate(seatName(players, cmd.target)) });
    else if (cmd.type === "auto_pass") label = t("text.control.auto_pass", { on: cmd.on ? "yes" : "no" });
    if (label) items.push({ cmd, label, control: true });
  }
  return items;
}

// How a command of the menu is typed ("d Elm Street", "b 3 n", "f Tip Line Elm Street"), or null
// for one answered by its number only.
export function typedForm(cmd, view) {
  const verb = verbFor(cmd.type);
  if (!verb) return null;
  const word = verbWord(verb);
  const night = cmd.night_shift ? " n" : "";
  switch (cmd.type) {
    case "drive": {
      const path = cmd.path || [];
      return path.length ? `${word} ${blockName(view, path[path.length - 1])}` : null;
    }
    case "call_for_backup":
    case "stakeout":
      return `${word} ${cmd.risk}${night}`;
    case "resolve_event":
      return `${word} ${cmd.slot}${night}`;
    case "play_force":
      return `${word} ${forceName(cmd.card)}${cmd.block ? ` ${blockName(view, cmd.block)}` : ""}`;
    case "accuse":
      return `${word} ${cmd.suspect}`;
    default:
      return `${word}${night}`;
  }
}

// --- what the seat may do, said when its move comes -----------------------------------------------

function hoursRange(view, cmds) {
  const hours = cmds.map((c) => hoursOf(view, c)).filter((x) => x !== null);
  if (!hours.length) return t("text.hours.unknown");
  const low = Math.min(...hours);
  const high = Math.max(...hours);
  return low === high ? t("text.hours", { n: low }) : t("text.hours_range", { low, high });
}

// One phrase per kind of command the seat may send now ("Call for Backup: b and a risk from 1 to
// 6 (1 to 6 h)"), in the menu's order.
export function offerPhrases(view) {
  const legal = ((view && view.you) || {}).legal || [];
  const byType = new Map();
  for (const cmd of legal) {
    if (!byType.has(cmd.type)) byType.set(cmd.type, []);
    byType.get(cmd.type).push(cmd);
  }
  const types = [...byType.keys()].sort((a, b) => (ORDER.indexOf(a) + 99) % 99 - (ORDER.indexOf(b) + 99) % 99);
  const out = [];
  for (const type of types) {
    const cmds = byType.get(type);
    const verb = verbFor(type);
    const cost = hoursRange(view, cmds);
    if (type === "drive") {
      out.push(t("text.offer.drive", { n: cmds.length, word: verbWord(verb) }));
    } else if (verb && verb.risk) {
      const risks = cmds.map((c) => c.risk);
      // only with the Night Shift waiver (rules.md §10): the typed form ends in n ("b 3 n")
      const key = cmds.every((c) => c.night_shift) ? "text.offer.risk_night_shift" : "text.offer.risk";
      out.push(t(key, { action: actionName(type), word: verbWord(verb), low: Math.min(...risks), high: Math.max(...risks), cost }));
    } else if (type === "play_force") {
      const names = [...new Set(cmds.map((c) => forceName(c.card)))];
      out.push(t("text.offer.force", { word: verbWord(verb), cards: andList(names) }));
    } else if (type === "proceed") {
      out.push(t("text.offer.proceed", { word: verbWord(verb) }));
    } else if (verb) {
      out.push(t("text.offer.action", { action: actionName(type === "hold_mobster" ? "bring_in_1" : type === "book_mobster" ? "bring_in_2" : type), word: typedForm(cmds[0], view), cost }));
    }
  }
  return out;
}

// What is said when a move becomes the seat's: the page's prompt, then what it may do (a
// decision: its lines, numbered, up to MANY of them).
const MANY = 8;
export function offerWords(view) {
  const you = (view && view.you) || {};
  if (you.decision) {
    const items = menuItems(view).filter((item) => !item.control);
    const out = [decisionWords(you.decision.kind)];
    const shown = items.slice(0, MANY).map((item, i) => t("text.menu.line", { n: i + 1, label: item.label }));
    out.push(...shown);
    out.push(items.length > MANY ? t("text.offer.more", { n: items.length }) : t("text.offer.number"));
    return out;
  }
  const phrases = offerPhrases(view);
  return [turnPrompt(view), t("text.offer.you_may", { list: andList(phrases) }), t("text.offer.menu")];
}

// What the page waits for, in words: the seat's turn and its step (typed, not clicked), else
// the table page's prompt (describe.js).
export function turnPrompt(view) {
  const you = (view && view.you) || {};
  const turn = view.turn || {};
  if (!you.decision && (you.legal || []).length && turn.seat === you.seat) {
    return t("text.prompt.turn", { time: turn.time || "day", phase: turn.phase || "other" });
  }
  return you.decision ? decisionWords(you.decision.kind) : prompt(view);
}
