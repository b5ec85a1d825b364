// The text mode's words (textmode.js): each part of the table as sentences, the same for the
// page's sections and for the answers to its commands (w, v, l, t, o, s, c, e, f): the city by
// its block names, where the seat's car is and what is next to it, the officers, the time
// track, the events and the evidence, the case file and the suspects, the clocks, the last
// moves and the result. Read from the session's view (SPEC.md §6.1), worded with the client's
// one copy of each name (data.js, describe.js, the log catalogue); players' names isolated.

import { isCoop, markerWords } from "./coop.js";
import { countdown, runningClocks } from "./clocks.js";
import {
  ABILITIES, EVIDENCE_ORDER, SUSPECT_IDS, actionName, candidates, evidenceName, forceEffect, forceName,
  isNight, roleName, suspectName, suspectTrait, traitName,
} from "./data.js";
import { blockName, blockOf, faceUpBy, innocents, knownFaceDown, mySeat, whatIsOn } from "./describe.js";
import { andList, logText, t } from "./i18n.js";
import { recentTurns } from "./lastmove.js";
import { logLine } from "./logpanel.js";
import { decidedWords } from "./panels.js";
import { isolate } from "./say.js";
import { eventWords, seatName } from "/sdk/logtext.js";

// A seat for a message: {you: "yes"|"no", name} (the name isolated: it is a player's input).
export function seatArgs(view, seat) {
  const me = mySeat(view);
  return { you: seat === me ? "yes" : "no", name: isolate(seatName((view && view.players) || [], seat)) };
}

function list(items) {
  return items.length ? andList(items) : t("text.none");
}

// --- the city ---------------------------------------------------------------------------------

export const ALL_BLOCKS = Array.from({ length: 25 }, (_, i) => [(i % 5) + 1, Math.floor(i / 5) + 1]);

// The blocks that share a side with `block` (rules.md §3: no diagonals).
export function neighbours(block) {
  const [c, r] = block;
  return [[c, r - 1], [c + 1, r], [c, r + 1], [c - 1, r]].filter(([x, y]) => x >= 1 && x <= 5 && y >= 1 && y <= 5);
}

function carNames(view, block) {
  return (blockOf(view, block).cars || []).map((seat) => {
    const { you, name } = seatArgs(view, seat);
    return you === "yes" ? t("text.you") : name;
  });
}

// What is on a block: "red mobster, Search token; cars: you, Bob", or "" for nothing.
export function contents(view, block) {
  const what = whatIsOn(view, block);
  const cars = carNames(view, block);
  if (!what && !cars.length) return "";
  return t("text.block.contents", { what, has: what ? "yes" : "no", cars: cars.length, who: andList(cars) });
}

// A block in a sentence: its name and what is on it.
export function blockWords(view, block) {
  const what = contents(view, block);
  return t("text.block", { name: blockName(view, block), what, empty: what ? "no" : "yes" });
}

// A block with its neighbours (the `v <block>` answer and `w`).
export function blockAndNeighbours(view, block) {
  const next = neighbours(block).map((b) => {
    const what = contents(view, b);
    return t("text.block.short", { name: blockName(view, b), what, empty: what ? "no" : "yes" });
  });
  return [
    t("text.block.at", { block: blockWords(view, block), row: block[1], col: block[0] }),
    t("text.block.next", { blocks: andList(next) }),
  ];
}

// The whole city: the blocks with something on them, the Informants and Witnesses not caught.
export function cityWords(view) {
  const city = view.city || {};
  const busy = ALL_BLOCKS.filter((b) => contents(view, b));
  const out = busy.map((b) => blockWords(view, b));
  if (!busy.length) out.push(t("text.city.empty"));
  out.push(t("text.city.informants", { rows: list((city.informants || []).map(String)), n: (city.informants || []).length }));
  out.push(t("text.city.witnesses", { cols: list((city.witnesses || []).map(String)), n: (city.witnesses || []).length }));
  return out;
}

// --- where am I -----------------------------------------------------------------------------------

