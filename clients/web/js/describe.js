// Readable words for views and commands (SPEC.md §5.4, §6.1), after the terminal client's
// tui/describe.py: one line per command of `you.legal`, what a block holds, what the page asks.

import {
  ACTIONS, DECISIONS, candidates, capitalize, eventName, forceName, suspectName, suspectTrait,
} from "./data.js";
import { seatName } from "/sdk/logtext.js";

// A seat in a sentence: "You" for the viewer's own, else the player's display name.
export function who(seat, me, players = null) {
  if (seat === null || seat === undefined) return "nobody";
  return seat === me ? "You" : players ? seatName(players, seat) : `P${seat + 1}`;
}

// A block's name as the board shows it ("Chinatown Gate", "Police HQ"); before the city is
// dealt (no names yet), its column and row in words.
export function blockName(view, block) {
  if (!Array.isArray(block)) return "";
  const name = blockOf(view, block).name;
  return name ? String(name) : `column ${block[0]}, row ${block[1]}`;
}

export function blockOf(view, block) {
  if (!block) return {};
  const [c, r] = block;
  const blocks = (view && view.city && view.city.blocks) || [];
  const i = (r - 1) * 5 + (c - 1);
  return i >= 0 && i < blocks.length ? blocks[i] : {};
}

// Where a block is, for sentences: its name.
export function place(view, block) {
  return blockName(view, block);
}

// The hours the server says `cmd` (one of you.legal) adds to the turn (you.hours, SPEC.md §6.1),
// or null when the server does not say: the page never works a cost out itself.
export function hoursOf(view, cmd) {
  const you = (view && view.you) || {};
  const legal = you.legal || [];
  const hours = you.hours;
  if (!Array.isArray(hours) || hours.length !== legal.length) return null;
  let i = legal.indexOf(cmd);
  if (i < 0) {
    const key = commandKey(cmd);
    i = legal.findIndex((c) => commandKey(c) === key);
  }
  return i >= 0 && Number.isInteger(hours[i]) ? hours[i] : null;
}

// " (2 h)" from the server's hours, or "" when it sends none.
export function costWords(view, cmd) {
  const hours = hoursOf(view, cmd);
  return hours === null ? "" : ` (${hours} h)`;
}

export function clueWords(clue) {
  if (!clue) return "";
  const { kind, value } = clue;
  if (kind === "search") {
    return "Search token" + (value === null || value === undefined ? "" : value ? " (success)" : " (failure)");
  }
  return "Stakeout token" + (value === null || value === undefined ? "" : ` (value ${value})`);
}

export function whatIsOn(view, block) {
  const b = blockOf(view, block);
  const parts = [];
  if (b.mobster) parts.push(`${b.mobster} mobster`);
  if (b.clue) parts.push(clueWords(b.clue));
  if (b.events && b.events.length) parts.push(`event token${b.events.length > 1 ? "s" : ""} of slot ${b.events.join(" and ")}`);
  if (b.hq) parts.push("HQ");
  return parts.join(", ");
}

export function mySeat(view) {
  const you = view && view.you;
  return you && typeof you === "object" && "seat" in you ? you.seat : null;
}

export function myCar(view) {
  const me = mySeat(view);
  const players = view.players || [];
  return me === null || me >= players.length ? null : players[me].car;
}

// The suspects the viewer knows to be innocent: its hand, what it has seen, and (co-op) every
// officer's face-up Suspect cards.
export function innocents(view) {
  const you = view.you || {};
  const faceUp = (view.players || []).flatMap((p) => p.face_up || []);
  return new Set([...(you.suspects || []), ...(you.seen || []), ...faceUp]);
}

// The officer (not the viewer) who holds `suspect` face up (co-op), or null.
export function faceUpBy(view, suspect) {
  const me = mySeat(view);
  const p = (view.players || []).find((q) => q.seat !== me && (q.face_up || []).includes(suspect));
  return p ? p.seat : null;
}

function ns(cmd) {
  return cmd.night_shift ? " (Night Shift)" : "";
}

