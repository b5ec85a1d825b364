// The text mode's typed commands (textmode.js): a line typed in its command box is read here and
// answered, or turned into one of the server's legal commands and sent. The words (textmode-menu.js
// VERBS): letters that are the same in English and Spanish (d drive, a arrest, b backup, w where,
// l last moves, t time track, o officers, s suspects, c clocks, h help, ...), words of either
// language; a number does that line of the menu; anything else is matched against the words of
// the menu's lines ("accuse Vera", "discard Tip Line"). A command is never guessed: only one
// of `you.legal` (or `you.controls`) is ever sent, unchanged.
//
// ctx: {view, session, spectate, answer(lines, bad), perform(cmd), sounds, hasTurnClock, away}.

import { blockName, myCar } from "./describe.js";
import { forceName, suspectName } from "./data.js";
import { logText, t } from "./i18n.js";
import {
  NIGHT_WORDS, VERBS, menuItems, normalize, typedForm, verbById, verbOf, verbWord,
} from "./textmode-menu.js";
import {
  ALL_BLOCKS, actionWord, blockAndNeighbours, caseWords, cityWords, clockWords, eventsWords, evidenceWords,
  lastWords, officerWords, suspectWords, trackWords, whereWords,
} from "./textmode-words.js";
import { reasonText } from "/sdk/logtext.js";

// Whether every typed word starts a word of `label` (accents and case aside).
function matches(words, label) {
  const have = normalize(label).split(" ");
  return words.every((w) => have.some((h) => h.startsWith(w)));
}

// The blocks of the city whose name the typed words match: the exact name first.
export function blocksNamed(view, words) {
  const typed = words.join(" ");
  const exact = ALL_BLOCKS.filter((b) => normalize(blockName(view, b)) === typed);
  if (exact.length) return exact;
  return words.length ? ALL_BLOCKS.filter((b) => matches(words, blockName(view, b))) : [];
}

// Runs one typed line.
export function runLine(ctx, line) {
  const raw = String(line || "").trim();
  if (!raw) return;
  if (raw === "?") return help(ctx);
  const words = normalize(raw).split(" ").filter(Boolean);
  if (!words.length) return ctx.answer([t("text.reply.unknown", { line: raw })], true);
  const items = ctx.view ? menuItems(ctx.view, ctx.away) : [];
  if (words.length === 1 && /^\d+$/.test(words[0])) {
    const n = Number(words[0]);
    const item = items[n - 1];
    if (!item) return ctx.answer([t("text.reply.no_line", { n, count: items.length })], true);
    return ctx.perform(item.cmd);
  }
  const verb = verbOf(words[0]);
  if (verb) return runVerb(ctx, verb, words.slice(1), items);
  return byLabel(ctx, items, words, raw);
}

function runVerb(ctx, verb, args, items) {
  const view = ctx.view;
  if (!view && verb.id !== "help" && verb.id !== "sound") return ctx.answer([t("text.reply.not_yet")], true);
  switch (verb.id) {
    case "help": return help(ctx);
    case "sound": return sound(ctx, args);
    case "menu": return menu(ctx, items);
    case "where": return ctx.answer(whereWords(view));
    case "view": return viewBlocks(ctx, args);
    case "last": return ctx.answer(lastWords(ctx.session));
    case "time": return ctx.answer(trackWords(view));
    case "officers": return ctx.answer((view.players || []).map((p) => officerWords(view, p).join(" ")));
    case "suspects": return ctx.answer(suspectWords(view));
    case "events": return ctx.answer([...eventsWords(view), ...evidenceWords(view)]);
    case "clocks": return ctx.answer(clockWords(ctx.session, ctx.hasTurnClock()));
    case "force":
      if (!args.length) return forceHand(ctx, items);
      return act(ctx, verb, args, items);
    default:
      return act(ctx, verb, args, items);
  }
}