export function whereWords(view) {
  const me = mySeat(view);
  const out = [];
  const turn = view.turn;
  if (turn) {
    out.push(t("text.turn.now", { number: turn.number, time: turn.time, ...seatArgs(view, turn.seat) }));
  }
  if (me === null) {
    out.push(t("text.where.spectator"));
    return out;
  }
  const p = (view.players || [])[me];
  if (!p) return out;
  out.push(t("text.where.car", { name: blockName(view, p.car) }));
  out.push(...blockAndNeighbours(view, p.car));
  out.push(t("text.where.tracker", { space: p.space, time: isNight(p.space) ? "night" : "day" }));
  return out;
}

// --- the officers ---------------------------------------------------------------------------------

function clueWords(p) {
  const clues = [];
  if (p.informants.length) clues.push(t("text.clue.informants", { n: p.informants.length, rows: andList(p.informants.map(String)) }));
  if (p.witnesses.length) clues.push(t("text.clue.witnesses", { n: p.witnesses.length, cols: andList(p.witnesses.map(String)) }));
  if (p.search.length) {
    const good = p.search.filter(Boolean).length;
    clues.push(t("text.clue.search", { good, bad: p.search.length - good }));
  }
  if (p.stakeout.length) clues.push(t("text.clue.stakeout", { n: p.stakeout.length, values: andList(p.stakeout.map(String)) }));
  if (p.holding_tokens.length) {
    clues.push(t("text.clue.holding", { n: p.holding_tokens.length, colors: andList(p.holding_tokens.map((c) => colourWord(c))) }));
  }
  return clues;
}

function colourWord(colour) {
  const text = logText();
  return (text && text.values && text.values.color && text.values.color[colour]) || String(colour);
}

export function officerWords(view, p) {
  const turn = view.turn || {};
  const coop = isCoop(view);
  const ability = ABILITIES[p.ability] || [String(p.ability), ""];
  const out = [t("text.officer", {
    ...seatArgs(view, p.seat),
    seat: p.seat + 1,
    role: coop && p.role ? roleName(p.role) : "none",
    lead: coop && view.coop.lead === p.seat ? "yes" : "no",
    space: p.space,
    time: isNight(p.space) ? "night" : "day",
    badge: p.badge,
    car: blockName(view, p.car),
    playing: turn.seat === p.seat && view.status === "playing" ? "yes" : "no",
    ended: p.ended ? "yes" : "no",
  })];
  out.push(t("text.officer.ability", { name: ability[0], effect: ability[1] }));
  if (!coop) {
    out.push(t("text.officer.arrests", { n: p.arrests.length, colors: list(p.arrests.map(colourWord)) }));
  }
  out.push(t("text.officer.holding", { held: p.holding ? "yes" : "no", color: p.holding ? colourWord(p.holding) : "" }));
  out.push(t("text.officer.clues", { clues: list(clueWords(p)) }));
  out.push(t("text.officer.evidence", { n: p.evidence.length, evidence: list(p.evidence.map(evidenceName)) }));
  out.push(t("text.officer.hand", { suspects: p.suspects, force: p.force }));
  if (coop && (p.face_up || []).length) {
    out.push(t("text.officer.face_up", { cards: andList(p.face_up.map((id) => suspectName(id))) }));
  }
  if (p.ability === "night_shift") out.push(t("text.officer.night_shift", { n: p.night_shift_left }));
  return out;
}

// --- the time track -------------------------------------------------------------------------------

export function trackWords(view) {
  const track = view.track || {};
  const out = [];
  const turn = view.turn;
  if (turn) out.push(t("text.turn.now", { number: turn.number, time: turn.time, ...seatArgs(view, turn.seat) }));
  for (const stack of track.stacks || []) {
    const names = [...stack.seats].reverse().map((seat) => {
      const { you, name } = seatArgs(view, seat);
      return you === "yes" ? t("text.you") : name;
    });
    out.push(t("text.track.space", { space: stack.space, time: isNight(stack.space) ? "night" : "day", n: names.length, names: andList(names) }));
  }
  const lines = track.lines || [];
  const crossed = track.crossed || [];
  out.push(t("text.track.lines", { lines: andList(lines.map(String)), crossed: list(crossed.map(String)) }));
  if (isCoop(view)) out.push(markerWords(view));
  else out.push(t("text.track.end_zone"));
  return out;
}

// --- events and evidence ------------------------------------------------------------------------