function knownToken(view, block) {
  for (const t of (view.you && view.you.known_tokens) || []) {
    if (t.block[0] === block[0] && t.block[1] === block[1]) return t.value;
  }
  return null;
}

// The face-down tokens the viewer knows that are still face down in the city (a token won or
// removed since has left the list).
export function knownFaceDown(view) {
  return ((view.you && view.you.known_tokens) || []).filter((t) => {
    const clue = blockOf(view, t.block).clue;
    return clue && clue.kind === t.kind;
  });
}

export function knownValueHere(view) {
  const car = myCar(view);
  return car ? knownToken(view, car) : null;
}

export function accuseNote(view, suspect) {
  const you = view.you || {};
  if ((you.suspects || []).includes(suspect)) return "innocent: in your hand";
  if ((you.seen || []).includes(suspect)) return "innocent: you saw the card";
  const holder = faceUpBy(view, suspect);
  if (holder !== null) return `innocent: face up with ${who(holder, mySeat(view), view.players)}`;
  for (const [evidence, value] of Object.entries(you.traits || {})) {
    if (suspectTrait(suspect, evidence) !== value) return `ruled out: ${evidence} is ${value}`;
  }
  return "possible";
}

export function describe(cmd, view) {
  const kind = String(cmd.type);
  const me = mySeat(view);
  const players = view.players || [];
  const cost = costWords(view, cmd);
  if (kind === "drive") {
    const path = cmd.path || [];
    if (!path.length) return "Drive nowhere";
    const end = path[path.length - 1];
    const there = whatIsOn(view, end);
    const hours = hoursOf(view, cmd);
    return `Drive to ${place(view, end)}: ${path.length} block${path.length > 1 ? "s" : ""}` +
      (hours === null ? "" : `, ${hours} h`) + (there ? ` (${there})` : "");
  }
  if (kind === "play_force") {
    const on = cmd.block ? ` on ${place(view, cmd.block)}` : "";
    return `Play ${forceName(cmd.card)}${on}`;
  }
  const car = myCar(view);
  const here = car ? blockOf(view, car) : {};
  const the = (colour) => (colour ? `the ${colour} mobster` : "the mobster");
  switch (kind) {
    case "arrest":
      return `Arrest ${the(here.mobster)} here${cost}`;
    case "coffee_break":
      return `Coffee Break: nothing happens${cost}`;
    case "call_for_backup":
      return `Call for Backup, risk ${cmd.risk}${ns(cmd)}${cost}`;
    case "catch_informant":
      return `Catch the Informant${car ? ` of row ${car[1]}` : ""}${ns(cmd)}${cost}`;
    case "catch_witness":
      return `Catch the Witness${car ? ` of column ${car[0]}` : ""}${ns(cmd)}${cost}`;
    case "search_scene":
      return `Search the Scene${ns(cmd)}${cost}`;
    case "stakeout":
      return `Stakeout, risk ${cmd.risk}${ns(cmd)}${cost}`;
    case "hold_mobster":
      return `Bring in for Holding, step 1: hold ${the(here.mobster)}${ns(cmd)}${cost}`;
    case "book_mobster": {
      const held = me !== null && players[me] ? players[me].holding : null;
      return `Bring in for Holding, step 2: book ${the(held)} at Police HQ${ns(cmd)}${cost}`;
    }
    case "resolve_event": {
      const slots = (view.events && view.events.slots) || [];
      const slot = slots[cmd.slot - 1];
      const card = slot ? slot.card : "?";
      return `Resolve the event ${eventName(card)} (slot ${cmd.slot})${ns(cmd)}${cost}`;
    }
    case "proceed":
      return "Proceed (play no more Force cards now)";
    case "gain_suspect": {
      if (cmd.look_at === null || cmd.look_at === undefined) return "Draw the top Suspect card";
      const n = players[cmd.look_at] ? players[cmd.look_at].suspects : null;
      const held = n === null ? "" : ` (${n === 1 ? "1 card" : `${n} cards`} in hand)`;
      return `Look at a Suspect card of ${who(cmd.look_at, me, players)}${held}`;
    }
    case "interrogate": {
      if (cmd.target === null || cmd.target === undefined) return "Skip the Interrogate";
      const n = players[cmd.target] ? players[cmd.target].suspects : null;
      const held = n === null ? "" : ` (${n === 1 ? "1 Suspect card" : `${n} Suspect cards`} in hand)`;
      return `Interrogate ${who(cmd.target, me, players)}${held}`;
    }
    case "pick_slot": {
      const decision = (view.you && view.you.decision) || {};
      return `Face-down card #${cmd.slot} of ${who(decision.target, me, players)}`;
    }
    case "discard_force":
      return `Discard ${forceName(cmd.card)}`;
    case "take_from_pool":
      return `Take ${forceName(cmd.card)} from the pool`;
    case "learn_trait":
      return `Learn the murderer's ${capitalize(cmd.evidence)} trait`;
    case "peek_token": {
      const b = blockOf(view, cmd.block);
      return `Peek at the ${clueWords(b.clue) || "token"} on ${place(view, cmd.block)}`;
    }
    case "rest_case":
      return cmd.rest ? "Rest your case: end your game now" : "Keep playing";
    case "accuse":
      return `Accuse ${cmd.suspect} ${suspectName(cmd.suspect)}: ${accuseNote(view, cmd.suspect)}`;
    default:
      return (ACTIONS[kind] || capitalize(kind.replaceAll("_", " "))) + cost;
  }
}