function help(ctx) {
  const w = (id) => verbWord(verbById(id));
  ctx.answer([
    t("text.help.intro"),
    t("text.help.read", {
      where: w("where"), view: w("view"), last: w("last"), time: w("time"), officers: w("officers"), suspects: w("suspects"),
      events: w("events"), force: w("force"), clocks: w("clocks"), menu: w("menu"), help: w("help"),
    }),
    t("text.help.play", {
      drive: w("drive"), arrest: w("arrest"), backup: w("backup"), stakeout: w("stakeout"), informant: w("informant"),
      witness: w("witness"), search: w("search"), coffee: w("coffee"), hold: w("hold"), book: w("book"),
      resolve: w("resolve"), force: w("force"), proceed: w("proceed"),
    }),
    t("text.help.decide", { menu: w("menu"), accuse: w("accuse"), rest: w("rest"), keep: w("keep") }),
    t("text.help.other", { sound: w("sound") }),
    t("text.help.languages"),
  ]);
}

function sound(ctx, args) {
  const word = args[0] ? normalize(args[0]) : "";
  const on = ["on", "si", "yes", "activar"].includes(word) ? true : ["off", "no", "desactivar"].includes(word) ? false : !ctx.sounds.on;
  ctx.setSound(on);
  ctx.answer([t("text.reply.sound", { on: on ? "yes" : "no" })]);
}

function menu(ctx, items) {
  if (ctx.spectate) return ctx.answer([t("text.reply.spectator")]);
  if (!items.length) return ctx.answer([t("text.menu.empty")]);
  ctx.answer(items.map((item, i) => t("text.menu.line", { n: i + 1, label: item.label })));
}

function viewBlocks(ctx, args) {
  const view = ctx.view;
  if (!args.length) return ctx.answer(cityWords(view));
  const blocks = blocksNamed(view, args);
  if (!blocks.length) return ctx.answer([t("text.reply.no_block", { name: args.join(" ") })], true);
  if (blocks.length > 1) return ctx.answer([t("text.reply.which_block", { blocks: blocks.map((b) => blockName(view, b)).join(", ") })], true);
  ctx.answer(blockAndNeighbours(view, blocks[0]));
}

function forceHand(ctx, items) {
  const lines = ctx.spectate ? [t("text.case.spectator")] : [caseWords(ctx.view)[0]];
  const playable = items.filter((item) => item.cmd.type === "play_force").map((item) => typedForm(item.cmd, ctx.view));
  if (playable.length) lines.push(t("text.reply.playable", { forms: playable.join(", ") }));
  ctx.answer(lines);
}

// A verb of the game: the legal commands of its types that the arguments pick.
function act(ctx, verb, args, items) {
  const view = ctx.view;
  if (ctx.spectate) return ctx.answer([t("text.reply.spectator")], true);
  const mine = items.filter((item) => !item.control && verb.types.includes(item.cmd.type));
  const name = verb.types[0] === "play_force" ? t("text.force_cards") : verb.types[0] === "drive" ? t("text.driving")
    : verb.types[0] === "proceed" ? t("text.proceeding") : verb.types[0] === "accuse" ? t("text.accusing")
      : verb.types[0] === "rest_case" ? t("text.resting") : actionWord(verb.types[0]);
  if (!mine.length) return notNow(ctx, verb, name);
  const night = args.some((a) => NIGHT_WORDS.includes(a));
  let words = args.filter((a) => !NIGHT_WORDS.includes(a));
  let found = mine.filter((item) => Boolean(item.cmd.night_shift) === night);
  if (verb.rest !== undefined) found = found.filter((item) => Boolean(item.cmd.rest) === verb.rest);
  if (!found.length) {
    return ctx.answer([t(night ? "text.reply.no_night_shift" : "text.reply.night_shift_only", { forms: forms(mine, view) })], true);
  }
  if (verb.risk || verb.slot) {
    const number = words.find((w) => /^\d+$/.test(w));
    if (number === undefined) {
      if (found.length > 1) return ctx.answer([t("text.reply.choose", { what: name, forms: forms(found, view) })], true);
    } else {
      const n = Number(number);
      found = found.filter((item) => (verb.risk ? item.cmd.risk : item.cmd.slot) === n);
      if (!found.length) return ctx.answer([t("text.reply.not_offered", { what: name, forms: forms(mine, view) })], true);
    }
    words = [];
  } else if (verb.id === "drive") {
    found = drives(ctx, found, words);
    if (!found) return undefined;
    words = [];
  } else if (verb.id === "force") {
    found = found.filter((item) => matches(words, `${forceName(item.cmd.card)} ${item.cmd.block ? blockName(view, item.cmd.block) : ""}`));
  } else if (verb.id === "accuse") {
    found = found.filter((item) => matches(words, `${item.cmd.suspect} ${suspectName(item.cmd.suspect)}`));
  } else if (words.length) {
    found = found.filter((item) => matches(words, item.label));
  }
  if (found.length === 1) return ctx.perform(found[0].cmd);
  if (!found.length) return ctx.answer([t("text.reply.not_offered", { what: name, forms: forms(mine, view) })], true);
  return ambiguous(ctx, items, found);
}