export function eventsWords(view) {
  const text = logText() || {};
  const ev = view.events || {};
  const out = [];
  (ev.slots || [null, null, null]).forEach((slot, i) => {
    if (!slot) {
      out.push(t("text.event.empty", { slot: i + 1 }));
      return;
    }
    const said = eventWords(text, slot.card);
    const tokens = (slot.tokens || []).map((b) => blockName(view, b));
    out.push(t("text.event", { slot: i + 1, name: said.name || slot.card }));
    if (said.while) out.push(t("text.event.while", { words: said.while }));
    if (said.asks) out.push(t("text.event.asks", { words: said.asks }));
    if (said.reward) out.push(t("text.event.reward", { words: said.reward }));
    out.push(t("text.event.tokens", { n: tokens.length, blocks: andList(tokens) }));
    if (slot.deadline !== null && slot.deadline !== undefined) out.push(t("text.event.deadline", { space: slot.deadline }));
  });
  out.push(t("text.event.deck", { n: ev.deck ?? 0 }));
  return out;
}

export function evidenceWords(view) {
  const traits = (view.you && view.you.traits) || {};
  const me = mySeat(view);
  return (view.evidence || []).map((e) => {
    const trait = e.trait !== null && e.trait !== undefined ? e.trait : traits[e.evidence];
    const holder = e.holder === null || e.holder === undefined ? null : e.holder;
    return t("text.evidence", {
      evidence: evidenceName(e.evidence),
      clues: e.clues,
      needed: e.needed,
      solved: holder === null ? "no" : holder === me ? "you" : "other",
      name: holder === null ? "" : isolate(seatName(view.players, holder)),
      known: trait ? "yes" : "no",
      trait: trait ? traitName(trait) : "",
    });
  });
}

// --- the case file and the suspects ------------------------------------------------------------

export function caseWords(view) {
  const you = view.you;
  if (!you || typeof you !== "object") return [t("text.case.spectator")];
  const coop = isCoop(view);
  const out = [];
  const force = (you.force || []).map((card) => t("text.case.force_card", { name: forceName(card), effect: forceEffect(card, coop) }));
  out.push(t("text.case.force", { n: force.length, cards: andList(force) }));
  if (!coop) {
    const tokens = knownFaceDown(view).map((tk) => t("text.case.token", {
      block: blockName(view, tk.block), kind: tk.kind, value: String(tk.value), success: tk.value ? "yes" : "no",
    }));
    if (tokens.length) out.push(t("text.case.tokens", { tokens: andList(tokens) }));
  }
  const shown = (you.shown || []).map(([looker, card]) => t("text.case.shown_one", { ...seatArgs(view, looker), card: suspectName(card) }));
  if (shown.length) out.push(t("text.case.shown", { list: andList(shown) }));
  if (you.accusation) out.push(t("text.case.accused", { id: you.accusation, name: suspectName(you.accusation) }));
  return out;
}

function traitsWords(view) {
  const traits = (view.you && view.you.traits) || {};
  const known = EVIDENCE_ORDER.filter((e) => e in traits).map((e) => t("text.trait", { evidence: evidenceName(e), trait: traitName(traits[e]) }));
  return t("text.traits", { n: known.length, traits: andList(known), team: isCoop(view) ? "yes" : "no" });
}

function suspectLine(id) {
  return t("text.suspect", { id, name: suspectName(id), traits: EVIDENCE_ORDER.map((e) => traitName(suspectTrait(id, e))).join(", ") });
}

export function suspectWords(view) {
  const you = view.you;
  if (!you || typeof you !== "object") return [t("text.case.spectator")];
  const traits = you.traits || {};
  const possible = candidates(innocents(view), traits);
  const out = [t("text.suspects.possible", { n: possible.length, list: andList(possible.map(suspectLine)) })];
  const named = (ids) => andList(ids.map((id) => t("text.suspect.short", { id, name: suspectName(id) })));
  out.push(t("text.suspects.hand", { n: (you.suspects || []).length, list: named(you.suspects || []) }));
  if ((you.seen || []).length) out.push(t("text.suspects.seen", { n: you.seen.length, list: named(you.seen) }));
  if (isCoop(view)) {
    const faceUp = SUSPECT_IDS.filter((id) => faceUpBy(view, id) !== null);
    if (faceUp.length) out.push(t("text.suspects.face_up", { n: faceUp.length, list: named(faceUp) }));
  }
  out.push(traitsWords(view));
  return out;
}