// A stable short key for a command: its type and its fields but the seat
// ("drive:to=4,3", "call_for_backup:night_shift=false:risk=6", "accuse:suspect=S05").
// The page puts it on each control as data-cmd, so tests and scripts can find it.
export function commandKey(cmd) {
  let key = String(cmd.type);
  const fields = Object.keys(cmd).filter((k) => k !== "type" && k !== "seat").sort();
  for (const k of fields) {
    let v = cmd[k];
    if (k === "path") {
      const end = v && v.length ? v[v.length - 1] : null;
      key += `:to=${end ? end.join(",") : ""}`;
      continue;
    }
    if (Array.isArray(v)) v = v.join(",");
    key += `:${k}=${v === null || v === undefined ? "none" : v}`;
  }
  return key;
}

// Accusations in menu order: possible murderers first, then the server's order.
export function accusationOrder(view, legal) {
  const possible = new Set(candidates(innocents(view), (view.you && view.you.traits) || {}));
  return legal
    .map((cmd, i) => [cmd, i])
    .sort(([a, i], [b, j]) => (possible.has(a.suspect) ? 0 : 1) - (possible.has(b.suspect) ? 0 : 1) || i - j)
    .map(([cmd]) => cmd);
}

// What the page is waiting for, in words.
export function prompt(view) {
  const you = view.you;
  const status = view.status;
  if (status === "new") return "Waiting for the game to start";
  if (status === "over") return "The game is over";
  if (!you || typeof you !== "object") {
    const turn = view.turn;
    if (status === "accusing") return "Accusations are being made";
    return turn ? `${seatName(view.players, turn.seat)} is playing (${turn.time})` : "Spectating";
  }
  const me = you.seat;
  if (you.decision) return DECISIONS[you.decision.kind] || `Decide: ${you.decision.kind}`;
  const turn = view.turn || {};
  if ((you.legal || []).length && turn.seat === me) {
    const step = {
      w1: "drive by clicking a highlighted block, or take an action",
      w2: "take an action",
      w3: "your action is done: play a Force card now, or proceed",
      w4: "before the Mobster Roll: play a Force card now, or proceed",
    }[turn.phase] || "play a Force card or proceed";
    return `Your turn (${turn.time}): ${step}`;
  }
  const waiting = (view.decisions || []).filter((d) => d.seat !== me);
  if (waiting.length) return `Waiting for ${who(waiting[0].seat, me, view.players)} to decide (${waiting[0].kind.replaceAll("_", " ")})`;
  if (status === "accusing") return "Waiting for the other accusations";
  if (view.turn && view.turn.seat === me) return "Your turn goes on…";
  if (view.turn) return `Waiting for ${who(view.turn.seat, me, view.players)} to play`;
  return "Waiting";
}
