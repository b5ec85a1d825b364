// Readable words for views and commands (SPEC.md §5.4, §6.1), after the terminal client's
// describe.py: one line per command of `you.legal`, what a block holds, what the page asks, in
// the page's language (table.json "describe.*"; names as the log catalogue says them).

import {
  actionName, candidates, decisionWords, eventName, evidenceName, forceName, suspectGender, suspectName, suspectTrait,
  traitName,
} from "./data.js";
import { andList, bdi, t } from "./i18n.js";
import { seatName } from "/sdk/logtext.js";

// A seat in a sentence: "You" for the viewer's own, else the player's display name (isolated
// when it has right-to-left letters: the SDK's seatName): a string, for attributes and live
// regions.
export function who(seat, me, players = null) {
  if (seat === null || seat === undefined) return t("describe.nobody");
  if (seat === me) return t("describe.you");
  return players ? seatName(players, seat) : `P${seat + 1}`;
}

// The same as a node for the page's text: a player's name in a <bdi>.
export function whoEl(seat, me, players = null) {
  if (seat === null || seat === undefined || seat === me || !players) return who(seat, me, players);
  return bdi(seatName(players, seat));
}

// A block's name as the board shows it ("Chinatown Gate", "Police HQ"); before the city is
// dealt (no names yet), its column and row in words.
export function blockName(view, block) {
  if (!Array.isArray(block)) return "";
  const b = blockOf(view, block);
  if (b.hq) return t("board.hq");
  return b.name ? String(b.name) : t("describe.block_at", { col: block[0], row: block[1] });
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

// The server's hours for `cmd` as a message's argument: the number, or "none" when it sends
// none (the messages say "{hours, select, none {} other { ({hours} h)}}").
export function hoursArg(view, cmd) {
  const hours = hoursOf(view, cmd);
  return hours === null ? "none" : hours;
}

// A Search or Stakeout token in words; `down`: said to be face down when its value is unknown.
export function clueWords(clue, down = false) {
  if (!clue) return "";
  const { kind, value } = clue;
  const unknown = value === null || value === undefined;
  if (kind === "search") {
    return t("describe.clue.search", { result: unknown ? (down ? "down" : "unknown") : value ? "success" : "failure" });
  }
  return t("describe.clue.stakeout", { result: unknown ? (down ? "down" : "unknown") : "value", value: unknown ? "" : value });
}

// A mobster of `colour` in words ("red mobster").
export function mobsterWords(colour) {
  return t("describe.mobster", { color: String(colour) });
}

// What is on a block, in words: its mobster, token, event tokens, HQ.
export function whatIsOn(view, block) {
  const b = blockOf(view, block);
  const parts = [];
  if (b.mobster) parts.push(mobsterWords(b.mobster));
  if (b.clue) parts.push(clueWords(b.clue));
  if (b.events && b.events.length) parts.push(t("describe.event_tokens", { n: b.events.length, slots: andList(b.events) }));
  if (b.hq) parts.push(t("describe.hq"));
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
  return Boolean(cmd.night_shift);
}

function knownToken(view, block) {
  for (const token of (view.you && view.you.known_tokens) || []) {
    if (token.block[0] === block[0] && token.block[1] === block[1]) return token.value;
  }
  return null;
}

// The face-down tokens the viewer knows that are still face down in the city (a token won or
// removed since has left the list).
export function knownFaceDown(view) {
  return ((view.you && view.you.known_tokens) || []).filter((token) => {
    const clue = blockOf(view, token.block).clue;
    return clue && clue.kind === token.kind;
  });
}

export function knownValueHere(view) {
  const car = myCar(view);
  return car ? knownToken(view, car) : null;
}

// Why `suspect` is or is not a possible murderer for the viewer: innocent (in hand, seen, face
// up with a teammate), ruled out by a known trait, or possible; with the words for it.
export function accuseState(view, suspect) {
  const you = view.you || {};
  if ((you.suspects || []).includes(suspect)) return { state: "in_hand" };
  if ((you.seen || []).includes(suspect)) return { state: "seen" };
  const holder = faceUpBy(view, suspect);
  if (holder !== null) return { state: "face_up", holder };
  for (const [evidence, value] of Object.entries(you.traits || {})) {
    if (suspectTrait(suspect, evidence) !== value) return { state: "ruled_out", evidence, value };
  }
  return { state: "possible" };
}

export function accuseNote(view, suspect) {
  const note = accuseState(view, suspect);
  const gender = suspectGender(suspect);
  switch (note.state) {
    case "face_up":
      return t("describe.note.face_up", { name: who(note.holder, mySeat(view), view.players), gender });
    case "ruled_out":
      return t("describe.note.ruled_out", { evidence: note.evidence, value: traitName(note.value), gender });
    default:
      return t(`describe.note.${note.state}`, { gender });
  }
}

export function describe(cmd, view) {
  const kind = String(cmd.type);
  const me = mySeat(view);
  const players = view.players || [];
  const hours = hoursArg(view, cmd);
  if (kind === "drive") {
    const path = cmd.path || [];
    if (!path.length) return t("describe.drive.nowhere");
    const end = path[path.length - 1];
    const there = whatIsOn(view, end);
    return t("describe.drive", { place: place(view, end), n: path.length, hours, there: there || "none" });
  }
  if (kind === "play_force") {
    return t("describe.play_force", { card: forceName(cmd.card), on: cmd.block ? place(view, cmd.block) : "none" });
  }
  const car = myCar(view);
  const here = car ? blockOf(view, car) : {};
  const night = ns(cmd);
  switch (kind) {
    case "arrest":
      return t("describe.arrest", { color: here.mobster || "none", hours });
    case "coffee_break":
      return t("describe.coffee_break", { hours });
    case "call_for_backup":
      return t("describe.call_for_backup", { risk: cmd.risk, ns: night, hours });
    case "catch_informant":
      return t("describe.catch_informant", { row: car ? car[1] : "none", ns: night, hours });
    case "catch_witness":
      return t("describe.catch_witness", { column: car ? car[0] : "none", ns: night, hours });
    case "search_scene":
      return t("describe.search_scene", { ns: night, hours });
    case "stakeout":
      return t("describe.stakeout", { risk: cmd.risk, ns: night, hours });
    case "hold_mobster":
      return t("describe.hold_mobster", { color: here.mobster || "none", ns: night, hours });
    case "book_mobster": {
      const held = me !== null && players[me] ? players[me].holding : null;
      return t("describe.book_mobster", { color: held || "none", ns: night, hours });
    }
    case "resolve_event": {
      const slots = (view.events && view.events.slots) || [];
      const slot = slots[cmd.slot - 1];
      return t("describe.resolve_event", { name: slot ? eventName(slot.card) : "?", slot: cmd.slot, ns: night, hours });
    }
    case "proceed":
      return t("describe.proceed");
    case "gain_suspect": {
      if (cmd.look_at === null || cmd.look_at === undefined) return t("describe.draw_suspect");
      const n = players[cmd.look_at] ? players[cmd.look_at].suspects : null;
      return t("describe.look_at", { name: who(cmd.look_at, me, players), held: n === null ? "unknown" : "known", n: n ?? 0 });
    }
    case "interrogate": {
      if (cmd.target === null || cmd.target === undefined) return t("describe.skip_interrogate");
      const n = players[cmd.target] ? players[cmd.target].suspects : null;
      return t("describe.interrogate", { name: who(cmd.target, me, players), held: n === null ? "unknown" : "known", n: n ?? 0 });
    }
    case "pick_slot": {
      const decision = (view.you && view.you.decision) || {};
      return t("describe.pick_slot", { slot: cmd.slot, name: who(decision.target, me, players) });
    }
    case "discard_force":
      return t("describe.discard_force", { card: forceName(cmd.card) });
    case "take_from_pool":
      return t("describe.take_from_pool", { card: forceName(cmd.card) });
    case "learn_trait":
      return t("describe.learn_trait", { evidence: String(cmd.evidence), name: evidenceName(cmd.evidence) });
    case "peek_token": {
      const b = blockOf(view, cmd.block);
      return t("describe.peek_token", { kind: b.clue ? b.clue.kind : "none", place: place(view, cmd.block) });
    }
    case "rest_case":
      return cmd.rest ? t("describe.rest_case") : t("describe.keep_playing");
    case "accuse":
      return t("describe.accuse", { id: cmd.suspect, name: suspectName(cmd.suspect), gender: suspectGender(cmd.suspect), note: accuseNote(view, cmd.suspect) });
    default:
      return t("describe.other", { action: actionName(kind), hours });
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
  if (status === "new") return t("describe.prompt.new");
  if (status === "over") return t("describe.prompt.over");
  if (!you || typeof you !== "object") {
    const turn = view.turn;
    if (status === "accusing") return t("describe.prompt.accusing");
    return turn ? t("describe.prompt.playing", { name: seatName(view.players, turn.seat), time: turn.time }) : t("describe.prompt.spectating");
  }
  const me = you.seat;
  if (you.decision) return decisionWords(you.decision.kind);
  const turn = view.turn || {};
  if ((you.legal || []).length && turn.seat === me) {
    const step = ["w1", "w2", "w3", "w4"].includes(turn.phase) ? turn.phase : "other";
    return t(`describe.prompt.turn.${step}`, { time: turn.time });
  }
  const waiting = (view.decisions || []).filter((d) => d.seat !== me);
  if (waiting.length) return t("describe.prompt.waiting_decision", { name: who(waiting[0].seat, me, view.players), kind: waiting[0].kind });
  if (status === "accusing") return t("describe.prompt.waiting_accusations");
  if (view.turn && view.turn.seat === me) return t("describe.prompt.goes_on");
  if (view.turn) return t("describe.prompt.waiting_turn", { name: who(view.turn.seat, me, view.players) });
  return t("describe.prompt.waiting");
}