// --- the clocks -----------------------------------------------------------------------------------

// Every clock that runs now (SPEC.md §6.6), the decision deadline (§6.5), and the time banks
// when the table has a turn clock.
export function clockWords(session, hasTurnClock) {
  const view = session.view || {};
  const now = Date.now();
  const out = runningClocks(session).map((c) => t("text.clock", {
    ...seatArgs(view, c.seat), kind: c.kind, left: countdown(c.at - now),
  }));
  const d = session.deadline;
  if (d && d.version === session.version && view.status !== "over") {
    const names = d.seats.map((seat) => {
      const { you, name } = seatArgs(view, seat);
      return you === "yes" ? t("text.you") : name;
    });
    out.push(t("text.clock.deadline", { names: andList(names), seconds: Math.max(0, Math.ceil((d.at - now) / 1000)) }));
  }
  if (!out.length) out.push(t("text.clock.none"));
  if (hasTurnClock) {
    for (const p of view.players || []) {
      if (!p.bot) out.push(t("text.clock.bank", { ...seatArgs(view, p.seat), left: countdown(p.bank * 1000) }));
    }
  }
  for (const p of view.players || []) {
    if (p.auto) out.push(t("text.clock.auto", { ...seatArgs(view, p.seat), reason: p.auto }));
  }
  return out;
}

// --- the last moves -------------------------------------------------------------------------------

// The last turns' moves of every seat, oldest first (lastmove.js recentTurns), in the log's words.
export function lastWords(session) {
  const text = logText();
  const view = session.view || {};
  const seat = Number.isInteger(session.seat) ? session.seat : null;
  const turns = recentTurns(session.log, seat).reverse();
  const out = [];
  for (const group of turns) {
    const turn = group.turn;
    if (turn) out.push(t("text.last.turn", { number: turn.number, time: turn.night ? "night" : "day", ...seatArgs(view, turn.seat) }));
    for (const { e, w } of group.records) {
      const line = text ? logLine(text, e, { view, seat, whole: session.logWhole || Boolean(w) }) : null;
      if (line) out.push(line);
    }
  }
  if (!out.length) out.push(t("text.last.nothing"));
  return out;
}

// --- the end --------------------------------------------------------------------------------------

export function resultWords(view) {
  const r = view.result || {};
  const me = mySeat(view);
  const out = [t("text.end.over")];
  if (r.decided_by === "stopped") {
    out.push(t("text.end.stopped"));
  } else if (isCoop(view)) {
    const won = Boolean(r.team_accusation && r.team_accusation === r.murderer);
    out.push(t("text.end.team", {
      accused: r.team_accusation ? "yes" : "no", id: r.team_accusation || "", name: r.team_accusation ? suspectName(r.team_accusation) : "", won: won ? "yes" : "no",
    }));
  } else {
    const winners = r.winners || [];
    const names = winners.map((seat) => (seat === me ? t("text.you") : isolate(seatName(view.players, seat))));
    out.push(t("text.end.winners", { n: winners.length, names: andList(names), you: winners.includes(me) ? "yes" : "no" }));
    const why = winners.length ? decidedWords(view) : null; // (nobody won: the line above says why)
    if (why) out.push(why);
  }
  if (r.murderer) out.push(t("text.end.murderer", { id: r.murderer, name: suspectName(r.murderer) }));
  const mine = me !== null ? (r.accusations || [])[me] : null;
  if (me !== null && !isCoop(view)) {
    out.push(t("text.end.your_accusation", { accused: mine ? "yes" : "no", id: mine || "", name: mine ? suspectName(mine) : "", right: mine && mine === r.murderer ? "yes" : "no" }));
  }
  return out;
}

// An action type's name for "Arrest is not possible now" (the log catalogue's word).
export function actionWord(type) {
  const key = { hold_mobster: "bring_in_1", book_mobster: "bring_in_2" }[type] || type;
  return actionName(key);
}
