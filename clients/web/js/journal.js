// The game log: short lines derived from what changed between two views (views carry no
// history), after the terminal client's tui/journal.py.

import { ACTIONS, eventName, forceName, suspectName } from "./data.js";
import { at, mySeat, place, who } from "./describe.js";

function fresh(before, after) {
  // Items of `after` past the common prefix (these lists only grow, or start again).
  const same = before.length <= after.length && before.every((x, i) => JSON.stringify(x) === JSON.stringify(after[i]));
  return same ? after.slice(before.length) : after;
}

export function changes(old, now) {
  old = old || {};
  const me = mySeat(now);
  const out = [];
  const status = now.status;
  const was = old.status;
  if (status !== was) {
    if (status === "playing") out.push("The game begins: someone has been murdered in Echo Ridge.");
    else if (status === "accusing") out.push("Every officer has ended: accusations!");
  }
  out.push(...turnLines(old.turn || {}, now.turn || {}, now, me));
  out.push(...officerLines(old.players || [], now.players || [], me));
  out.push(...eventLines(old, now));
  out.push(...youLines(old.you || {}, now.you || {}, me));
  const looksBefore = (old.looks || []).map((x) => [...x]);
  for (const [a, b] of fresh(looksBefore, now.looks || [])) {
    out.push(`${who(a, me)} looked at a card of ${who(b, me)}.`);
  }
  out.push(...mobsterLines(old, now));
  if (status === "over" && was !== "over") {
    const r = now.result || {};
    const winners = (r.winners || []).map((w) => who(w, me)).join(", ") || "nobody";
    out.push(`Game over. The murderer was ${r.murderer} ${suspectName(r.murderer)}.`);
    out.push(`Winners: ${winners}.`);
  }
  return out;
}

function turnLines(old, now, view, me) {
  if (!now || now.number === undefined) return [];
  const out = [];
  const actor = who(now.seat, me);
  if (!(old && old.number === now.number)) {
    out.push(`— Turn ${now.number}: ${actor}, from space ${now.start} (${now.time})`);
    old = {};
  }
  const pathOld = old.path || [];
  const pathNew = now.path || [];
  if (pathNew.length > pathOld.length) {
    out.push(`${actor} drove to ${place(view, pathNew[pathNew.length - 1])} (${now.drive_hours} h)`);
  }
  for (const card of fresh(old.played || [], now.played || [])) out.push(`${actor} played ${forceName(card)}`);
  for (const action of fresh(old.actions || [], now.actions || [])) out.push(`${actor}: ${ACTIONS[action] || action}`);
  return out;
}

function officerLines(old, now, me) {
  const out = [];
  for (const p of now) {
    const q = old[p.seat];
    if (!q) continue;
    const name = who(p.seat, me);
    if (p.badge > q.badge) out.push(`${name}: badge ${q.badge} → ${p.badge}`);
    if (p.informants.length > q.informants.length) out.push(`${name} caught the Informant of row ${p.informants.at(-1)}`);
    if (p.witnesses.length > q.witnesses.length) out.push(`${name} caught the Witness of column ${p.witnesses.at(-1)}`);
    if (p.search.length > q.search.length) out.push(`${name} searched and found ${p.search.at(-1) ? "a success" : "a failure"}`);
    if (p.stakeout.length > q.stakeout.length) out.push(`${name} won a Stakeout token worth ${p.stakeout.at(-1)}`);
    if (p.holding_tokens.length > q.holding_tokens.length) out.push(`${name} took the ${p.holding_tokens.at(-1)} Holding token`);
    if (p.holding && !q.holding) out.push(`${name} holds a ${p.holding} mobster`);
    for (const e of fresh(q.evidence, p.evidence)) out.push(`${name} SOLVED ${String(e).toUpperCase()}!`);
    if (p.suspects > q.suspects) out.push(`${name} gained a Suspect card`);
    if (p.force > q.force) out.push(`${name} gained a Force card`);
    if (p.ended && !q.ended) out.push(`${name} ended ${p.seat === me ? "your" : "their"} game on space ${p.space}`);
    if (p.accused && !q.accused) out.push(`${name} made an accusation`);
  }
  return out;
}

function eventLines(old, now) {
  const before = (old.events && old.events.slots) || [null, null, null];
  const after = (now.events && now.events.slots) || [null, null, null];
  const out = [];
  after.forEach((b, i) => {
    const a = before[i];
    const cardA = a ? a.card : null;
    const cardB = b ? b.card : null;
    if (cardA === cardB) return;
    if (cardA) out.push(`Event #${i + 1} ${eventName(cardA)} is over`);
    if (cardB) out.push(`New event #${i + 1}: ${eventName(cardB)}`);
  });
  return out;
}

function youLines(old, now, me) {
  if (!now || !old || old.seat === undefined || now.seat === undefined) return [];
  const out = [];
  for (const s of fresh(old.suspects || [], now.suspects || [])) out.push(`You drew ${s} ${suspectName(s)}: innocent.`);
  for (const s of fresh(old.seen || [], now.seen || [])) out.push(`You saw ${s} ${suspectName(s)}: innocent.`);
  for (const [looker, card] of fresh(old.shown || [], now.shown || [])) out.push(`${who(looker, me)} saw your ${card}.`);
  const traitsOld = old.traits || {};
  for (const [e, v] of Object.entries(now.traits || {})) {
    if (!(e in traitsOld)) out.push(`You learned the murderer's ${e}: ${v}.`);
  }
  const knownOld = new Set((old.known_tokens || []).map((t) => t.block.join(",")));
  for (const t of now.known_tokens || []) {
    if (!knownOld.has(t.block.join(","))) out.push(`You know the ${t.kind} token on ${at(t.block)}: ${t.value}.`);
  }
  return out;
}

function mobsterLines(old, now) {
  const before = (old.city && old.city.blocks) || [];
  const after = (now.city && now.city.blocks) || [];
  if (before.length !== after.length) return [];
  const out = [];
  after.forEach((b, i) => {
    if (b.mobster && !before[i].mobster) out.push(`A ${b.mobster} mobster appears on ${place(now, b.block)}`);
  });
  return out;
}