// The drives to the block the words name: the cheapest path there (the server's hours), or null
// when it was answered (no such block, or not one to drive to now).
function drives(ctx, found, words) {
  const view = ctx.view;
  if (!words.length) {
    ctx.answer([t("text.reply.choose", { what: t("text.driving"), forms: forms(found, view) })], true);
    return null;
  }
  const end = (item) => item.cmd.path[item.cmd.path.length - 1];
  const blocks = blocksNamed(view, words);
  if (!blocks.length) {
    ctx.answer([t("text.reply.no_block", { name: words.join(" ") })], true);
    return null;
  }
  const there = found.filter((item) => blocks.some((b) => b[0] === end(item)[0] && b[1] === end(item)[1]));
  if (!there.length) {
    const car = myCar(view);
    const here = car && blocks.length === 1 && blocks[0][0] === car[0] && blocks[0][1] === car[1];
    ctx.answer([t(here ? "text.reply.already_there" : "text.reply.cannot_drive", { name: blocks.map((b) => blockName(view, b)).join(", ") })], true);
    return null;
  }
  const ends = new Set(there.map((item) => end(item).join(",")));
  if (ends.size > 1) return there;
  const hours = (item) => {
    const you = view.you || {};
    const i = (you.legal || []).indexOf(item.cmd);
    return Array.isArray(you.hours) && i >= 0 ? you.hours[i] : 0;
  };
  return [there.reduce((best, item) => (hours(item) < hours(best) ? item : best))];
}

function forms(items, view) {
  return items.map((item) => typedForm(item.cmd, view) || item.label).join(", ");
}

function ambiguous(ctx, items, found) {
  ctx.answer([t("text.reply.which"), ...found.map((item) => t("text.menu.line", { n: items.indexOf(item) + 1, label: item.label }))], true);
}

// A verb whose commands are not legal now: why, when the server says (you.unavailable).
function notNow(ctx, verb, name) {
  const view = ctx.view;
  const you = view.you || {};
  if (!you.legal || !you.legal.length) {
    return ctx.answer([t(view.status === "over" ? "text.reply.over" : "text.reply.not_your_move")], true);
  }
  const why = (you.unavailable || []).find((u) => verb.types.includes(u.type));
  const text = logText();
  if (why && text) {
    return ctx.answer([t("text.reply.unavailable", { what: name, reason: reasonText(text, why.type, why.code, why.code) })], true);
  }
  return ctx.answer([t("text.reply.not_now", { what: name })], true);
}

// A line that is no command word: the menu's lines whose words it matches.
function byLabel(ctx, items, words, raw) {
  const found = items.filter((item) => matches(words, item.label));
  if (found.length === 1) return ctx.perform(found[0].cmd);
  if (found.length > 1) return ambiguous(ctx, items, found);
  return ctx.answer([t("text.reply.unknown", { line: raw })], true);
}

// The datalist's completions: every command typed as the page would have it now.
export function completions(view, spectate, away) {
  const out = [];
  const seen = new Set();
  const add = (value, label) => {
    if (!value || seen.has(value)) return;
    seen.add(value);
    out.push({ value, label });
  };
  if (view && !spectate) {
    menuItems(view, away).forEach((item, i) => {
      add(typedForm(item.cmd, view), item.label);
      add(String(i + 1), item.label);
    });
  }
  for (const id of ["help", "menu", "where", "view", "last", "time", "officers", "suspects", "events", "force", "clocks"]) {
    add(verbWord(verbById(id)), t(`text.verb.${id}`));
  }
  return out;
}

export { VERBS };
